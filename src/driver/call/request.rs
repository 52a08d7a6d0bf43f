//! One navigation or git call as a driver receives it ([`Request`]: the repository, the
//! overrides, the surface's policy, the cache, the text ceiling) and why it gave no answer
//! ([`NavError`]: an argument that cannot be used, or a failed run).

use crate::cache::Cache;
use crate::error::Error;
use crate::spec::{Observer, Overrides, Policy};
use crate::vocab::ErrorKind;
use gnaw_sandbox::ContainedDir;
use std::fmt;

/// One navigation call.
pub struct Request<'a> {
    /// The repository, proven under the root.
    pub repo: ContainedDir,
    /// Include and exclude globs (added to `.gnawconfig`'s) and the budget (`Some(0)`: none).
    pub overrides: Overrides,
    /// The surface's defaults and the operator's floors.
    pub policy: Policy,
    /// The server's warm cache.
    pub cache: Option<&'a Cache>,
    /// Told of the call's progress, and asked whether to stop.
    pub observer: Option<&'a dyn Observer>,
    /// Most bytes the answer's text may take (`usize::MAX`: no limit).
    pub max_text_bytes: usize,
    /// Count the answer's tokens even when it has no budget: the server reports every answer's
    /// count (`answer_tokens`); the CLI prints only the text, so it counts only to fit a budget
    /// and never builds the tokenizer otherwise.
    pub count_answer: bool,
}

impl Request<'_> {
    /// A call on `repo` under the server's policy with a budget of `budget` tokens (0: none)
    /// and a text ceiling of `max_text_bytes`, with no warm cache and no observer: one call
    /// run on its own, as the tests and the fuzz checks make it.
    pub fn alone(repo: ContainedDir, budget: usize, max_text_bytes: usize) -> Request<'static> {
        Request {
            repo,
            overrides: Overrides {
                budget: Some(budget),
                ..Overrides::default()
            },
            policy: Policy::server(),
            cache: None,
            observer: None,
            max_text_bytes,
            count_answer: true,
        }
    }
}

/// Why a navigation call gave no answer.
#[derive(Debug)]
pub enum NavError {
    /// An argument cannot be used (a path that is not inside the repo, a bad range or
    /// pattern): `OutsideRoot`, `NotFound`, `InvalidPath`, `NotADirectory`, `NotAFile`,
    /// `InvalidArguments`, `InvalidPattern`, ...
    Argument {
        /// The stable kind of refusal.
        kind: ErrorKind,
        /// What is wrong with the argument, and what to do.
        message: String,
    },
    /// The run failed or was cancelled.
    Run(Error),
}

impl NavError {
    /// An argument error with `kind` and `message`.
    pub fn argument(kind: ErrorKind, message: impl Into<String>) -> NavError {
        NavError::Argument {
            kind,
            message: message.into(),
        }
    }

    /// An argument that cannot be used as given (`InvalidArguments`), with `message`.
    pub fn invalid(message: impl Into<String>) -> NavError {
        NavError::argument(ErrorKind::InvalidArguments, message)
    }
}

impl From<Error> for NavError {
    fn from(e: Error) -> NavError {
        NavError::Run(e)
    }
}

impl std::error::Error for NavError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NavError::Argument { .. } => None,
            NavError::Run(e) => Some(e),
        }
    }
}

impl fmt::Display for NavError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NavError::Argument { message, .. } => f.write_str(message),
            NavError::Run(e) => write!(f, "{e}"),
        }
    }
}
