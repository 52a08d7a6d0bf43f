//! Starting `gnaw-mcp --listen ADDR`, in the order confinement needs: check the address, bind
//! the one port, fork the reloader (while the process is single-threaded and unconfined), which
//! reads the tenants, proves every root by descriptor and forks the spawner that starts their
//! workers (`super::reload`), confine the front door (no file, no new bind, no connect), and
//! only then start threads (the reload thread waiting for `SIGHUP` among them) and serve.
//!
//! With no tenants file the server refuses to start unless `--unauthenticated-loopback` is
//! given, and then only on a loopback address, serving `GNAW_MCP_ROOT` as the one tenant
//! `local`. A non-loopback address needs `--allow-non-loopback` (put it behind a reverse proxy
//! that terminates TLS).

use std::net::{SocketAddr, TcpListener};

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use gnaw_sandbox::SandboxMode;
use gnaw_sandbox::reloader::Reloader;

use super::audit::AuditLog;
use super::fleet::Fleet;
use super::reload::{Source, described_roots, load, reload, tenancy};
pub use super::reload::{WORKER_ENV_REMOVED, prove_roots, read_tenants, worker_env};

use super::{FrontDoor, server};
use crate::mcp::Operator;

/// What `--listen` was given.
pub struct Launch {
    /// `--listen` or `GNAW_MCP_LISTEN`.
    pub listen: String,
    /// `--unauthenticated-loopback`: serve a loopback address without tokens, when no tenants file
    /// is given.
    pub unauthenticated_loopback: bool,
    /// `--allow-non-loopback`: serve an address other hosts can reach.
    pub allow_non_loopback: bool,
    /// The settings: the tenants file, the sandbox mode, the limits, the audit descriptor, and
    /// `GNAW_MCP_ROOT` (or the working directory): the one tenant's roots without a tenants
    /// file.
    pub operator: Operator,
}

/// Start the server; returns only on a startup error (or when the listener fails).
pub fn run(launch: Launch) -> Result<(), String> {
    let addr: SocketAddr = launch.listen.parse().map_err(|_| {
        format!(
            "--listen {:?}: expected an IP address and port, such as 127.0.0.1:8752 or [::1]:8752",
            launch.listen
        )
    })?;
    let loopback = addr.ip().is_loopback();
    if !loopback && !launch.allow_non_loopback {
        return Err(format!(
            "--listen {addr}: not a loopback address; pass --allow-non-loopback to serve other \
             hosts, and put the server behind a reverse proxy that terminates TLS (tokens \
             travel in clear text otherwise)"
        ));
    }
    let operator = launch.operator;
    let tenants_file = match (&operator.tenants, launch.unauthenticated_loopback) {
        (Some(path), _) => Some(path.clone()),
        (None, true) if loopback => None,
        (None, true) => {
            return Err(format!(
                "--unauthenticated-loopback serves a loopback address only; {addr} is not one"
            ));
        }
        (None, false) => {
            return Err(
                "--listen needs a tenants file (GNAW_MCP_TENANTS=/path/tenants.toml; \
                 gnaw-mcp --mint-token NAME makes a token), or --unauthenticated-loopback for a \
                 server on a loopback address that anyone on this host may call"
                    .into(),
            );
        }
    };
    let local_roots = match (&tenants_file, &operator.roots) {
        (Some(_), _) => Vec::new(),
        (None, Some(roots)) => roots.clone(),
        (None, None) => std::env::current_dir()
            .map(|d| vec![d])
            .map_err(|e| format!("cannot read the working directory ({e}); set GNAW_MCP_ROOT"))?,
    };
    let settings = operator.http.clone();
    let source = Source {
        tenants_file,
        local_roots,
        max_body_bytes: settings.max_body_bytes,
        from_file: operator.from_file.clone(),
    };
    let listener =
        TcpListener::bind(addr).map_err(|e| format!("--listen {addr}: cannot bind: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    // Adopted (and made close-on-exec) before the reloader is forked, so no worker inherits it.
    let audit = match operator.audit_fd {
        Some(fd) if fd > 2 => AuditLog::to_file(
            gnaw_sandbox::front_door::adopt_audit_fd(fd)
                .map_err(|e| format!("GNAW_MCP_AUDIT_FD: {e}"))?,
        ),
        _ => AuditLog::default(),
    };
    let mode = operator.sandbox;
    // The tenants are read, and their roots proven, by the reloader, at startup as at every
    // reload; it forks each generation's spawner.
    let reloader = Reloader::fork(Box::new(move || load(&source)), mode)
        .map_err(|e| format!("cannot start the reloader: {e}"))?;
    let (description, spawner) = reloader.load()?;
    for (tenant, root) in described_roots(&description) {
        log::info!(
            "tenant {tenant}: root {} proven (device {} inode {})",
            root.path,
            root.dev,
            root.ino
        );
        audit.root_proven(&tenant, &root);
    }
    // Reload on SIGHUP: blocked now in this thread, so in every thread started from here on,
    // and taken by the one thread that waits for it.
    gnaw_sandbox::front_door::block_reload_signal()
        .map_err(|e| format!("cannot set up the reload signal: {e}"))?;
    let status = gnaw_sandbox::front_door::confine_front_door(mode)
        .map_err(|e| format!("cannot confine the front door: {e}"))?;
    log::info!(
        "front door confined: {}",
        serde_json::to_string(&status).unwrap_or_default()
    );
    if mode == SandboxMode::Off {
        log::warn!("GNAW_MCP_SANDBOX=off: the front door and the workers are NOT confined");
    }
    let next_id = Arc::new(AtomicU64::new(1));
    let (tenancy, _) = tenancy(
        &description,
        Arc::new(spawner),
        None,
        settings.max_calls_per_tenant,
        &next_id,
    )?;
    let names: Vec<&str> = tenancy.upstreams.iter().map(|u| u.name()).collect();
    // Tests and scripts wait for this line; it names the bound port (useful with port 0).
    log::info!(
        "listening on http://{bound}/mcp for tenants {}{}",
        names.join(", "),
        if tenancy.tenants.is_none() {
            " (unauthenticated, loopback only)"
        } else {
            ""
        }
    );
    let fleet = Fleet::new(tenancy, &settings, operator.config.cache_bytes as u64);
    let door = Arc::new(FrontDoor {
        settings,
        fleet,
        sessions: Default::default(),
        loopback,
        audit,
        reloader,
        next_id,
        metrics: Default::default(),
    });
    {
        let door = Arc::clone(&door);
        std::thread::Builder::new()
            .name("gnaw-mcp-reload".into())
            .stack_size(256 << 10)
            .spawn(move || {
                loop {
                    gnaw_sandbox::front_door::wait_reload_signal();
                    log::info!("SIGHUP: reading the tenants again");
                    match reload(&door) {
                        Ok(summary) => log::info!("{summary}"),
                        Err(why) => log::error!("{why}"),
                    }
                }
            })
            .map_err(|e| format!("no thread for reloads: {e}"))?;
    }
    server::run(listener, door).map_err(|e| format!("the listener failed: {e}"))
}
