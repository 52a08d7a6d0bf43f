//! Every probe of `gnaw_sandbox::selftest`, layer by layer, proven by mutation: each probe runs
//! in a child confined with no layer, with each layer alone, and with all of them (what the
//! server runs under). The table of `selftest::PROBES` says which layers stop which probe; this
//! test holds both directions for every probe:
//!
//! - with no layer, every probe *succeeds* (the attack works on this machine, so no probe passes
//!   by failing for an unrelated reason), and the child holds capabilities;
//! - with the layer that stops it (Landlock, the capability drop, or the seccomp filter) alone,
//!   it fails with the layer's errno; with every layer, with the first one's.
//!
//! Also: the i386 entry point kills a filtered process (and works without the filter), `clone3`
//! gets `ENOSYS` (so glibc falls back to `clone`), plain threads keep working under the filter,
//! the status JSON reports the capability sets and the filter, and when the filter cannot be
//! installed `strict` refuses to start while `best-effort` starts and says so.
//!
//! This binary has its own `main` (harness = false) so that it can re-execute itself as a
//! single-threaded child, selected by an environment variable (a test-only mechanism: the
//! served gnaw-mcp always applies every layer through `confine`). `cargo test --test layers --
//! NAME` runs the tests whose name contains NAME.

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::process::Command;

use gnaw_sandbox::selftest::{self, ChildRun, Observed, Prepared, ProbeResult, Targets};
use gnaw_sandbox::{Layers, Roots, SandboxMode, confine_layers};

const CHILD: &str = "GNAW_LAYERS_TEST_CHILD";

mod common;

fn main() {
    common::harness(
        CHILD,
        child,
        &[
            (
                "every_probe_is_stopped_by_some_layer_and_proven",
                every_probe_is_stopped_by_some_layer_and_proven,
            ),
            ("no_layer_every_attack_works", no_layer_every_attack_works),
            ("landlock_alone", landlock_alone),
            ("capabilities_alone", capabilities_alone),
            ("seccomp_alone", seccomp_alone),
            ("all_layers", all_layers),
            ("i386_entry_point", i386_entry_point),
            (
                "strict_refuses_to_start_without_the_filter",
                strict_refuses_to_start_without_the_filter,
            ),
        ],
    );
}

/// The layer sets the scenarios name.
fn layers(name: &str) -> Layers {
    match name {
        "all" => Layers::ALL,
        "none" => Layers::NONE,
        "landlock" => Layers::LANDLOCK,
        "capabilities" => Layers::CAPABILITIES,
        "seccomp" => Layers::SECCOMP,
        other => panic!("unknown layer set {other}"),
    }
}

// ---------------------------------------------------------------- child side

fn child(scenario: &str) {
    let (what, set) = scenario.split_once(':').unwrap_or(("probes", scenario));
    let Some(targets) = Targets::from_env() else {
        println!("error no targets in the environment");
        return;
    };
    // Two roots, as an operator may list them: the probes read the second root and list the
    // directory between them.
    let root = match Roots::new(&targets.roots(), false) {
        Ok(r) => r,
        Err(e) => {
            println!("error {e}");
            return;
        }
    };
    if what == "install_fails" {
        install_fails(&root, set);
        return;
    }
    let layers = layers(set);
    match confine_layers(&root, SandboxMode::Strict, layers) {
        Ok(status) => {
            println!("fully_enforced {}", status.fully_enforced());
            println!("status {}", status.to_json());
        }
        Err(e) => {
            println!("error {e}");
            return;
        }
    }
    selftest::checkpoint();
    match what {
        "probes" => {
            for r in selftest::run_probes(&targets, layers) {
                println!("{}", r.to_wire());
            }
            let clone3 = gnaw_sandbox::syscall_probes::clone3_empty();
            println!(
                "clone3 {}",
                clone3.err().and_then(|e| e.raw_os_error()).unwrap_or(0)
            );
        }
        "i386" => selftest::i386_probe(),
        other => println!("error unknown scenario {other}"),
    }
}

/// Install the filter, then try again in `mode`: the second installation is refused by the
/// first filter (no `seccomp` call is allowed), which is how a kernel without seccomp looks.
fn install_fails(root: &Roots, mode: &str) {
    let mode: SandboxMode = mode.parse().expect("mode");
    if let Err(e) = confine_layers(root, SandboxMode::Strict, Layers::SECCOMP) {
        println!("error first installation: {e}");
        return;
    }
    match confine_layers(root, mode, Layers::SECCOMP) {
        Ok(status) => println!("second ok {}", status.to_json()),
        Err(e) => println!("second refused {e}"),
    }
}

