//! The front door's bounds and options, from `GNAW_MCP_*` (read once, before confining). Each
//! bound is reported, when hit, with the variable that sets it.

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
    /// Most open connections from one client address (`GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT`).
    pub max_connections_per_client: usize,
    /// Most open connections in all (`GNAW_MCP_MAX_CONNECTIONS`).
    pub max_connections: usize,
    /// Most open legacy sessions of one tenant (`GNAW_MCP_MAX_SESSIONS_PER_TENANT`).
    pub max_sessions_per_tenant: usize,
    /// A legacy session unused this long is ended (`GNAW_MCP_SESSION_IDLE_SECS`).
    pub session_idle: Duration,
    /// Most requests of one tenant waiting for, or running on, its worker
    /// (`GNAW_MCP_MAX_CALLS_PER_TENANT`).
    pub max_calls_per_tenant: usize,
    /// Browser origins allowed besides the loopback ones (`GNAW_MCP_ALLOWED_ORIGINS`,
    /// comma-separated, e.g. `https://app.example.com`).
    pub allowed_origins: Vec<String>,
    /// The URL clients reach this server by, when it sits behind a proxy
    /// (`GNAW_MCP_PUBLIC_URL`, e.g. `https://mcp.example.com`); otherwise `http://` and the
    /// request's `Host`.
    pub public_url: Option<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            max_header_bytes: 16 << 10,
            max_body_bytes: 4 << 20,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections_per_client: 64,
            max_connections: 512,
            max_sessions_per_tenant: 32,
            session_idle: Duration::from_secs(3600),
            max_calls_per_tenant: 64,
            allowed_origins: Vec::new(),
            public_url: None,
        }
    }
}

impl Settings {
    /// Read the settings; `max_body_bytes` is the stdio line bound. Errors name the variable.
    pub fn from_env(max_body_bytes: usize) -> Result<Settings, String> {
        let mut s = Settings {
            max_body_bytes,
            ..Settings::default()
        };
        for (name, slot) in [
            ("GNAW_MCP_MAX_HEADER_BYTES", &mut s.max_header_bytes),
            (
                "GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT",
                &mut s.max_connections_per_client,
            ),
            ("GNAW_MCP_MAX_CONNECTIONS", &mut s.max_connections),
            (
                "GNAW_MCP_MAX_SESSIONS_PER_TENANT",
                &mut s.max_sessions_per_tenant,
            ),
            ("GNAW_MCP_MAX_CALLS_PER_TENANT", &mut s.max_calls_per_tenant),
        ] {
            if let Some(n) = number(name)? {
                *slot = n;
            }
        }
        for (name, slot, unit) in [
            ("GNAW_MCP_HEADER_TIMEOUT_MS", &mut s.header_timeout, 1),
            ("GNAW_MCP_IDLE_TIMEOUT_MS", &mut s.idle_timeout, 1),
            ("GNAW_MCP_SESSION_IDLE_SECS", &mut s.session_idle, 1000),
        ] {
            if let Some(n) = number(name)? {
                *slot = Duration::from_millis(n as u64 * unit);
            }
        }
        if let Ok(raw) = std::env::var("GNAW_MCP_ALLOWED_ORIGINS") {
            s.allowed_origins = raw
                .split(',')
                .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase())
                .filter(|o| !o.is_empty())
                .collect();
        }
        if let Ok(raw) = std::env::var("GNAW_MCP_PUBLIC_URL") {
            let raw = raw.trim().trim_end_matches('/');
            if !(raw.starts_with("http://") || raw.starts_with("https://")) {
                return Err(format!(
                    "GNAW_MCP_PUBLIC_URL must start with http:// or https://; got {raw:?}"
                ));
            }
            s.public_url = Some(raw.to_string());
        }
        Ok(s)
    }
}

/// A positive number from `name`, when set.
fn number(name: &str) -> Result<Option<usize>, String> {
    match std::env::var(name) {
        Ok(raw) => match raw.trim().parse::<usize>() {
            Ok(n) if n > 0 => Ok(Some(n)),
            _ => Err(format!("{name} must be a positive number; got {raw:?}")),
        },
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(_) => Err(format!("{name} must be a positive number")),
    }
}
