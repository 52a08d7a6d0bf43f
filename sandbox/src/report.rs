//! The self-test's report: one [`Case`] per check (a probe, or a check of the sandbox as a whole),
//! each with the layer it tests, what was expected and what happened, and the three ways the
//! report is written ([`Format`]): lines for a person, JSON for a program, JUnit XML for a CI
//! job. The cases are gathered once ([`super::selftest::run`]); each format only writes them.
//!
//! Exit codes of `gnaw-mcp --self-test`, whatever the format: 0 every check passed; 1 a check
//! failed (including a host without Landlock, or a sandboxed child that did not answer every
//! probe); 2 the self-test could not run (bad configuration, or its child could not start).

use std::fmt::Write as _;
use std::io::{self, Write};

/// How the report is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    /// One line per check, `N passed, N failed` last.
    #[default]
    Text,
    /// One JSON object: the totals and every case.
    Json,
    /// JUnit XML: one `<testsuite>`, one `<testcase>` per check.
    Junit,
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Format, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "text" => Ok(Format::Text),
            "json" => Ok(Format::Json),
            "junit" | "xml" => Ok(Format::Junit),
            other => Err(format!(
                "unknown self-test format {other:?}; use text, json or junit"
            )),
        }
    }
}

/// How a check ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// As expected.
    Passed,
    /// Not as expected: the sandbox does not hold (or the check could not tell).
    Failed,
    /// Not run on this host, and why is in the detail.
    Skipped,
}

impl Verdict {
    fn word(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "failed",
            Verdict::Skipped => "skipped",
        }
    }

    /// The line prefix of the text format.
    fn tag(self) -> &'static str {
        match self {
            Verdict::Passed => "ok",
            Verdict::Failed => "UNEXPECTED",
            Verdict::Skipped => "skipped",
        }
    }
}

/// One check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The probe's or check's name (`read_outside`, `capabilities`).
    pub name: String,
    /// The layer it tests: `landlock`, `seccomp`, `capabilities`, `sandbox` (the whole), or
    /// `control` (a positive control no layer stops).
    pub layer: &'static str,
    /// What must happen (`denied with EACCES`, `allowed`, `none held`).
    pub expect: String,
    pub verdict: Verdict,
    /// What happened, in words.
    pub detail: String,
}

/// Everything the self-test found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The roots it confined to.
    pub roots: Vec<String>,
    /// The sandbox mode, as `GNAW_MCP_SANDBOX` spells it.
    pub mode: String,
    pub cases: Vec<Case>,
    /// The sandboxed child's stderr, kept when a check failed (at most 20 lines).
    pub child_stderr: Vec<String>,
}

impl Report {
    /// Add a case.
    pub fn push(
        &mut self,
        name: impl Into<String>,
        layer: &'static str,
        expect: impl Into<String>,
        verdict: Verdict,
        detail: impl Into<String>,
    ) {
        self.cases.push(Case {
            name: name.into(),
            layer,
            expect: expect.into(),
            verdict,
            detail: detail.into(),
        });
    }

    /// How many cases ended so.
    pub fn count(&self, verdict: Verdict) -> usize {
        self.cases.iter().filter(|c| c.verdict == verdict).count()
    }

    /// Write the report in `format`.
    pub fn write(&self, format: Format, out: &mut dyn Write) -> io::Result<()> {
        match format {
            Format::Text => out.write_all(self.text().as_bytes()),
            Format::Json => {
                let mut json = self.json().to_string();
                json.push('\n');
                out.write_all(json.as_bytes())
            }
            Format::Junit => out.write_all(self.junit().as_bytes()),
        }
    }

    fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "gnaw-mcp self-test: {} {}, sandbox mode {}",
            if self.roots.len() == 1 {
                "root"
            } else {
                "roots"
            },
            self.roots.join(", "),
            self.mode
        );
        for c in &self.cases {
            let _ = writeln!(s, "{:<10} {}: {}", c.verdict.tag(), c.name, c.detail);
        }
        for line in &self.child_stderr {
            let _ = writeln!(s, "  child stderr: {line}");
        }
        let _ = writeln!(
            s,
            "{} passed, {} failed",
            self.count(Verdict::Passed),
            self.count(Verdict::Failed)
        );
        s
    }

    fn json(&self) -> serde_json::Value {
        let cases: Vec<serde_json::Value> = self
            .cases
            .iter()
            .map(|c| {
                serde_json::json!({
                    "name": c.name,
                    "layer": c.layer,
                    "expect": c.expect,
                    "result": c.verdict.word(),
                    "detail": c.detail,
                })
            })
            .collect();
        serde_json::json!({
            "roots": self.roots,
            "mode": self.mode,
            "passed": self.count(Verdict::Passed),
            "failed": self.count(Verdict::Failed),
            "skipped": self.count(Verdict::Skipped),
            "cases": cases,
            "child_stderr": self.child_stderr,
        })
    }

    /// JUnit XML as the common schema (Jenkins' `junit-10.xsd`, which CI services read) has it:
    /// `<testsuites>` holding one `<testsuite>` with its counts, a `<properties>` block, and one
    /// `<testcase classname name time>` per check, holding `<failure message type>` or
    /// `<skipped message>` when it did not pass, and `<system-out>` with what was expected and
    /// observed.
    fn junit(&self) -> String {
        let (tests, failures, skipped) = (
            self.cases.len(),
            self.count(Verdict::Failed),
            self.count(Verdict::Skipped),
        );
        let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            s,
            "<testsuites name=\"gnaw-mcp self-test\" tests=\"{tests}\" failures=\"{failures}\" \
             errors=\"0\" skipped=\"{skipped}\" time=\"0\">"
        );
        let _ = writeln!(
            s,
            "  <testsuite name=\"gnaw-mcp self-test\" tests=\"{tests}\" failures=\"{failures}\" \
             errors=\"0\" skipped=\"{skipped}\" time=\"0\">"
        );
        s.push_str("    <properties>\n");
        let _ = writeln!(
            s,
            "      <property name=\"mode\" value=\"{}\"/>",
            xml(&self.mode)
        );
        for r in &self.roots {
            let _ = writeln!(s, "      <property name=\"root\" value=\"{}\"/>", xml(r));
        }
        s.push_str("    </properties>\n");
        for c in &self.cases {
            let _ = write!(
                s,
                "    <testcase classname=\"gnaw-mcp.self-test.{}\" name=\"{}\" time=\"0\">",
                xml(c.layer),
                xml(&c.name)
            );
            match c.verdict {
                Verdict::Passed => {}
                Verdict::Failed => {
                    let _ = write!(
                        s,
                        "\n      <failure message=\"{}\" type=\"UNEXPECTED\">expected {}</failure>",
                        xml(&c.detail),
                        xml(&c.expect)
                    );
                }
                Verdict::Skipped => {
                    let _ = write!(s, "\n      <skipped message=\"{}\"/>", xml(&c.detail));
                }
            }
            let _ = writeln!(
                s,
                "\n      <system-out>layer: {}; expected: {}; observed: {}</system-out>\n    </testcase>",
                xml(c.layer),
                xml(&c.expect),
                xml(&c.detail)
            );
        }
        if !self.child_stderr.is_empty() {
            let _ = writeln!(
                s,
                "    <system-err>{}</system-err>",
                xml(&self.child_stderr.join("\n"))
            );
        }
        s.push_str("  </testsuite>\n</testsuites>\n");
        s
    }
}

/// Text as XML character data or an attribute value: markup characters escaped, and characters
/// XML 1.0 cannot hold (controls other than tab and line breaks) written as `\u{XX}`.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report() -> Report {
        let mut r = Report {
            roots: vec!["/srv/a&b".into()],
            mode: "strict".into(),
            ..Report::default()
        };
        r.push(
            "read_outside",
            "landlock",
            "denied with EACCES",
            Verdict::Passed,
            "denied with EACCES",
        );
        r.push(
            "udp",
            "seccomp",
            "denied with EPERM",
            Verdict::Failed,
            "succeeded, expected EPERM <\u{1}>",
        );
        r.push(
            "i386_syscall",
            "seccomp",
            "killed",
            Verdict::Skipped,
            "not an x86_64 host",
        );
        r
    }

    #[test]
    fn each_format_writes_every_case() {
        let r = report();
        let mut text = Vec::new();
        r.write(Format::Text, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.contains("ok         read_outside: denied with EACCES"),
            "{text}"
        );
        assert!(text.contains("UNEXPECTED udp: "), "{text}");
        assert!(text.ends_with("1 passed, 1 failed\n"), "{text}");

        let json = r.json();
        assert_eq!(json["passed"], 1);
        assert_eq!(json["failed"], 1);
        assert_eq!(json["skipped"], 1);
        assert_eq!(json["cases"][1]["layer"], "seccomp");
        assert_eq!(json["cases"][1]["result"], "failed");

        let xml = r.junit();
        assert!(
            xml.contains("tests=\"3\" failures=\"1\" errors=\"0\" skipped=\"1\""),
            "{xml}"
        );
        assert!(
            xml.contains("<failure message=\"succeeded, expected EPERM &lt;\\u{1}&gt;\""),
            "{xml}"
        );
        assert!(
            xml.contains("<skipped message=\"not an x86_64 host\"/>"),
            "{xml}"
        );
        assert!(xml.contains("value=\"/srv/a&amp;b\""), "{xml}");
        assert_eq!(xml.matches("<testcase ").count(), 3);
        assert_eq!(xml.matches("</testcase>").count(), 3);
    }
}
