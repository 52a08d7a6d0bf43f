//! Starting `gnaw-mcp --listen ADDR`, in the order confinement needs: check the address and
//! the tenants (every tenant's roots are proven as the worker will prove them), bind the one
//! port, fork the spawner that starts the tenants' workers (while the process is
//! single-threaded and unconfined), confine the front door (no file, no new bind, no connect),
//! and only then start threads and serve.
//!
//! With no tenants file the server refuses to start unless `--unauthenticated-loopback` is
//! given, and then only on a loopback address, serving `GNAW_MCP_ROOT` as the one tenant
//! `local`. A non-loopback address needs `--allow-non-loopback` (put it behind a reverse proxy
//! that terminates TLS).

use std::ffi::OsString;
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use gnaw_sandbox::spawner::{Spawner, WorkerSpec};
use gnaw_sandbox::{Roots, SandboxMode};

use super::audit::AuditLog;
use super::tenants::{Tenant, Tenants};
use super::upstream::Upstream;
use super::{FrontDoor, server};
use crate::mcp::Operator;

/// The largest tenants file read.
const MAX_TENANTS_FILE: u64 = 1 << 20;
/// Room for what the front door adds to a request (ids, tokens, the session's `_meta`) over
/// the body bound, on the worker's line bound.
const LINE_HEADROOM: usize = 64 << 10;

/// What `--listen` was given.
pub struct Launch {
    /// `--listen` or `GNAW_MCP_LISTEN`.
    pub listen: String,
    pub unauthenticated_loopback: bool,
    pub allow_non_loopback: bool,
    /// The settings: the tenants file, the sandbox mode, the limits, the audit descriptor, and
    /// `GNAW_MCP_ROOT` (or the working directory): the one tenant's roots without a tenants
    /// file.
    pub operator: Operator,
}

/// Read the tenants file (the operator's, before confinement; bounded).
#[allow(clippy::disallowed_methods)] // the operator's own file, read once before confining
pub fn read_tenants(path: &Path) -> Result<Tenants, String> {
    use std::io::Read;
    let file = std::fs::File::open(path)
        .map_err(|e| format!("GNAW_MCP_TENANTS: cannot open {}: {e}", path.display()))?;
    let mut text = String::new();
    file.take(MAX_TENANTS_FILE + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("GNAW_MCP_TENANTS: cannot read {}: {e}", path.display()))?;
    if text.len() as u64 > MAX_TENANTS_FILE {
        return Err(format!(
            "GNAW_MCP_TENANTS: {} is larger than {MAX_TENANTS_FILE} bytes",
            path.display()
        ));
    }
    Tenants::parse(&text).map_err(|e| format!("GNAW_MCP_TENANTS {}: {e}", path.display()))
}

/// The environment a tenant's worker gets on top of the front door's: the settings of the
/// `--config` file (`from_file`, which the worker does not read), its tools and secrets floor
/// when it sets them, a line bound with room for what the front door adds; the `--listen`
/// variables removed. (Its roots are not here: the spawner hands them on as descriptors, with
/// their canonical paths as `GNAW_MCP_ROOT`.)
pub fn worker_env(
    tenant: &Tenant,
    max_body_bytes: usize,
    from_file: &[(OsString, OsString)],
) -> Vec<(OsString, OsString)> {
    let mut env = vec![
        (OsString::from("GNAW_MCP_ROOT"), OsString::new()),
        (
            OsString::from("GNAW_MCP_MAX_LINE_BYTES"),
            OsString::from((max_body_bytes + LINE_HEADROOM).to_string()),
        ),
    ];
    if let Some(tools) = &tenant.tools {
        env.push(("GNAW_MCP_TOOLS".into(), tools.into()));
    }
    if let Some(floor) = &tenant.secrets_floor {
        env.push(("GNAW_MCP_SECRETS_FLOOR".into(), floor.into()));
    }
    let inherited: Vec<(OsString, OsString)> = from_file
        .iter()
        .filter(|(name, _)| {
            !env.iter().any(|(set, _)| set == name) && !WORKER_ENV_REMOVED.iter().any(|r| name == r)
        })
        .cloned()
        .collect();
    // GNAW_MCP_ROOT was listed only to keep the file's value from reaching the worker.
    env.remove(0);
    inherited.into_iter().chain(env).collect()
}

