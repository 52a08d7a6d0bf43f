//! The `gnaw` command's conveniences, end to end on real files and processes: `--template`
//! (code2prompt's own default template, rendered unchanged; budgets held; errors with their
//! line; its bounds named when hit; never read through a link or a FIFO; `absolute_code_path`
//! redacted as the tree is), `--split-output` (parts within their size in bytes and in tokens,
//! counted independently; each part a document of its format; no part written through a link,
//! a FIFO or a directory), `-c` (the error on a host without a
//! clipboard; the copy itself under Xvfb with xclip), `gnaw completions`
//! and `gnaw man` (valid, and naming every flag, derived from the parser), and the progress
//! line (in a real terminal under tmux, and never when stderr is piped or with `--json`). A
//! check whose tool (Xvfb and xclip, tmux, groff) is missing is skipped, saying so, or fails
//! when `GNAW_REQUIRE_TEST_TOOLS` is set, as CI sets it.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

mod common;

use common::cli::{gnaw_stdin, reference_count};
use common::fixture::Tree;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// code2prompt's default markdown template (see tests/fixtures/code2prompt/README.md).
const CODE2PROMPT_MD: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/code2prompt/default_template_md.hbs"
);

fn gnaw(t: &Tree, args: &[&str]) -> Output {
    gnaw_stdin(&t.repo, args, None, Some(&t.base))
}

fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn err(o: &Output, code: i32) -> String {
    assert_eq!(
        o.status.code(),
        Some(code),
        "stdout: {}\nstderr: {}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn small_repo() -> Tree {
    let t = Tree::new("repo");
    t.write(
        "src/main.rs",
        "fn main() {\n    println!(\"<&> \\\"hi\\\"\");\n}\n",
    )
    .write("README.md", "# Demo\n\nSome `code` & <b>text</b>.\n")
    .write("lib/util.py", "def f(x):\n    return x < 3 and x > 1\n");
    t
}

// ---- --template ----

#[test]
fn code2prompt_default_template_renders_unchanged() {
    let t = small_repo();
    let out = ok(&gnaw(&t, &["-q", "--template", CODE2PROMPT_MD]));
    let abs = t.repo.display().to_string();
    let expected = format!(
        "Project Path: {abs}\n\nSource Tree:\n\n```txt\nrepo/\n├── README.md\n├── lib/\n│   └── \
         util.py\n└── src/\n    └── main.rs\n\n```\n\n`README.md`:\n\n```md\n# Demo\n\nSome `code` \
         & <b>text</b>.\n```\n\n`lib/util.py`:\n\n```py\ndef f(x):\n    return x < 3 and x > \
         1\n```\n\n`src/main.rs`:\n\n```rs\nfn main() {{\n    println!(\"<&> \\\"hi\\\"\");\n}}\n```\n"
    );
    assert_eq!(
        out, expected,
        "no HTML escaping, code fenced with the extension"
    );
    // The count reported is the rendered text's, exactly.
    let o = t.beside("out.md");
    let json: serde_json::Value = serde_json::from_str(&ok(&gnaw(
        &t,
        &["--json", "-t", CODE2PROMPT_MD, "-o", o.to_str().unwrap()],
    )))
    .unwrap();
    let written = std::fs::read_to_string(&o).unwrap();
    assert_eq!(written, expected);
    assert_eq!(
        json["tokens"].as_u64().unwrap() as usize,
        reference_count(&written)
    );
    let est = ok(&gnaw(&t, &["--estimate", "-t", CODE2PROMPT_MD]));
    assert_eq!(est, format!("{} o200k_base\n", reference_count(&written)));
}

#[test]
fn template_variables_missing_ones_and_user_vars() {
    let t = small_repo();
    let tpl = t.beside("t.hbs");
    std::fs::write(
        &tpl,
        "{{greeting}} {{repo_name}} [{{nope}}] {{file_count}} files, {{encoding}}\n\
         {{#each files}}{{path}} ext={{extension}} tc={{token_count}} raw={{text}}{{/each}}\n\
         diff=[{{git_diff}}] nc={{no_codeblock}}",
    )
    .unwrap();
    let out = ok(&gnaw(
        &t,
        &[
            "-q",
            "-t",
            tpl.to_str().unwrap(),
            "-i",
            "src/**",
            "--var",
            "greeting=Hello",
        ],
    ));
    let text = "fn main() {\n    println!(\"<&> \\\"hi\\\"\");\n}\n";
    assert_eq!(
        out,
        format!(
            "Hello repo [] 1 files, o200k_base\nsrc/main.rs ext=rs tc={} raw={text}\ndiff=[] nc=false\n",
            reference_count(text)
        )
    );
}

#[test]
fn a_broken_template_names_its_line() {
    let t = small_repo();
    let tpl = t.beside("bad.hbs");
    std::fs::write(&tpl, "line one\n{{#each files}}\n{{path}\n{{/each}}\n").unwrap();
    let e = err(&gnaw(&t, &["-t", tpl.to_str().unwrap()]), 2);
    assert!(e.contains("bad.hbs") && e.contains("line 3"), "{e}");
    let e = err(&gnaw(&t, &["-t", "/nonexistent/t.hbs"]), 2);
    assert!(e.contains("cannot read the template"), "{e}");
    let e = err(&gnaw(&t, &["--var", "x=1"]), 2);
    assert!(e.contains("--template"), "{e}");
}

/// `gnaw REPO ARGS` under a deadline (a FIFO waited on, a stack overflow, an endless
/// recursion fail the test instead of hanging or aborting it).
fn gnaw_within(t: &Tree, args: &[&str]) -> common::process::Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gnaw"));
    cmd.arg(&t.repo)
        .args(args)
        .env_remove("XDG_CONFIG_HOME")
        .env("HOME", &t.base)
        .env("GNAW_NO_CACHE", "1");
    common::process::run_within(cmd, Duration::from_secs(60))
}

