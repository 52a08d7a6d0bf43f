//! Tenants loaded at startup and again at each reload (`SIGHUP`, `systemctl reload`), by one
//! road: the reloader process reads the tenants and proves their roots ([`load`], run there),
//! forks a spawner confined to them, and describes them ([`Described`]); the front door turns
//! that description into its [`Tenancy`] ([`tenancy`]).
//!
//! A reload changes only what the file changed: a tenant described exactly as before (token,
//! roots by path and identity, tools, secrets floor, sharing) keeps its worker, its sessions and
//! its calls in flight; a new one is served at once; a removed or changed one (re-keyed, new
//! roots) has its sessions ended and its worker stopped. A file that does not parse, or whose
//! roots cannot be proven or overlap, is refused whole: the old tenants are kept, and the
//! reason is logged.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use gnaw_sandbox::Roots;
use gnaw_sandbox::reloader::Generation;
use gnaw_sandbox::spawner::{Spawner, WorkerSpec};
use serde::{Deserialize, Serialize};

use super::FrontDoor;
use super::fleet::Tenancy;
use super::tenants::{Tenant, Tenants, hex, parse_hex};
use super::upstream::Upstream;
use crate::mcp::operator::read_operator_file;

/// Where the tenants come from.
#[derive(Clone, Debug)]
pub struct Source {
    /// The tenants file; `None` with `--unauthenticated-loopback`: the one tenant `local`.
    pub tenants_file: Option<PathBuf>,
    /// The one tenant's roots, without a tenants file.
    pub local_roots: Vec<PathBuf>,
    /// The front door's body bound (a worker's line bound has room above it).
    pub max_body_bytes: usize,
    /// The settings of the `--config` file, for the workers.
    pub from_file: Vec<(OsString, OsString)>,
}

/// One generation of tenants, as the reloader describes it to the front door.
#[derive(Debug, Serialize, Deserialize)]
pub struct Described {
    /// Whether callers need a token (a tenants file), or every caller is the one tenant.
    pub authenticated: bool,
    pub tenants: Vec<DescribedTenant>,
}

/// One tenant of a generation.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct DescribedTenant {
    pub name: String,
    pub token_sha256: String,
    pub tools: Option<String>,
    pub secrets_floor: Option<String>,
    pub shares_with: Vec<String>,
    pub roots: Vec<DescribedRoot>,
}

/// A root as proven: its canonical path and identity.
#[derive(Debug, PartialEq, Serialize, Deserialize)]
pub struct DescribedRoot {
    pub path: String,
    pub dev: u64,
    pub ino: u64,
}

/// Read the tenants and prove their roots (in the reloader): the spawner's workers and the
/// description the front door builds its tenancy from.
pub fn load(source: &Source) -> Result<Generation, String> {
    let list: Vec<Tenant> = match &source.tenants_file {
        Some(path) => read_tenants(path)?.list,
        None => vec![Tenant {
            name: "local".into(),
            token_sha256: [0; 32],
            roots: source.local_roots.clone(),
            tools: None,
            secrets_floor: None,
            shares_with: Vec::new(),
        }],
    };
    let proven = prove_roots(&list)?;
    let mut specs = Vec::new();
    let mut described = Vec::new();
    for (tenant, roots) in list.iter().zip(proven) {
        let mut shown = Vec::new();
        for named in roots.iter() {
            let root = named.root();
            if root.path().as_os_str().as_encoded_bytes().contains(&b':') {
                return Err(format!(
                    "[tenants.{}] roots: {} cannot be passed on (a root's path may not hold ':')",
                    tenant.name,
                    root.path().display()
                ));
            }
            shown.push(DescribedRoot {
                path: root.path().display().to_string(),
                dev: root.id().dev,
                ino: root.id().ino,
            });
        }
        described.push(DescribedTenant {
            name: tenant.name.clone(),
            token_sha256: hex(&tenant.token_sha256),
            tools: tenant.tools.clone(),
            secrets_floor: tenant.secrets_floor.clone(),
            shares_with: tenant.shares_with.clone(),
            roots: shown,
        });
        specs.push(WorkerSpec {
            // The spawner's own executable: this binary, even if the file was replaced since.
            exe: PathBuf::from("/proc/self/exe"),
            args: Vec::new(),
            env: worker_env(tenant, source.max_body_bytes, &source.from_file),
            env_remove: WORKER_ENV_REMOVED.iter().map(OsString::from).collect(),
            roots,
        });
    }
    let description = serde_json::to_vec(&Described {
        authenticated: source.tenants_file.is_some(),
        tenants: described,
    })
    .map_err(|e| format!("cannot describe the tenants: {e}"))?;
    Ok(Generation { specs, description })
}

/// The keys of tenants new to this front door (shared by every generation).
static NEXT_KEY: AtomicU64 = AtomicU64::new(1);

