//! `--compress=LEVEL` and MCP `compress` at each level (`docs`, `summary`, `signatures`), through
//! the real binaries, over source files in five languages: what each level keeps and drops,
//! every definition `outline` finds kept at every level, `--compress` and `compress: true` the
//! `docs` level, a bad level refused naming the valid ones, and each level cached apart (one
//! warm server, and the CLI's disk cache, give each level its own right answer).

use crate::common;

use common::cli::{gnaw_on as gnaw, ok_stdout};
use common::mcp_client::{self, Server};
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const RUST: &str = "\
//! Request parsing. The parser reads bytes.
//!
//! It never allocates twice.

// Licensed under the MIT license.

use std::io::{self, Read};

/// A parsed request. It owns its headers.
///
/// More details on requests.
#[derive(Debug, Clone)]
pub struct Request {
    /// The method, e.g. GET. Always upper case.
    pub method: String, // never empty
    // internal: kept sorted
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// Parses a request. It also checks the method.
    pub fn parse(input: &mut impl Read) -> io::Result<Request> {
        // read it all
        let mut text = String::new();
        input.read_to_string(&mut text)?;
        Ok(Request { method: text, headers: Vec::new() })
    }

    /// The header named `name`. Case matters.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn len(&self) -> usize { self.headers.len() }
}
";

const PYTHON: &str = "\
#!/usr/bin/env python3
\"\"\"Views of the app. They render pages.

Nothing else.
\"\"\"

# Licensed under the MIT license.
import os


class View:
    \"\"\"A view. It renders one page.

    Subclass it.
    \"\"\"

    # the template's name
    TEMPLATE = \"page.html\"

    def render(self, context):
        \"\"\"Renders the page. Returns text.

        :param context: the values
        \"\"\"
        path = os.path.join(\"templates\", self.TEMPLATE)
        return path.format(**context)

    def title(self): return self.TEMPLATE.upper()
";

const GO: &str = "\
//go:build linux

// Package server serves requests. It is small.
package server

import \"net/http\"

// Server answers. It keeps no state.
type Server struct {
\t// Addr is where it listens.
\tAddr string // host:port
}

// Serve serves forever. It never returns nil.
func (s *Server) Serve() error {
\t// listen first
\tmux := http.NewServeMux()
\treturn http.ListenAndServe(s.Addr, mux)
}
";

const JAVA: &str = "\
/*
 * Copyright the authors.
 */
package org.example;

import java.util.List;

/**
 * Parses tokens. Then builds trees.
 *
 * @author someone
 */
public class Parser {
    /** The tokens. Never null. */
    private final List<String> tokens; // shared

    /**
     * Parses all tokens. Stops at the end.
     *
     * @param tokens the input
     */
    public Parser(List<String> tokens) {
        // keep them
        this.tokens = tokens;
        this.tokens.size();
    }
}
";

const TYPESCRIPT: &str = "\
// Client for the API.

import { get } from \"./http\";

/** Options of a client. All optional. */
export interface Options {
  /** The base URL. Defaults to /. */
  base?: string;
}

/**
 * Fetches a user. Throws when missing.
 */
export async function user(id: string, o: Options = {}): Promise<string> {
  // build the URL
  const url = `${o.base ?? \"/\"}users/${id}`;
  return get(url);
}
";

const CPP: &str = "\
#define SQ(x) ((x) * (x))
#define MAX 10

class Shape {
public:
    static bool alwaysTrue( int ) { return true; }
    static const char* name() {
        return \"a shape with a long name\";
    }
    int none() const {}
};
";

/// Each fixture file, its path in the repository.
const FILES: &[(&str, &str)] = &[
    ("native/shape.cpp", CPP),
    ("src/request.rs", RUST),
    ("app/views.py", PYTHON),
    ("svc/server.go", GO),
    ("java/Parser.java", JAVA),
    ("web/client.ts", TYPESCRIPT),
];

fn repo(base: &Path) -> PathBuf {
    let repo = base.join("proj");
    for (path, text) in FILES {
        let file = repo.join(path);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, text).unwrap();
    }
    repo
}

