//! `gnaw-mcp --listen`: MCP over Streamable HTTP, for many agents and tenants, with one
//! kernel-confined worker process per tenant. Plain threads, no async runtime.
//!
//! The HTTP process (the *front door*) parses, authenticates and routes; it reads no file once
//! it is confined (Landlock with no filesystem right, no TCP bind or connect:
//! `gnaw_sandbox::front_door`). Each tenant's requests go to that tenant's worker, gnaw-mcp
//! itself in stdio mode, confined by Landlock to the tenant's roots exactly as the stdio server
//! is, and started by a spawner forked before the front door confined itself
//! (`gnaw_sandbox::spawner`).
//!
//! | module | job |
//! |---|---|
//! | [`tenants`] | the tenants file: tokens (as SHA-256), roots, tools, secrets floor; minting a token |
//! | [`settings`] | the front door's bounds and their defaults |
//! | [`launch`] | `--listen`: check the address, bind, fork the reloader, load the tenants, confine, serve |
//! | `reload` | the tenants at startup and on `SIGHUP`: the reloader's generation made the tenancy, unchanged tenants kept |
//! | [`server`] | accept, bound connections, one thread per connection |
//! | `request` | read one HTTP/1.1 request under the bounds (httparse) |
//! | `response` | write a response, or an SSE stream, counting bytes |
//! | `guard` | the bearer token's tenant; the `Origin` check |
//! | [`endpoint`] | `/mcp` in each era, and the protected-resource metadata |
//! | [`mirrored`] | the 2026-07-28 headers that repeat the body, checked against it |
//! | `sessions` | legacy sessions: random ids bound to a tenant, expiry, bound per tenant |
//! | `upstream` | a tenant's worker: ids rewritten and routed back, a request it never took sent to a new one, sleep when idle |
//! | `fleet` | the tenants' workers on one host: the tenancy now, the bound on live workers, the memory budget, idle sleep |
//! | [`metrics`] | `/healthz` and `/metrics` (Prometheus text): requests, latency, workers, bounds, memory |
//! | [`audit`] | one JSON line per request, on stderr or the operator's descriptor |

pub mod audit;
pub mod endpoint;
pub(crate) mod fleet;
pub(crate) mod guard;
pub mod launch;
pub mod metrics;
pub mod mirrored;
pub(crate) mod reload;
pub(crate) mod request;
pub(crate) mod response;
pub mod server;
pub(crate) mod sessions;
pub mod settings;
pub mod tenants;
pub(crate) mod upstream;

pub use settings::Settings;
pub use tenants::{Tenant, Tenants};

/// What every connection thread shares.
pub struct FrontDoor {
    /// The front door's bounds and options.
    pub settings: Settings,
    /// The tenants and their workers.
    pub fleet: fleet::Fleet,
    /// The HTTP sessions open.
    pub sessions: sessions::Sessions,
    /// Whether the listening address is a loopback one.
    pub loopback: bool,
    /// Where the audit trail goes.
    pub audit: audit::AuditLog,
    /// The process that reads the tenants and proves their roots, at every reload.
    pub reloader: gnaw_sandbox::reloader::Reloader,
    /// Numbers the front door's request ids across every tenant and generation.
    pub next_id: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// The numbers `/metrics` serves.
    pub metrics: metrics::Metrics,
}

impl FrontDoor {
    /// A request is done: its audit line is written and it is counted.
    pub fn finish(&self, audit: &audit::Audit) {
        audit.emit(&self.audit);
        self.metrics.record(audit);
    }
}
