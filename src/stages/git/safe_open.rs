//! Opening a repository's `.git` safely: the checks made before gix opens anything, and the open
//! itself with isolated options.
//!
//! 1. `.git` is a directory of the repository, reached through the repository's fd, not a link.
//!    A `.git` *file* (a linked worktree or a submodule) is followed only when its `gitdir:`
//!    names a directory inside the repository; otherwise it is refused (`GitDirOutside`).
//! 2. A `commondir` file must name a directory inside the repository (`CommonDirOutside`).
//! 3. Every entry of the git directory (and the common directory) is listed through directory
//!    fds: a symbolic link anywhere inside is refused (`GitDirLink`), so no path gix derives
//!    can leave through one; more than [`MAX_GIT_ENTRIES`] entries is refused (`GitTooLarge`).
//! 4. `objects/info/alternates` entries must stay inside the git directory (`AlternatesOutside`).
//! 5. gix opens the git directory with [`gix::open::Options::isolated`]: repository-local
//!    config only, no includes, no environment, no git binary. Then every path it derived (git
//!    dir, common dir, objects, index, shallow file; the last can be moved by repository
//!    config) must lie inside the checked directories (`GitPathOutside`).

use super::{Caps, GitError, Repo, failed};
use crate::bounded::read_capped;
use crate::vocab::ErrorKind;
use gnaw_sandbox::BeneathDir;
use gnaw_sandbox::beneath::FileKind;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

/// The most entries a git directory may have (loose objects included).
pub const MAX_GIT_ENTRIES: usize = 500_000;

/// The most bytes of a `.git` file, `commondir` or `alternates` file read.
const SMALL_FILE: u64 = 64 << 10;

fn refused(kind: ErrorKind, message: String) -> GitError {
    GitError::Refused { kind, message }
}

/// Open the git repository of the repo directory `dir`, after the containment checks.
pub fn open(dir: &BeneathDir, caps: Caps) -> Result<Repo, GitError> {
    let root = dir.path().to_path_buf();
    let git_rel = git_dir_of(dir)?;
    let git_dir = dir.open_dir(&git_rel).map_err(|e| {
        refused(
            ErrorKind::GitDirLink,
            format!(
                "cannot open the git directory {} inside the repository ({e}); gnaw does not \
                 follow links to or inside .git",
                git_rel.display()
            ),
        )
    })?;
    // The common directory of a linked worktree's git directory.
    let mut checked = vec![git_rel.clone()];
    let common_rel = match read_small(&git_dir, "commondir")? {
        None => git_rel.clone(),
        Some(text) => {
            let named = first_line(&text);
            let common = inside(&root, &root.join(&git_rel), named).ok_or_else(|| {
                refused(
                    ErrorKind::CommonDirOutside,
                    format!(
                        "{}/commondir points to {named:?}, outside the repository; the shared \
                         metadata of a linked worktree outside the root is not read. Run gnaw \
                         on the main worktree instead",
                        git_rel.display()
                    ),
                )
            })?;
            if !checked.iter().any(|c| common.starts_with(c)) {
                checked.push(common.clone());
            }
            common
        }
    };
    let mut budget = MAX_GIT_ENTRIES;
    for rel in &checked {
        let d = dir.open_dir(rel).map_err(|e| {
            refused(
                ErrorKind::GitDirLink,
                format!("cannot open {} beneath the repository: {e}", rel.display()),
            )
        })?;
        no_links(&d, rel, &mut budget, 0)?;
    }
    // Alternates: other object directories. Only ones inside the checked git directory.
    let common_abs = root.join(&common_rel);
    if let Ok(info) = dir.open_dir(&common_rel.join("objects/info"))
        && let Some(text) = read_small(&info, "alternates")?
    {
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let base = common_abs.join("objects");
            let ok = inside(&root, &base, line)
                .is_some_and(|p| checked.iter().any(|c| p.starts_with(c)));
            if !ok {
                return Err(refused(
                    ErrorKind::AlternatesOutside,
                    format!(
                        "{}/objects/info/alternates names {line:?}, an object directory \
                         outside this repository's .git; objects outside the root are not read",
                        common_rel.display()
                    ),
                ));
            }
        }
    }
    let git_abs = root.join(&git_rel);
    let options = gix::open::Options::isolated()
        .open_path_as_is(true)
        .strict_config(false);
    let mut repo = gix::open_opts(&git_abs, options)
        .map_err(|e| failed(&format!("cannot open {}", git_abs.display()), &e))?;
    // Decoded trees and commits are looked up again (a parent's tree, a log's next commit).
    repo.object_cache_size_if_unset(16 << 20);
    let allowed: Vec<PathBuf> = checked.iter().map(|c| root.join(c)).collect();
    let within = |what: &str, p: &Path| -> Result<(), GitError> {
        let n = normalize(p);
        if allowed.iter().any(|a| n.starts_with(a)) {
            Ok(())
        } else {
            Err(refused(
                ErrorKind::GitPathOutside,
                format!(
                    "the repository's configuration puts its {what} at {}, outside .git; it is \
                     not read",
                    p.display()
                ),
            ))
        }
    };
    within("git directory", repo.git_dir())?;
    within("common directory", repo.common_dir())?;
    within("object directory", repo.objects.store_ref().path())?;
    within("index", &repo.index_path())?;
    let shallow = repo
        .shallow_file()
        .map_err(|e| failed("cannot locate the shallow file", &e))?;
    within("shallow file", &shallow)?;
    Repo::new(repo, git_abs, caps)
}

