//! A probe's outcome: what it must observe ([`Expect`]), what it did ([`Observed`]), and the
//! two together ([`ProbeResult`]) as the wire line the child prints and the words the report
//! shows.

use std::fmt;

use nix::errno::Errno;

use crate::report::Verdict;

/// What a probe must observe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// The operation succeeds (positive control).
    Allowed,
    /// The operation fails with this errno.
    Denied(i32),
}

/// What a probe observed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Observed {
    /// `0` for success, else the errno (`-1` when the error carried none).
    Code(i32),
    /// Not run, and why (e.g. the root holds no readable file).
    Skipped(String),
}

/// One probe's expectation and result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeResult {
    pub name: String,
    pub expect: Expect,
    pub observed: Observed,
}

impl ProbeResult {
    /// `Some(true)` when the result is the expected one, `None` when skipped.
    pub fn passed(&self) -> Option<bool> {
        match (&self.observed, self.expect) {
            (Observed::Skipped(_), _) => None,
            (Observed::Code(c), Expect::Allowed) => Some(*c == 0),
            (Observed::Code(c), Expect::Denied(e)) => Some(*c == e),
        }
    }

    /// One line for the child-to-parent pipe: `probe NAME EXPECT OBSERVED`.
    pub fn to_wire(&self) -> String {
        let expect = match self.expect {
            Expect::Allowed => "allow".to_string(),
            Expect::Denied(e) => e.to_string(),
        };
        match &self.observed {
            Observed::Code(c) => format!("probe {} {expect} {c}", self.name),
            Observed::Skipped(why) => {
                format!(
                    "probe {} {expect} skip {}",
                    self.name,
                    why.replace('\n', " ")
                )
            }
        }
    }

    /// Parse a line made by [`ProbeResult::to_wire`].
    pub fn from_wire(line: &str) -> Option<ProbeResult> {
        let mut parts = line.splitn(5, ' ');
        if parts.next()? != "probe" {
            return None;
        }
        let name = parts.next()?.to_string();
        let expect = match parts.next()? {
            "allow" => Expect::Allowed,
            e => Expect::Denied(e.parse().ok()?),
        };
        let observed = match parts.next()? {
            "skip" => Observed::Skipped(parts.next().unwrap_or_default().to_string()),
            c => Observed::Code(c.parse().ok()?),
        };
        Some(ProbeResult {
            name,
            expect,
            observed,
        })
    }
}

impl ProbeResult {
    /// How it ended.
    pub fn verdict(&self) -> Verdict {
        match self.passed() {
            None => Verdict::Skipped,
            Some(true) => Verdict::Passed,
            Some(false) => Verdict::Failed,
        }
    }

    /// What it expected, in words.
    pub fn expectation(&self) -> String {
        match self.expect {
            Expect::Allowed => "allowed".to_string(),
            Expect::Denied(e) => format!("denied with {}", errno_name(e)),
        }
    }

    /// What happened, in words.
    pub fn detail(&self) -> String {
        match (&self.observed, self.passed()) {
            (Observed::Skipped(why), _) => why.clone(),
            (Observed::Code(0), Some(true)) => "allowed".to_string(),
            (Observed::Code(c), Some(true)) => format!("denied with {}", errno_name(*c)),
            (Observed::Code(c), _) => {
                let got = if *c == 0 {
                    "succeeded".to_string()
                } else {
                    format!("failed with {}", errno_name(*c))
                };
                let want = match self.expect {
                    Expect::Allowed => "success".to_string(),
                    Expect::Denied(e) => errno_name(e),
                };
                format!("{got}, expected {want}")
            }
        }
    }
}

impl fmt::Display for ProbeResult {
    /// `ok NAME: ...`, `UNEXPECTED NAME: ...` or `skipped NAME: ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tag = match self.verdict() {
            Verdict::Passed => "ok",
            Verdict::Failed => "UNEXPECTED",
            Verdict::Skipped => "skipped",
        };
        write!(f, "{tag:<10} {}: {}", self.name, self.detail())
    }
}

fn errno_name(code: i32) -> String {
    if code < 0 {
        return "an error without errno".into();
    }
    format!("{:?}", Errno::from_raw(code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_lines_round_trip() {
        for r in [
            ProbeResult {
                name: "read_outside".into(),
                expect: Expect::Denied(libc::EACCES),
                observed: Observed::Code(0),
            },
            ProbeResult {
                name: "read_inside".into(),
                expect: Expect::Allowed,
                observed: Observed::Skipped("no file here".into()),
            },
        ] {
            assert_eq!(ProbeResult::from_wire(&r.to_wire()), Some(r));
        }
        assert_eq!(ProbeResult::from_wire("probe x"), None);
        assert_eq!(ProbeResult::from_wire("enforced true"), None);
    }

    #[test]
    fn verdicts() {
        let r = |expect, observed| ProbeResult {
            name: "p".into(),
            expect,
            observed,
        };
        let denied = Expect::Denied(libc::EACCES);
        assert_eq!(r(denied, Observed::Code(libc::EACCES)).passed(), Some(true));
        assert_eq!(r(denied, Observed::Code(0)).passed(), Some(false));
        assert_eq!(r(denied, Observed::Code(libc::EPERM)).passed(), Some(false));
        assert_eq!(r(Expect::Allowed, Observed::Code(0)).passed(), Some(true));
        assert_eq!(
            r(Expect::Allowed, Observed::Skipped("x".into())).passed(),
            None
        );
        let text = r(denied, Observed::Code(0)).to_string();
        assert!(
            text.starts_with("UNEXPECTED p: succeeded, expected EACCES"),
            "{text}"
        );
    }
}
