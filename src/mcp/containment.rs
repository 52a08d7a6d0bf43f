//! The only route from a tool's `repo` argument to a directory the pipeline reads: a
//! [`Containment`] turns the raw JSON value into a [`ContainedDir`] or a named rejection. In
//! gnaw-mcp it is the sandbox's [`Root`]; tests may substitute their own.

use gnaw_sandbox::{ContainedDir, Root};
use serde_json::Value;

/// Why a `repo` argument was refused: a stable kind (`OutsideRoot`, `NotFound`, ...) and a
/// message that never repeats anything read from outside the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    pub kind: &'static str,
    pub message: String,
}

/// Turns an untrusted `repo` value into a directory proven to lie under the server's root.
pub trait Containment: Send + Sync {
    fn contain(&self, repo: &Value) -> Result<ContainedDir, Rejected>;
}

/// The sandbox's root as the server's containment (`gnaw_sandbox::Root::contain_json`).
pub struct RootContainment(pub Root);

impl Containment for RootContainment {
    fn contain(&self, repo: &Value) -> Result<ContainedDir, Rejected> {
        self.0.contain_json(repo).map_err(|r| Rejected {
            kind: r.kind(),
            message: r.to_string(),
        })
    }
}
