//! Layer 3 alone: real Landlock. This test binary has its own `main` (harness = false) so that it
//! can re-execute itself as a single-threaded child (selected by an environment variable, a
//! test-only mechanism that no shipped binary has). The child enters the sandbox through the same
//! code the server uses with only the Landlock layer (`confine_layers(.., Layers::LANDLOCK)`: no
//! capability drop, no seccomp filter, so what is proven here is Landlock's alone), then performs
//! raw filesystem, exec, network and signal operations that bypass every userspace check: the
//! shared probe list of `gnaw_sandbox::selftest` (the one `gnaw-mcp --self-test` runs), plus
//! destructive probes only a throwaway root may face. The parent asserts the expected errno for
//! each, including that what Landlock ABI 7 does not cover (UDP, raw sockets, io_uring, ...)
//! still succeeds under it: the layers test (`tests/layers.rs`) proves the other layers stop
//! those.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use gnaw_sandbox::selftest::{self, Observed, Prepared, ProbeResult, Targets};
use gnaw_sandbox::{ConfineError, Layers, Root, Roots, SandboxMode, confine, confine_layers};

const CHILD: &str = "GNAW_SANDBOX_TEST_CHILD";

mod common;

use common::{TwoRoots, two_roots};

fn main() {
    common::harness(CHILD, child, &main_parent_tests());
}

// ---------------------------------------------------------------- child side

fn env_path(name: &str) -> PathBuf {
    PathBuf::from(std::env::var_os(name).unwrap_or_default())
}

fn report(name: &str, r: io::Result<()>) {
    let code = match r {
        Ok(()) => 0,
        Err(e) => e.raw_os_error().unwrap_or(-1),
    };
    println!("probe {name} {code}");
}

fn child(scenario: &str) {
    let root_dir = env_path("T_ROOT");
    let outside = env_path("T_OUTSIDE");
    // The roots the parent prepared (two, beside each other), or the one root.
    let mut paths = vec![root_dir.clone()];
    if let Some(t) = Targets::from_env() {
        paths.extend(t.other_roots);
    }
    let root = match Roots::new(&paths, false) {
        Ok(r) => r,
        Err(e) => {
            println!("error {e}");
            return;
        }
    };
    match scenario {
        "threads" => {
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            let t = std::thread::spawn(move || {
                let _ = rx.recv();
            });
            match confine(&root, SandboxMode::Strict) {
                Err(ConfineError::MultiThreaded { threads }) => {
                    println!("refused threads={threads}")
                }
                Err(e) => println!("error {e}"),
                Ok(_) => println!("error confine accepted a multi-threaded process"),
            }
            let _ = tx.send(());
            let _ = t.join();
            // Nothing was restricted by the refusal.
            report(
                "read_outside_after_refusal",
                fs::read(outside.join("secret.txt")).map(drop),
            );
        }
        "off" => match confine(&root, SandboxMode::Off) {
            Ok(status) => {
                println!("ruleset {}", status.ruleset);
                report(
                    "read_outside",
                    fs::read(outside.join("secret.txt")).map(drop),
                );
                // Unconfined, every shared probe must succeed: each one can fail.
                if let Some(targets) = Targets::from_env() {
                    for r in selftest::run_probes(&targets, Layers::NONE) {
                        println!("{}", r.to_wire());
                    }
                }
            }
            Err(e) => println!("error {e}"),
        },
        mode => {
            let mode: SandboxMode = match mode.parse() {
                Ok(m) => m,
                Err(e) => {
                    println!("error {e}");
                    return;
                }
            };
            let Some(targets) = Targets::from_env() else {
                println!("error no self-test targets in the environment");
                return;
            };
            match confine_layers(&root, mode, Layers::LANDLOCK) {
                Ok(status) => {
                    println!("ruleset {}", status.ruleset);
                    println!("fully_enforced {}", status.fully_enforced());
                    println!("status {}", status.to_json());
                }
                Err(e) => {
                    println!("error {e}");
                    return;
                }
            }
            // The shared probe list, exactly as `gnaw-mcp --self-test` runs it...
            for r in selftest::run_probes(&targets, Layers::LANDLOCK) {
                println!("{}", r.to_wire());
            }
            // ...plus destructive ones that only a throwaway root may face.
            destructive_probes(&root_dir);
        }
    }
    let _ = io::stdout().flush();
}

/// Probes that would damage a real root if the sandbox failed, so `--self-test` leaves them out.
const DESTRUCTIVE: &[&str] = &[
    "truncate_open_inside",
    "truncate_to_zero_inside",
    "unlink_inside",
    "rmdir_inside",
    "sigterm_other_process",
];

