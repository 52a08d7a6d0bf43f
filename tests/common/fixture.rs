//! One fixture builder for every test that needs a repository on disk: a fresh temporary
//! directory (canonical, so a server root and the paths in answers agree) holding the repository
//! `base/NAME`, written file by file with parent directories made as needed.

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

/// `base/NAME`, removed with `tmp` when the test ends.
pub struct Tree {
    _tmp: tempfile::TempDir,
    /// The temporary directory: a server root, or a place *beside* the repository.
    pub base: PathBuf,
    /// The repository.
    pub repo: PathBuf,
}

impl Tree {
    /// An empty repository `NAME` in a fresh temporary directory.
    pub fn new(name: &str) -> Tree {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let repo = base.join(name);
        std::fs::create_dir_all(&repo).unwrap();
        Tree {
            _tmp: tmp,
            base,
            repo,
        }
    }

    /// Write `rel` (relative to the repository) with `content`.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> &Self {
        put(&self.repo.join(rel), content);
        self
    }

    /// Write each `(rel, content)` of `files`, in order (a later one replaces an earlier).
    pub fn files(&self, files: &[(&str, &str)]) -> &Self {
        for (rel, content) in files {
            self.write(rel, content);
        }
        self
    }

    /// Make `rel` (relative to the repository) a symbolic link to `target`.
    pub fn link(&self, rel: &str, target: impl AsRef<Path>) -> &Self {
        let p = self.repo.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        symlink(target, p).unwrap();
        self
    }

    /// Remove the whole tree now, saying whether that worked (dropping it ignores errors).
    pub fn close(self) -> std::io::Result<()> {
        self._tmp.close()
    }

    /// `base/REL`: a path beside the repository.
    pub fn beside(&self, rel: &str) -> PathBuf {
        self.base.join(rel)
    }
}

/// Write `path` with `content`, making its parent directories.
pub fn put(path: &Path, content: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}