/// Prove every tenant's roots (canonicalized and opened as directories, by descriptor: what the
/// workers will be handed), and refuse a root of one tenant that is another tenant's, or lies
/// inside or around one, unless one of the two names the other in `shares_with`.
pub fn prove_roots(list: &[Tenant]) -> Result<Vec<Roots>, String> {
    let mut proven: Vec<Roots> = Vec::with_capacity(list.len());
    for tenant in list {
        let roots = Roots::new(&tenant.roots, false)
            .map_err(|e| format!("[tenants.{}] roots: {e}", tenant.name))?;
        for (other, theirs) in list.iter().zip(&proven) {
            if tenant.shares_with.contains(&other.name) || other.shares_with.contains(&tenant.name)
            {
                continue;
            }
            for mine in roots.iter() {
                if let Some(overlap) = theirs.iter().find(|t| t.root().overlaps(mine.root())) {
                    return Err(format!(
                        "[tenants.{}] roots: {} overlaps [tenants.{}]'s root {} (the same \
                         directory, or one inside the other), so each tenant could read the \
                         other's files; give each tenant its own directories, or say that \
                         they share them with shares_with = [\"{}\"]",
                        tenant.name,
                        mine.root().path().display(),
                        other.name,
                        overlap.root().path().display(),
                        other.name
                    ));
                }
            }
        }
        proven.push(roots);
    }
    Ok(proven)
}

/// Variables a worker must not inherit.
const WORKER_ENV_REMOVED: [&str; 3] = ["GNAW_MCP_LISTEN", "GNAW_MCP_TENANTS", "GNAW_MCP_AUDIT_FD"];

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
    let tenants = match (&operator.tenants, launch.unauthenticated_loopback) {
        (Some(path), _) => Some(read_tenants(path)?),
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
    let list: Vec<Tenant> = match &tenants {
        Some(t) => t.list.clone(),
        None => vec![Tenant {
            name: "local".into(),
            token_sha256: [0; 32],
            roots: match &operator.roots {
                Some(roots) => roots.clone(),
                None => std::env::current_dir().map(|d| vec![d]).map_err(|e| {
                    format!("cannot read the working directory ({e}); set GNAW_MCP_ROOT")
                })?,
            },
            tools: None,
            secrets_floor: None,
            shares_with: Vec::new(),
        }],
    };
    let proven = prove_roots(&list)?;
    let settings = operator.http.clone();
    let mut specs = Vec::new();
    for (tenant, roots) in list.iter().zip(proven) {
        for named in roots.iter() {
            let root = named.root();
            if root.path().as_os_str().as_encoded_bytes().contains(&b':') {
                return Err(format!(
                    "[tenants.{}] roots: {} cannot be passed on (a root's path may not hold ':')",
                    tenant.name,
                    root.path().display()
                ));
            }
            log::info!(
                "tenant {}: root {} proven ({})",
                tenant.name,
                root.path().display(),
                root.id()
            );
        }
        specs.push(WorkerSpec {
            // The spawner's own executable: this binary, even if the file was replaced since.
            exe: PathBuf::from("/proc/self/exe"),
            args: Vec::new(),
            env: worker_env(tenant, settings.max_body_bytes, &operator.from_file),
            env_remove: WORKER_ENV_REMOVED.iter().map(OsString::from).collect(),
            roots,
        });
    }
    let listener =
        TcpListener::bind(addr).map_err(|e| format!("--listen {addr}: cannot bind: {e}"))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    // Adopted (and made close-on-exec) before the spawner is forked, so no worker inherits it.
    let audit = match operator.audit_fd {
        Some(fd) if fd > 2 => AuditLog::to_file(
            gnaw_sandbox::front_door::adopt_audit_fd(fd)
                .map_err(|e| format!("GNAW_MCP_AUDIT_FD: {e}"))?,
        ),
        _ => AuditLog::default(),
    };
    let mode = operator.sandbox;
    let spawner =
        Spawner::fork(specs, mode).map_err(|e| format!("cannot start the spawner: {e}"))?;
    let status = gnaw_sandbox::front_door::confine_front_door(mode)
        .map_err(|e| format!("cannot confine the front door: {e}"))?;
    log::info!(
        "front door confined: {}",
        serde_json::to_string(&status).unwrap_or_default()
    );
    if mode == SandboxMode::Off {
        log::warn!("GNAW_MCP_SANDBOX=off: the front door and the workers are NOT confined");
    }
    let spawner = Arc::new(spawner);
    let spawn: Arc<super::upstream::Spawn> = Arc::new(move |i| spawner.spawn(i));
    let next = Arc::new(AtomicU64::new(1));
    let upstreams = list
        .iter()
        .enumerate()
        .map(|(i, t)| {
            Upstream::new(
                i,
                t.name.clone(),
                Arc::clone(&spawn),
                settings.max_calls_per_tenant,
                Arc::clone(&next),
            )
        })
        .collect();
    let names: Vec<&str> = list.iter().map(|t| t.name.as_str()).collect();
    // Tests and scripts wait for this line; it names the bound port (useful with port 0).
    log::info!(
        "listening on http://{bound}/mcp for tenants {}{}",
        names.join(", "),
        if tenants.is_none() {
            " (unauthenticated, loopback only)"
        } else {
            ""
        }
    );
    let door = Arc::new(FrontDoor {
        settings,
        tenants,
        upstreams,
        sessions: Default::default(),
        loopback,
        audit,
    });
    server::run(listener, door).map_err(|e| format!("the listener failed: {e}"))
}