// ---------------------------------------------------------------- parent side

struct Run {
    shared: Vec<ProbeResult>,
    status: serde_json::Value,
    fully_enforced: bool,
    clone3: Option<i32>,
    child: ChildRun,
}

fn run(scenario: &str) -> Run {
    let env = common::two_roots();
    let roots = env.roots();
    // Every probe, the tenant probes too: a third directory stands for another tenant's root.
    let prepared = Prepared::for_tenant(&roots, env.tenant_root().first());
    assert!(prepared.targets.other_inside_file.is_some());
    let mut cmd = Command::new(std::env::current_exe().expect("current_exe"));
    cmd.env(CHILD, scenario).envs(prepared.targets.to_env());
    let child = selftest::run_child(cmd).expect("spawn child");
    drop(prepared);
    let mut shared = Vec::new();
    let mut status = serde_json::Value::Null;
    let mut fully_enforced = false;
    let mut clone3 = None;
    for line in child.stdout.lines() {
        assert!(
            !line.starts_with("error"),
            "{scenario}: {line}\n{}",
            child.stderr
        );
        if let Some(r) = ProbeResult::from_wire(line) {
            shared.push(r);
        } else if let Some(s) = line.strip_prefix("status ") {
            status = serde_json::from_str(s).expect("status JSON");
        } else if let Some(s) = line.strip_prefix("fully_enforced ") {
            fully_enforced = s == "true";
        } else if let Some(s) = line.strip_prefix("clone3 ") {
            clone3 = s.parse().ok();
        }
    }
    assert!(
        fs::read_dir(&env.root).unwrap().count() == 1
            && fs::read_dir(&env.other).unwrap().count() == 1,
        "{scenario}: the root was changed"
    );
    Run {
        shared,
        status,
        fully_enforced,
        clone3,
        child,
    }
}

/// Whether this (unconfined) process holds capabilities a child could keep: root, here.
fn is_root() -> bool {
    gnaw_sandbox::caps::CapSets::current().is_ok_and(|c| !c.holds_none())
}

/// Run the probes under `set` and check every probe against the table.
fn probes_under(set: &str) -> Run {
    let layers = layers(set);
    let r = run(&format!("probes:{set}"));
    assert!(
        r.child.status.success(),
        "[{set}] child: {:?}\n{}",
        r.child.status,
        r.child.stderr
    );
    assert_eq!(
        r.shared.len(),
        selftest::PROBES.len(),
        "[{set}] every probe ran"
    );
    let mut failures = Vec::new();
    for p in selftest::PROBES {
        let got = r.shared.iter().find(|x| x.name == p.name).expect("probe");
        println!("  [{set}] {got}");
        assert_eq!(got.expect, p.expect(layers), "[{set}] {}", p.name);
        match got.passed() {
            Some(true) => {}
            // Only x32 may be skipped, and only where the filter is not there to refuse it.
            None if p.name == "x32_syscall" && !layers.seccomp => {}
            _ => failures.push(got.to_string()),
        }
    }
    assert!(failures.is_empty(), "[{set}] unexpected: {failures:#?}");
    r
}

fn no_layer_every_attack_works() {
    let r = probes_under("none");
    for got in &r.shared {
        match &got.observed {
            Observed::Code(0) => {}
            Observed::Skipped(why) if got.name == "x32_syscall" => {
                println!("  note: x32_syscall cannot succeed on this kernel ({why})");
            }
            _ => panic!("without any layer {got} must succeed"),
        }
    }
    assert_eq!(
        r.clone3,
        Some(libc::EINVAL),
        "the kernel's own clone3 answer"
    );
    assert!(!r.fully_enforced);
    if is_root() {
        let caps = r.child.caps.expect("caps read");
        assert!(!caps.holds_none(), "root keeps its capabilities: {caps:?}");
    } else {
        println!("  note: not root; no capability to keep");
    }
}

fn landlock_alone() {
    let r = probes_under("landlock");
    assert_eq!(r.status["ruleset"], "fully_enforced");
    assert_eq!(r.status["seccomp"]["installed"], false);
}

