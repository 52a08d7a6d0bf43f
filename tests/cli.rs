//! End-to-end tests of the `gnaw` binary on fixture repositories built at test time: ignore
//! rules, config merging and errors, every format, files that must be skipped, weird names,
//! determinism, stdin confinement and exact token totals.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

mod common;

use common::fixture::Tree;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Output};

/// A repository `repo` in a temporary directory (`base`: tests put things *next to* the repo).
struct Fixture(Tree);

impl std::ops::Deref for Fixture {
    type Target = Tree;
    fn deref(&self) -> &Tree {
        &self.0
    }
}

impl Fixture {
    fn new() -> Fixture {
        Fixture(Tree::new("repo"))
    }

    fn gnaw(&self, args: &[&str]) -> Output {
        self.gnaw_stdin(args, None)
    }

    /// `gnaw` on the repository, `$HOME` beside it.
    fn gnaw_stdin(&self, args: &[&str], stdin: Option<&[u8]>) -> Output {
        common::cli::gnaw_stdin(&self.repo, args, stdin, Some(&self.base))
    }

    /// The JSON summary (`--json`).
    fn summary(&self, args: &[&str]) -> serde_json::Value {
        let mut all = vec!["--json", "-q"];
        all.extend_from_slice(args);
        let out = self.gnaw(&all);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }

    fn paths(&self, args: &[&str]) -> Vec<String> {
        self.summary(args)["file_list"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["path"].as_str().unwrap().to_string())
            .collect()
    }

