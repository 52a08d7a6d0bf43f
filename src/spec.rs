//! What a caller asks the pipeline for: the contained repo, per-call overrides of `.gnawconfig`,
//! an optional explicit path list (the stdin source), and whether the body is wanted at all.

use crate::cache::Cache;
use crate::vocab::{Compress, Encoding, Format, SecretsMode};
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
    /// Which settings of a repo's own `.gnawconfig` that read more than the defaults are
    /// honoured. Those not allowed are refused (the default is left in place) and reported.
    pub repo_may_widen: RepoMayWiden,
    /// Directories more than this many levels below the repo are not walked (reported).
    pub max_depth: usize,
}

impl Policy {
    /// The CLI: secrets are reported (`warn`), hard links are read, and a repo's config is
    /// honoured in full (the user runs gnaw on their own repos; the CLI warns when it widens).
    pub fn cli() -> Policy {
        Policy {
            secrets_default: SecretsMode::Warn,
            secrets_floor: SecretsMode::Off,
            skip_hard_links: false,
            budget_default: None,
            max_file_size_cap: None,
            repo_may_widen: RepoMayWiden::ALL,
            max_depth: crate::limits::DEFAULT_MAX_DEPTH,
        }
    }

    /// gnaw-mcp: secrets are redacted, multiply linked files are skipped, and a repo's config
    /// may narrow what is read but not widen it (`GNAW_MCP_REPO_MAY_WIDEN` changes that).
    pub fn server() -> Policy {
        Policy {
            secrets_default: SecretsMode::Redact,
            secrets_floor: SecretsMode::Off,
            skip_hard_links: true,
            budget_default: Some(20_000),
            max_file_size_cap: Some(SERVER_MAX_FILE_SIZE_CAP),
            repo_may_widen: RepoMayWiden::NONE,
            max_depth: crate::limits::DEFAULT_MAX_DEPTH,
        }
    }
}

impl Default for Policy {
    fn default() -> Self {
        Policy::cli()
    }
}

/// A `.gnawconfig` setting that makes a run read more than it would without it. In gnaw-mcp the
/// repository is as untrusted as the model, so these are the settings its own config may not use
/// unless the operator allows them ([`RepoMayWiden`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Widen {
    /// `secrets.allow_paths`: files matching these globs are not scanned.
    AllowPaths,
    /// `secrets.allow_fingerprints`: these findings are neither reported nor redacted.
    AllowFingerprints,
    /// `include` patterns that bring back sensitive files (`.env`, private keys, credentials).
    SensitiveInclude,
    /// `hidden = true`.
    Hidden,
    /// `no_ignore = true`.
    NoIgnore,
    /// `follow_links = true`.
    FollowLinks,
    /// `secrets` set to a weaker mode than the surface's default (`off` or `warn` where the
    /// default is `redact`): secrets would reach the reader verbatim.
    Secrets,
    /// `max_file_size` above the operator's ceiling ([`Policy::max_file_size_cap`]); never
    /// granted by [`RepoMayWiden`], the ceiling itself is the operator's choice.
    MaxFileSize,
}

impl Widen {
    /// The settings an operator can let a repository use, in `GNAW_MCP_REPO_MAY_WIDEN`'s order.
    pub const GRANTABLE: [Widen; 7] = [
        Widen::AllowPaths,
        Widen::AllowFingerprints,
        Widen::SensitiveInclude,
        Widen::Hidden,
        Widen::NoIgnore,
        Widen::FollowLinks,
        Widen::Secrets,
    ];

    /// The name in `GNAW_MCP_REPO_MAY_WIDEN`.
    pub fn name(self) -> &'static str {
        match self {
            Widen::AllowPaths => "allow_paths",
            Widen::AllowFingerprints => "allow_fingerprints",
            Widen::SensitiveInclude => "sensitive_include",
            Widen::Hidden => "hidden",
            Widen::NoIgnore => "no_ignore",
            Widen::FollowLinks => "follow_links",
            Widen::Secrets => "secrets",
            Widen::MaxFileSize => "max_file_size",
        }
    }

    /// What the setting does, in a few words.
    pub fn effect(self) -> &'static str {
        match self {
            Widen::AllowPaths => "secrets in files matching these globs are not scanned",
            Widen::AllowFingerprints => "these secret findings are not redacted",
            Widen::SensitiveInclude => "sensitive files are brought back",
            Widen::Hidden => "hidden files and directories are read",
            Widen::NoIgnore => {
                "files that .gitignore, .ignore and .git/info/exclude leave out are read"
            }
            Widen::FollowLinks => "symbolic links are followed",
            Widen::Secrets => "secrets are shown verbatim (a weaker secrets mode than the default)",
            Widen::MaxFileSize => "files larger than the operator's ceiling are read",
        }
    }
}