/// The git directory of the repo, relative to it.
fn git_dir_of(dir: &BeneathDir) -> Result<PathBuf, GitError> {
    let stat = match dir.stat_child(OsStr::new(".git")) {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(refused(
                ErrorKind::NotAGitRepository,
                "this directory has no .git; changes and log need a git repository (run them \
                 on the repository's top directory)"
                    .into(),
            ));
        }
        Err(e) => return Err(failed("cannot inspect .git", &e)),
    };
    match stat.kind {
        FileKind::Dir => Ok(PathBuf::from(".git")),
        FileKind::Symlink => Err(refused(
            ErrorKind::GitDirLink,
            ".git is a symbolic link; gnaw reads only a .git directory inside the repository"
                .into(),
        )),
        FileKind::File => {
            let text = read_small(dir, ".git")?.unwrap_or_default();
            let named = first_line(&text)
                .strip_prefix("gitdir:")
                .map(str::trim)
                .unwrap_or("");
            if named.is_empty() {
                return Err(refused(
                    ErrorKind::NotAGitRepository,
                    ".git is a file without a gitdir: line; it is not a git repository".into(),
                ));
            }
            let root = dir.path();
            inside(root, root, named)
                .filter(|p| !p.as_os_str().is_empty())
                .ok_or_else(|| {
                    refused(
                        ErrorKind::GitDirOutside,
                        format!(
                            ".git is a file (a linked worktree or a submodule) whose gitdir: \
                             {named:?} lies outside the repository; its metadata outside the \
                             root is not read. Run gnaw on the main repository instead"
                        ),
                    )
                })
        }
        _ => Err(refused(
            ErrorKind::NotAGitRepository,
            ".git is neither a directory nor a file".into(),
        )),
    }
}

/// `named` (absolute, or relative to `base`), made relative to `root` when it stays inside.
/// Lexical: the git directory is then opened beneath the repo and walked for links.
fn inside(root: &Path, base: &Path, named: &str) -> Option<PathBuf> {
    let p = Path::new(named);
    let abs = if p.is_absolute() {
        normalize(p)
    } else {
        normalize(&base.join(p))
    };
    abs.strip_prefix(root).ok().map(Path::to_path_buf)
}

/// `p` without `.` and with `..` applied, lexically.
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("").trim()
}

/// The file `name` of `dir`, at most [`SMALL_FILE`] bytes; `None` when absent.
fn read_small(dir: &BeneathDir, name: &str) -> Result<Option<String>, GitError> {
    let file = match dir.child_file(OsStr::new(name)) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(refused(
                ErrorKind::GitDirLink,
                format!("cannot open {name} in the git directory without following links: {e}"),
            ));
        }
    };
    let meta = file
        .metadata()
        .map_err(|e| failed(&format!("cannot read {name}"), &e))?;
    if !meta.is_file() {
        return Err(refused(
            ErrorKind::NotAGitRepository,
            format!("{name} in the git directory is not a regular file"),
        ));
    }
    let bytes = read_capped(file, SMALL_FILE, meta.len())
        .map_err(|e| failed(&format!("cannot read {name}"), &e))?
        .ok_or_else(|| GitError::Failed(format!("{name} is over {SMALL_FILE} bytes")))?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// Refuse any symbolic link beneath `d` (named `rel`), listing at most `budget` entries.
fn no_links(d: &BeneathDir, rel: &Path, budget: &mut usize, depth: usize) -> Result<(), GitError> {
    if depth > 64 {
        return Err(refused(
            ErrorKind::GitTooLarge,
            format!("{} is nested over 64 levels deep", rel.display()),
        ));
    }
    let entries = d
        .entries()
        .map_err(|e| failed(&format!("cannot list {}", rel.display()), &e))?;
    for entry in entries {
        if *budget == 0 {
            return Err(refused(
                ErrorKind::GitTooLarge,
                format!(
                    "the git directory has over {MAX_GIT_ENTRIES} entries; run git gc to pack \
                     its loose objects"
                ),
            ));
        }
        *budget -= 1;
        let kind = match entry.kind {
            Some(k) => k,
            None => {
                d.stat_child(&entry.name)
                    .map_err(|e| failed("cannot inspect the git directory", &e))?
                    .kind
            }
        };
        let child = rel.join(&entry.name);
        match kind {
            FileKind::Symlink => {
                return Err(refused(
                    ErrorKind::GitDirLink,
                    format!(
                        "{} is a symbolic link; gnaw refuses links inside .git, which could lead \
                         outside the repository",
                        String::from_utf8_lossy(child.as_os_str().as_bytes())
                    ),
                ));
            }
            FileKind::Dir => {
                let sub = d
                    .child_dir(&entry.name)
                    .map_err(|e| failed(&format!("cannot open {}", child.display()), &e))?;
                no_links(&sub, &child, budget, depth + 1)?;
            }
            _ => {}
        }
    }
    Ok(())
}
