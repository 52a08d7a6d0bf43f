//! The operator's settings: one table ([`SETTINGS`]) of every `GNAW_MCP_*` variable. Each row
//! is a setting's name, what its value must be, its help, how it is applied and how its value is
//! shown; `gnaw-mcp --help`, the `--config FILE` keys (the variable's name lowercased without
//! `GNAW_MCP_`), the checks of both and `--print-config` all come from it.
//!
//! Sources, strongest first: the environment, then the config file, then the defaults. Values
//! are read once, before anything is confined; a bad value or an unknown key is an error naming
//! where it came from (the variable, or the file and key) and what it must be.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::time::Duration;

use gnaw_sandbox::SandboxMode;

use super::config::{Config, Structured};
use super::http::settings::Settings as HttpSettings;
use super::selection::{OPT_IN, ToolSet};
use crate::gnawconfig::parse_size;
use crate::spec::{RepoMayWiden, Widen};
use crate::vocab::{excerpt, modes::nearest};

/// The prefix of every variable.
pub const PREFIX: &str = "GNAW_MCP_";
/// The largest config file read.
const MAX_CONFIG_FILE: u64 = 1 << 20;

/// Everything the operator set, applied to the defaults.
#[derive(Clone, Debug, Default)]
pub struct Operator {
    /// The stdio server's limits and every call's policy.
    pub config: Config,
    /// The HTTP front door's bounds and options.
    pub http: HttpSettings,
    /// The tools offered.
    pub tools: ToolSet,
    /// The directories served (`None`: the working directory).
    pub roots: Option<Vec<PathBuf>>,
    pub sandbox: SandboxMode,
    /// The address `--listen` serves, when set by a setting.
    pub listen: Option<String>,
    /// The tenants file.
    pub tenants: Option<PathBuf>,
    /// Where the HTTP audit trail goes, when not stderr.
    pub audit_fd: Option<i32>,
    /// The settings the config file gave and the environment did not, as variables: what a
    /// re-executed child of this process (a self-test child, a tenant's worker) needs to see
    /// the same settings without reading the file.
    pub from_file: Vec<(OsString, OsString)>,
}

/// The part of `--help` a setting is listed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Every server, stdio or HTTP.
    Server,
    /// `--listen` only.
    Http,
}

/// How a value is written in a config file, and joined when it is a TOML array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A number (a TOML integer or string).
    Number,
    /// A byte count: a number or a size string such as `"16MiB"`.
    Size,
    /// A word or text (a TOML string).
    Text,
    /// A path (a TOML string; relative to the config file's directory).
    Path,
    /// Paths (a TOML string or array; each relative to the config file's directory), joined as
    /// the variable lists them (`:`).
    Paths,
    /// Names (a TOML string or array), joined with commas.
    List,
}

/// Applies a value to the settings; the error says what the value must be.
type Apply = fn(&OsStr, &mut Operator) -> Result<(), String>;
/// The value a setting has, written as it would be set (`-` when unset).
type Show = fn(&Operator) -> String;

/// One setting.
pub struct Setting {
    /// The name without the prefix, lowercased: the config file's key.
    pub key: &'static str,
    pub group: Group,
    pub kind: Kind,
    /// The help, without the default (which [`Setting::show`] gives).
    pub help: &'static str,
    apply: Apply,
    show: Show,
}

impl Setting {
    /// The environment variable (`GNAW_MCP_` and the key in capitals).
    pub fn var(&self) -> String {
        format!("{PREFIX}{}", self.key.to_ascii_uppercase())
    }

    /// Its value in `operator`.
    pub fn show(&self, operator: &Operator) -> String {
        (self.show)(operator)
    }
}

/// Text of `v`, or an error saying it must be UTF-8.
fn utf8(v: &OsStr) -> Result<&str, String> {
    v.to_str()
        .map(str::trim)
        .ok_or_else(|| "must be text (UTF-8)".to_string())
}

fn positive(v: &OsStr) -> Result<usize, String> {
    utf8(v)?
        .parse()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| "must be a positive number".to_string())
}