/// The prompt of `gnaw REPO ARGS` (no tree, quiet, no disk cache).
fn prompt(repo: &Path, args: &[&str]) -> String {
    let mut all = vec!["-q", "--no-tree", "--no-cache"];
    all.extend_from_slice(args);
    ok_stdout(gnaw(repo, &all))
}

/// Comment lines of the fixtures: at `docs` all kept, at `summary` only the first sentences
/// (shown here as the summary writes them), at `signatures` none.
const WHOLE_DOCS: &[&str] = &[
    "//! It never allocates twice.",
    "/// More details on requests.",
    "/// Parses a request. It also checks the method.",
    "    Subclass it.",
    "// Serve serves forever. It never returns nil.",
    " * @param tokens the input",
    " * Fetches a user. Throws when missing.",
];
const FIRST_SENTENCES: &[&str] = &[
    "//! Request parsing.",
    "/// A parsed request.",
    "    /// The method, e.g. GET.",
    "    /// Parses a request.",
    "\"\"\"Views of the app.\"\"\"",
    "    \"\"\"A view.\"\"\"",
    "        \"\"\"Renders the page.\"\"\"",
    "// Package server serves requests.",
    "// Server answers.",
    "/** Parses tokens. */",
    "    /** Parses all tokens. */",
    "/** Options of a client. */",
    "  /** The base URL. */",
    "/** Fetches a user. */",
];
const PLAIN_COMMENTS: &[&str] = &[
    "// Licensed under the MIT license.",
    "// internal: kept sorted",
    "// never empty",
    "# Licensed under the MIT license.",
    "// host:port",
    " * Copyright the authors.",
    "// shared",
    "// Client for the API.",
];

/// Every definition `gnaw outline` finds in `path` is in `prompt`, by its first line (without
/// a comment that ends it, which a level may drop, or a body folded into it).
fn every_definition_kept(repo: &Path, path: &str, text: &str, prompt: &str, level: &str) -> usize {
    let outline = ok_stdout(
        Command::new(env!("CARGO_BIN_EXE_gnaw"))
            .args(["outline", repo.to_str().unwrap(), path])
            .output()
            .unwrap(),
    );
    let lines: Vec<&str> = text.lines().collect();
    let squeeze = |s: &str| s.split_whitespace().collect::<String>();
    let mut defs = 0;
    for row in outline.lines().skip(1) {
        let start: usize = row.trim_start().split('-').next().unwrap().parse().unwrap();
        let line = lines[start - 1];
        let code = line.split(" //").next().unwrap().trim_end();
        // What must show of it when its body is folded into its line: its signature (the
        // row's, after `kind: `), a macro's name and parameters.
        let head = if row.contains(" macro: ") {
            code.split_inclusive(')').next().unwrap_or(code)
        } else {
            row.split_once(": ").map_or(code, |(_, sig)| sig)
        };
        // At signatures a body is elided between its braces, `fn f() { ⋯ 3–9 }`, or after what
        // it follows, `def f(): ⋯ 3`: the line shows up to where the body starts.
        assert!(
            prompt.lines().any(|l| {
                let before = l.split(" ⋯ ").next().unwrap_or(l).trim_end();
                before == code
                    || (l.contains(" ⋯ ")
                        && squeeze(code).starts_with(&squeeze(before))
                        && squeeze(before).starts_with(&squeeze(head)))
            }),
            "{level}: {path}: {row} lost ({code:?})"
        );
        defs += 1;
    }
    defs
}