/// Each bound of a template is named when hit, and none aborts gnaw: a partial that includes
/// itself (directly, through another, through the template), blocks nested past the bound, an
/// output that grows with the square of the files (directly, and inside a partial block, which
/// Handlebars renders aside).
#[test]
fn a_template_s_bounds_are_named_when_hit() {
    let t = small_repo();
    let deep = format!("{}x{}", "{{#if files}}".repeat(65), "{{/if}}".repeat(65));
    let fine = format!("{}x{}", "{{#if files}}".repeat(64), "{{/if}}".repeat(64));
    // 40 files of 20 KB: each with each is 40 x 40 x 40 KB = 64 MB, past 4 x 1.6 MB + 16 MiB.
    for i in 0..40 {
        t.write(
            &format!("data/f{i:02}.txt"),
            format!("{i:02}").repeat(10_000),
        );
    }
    let square = "{{#each files}}{{#each ../files}}{{text}}{{code}}{{/each}}{{/each}}";
    for (text, want) in [
        (
            "{{#*inline \"p\"}}{{> p}}{{/inline}}{{> p}}",
            "deeper than 16, the bound on partial depth",
        ),
        (
            "{{#*inline \"a\"}}{{> b}}{{/inline}}{{#*inline \"b\"}}{{> a}}{{/inline}}{{> a}}",
            "deeper than 16, the bound on partial depth",
        ),
        (
            "{{#*inline \"a\"}}{{> template}}{{/inline}}{{> a}}",
            "deeper than 16, the bound on partial depth",
        ),
        (deep.as_str(), "65 deep, past the bound of 64"),
        (
            square,
            "the bound on its output (4 times the text it is given",
        ),
        (
            &format!(
                "{{{{#*inline \"l\"}}}}[{{{{> @partial-block}}}}]{{{{/inline}}}}{{{{#> l}}}}{square}{{{{/l}}}}"
            ),
            "the bound on its output",
        ),
    ] {
        let tpl = t.beside("bounded.hbs");
        std::fs::write(&tpl, text).unwrap();
        let run = gnaw_within(&t, &["-q", "--no-count", "-t", tpl.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(2), "{text}: {}", run.stderr);
        assert!(run.stderr.contains(want), "{text}: {}", run.stderr);
        assert!(run.stdout.is_empty());
    }
    // Just within the bounds, a template renders.
    let tpl = t.beside("fine.hbs");
    std::fs::write(&tpl, &fine).unwrap();
    let run = gnaw_within(&t, &["-q", "--no-count", "-t", tpl.to_str().unwrap()]);
    assert!(run.status.success(), "{}", run.stderr);
    assert_eq!(run.stdout, "x\n");
    // And a large output that is linear in the files is not refused.
    std::fs::write(&tpl, "{{#each files}}{{text}}{{code}}{{text}}{{/each}}").unwrap();
    let run = gnaw_within(&t, &["-q", "--no-count", "-t", tpl.to_str().unwrap()]);
    assert!(run.status.success(), "{}", run.stderr);
}

/// A template is a file the user names: never read through a link (a repository's
/// `prompt.hbs -> ~/.aws/credentials` would print that file into the prompt), never waited on
/// when it is a FIFO, never a directory.
#[test]
fn a_template_is_read_through_no_link_and_no_fifo() {
    let t = small_repo();
    let secret = t.beside("credentials");
    std::fs::write(&secret, "aws_secret_access_key = hunter2\n").unwrap();
    t.link("prompt.hbs", &secret);
    let tpl = t.repo.join("prompt.hbs");
    let run = gnaw_within(&t, &["-t", tpl.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2), "{}", run.stderr);
    assert!(run.stderr.contains("is a symbolic link"), "{}", run.stderr);
    assert!(!run.stdout.contains("hunter2") && !run.stderr.contains("hunter2"));
    let fifo = t.beside("fifo.hbs");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let run = gnaw_within(&t, &["-t", fifo.to_str().unwrap()]);
    assert!(
        run.stderr.contains("is a FIFO, not a regular file"),
        "{}",
        run.stderr
    );
    assert!(run.elapsed < Duration::from_secs(20), "{:?}", run.elapsed);
    let run = gnaw_within(&t, &["-t", t.base.to_str().unwrap()]);
    assert!(run.stderr.contains("is a directory"), "{}", run.stderr);
}

/// `absolute_code_path` is a name like the others: a directory named after a token is
/// redacted in it as the tree and the paths of the same run redact it.
#[test]
fn absolute_code_path_is_redacted_as_the_tree_is() {
    let token = format!("ghp_{}", "Zq8Wx2Lm4Np6Rt1Vy3Bc5Df7Gh9Jk0Ps2Qu4");
    let t = Tree::new(&format!("keys-{token}"));
    t.write("a.txt", "hello\n");
    let tpl = t.beside("t.hbs");
    std::fs::write(
        &tpl,
        "P={{absolute_code_path}}\nN={{repo_name}}\n{{source_tree}}",
    )
    .unwrap();
    let run = gnaw_within(
        &t,
        &["-q", "--secrets", "redact", "-t", tpl.to_str().unwrap()],
    );
    assert!(run.status.success(), "{}", run.stderr);
    assert!(!run.stdout.contains(&token), "{}", run.stdout);
    let path = run.stdout.lines().next().unwrap();
    assert!(
        path.starts_with("P=/") && path.ends_with("/keys-[REDACTED:github-token]"),
        "{path}"
    );
    assert!(
        run.stdout.contains("N=keys-[REDACTED:github-token]"),
        "{}",
        run.stdout
    );
    // In warn mode the name is shown as the tree shows it, with its control characters escaped.
    let run = gnaw_within(&t, &["-q", "-t", tpl.to_str().unwrap()]);
    assert!(
        run.stdout.contains(&format!("/keys-{token}\n")),
        "{}",
        run.stdout
    );
}

#[test]
fn a_template_is_held_to_the_budget() {
    let t = Tree::new("repo");
    for i in 0..40 {
        t.write(
            &format!("f{i:02}.txt"),
            format!("file {i} {}\n", "word ".repeat(30)),
        );
    }
    let tpl = t.beside("heavy.hbs");
    // Far more text per file than gnaw's own format spends, so the first fit overshoots.
    std::fs::write(
        &tpl,
        "{{#each files}}==== {{path}} ==== {{path}} ==== {{path}} ==== {{path}} ====\n{{code}}\n{{/each}}",
    )
    .unwrap();
    for budget in [300usize, 900, 2000] {
        let o = t.beside(&format!("out{budget}.md"));
        let json: serde_json::Value = serde_json::from_str(&ok(&gnaw(
            &t,
            &[
                "--json",
                "-t",
                tpl.to_str().unwrap(),
                "--budget",
                &budget.to_string(),
                "-o",
                o.to_str().unwrap(),
            ],
        )))
        .unwrap();
        let written = std::fs::read_to_string(&o).unwrap();
        let n = reference_count(&written);
        assert!(n <= budget, "{n} tokens over the budget {budget}");
        assert_eq!(json["tokens"].as_u64().unwrap() as usize, n);
        assert!(written.contains("==== f"), "some file kept at {budget}");
    }
}

// ---- --split-output ----

fn split_repo() -> Tree {
    let t = Tree::new("repo");
    for i in 0..12 {
        t.write(
            &format!("src/m{i:02}.rs"),
            format!("// module {i}\n{}", "pub fn f() -> u32 { 42 }\n".repeat(30)),
        );
    }
    t
}

/// The parts `-o DIR/prompt.EXT --split-output SIZE` wrote, in order.
fn parts(dir: &Path, ext: &str) -> Vec<(PathBuf, String)> {
    (1..)
        .map(|k| dir.join(format!("prompt.{k}.{ext}")))
        .take_while(|p| p.exists())
        .map(|p| {
            let s = std::fs::read_to_string(&p).unwrap();
            (p, s)
        })
        .collect()
}

/// The parts `-q --format FORMAT -o DIR/prompt.FORMAT --split-output 4KB` wrote, in order.
fn split_as(t: &Tree, dir: &Path, format: &str) -> Vec<(PathBuf, String)> {
    let o = dir.join(format!("prompt.{format}"));
    let o = o.to_str().unwrap();
    let args = ["-q", "--format", format, "-o", o, "--split-output", "4KB"];
    ok(&gnaw(t, &args));
    parts(dir, format)
}

#[test]
fn split_output_in_bytes_and_tokens() {
    let t = split_repo();
    let whole = ok(&gnaw(&t, &["-q"]));
    for (size, limit, tokens) in [("3KB", 3072usize, false), ("700tokens", 700, true)] {
        let dir = t.beside(&format!("out-{size}"));
        std::fs::create_dir_all(&dir).unwrap();
        let o = dir.join("prompt.md");
        let r = gnaw(&t, &["-o", o.to_str().unwrap(), "--split-output", size]);
        let stderr = String::from_utf8_lossy(&r.stderr).into_owned();
        assert!(r.status.success() && r.stdout.is_empty(), "{stderr}");
        assert!(!o.exists(), "the parts are written, not -o's own name");
        let got = parts(&dir, "md");
        let n = got.len();
        assert!(n >= 3, "{n} parts for {size}");
        assert!(stderr.contains(&format!("wrote {n} part(s)")), "{stderr}");
        let mut joined = String::new();
        for (k, (p, text)) in got.iter().enumerate() {
            let header = format!("<!-- gnaw: part {} of {n} -->\n", k + 1);
            assert!(text.starts_with(&header), "{}", p.display());
            let size = if tokens {
                reference_count(text)
            } else {
                text.len()
            };
            assert!(size <= limit, "{} is {size}, over {limit}", p.display());
            joined.push_str(&text[header.len()..]);
        }
        assert_eq!(joined, whole, "the parts are the prompt, cut between files");
    }
}

#[test]
fn split_output_xml_and_json_parts_stand_alone() {
    let t = split_repo();
    let dir = t.beside("j");
    std::fs::create_dir_all(&dir).unwrap();
    let got = split_as(&t, &dir, "json");
    assert!(got.len() >= 2);
    let mut paths = Vec::new();
    for (k, (_, text)) in got.iter().enumerate() {
        assert!(text.len() <= 4096);
        let v: serde_json::Value = serde_json::from_str(text).expect("each part is JSON");
        assert_eq!(v["part"], k + 1);
        assert_eq!(v["parts"], got.len());
        assert_eq!(v["repository"], "repo");
        for f in v["files"].as_array().unwrap() {
            paths.push(f["path"].as_str().unwrap().to_string());
        }
    }
    assert_eq!(paths.len(), 12);
    assert!(got[0].1.contains("\"tree\""));

    let got = split_as(&t, &dir, "xml");
    assert!(got.len() >= 2);
    for (k, (_, text)) in got.iter().enumerate() {
        let header = format!(
            "<!-- gnaw: part {} of {} -->\n<repository name=\"repo\">\n",
            k + 1,
            got.len()
        );
        assert!(text.starts_with(&header), "{text}");
        assert!(text.ends_with("</repository>\n"));
        assert_eq!(text.matches("<repository").count(), 1);
    }
}

#[test]
fn split_output_edges() {
    let t = split_repo();
    t.write("big.txt", "x".repeat(10_000) + "\n");
    let dir = t.beside("b");
    std::fs::create_dir_all(&dir).unwrap();
    let o = dir.join("prompt.md");
    let r = gnaw(&t, &["-o", o.to_str().unwrap(), "--split-output", "4KB"]);
    let stderr = ok(&r)
        .is_empty()
        .then(|| String::from_utf8_lossy(&r.stderr).into_owned())
        .unwrap();
    assert!(stderr.contains("big.txt alone is larger"), "{stderr}");
    let got = parts(&dir, "md");
    let big: Vec<_> = got
        .iter()
        .filter(|(_, s)| s.contains("### `big.txt`"))
        .collect();
    assert_eq!(big.len(), 1);
    assert!(
        !big[0].1.contains("### `src/"),
        "the large file has its part alone"
    );
    // Without -o, and with a bad size: clear errors, nothing run.
    let e = err(&gnaw(&t, &["--split-output", "4KB"]), 2);
    assert!(e.contains("-o prompt.md"), "{e}");
    let e = err(
        &gnaw(&t, &["-o", o.to_str().unwrap(), "--split-output", "lots"]),
        2,
    );
    assert!(e.contains("20000tokens"), "{e}");
    // A later run with fewer parts says the old ones are stale.
    let r = gnaw(&t, &["-o", o.to_str().unwrap(), "--split-output", "1MB"]);
    let s = String::from_utf8_lossy(&r.stderr);
    assert!(
        s.contains("prompt.2.md and any later parts are from an earlier run"),
        "{s}"
    );
}

/// A hostile entry made at a path.
type MakeAt<'a> = &'a dyn Fn(&Path);

/// The parts are written where `-o` names them and nowhere else: a part name that is a link
/// (a repository's `prompt.2.md -> ~/.bashrc`, or a dangling one), a FIFO or a directory is
/// refused before anything is written through it.
#[test]
fn split_output_parts_follow_no_link_and_wait_on_no_fifo() {
    let t = split_repo();
    let dir = t.beside("parts");
    std::fs::create_dir_all(&dir).unwrap();
    let victim = t.beside("bashrc");
    std::fs::write(&victim, "original\n").unwrap();
    let o = dir.join("prompt.md");
    let args = ["-q", "-o", o.to_str().unwrap(), "--split-output", "4KB"];
    let cases: [(&str, MakeAt); 4] = [
        ("a link", &|p| {
            std::os::unix::fs::symlink(&victim, p).unwrap()
        }),
        ("a dangling link", &|p| {
            std::os::unix::fs::symlink(victim.with_file_name("authorized_keys"), p).unwrap()
        }),
        ("a FIFO", &|p| {
            nix::unistd::mkfifo(p, nix::sys::stat::Mode::S_IRWXU).unwrap()
        }),
        ("a directory", &|p| std::fs::create_dir(p).unwrap()),
    ];
    for (what, make) in cases {
        let part = dir.join("prompt.2.md");
        let _ = std::fs::remove_file(&part);
        let _ = std::fs::remove_dir(&part);
        make(&part);
        let run = gnaw_within(&t, &args);
        assert_eq!(run.status.code(), Some(2), "{what}: {}", run.stderr);
        assert!(run.stderr.contains("prompt.2.md"), "{what}: {}", run.stderr);
        assert!(
            run.elapsed < Duration::from_secs(30),
            "{what}: {:?}",
            run.elapsed
        );
        assert_eq!(
            std::fs::read_to_string(&victim).unwrap(),
            "original\n",
            "{what}"
        );
        assert!(!t.beside("authorized_keys").exists(), "{what}");
        assert!(
            !dir.join("prompt.1.md").exists(),
            "{what}: a part was written"
        );
    }
}

// ---- -c ----

#[test]
fn clipboard_on_a_host_without_one() {
    let t = small_repo();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gnaw"));
    cmd.arg(&t.repo)
        .arg("-c")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env("HOME", &t.base);
    let o = cmd.stdin(Stdio::null()).output().unwrap();
    let e = err(&o, 1);
    assert!(e.contains("no clipboard") && e.contains("-o FILE"), "{e}");
    assert!(o.stdout.is_empty());
    // A display, but no tool on PATH.
    let o = Command::new(env!("CARGO_BIN_EXE_gnaw"))
        .arg(&t.repo)
        .arg("-c")
        .env("DISPLAY", ":93")
        .env_remove("WAYLAND_DISPLAY")
        .env("PATH", t.beside("empty-path"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let e = err(&o, 1);
    assert!(e.contains("xclip") && e.contains("install"), "{e}");
}

fn installed(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Set (by `.ci/run`) where every tool these tests drive must be there: a missing one then fails
/// the test that needs it, instead of leaving its check untested.
const REQUIRE_TOOLS: &str = "GNAW_REQUIRE_TEST_TOOLS";

/// Whether `tools` are all installed, so that the check of `what` can run. When one is missing
/// the check is skipped, saying so, unless [`REQUIRE_TOOLS`] is set: then it fails.
fn have(tools: &[&str], what: &str) -> bool {
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !installed(t)).collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var_os(REQUIRE_TOOLS).is_none(),
        "{} not installed, and {REQUIRE_TOOLS} says every test tool must be: {what} is not \
         tested (install {}; .ci/run does)",
        missing.join(" and "),
        missing.join(", ")
    );
    eprintln!(
        "{} not installed: {what} is not tested here",
        missing.join(" and ")
    );
    false
}

#[test]
fn clipboard_copy_under_xvfb() {
    if !have(&["Xvfb", "xclip"], "the copy itself") {
        return;
    }
    let t = small_repo();
    let display = format!(":{}", 90 + std::process::id() % 100);
    let mut xvfb = Command::new("Xvfb")
        .arg(&display)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let run = || {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !Path::new(&format!("/tmp/.X11-unix/X{}", &display[1..])).exists() {
            assert!(Instant::now() < deadline, "Xvfb did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        let o = Command::new(env!("CARGO_BIN_EXE_gnaw"))
            .arg(&t.repo)
            .arg("-c")
            .env("DISPLAY", &display)
            .env("HOME", &t.base)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{stderr}");
        assert!(
            o.stdout.is_empty(),
            "the prompt goes to the clipboard, not stdout"
        );
        assert!(
            stderr.contains("copied to the clipboard (xclip)"),
            "{stderr}"
        );
        let pasted = Command::new("xclip")
            .args(["-selection", "clipboard", "-o"])
            .env("DISPLAY", &display)
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8(pasted.stdout).unwrap(),
            ok(&gnaw(&t, &["-q"]))
        );
    };
    let r = std::panic::catch_unwind(run);
    let _ = xvfb.kill();
    let _ = xvfb.wait();
    r.unwrap();
}

// ---- completions and man ----

/// Every long flag of the whole command (derived from the parser, so a new one is checked too).
fn long_flags(cmd: &clap::Command) -> Vec<String> {
    cmd.get_arguments()
        .filter_map(|a| a.get_long())
        .filter(|l| *l != "help" && *l != "version")
        .map(str::to_string)
        .collect()
}

#[test]
fn completions_are_valid_and_name_every_flag() {
    let cmd = gnaw::cli::meta::command();
    let flags = long_flags(&cmd);
    assert!(flags.contains(&"split-output".to_string()) && flags.len() > 30);
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = ok(&common::cli::gnaw(&["completions", shell]));
        for f in &flags {
            let spelled = match shell {
                "fish" => format!("-l {f}"),
                _ => format!("--{f}"),
            };
            assert!(script.contains(&spelled), "{shell} lacks --{f}");
        }
        for sub in ["read", "grep", "tree", "completions", "man"] {
            assert!(script.contains(sub), "{shell} lacks {sub}");
        }
        if shell == "bash" {
            let path = std::env::temp_dir().join(format!("gnaw-compl-{}.bash", std::process::id()));
            std::fs::write(&path, &script).unwrap();
            let st = Command::new("bash").arg("-n").arg(&path).status().unwrap();
            let _ = std::fs::remove_file(&path);
            assert!(st.success(), "bash -n rejects the script");
        }
    }
    let e = err(&common::cli::gnaw(&["completions", "tcsh"]), 2);
    assert!(e.contains("bash, zsh, fish"), "{e}");
}

#[test]
fn man_pages_render_and_name_every_flag() {
    let cmd = gnaw::cli::meta::command();
    let page = ok(&common::cli::gnaw(&["man"]));
    assert!(
        page.contains(".TH gnaw 1"),
        "{}",
        &page[..200.min(page.len())]
    );
    for f in long_flags(&cmd) {
        assert!(
            page.contains(&format!("\\-\\-{}", f.replace('-', "\\-"))),
            "man lacks --{f}"
        );
    }
    for sub in cmd.get_subcommands() {
        let sub_page = ok(&common::cli::gnaw(&["man", sub.get_name()]));
        assert!(
            sub_page.contains(&format!(".TH gnaw-{} 1", sub.get_name())),
            "{sub_page}"
        );
        for f in long_flags(sub) {
            assert!(
                sub_page.contains(&format!("\\-\\-{}", f.replace('-', "\\-"))),
                "gnaw-{} lacks --{f}",
                sub.get_name()
            );
        }
    }
    if have(&["groff"], "the man page's roff") {
        let mut child = Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-z"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(page.as_bytes())
            .unwrap();
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let e = err(&common::cli::gnaw(&["man", "nope"]), 2);
    assert!(
        e.contains("no subcommand \"nope\"") && e.contains("grep"),
        "{e}"
    );
}

#[test]
fn a_repository_named_man_is_reached_as_dot_slash() {
    let t = Tree::new("work");
    t.write("man/page.txt", "inside the man directory\n");
    let o = Command::new(env!("CARGO_BIN_EXE_gnaw"))
        .args(["./man", "-q"])
        .current_dir(&t.repo)
        .env("HOME", &t.base)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(ok(&o).contains("inside the man directory"));
}

// ---- progress ----

/// A repository big enough for a run of more than a second in a debug build.
fn big_repo() -> Tree {
    let t = Tree::new("big");
    for d in 0..60 {
        for f in 0..100 {
            t.write(
                &format!("d{d:02}/f{f:03}.rs"),
                format!(
                    "// {d} {f}\n{}",
                    "pub fn g(x: u64) -> u64 { x * 2 + 1 }\n".repeat(40)
                ),
            );
        }
    }
    t
}

/// Run `script` in a detached tmux session whose pane's output is logged raw; the log once
/// `done` appears in it.
fn in_tmux(script: &str, dir: &Path) -> String {
    let sock = dir.join("tmux.sock");
    let log = dir.join("pane.log");
    let done = dir.join("done");
    let tmux = |args: &[&str]| {
        Command::new("tmux")
            .arg("-S")
            .arg(&sock)
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let o = tmux(&[
        "new-session",
        "-d",
        "-x",
        "160",
        "-y",
        "40",
        "sh",
        "-c",
        &format!("sleep 0.5; {script}; touch {}; sleep 60", done.display()),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    tmux(&["pipe-pane", "-o", &format!("cat >> {}", log.display())]);
    let deadline = Instant::now() + Duration::from_secs(120);
    while !done.exists() {
        assert!(Instant::now() < deadline, "the run in tmux did not end");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(300));
    tmux(&["kill-server"]);
    std::fs::read_to_string(&log).unwrap_or_default()
}

#[test]
fn progress_shows_in_a_terminal_only() {
    if !have(&["tmux"], "the progress line in a terminal") {
        return;
    }
    let t = big_repo();
    let bin = env!("CARGO_BIN_EXE_gnaw");
    let repo = t.repo.display();
    let tty_out = t.beside("tty.md");
    let log = in_tmux(
        &format!(
            "HOME={} {bin} {repo} > {}",
            t.base.display(),
            tty_out.display()
        ),
        &t.base,
    );
    assert!(
        log.contains("gnaw: reading "),
        "no progress line in the pane: {log:?}"
    );
    assert!(log.contains(" files, "), "the summary follows: {log:?}");
    // The prompt's bytes are the same as with no terminal at all, and a piped stderr gets no
    // progress.
    let piped = gnaw(&t, &[]);
    assert_eq!(std::fs::read(&tty_out).unwrap(), ok(&piped).into_bytes());
    let stderr = String::from_utf8_lossy(&piped.stderr);
    assert!(
        !stderr.contains("reading") && !stderr.contains('\r'),
        "{stderr}"
    );
    // Nor with --json, even on a terminal.
    let json_log = in_tmux(
        &format!("HOME={} {bin} {repo} --json > /dev/null", t.base.display()),
        &t.base.join("j").tap_mkdir(),
    );
    assert!(!json_log.contains("reading"), "{json_log:?}");
}

trait TapMkdir {
    fn tap_mkdir(self) -> Self;
}

impl TapMkdir for PathBuf {
    fn tap_mkdir(self) -> Self {
        std::fs::create_dir_all(&self).unwrap();
        self
    }
}