fn bytes(v: &OsStr, what: &str) -> Result<u64, String> {
    parse_size(utf8(v)?).ok_or_else(|| what.to_string())
}

/// A byte count as it is best written: in MiB or KiB when it is a whole number of them.
fn show_size(n: u64) -> String {
    match n {
        0 => "0".into(),
        n if n % (1 << 20) == 0 => format!("{}MiB", n >> 20),
        n if n % (1 << 10) == 0 => format!("{}KiB", n >> 10),
        n => n.to_string(),
    }
}

/// The default tool selection, as a selection that reads back to it: every tool but the
/// opt-in ones (`all,-hotspots,-overview`).
fn default_tools() -> String {
    std::iter::once("all".to_string())
        .chain(OPT_IN.iter().map(|t| format!("-{t}")))
        .collect::<Vec<_>>()
        .join(",")
}

fn millis(d: Duration) -> String {
    d.as_millis().to_string()
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
    Setting {
        key: "max_line_bytes",
        group: Group::Server,
        kind: Kind::Number,
        help: "longest accepted request line (over HTTP: request body)",
        apply: |v, o| {
            o.config.max_line_bytes = positive(v)?;
            Ok(())
        },
        show: |o| o.config.max_line_bytes.to_string(),
    },
    Setting {
        key: "max_output_bytes",
        group: Group::Server,
        kind: Kind::Number,
        help: "largest prompt extract returns",
        apply: |v, o| {
            o.config.max_output_bytes = positive(v)?;
            Ok(())
        },
        show: |o| o.config.max_output_bytes.to_string(),
    },
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
    Setting {
        key: "default_max_chars",
        group: Group::Server,
        kind: Kind::Number,
        help: "most characters of an answer when the call sets neither budget nor max_chars \
               (text and structured copy together)",
        apply: |v, o| {
            o.config.default_max_chars = positive(v)?;
            Ok(())
        },
        show: |o| o.config.default_max_chars.to_string(),
    },
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
    Setting {
        key: "max_queued_calls",
        group: Group::Server,
        kind: Kind::Number,
        help: "most tools/call requests waiting for the worker",
        apply: |v, o| {
            o.config.max_queued_calls = positive(v)?;
            Ok(())
        },
        show: |o| o.config.max_queued_calls.to_string(),
    },
    Setting {
        key: "max_queued_bytes",
        group: Group::Server,
        kind: Kind::Number,
        help: "most bytes of waiting tools/call requests",
        apply: |v, o| {
            o.config.max_queued_bytes = positive(v)?;
            Ok(())
        },
        show: |o| o.config.max_queued_bytes.to_string(),
    },
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
    Setting {
        key: "max_header_bytes",
        group: Group::Http,
        kind: Kind::Number,
        help: "largest request head; the body's bound is GNAW_MCP_MAX_LINE_BYTES",
        apply: |v, o| {
            o.http.max_header_bytes = positive(v)?;
            Ok(())
        },
        show: |o| o.http.max_header_bytes.to_string(),
    },
    Setting {
        key: "header_timeout_ms",
        group: Group::Http,
        kind: Kind::Number,
        help: "time to send a request once begun",
        apply: |v, o| {
            o.http.header_timeout = Duration::from_millis(positive(v)? as u64);
            Ok(())
        },
        show: |o| millis(o.http.header_timeout),
    },
    Setting {
        key: "idle_timeout_ms",
        group: Group::Http,
        kind: Kind::Number,
        help: "an idle keep-alive connection is closed after",
        apply: |v, o| {
            o.http.idle_timeout = Duration::from_millis(positive(v)? as u64);
            Ok(())
        },
        show: |o| millis(o.http.idle_timeout),
    },
    Setting {
        key: "max_connections_per_client",
        group: Group::Http,
        kind: Kind::Number,
        help: "open connections per client address",
        apply: |v, o| {
            o.http.max_connections_per_client = positive(v)?;
            Ok(())
        },
        show: |o| o.http.max_connections_per_client.to_string(),
    },
    Setting {
        key: "max_connections",
        group: Group::Http,
        kind: Kind::Number,
        help: "open connections in all",
        apply: |v, o| {
            o.http.max_connections = positive(v)?;
            Ok(())
        },
        show: |o| o.http.max_connections.to_string(),
    },
    Setting {
        key: "max_sessions_per_tenant",
        group: Group::Http,
        kind: Kind::Number,
        help: "open legacy sessions per tenant",
        apply: |v, o| {
            o.http.max_sessions_per_tenant = positive(v)?;
            Ok(())
        },
        show: |o| o.http.max_sessions_per_tenant.to_string(),
    },
    Setting {
        key: "session_idle_secs",
        group: Group::Http,
        kind: Kind::Number,
        help: "a session unused this long ends",
        apply: |v, o| {
            o.http.session_idle = Duration::from_secs(positive(v)? as u64);
            Ok(())
        },
        show: |o| o.http.session_idle.as_secs().to_string(),
    },
    Setting {
        key: "max_calls_per_tenant",
        group: Group::Http,
        kind: Kind::Number,
        help: "requests waiting or running per tenant",
        apply: |v, o| {
            o.http.max_calls_per_tenant = positive(v)?;
            Ok(())
        },
        show: |o| o.http.max_calls_per_tenant.to_string(),
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

/// The setting whose variable is `var`.
pub fn by_var(var: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.var() == var)
}

/// The setting whose config-file key is `key`.
pub fn by_key(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.key == key)
}

