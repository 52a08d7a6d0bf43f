//! The self-test's two sides: the parent ([`run`]) prepares the targets, re-executes the binary
//! as a child, reads what it printed and checks it into a [`Report`]; the child ([`child`])
//! confines itself with the server's own [`confine`], waits at the [`checkpoint`] while the
//! parent reads its capability sets, then runs the probes and prints one wire line each.

use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use super::outcome::{Observed, ProbeResult};
use super::probes::{PROBES, run_probes};
use super::targets::{Prepared, Targets};
use crate::caps::CapSets;
use crate::confine::{Layers, SandboxMode, confine, probe_status};
use crate::report::{Format, Report, Verdict};
use crate::roots::Roots;
use crate::syscall_probes as sys;

/// The self-test's outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
}

/// What a probe child printed, how it ended, and its capability sets read from
/// `/proc/PID/status` while it waited after confining itself.
#[derive(Debug)]
pub struct ChildRun {
    pub stdout: String,
    pub stderr: String,
    pub status: std::process::ExitStatus,
    /// `None` when the child never printed [`CONFINED`] or its status could not be read.
    pub caps: Option<CapSets>,
}

/// The line a probe child prints once confined, before any probe; it then waits for a line on
/// stdin ([`checkpoint`]). Read then, its capabilities are the sandbox's own: a probe that
/// succeeds (a new user namespace) could change them later.
pub const CONFINED: &str = "confined";

/// Spawn a probe child (`cmd` must lead to [`child`] or an equivalent that calls
/// [`checkpoint`] once confined), read its output, and read its capabilities from outside while
/// it waits at the checkpoint.
pub fn run_child(mut cmd: Command) -> io::Result<ChildRun> {
    let mut proc = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let stdin = proc.stdin.take();
    let stdout = proc.stdout.take();
    let mut stderr_pipe = proc.stderr.take();
    let stderr_thread = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(pipe) = stderr_pipe.as_mut() {
            let _ = io::Read::read_to_string(pipe, &mut text);
        }
        text
    });
    let mut out = String::new();
    let mut caps = None;
    let mut stdin = stdin;
    if let Some(pipe) = stdout {
        for line in BufReader::new(pipe).lines() {
            let line = line?;
            if line == CONFINED && caps.is_none() {
                caps = fs::read_to_string(format!("/proc/{}/status", proc.id()))
                    .ok()
                    .and_then(|s| CapSets::from_proc_status(&s));
                if let Some(mut pipe) = stdin.take() {
                    let _ = pipe.write_all(b"go\n");
                }
            }
            out.push_str(&line);
            out.push('\n');
        }
    }
    drop(stdin);
    let status = proc.wait()?;
    let stderr = stderr_thread.join().unwrap_or_default();
    Ok(ChildRun {
        stdout: out,
        stderr,
        status,
        caps,
    })
}

/// The environment variable that makes [`child`] make one i386 system call instead of the
/// probes. Only the self-test parent sets it, for its second child.
const I386_ONLY: &str = "GNAW_SELF_TEST_I386";

/// One tenant of `gnaw-mcp --listen`, as its self-test run sees it: its name, its roots as
/// the front door proved them (handed to the child as the spawner hands them to the tenant's
/// worker), and another tenant's root the child must not reach.
pub struct TenantRun<'a> {
    pub name: &'a str,
    pub roots: &'a Roots,
    pub other: &'a crate::contain::Root,
}