/// Which widening settings ([`Widen`]) a repository's own `.gnawconfig` may use. The CLI
/// allows all of them; gnaw-mcp none, unless its operator lists them in
/// `GNAW_MCP_REPO_MAY_WIDEN`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RepoMayWiden {
    /// `allow_paths` may be set (see [`Widen::AllowPaths`]).
    pub allow_paths: bool,
    /// `allow_fingerprints` may be set (see [`Widen::AllowFingerprints`]).
    pub allow_fingerprints: bool,
    /// `sensitive_include` may be set (see [`Widen::SensitiveInclude`]).
    pub sensitive_include: bool,
    /// `hidden` may be set (see [`Widen::Hidden`]).
    pub hidden: bool,
    /// `no_ignore` may be set (see [`Widen::NoIgnore`]).
    pub no_ignore: bool,
    /// `follow_links` may be set (see [`Widen::FollowLinks`]).
    pub follow_links: bool,
    /// A weaker `secrets` mode may be set (see [`Widen::Secrets`]).
    pub secrets: bool,
}

impl RepoMayWiden {
    /// Every widening setting is honoured.
    pub const ALL: RepoMayWiden = RepoMayWiden {
        allow_paths: true,
        allow_fingerprints: true,
        sensitive_include: true,
        hidden: true,
        no_ignore: true,
        follow_links: true,
        secrets: true,
    };

    /// None is: the repo's config can only narrow.
    pub const NONE: RepoMayWiden = RepoMayWiden {
        allow_paths: false,
        allow_fingerprints: false,
        sensitive_include: false,
        hidden: false,
        no_ignore: false,
        follow_links: false,
        secrets: false,
    };

    /// Whether `w` is honoured. [`Widen::MaxFileSize`] is governed by the ceiling, not here.
    pub fn allows(self, w: Widen) -> bool {
        match w {
            Widen::AllowPaths => self.allow_paths,
            Widen::AllowFingerprints => self.allow_fingerprints,
            Widen::SensitiveInclude => self.sensitive_include,
            Widen::Hidden => self.hidden,
            Widen::NoIgnore => self.no_ignore,
            Widen::FollowLinks => self.follow_links,
            Widen::Secrets => self.secrets,
            Widen::MaxFileSize => false,
        }
    }

    fn slot(&mut self, w: Widen) -> Option<&mut bool> {
        match w {
            Widen::AllowPaths => Some(&mut self.allow_paths),
            Widen::AllowFingerprints => Some(&mut self.allow_fingerprints),
            Widen::SensitiveInclude => Some(&mut self.sensitive_include),
            Widen::Hidden => Some(&mut self.hidden),
            Widen::NoIgnore => Some(&mut self.no_ignore),
            Widen::FollowLinks => Some(&mut self.follow_links),
            Widen::Secrets => Some(&mut self.secrets),
            Widen::MaxFileSize => None,
        }
    }

