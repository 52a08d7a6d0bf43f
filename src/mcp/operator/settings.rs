//! The one table of settings ([`SETTINGS`]): each row's name, kind, help, how its value is
//! applied and how it is shown; and the readers its rows share (text, a positive number, a byte
//! count).

use super::{Group, Kind, Setting};
use crate::gnawconfig::parse_size;
use crate::mcp::config::Structured;
use crate::mcp::selection::{OPT_IN, ToolSet};
use crate::spec::{RepoMayWiden, Widen};
use std::ffi::OsStr;
use std::path::PathBuf;
use std::time::Duration;

/// Text of `v`, or an error saying it must be UTF-8.
pub(super) fn utf8(v: &OsStr) -> Result<&str, String> {
    v.to_str()
        .map(str::trim)
        .ok_or_else(|| "must be text (UTF-8)".to_string())
}

pub(super) fn positive(v: &OsStr) -> Result<usize, String> {
    utf8(v)?
        .parse()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| "must be a positive number".to_string())
}

pub(super) fn bytes(v: &OsStr, what: &str) -> Result<u64, String> {
    parse_size(utf8(v)?).ok_or_else(|| what.to_string())
}

/// A byte count as it is best written: in MiB or KiB when it is a whole number of them.
pub(super) fn show_size(n: u64) -> String {
    match n {
        0 => "0".into(),
        n if n % (1 << 20) == 0 => format!("{}MiB", n >> 20),
        n if n % (1 << 10) == 0 => format!("{}KiB", n >> 10),
        n => n.to_string(),
    }
}

/// The default tool selection, as a selection that reads back to it: every tool but the
/// opt-in ones (`all,-hotspots,-overview`).
pub(super) fn default_tools() -> String {
    std::iter::once("all".to_string())
        .chain(OPT_IN.iter().map(|t| format!("-{t}")))
        .collect::<Vec<_>>()
        .join(",")
}

/// A row for a positive number held at `o.FIELD`: a count (read by [`positive`], shown as it
/// is), or a duration written in the unit that `Duration::$from` reads and `Duration::$as`
/// shows (`from_millis / as_millis`).
macro_rules! number {
    ($key:literal, $group:ident, $($field:ident).+, $from:ident / $as:ident, $help:expr) => {
        number!(@row $key, $group, $help,
            |v, o| o.$($field).+ = Duration::$from(positive(v)? as u64),
            |o| o.$($field).+.$as().to_string())
    };
    ($key:literal, $group:ident, $($field:ident).+, $help:expr) => {
        number!(@row $key, $group, $help,
            |v, o| o.$($field).+ = positive(v)?,
            |o| o.$($field).+.to_string())
    };
    (@row $key:literal, $group:ident, $help:expr, |$v:ident, $o:ident| $set:expr, |$s:ident| $show:expr) => {
        Setting {
            key: $key,
            group: Group::$group,
            kind: Kind::Number,
            help: $help,
            apply: |$v, $o| {
                $set;
                Ok(())
            },
            show: |$s| $show,
        }
    };
}

