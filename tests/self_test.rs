//! `gnaw-mcp --self-test` end to end on this kernel: it passes on a real root, prints one line
//! per probe and the summary line, leaves the root untouched, and fails loudly when the sandbox
//! is off.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use std::fs;
use std::process::Command;

fn self_test(root: &std::path::Path, mode: &str) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gnaw-mcp"))
        .arg("--self-test")
        .env("GNAW_MCP_ROOT", root)
        .env("GNAW_MCP_SANDBOX", mode)
        .output()
        .expect("run gnaw-mcp --self-test");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn self_test_passes_under_landlock_and_leaves_the_root_alone() {
    let tmp = tempfile::tempdir().expect("tempdir");
    fs::write(tmp.path().join("a.txt"), "inside").expect("write");
    let (code, out) = self_test(tmp.path(), "strict");
    assert_eq!(code, 0, "{out}");
    let last = out.lines().last().unwrap_or_default();
    assert!(last.ends_with(" passed, 0 failed"), "{out}");
    let passed: usize = last.split(' ').next().unwrap_or("0").parse().unwrap_or(0);
    assert!(passed >= 20, "{out}");
    assert!(
        !out.contains("UNEXPECTED") && !out.contains("skipped"),
        "{out}"
    );
    for probe in [
        "read_inside",
        "read_outside",
        "open_write_inside",
        "exec_bin_true",
        "tcp_connect",
    ] {
        assert!(
            out.lines()
                .any(|l| l.starts_with("ok") && l.contains(probe)),
            "{probe}: {out}"
        );
    }
    let names: Vec<_> = fs::read_dir(tmp.path())
        .expect("list")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, vec![std::ffi::OsString::from("a.txt")]);
    assert_eq!(
        fs::read_to_string(tmp.path().join("a.txt")).expect("read"),
        "inside"
    );
}

#[test]
fn self_test_fails_when_the_sandbox_is_off() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (code, out) = self_test(tmp.path(), "off");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("UNEXPECTED read_outside: succeeded"), "{out}");
    // An empty root: the positive read is skipped, not passed.
    assert!(out.contains("skipped    read_inside"), "{out}");
    assert!(
        !out.lines()
            .last()
            .unwrap_or_default()
            .ends_with(" 0 failed"),
        "{out}"
    );
}