#[test]
fn each_level_keeps_what_it_says_and_every_definition() {
    let base = tempfile::tempdir().unwrap();
    let repo = repo(base.path());
    let bare = prompt(&repo, &["--compress"]);
    let docs = prompt(&repo, &["--compress=docs"]);
    let summary = prompt(&repo, &["--compress=summary"]);
    let signatures = prompt(&repo, &["--compress=SIGNATURES"]);
    assert!(bare == docs, "--compress is not --compress=docs");
    for line in WHOLE_DOCS.iter().chain(PLAIN_COMMENTS) {
        assert!(docs.contains(line), "docs lost {line:?}");
        assert!(!summary.contains(line), "summary kept {line:?}:\n{summary}");
        assert!(!signatures.contains(line), "signatures kept {line:?}");
    }
    for line in FIRST_SENTENCES {
        assert!(
            summary.lines().any(|l| l == *line),
            "summary lacks {line:?}:\n{summary}"
        );
        assert!(
            !signatures.contains(line.trim()),
            "signatures kept {line:?}"
        );
    }
    // What every level keeps: the shebang, a build constraint, imports, fields, markers.
    for level in [&docs, &summary, &signatures] {
        for kept in [
            "#!/usr/bin/env python3",
            "//go:build linux",
            "use std::io::{self, Read};",
            "import java.util.List;",
            "    pub method: String,",
            "    private final List<String> tokens;",
            "  base?: string;",
        ] {
            assert!(level.contains(kept), "{kept:?} lost:\n{level}");
        }
    }
    // Each marker names the lines it stands for; at signatures the range alone, between the
    // braces when they have lines of their own.
    for level in [&docs, &summary] {
        assert!(
            level.contains("\n        ⋯ 4 lines (23–26)\n    }\n"),
            "{level}"
        );
    }
    assert!(
        signatures.contains(
            "    pub fn parse(input: &mut impl Read) -> io::Result<Request> { ⋯ 23–26 }\n"
        ),
        "{signatures}"
    );
    assert!(signatures.contains("\n        ⋯ 25–26\n"), "{signatures}");
    // Docs and summary keep a body of one line; signatures elide it when the marker is
    // shorter, on its signature's line or its own, and a function-like macro's replacement.
    for (whole, folded) in [
        (
            "    pub fn len(&self) -> usize { self.headers.len() }\n",
            "    pub fn len(&self) -> usize { ⋯ 37 }\n",
        ),
        (
            "    def title(self): return self.TEMPLATE.upper()\n",
            "    def title(self): ⋯ 28\n",
        ),
        ("#define SQ(x) ((x) * (x))\n", "#define SQ(x) ⋯ 1\n"),
        (
            "    static bool alwaysTrue( int ) { return true; }\n",
            "    static bool alwaysTrue( int ) { ⋯ 6 }\n",
        ),
        (
            "    static const char* name() {\n        return \"a shape with a long name\";\n    }\n",
            "    static const char* name() { ⋯ 8 }\n",
        ),
    ] {
        for level in [&docs, &summary] {
            assert!(level.contains(whole), "{whole:?} not kept:\n{level}");
        }
        assert!(signatures.contains(folded), "no {folded:?}:\n{signatures}");
    }
    for kept in ["#define MAX 10\n", "    int none() const {}\n"] {
        assert!(signatures.contains(kept), "{kept:?} lost:\n{signatures}");
    }
    // At signatures no comment is left but the two directives.
    for l in signatures.lines() {
        let t = l.trim_start();
        // (`# \`proj\`` is the prompt's title.)
        let comment = t.starts_with("//")
            || t.starts_with("/*")
            || (t.starts_with("# ") && !t.starts_with("# `"));
        assert!(
            !comment || t == "//go:build linux",
            "signatures kept a comment: {l:?}"
        );
        assert!(
            !t.starts_with("\"\"\""),
            "signatures kept a docstring: {l:?}"
        );
    }
    for (name, level) in [
        ("docs", &docs),
        ("summary", &summary),
        ("signatures", &signatures),
    ] {
        let mut defs = 0;
        for (path, text) in FILES {
            defs += every_definition_kept(&repo, path, text, level, name);
        }
        assert!(defs >= 12, "{defs} definitions");
    }
    assert!(docs.len() > summary.len() && summary.len() > signatures.len());
}

#[test]
fn a_bad_level_is_refused_naming_the_levels() {
    let base = tempfile::tempdir().unwrap();
    let repo = repo(base.path());
    let out = gnaw(&repo, &["--compress=outline"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown compress level \"outline\"; use one of docs, summary, signatures"),
        "{err}"
    );
}