fn capabilities_alone() {
    if !is_root() {
        println!("  skipped: needs root (no capability to drop otherwise)");
        return;
    }
    let r = probes_under("capabilities");
    let caps = r.child.caps.expect("caps read");
    assert!(caps.holds_none(), "{caps:?}");
    assert_eq!(
        caps.bounding, 0,
        "root drops the bounding set too: {caps:?}"
    );
    let status = &r.status["capabilities"];
    assert_eq!(status["state"], "dropped", "{status}");
    assert_eq!(status["after"]["CapEff"], "0000000000000000", "{status}");
    assert_eq!(status["after"]["CapBnd"], "0000000000000000", "{status}");
    assert_ne!(status["before"]["CapEff"], "0000000000000000", "{status}");
    assert_eq!(r.status["seccomp"]["installed"], false);
}

fn seccomp_alone() {
    let r = probes_under("seccomp");
    assert_eq!(r.clone3, Some(libc::ENOSYS), "clone3 gets ENOSYS");
    let f = &r.status["seccomp"];
    assert_eq!(f["installed"], true, "{f}");
    assert_eq!(f["mode"], "allow-list", "{f}");
    assert_eq!(f["default_action"], "errno EPERM", "{f}");
    assert!(f["allowed_syscalls"].as_u64().unwrap_or(0) > 40, "{f}");
    assert_eq!(r.status["capabilities"]["state"], "not_applied");
}

fn all_layers() {
    let r = probes_under("all");
    assert!(r.fully_enforced, "{}", r.status);
    assert_eq!(r.clone3, Some(libc::ENOSYS));
    assert_eq!(r.status["seccomp"]["installed"], true);
    assert!(
        r.status["not_enforced"]
            .as_array()
            .is_some_and(|a| a.is_empty()),
        "{}",
        r.status
    );
    let caps = r.child.caps.expect("caps read");
    assert!(caps.holds_none(), "{caps:?}");
    let state = &r.status["capabilities"]["state"];
    assert!(state == "dropped" || state == "none_held", "{state}");
}

fn every_probe_is_stopped_by_some_layer_and_proven() {
    // Each negative probe names at least one layer, and each layer it names is exercised
    // alone above; the controls name none.
    for p in selftest::PROBES {
        let controls = [
            "read_inside",
            "list_root",
            "read_other_root",
            "threads",
            "stdout_still_works",
        ];
        assert_eq!(p.is_control(), controls.contains(&p.name), "{}", p.name);
    }
}

fn i386_entry_point() {
    if !cfg!(target_arch = "x86_64") {
        println!("  skipped: no i386 entry point on this architecture");
        return;
    }
    let open = run("i386:none");
    let (verdict, line) = selftest::i386_verdict(&open.child);
    println!("  [none] {line}");
    assert_eq!(verdict, Some(false), "without the filter int 0x80 works");
    let pid = open
        .child
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("i386 returned "));
    assert!(
        pid.is_some_and(|p| p.parse::<i64>().is_ok_and(|p| p > 0)),
        "{pid:?}"
    );

    let filtered = run("i386:seccomp");
    let (verdict, line) = selftest::i386_verdict(&filtered.child);
    println!("  [seccomp] {line}");
    assert_eq!(verdict, Some(true), "{:?}", filtered.child);
    assert_eq!(filtered.child.status.signal(), Some(libc::SIGSYS));
}

fn strict_refuses_to_start_without_the_filter() {
    let strict = run("install_fails:strict").child.stdout;
    let line = strict
        .lines()
        .find(|l| l.starts_with("second "))
        .expect("second attempt reported");
    assert!(line.starts_with("second refused "), "{line}");
    assert!(
        line.contains("seccomp") && line.contains("GNAW_MCP_SANDBOX=best-effort"),
        "the message says what failed and how to opt out: {line}"
    );

    let best = run("install_fails:best-effort").child.stdout;
    let json = best.lines().find_map(|l| l.strip_prefix("second ok "));
    let json = json.expect("best-effort starts");
    let json: serde_json::Value = serde_json::from_str(json).expect("status JSON");
    assert_eq!(json["seccomp"]["installed"], false, "{json}");
    assert!(json["seccomp"]["error"].is_string(), "{json}");
    assert!(
        json["not_enforced"]
            .as_array()
            .is_some_and(|a| a.iter().any(|n| n
                .as_str()
                .is_some_and(|n| n.starts_with("seccomp filter not installed")))),
        "{json}"
    );
}