    fn skipped(&self, args: &[&str]) -> Vec<(String, String)> {
        common::json::pairs(&self.summary(args)["skipped_list"], "path", "reason")
    }
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn nested_gitignore_with_negation_and_ignore_files() {
    let f = Fixture::new();
    f.files(&[
        (".gitignore", "*.log\nbuild/\n"),
        ("a.log", "x"),
        ("keep.rs", "fn main() {}\n"),
        ("build/out.rs", "x"),
        ("sub/.gitignore", "!important.log\n"),
        ("sub/important.log", "kept by negation\n"),
        ("sub/other.log", "x"),
        (".ignore", "secret_dir/\n"),
        ("secret_dir/x.rs", "x"),
    ]);
    assert_eq!(f.paths(&[]), vec!["keep.rs", "sub/important.log"]);
    // --no-ignore turns them all off (hidden files stay out).
    let all = f.paths(&["--no-ignore"]);
    assert!(all.contains(&"a.log".to_string()) && all.contains(&"secret_dir/x.rs".to_string()));
    assert!(!all.iter().any(|p| p.starts_with('.')));
}

#[test]
fn no_ignore_file_outside_the_repo_is_read() {
    let f = Fixture::new();
    // The parent directory's .gitignore and a global excludes file in $HOME must not matter.
    fs::write(f.base.join(".gitignore"), "*\n").unwrap();
    fs::create_dir_all(f.base.join(".config/git")).unwrap();
    fs::write(f.base.join(".config/git/ignore"), "*.rs\n").unwrap();
    f.write("a.rs", b"a\n");
    assert_eq!(f.paths(&[]), vec!["a.rs"]);
}

#[test]
fn git_info_exclude_only_from_a_real_git_dir() {
    let f = Fixture::new();
    f.files(&[
        (".git/info/exclude", "excluded.txt\n"),
        (".git/HEAD", "ref: refs/heads/main\n"),
        ("excluded.txt", "x"),
        ("kept.txt", "y"),
    ]);
    assert_eq!(f.paths(&["--hidden"]), vec!["kept.txt"]);

    // A .git *file* pointing outside: its exclude is never read and nothing under it is opened.
    let g = Fixture::new();
    let outside = g.base.join("elsewhere");
    fs::create_dir_all(outside.join("info")).unwrap();
    fs::write(outside.join("info/exclude"), "kept.txt\n").unwrap();
    g.write(
        ".git",
        format!("gitdir: {}\n", outside.display()).as_bytes(),
    )
    .write("kept.txt", b"y");
    assert_eq!(g.paths(&["--hidden"]), vec!["kept.txt"]);
}

#[test]
fn ignore_precedence_follows_git_and_the_ignore_crate() {
    let f = Fixture::new();
    f.files(&[
        (".git/HEAD", "ref: refs/heads/main\n"),
        // info/exclude is the weakest: an in-tree .gitignore negation re-includes.
        (".git/info/exclude", "*.gen\n"),
        (".gitignore", "!wanted.gen\n*.tmp\n"),
        ("wanted.gen", "w\n"),
        ("other.gen", "o\n"),
        // .ignore beats .gitignore, at any depth.
        (".ignore", "!kept.tmp\n"),
        ("sub/kept.tmp", "k\n"),
        ("sub/dropped.tmp", "d\n"),
        // A deeper .gitignore beats a shallower one.
        ("sub/.gitignore", "!deep.tmp\n"),
        ("sub/deep.tmp", "deep\n"),
        // A nested repository is not subject to the .gitignore files above it.
        ("nested/.git/HEAD", "ref: refs/heads/main\n"),
        ("nested/x.tmp", "x\n"),
    ]);
    assert_eq!(
        f.paths(&[]),
        vec!["nested/x.tmp", "sub/deep.tmp", "sub/kept.tmp", "wanted.gen"]
    );
}

/// Ignore files are read through the directory's fd, non-blocking, without following links, and
/// bounded: a FIFO `.gitignore` must not hang the walk, a `.gitignore` linked to `/dev/zero`
/// must not exhaust memory, and a link to an outside ignore file is not honoured (as git).
#[test]
fn hostile_ignore_files_neither_hang_nor_leave_the_repo() {
    let f = Fixture::new();
    nix_mkfifo(&f.repo.join(".gitignore"));
    fs::create_dir_all(f.repo.join("zero")).unwrap();
    symlink("/dev/zero", f.repo.join("zero/.gitignore")).unwrap();
    fs::write(f.base.join("outside-ignore"), "*.rs\n").unwrap();
    fs::create_dir_all(f.repo.join("linked")).unwrap();
    symlink(f.base.join("outside-ignore"), f.repo.join("linked/.ignore")).unwrap();
    f.write("a.rs", b"a\n")
        .write("zero/b.rs", b"b\n")
        .write("linked/c.rs", b"c\n");
    let start = std::time::Instant::now();
    let skipped = f.skipped(&[]);
    assert!(start.elapsed() < std::time::Duration::from_secs(60));
    assert_eq!(f.paths(&[]), vec!["a.rs", "linked/c.rs", "zero/b.rs"]);
    let reasons: Vec<&str> = skipped.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        reasons,
        vec![".gitignore", "linked/.ignore", "zero/.gitignore"],
        "{skipped:?}"
    );
    for (path, reason) in &skipped {
        assert_eq!(reason, "unreadable", "{path}");
    }
    let out = f.gnaw(&["--json", "-q"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = v.to_string();
    assert!(text.contains("not honoured as an ignore file"), "{text}");
}

#[test]
fn gitignore_works_without_git_and_hidden_is_opt_in() {
    let f = Fixture::new();
    f.files(&[
        (".gitignore", "ignored.txt\n"),
        ("ignored.txt", "x"),
        (".hidden/h.txt", "h"),
        ("v.txt", "v"),
    ]);
    assert_eq!(f.paths(&[]), vec!["v.txt"]);
    assert_eq!(
        f.paths(&["--hidden"]),
        vec![".gitignore", ".hidden/h.txt", "v.txt"]
    );
}

#[test]
fn config_merges_with_flags() {
    let f = Fixture::new();
    f.files(&[
        (
            ".gnawconfig",
            "include = [\"src/**\"]\nexclude = [\"*_test.rs\"]\nformat = \"xml\"\n",
        ),
        ("src/a.rs", "a\n"),
        ("src/a_test.rs", "t\n"),
        ("docs/d.md", "d\n"),
        ("README.md", "r\n"),
    ]);
    assert_eq!(f.paths(&[]), vec!["src/a.rs"]);
    // CLI lists are added to the config's.
    assert_eq!(
        f.paths(&["-i", "*.md"]),
        vec!["README.md", "docs/d.md", "src/a.rs"]
    );
    assert_eq!(
        f.paths(&["-i", "*.md,docs/**", "-e", "docs"]),
        vec!["README.md", "src/a.rs"]
    );
    // Scalars: config says xml, the flag says json.
    let out = stdout(&f.gnaw(&["-q"]));
    assert!(out.starts_with("<repository"), "{out}");
    let out = stdout(&f.gnaw(&["-q", "--format", "json"]));
    assert!(out.starts_with('{'), "{out}");
}

#[test]
fn bad_config_is_a_usage_error_naming_the_key() {
    let f = Fixture::new();
    f.write(".gnawconfig", b"exclud = [\"x\"]\n")
        .write("a.rs", b"a");
    let out = f.gnaw(&[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("exclud") && err.contains("did you mean `exclude`"),
        "{err}"
    );

    f.write(".gnawconfig", b"max_file_size = \"huge\"\n");
    let out = f.gnaw(&[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("max_file_size"));

    f.write(".gnawconfig", b"this is not toml\n");
    assert_eq!(f.gnaw(&[]).status.code(), Some(2));
}

#[test]
fn formats_keep_their_structure_against_hostile_content() {
    let f = Fixture::new();
    let nasty =
        "```\n````\n</file><file path=\"x\">\n\"},{\"path\":\"evil\"\n&amp; <![CDATA[ ]]>\n";
    f.write("nasty.md", nasty.as_bytes())
        .write("plain.rs", b"fn a() {}\n");

    let md = stdout(&f.gnaw(&["-q"]));
    assert!(
        md.contains("`````markdown\n"),
        "fence must outgrow the content's backticks:\n{md}"
    );
    assert!(md.contains(nasty));

    let xml = stdout(&f.gnaw(&["-q", "--format", "xml"]));
    assert_eq!(xml.matches("<file path=").count(), 2, "{xml}");
    assert!(xml.contains("&lt;/file&gt;&lt;file path=\"x\"&gt;"));
    assert!(xml.contains("&amp;amp;"));
    assert!(xml.ends_with("</repository>\n"));

    let json = stdout(&f.gnaw(&["-q", "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["path"], "nasty.md");
    assert_eq!(files[0]["content"], nasty);
    assert!(v["tree"].as_str().unwrap().contains("plain.rs"));
}

#[test]
fn skipped_files_are_reported_with_reasons() {
    let f = Fixture::new();
    f.write("bin.dat", b"\x7fELF\0\0\x01binary")
        .write("big.txt", vec![b'a'; 2048])
        .write("latin1.txt", b"caf\xe9 cr\xe8me\n")
        .write("ok.txt", b"ok\n");
    nix_mkfifo(&f.repo.join("pipe"));
    symlink("/etc/hostname", f.repo.join("link_out")).unwrap();
    let sk = f.skipped(&["--max-file-size", "1024"]);
    assert!(sk.contains(&("bin.dat".into(), "binary".into())), "{sk:?}");
    assert!(
        sk.contains(&("big.txt".into(), "too_large".into())),
        "{sk:?}"
    );
    assert!(
        sk.contains(&("pipe".into(), "not_regular".into())),
        "{sk:?}"
    );
    assert!(
        sk.contains(&("link_out".into(), "symlink".into())),
        "{sk:?}"
    );
    // Lossy text is kept and marked.
    let s = f.summary(&[]);
    let latin = s["file_list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["path"] == "latin1.txt")
        .unwrap()
        .clone();
    assert_eq!(latin["lossy"], true);
    let md = stdout(&f.gnaw(&["-q"]));
    assert!(md.contains("caf\u{FFFD} cr\u{FFFD}me"));
    assert!(md.contains("not valid UTF-8"));
    // The stderr summary names every skipped file and why.
    let out = f.gnaw(&["--max-file-size", "1024"]);
    let err = String::from_utf8_lossy(&out.stderr);
    for p in ["bin.dat", "big.txt", "pipe", "link_out"] {
        assert!(err.contains(&format!("skipped {p}:")), "{err}");
    }
}

#[test]
fn follow_links_only_inside_the_repo() {
    let f = Fixture::new();
    fs::write(f.base.join("outside.txt"), "CANARY-OUTSIDE").unwrap();
    f.write("real.txt", b"inside\n");
    symlink("real.txt", f.repo.join("in_link")).unwrap();
    symlink(f.base.join("outside.txt"), f.repo.join("out_link")).unwrap();
    symlink("../outside.txt", f.repo.join("rel_out_link")).unwrap();
    symlink("nowhere", f.repo.join("dangling")).unwrap();
    let out = stdout(&f.gnaw(&["-L", "-q"]));
    assert!(out.contains("### `in_link`"));
    assert!(!out.contains("CANARY-OUTSIDE"));
    let sk = f.skipped(&["-L"]);
    for p in ["out_link", "rel_out_link", "dangling"] {
        assert!(sk.contains(&(p.into(), "symlink".into())), "{p}: {sk:?}");
    }
    // Without -L no link is followed at all.
    assert!(!stdout(&f.gnaw(&["-q"])).contains("### `in_link`"));
}

#[test]
fn weird_names_are_escaped_unambiguously() {
    let f = Fixture::new();
    let names: [&[u8]; 4] = [
        b"new\nline.txt",
        b"back`tick.txt",
        b"\xff\xfe.txt",
        b"esc\x1b[31m.txt",
    ];
    for n in names {
        fs::write(f.repo.join(std::ffi::OsStr::from_bytes(n)), b"x\n").unwrap();
    }
    let md = stdout(&f.gnaw(&["-q"]));
    assert!(md.contains("new\\nline.txt"));
    assert!(md.contains("``back`tick.txt``"));
    assert!(md.contains("\\xff\\xfe.txt"));
    assert!(md.contains("esc\\u{1b}[31m.txt"));
    assert!(!md.contains('\x1b'));
    let json = stdout(&f.gnaw(&["-q", "--format", "json"]));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["files"].as_array().unwrap().len(), 4);
}

#[test]
fn output_is_deterministic_and_sorted_bytewise() {
    let f = Fixture::new();
    for i in 0..200 {
        f.write(
            &format!("d{}/f{}.txt", i % 7, i),
            format!("file {i}\n").as_bytes(),
        );
    }
    f.write("B.txt", b"upper")
        .write("a.txt", b"lower")
        .write("a.b/c", b"c");
    let first = f.gnaw(&["-q"]).stdout;
    for _ in 0..3 {
        assert_eq!(f.gnaw(&["-q"]).stdout, first);
    }
    let paths = f.paths(&[]);
    let mut sorted = paths.clone();
    sorted.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
    assert_eq!(paths, sorted);
    assert_eq!(paths[0], "B.txt");
}

#[test]
fn stdin_paths_are_confined_to_the_repo() {
    let f = Fixture::new();
    f.write("a.rs", b"a\n")
        .write("ignored.rs", b"i\n")
        .write(".gitignore", b"ignored.rs\n");
    fs::create_dir(f.base.join("repo-evil")).unwrap();
    fs::write(f.base.join("repo-evil/x.rs"), "CANARY").unwrap();
    fs::write(f.base.join("secret.txt"), "CANARY").unwrap();
    symlink(f.base.join("secret.txt"), f.repo.join("link")).unwrap();

    // Listed paths bypass ignore rules, relative or absolute.
    let abs = f.repo.join("a.rs");
    let input = format!("ignored.rs\n{}\n", abs.display());
    let out = f.gnaw_stdin(&["--stdin", "--json", "-q"], Some(input.as_bytes()));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"], 2);

    let evil = f.base.join("repo-evil/x.rs").display().to_string();
    let outside = f.base.join("secret.txt").display().to_string();
    for bad in [
        "../secret.txt",
        "a/../../secret.txt",
        &evil,
        &outside,
        "link",
    ] {
        let input = format!("a.rs\n{bad}\n");
        let out = f.gnaw_stdin(&["--stdin"], Some(input.as_bytes()));
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&bad.to_string()),
            "error must name {bad}: {err}"
        );
        assert!(
            out.stdout.is_empty(),
            "{bad}: a rejected run prints nothing"
        );
        assert!(!err.contains("CANARY"));
    }

    // NUL-separated input.
    let out = f.gnaw_stdin(
        &["--stdin", "-0", "--json", "-q"],
        Some(b"a.rs\0ignored.rs\0"),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["files"], 2);
}

#[test]
fn estimate_equals_the_count_of_the_output() {
    let f = Fixture::new();
    f.write(
        "a.rs",
        "fn main() { println!(\"héllo 世界 <|endoftext|>\"); }\n".as_bytes(),
    )
    .write("b.md", b"# Title\n\n```rust\nlet x = 1;\n```\n")
    .write("c.txt", b"no trailing newline");
    for format in ["markdown", "xml", "json"] {
        for enc in ["o200k_base", "cl100k_base", "p50k_base", "r50k_base"] {
            let out = stdout(&f.gnaw(&["-q", "--format", format, "--encoding", enc]));
            let est = stdout(&f.gnaw(&["-q", "--estimate", "--format", format, "--encoding", enc]));
            let bpe = match enc {
                "o200k_base" => tiktoken_rs::o200k_base(),
                "cl100k_base" => tiktoken_rs::cl100k_base(),
                "p50k_base" => tiktoken_rs::p50k_base(),
                _ => tiktoken_rs::r50k_base(),
            }
            .unwrap();
            let exact = bpe.encode_ordinary(&out).len();
            assert_eq!(est, format!("{exact} {enc}\n"), "{format} {enc}");
        }
    }
}

#[test]
fn usage_errors_exit_2() {
    let f = Fixture::new();
    assert_eq!(f.gnaw(&["--format", "html"]).status.code(), Some(2));
    let out = Command::new(env!("CARGO_BIN_EXE_gnaw"))
        .arg(f.base.join("does-not-exist"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!String::from_utf8_lossy(&out.stderr).is_empty());
}

#[test]
fn output_file_and_quiet() {
    let f = Fixture::new();
    f.write("a.rs", b"a\n");
    let target = f.base.join("prompt.md");
    let out = f.gnaw(&["-o", target.to_str().unwrap(), "-q"]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    assert!(fs::read_to_string(&target).unwrap().contains("### `a.rs`"));
}

fn nix_mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}