fn text_of(resp: &Value) -> String {
    resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {resp}"))
        .to_string()
}

#[test]
fn mcp_compress_takes_true_or_a_level_and_each_is_the_cli_bytes() {
    let base = tempfile::tempdir().unwrap();
    let repo = repo(base.path());
    let mut s = Server::start(base.path(), &[]);
    s.initialize("2025-11-25");
    // budget 0: the whole prompt, as the CLI gives it (the server's default budget would keep
    // these small files whole).
    let call = |s: &mut Server, compress: Value| {
        text_of(&s.call(
            "extract",
            json!({"repo": "proj", "compress": compress, "budget": 0}),
        ))
    };
    let plain = ok_stdout(gnaw(&repo, &[]));
    assert!(call(&mut s, json!(false)) == plain, "compress: false");
    let docs = call(&mut s, json!("docs"));
    assert!(
        call(&mut s, json!(true)) == docs,
        "compress: true is not docs"
    );
    for level in ["docs", "summary", "signatures"] {
        let flag = format!("--compress={level}");
        let cli = ok_stdout(gnaw(&repo, &[&flag]));
        assert!(
            call(&mut s, json!(level)) == cli,
            "{level} differs from {flag}"
        );
        // The note after the prompt says what the level left out of the comments.
        let resp = s.call(
            "extract",
            json!({"repo": "proj", "compress": level, "budget": 0}),
        );
        let note = resp["result"]["content"][1]["text"].as_str().unwrap();
        assert!(note.contains("shown as skeletons"), "{note}");
        assert_eq!(
            note.contains("first sentence"),
            level == "summary",
            "{note}"
        );
        assert_eq!(
            note.contains("Comments are left out"),
            level == "signatures"
        );
        let est = s.call(
            "estimate",
            json!({"repo": "proj", "compress": level, "budget": 0}),
        );
        let summary: Value = serde_json::from_str(&ok_stdout(gnaw(
            &repo,
            &["--json", "-q", "-o", "/dev/null", &flag],
        )))
        .unwrap();
        assert_eq!(
            est["result"]["structuredContent"]["tokens"], summary["tokens"],
            "{level}"
        );
    }
    for bad in [json!("outline"), json!(7), json!(["docs"])] {
        let e = s.call("extract", json!({"repo": "proj", "compress": bad}));
        assert_eq!(e["error"]["code"], -32602, "{e}");
        assert_eq!(e["error"]["data"]["kind"], "InvalidArguments", "{e}");
        let message = e["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("\"compress\"") && message.contains("docs, summary, signatures"),
            "{message}"
        );
    }
    s.finish_ok();
}

#[test]
fn levels_are_cached_apart_in_a_warm_server() {
    let base = tempfile::tempdir().unwrap();
    let repo = repo(base.path());
    let mut s = Server::start(base.path(), &[("RUST_LOG", "info")]);
    s.initialize("2025-11-25");
    let extract = |s: &mut Server, level: &str| {
        let text = text_of(&s.call(
            "extract",
            json!({"repo": "proj", "compress": level, "budget": 0}),
        ));
        std::thread::sleep(std::time::Duration::from_millis(150));
        let misses = mcp_client::cache_stat(&s.stderr(), "skeleton_misses");
        (text, misses)
    };
    let cli = |level: &str| ok_stdout(gnaw(&repo, &[&format!("--compress={level}")]));
    let (summary, m1) = extract(&mut s, "summary");
    let (signatures, m2) = extract(&mut s, "signatures");
    assert!(summary == cli("summary"), "summary");
    assert!(signatures == cli("signatures"), "signatures after summary");
    assert!(summary != signatures);
    assert_eq!(
        m2,
        m1 + FILES.len() as u64,
        "signatures took summary's skeletons"
    );
    let (again, m3) = extract(&mut s, "summary");
    assert!(again == summary, "summary after signatures");
    let (docs, m4) = extract(&mut s, "docs");
    assert!(docs == cli("docs"), "docs after the others");
    assert_eq!((m3, m4), (m2, m2 + FILES.len() as u64));
    s.finish_ok();
}
