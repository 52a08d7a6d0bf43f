//! Temporary stand-in for the confinement crate with the same API names, so the pipeline
//! compiles while the real crate (openat2 beneath-opens, Landlock) is being written.
use std::ffi::OsStr;
use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

#[derive(Clone, Debug)]
pub struct Root {
    path: PathBuf,
}
#[derive(Debug)]
pub struct RootError(String);
impl std::fmt::Display for RootError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    InvalidPath(String),
    OutsideRoot,
    NotFound,
    NotADirectory,
}
impl Rejection {
    pub fn kind(&self) -> &'static str {
        match self {
            Rejection::InvalidPath(_) => "InvalidPath",
            Rejection::OutsideRoot => "OutsideRoot",
            Rejection::NotFound => "NotFound",
            Rejection::NotADirectory => "NotADirectory",
        }
    }
}
impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.kind())
    }
}
#[derive(Clone, Debug)]
pub struct Contained {
    path: PathBuf,
    rel: PathBuf,
}
impl Contained {
    pub fn path(&self) -> &Path {
        &self.path
    }
    pub fn relative(&self) -> &Path {
        &self.rel
    }
}
#[derive(Clone, Debug)]
pub struct ContainedDir(Contained);
impl ContainedDir {
    pub fn contained(&self) -> &Contained {
        &self.0
    }
    pub fn open(&self) -> io::Result<BeneathDir> {
        Ok(BeneathDir {
            path: self.0.path.clone(),
        })
    }
}
impl Root {
    pub fn new(path: &Path, _allow_filesystem_root: bool) -> Result<Root, RootError> {
        let path = path
            .canonicalize()
            .map_err(|e| RootError(format!("{}: {e}", path.display())))?;
        if !path.is_dir() {
            return Err(RootError(format!("{} is not a directory", path.display())));
        }
        Ok(Root { path })
    }
    pub fn path(&self) -> &Path {
        &self.path
    }
    pub fn as_dir(&self) -> ContainedDir {
        ContainedDir(Contained {
            path: self.path.clone(),
            rel: PathBuf::new(),
        })
    }
    pub fn contain(&self, untrusted: &OsStr) -> Result<Contained, Rejection> {
        use std::os::unix::ffi::OsStrExt;
        if untrusted.is_empty() || untrusted.as_bytes().contains(&0) {
            return Err(Rejection::InvalidPath("empty or NUL".into()));
        }
        let canon = self
            .path
            .join(untrusted)
            .canonicalize()
            .map_err(|e| match e.kind() {
                io::ErrorKind::NotFound => Rejection::NotFound,
                _ => Rejection::InvalidPath(e.to_string()),
            })?;
        let rel = canon
            .strip_prefix(&self.path)
            .map_err(|_| Rejection::OutsideRoot)?
            .to_path_buf();
        if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
            return Err(Rejection::OutsideRoot);
        }
        Ok(Contained { path: canon, rel })
    }
    pub fn contain_dir(&self, untrusted: &OsStr) -> Result<ContainedDir, Rejection> {
        let c = self.contain(untrusted)?;
        if !c.path.is_dir() {
            return Err(Rejection::NotADirectory);
        }
        Ok(ContainedDir(c))
    }
}
pub struct BeneathDir {
    path: PathBuf,
}
impl BeneathDir {
    pub fn open_file(&self, rel: &Path, follow_symlinks: bool) -> io::Result<File> {
        let flags =
            libc::O_NONBLOCK | libc::O_NOCTTY | if follow_symlinks { 0 } else { libc::O_NOFOLLOW };
        OpenOptions::new()
            .read(true)
            .custom_flags(flags)
            .open(self.path.join(rel))
    }
    pub fn open_file_expecting(
        &self,
        rel: &Path,
        follow: bool,
        dev: u64,
        ino: u64,
    ) -> io::Result<(File, Metadata)> {
        let f = self.open_file(rel, follow)?;
        let m = f.metadata()?;
        if m.dev() != dev || m.ino() != ino {
            return Err(io::Error::other("file changed between walk and open"));
        }
        Ok((f, m))
    }
    pub fn mechanism() -> &'static str {
        "shim"
    }
}
