//! gnaw-mcp's limits and the operator's policy for every call, with their defaults. The
//! settings that change them (`GNAW_MCP_*`, or a `--config` file) are applied by the table in
//! [`super::operator`].

use crate::cache::DEFAULT_CACHE_BYTES;
use crate::spec::Policy;

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
    /// Whether this server is a tenant's worker behind `gnaw-mcp --listen`'s front door (not a
    /// setting: the spawner's hand-over says so). Then a request's revision and client come
    /// from the request alone, never from the process's last `initialize`, which may have been
    /// another session's.
    pub forwarded: bool,
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
            forwarded: false,
        }
    }
}
