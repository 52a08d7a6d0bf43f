//! The audit trail: one JSON line per HTTP request, written whole by one call, on stderr or on
//! the descriptor the operator passes (`GNAW_MCP_AUDIT_FD`, an [`AuditLog`]): the
//! time (UTC), the client's address (behind a trusted proxy, the client it forwarded for), the
//! request's `X-Request-Id`, the tenant, the HTTP method, the JSON-RPC method and tool,
//! the `repo` argument, every one of the client's strings as rendered ([`rendered`]: an escaped
//! excerpt, its secrets redacted, as the exit gate would say it), the status, the decision
//! (`served`, or `refused: <why>`), the bytes sent and the milliseconds taken. Never a token, an
//! argument's raw text or a file's content, and never a line over [`MAX_LINE_BYTES`].

use std::fs::File;
use std::io::Write;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

use serde_json::json;

use super::request::Request;

/// Where the audit lines go: stderr, or the operator's descriptor.
#[derive(Debug, Default)]
pub struct AuditLog {
    file: Option<Mutex<File>>,
}

impl AuditLog {
    /// Lines go to `file` (the descriptor of `GNAW_MCP_AUDIT_FD`, adopted before confining).
    pub fn to_file(file: File) -> AuditLog {
        AuditLog {
            file: Some(Mutex::new(file)),
        }
    }

    /// Write one whole line. A line that cannot be written is reported on stderr (without its
    /// content), once per failure.
    fn write(&self, line: &[u8]) {
        match &self.file {
            Some(file) => {
                let mut file = file.lock().unwrap_or_else(|p| p.into_inner());
                if let Err(e) = file.write_all(line) {
                    log::error!("the audit trail could not be written: {e}");
                }
            }
            None => {
                let _ = std::io::stderr().lock().write_all(line);
            }
        }
    }
}

/// One request's audit record, filled as it is handled.
pub struct Audit {
    start: Instant,
    /// The peer's address and port; behind a trusted proxy, the client it forwarded for
    /// followed by `via` and the proxy's address.
    pub client: String,
    /// The request's `X-Request-Id` (as a proxy sets it, to match its own log), when it is a
    /// plain token of at most 64 characters.
    pub request_id: Option<String>,
    /// The tenant the request was routed to, once its token is checked.
    pub tenant: Option<String>,
    /// The HTTP method, rendered.
    pub http: String,
    /// The JSON-RPC method called, rendered, when the body was read.
    pub method: Option<String>,
    /// The tool called, rendered, for a `tools/call`.
    pub tool: Option<String>,
    /// The call's `repo` as rendered ([`rendered`]).
    pub repo: Option<String>,
    /// The HTTP status answered.
    pub status: u16,
    /// What was decided, in words: `served`, or `refused: ` and why.
    pub decision: String,
    /// Bytes sent in the response.
    pub bytes: usize,
    /// The setting whose bound refused or closed it, for `/metrics` (never written in the
    /// line: the decision says it in words).
    pub bound: Option<&'static str>,
}

impl Audit {
    /// A record for a request from `client` that started now.
    pub fn new(client: String) -> Audit {
        Audit {
            start: Instant::now(),
            client,
            request_id: None,
            tenant: None,
            http: String::new(),
            method: None,
            tool: None,
            repo: None,
            status: 0,
            decision: String::new(),
            bytes: 0,
            bound: None,
        }
    }