impl Operator {
    /// The settings from the environment (`var` reads a variable) over the config file at
    /// `file`, when given, over the defaults.
    pub fn load(
        file: Option<&Path>,
        var: impl Fn(&str) -> Option<OsString>,
    ) -> Result<Operator, String> {
        let file = match file {
            Some(path) => Some((path, read_file(path)?)),
            None => None,
        };
        Operator::resolve(file, var)
    }

    /// The settings of this process: its environment over `file`.
    pub fn from_process(file: Option<&Path>) -> Result<Operator, String> {
        Operator::load(file, |name| std::env::var_os(name))
    }

    /// [`Operator::load`] with the file already read ([`parse_file`]).
    pub fn resolve(
        file: Option<(&Path, BTreeMap<&'static str, OsString>)>,
        var: impl Fn(&str) -> Option<OsString>,
    ) -> Result<Operator, String> {
        let mut operator = Operator::default();
        for setting in SETTINGS {
            let name = setting.var();
            if let Some(value) = var(&name) {
                (setting.apply)(&value, &mut operator).map_err(|why| {
                    format!(
                        "{name}: {why}; got \"{}\" (unset it to use the default, {})",
                        excerpt(&value.to_string_lossy()),
                        setting.show(&Operator::default())
                    )
                })?;
            } else if let Some((path, value)) = file
                .as_ref()
                .and_then(|(path, values)| Some((path, values.get(setting.key)?)))
            {
                (setting.apply)(value, &mut operator).map_err(|why| {
                    format!(
                        "{}: `{}` {why}; got \"{}\"",
                        path.display(),
                        setting.key,
                        excerpt(&value.to_string_lossy())
                    )
                })?;
                operator.from_file.push((name.into(), value.clone()));
            }
        }
        operator.http.max_body_bytes = operator.config.max_line_bytes;
        Ok(operator)
    }

    /// Every setting's value, as a config file would set it (`--print-config`).
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        for setting in SETTINGS {
            let value = setting.show(self);
            let unset = value == "-" || (setting.key == "root" && self.roots.is_none());
            let line = match setting.kind {
                Kind::Number if !unset => format!("{} = {value}", setting.key),
                _ => format!("{} = {}", setting.key, toml_string(&value)),
            };
            if unset {
                out.push_str(&format!("# {} (unset)\n", setting.key));
            } else {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }
}

/// `s` as a TOML basic string.
fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// Read the config file: a TOML table of settings by key, each value as its variable would
/// hold it. Relative paths are taken from the file's directory.
#[allow(clippy::disallowed_methods)] // the operator's own file, read once before confining
fn read_file(path: &Path) -> Result<BTreeMap<&'static str, OsString>, String> {
    use std::io::Read;
    let shown = path.display();
    let file =
        std::fs::File::open(path).map_err(|e| format!("--config: cannot open {shown}: {e}"))?;
    let mut text = String::new();
    file.take(MAX_CONFIG_FILE + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("--config: cannot read {shown}: {e}"))?;
    if text.len() as u64 > MAX_CONFIG_FILE {
        return Err(format!(
            "--config: {shown} is larger than {MAX_CONFIG_FILE} bytes"
        ));
    }
    // Absolute, so that what --print-config shows means the same read from anywhere.
    let base = std::path::absolute(path.parent().unwrap_or(Path::new(".")))
        .map_err(|e| format!("--config: cannot resolve {shown}: {e}"))?;
    parse_file(&text, &base).map_err(|e| format!("{shown}: {e}"))
}

/// The settings of a config file's `text`; relative paths are joined to `base`.
pub fn parse_file(text: &str, base: &Path) -> Result<BTreeMap<&'static str, OsString>, String> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let at = e
            .span()
            .map(|s| {
                let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                format!(" at line {line}")
            })
            .unwrap_or_default();
        format!("not valid TOML{at}: {}", e.message())
    })?;
    let keys: Vec<&str> = SETTINGS.iter().map(|s| s.key).collect();
    let mut out = BTreeMap::new();
    for (key, value) in &table {
        let Some(setting) = by_key(key) else {
            let hint = if key.to_ascii_uppercase().starts_with(PREFIX) {
                format!(
                    "; keys are the variables' names lowercased without {PREFIX}, so `{}`",
                    key[PREFIX.len()..].to_ascii_lowercase()
                )
            } else {
                nearest(key, &keys)
                    .map(|k| format!("; did you mean `{k}`?"))
                    .unwrap_or_default()
            };
            return Err(format!(
                "unknown key `{}`{hint} (valid keys: {})",
                excerpt(key),
                keys.join(", ")
            ));
        };
        out.insert(setting.key, file_value(setting, value, base)?);
    }
    Ok(out)
}

