//! Tenant A's worker cannot read tenant B's root even with the userspace check gone: the
//! kernel alone refuses. gnaw-mcp has no switch that turns its userspace containment off (on
//! purpose), so this takes the road `tests/attack_corpus.rs` takes for its Landlock-alone
//! column: this binary re-executes itself as a single-threaded child that enters the same
//! `confine()` a worker enters, on the roots the front door hands tenant A's worker (proven by
//! the front door's own `prove_roots` from a parsed tenants file, handed over as descriptors by
//! the spawner's own `hand_over`, adopted as a worker adopts them), and then opens every
//! cross-tenant input raw: no containment, no `openat2` beneath checks, just `open` and a read.
//! Every input into B must fail with `EACCES`; a file in A's own root must read (so the probe
//! can fail). `harness = false`: the child must be single-threaded to confine itself.

#![allow(clippy::disallowed_methods)] // fixtures and raw probes use std::fs directly

use std::fs;
use std::io::Read;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use gnaw::mcp::http::Tenants;
use gnaw::mcp::http::launch::prove_roots;
use gnaw_sandbox::{SandboxMode, confine};

const CHILD: &str = "GNAW_HTTP_LANDLOCK_CHILD";
const CANARY: &str = "BOB-LANDLOCK-CANARY-41a9";

fn main() {
    if let Ok(probes) = std::env::var(CHILD) {
        child(&probes);
        return;
    }
    parent();
    println!("http_landlock: ok");
}

/// Confine to GNAW_MCP_ROOT as a worker does, then open each probe raw.
fn child(probes: &str) {
    let raw = std::env::var_os("GNAW_MCP_ROOT").unwrap();
    let paths: Vec<PathBuf> = std::env::split_paths(&raw).collect();
    let fds: Vec<i32> = std::env::args()
        .find_map(|a| a.strip_prefix("--root-fds=").map(str::to_string))
        .unwrap()
        .split(',')
        .map(|n| n.parse().unwrap())
        .collect();
    let roots = gnaw_sandbox::spawner::adopt_roots(&paths, &fds).unwrap();
    let first = paths[0].clone();
    if let Err(e) = confine(&roots, SandboxMode::Strict) {
        println!("error {e}");
        return;
    }
    for probe in probes.split('\n') {
        let path = if probe.starts_with('/') {
            PathBuf::from(probe)
        } else {
            first.join(probe)
        };
        let code = match open_and_read(&path) {
            Ok(text) if text.contains(CANARY) => "canary".to_string(),
            Ok(_) => "0".to_string(),
            Err(e) => e.raw_os_error().map_or("-1".into(), |n| n.to_string()),
        };
        println!("probe {probe}\t{code}");
    }
}

fn open_and_read(path: &Path) -> std::io::Result<String> {
    let mut f = fs::File::open(path)?;
    if f.metadata()?.is_dir() {
        let names: Vec<String> = fs::read_dir(path)?
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        return Ok(names.join("\n"));
    }
    let mut text = String::new();
    f.read_to_string(&mut text)?;
    Ok(text)
}

fn parent() {
    let tmp = tempfile::tempdir().unwrap();
    let base = fs::canonicalize(tmp.path()).unwrap();
    for d in ["a", "b/sub"] {
        fs::create_dir_all(base.join(d)).unwrap();
    }
    fs::write(base.join("a/own.rs"), "fn alpha() {}\n").unwrap();
    fs::write(base.join("b/secret.rs"), format!("// {CANARY}\n")).unwrap();
    fs::write(base.join("b/sub/x.rs"), format!("// {CANARY}\n")).unwrap();
    symlink(base.join("b"), base.join("a/to-b")).unwrap();
    symlink(base.join("b/secret.rs"), base.join("a/secret-link.rs")).unwrap();
    symlink("../b/sub", base.join("a/rel-sub")).unwrap();
    let b = base.join("b").display().to_string();
    let tenants = Tenants::parse(&format!(
        "[tenants.alice]\ntoken_sha256 = \"{}\"\nroots = [{:?}]\n\
         [tenants.bob]\ntoken_sha256 = \"{}\"\nroots = [{:?}]\n",
        "1".repeat(64),
        base.join("a").display().to_string(),
        "2".repeat(64),
        b,
    ))
    .unwrap();
    let proven = prove_roots(&tenants.list).unwrap();
    let handed = gnaw_sandbox::spawner::hand_over(&proven[0]).unwrap();
    let denied = [
        "../b/secret.rs".to_string(),
        "../b".to_string(),
        "../b/sub/x.rs".to_string(),
        format!("{b}/secret.rs"),
        b.clone(),
        "to-b/secret.rs".to_string(),
        "to-b".to_string(),
        "secret-link.rs".to_string(),
        "rel-sub/x.rs".to_string(),
        "rel-sub".to_string(),
        base.display().to_string(),
        "/".to_string(),
        "..".to_string(),
    ];
    let allowed = ["own.rs".to_string(), ".".to_string()];
    let probes: Vec<&str> = denied.iter().chain(&allowed).map(String::as_str).collect();
    let out = Command::new(std::env::current_exe().unwrap())
        .env(CHILD, probes.join("\n"))
        .env("GNAW_MCP_ROOT", &handed.root_env)
        .arg(&handed.arg)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        !text.contains("error"),
        "the child could not confine: {text}"
    );
    let results: Vec<(&str, &str)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("probe "))
        .filter_map(|l| l.split_once('\t'))
        .collect();
    assert_eq!(results.len(), probes.len(), "{text}");
    for (probe, code) in &results {
        let want = if allowed.iter().any(|a| a == probe) {
            "0"
        } else {
            "13"
        };
        assert_eq!(
            *code, want,
            "{probe}: got {code}, want {want} (13 = EACCES)\n{text}"
        );
    }
    println!(
        "http_landlock: {} probes into B denied by Landlock alone, {} in A read",
        denied.len(),
        allowed.len()
    );
}
