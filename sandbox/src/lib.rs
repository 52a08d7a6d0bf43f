//! Confinement for gnaw-mcp (skeleton; the real crate lands next).
use std::path::PathBuf;

/// A directory proven to lie under the root.
#[derive(Clone, Debug)]
pub struct ContainedDir {
    pub path: PathBuf,
}