/// A config file's `value` for `setting`, as its variable would hold it.
fn file_value(setting: &Setting, value: &toml::Value, base: &Path) -> Result<OsString, String> {
    let key = setting.key;
    let wrong = |want: &str| {
        format!(
            "`{key}` must be {want}; got {} {}",
            value.type_str(),
            excerpt(&value.to_string())
        )
    };
    let path = |s: &str| -> PathBuf {
        let p = Path::new(s);
        if p.is_absolute() {
            p.into()
        } else {
            base.join(p)
        }
    };
    let strings = |v: &toml::Value| -> Option<Vec<String>> {
        match v {
            toml::Value::String(s) => Some(vec![s.clone()]),
            toml::Value::Array(items) => items
                .iter()
                .map(|i| i.as_str().map(str::to_owned))
                .collect(),
            _ => None,
        }
    };
    Ok(match (setting.kind, value) {
        (Kind::Number | Kind::Size, toml::Value::Integer(n)) => n.to_string().into(),
        (Kind::Number | Kind::Size | Kind::Text, toml::Value::String(s)) => s.into(),
        (Kind::Number, _) => return Err(wrong("a number")),
        (Kind::Size, _) => return Err(wrong("a byte count such as 16777216 or \"16MiB\"")),
        (Kind::Text, _) => return Err(wrong("a string")),
        (Kind::Path, toml::Value::String(s)) => path(s).into_os_string(),
        (Kind::Path, _) => return Err(wrong("a path (a string)")),
        (Kind::Paths, v) => {
            let list = strings(v).ok_or_else(|| wrong("a path or a list of paths"))?;
            std::env::join_paths(list.iter().map(|s| path(s)))
                .map_err(|e| format!("`{key}`: {e}"))?
        }
        (Kind::List, v) => strings(v)
            .ok_or_else(|| wrong("a string or a list of strings"))?
            .join(",")
            .into(),
    })
}

