//! Errors a run can end with, each with the exit code the CLI uses and a message that says what
//! went wrong and what to do about it.

use std::fmt;

/// Why a run failed.
#[derive(Debug)]
pub enum Error {
    /// `.gnawconfig` or an option is invalid (exit 2).
    Config(String),
    /// A path from the explicit path list (stdin) escapes the repo or is invalid (exit 2).
    PathRejected { path: String, why: String },
    /// Not even the smallest prompt fits the token budget (exit 2).
    Budget(String),
    /// An I/O failure that is not about one file (exit 1).
    Io(String),
    /// The observer asked to stop.
    Cancelled,
}

impl Error {
    /// Exit code for the CLI: 2 for usage or config errors, 1 for runtime failures.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Config(_) | Error::PathRejected { .. } | Error::Budget(_) => 2,
            Error::Io(_) | Error::Cancelled => 1,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Config(msg) => write!(f, "{msg}"),
            Error::PathRejected { path, why } => write!(
                f,
                "path {path} from the path list was rejected: {why}; every listed path must lie inside the repository"
            ),
            Error::Io(msg) | Error::Budget(msg) => write!(f, "{msg}"),
            Error::Cancelled => write!(f, "the run was cancelled"),
        }
    }
}

impl std::error::Error for Error {}
