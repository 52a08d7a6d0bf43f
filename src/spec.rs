//! What a caller asks the pipeline for: the contained repo, per-call overrides of `.gnawconfig`,
//! an optional explicit path list (the stdin source), and whether the body is wanted at all.

use crate::cache::Cache;
use crate::vocab::{Encoding, Format, SecretsMode};
use gnaw_sandbox::ContainedDir;

/// One extraction request. Built by the CLI from its flags and by gnaw-mcp from tool arguments;
/// the same spec gives the same bytes whichever built it.
pub struct ExtractionSpec<'a> {
    /// The repository, already proven to be a directory (under the server's root in MCP mode).
    pub repo: ContainedDir,
    /// Overrides layered on top of the repo's `.gnawconfig`.
    pub overrides: Overrides,
    /// Explicit paths (raw bytes, relative to the repo or absolute) instead of walking the repo.
    /// Every one must resolve inside the repo or the whole run is rejected.
    pub paths: Option<Vec<Vec<u8>>>,
    /// Whether to build the prompt body or only count it.
    pub mode: Mode,
    /// Progress reports and cancellation, for long runs.
    pub observer: Option<&'a dyn Observer>,
    /// The surface's defaults and the operator's floors ([`Policy::cli`] or [`Policy::server`]).
    pub policy: Policy,
    /// gnaw-mcp's warm cache of read outcomes and token counts; `None` in the CLI.
    pub cache: Option<&'a Cache>,
}

/// gnaw-mcp's default ceiling on `max_file_size` (`GNAW_MCP_MAX_FILE_SIZE` changes it).
pub const SERVER_MAX_FILE_SIZE_CAP: u64 = 16 << 20;

/// What differs between the CLI and the server: defaults below `.gnawconfig`, and floors that
/// neither `.gnawconfig` nor a tool argument can lower.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Secrets mode when neither `.gnawconfig` nor an override sets one.
    pub secrets_default: SecretsMode,
    /// The weakest secrets mode allowed; anything lower is raised to it.
    pub secrets_floor: SecretsMode,
    /// Skip regular files with more than one hard link (they may be links to files outside).
    pub skip_hard_links: bool,
    /// Budget when neither `.gnawconfig` nor an override sets one (`None`: unlimited).
    pub budget_default: Option<usize>,
    /// The largest `max_file_size` a `.gnawconfig` may ask for (`None`: no limit). A repo's own
    /// config must not be able to make the server read arbitrarily large files into memory.
    pub max_file_size_cap: Option<u64>,
    /// Directories more than this many levels below the repo are not walked (reported).
    pub max_depth: usize,
}

impl Policy {
    /// The CLI: secrets are reported (`warn`), hard links are read.
    pub fn cli() -> Policy {
        Policy {
            secrets_default: SecretsMode::Warn,
            secrets_floor: SecretsMode::Off,
            skip_hard_links: false,
            budget_default: None,
            max_file_size_cap: None,
            max_depth: crate::limits::DEFAULT_MAX_DEPTH,
        }
    }

    /// gnaw-mcp: secrets are redacted, and multiply linked files are skipped.
    pub fn server() -> Policy {
        Policy {
            secrets_default: SecretsMode::Redact,
            secrets_floor: SecretsMode::Off,
            skip_hard_links: true,
            budget_default: Some(20_000),
            max_file_size_cap: Some(SERVER_MAX_FILE_SIZE_CAP),
            max_depth: crate::limits::DEFAULT_MAX_DEPTH,
        }
    }
}

impl Default for Policy {
    fn default() -> Self {
        Policy::cli()
    }
}

/// What the caller wants back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Render the prompt and count it.
    Render,
    /// Count the prompt exactly, without keeping its text.
    Estimate,
    /// Render the prompt without counting tokens (the reported count is 0). A budget needs
    /// counts, so it is an error in this mode.
    RenderUncounted,
}

/// Per-run overrides. List fields are *added* to the config's lists; scalar fields replace the
/// config's value when set.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub format: Option<Format>,
    pub encoding: Option<Encoding>,
    pub line_numbers: Option<bool>,
    pub hidden: Option<bool>,
    pub no_ignore: Option<bool>,
    pub follow_links: Option<bool>,
    pub max_file_size: Option<u64>,
    pub tree: Option<bool>,
    pub secrets: Option<SecretsMode>,
    /// Token budget; `Some(0)` means unlimited.
    pub budget: Option<usize>,
    /// Rank files by relevance to this text (BM25 over code-aware terms).
    pub query: Option<String>,
    /// Apply `[profiles.NAME]` from `.gnawconfig`.
    pub profile: Option<String>,
}

/// Receives progress and answers whether the run should stop. Called from worker threads.
pub trait Observer: Sync {
    /// `done` of `total` files have been read and counted.
    fn progress(&self, _done: usize, _total: usize) {}
    /// Return true to abandon the run; it then ends with [`crate::Error::Cancelled`].
    fn cancelled(&self) -> bool {
        false
    }
}