/// The parent side of the self-test: prepare targets for `root`, re-execute `exe` with
/// `child_args` (which must lead to [`child`]), and write a report of every check to `out` in
/// `format` (lines ending in `N passed, N failed`, JSON, or JUnit XML: [`crate::report`]).
/// Never reports success when the host lacks Landlock or when the child did not answer every
/// probe. With `tenants` (the HTTP mode), one more child per tenant enters the sandbox as that
/// tenant's worker does (its roots handed over as descriptors and adopted) and must not reach
/// the other tenant's root, its open made raw, with no userspace check at all.
pub fn run(
    exe: &Path,
    child_args: &[std::ffi::OsString],
    roots: &Roots,
    mode: SandboxMode,
    format: Format,
    out: &mut dyn Write,
    tenants: &[TenantRun<'_>],
) -> io::Result<Summary> {
    let mut report = checks(exe, child_args, roots, mode)?;
    for tenant in tenants {
        tenant_checks(&mut report, exe, child_args, tenant)?;
    }
    report.write(format, out)?;
    Ok(Summary {
        passed: report.count(Verdict::Passed),
        failed: report.count(Verdict::Failed),
    })
}

/// Run every check and gather the report.
fn checks(
    exe: &Path,
    child_args: &[std::ffi::OsString],
    roots: &Roots,
    mode: SandboxMode,
) -> io::Result<Report> {
    let mut report = Report {
        roots: roots
            .iter()
            .map(|r| r.root().path().display().to_string())
            .collect(),
        mode: mode.to_string(),
        ..Report::default()
    };
    let status = probe_status(roots, mode);
    match status.kernel_landlock_abi {
        Some(v) => report.push(
            "landlock_available",
            "landlock",
            "a kernel with Landlock",
            Verdict::Passed,
            format!("kernel Landlock ABI {v}"),
        ),
        None => report.push(
            "landlock_available",
            "landlock",
            "a kernel with Landlock",
            Verdict::Failed,
            "this host lacks Landlock (not built into the kernel or not enabled in the lsm= \
             boot parameter); the sandbox cannot be enforced",
        ),
    }
    let prepared = Prepared::for_roots(roots);
    let mut cmd = Command::new(exe);
    cmd.args(child_args).envs(prepared.targets.to_env());
    let output = run_child(cmd)?;
    let mut i386_cmd = Command::new(exe);
    i386_cmd
        .args(child_args)
        .envs(prepared.targets.to_env())
        .env(I386_ONLY, "1");
    let i386 = run_child(i386_cmd)?;
    drop(prepared);

    let mut answered: Vec<ProbeResult> = Vec::new();
    let mut enforced = None;
    let mut errors = Vec::new();
    for line in output.stdout.lines() {
        if let Some(r) = ProbeResult::from_wire(line) {
            answered.push(r);
        } else if let Some(rest) = line.strip_prefix("enforced ") {
            enforced = Some(rest.to_string());
        } else if let Some(rest) = line.strip_prefix("error ") {
            errors.push(rest.to_string());
        }
    }
    for e in &errors {
        report.push(
            "sandbox",
            "sandbox",
            "confine() succeeds",
            Verdict::Failed,
            e.clone(),
        );
    }
    let enforced_case = |verdict, detail: &str| {
        (
            "sandbox_fully_enforced",
            "sandbox",
            "every layer enforced",
            verdict,
            detail.to_string(),
        )
    };
    let case = match enforced.as_deref() {
        Some("true") => Some(enforced_case(Verdict::Passed, "true")),
        Some(detail) => Some(enforced_case(Verdict::Failed, detail)),
        None if errors.is_empty() => Some(enforced_case(
            Verdict::Failed,
            "the child did not report its sandbox status",
        )),
        None => None,
    };
    if let Some((name, layer, expect, verdict, detail)) = case {
        report.push(name, layer, expect, verdict, detail);
    }
    // What the parent process holds shows what the child could have kept.
    let parent_caps = CapSets::current().ok();
    let (verdict, detail) = match &output.caps {
        Some(c) if c.holds_none() => {
            let h = c.hex();
            (
                Verdict::Passed,
                format!(
                    "none held (CapEff {}, CapPrm {}, CapInh {}, CapAmb {}, CapBnd {})",
                    h.effective, h.permitted, h.inheritable, h.ambient, h.bounding
                ),
            )
        }
        Some(c) => {
            let h = c.hex();
            (
                Verdict::Failed,
                format!(
                    "the sandboxed child holds CapEff {}, CapPrm {}, CapInh {}, CapAmb {}",
                    h.effective, h.permitted, h.inheritable, h.ambient
                ),
            )
        }
        None if parent_caps.is_some_and(|c| c.holds_none()) => (
            Verdict::Skipped,
            "the child's sets could not be read, and this user holds none to drop".to_string(),
        ),
        None => (
            Verdict::Failed,
            "the child's capability sets could not be read from /proc".to_string(),
        ),
    };
    report.push("capabilities", "capabilities", "none held", verdict, detail);
    for p in PROBES
        .iter()
        .filter(|p| (roots.len() > 1 || !p.several_roots) && !p.other_tenant)
    {
        let expect = p.expect(Layers::ALL);
        let r = answered
            .iter()
            .find(|r| r.name == p.name && r.expect == expect);
        match r {
            Some(r) => report.push(p.name, p.layer(), r.expectation(), r.verdict(), r.detail()),
            None => {
                let wanted = ProbeResult {
                    name: p.name.to_string(),
                    expect,
                    observed: Observed::Code(0),
                };
                report.push(
                    p.name,
                    p.layer(),
                    wanted.expectation(),
                    Verdict::Failed,
                    "the sandboxed child did not run it",
                );
            }
        }
    }
    if !output.status.success() {
        report.push(
            "child_exit",
            "sandbox",
            "the sandboxed child exits 0",
            Verdict::Failed,
            format!("the sandboxed child exited with {}", output.status),
        );
    }
    let (verdict, line) = match i386_verdict(&i386) {
        (Some(true), line) => (Verdict::Passed, line),
        (Some(false), line) => (Verdict::Failed, line),
        (None, line) => (Verdict::Skipped, line),
    };
    report.push(
        "i386_syscall",
        "seccomp",
        "killed by the filter's architecture check",
        verdict,
        line,
    );
    if report.count(Verdict::Failed) > 0 {
        report.child_stderr = output.stderr.lines().take(20).map(str::to_string).collect();
    }
    Ok(report)
}

/// A tenant's run: a child handed the tenant's roots as the spawner hands them
/// ([`crate::spawner::hand_over`]), which adopts them, confines itself and runs the probes;
/// the report gains the positive control and the probes about the other tenant, each named
/// with the tenant (`read_other_tenant[alice]`).
fn tenant_checks(
    report: &mut Report,
    exe: &Path,
    child_args: &[std::ffi::OsString],
    tenant: &TenantRun<'_>,
) -> io::Result<()> {
    let prepared = super::targets::Prepared::for_tenant(tenant.roots, tenant.other);
    let handed = crate::spawner::hand_over(tenant.roots).map_err(io::Error::other)?;
    let mut cmd = Command::new(exe);
    cmd.args(child_args)
        .arg(&handed.arg)
        .envs(prepared.targets.to_env());
    let output = run_child(cmd)?;
    drop(handed);
    drop(prepared);
    let answered: Vec<ProbeResult> = output
        .stdout
        .lines()
        .filter_map(ProbeResult::from_wire)
        .collect();
    for p in PROBES
        .iter()
        .filter(|p| p.other_tenant || p.name == "read_inside")
    {
        let name = format!("{}[{}]", p.name, tenant.name);
        let expect = p.expect(Layers::ALL);
        match answered
            .iter()
            .find(|r| r.name == p.name && r.expect == expect)
        {
            Some(r) => report.push(name, p.layer(), r.expectation(), r.verdict(), r.detail()),
            None => {
                let why = output
                    .stdout
                    .lines()
                    .find_map(|l| l.strip_prefix("error "))
                    .map_or(
                        "the tenant's sandboxed child did not run it".to_string(),
                        |e| format!("the tenant's sandboxed child could not start: {e}"),
                    );
                report.push(name, p.layer(), format!("{expect:?}"), Verdict::Failed, why);
            }
        }
    }
    Ok(())
}

/// Whether the i386 child was killed by the filter (`Some(true)`), got through (`Some(false)`)
/// or could not try (`None`), with the line to print.
pub fn i386_verdict(run: &ChildRun) -> (Option<bool>, String) {
    use std::os::unix::process::ExitStatusExt;
    if run.status.signal() == Some(libc::SIGSYS) {
        return (
            Some(true),
            "killed by SIGSYS (the filter checks the architecture)".into(),
        );
    }
    if let Some(rest) = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("i386 skip "))
    {
        return (None, rest.to_string());
    }
    if let Some(rest) = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("i386 returned "))
    {
        return (
            Some(false),
            format!("int 0x80 getpid returned {rest}; the 32-bit entry point is open"),
        );
    }
    (
        Some(false),
        format!("the child ended with {} without reporting", run.status),
    )
}

