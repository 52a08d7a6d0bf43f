//! gnaw-mcp's configuration: the limits and the operator's policy, read once from the
//! environment at startup (`GNAW_MCP_*`). `gnaw-mcp --help` lists every variable.

use crate::cache::DEFAULT_CACHE_BYTES;
use crate::config::parse_size;
use crate::spec::{Policy, RepoMayWiden, Widen};

/// The default most characters of an answer (see [`Config::default_max_chars`]).
pub const DEFAULT_MAX_CHARS: usize = 50_000;

/// Whether answers carry `structuredContent` (and definitions `outputSchema`) for a client whose
/// revision has them (`GNAW_MCP_STRUCTURED`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Structured {
    /// For every client whose revision has them, except clients known to show the model only
    /// the structured copy when both are sent (see [`crate::mcp::tool::drops_text`]).
    #[default]
    Auto,
    /// For every client whose revision has them.
    On,
    /// Never: every answer is its text only.
    Off,
}

/// Limits, from the environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Longest accepted input line (`GNAW_MCP_MAX_LINE_BYTES`).
    pub max_line_bytes: usize,
    /// Largest prompt `extract` returns (`GNAW_MCP_MAX_OUTPUT_BYTES`).
    pub max_output_bytes: usize,
    /// Most characters of an answer whose call sets neither `budget` nor `max_chars`
    /// (`GNAW_MCP_DEFAULT_MAX_CHARS`): 50,000, the size above which Claude Code saves a result
    /// to a file instead of showing it.
    pub default_max_chars: usize,
    /// Whether answers carry a structured copy (`GNAW_MCP_STRUCTURED`: auto, on or off).
    pub structured: Structured,
    /// Bytes the warm cache may hold (`GNAW_MCP_CACHE_BYTES`; 0 turns it off).
    pub cache_bytes: usize,
    /// Most `tools/call`s waiting for the worker (`GNAW_MCP_MAX_QUEUED_CALLS`).
    pub max_queued_calls: usize,
    /// Most bytes of waiting `tools/call` requests (`GNAW_MCP_MAX_QUEUED_BYTES`).
    pub max_queued_bytes: usize,
    /// Defaults and floors for every call: `GNAW_MCP_DEFAULT_BUDGET`, `GNAW_MCP_MAX_FILE_SIZE`,
    /// `GNAW_MCP_MAX_DEPTH`, `GNAW_MCP_HARD_LINKS`, `GNAW_MCP_SECRETS_FLOOR` and
    /// `GNAW_MCP_REPO_MAY_WIDEN` on top of [`Policy::server`].
    pub policy: Policy,
}

impl Default for Config {
    /// 4 MiB for lines and output. A line holds one request, and requests are a few hundred
    /// bytes, so 4 MiB is generous without letting a client make us hold an unbounded line. For
    /// output, about 4 bytes of source make one token, so 4 MiB is roughly one million tokens:
    /// as much as the largest context windows take. The queue holds at most 64 calls and 64 MiB
    /// of request lines: a client that sends faster than calls finish is told to retry instead
    /// of growing the server's memory.
    fn default() -> Config {
        Config {
            max_line_bytes: 4 << 20,
            max_output_bytes: 4 << 20,
            default_max_chars: DEFAULT_MAX_CHARS,
            structured: Structured::Auto,
            cache_bytes: DEFAULT_CACHE_BYTES,
            max_queued_calls: 64,
            max_queued_bytes: 64 << 20,
            policy: Policy::server(),
        }
    }
}