/// A generation's tenancy: each tenant described as before keeps its [`Upstream`] from
/// `previous`, each other one gets a new one on `spawner`. Also the tenants of `previous` that
/// are gone (removed, or described otherwise).
pub fn tenancy(
    description: &[u8],
    spawner: Arc<Spawner>,
    previous: Option<&Tenancy>,
    max_calls_per_tenant: usize,
    next_id: &Arc<AtomicU64>,
) -> Result<(Tenancy, Vec<Arc<Upstream>>), String> {
    let described: Described = serde_json::from_slice(description)
        .map_err(|e| format!("the reloader's description does not read back: {e}"))?;
    let mut list = Vec::new();
    let mut upstreams = Vec::new();
    for (i, t) in described.tenants.iter().enumerate() {
        let identity = serde_json::to_string(t).unwrap_or_default();
        let kept = previous.and_then(|p| {
            p.upstreams
                .iter()
                .find(|u| u.name() == t.name && u.identity() == identity)
        });
        upstreams.push(match kept {
            Some(upstream) => Arc::clone(upstream),
            None => Arc::new(Upstream::new(
                i,
                t.name.clone(),
                NEXT_KEY.fetch_add(1, Ordering::Relaxed),
                identity,
                Arc::clone(&spawner),
                max_calls_per_tenant,
                Arc::clone(next_id),
            )),
        });
        list.push(Tenant {
            name: t.name.clone(),
            token_sha256: parse_hex(&t.token_sha256).unwrap_or([0; 32]),
            roots: t.roots.iter().map(|r| PathBuf::from(&r.path)).collect(),
            tools: t.tools.clone(),
            secrets_floor: t.secrets_floor.clone(),
            shares_with: t.shares_with.clone(),
        });
    }
    let gone = previous
        .map(|p| {
            p.upstreams
                .iter()
                .filter(|old| !upstreams.iter().any(|u| Arc::ptr_eq(u, old)))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let tenancy = Tenancy {
        tenants: described.authenticated.then_some(Tenants { list }),
        upstreams,
        spawner,
    };
    Ok((tenancy, gone))
}

/// What a generation's tenants were proven as, for the log and the audit trail.
pub fn described_roots(description: &[u8]) -> Vec<(String, DescribedRoot)> {
    serde_json::from_slice::<Described>(description)
        .map(|d| {
            d.tenants
                .into_iter()
                .flat_map(|t| {
                    let name = t.name;
                    t.roots.into_iter().map(move |r| (name.clone(), r))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Reload the tenants (on `SIGHUP`): ask the reloader for a new generation and put it in place;
/// a refusal keeps the current tenants. What changed, for the log.
pub fn reload(door: &FrontDoor) -> Result<String, String> {
    let (description, spawner) = door.reloader.load().map_err(|why| {
        format!("the tenants were not reloaded, the previous ones are kept: {why}")
    })?;
    let spawner = Arc::new(spawner);
    let current = door.fleet.tenancy();
    let (next, gone) = tenancy(
        &description,
        Arc::clone(&spawner),
        Some(&current),
        door.settings.max_calls_per_tenant,
        &door.next_id,
    )?;
    for (tenant, root) in described_roots(&description) {
        door.audit.root_proven(&tenant, &root);
    }
    let kept = next
        .upstreams
        .iter()
        .filter(|u| current.upstreams.iter().any(|c| Arc::ptr_eq(c, u)))
        .count();
    let added = next.upstreams.len() - kept;
    door.fleet.replace(next);
    let keys: Vec<u64> = gone.iter().map(|u| u.key()).collect();
    let ended = door.sessions.end_tenants(&keys);
    for upstream in &gone {
        upstream.stop();
    }
    Ok(format!(
        "tenants reloaded: {kept} kept as they were, {added} new or changed served now, {} \
         removed or changed (their workers stopped, {ended} sessions ended)",
        gone.len()
    ))
}

/// The largest tenants file read.
const MAX_TENANTS_FILE: u64 = 1 << 20;
/// Room for what the front door adds to a request (ids, tokens, the session's `_meta`) over
/// the body bound, on the worker's line bound.
const LINE_HEADROOM: usize = 64 << 10;

/// Read the tenants file (the operator's, before confinement and again on each reload;
/// bounded): as `--config` is read, no link followed and nothing but a regular file read, so a
/// FIFO put in its place cannot stall a reload.
pub fn read_tenants(path: &Path) -> Result<Tenants, String> {
    let tenants = ("GNAW_MCP_TENANTS", "=", "read");
    let (_, shown, text) = read_operator_file(path, tenants, MAX_TENANTS_FILE)?;
    Tenants::parse(&text).map_err(|e| format!("GNAW_MCP_TENANTS {shown}: {e}"))
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
pub const WORKER_ENV_REMOVED: [&str; 3] =
    ["GNAW_MCP_LISTEN", "GNAW_MCP_TENANTS", "GNAW_MCP_AUDIT_FD"];