fn destructive_probes(root: &Path) {
    report(
        "truncate_open_inside",
        fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(root.join("file.txt"))
            .map(drop),
    );
    report(
        "truncate_to_zero_inside",
        nix::unistd::truncate(&root.join("file.txt"), 0).map_err(io::Error::from),
    );
    report("unlink_inside", fs::remove_file(root.join("file.txt")));
    report("rmdir_inside", fs::remove_dir(root.join("sub/empty")));
    let victim: i32 = std::env::var("T_VICTIM")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    report(
        "sigterm_other_process",
        nix::sys::signal::kill(
            nix::unistd::Pid::from_raw(victim),
            nix::sys::signal::Signal::SIGTERM,
        )
        .map_err(io::Error::from),
    );
}

// ---------------------------------------------------------------- parent side

/// Two roots (the ruleset grants both, and nothing between them) and a directory outside them.
struct Env {
    two: TwoRoots,
    outside: PathBuf,
}

fn setup() -> Env {
    let two = two_roots();
    fs::create_dir_all(two.root.join("sub/empty")).unwrap();
    let outside = two.scratch.dir("outside");
    fs::write(outside.join("secret.txt"), "secret").unwrap();
    Env { two, outside }
}

struct ChildRun {
    /// Test-local probes: name and errno (0 = success).
    probes: BTreeMap<String, i32>,
    /// The shared probes of `gnaw_sandbox::selftest`.
    shared: Vec<ProbeResult>,
    lines: Vec<String>,
}