    /// Parse a list of setting names separated by commas or spaces (`hidden, no_ignore`), or
    /// `all`, or `none` (an empty list is `none`). The error names the word it did not know.
    pub fn parse(list: &str) -> Result<RepoMayWiden, String> {
        let mut set = RepoMayWiden::NONE;
        for word in list
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|w| !w.is_empty())
        {
            match word {
                "all" => set = RepoMayWiden::ALL,
                "none" => {}
                _ => {
                    let w = Widen::GRANTABLE
                        .into_iter()
                        .find(|w| w.name() == word)
                        .ok_or_else(|| format!("unknown setting `{word}`"))?;
                    if let Some(slot) = set.slot(w) {
                        *slot = true;
                    }
                }
            }
        }
        Ok(set)
    }

    /// The names of the allowed settings, in [`Widen::GRANTABLE`] order.
    pub fn names(self) -> Vec<&'static str> {
        Widen::GRANTABLE
            .into_iter()
            .filter(|w| self.allows(*w))
            .map(Widen::name)
            .collect()
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
    /// Globs of files to include, added to the config's.
    pub include: Vec<String>,
    /// Globs of files to exclude, added to the config's.
    pub exclude: Vec<String>,
    /// The prompt's format, replacing the config's.
    pub format: Option<Format>,
    /// The token encoding, replacing the config's.
    pub encoding: Option<Encoding>,
    /// Number each line of a file's contents.
    pub line_numbers: Option<bool>,
    /// Read hidden files and directories.
    pub hidden: Option<bool>,
    /// Read files that `.gitignore`, `.ignore` and `.git/info/exclude` leave out.
    pub no_ignore: Option<bool>,
    /// Follow symbolic links.
    pub follow_links: Option<bool>,
    /// The largest file read, in bytes; larger ones are skipped.
    pub max_file_size: Option<u64>,
    /// Show the directory tree before the files.
    pub tree: Option<bool>,
    /// What to do with secrets found in the files.
    pub secrets: Option<SecretsMode>,
    /// Token budget; `Some(0)` means unlimited.
    pub budget: Option<usize>,
    /// Most characters in the prompt (`--max-chars`, `max_chars`): the budget is lowered until
    /// the prompt fits; `None` or `Some(0)`: no limit.
    pub max_chars: Option<usize>,
    /// Count `max_chars` as the prompt takes written as a JSON string (`--max-chars-json`; the
    /// MCP server's way: what its client receives), not as its plain characters.
    pub max_chars_json: bool,
    /// Rank files by relevance to this text (BM25 over code-aware terms).
    pub query: Option<String>,
    /// Show files as skeletons at this level (`--compress[=LEVEL]`): signatures and
    /// declarations, with bodies elided, and comments as the level keeps them. With a budget,
    /// files are shown in full while they fit, then as skeletons, then omitted (the graded
    /// budget). `None`: files are shown whole.
    pub compress: Option<Compress>,
    /// Apply `[profiles.NAME]` from `.gnawconfig`.
    pub profile: Option<String>,
    /// The explicit path list is git's list of changed files (`--changed`, `changed`): a path
    /// of it that leads outside the repository through a symbolic link is skipped and listed,
    /// where a caller's list (`--stdin`) is rejected whole.
    pub paths_from_git: bool,
}

/// Receives progress and answers whether the run should stop. Called from worker threads.
pub trait Observer: Sync {
    /// `done` of `total` files have been read and counted.
    fn progress(&self, _done: usize, _total: usize) {}
    /// Return true to abandon the run; it then ends with [`crate::Error::Cancelled`].
    fn cancelled(&self) -> bool {
        false
    }
    /// Take `work` the run leaves for later, to be done while no call waits (gnaw-mcp's worker
    /// does; by default it is dropped, as the CLI, which exits after one run, does).
    fn leave(&self, _work: IdleWork) {}
}

/// Work a call leaves for the server's idle time: what saves a later call from doing it (such
/// as parsing the outlines a search will want). It reads no file and answers no one; it only
/// fills the warm cache, within the cache's own byte bound and its own parse budget.
///
/// It owns nothing sizeable while it waits: what it works on, it finds in the cache (or through
/// a weak reference to what the cache keeps) at each slice, and it ends quietly once the cache
/// has let that go. So work waiting for idle time never holds memory outside the cache's bound
/// (`GNAW_MCP_CACHE_BYTES`).
pub struct IdleWork {
    /// What it is about: work left under the same key replaces the earlier one.
    pub key: u128,
    /// One slice of it, in `cache`: does some of the work, returning soon after `waiting`
    /// says a call waits, and says whether all of it is done.
    pub slice: Box<IdleSlice>,
}

/// One slice of [`IdleWork`]: given the cache and whether a call waits, whether all is done.
pub type IdleSlice = dyn FnMut(&Cache, &dyn Fn() -> bool) -> bool + Send;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_may_widen_parses_lists_all_and_none() {
        assert_eq!(RepoMayWiden::parse("").unwrap(), RepoMayWiden::NONE);
        assert_eq!(RepoMayWiden::parse(" none ").unwrap(), RepoMayWiden::NONE);
        assert_eq!(RepoMayWiden::parse("all").unwrap(), RepoMayWiden::ALL);
        let set = RepoMayWiden::parse("hidden, no_ignore follow_links").unwrap();
        assert_eq!(set.names(), ["hidden", "no_ignore", "follow_links"]);
        assert!(!set.allows(Widen::AllowPaths));
        let err = RepoMayWiden::parse("hidden,max_file_size").unwrap_err();
        assert!(err.contains("`max_file_size`"), "{err}");
        assert_eq!(
            RepoMayWiden::ALL.names().len(),
            Widen::GRANTABLE.len(),
            "every grantable setting has a field"
        );
    }
}