impl Config {
    /// Read every `GNAW_MCP_*` setting; an invalid value is an error naming the variable.
    pub fn from_env() -> Result<Config, String> {
        let mut config = Config::default();
        for (name, slot) in [
            ("GNAW_MCP_MAX_LINE_BYTES", &mut config.max_line_bytes),
            ("GNAW_MCP_MAX_OUTPUT_BYTES", &mut config.max_output_bytes),
            ("GNAW_MCP_DEFAULT_MAX_CHARS", &mut config.default_max_chars),
            ("GNAW_MCP_MAX_QUEUED_CALLS", &mut config.max_queued_calls),
            ("GNAW_MCP_MAX_QUEUED_BYTES", &mut config.max_queued_bytes),
        ] {
            *slot = positive(name, "a positive number", *slot)?;
        }
        let cache = "a byte count such as 268435456 or \"256MiB\" (0 turns the cache off)";
        if let Some(bytes) = setting("GNAW_MCP_CACHE_BYTES", cache, |s| {
            parse_size(s).and_then(|n| usize::try_from(n).ok())
        })? {
            config.cache_bytes = bytes;
        }
        if let Some(mode) = setting("GNAW_MCP_STRUCTURED", "auto, on or off", |s| match s {
            "auto" => Some(Structured::Auto),
            "on" => Some(Structured::On),
            "off" => Some(Structured::Off),
            _ => None,
        })? {
            config.structured = mode;
        }
        let tokens = "a token count (0 for unlimited)";
        if let Some(budget) = setting("GNAW_MCP_DEFAULT_BUDGET", tokens, |s| s.parse().ok())? {
            config.policy.budget_default = (budget > 0).then_some(budget);
        }
        let bytes = "a byte count such as 16777216 or \"16MiB\"";
        if let Some(cap) = setting("GNAW_MCP_MAX_FILE_SIZE", bytes, |s| {
            parse_size(s).filter(|&n| n > 0)
        })? {
            config.policy.max_file_size_cap = Some(cap);
        }
        let depth = &mut config.policy.max_depth;
        *depth = positive(
            "GNAW_MCP_MAX_DEPTH",
            "a positive number of directory levels",
            *depth,
        )?;
        let links = "skip (the default: files with more than one hard link are left out, since \
                     they may be links to files outside the root) or read";
        if let Some(skip) = setting("GNAW_MCP_HARD_LINKS", links, |s| match s {
            "skip" => Some(true),
            "read" => Some(false),
            _ => None,
        })? {
            config.policy.skip_hard_links = skip;
        }
        let modes = "off, warn, redact or block";
        if let Some(floor) = setting("GNAW_MCP_SECRETS_FLOOR", modes, |s| s.parse().ok())? {
            config.policy.secrets_floor = floor;
        }
        if let Some(raw) = std::env::var_os("GNAW_MCP_REPO_MAY_WIDEN") {
            let names: Vec<&str> = Widen::GRANTABLE.iter().map(|w| w.name()).collect();
            config.policy.repo_may_widen = raw
                .to_str()
                .ok_or_else(|| "not UTF-8".to_string())
                .and_then(RepoMayWiden::parse)
                .map_err(|e| {
                    format!(
                        "GNAW_MCP_REPO_MAY_WIDEN: {e}; expected a comma-separated list of the \
                         .gnawconfig settings a repository may use to read more ({}), or all, \
                         or none (the default); got {raw:?}",
                        names.join(", ")
                    )
                })?;
        }
        Ok(config)
    }
}

/// The setting `name` from the environment, when it is set: its text, trimmed, as `read` reads
/// it; a value `read` refuses is an error saying what the setting must be (`what`) and what it
/// got.
fn setting<T>(
    name: &str,
    what: &str,
    read: impl FnOnce(&str) -> Option<T>,
) -> Result<Option<T>, String> {
    let Some(raw) = std::env::var_os(name) else {
        return Ok(None);
    };
    match raw.to_str().map(str::trim).and_then(read) {
        Some(value) => Ok(Some(value)),
        None => Err(format!("{name} must be {what}, got {raw:?}")),
    }
}

/// The positive number `name` from the environment, or `default` when it is not set.
fn positive(name: &str, what: &str, default: usize) -> Result<usize, String> {
    let read = |s: &str| s.parse().ok().filter(|&n| n > 0);
    let value = setting(name, what, read)
        .map_err(|e| format!("{e}; unset it to use the default ({default})"))?;
    Ok(value.unwrap_or(default))
}
