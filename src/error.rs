//! Errors a run can end with. Each variant carries what it is about (the key, the glob, the path)
//! as fields, so a front end can name the kind ([`Error::kind`]) and the CLI its exit code
//! ([`Error::exit_code`]); the message says what went wrong and what to do about it.

use crate::vocab::{ErrorKind, excerpt};
use std::fmt;

/// A `.gnawconfig` problem: the key to blame, when there is one, and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The full key (`secrets.mode`, `profiles.x.budget`), or `None` for the file as a whole.
    pub key: Option<String>,
    /// What is wrong, and what to do about it.
    pub message: String,
}

impl ConfigError {
    /// An error about `key`.
    pub fn key(key: &str, message: String) -> ConfigError {
        ConfigError {
            key: Some(key.to_string()),
            message,
        }
    }

    /// An error about the file as a whole.
    pub fn file(message: String) -> ConfigError {
        ConfigError { key: None, message }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// Why a run failed.
#[derive(Debug)]
pub enum Error {
    /// `.gnawconfig` is invalid (exit 2).
    Config(ConfigError),
    /// Options that cannot work together, such as a budget without counting (exit 2).
    Usage {
        /// What cannot work together, and what to do instead.
        message: String,
    },
    /// A glob cannot be used: where it came from (`include`, `secrets.allow_paths`, ...), the
    /// pattern, and why (exit 2).
    Glob {
        /// Where the glob came from (`include`, `secrets.allow_paths`, ...).
        source: String,
        /// The glob as given.
        pattern: String,
        /// Why it cannot be used.
        why: String,
    },
    /// A path from the explicit path list (stdin) escapes the repo or is invalid (exit 2).
    PathRejected {
        /// The path as given, escaped for display.
        path: String,
        /// Why it is rejected.
        why: String,
    },
    /// Not even the smallest prompt fits the token budget (exit 2).
    Budget {
        /// The token budget asked for.
        budget: usize,
        /// Tokens of the smallest prompt: no files, one summary line.
        floor: usize,
        /// Files that would have been in the prompt.
        files: usize,
    },
    /// A navigation answer cannot show even its first item within its limits: the message
    /// names the limit that stopped it, the token budget or the size limit (exit 2).
    TooSmall {
        /// What stopped it: the limit named, and what to do.
        message: String,
    },
    /// The repository directory was moved or replaced while it was being opened (exit 1).
    RepoChanged,
    /// An I/O failure that is not about one file: what was being done, and the OS's words
    /// (exit 1).
    Io {
        /// What was being done.
        what: String,
        /// The operating system's words.
        error: String,
    },
    /// An input is past one of gnaw's bounds, and going on without it would change what is
    /// served: what, and what to do (exit 1).
    Limit {
        /// What is past which bound, and what to do.
        what: String,
    },
    /// The observer asked to stop.
    Cancelled,
}

impl Error {
    /// Exit code for the CLI: 2 for usage or config errors, 1 for runtime failures.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Config(_)
            | Error::Usage { .. }
            | Error::Glob { .. }
            | Error::PathRejected { .. }
            | Error::Budget { .. }
            | Error::TooSmall { .. } => 2,
            Error::RepoChanged | Error::Io { .. } | Error::Limit { .. } | Error::Cancelled => 1,
        }
    }

    /// The kind of failure (MCP's `data.kind`, JSON summaries).
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::Config(_) => ErrorKind::InvalidConfig,
            Error::Usage { .. } => ErrorKind::InvalidArguments,
            Error::Glob { .. } => ErrorKind::InvalidGlob,
            Error::PathRejected { .. } => ErrorKind::PathRejected,
            Error::Budget { .. } | Error::TooSmall { .. } => ErrorKind::BudgetTooSmall,
            Error::RepoChanged => ErrorKind::RepoChanged,
            Error::Io { .. } => ErrorKind::Io,
            Error::Limit { .. } => ErrorKind::LimitExceeded,
            Error::Cancelled => ErrorKind::Cancelled,
        }
    }
}

impl From<ConfigError> for Error {
    fn from(e: ConfigError) -> Error {
        Error::Config(e)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(e) => write!(f, "{e}"),
            Error::Usage { message } => write!(f, "{message}"),
            Error::Glob {
                source,
                pattern,
                why,
            } => write!(
                f,
                "invalid {source} pattern \"{}\": {why}",
                excerpt(pattern)
            ),
            Error::PathRejected { path, why } => write!(
                f,
                "path {} from the path list was rejected: {why}; every listed path must lie inside the repository",
                excerpt(path)
            ),
            Error::Budget {
                budget,
                floor,
                files,
            } => write!(
                f,
                "a budget of {budget} tokens is too small: even the prompt with no files and a \
                 one-line summary of the {files} omitted file(s) needs {floor} tokens; raise the \
                 budget to at least {floor}, or narrow the request with include/exclude"
            ),
            Error::TooSmall { message } => write!(f, "{message}"),
            Error::RepoChanged => write!(
                f,
                "the repository directory was moved or replaced while it was being opened \
                 (a concurrent rename?); nothing was read; try again"
            ),
            Error::Io { what, error } => write!(f, "{what}: {error}"),
            Error::Limit { what } => write!(f, "{what}"),
            Error::Cancelled => write!(f, "the run was cancelled"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Config(e) => Some(e),
            _ => None,
        }
    }
}

impl std::error::Error for ConfigError {}