/// The child side: enter the sandbox with the identical [`confine`] the server uses, on the
/// root the parent passed, stop at the [`checkpoint`], then run [`run_probes`] and print wire
/// lines. Returns the exit code. This only ever adds restrictions to the
/// process and never serves requests.
///
/// `root_fds`: in a tenant's run, the descriptors the parent handed over (`--root-fds`), adopted
/// as a tenant's worker adopts them instead of resolving the roots' paths.
pub fn child(mode: SandboxMode, root_fds: &[i32]) -> i32 {
    let Some(targets) = Targets::from_env() else {
        println!("error the self-test child was started without its targets");
        return 1;
    };
    // The parent validated the roots already (including the `/` refusal).
    let roots = if root_fds.is_empty() {
        Roots::new(&targets.roots(), true).map_err(|e| e.to_string())
    } else {
        crate::spawner::adopt_roots(&targets.roots(), root_fds)
    };
    let roots = match roots {
        Ok(roots) => roots,
        Err(e) => {
            println!("error {e}");
            return 1;
        }
    };
    let status = match confine(&roots, mode) {
        Ok(status) => status,
        Err(e) => {
            println!("error {}", e.to_string().replace('\n', " "));
            return 1;
        }
    };
    if std::env::var_os(I386_ONLY).is_some() {
        i386_probe();
        return 0;
    }
    checkpoint();
    if status.fully_enforced() {
        println!("enforced true");
    } else {
        println!(
            "enforced false (ruleset {}, mode {}; not enforced: {})",
            status.ruleset,
            status.mode,
            status.not_enforced.join("; ")
        );
    }
    for r in run_probes(&targets, Layers::ALL) {
        println!("{}", r.to_wire());
    }
    let _ = io::stdout().flush();
    0
}

/// Print [`CONFINED`] and wait for the parent's line on stdin (it reads `/proc/PID/status`
/// first). Returns at once when stdin is closed or not a pipe.
pub fn checkpoint() {
    println!("{CONFINED}");
    let _ = io::stdout().flush();
    let _ = io::stdin().read_line(&mut String::new());
}

/// Make one i386 system call and print what came back (if this process survives it).
pub fn i386_probe() {
    #[cfg(target_arch = "x86_64")]
    {
        let _ = io::stdout().flush();
        let got = sys::i386_getpid();
        println!("i386 returned {got}");
    }
    #[cfg(not(target_arch = "x86_64"))]
    println!("i386 skip this architecture has no i386 entry point");
    let _ = io::stdout().flush();
}
