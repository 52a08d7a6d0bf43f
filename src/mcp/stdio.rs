//! `gnaw-mcp` on stdio: the start-up, in the order confinement needs, beside
//! [`super::http::launch`] for `--listen`.
//!
//! 1. Read everything the process needs before it is confined (the settings, the CPU count:
//!    the cgroup quota is out of reach afterwards).
//! 2. Prove the roots ([`roots`]): canonicalize and open each of `GNAW_MCP_ROOT` (or the
//!    working directory); or, in a tenant's worker started by `--listen`'s spawner, adopt the
//!    descriptors it was handed (`--root-fds`), resolving no path at all.
//! 3. Fork the parse workers while single-threaded and before seccomp (which forbids creating
//!    processes); they confine themselves further (no file access at all).
//! 4. Confine (Landlock bound to the roots' descriptors, the capability drop, seccomp), then
//!    start the server's threads and serve ([`serve`]).

use std::io;
use std::os::fd::RawFd;
use std::path::PathBuf;
use std::sync::Arc;

use gnaw_sandbox::{RootError, Roots, RootsError, SandboxMode, confine};

use super::{Definition, Operator, ToolSet};

/// The roots this server reads: the descriptors `--listen`'s spawner handed on (`root_fds`,
/// for the canonical paths `GNAW_MCP_ROOT` lists), or else `GNAW_MCP_ROOT` proven here (the
/// working directory when unset). `/` only with `allow_filesystem_root`.
pub fn roots(
    operator: &Operator,
    allow_filesystem_root: bool,
    root_fds: &[RawFd],
) -> Result<Roots, String> {
    let paths: Vec<PathBuf> = match operator.roots.clone() {
        Some(roots) => roots,
        None if !root_fds.is_empty() => {
            return Err("--root-fds without GNAW_MCP_ROOT: the spawner names each root".into());
        }
        None => vec![std::env::current_dir().map_err(|e| {
            format!(
                "cannot read the working directory ({e}); set GNAW_MCP_ROOT to the directory to \
                 serve"
            )
        })?],
    };
    if !root_fds.is_empty() {
        return gnaw_sandbox::spawner::adopt_roots(&paths, root_fds)
            .map_err(|e| format!("the roots handed on by the spawner: {e}"));
    }
    Roots::new(&paths, allow_filesystem_root).map_err(|e| match e {
        e @ RootsError::Root(RootError::FilesystemRoot(_)) => {
            format!("GNAW_MCP_ROOT: {e} (pass --allow-filesystem-root to do so)")
        }
        e => format!("GNAW_MCP_ROOT: {e}"),
    })
}

/// What [`serve`] ends with.
pub enum Served {
    /// End of input, every request answered.
    Done,
    /// `--sandbox-status`: the status was printed.
    StatusPrinted,
    /// Reading stdin failed (logged).
    InputFailed,
}

/// Start the parse workers, confine, then serve MCP on stdin/stdout until end of input (or,
/// with `sandbox_status`, print the sandbox status as JSON and stop).
/// `forwarded`: this is a tenant's worker behind `--listen`'s front door (see
/// [`super::Config::forwarded`]).
pub fn serve(
    operator: Operator,
    roots: Roots,
    sandbox_status: bool,
    forwarded: bool,
) -> Result<Served, String> {
    serve_with(
        operator,
        roots,
        sandbox_status,
        forwarded,
        |tools, roots| Definition::gnaw(tools, roots),
    )
}

/// [`serve`] for the server `define` makes from the tools offered and the roots: gnaw-mcp's
/// ([`Definition::gnaw`]), or a test fixture's on the same start-up, confinement and protocol
/// layer (`examples/conformance_fixture.rs`).
pub fn serve_with(
    operator: Operator,
    roots: Roots,
    sandbox_status: bool,
    forwarded: bool,
    define: impl FnOnce(ToolSet, &Roots) -> Definition,
) -> Result<Served, String> {
    // Read before confining: after Landlock, the cgroup CPU quota is out of reach. The
    // pipeline keeps the value for every later run.
    let cpus = crate::par::threads();
    let (mut config, tools, mode) = (operator.config, operator.tools, operator.sandbox);
    config.forwarded = forwarded;
    // Still single-threaded and not yet under seccomp (which forbids creating processes): fork
    // the parse workers, which confine themselves further (no file access at all).
    if let Err(e) = crate::stages::syntax::pool::start(cpus) {
        log::error!(
            "parsing is off: the parse workers could not start ({e}); files are shown as text"
        );
    }
    let status = confine(&roots, mode).map_err(|e| e.to_string())?;
    let mut status_json = status.to_json();
    if sandbox_status {
        // Whether the parse workers answer, under the sandbox just applied.
        let workers = crate::stages::syntax::pool::probe();
        status_json["parse_workers"] = serde_json::to_value(workers).unwrap_or_default();
        println!("{status_json}");
        return Ok(Served::StatusPrinted);
    }
    log::info!("sandbox: {status_json}");
    if mode == SandboxMode::Off {
        log::warn!(
            "GNAW_MCP_SANDBOX=off: NO Landlock ruleset, NO seccomp filter, capabilities KEPT. \
             Only userspace containment and per-open openat2 stand between a request and the \
             rest of the filesystem. Use this only to debug; unset GNAW_MCP_SANDBOX for the \
             default (strict)."
        );
    } else if !status.fully_enforced() {
        log::warn!("the sandbox is not fully enforced (mode {mode}); see the status above");
    }
    let served: Vec<String> = roots
        .iter()
        .map(|r| {
            let name = if roots.len() == 1 {
                String::new()
            } else {
                format!(" as {:?}", r.name())
            };
            format!("{} ({}){name}", r.root().path().display(), r.root().id())
        })
        .collect();
    log::info!(
        "serving {} with {cpus} CPUs; max line {} bytes, max output {} bytes",
        served.join(", "),
        config.max_line_bytes,
        config.max_output_bytes
    );
    let containment = Arc::new(roots);
    let tools = tools.narrowed_by_root(containment.as_ref(), config.policy);
    log::info!("tools offered: {}", tools.names().join(", "));
    let def = define(tools, containment.as_ref());
    match super::serve_definition(io::stdin().lock(), io::stdout(), config, containment, def) {
        Ok(()) => Ok(Served::Done),
        Err(e) => {
            log::error!("reading stdin failed: {e}");
            Ok(Served::InputFailed)
        }
    }
}