    /// What the request's headers add: its `X-Request-Id`, and, from a proxy in `trusted`, the
    /// client it forwarded for (the last address of `X-Forwarded-For`, the one that proxy
    /// added). A header that is not plain is left out, never quoted.
    pub fn from_request(&mut self, request: &Request, trusted: &[IpAddr]) {
        self.request_id = request
            .header("x-request-id")
            .map(str::trim)
            .filter(|id| {
                !id.is_empty()
                    && id.len() <= 64
                    && id
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b))
            })
            .map(str::to_string);
        let peer: Option<std::net::SocketAddr> = self.client.parse().ok();
        if let Some(peer) = peer.filter(|p| trusted.contains(&p.ip().to_canonical())) {
            // The last hop of the last line: a proxy appends its own line after any the client
            // sent (HAProxy) or replaces them (nginx); either way the client wrote none of it.
            let forwarded = request
                .header_values("x-forwarded-for")
                .last()
                .and_then(|v| v.rsplit(',').next())
                .and_then(|hop| hop.trim().parse::<IpAddr>().ok());
            if let Some(client) = forwarded {
                self.client = format!("{client} via {peer}");
            }
        }
    }

    /// Refused with `status` because `why`.
    pub fn refuse(&mut self, status: u16, why: impl Into<String>) {
        self.status = status;
        self.decision = format!("refused: {}", rendered(&why.into()));
    }

    /// Refused with `status` at the bound `bound` sets (a setting's key, as `/metrics` names
    /// it).
    pub fn refuse_at(&mut self, status: u16, bound: &'static str, why: impl Into<String>) {
        self.refuse(status, why);
        self.bound = Some(bound);
    }

    /// Time since the request's head arrived.
    pub fn elapsed(&self) -> std::time::Duration {
        self.start.elapsed()
    }

    /// Served with `status`.
    pub fn serve(&mut self, status: u16) {
        self.status = status;
        self.decision = "served".into();
    }

    /// Write the line to `log`.
    pub fn emit(&self, log: &AuditLog) {
        let line = json!({
            "audit": "gnaw-mcp",
            "time": utc_now(),
            "client": self.client,
            "request_id": self.request_id,
            "tenant": self.tenant,
            "http": self.http,
            "method": self.method,
            "tool": self.tool,
            "repo": self.repo,
            "status": self.status,
            "decision": self.decision,
            "bytes": self.bytes,
            "ms": self.start.elapsed().as_millis() as u64,
        });
        let mut text = line.to_string();
        if text.len() >= MAX_LINE_BYTES {
            // Cannot happen with every field bounded; if it ever did, the line says so rather
            // than growing.
            text = json!({
                "audit": "gnaw-mcp",
                "time": utc_now(),
                "status": self.status,
                "decision": "line over its bound; fields left out",
            })
            .to_string();
        }
        text.push('\n');
        log.write(text.as_bytes());
    }
}

impl AuditLog {
    /// The record of one tenant's root as proven at startup or at a reload: its canonical path
    /// and its device and inode, the directory the tenant's workers are bound to.
    pub fn root_proven(&self, tenant: &str, root: &super::reload::DescribedRoot) {
        let mut line = json!({
            "audit": "gnaw-mcp",
            "time": utc_now(),
            "event": "root proven",
            "tenant": tenant,
            "root": root.path,
            "dev": root.dev,
            "ino": root.ino,
        })
        .to_string();
        line.push('\n');
        self.write(line.as_bytes());
    }
}

/// A client's string as the audit shows it (a `repo` argument, a JSON-RPC method, a tool's
/// name, an HTTP method token): an excerpt, escaped ([`crate::vocab::excerpt`]), with every
/// secret redacted ([`crate::mcp::gate::for_log`]); never the raw text. At most
/// [`FIELD_CHARS`] characters.
pub fn rendered(text: &str) -> String {
    let shown = crate::mcp::gate::for_log(&crate::vocab::excerpt(text));
    if shown.chars().count() <= FIELD_CHARS {
        return shown;
    }
    // A redaction marker can lengthen an excerpt; the field's bound holds regardless.
    let mut cut: String = shown.chars().take(FIELD_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// The most characters of one field the client set, as rendered ([`rendered`]).
pub const FIELD_CHARS: usize = 200;

/// The most bytes of one audit line: every field bounded (the client's through [`rendered`],
/// the rest the server's own), so that a line is never more than this, newline included.
pub const MAX_LINE_BYTES: usize = 4096;

/// Now as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn utc_now() -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let secs = now.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        now.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_repo_is_rendered_not_quoted() {
        let token = format!("{}{}", "gh", "p_u8Zq3LmN7pX2vR9tK4wY6bJ1cH5dF0gS8aQe");
        let shown = super::rendered(&format!("app/{token}\u{202e}"));
        assert_eq!(shown, "app/[REDACTED:github-token]\\u{202e}");
        assert!(super::rendered(&"x/".repeat(1000)).contains("characters in all"));
    }

    #[test]
    fn the_time_is_iso_8601_utc() {
        let t = super::utc_now();
        assert_eq!(t.len(), 24, "{t}");
        assert!(
            t.starts_with("20") && t.ends_with('Z') && t.as_bytes()[10] == b'T',
            "{t}"
        );
    }
}