/// Every setting, in `--help`'s order.
pub static SETTINGS: &[Setting] = &[
    Setting {
        key: "root",
        group: Group::Server,
        kind: Kind::Paths,
        help: "directory the tools may read, or several separated by ':' (each confined the \
               same way; a tool's repo then starts with a root's name: its directory name, made \
               unique as name-2, ...)",
        apply: |v, o| {
            // Empty, it means the default (the working directory), as it always has; a list of
            // nothing but separators names no directory, which the roots' check refuses.
            let roots: Vec<PathBuf> = std::env::split_paths(v)
                .filter(|p| !p.as_os_str().is_empty())
                .collect();
            o.roots = (!v.is_empty()).then_some(roots);
            Ok(())
        },
        show: |o| match &o.roots {
            Some(roots) => std::env::join_paths(roots)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default(),
            None => "the working directory".into(),
        },
    },
    Setting {
        key: "sandbox",
        group: Group::Server,
        kind: Kind::Text,
        help: "strict, best-effort or off: how the process is confined (Landlock, seccomp, no \
               capabilities); strict refuses to start where a layer cannot be applied",
        apply: |v, o| {
            o.sandbox = utf8(v)?
                .parse()
                .map_err(|_| "must be strict, best-effort or off".to_string())?;
            Ok(())
        },
        show: |o| o.sandbox.name().into(),
    },
    Setting {
        key: "tools",
        group: Group::Server,
        kind: Kind::List,
        help: "the tools offered, comma-separated: names to turn on (read,grep), -name to turn \
               one off (-changes,-log), or a preset: minimal (read, grep, tree, search) or all. \
               The root's .gnawconfig `tools` list may narrow it, never widen it",
        apply: |v, o| {
            o.tools = ToolSet::parse(utf8(v)?)?;
            Ok(())
        },
        show: |o| {
            o.tools
                .operator_spec()
                .map_or_else(default_tools, str::to_string)
        },
    },
    number!(
        "max_line_bytes",
        Server,
        config.max_line_bytes,
        "longest accepted request line (over HTTP: request body)"
    ),
    number!(
        "max_output_bytes",
        Server,
        config.max_output_bytes,
        "largest prompt extract returns"
    ),
    Setting {
        key: "default_budget",
        group: Group::Server,
        kind: Kind::Number,
        help: "token budget when neither the call nor .gnawconfig sets one (0 for unlimited)",
        apply: |v, o| {
            let n: usize = utf8(v)?
                .parse()
                .map_err(|_| "must be a token count (0 for unlimited)".to_string())?;
            o.config.policy.budget_default = (n > 0).then_some(n);
            Ok(())
        },
        show: |o| o.config.policy.budget_default.unwrap_or(0).to_string(),
    },
    number!(
        "default_max_chars",
        Server,
        config.default_max_chars,
        "most characters of an answer when the call sets neither budget nor max_chars \
               (text and structured copy together)"
    ),
    Setting {
        key: "structured",
        group: Group::Server,
        kind: Kind::Text,
        help: "auto, on or off: whether answers carry structuredContent (and tools \
               outputSchema) for revisions that have them; auto leaves them out for a client \
               that shows the model only that copy (a legacy client whose clientInfo.name is \
               claude-code)",
        apply: |v, o| {
            o.config.structured = match utf8(v)? {
                "auto" => Structured::Auto,
                "on" => Structured::On,
                "off" => Structured::Off,
                _ => return Err("must be auto, on or off".into()),
            };
            Ok(())
        },
        show: |o| {
            match o.config.structured {
                Structured::Auto => "auto",
                Structured::On => "on",
                Structured::Off => "off",
            }
            .into()
        },
    },
    Setting {
        key: "secrets_floor",
        group: Group::Server,
        kind: Kind::Text,
        help: "weakest secrets mode a repo or call may choose: off, warn, redact or block",
        apply: |v, o| {
            o.config.policy.secrets_floor = utf8(v)?
                .parse()
                .map_err(|_| "must be off, warn, redact or block".to_string())?;
            Ok(())
        },
        show: |o| o.config.policy.secrets_floor.name().into(),
    },
    Setting {
        key: "max_file_size",
        group: Group::Server,
        kind: Kind::Size,
        help: "ceiling on a .gnawconfig's max_file_size, and the largest file read takes by \
               range",
        apply: |v, o| {
            let n = bytes(v, "must be a byte count such as 16777216 or \"16MiB\"")?;
            if n == 0 {
                return Err("must be a byte count above 0, such as 16777216 or \"16MiB\"".into());
            }
            o.config.policy.max_file_size_cap = Some(n);
            Ok(())
        },
        show: |o| {
            o.config
                .policy
                .max_file_size_cap
                .map(show_size)
                .unwrap_or_else(|| "-".into())
        },
    },
    Setting {
        key: "max_depth",
        group: Group::Server,
        kind: Kind::Number,
        help: "deepest directory level walked, below the repo",
        apply: |v, o| {
            o.config.policy.max_depth = positive(v)
                .map_err(|_| "must be a positive number of directory levels".to_string())?;
            Ok(())
        },
        show: |o| o.config.policy.max_depth.to_string(),
    },
    Setting {
        key: "repo_may_widen",
        group: Group::Server,
        kind: Kind::List,
        help: "the .gnawconfig settings a repository may use to read more, comma-separated, \
               or all, or none. Refused settings keep their defaults and are reported in the \
               tool result and on stderr. The settings:",
        apply: |v, o| {
            o.config.policy.repo_may_widen = RepoMayWiden::parse(utf8(v)?).map_err(|e| {
                let names: Vec<&str> = Widen::GRANTABLE.iter().map(|w| w.name()).collect();
                format!(
                    "must be a comma-separated list of the .gnawconfig settings a repository may use \
                     to read more ({}), or all, or none ({e})",
                    names.join(", ")
                )
            })?;
            Ok(())
        },
        show: |o| {
            let names = o.config.policy.repo_may_widen.names();
            if names.is_empty() {
                "none".into()
            } else {
                names.join(",")
            }
        },
    },
    Setting {
        key: "hard_links",
        group: Group::Server,
        kind: Kind::Text,
        help: "skip or read files with more than one hard link (skip: they may be links to \
               files outside the root)",
        apply: |v, o| {
            o.config.policy.skip_hard_links = match utf8(v)? {
                "skip" => true,
                "read" => false,
                _ => return Err("must be skip or read".into()),
            };
            Ok(())
        },
        show: |o| {
            if o.config.policy.skip_hard_links {
                "skip"
            } else {
                "read"
            }
            .into()
        },
    },
    Setting {
        key: "cache_bytes",
        group: Group::Server,
        kind: Kind::Size,
        help: "memory kept between calls (warm cache, search indexes, idle work), e.g. \
               256MiB; 0 turns the cache off",
        apply: |v, o| {
            let what =
                "must be a byte count such as 268435456 or \"256MiB\" (0 turns the cache off)";
            o.config.cache_bytes = usize::try_from(bytes(v, what)?).map_err(|_| what)?;
            Ok(())
        },
        show: |o| show_size(o.config.cache_bytes as u64),
    },
    number!(
        "max_queued_calls",
        Server,
        config.max_queued_calls,
        "most tools/call requests waiting for the worker"
    ),
    number!(
        "max_queued_bytes",
        Server,
        config.max_queued_bytes,
        "most bytes of waiting tools/call requests"
    ),
    Setting {
        key: "listen",
        group: Group::Http,
        kind: Kind::Text,
        help: "the address to serve HTTP on, as --listen (e.g. 127.0.0.1:8752)",
        apply: |v, o| {
            let addr = utf8(v)?;
            o.listen = (!addr.is_empty()).then(|| addr.to_string());
            Ok(())
        },
        show: |o| o.listen.clone().unwrap_or_else(|| "-".into()),
    },
    Setting {
        key: "tenants",
        group: Group::Http,
        kind: Kind::Path,
        help: "the tenants file: [tenants.NAME] with token_sha256, roots, and optionally tools \
               and secrets_floor (--mint-token NAME makes one)",
        apply: |v, o| {
            o.tenants = (!v.is_empty()).then(|| PathBuf::from(v));
            Ok(())
        },
        show: |o| match &o.tenants {
            Some(p) => p.display().to_string(),
            None => "-".into(),
        },
    },
    Setting {
        key: "audit_fd",
        group: Group::Http,
        kind: Kind::Number,
        help: "a file descriptor open for writing that receives the audit trail (one JSON line \
               per request) instead of stderr, e.g. 3 with `3>>/var/log/gnaw-mcp/audit.log`",
        apply: |v, o| {
            let fd: i32 = utf8(v)?
                .parse()
                .ok()
                .filter(|&n| n >= 2)
                .ok_or("must be a file descriptor number, 2 or above (2 is stderr)")?;
            o.audit_fd = Some(fd);
            Ok(())
        },
        show: |o| o.audit_fd.map_or_else(|| "2".into(), |fd| fd.to_string()),
    },
    number!(
        "max_header_bytes",
        Http,
        http.max_header_bytes,
        "largest request head; the body's bound is GNAW_MCP_MAX_LINE_BYTES"
    ),
    number!(
        "header_timeout_ms",
        Http,
        http.header_timeout,
        from_millis / as_millis,
        "time to send a request once begun"
    ),
    number!(
        "idle_timeout_ms",
        Http,
        http.idle_timeout,
        from_millis / as_millis,
        "an idle keep-alive connection is closed after"
    ),
    number!(
        "max_connections_per_client",
        Http,
        http.max_connections_per_client,
        "open connections per client (all of loopback is one; an IPv6 /64 is one)"
    ),
    number!(
        "max_unauthenticated_per_client",
        Http,
        http.max_unauthenticated_per_client,
        "connections per client not yet authenticated (past it, the oldest is closed)"
    ),
    number!(
        "max_unauthenticated_connections",
        Http,
        http.max_unauthenticated_connections,
        "connections in all not yet authenticated (past it, the oldest is closed)"
    ),
    number!(
        "max_connections",
        Http,
        http.max_connections,
        "open connections in all"
    ),
    number!(
        "max_sessions_per_tenant",
        Http,
        http.max_sessions_per_tenant,
        "open legacy sessions per tenant"
    ),
    number!(
        "session_idle_secs",
        Http,
        http.session_idle,
        from_secs / as_secs,
        "a session unused this long ends"
    ),
    number!(
        "max_calls_per_tenant",
        Http,
        http.max_calls_per_tenant,
        "requests waiting or running per tenant"
    ),
    number!(
        "worker_idle_secs",
        Http,
        http.worker_idle,
        from_secs / as_secs,
        "a tenant's worker with no request this long is put to sleep (its next request \
               starts a new one)"
    ),
    number!(
        "max_workers",
        Http,
        http.max_workers,
        "tenants' workers running at once; past it the least recently used idle one \
               sleeps, or the request gets 503"
    ),
    Setting {
        key: "fleet_memory",
        group: Group::Http,
        kind: Kind::Size,
        help: "resident memory of all the workers together (each one's cache bound is its \
               share; past it the least recently used idle ones sleep); - for no bound",
        apply: |v, o| {
            o.http.fleet_memory = match utf8(v)? {
                "-" | "" => None,
                _ => Some(bytes(v, "must be a byte count such as \"8GiB\", or -")?)
                    .filter(|&n| n > 0),
            };
            Ok(())
        },
        show: |o| {
            o.http
                .fleet_memory
                .map(show_size)
                .unwrap_or_else(|| "-".into())
        },
    },
    Setting {
        key: "metrics_token_sha256",
        group: Group::Http,
        kind: Kind::Text,
        help: "SHA-256 (64 hex digits) of the bearer token /metrics takes (gnaw-mcp --mint-token \
               metrics makes one); without it /metrics answers loopback peers only",
        apply: |v, o| {
            let text = utf8(v)?;
            o.http.metrics_token_sha256 = match text {
                "" | "-" => None,
                hex => Some(
                    crate::mcp::http::tenants::parse_hex(hex)
                        .ok_or_else(|| "must be 64 hex digits, or -".to_string())?,
                ),
            };
            Ok(())
        },
        show: |o| {
            o.http
                .metrics_token_sha256
                .map(|h| crate::mcp::http::tenants::hex(&h))
                .unwrap_or_else(|| "-".into())
        },
    },
    Setting {
        key: "allowed_origins",
        group: Group::Http,
        kind: Kind::List,
        help: "browser origins allowed besides loopback ones, comma-separated",
        apply: |v, o| {
            o.http.allowed_origins = utf8(v)?
                .split(',')
                .map(|o| o.trim().trim_end_matches('/').to_ascii_lowercase())
                .filter(|o| !o.is_empty())
                .collect();
            Ok(())
        },
        show: |o| {
            if o.http.allowed_origins.is_empty() {
                "-".into()
            } else {
                o.http.allowed_origins.join(",")
            }
        },
    },
    Setting {
        key: "public_url",
        group: Group::Http,
        kind: Kind::Text,
        help: "the URL clients use behind a proxy, scheme and host only (e.g. \
               https://mcp.example.com): named by the 401's metadata, and its origin is allowed \
               while loopback origins are not",
        apply: |v, o| {
            let raw = utf8(v)?.trim_end_matches('/');
            let Some(rest) = raw
                .strip_prefix("http://")
                .or_else(|| raw.strip_prefix("https://"))
            else {
                return Err("must be a URL starting with http:// or https://".into());
            };
            if rest.is_empty() || rest.contains(['/', '?', '#', '@']) {
                return Err(
                    "must be a scheme and host only, such as https://mcp.example.com \
                            (serve /mcp at the root of its host; a path prefix is not supported)"
                        .into(),
                );
            }
            // As a browser writes the origin: without the scheme's default port.
            let raw = raw
                .strip_suffix(":443")
                .filter(|_| raw.starts_with("https://"))
                .or_else(|| {
                    raw.strip_suffix(":80")
                        .filter(|_| raw.starts_with("http://"))
                })
                .unwrap_or(raw);
            o.http.public_url = Some(raw.to_string());
            Ok(())
        },
        show: |o| o.http.public_url.clone().unwrap_or_else(|| "-".into()),
    },
    Setting {
        key: "trusted_proxies",
        group: Group::Http,
        kind: Kind::List,
        help: "addresses of reverse proxies in front of this server, comma-separated (e.g. \
               127.0.0.1): their connections are not bounded per client address (bound \
               clients at the proxy), and the audit names the client of their X-Forwarded-For",
        apply: |v, o| {
            o.http.trusted_proxies = utf8(v)?
                .split(',')
                .map(str::trim)
                .filter(|a| !a.is_empty())
                .map(|a| a.parse::<std::net::IpAddr>().map(|ip| ip.to_canonical()))
                .collect::<Result<_, _>>()
                .map_err(|_| "must be IP addresses, comma-separated (no names, no ranges)")?;
            Ok(())
        },
        show: |o| {
            let list: Vec<String> = o
                .http
                .trusted_proxies
                .iter()
                .map(|a| a.to_string())
                .collect();
            if list.is_empty() {
                "-".into()
            } else {
                list.join(",")
            }
        },
    },
];
