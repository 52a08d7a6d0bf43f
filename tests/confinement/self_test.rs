//! `gnaw-mcp --self-test` end to end on this kernel: it passes on a real root, prints one line
//! per probe and the summary line (the Landlock probes, the capability check, the probes of what
//! only the seccomp filter stops, the i386 entry point), leaves the root untouched, and fails
//! loudly when the sandbox is off. `--sandbox-status` reports the capability sets and the filter.

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
    assert!(passed >= 45, "{out}");
    assert!(
        !out.contains("UNEXPECTED") && !out.contains("skipped"),
        "{out}"
    );
    for probe in [
        "read_inside",
        "threads",
        "read_outside",
        "open_write_inside",
        "exec_bin_true",
        "tcp_connect",
        "capabilities: none held",
        "udp_sendto: denied with EPERM",
        "unix_pathname_connect: denied with EPERM",
        "raw_socket: denied with EPERM",
        "packet_socket: denied with EPERM",
        "netlink_socket: denied with EPERM",
        "mptcp_connect: denied with EPERM",
        "tcp_fastopen_sendto: denied with EPERM",
        "io_uring_setup: denied with EPERM",
        "memfd_execveat: denied with EPERM",
        "bpf_map_create: denied with EPERM",
        "perf_event_open: denied with EPERM",
        "keyctl: denied with EPERM",
        "fanotify_init: denied with EPERM",
        "ptrace_attach: denied with EPERM",
        "process_vm_readv: denied with EPERM",
        "mount_bind: denied with EPERM",
        "setns_net: denied with EPERM",
        "x32_syscall: denied with EPERM",
        "clone_newuser: denied with EPERM",
        "unshare_newuser: denied with EPERM",
        "i386_syscall: killed by SIGSYS",
    ] {
        assert!(probe_ok(&out, probe), "{probe}: {out}");
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
fn sandbox_status_reports_capabilities_and_the_filter() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let out = Command::new(env!("CARGO_BIN_EXE_gnaw-mcp"))
        .arg("--sandbox-status")
        .env("GNAW_MCP_ROOT", tmp.path())
        .env_remove("GNAW_MCP_SANDBOX")
        .output()
        .expect("run gnaw-mcp --sandbox-status");
    assert!(out.status.success(), "{out:?}");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let caps = &json["capabilities"];
    assert!(
        caps["state"] == "dropped" || caps["state"] == "none_held",
        "{caps}"
    );
    for set in ["CapEff", "CapPrm", "CapInh", "CapAmb"] {
        assert_eq!(caps["after"][set], "0000000000000000", "{caps}");
    }
    let filter = &json["seccomp"];
    assert_eq!(filter["installed"], true, "{filter}");
    assert_eq!(filter["mode"], "allow-list", "{filter}");
    assert_eq!(filter["default_action"], "errno EPERM", "{filter}");
    assert_eq!(filter["foreign_arch_action"], "kill process", "{filter}");
    let allowed = filter["allowed"].as_array().expect("allowed list");
    assert_eq!(
        filter["allowed_syscalls"].as_u64(),
        Some(allowed.len() as u64)
    );
    assert!(
        !allowed.iter().any(|n| n == "socket" || n == "execve"),
        "{filter}"
    );
    assert_eq!(json["no_new_privs"], true);
    assert_eq!(json["not_enforced"], serde_json::json!([]), "{json}");
}

#[test]
fn self_test_fails_when_the_sandbox_is_off() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (code, out) = self_test(tmp.path(), "off");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("UNEXPECTED read_outside: succeeded"), "{out}");
    assert!(out.contains("UNEXPECTED udp_sendto: succeeded"), "{out}");
    assert!(
        out.contains("UNEXPECTED memfd_execveat: succeeded"),
        "{out}"
    );
    assert!(out.contains("UNEXPECTED i386_syscall"), "{out}");
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

#[test]
fn self_test_covers_two_roots_side_by_side_and_nested() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = fs::canonicalize(tmp.path()).expect("canonical");
    for d in ["app/nested", "sdk"] {
        fs::create_dir_all(base.join(d)).expect("mkdir");
    }
    fs::write(base.join("app/a.txt"), "app").expect("write");
    fs::write(base.join("app/nested/n.txt"), "nested").expect("write");
    fs::write(base.join("sdk/s.txt"), "sdk").expect("write");
    for (second, above) in [("sdk", base.clone()), ("app/nested", base.clone())] {
        let roots = std::env::join_paths([base.join("app"), base.join(second)]).expect("list");
        let (code, out) = self_test(std::path::Path::new(&roots), "strict");
        assert_eq!(code, 0, "{second}: {out}");
        assert!(out.starts_with("gnaw-mcp self-test: roots "), "{out}");
        for probe in [
            "read_inside: allowed",
            "read_other_root: allowed",
            "list_above_roots: denied with EACCES",
            "read_outside: denied with EACCES",
        ] {
            assert!(probe_ok(&out, probe), "{second}: {probe}: {out}");
        }
        assert!(!out.contains("UNEXPECTED"), "{out}");
        // Nothing was written in either root or between them.
        let mut names: Vec<_> = fs::read_dir(&above)
            .expect("list")
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["app", "sdk"], "{second}");
    }
    // With the sandbox off, the second root is still read, and what lies above the roots is
    // listed: the probe can fail.
    let roots = std::env::join_paths([base.join("app"), base.join("sdk")]).expect("list");
    let (code, out) = self_test(std::path::Path::new(&roots), "off");
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("UNEXPECTED list_above_roots: succeeded"),
        "{out}"
    );
    assert!(out.contains("ok         read_other_root: allowed"), "{out}");
}

/// The self-test's report `out` has an `ok` line for `probe`.
fn probe_ok(out: &str, probe: &str) -> bool {
    out.lines()
        .any(|l| l.starts_with("ok") && l.contains(probe))
}

/// The HTTP mode: with a tenants file, each tenant's child is handed its roots as the spawner
/// hands them to its worker, and the kernel alone keeps it from the other tenant's root.
#[test]
fn self_test_keeps_each_tenant_from_the_others_root() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let base = fs::canonicalize(tmp.path()).unwrap();
    for (dir, file) in [("alice", "a.txt"), ("bob", "b.txt")] {
        fs::create_dir(base.join(dir)).unwrap();
        fs::write(base.join(dir).join(file), "mine").unwrap();
    }
    let tenants = format!(
        "[tenants.alice]\ntoken_sha256 = \"{}\"\nroots = [{:?}]\n\
         [tenants.bob]\ntoken_sha256 = \"{}\"\nroots = [{:?}]\n",
        "1".repeat(64),
        base.join("alice").display().to_string(),
        "2".repeat(64),
        base.join("bob").display().to_string(),
    );
    fs::write(base.join("tenants.toml"), tenants).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gnaw-mcp"))
        .arg("--self-test")
        .env("GNAW_MCP_ROOT", base.join("alice"))
        .env("GNAW_MCP_TENANTS", base.join("tenants.toml"))
        .output()
        .expect("run gnaw-mcp --self-test");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    for line in [
        "ok         read_inside[alice]: allowed",
        "ok         read_other_tenant[alice]: denied with EACCES",
        "ok         list_other_tenant[alice]: denied with EACCES",
        "ok         read_other_tenant[bob]: denied with EACCES",
        "ok         list_other_tenant[bob]: denied with EACCES",
    ] {
        assert!(text.contains(line), "{line}\n{text}");
    }
}
