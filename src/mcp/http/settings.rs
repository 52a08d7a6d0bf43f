//! The front door's bounds and options, with their defaults; the settings that change them
//! (`GNAW_MCP_*`) are applied by the table in [`crate::mcp::operator`]. Each bound is reported,
//! when hit, with the variable that sets it.

use std::time::Duration;

/// Bounds and options of the HTTP front door.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Most bytes of a request's head: request line and headers (`GNAW_MCP_MAX_HEADER_BYTES`).
    pub max_header_bytes: usize,
    /// Most bytes of a request's body (`GNAW_MCP_MAX_LINE_BYTES`, as for a stdio line).
    pub max_body_bytes: usize,
    /// Time a client has to send a whole request head, and a body, once it started
    /// (`GNAW_MCP_HEADER_TIMEOUT_MS`).
    pub header_timeout: Duration,
    /// Time an idle keep-alive connection is kept (`GNAW_MCP_IDLE_TIMEOUT_MS`).
    pub idle_timeout: Duration,
    /// Most open connections from one client (`GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT`): a client
    /// is an address block, all of loopback one, an IPv4 address, an IPv6 /64.
    pub max_connections_per_client: usize,
    /// Most of one client's connections that have not yet authenticated
    /// (`GNAW_MCP_MAX_UNAUTHENTICATED_PER_CLIENT`); a new one past it closes the oldest.
    pub max_unauthenticated_per_client: usize,
    /// Most connections in all that have not yet authenticated
    /// (`GNAW_MCP_MAX_UNAUTHENTICATED_CONNECTIONS`); a new one past it closes the oldest.
    pub max_unauthenticated_connections: usize,
    /// Most open connections in all (`GNAW_MCP_MAX_CONNECTIONS`).
    pub max_connections: usize,
    /// Most open legacy sessions of one tenant (`GNAW_MCP_MAX_SESSIONS_PER_TENANT`).
    pub max_sessions_per_tenant: usize,
    /// A legacy session unused this long is ended (`GNAW_MCP_SESSION_IDLE_SECS`).
    pub session_idle: Duration,
    /// Most requests of one tenant waiting for, or running on, its worker
    /// (`GNAW_MCP_MAX_CALLS_PER_TENANT`).
    pub max_calls_per_tenant: usize,
    /// A tenant's worker with no request this long is put to sleep
    /// (`GNAW_MCP_WORKER_IDLE_SECS`).
    pub worker_idle: Duration,
    /// Most tenants' workers running at once (`GNAW_MCP_MAX_WORKERS`).
    pub max_workers: usize,
    /// Most resident memory of all the workers together, when bounded
    /// (`GNAW_MCP_FLEET_MEMORY`).
    pub fleet_memory: Option<u64>,
    /// SHA-256 of the bearer token `/metrics` takes (`GNAW_MCP_METRICS_TOKEN_SHA256`); without
    /// one, `/metrics` answers loopback peers only, never through a trusted proxy.
    pub metrics_token_sha256: Option<[u8; 32]>,
    /// Browser origins allowed besides the loopback ones (`GNAW_MCP_ALLOWED_ORIGINS`,
    /// comma-separated, e.g. `https://app.example.com`).
    pub allowed_origins: Vec<String>,
    /// The URL clients reach this server by, when it sits behind a proxy
    /// (`GNAW_MCP_PUBLIC_URL`, e.g. `https://mcp.example.com`); otherwise `http://` and the
    /// request's `Host`.
    pub public_url: Option<String>,
    /// Reverse proxies whose connections carry many clients (`GNAW_MCP_TRUSTED_PROXIES`):
    /// their connections are not bounded per client address (the proxy bounds its clients),
    /// and the audit names the client of their `X-Forwarded-For`.
    pub trusted_proxies: Vec<std::net::IpAddr>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            max_header_bytes: 16 << 10,
            max_body_bytes: 4 << 20,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections_per_client: 64,
            max_unauthenticated_per_client: 32,
            max_unauthenticated_connections: 128,
            max_connections: 512,
            max_sessions_per_tenant: 32,
            session_idle: Duration::from_secs(3600),
            max_calls_per_tenant: 64,
            worker_idle: Duration::from_secs(300),
            max_workers: 64,
            fleet_memory: None,
            metrics_token_sha256: None,
            allowed_origins: Vec::new(),
            public_url: None,
            trusted_proxies: Vec::new(),
        }
    }
}