fn run_child(scenario: &str, env: &Env, extra: &[(String, std::ffi::OsString)]) -> ChildRun {
    let exe = std::env::current_exe().expect("current_exe");
    let out = Command::new(exe)
        .env(CHILD, scenario)
        .env("T_ROOT", &env.two.root)
        .env("T_OUTSIDE", &env.outside)
        .envs(extra.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .output()
        .expect("spawn child");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child {scenario} failed: {:?}\n{text}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let mut probes = BTreeMap::new();
    let mut shared = Vec::new();
    let mut lines = Vec::new();
    for line in text.lines() {
        assert!(!line.starts_with("error"), "child {scenario}: {line}");
        if let Some(r) = ProbeResult::from_wire(line) {
            shared.push(r);
            continue;
        }
        let mut parts = line.split(' ');
        if parts.next() == Some("probe") {
            let name = parts.next().unwrap_or_default().to_string();
            let code = parts.next().and_then(|c| c.parse().ok()).unwrap_or(-1);
            probes.insert(name, code);
        } else {
            lines.push(line.to_string());
        }
    }
    ChildRun {
        probes,
        shared,
        lines,
    }
}

fn enforced(mode: &str) {
    let env = setup();
    // The same preparation as `gnaw-mcp --self-test` with two roots: outside scratch file, TCP
    // listener, abstract socket, this process as the signal target, a file in the second root.
    let prepared = Prepared::for_roots(&env.two.roots());
    assert_eq!(
        prepared.targets.inside_file.as_deref(),
        Some(env.two.root.join("file.txt").as_path())
    );
    let mut victim = Command::new("sleep")
        .arg("30")
        .spawn()
        .expect("spawn sleep");
    let mut extra: Vec<(String, std::ffi::OsString)> = prepared.targets.to_env();
    extra.push(("T_VICTIM".into(), victim.id().to_string().into()));
    let run = run_child(mode, &env, &extra);
    let still_alive = victim.try_wait().expect("try_wait").is_none();
    let _ = victim.kill();
    let _ = victim.wait();

    let mut failures = Vec::new();
    // The tenant probes need a second tenant's root, which this child does not have: the
    // HTTP mode's self-test runs them (`gnaw-mcp --self-test` with a tenants file).
    let shared_probes: Vec<_> = selftest::PROBES
        .iter()
        .filter(|p| !p.other_tenant)
        .collect();
    for p in &shared_probes {
        let (name, expect) = (p.name, p.expect(Layers::LANDLOCK));
        let r = run.shared.iter().find(|r| r.name == name);
        let line = r.map_or_else(|| format!("{name}: missing"), ToString::to_string);
        println!("  [{mode}] {line}");
        let skipped_x32 = name == "x32_syscall" && r.and_then(ProbeResult::passed).is_none();
        if !skipped_x32
            && (r.and_then(ProbeResult::passed) != Some(true)
                || r.map(|r| r.expect) != Some(expect))
        {
            failures.push(name);
        }
    }
    assert_eq!(
        run.shared.len(),
        shared_probes.len(),
        "every shared probe ran once"
    );
    for name in DESTRUCTIVE {
        let got = run.probes.get(*name).copied();
        let verdict = if got == Some(libc::EACCES)
            || (*name == "sigterm_other_process" && got == Some(libc::EPERM))
        {
            "ok"
        } else {
            failures.push(name);
            "UNEXPECTED"
        };
        println!("  [{mode}] {verdict} {name}: got {got:?}");
    }
    assert!(
        failures.is_empty(),
        "[{mode}] unexpected results: {failures:?}"
    );
    assert_eq!(
        run.probes.len(),
        DESTRUCTIVE.len(),
        "every probe is asserted"
    );
    assert!(
        still_alive,
        "the signal must not have reached the other process"
    );
    assert!(
        run.lines.contains(&"ruleset fully_enforced".to_string()),
        "{:?}",
        run.lines
    );
    // Landlock alone is never the full sandbox: the other layers were left out on purpose.
    assert!(
        run.lines.contains(&"fully_enforced false".to_string()),
        "{:?}",
        run.lines
    );
    let status = run
        .lines
        .iter()
        .find_map(|l| l.strip_prefix("status "))
        .expect("status line");
    let json: serde_json::Value = serde_json::from_str(status).expect("status JSON");
    assert_eq!(json["no_new_privs"], true);
    assert_eq!(json["dumpable"], false);
    assert_eq!(json["core_rlimit"]["soft"], 0);
    assert_eq!(json["network"]["tcp_connect"], "denied");
    assert_eq!(json["scopes"]["signal"], true);
    assert_eq!(
        json["fs_granted"],
        serde_json::json!(["read_file", "read_dir"])
    );
    assert_eq!(json["threads_checked"], 1);
    assert_eq!(json["per_open"], "openat2");
    assert_eq!(json["seccomp"]["installed"], false);
    assert_eq!(json["capabilities"]["state"], "not_applied");
    let handled = json["fs_handled"].as_array().expect("fs_handled").len();
    assert_eq!(
        handled, 16,
        "every filesystem right of ABI 7 is handled: {json}"
    );
    // The parent's files are untouched.
    assert_eq!(
        fs::read_to_string(env.two.root.join("file.txt")).unwrap(),
        "inside"
    );
    assert!(!env.two.root.join(&prepared.targets.scratch_name).exists());
    assert!(env.two.root.join("sub/empty").is_dir());
}

/// The child printed `line`.
fn said(run: &ChildRun, line: &str) {
    assert!(
        run.lines.iter().any(|l| l == line),
        "{line:?}: {:?}",
        run.lines
    );
}

fn refuses_second_thread() {
    let env = setup();
    let run = run_child("threads", &env, &[]);
    said(&run, "refused threads=2");
    assert_eq!(run.probes.get("read_outside_after_refusal"), Some(&0));
}

fn off_applies_nothing() {
    let env = setup();
    let prepared = Prepared::for_roots(&env.two.roots());
    let run = run_child("off", &env, &prepared.targets.to_env());
    // Without the sandbox every negative probe succeeds, so none of them passes vacuously
    // (a typo'd path failing with ENOENT, say, would show up here).
    // (The tenant probes need a second tenant: the HTTP mode's self-test runs them.)
    let shared = selftest::PROBES.iter().filter(|p| !p.other_tenant).count();
    assert_eq!(run.shared.len(), shared);
    for r in &run.shared {
        if r.name == "x32_syscall" && matches!(r.observed, Observed::Skipped(_)) {
            // No x32 ABI in this kernel: the call cannot succeed even unconfined.
            continue;
        }
        assert_eq!(r.observed, Observed::Code(0), "unconfined: {r}");
    }
    assert!(
        !env.two.root.join(&prepared.targets.scratch_name).exists(),
        "create probes undo themselves"
    );
    assert_eq!(
        fs::read_to_string(env.two.root.join("file.txt")).unwrap(),
        "inside"
    );
    said(&run, "ruleset off");
    assert_eq!(run.probes.get("read_outside"), Some(&0));
}

fn probe_restricts_nothing() {
    let env = setup();
    let root = Root::new(&env.two.root, false).expect("root");
    let status = gnaw_sandbox::probe_status(&root, SandboxMode::Strict);
    assert!(!status.applied);
    assert_eq!(status.ruleset, "not_applied");
    assert!(!status.fully_enforced(), "a probe never claims enforcement");
    assert!(
        status.kernel_landlock_abi.is_some_and(|v| v >= 7),
        "{status:?}"
    );
    assert_eq!(status.fs_handled.len(), 16);
    assert!(status.not_enforced.is_empty(), "{:?}", status.not_enforced);
    assert_eq!(status.to_json()["mode"], "strict");
    // This process is still unrestricted.
    assert_eq!(
        fs::read_to_string(env.outside.join("secret.txt")).unwrap(),
        "secret"
    );
}

fn main_parent_tests() -> Vec<(&'static str, fn())> {
    vec![
        ("probe_status_restricts_nothing", probe_restricts_nothing),
        (
            "landlock_strict_denies_everything_but_reading_the_root",
            || enforced("strict"),
        ),
        ("landlock_best_effort_on_this_kernel_is_full", || {
            enforced("best-effort")
        }),
        ("confine_refuses_a_second_thread", refuses_second_thread),
        ("sandbox_off_applies_nothing", off_applies_nothing),
    ]
}