/// The "Environment" part of `--help`, from [`SETTINGS`] with their defaults.
pub fn help() -> String {
    let defaults = Operator::default();
    let mut out = String::new();
    let mut group = None;
    for setting in SETTINGS {
        if group != Some(setting.group) {
            group = Some(setting.group);
            out.push_str(match setting.group {
                Group::Server => {
                    "Settings: environment variables, or in a --config file the same names\n\
                     lowercased without GNAW_MCP_ (a variable that is set wins over the file):\n"
                }
                Group::Http => "\nWith --listen (HTTP; see docs/mcp.md, section HTTP):\n",
            });
        }
        let mut text = setting.help.to_string();
        if setting.key == "repo_may_widen" {
            for w in Widen::GRANTABLE {
                text.push_str(&format!(" {}: {};", w.name(), w.effect()));
            }
            text.pop();
        }
        match setting.show(&defaults).as_str() {
            "-" => text.push_str(" (default: unset)"),
            shown => text.push_str(&format!(" (default: {shown})")),
        }
        out.push_str(&wrapped(&setting.var(), &text));
    }
    out.push_str(&wrapped(
        "RUST_LOG",
        "log filter; logs go to stderr (default: info)",
    ));
    out
}

/// `name` in a column, then `text` wrapped at 100 columns beside it.
fn wrapped(name: &str, text: &str) -> String {
    const INDENT: usize = 38;
    const WIDTH: usize = 100;
    let mut out = format!("  {name}");
    let mut col = out.len();
    if col + 1 >= INDENT {
        out.push('\n');
        col = 0;
    }
    out.push_str(&" ".repeat(INDENT - col));
    col = INDENT;
    for word in text.split_whitespace() {
        if col > INDENT && col + 1 + word.len() > WIDTH {
            out.push('\n');
            out.push_str(&" ".repeat(INDENT));
            col = INDENT;
        } else if col > INDENT {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += word.len();
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn load(env: &[(&str, &str)], file: Option<&str>) -> Result<Operator, String> {
        let env: HashMap<String, OsString> = env
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        let dir = std::env::temp_dir();
        let file = match file {
            Some(text) => Some((dir.as_path(), parse_file(text, &dir)?)),
            None => None,
        };
        Operator::resolve(file, |name| env.get(name).cloned())
    }

    #[test]
    fn every_variable_has_one_row_and_a_unique_key() {
        let mut keys: Vec<&str> = SETTINGS.iter().map(|s| s.key).collect();
        keys.sort_unstable();
        let n = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), n, "a key is listed twice");
        for s in SETTINGS {
            assert_eq!(s.key, s.key.to_ascii_lowercase());
            assert!(by_var(&s.var()).is_some());
        }
    }

    #[test]
    fn the_defaults_apply_back_to_themselves() {
        // What --help shows as a default is a value the setting accepts, and it means the
        // default: applying it changes nothing that is shown.
        let defaults = Operator::default();
        for s in SETTINGS {
            let shown = s.show(&defaults);
            if shown == "-" || s.key == "root" {
                continue;
            }
            let mut o = Operator::default();
            (s.apply)(OsStr::new(&shown), &mut o).unwrap_or_else(|e| panic!("{}: {e}", s.key));
            assert_eq!(s.show(&o), shown, "{}", s.key);
        }
    }

    #[test]
    fn the_environment_wins_over_the_file() {
        let o = load(
            &[("GNAW_MCP_MAX_DEPTH", "7")],
            Some("max_depth = 9\ndefault_max_chars = 1234\n"),
        )
        .unwrap();
        assert_eq!(o.config.policy.max_depth, 7);
        assert_eq!(o.config.default_max_chars, 1234);
    }

    #[test]
    fn file_values_take_toml_types() {
        let o = load(
            &[],
            Some(
                "tools = [\"read\", \"grep\"]\ncache_bytes = \"8MiB\"\n\
                 allowed_origins = [\"https://a.example\", \"https://b.example/\"]\n\
                 root = [\"/srv/a\", \"rel\"]\nsecrets_floor = \"redact\"\naudit_fd = 3\n",
            ),
        )
        .unwrap();
        assert_eq!(o.tools.names(), vec!["grep", "read"]);
        assert_eq!(o.config.cache_bytes, 8 << 20);
        assert_eq!(
            o.http.allowed_origins,
            vec!["https://a.example", "https://b.example"]
        );
        let roots = o.roots.unwrap();
        assert_eq!(roots[0], PathBuf::from("/srv/a"));
        assert_eq!(roots[1], std::env::temp_dir().join("rel"));
        assert_eq!(o.audit_fd, Some(3));
    }

    #[test]
    fn unknown_keys_name_the_nearest() {
        let e = parse_file("max_dept = 3\n", Path::new("/")).unwrap_err();
        assert!(e.contains("unknown key `max_dept`"), "{e}");
        assert!(e.contains("did you mean `max_depth`?"), "{e}");
        let e = parse_file("GNAW_MCP_TOOLS = \"read\"\n", Path::new("/")).unwrap_err();
        assert!(e.contains("so `tools`"), "{e}");
    }

    #[test]
    fn bad_values_say_what_they_must_be() {
        let e = parse_file("max_depth = \"deep\"\n", Path::new("/"))
            .and_then(|m| {
                let mut o = Operator::default();
                (by_key("max_depth").unwrap().apply)(&m["max_depth"], &mut o)
            })
            .unwrap_err();
        assert!(e.contains("positive number of directory levels"), "{e}");
        let e = parse_file("max_depth = true\n", Path::new("/")).unwrap_err();
        assert!(
            e.contains("`max_depth` must be a number; got boolean"),
            "{e}"
        );
        let e = parse_file("max_depth = \n", Path::new("/")).unwrap_err();
        assert!(e.contains("not valid TOML at line 1"), "{e}");
    }

    #[test]
    fn help_lists_every_variable_with_its_default() {
        let h = help();
        for s in SETTINGS {
            assert!(h.contains(&s.var()), "{}", s.var());
        }
        let flat = h.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains(
                "GNAW_MCP_MAX_DEPTH deepest directory level walked, below the repo (default: 256)"
            ),
            "{h}"
        );
        assert!(
            flat.contains("follow_links: symbolic links are followed"),
            "{h}"
        );
        assert!(h.lines().all(|l| l.chars().count() <= 100), "{h}");
    }

    #[test]
    fn a_public_url_is_an_origin_as_browsers_write_it() {
        let o = load(
            &[("GNAW_MCP_PUBLIC_URL", "https://mcp.example.com:443/")],
            None,
        )
        .unwrap();
        assert_eq!(
            o.http.public_url.as_deref(),
            Some("https://mcp.example.com")
        );
        let o = load(&[("GNAW_MCP_PUBLIC_URL", "http://h:8080")], None).unwrap();
        assert_eq!(o.http.public_url.as_deref(), Some("http://h:8080"));
        let e = load(&[("GNAW_MCP_PUBLIC_URL", "https://h/mcp")], None).unwrap_err();
        assert!(e.contains("a path prefix is not supported"), "{e}");
        let o = load(
            &[("GNAW_MCP_TRUSTED_PROXIES", "::ffff:127.0.0.1, ::1")],
            None,
        )
        .unwrap();
        assert_eq!(o.http.trusted_proxies[0].to_string(), "127.0.0.1");
    }

    #[test]
    fn print_config_round_trips() {
        // The defaults, and settings changed: the printed file read back serves the same.
        for env in [&[][..], &[("GNAW_MCP_TOOLS", "minimal,log")][..]] {
            let o = load(env, None).unwrap();
            let text = o.to_toml();
            let back = load(&[], Some(&text)).unwrap();
            for s in SETTINGS {
                assert_eq!(s.show(&back), s.show(&o), "{}", s.key);
            }
            assert_eq!(back.tools.names(), o.tools.names(), "{text}");
        }
    }
}
