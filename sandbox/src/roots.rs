//! Several roots: the directories an operator lists in `GNAW_MCP_ROOT`, each canonicalized and
//! opened once as a [`Root`], each with a name that a `repo` argument starts with.
//!
//! With one root nothing changes: a path is relative to that root, exactly as [`Root::contain`]
//! has it, and the root has no name in answers.
//!
//! With several, a relative path must start with a root's name (`app`, `sdk/src`); an absolute
//! one must be spelled under one of the roots (the innermost, when roots nest). The rest is
//! resolved through the fds of that root by `Root::resolve`. When the resolution leaves the
//! root (a `..` above it, or an absolute symlink target not spelled under it), it continues
//! *lexically*, without any system call, from the canonical place it reached: through `..` and
//! names that are ancestors of a listed root (canonical paths, so real directories) until it
//! enters another listed root, whose fds take over. A path that reaches anything that is
//! neither a root nor an ancestor of one is `OutsideRoot`, and nothing outside the roots is ever
//! looked at, not even its metadata. So a symlink from one root into another is served only
//! when the target root is listed, and the answer names it under that root's own name.
//! Symlinks followed across roots count toward one [`MAX_SYMLINK_HOPS`] limit.
//!
//! Names are each root's directory name, with anything but ASCII letters, digits, `.`, `_` and
//! `-` replaced by `_`, made unique in list order (`app`, `app-2`).

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::contain::{
    ContainedDir, Leaving, MAX_PATH_BYTES, MAX_SYMLINK_HOPS, Rejection, Root, RootError, Walk,
    check_input, json_path, push_front_components,
};

/// A root and the name a `repo` argument calls it by.
#[derive(Clone, Debug)]
pub struct NamedRoot {
    name: Arc<str>,
    root: Root,
}

impl NamedRoot {
    /// The name a `repo` argument starts with.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The root.
    pub fn root(&self) -> &Root {
        &self.root
    }
}

/// Why a list of roots cannot be served.
#[derive(Debug)]
pub enum RootsError {
    /// The list names no directory.
    Empty,
    /// One entry cannot be a root.
    Root(RootError),
    /// The same directory is listed twice (after canonicalization).
    Twice(PathBuf),
}

impl fmt::Display for RootsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RootsError::Empty => f.write_str(
                "the root list names no directory; give one directory, or several separated by ':'",
            ),
            RootsError::Root(e) => e.fmt(f),
            RootsError::Twice(p) => write!(
                f,
                "the root list names {} twice; list each directory once",
                p.display()
            ),
        }
    }
}

impl std::error::Error for RootsError {}

/// The directories a server reads, in the order the operator listed them.
#[derive(Clone, Debug)]
pub struct Roots {
    list: Vec<NamedRoot>,
}

impl Roots {
    /// Canonicalize and open every path in `paths`. Each must be an existing directory; `/` is
    /// refused unless `allow_filesystem_root`; a directory listed twice is refused.
    pub fn new(paths: &[PathBuf], allow_filesystem_root: bool) -> Result<Roots, RootsError> {
        if paths.is_empty() {
            return Err(RootsError::Empty);
        }
        let mut roots: Vec<Root> = Vec::with_capacity(paths.len());
        for p in paths {
            let root = Root::new(p, allow_filesystem_root).map_err(RootsError::Root)?;
            if roots
                .iter()
                .any(|r| r.path() == root.path() || r.id() == root.id())
            {
                return Err(RootsError::Twice(root.path().to_path_buf()));
            }
            roots.push(root);
        }
        Ok(Roots::named(roots))
    }

    /// Roots already proven (adopted from the process that proved them, [`Root::adopt`]), in
    /// the operator's order; one directory listed twice (by identity) is refused.
    pub fn from_proven(roots: Vec<Root>) -> Result<Roots, RootsError> {
        if roots.is_empty() {
            return Err(RootsError::Empty);
        }
        for (i, root) in roots.iter().enumerate() {
            if roots[..i].iter().any(|r| r.id() == root.id()) {
                return Err(RootsError::Twice(root.path().to_path_buf()));
            }
        }
        Ok(Roots::named(roots))
    }

    /// One root, served as it always was (paths relative to it, no name).
    pub fn single(root: Root) -> Roots {
        Roots::named(vec![root])
    }

    fn named(roots: Vec<Root>) -> Roots {
        let mut taken: Vec<String> = Vec::new();
        let list = roots
            .into_iter()
            .map(|root| {
                let base = name_of(root.path());
                let mut name = base.clone();
                let mut n = 2;
                while taken.contains(&name) {
                    name = format!("{base}-{n}");
                    n += 1;
                }
                taken.push(name.clone());
                NamedRoot {
                    name: Arc::from(name),
                    root,
                }
            })
            .collect();
        Roots { list }
    }

    /// The roots, in the operator's order.
    pub fn iter(&self) -> impl Iterator<Item = &NamedRoot> {
        self.list.iter()
    }

    /// How many roots there are (at least one).
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Never true: a list of roots holds at least one.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The first root (the only one when there is one).
    pub fn first(&self) -> &Root {
        &self.list[0].root
    }

    /// The names, comma-separated, for messages.
    pub fn names(&self) -> String {
        self.list
            .iter()
            .map(|r| r.name())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Prove that `untrusted` names a directory under one of the roots (see the module doc).
    pub fn contain_dir(&self, untrusted: &OsStr) -> Result<ContainedDir, Rejection> {
        if self.list.len() == 1 {
            return self.list[0].root.contain_dir(untrusted);
        }
        let want_dir = check_input(untrusted)?;
        let input = Path::new(untrusted);
        let (start, rest) = if input.is_absolute() {
            let (i, rest) = self
                .list
                .iter()
                .enumerate()
                .filter_map(|(i, r)| {
                    let len = r.root.spelling_len(input)?;
                    Some((len, i, r.root.strip_spelling(input)?))
                })
                .max_by_key(|(len, _, _)| *len)
                .map(|(_, i, rest)| (i, rest))
                .ok_or(Rejection::OutsideRoot)?;
            (i, rest.to_path_buf())
        } else {
            let mut parts = input.components();
            let mut first = parts.next();
            while first == Some(Component::CurDir) {
                first = parts.next();
            }
            match first {
                Some(Component::Normal(first)) => {
                    let i = self
                        .list
                        .iter()
                        .position(|r| OsStr::new(r.name()) == first)
                        .ok_or_else(|| self.unknown())?;
                    (i, parts.as_path().to_path_buf())
                }
                Some(Component::ParentDir) => return Err(Rejection::OutsideRoot),
                _ => return Err(self.unknown()),
            }
        };
        let mut pending = VecDeque::new();
        push_front_components(&mut pending, &rest);
        let (mut at, mut hops) = (start, 0);
        loop {
            let root = &self.list[at];
            match root.root.resolve(pending, hops)? {
                Walk::Done(found) => {
                    let inner = root.root.finish(found, want_dir)?;
                    return Ok(root
                        .root
                        .dir_of(inner)?
                        .under_root_named(Arc::clone(&root.name)));
                }
                Walk::Left(left) => {
                    let (next, names, h) = self.reenter(left)?;
                    (at, pending, hops) = (next, names, h);
                }
            }
        }
    }

    /// A directory from a JSON argument: anything but a string is `InvalidPath`.
    pub fn contain_json(&self, value: &serde_json::Value) -> Result<ContainedDir, Rejection> {
        self.contain_dir(json_path(value)?)
    }

    /// The `repo` values that name each root: `.` for a single root, else each name.
    pub fn repo_names(&self) -> Vec<String> {
        if self.list.len() == 1 {
            vec![".".into()]
        } else {
            self.list.iter().map(|r| r.name().to_string()).collect()
        }
    }

    fn unknown(&self) -> Rejection {
        Rejection::InvalidPath(format!(
            "this server reads several roots, so a repo starts with a root's name: {}",
            self.names()
        ))
    }

    /// Continue a path that left a root, lexically, until it enters a listed root. Returns the
    /// root entered and the names to resolve in it.
    fn reenter(&self, left: Leaving) -> Result<(usize, VecDeque<OsString>, usize), Rejection> {
        let Leaving {
            mut at,
            mut pending,
            hops,
        } = left;
        if hops > MAX_SYMLINK_HOPS {
            return Err(Rejection::InvalidPath(
                "too many levels of symbolic links (a loop?)".into(),
            ));
        }
        loop {
            if let Some(i) = self.innermost_holding(&at) {
                let rest = at.strip_prefix(self.list[i].root.path()).unwrap_or(&at);
                push_front_components(&mut pending, rest);
                return Ok((i, pending, hops));
            }
            if !self.is_ancestor(&at) {
                return Err(Rejection::OutsideRoot);
            }
            match pending.pop_front() {
                None => return Err(Rejection::OutsideRoot),
                Some(name) if name == ".." => {
                    at.pop();
                }
                Some(name) => {
                    if at.as_os_str().len() + 1 + name.len() > MAX_PATH_BYTES {
                        return Err(Rejection::InvalidPath("path is too long".into()));
                    }
                    at.push(name);
                }
            }
        }
    }

    /// The innermost root that `at` lies under (or is), by components.
    fn innermost_holding(&self, at: &Path) -> Option<usize> {
        self.list
            .iter()
            .enumerate()
            .filter(|(_, r)| at.starts_with(r.root.path()))
            .max_by_key(|(_, r)| r.root.path().as_os_str().len())
            .map(|(i, _)| i)
    }

    /// Whether `at` is a proper ancestor of some root, so a real directory on the way to it.
    fn is_ancestor(&self, at: &Path) -> bool {
        self.list
            .iter()
            .any(|r| r.root.path().starts_with(at) && r.root.path() != at)
    }
}

/// A root's name from its directory name: ASCII letters, digits, `.`, `_` and `-` kept, anything
/// else `_`; `root` for `/` or a name of dots.
fn name_of(path: &Path) -> String {
    let raw = path.file_name().map(OsStr::to_string_lossy);
    let name: String = raw
        .as_deref()
        .unwrap_or("")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.is_empty() || name.chars().all(|c| c == '.') {
        "root".into()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    struct Fixture {
        _tmp: tempfile::TempDir,
        base: PathBuf,
    }

    /// base/{app,sdk,outside,app/nested}, each with a file and a `src` directory.
    fn fixture() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(tmp.path()).unwrap();
        for d in [
            "app/src",
            "sdk/src",
            "outside/src",
            "app/nested/src",
            "other/app",
        ] {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        for f in ["app/a.rs", "sdk/s.rs", "outside/secret", "app/nested/n.rs"] {
            std::fs::write(base.join(f), "x\n").unwrap();
        }
        Fixture { _tmp: tmp, base }
    }

    fn roots(base: &Path, names: &[&str]) -> Roots {
        let paths: Vec<PathBuf> = names.iter().map(|n| base.join(n)).collect();
        Roots::new(&paths, false).unwrap()
    }

    fn shown(r: &Roots, repo: &str) -> Result<(String, PathBuf), &'static str> {
        r.contain_dir(OsStr::new(repo))
            .map(|d| (d.shown_name().unwrap_or_default(), d.path().to_path_buf()))
            .map_err(|e| e.kind())
    }

    #[test]
    fn names_are_directory_names_made_unique_and_plain() {
        let f = fixture();
        let r = roots(&f.base, &["app", "sdk", "other/app"]);
        let names: Vec<&str> = r.iter().map(NamedRoot::name).collect();
        assert_eq!(names, ["app", "sdk", "app-2"]);
        assert_eq!(name_of(Path::new("/x/we ird\u{202e}")), "we_ird_");
        assert_eq!(name_of(Path::new("/")), "root");
        assert!(matches!(
            Roots::new(&[f.base.join("app"), f.base.join("app/../app")], false),
            Err(RootsError::Twice(_))
        ));
        assert!(matches!(Roots::new(&[], false), Err(RootsError::Empty)));
    }

    #[test]
    fn a_relative_repo_starts_with_a_root_name() {
        let f = fixture();
        let r = roots(&f.base, &["app", "sdk"]);
        assert_eq!(shown(&r, "app").unwrap().0, "app");
        assert_eq!(shown(&r, "./sdk/src").unwrap().0, "sdk/src");
        assert_eq!(shown(&r, "sdk/src").unwrap().1, f.base.join("sdk/src"));
        for bad in [".", "./", "src", "outside", "apps"] {
            let e = r.contain_dir(OsStr::new(bad)).unwrap_err();
            assert_eq!(e.kind(), "InvalidPath", "{bad}");
            assert!(e.to_string().contains("app, sdk"), "{bad}: {e}");
        }
        assert_eq!(shown(&r, "../app"), Err("OutsideRoot"));
        assert_eq!(shown(&r, "app/../outside"), Err("OutsideRoot"));
        assert_eq!(
            shown(&r, "app/../sdk"),
            Ok(("sdk".into(), f.base.join("sdk")))
        );
        assert_eq!(shown(&r, "app/../../x"), Err("OutsideRoot"));
        assert_eq!(shown(&r, "app/missing"), Err("NotFound"));
    }

    #[test]
    fn an_absolute_repo_is_spelled_under_a_root() {
        let f = fixture();
        let r = roots(&f.base, &["app", "sdk"]);
        let sdk = f.base.join("sdk/src");
        assert_eq!(shown(&r, sdk.to_str().unwrap()).unwrap().0, "sdk/src");
        let out = f.base.join("outside");
        assert_eq!(shown(&r, out.to_str().unwrap()), Err("OutsideRoot"));
        assert_eq!(shown(&r, f.base.to_str().unwrap()), Err("OutsideRoot"));
        assert_eq!(shown(&r, "/"), Err("OutsideRoot"));
    }

    #[test]
    fn links_between_roots_are_served_under_the_target_root_only_when_listed() {
        let f = fixture();
        symlink(f.base.join("sdk/src"), f.base.join("app/abs-to-sdk")).unwrap();
        symlink("../sdk", f.base.join("app/rel-to-sdk")).unwrap();
        symlink("../../sdk/src", f.base.join("app/src/deep-to-sdk")).unwrap();
        symlink(f.base.join("outside"), f.base.join("app/abs-out")).unwrap();
        symlink("../outside", f.base.join("app/rel-out")).unwrap();
        symlink("../outside/../sdk", f.base.join("app/via-out")).unwrap();
        symlink("..", f.base.join("app/up")).unwrap();
        let both = roots(&f.base, &["app", "sdk"]);
        assert_eq!(shown(&both, "app/abs-to-sdk").unwrap().0, "sdk/src");
        assert_eq!(shown(&both, "app/rel-to-sdk").unwrap().0, "sdk");
        assert_eq!(shown(&both, "app/src/deep-to-sdk").unwrap().0, "sdk/src");
        assert_eq!(shown(&both, "app/rel-to-sdk/src").unwrap().0, "sdk/src");
        // A path through a directory outside every root is never followed, even when it
        // would come back in.
        for out in ["app/abs-out", "app/rel-out", "app/via-out", "app/up"] {
            assert_eq!(shown(&both, out), Err("OutsideRoot"), "{out}");
        }
        // Climbing out and straight back in passes only through an ancestor of the roots,
        // which is never looked at.
        assert_eq!(shown(&both, "app/up/sdk").unwrap().0, "sdk");
        // The target root not listed: outside.
        let app_only = roots(&f.base, &["app", "other/app"]);
        for link in ["app/abs-to-sdk", "app/rel-to-sdk", "app/src/deep-to-sdk"] {
            assert_eq!(shown(&app_only, link), Err("OutsideRoot"), "{link}");
        }
        // And with one root, exactly as before.
        let one = Roots::single(Root::new(&f.base.join("app"), false).unwrap());
        assert_eq!(
            one.contain_dir(OsStr::new("abs-to-sdk")).unwrap_err(),
            Rejection::OutsideRoot
        );
        assert!(
            one.contain_dir(OsStr::new("src"))
                .unwrap()
                .shown_name()
                .is_none()
        );
    }

    #[test]
    fn link_loops_across_roots_end_at_the_hop_limit() {
        let f = fixture();
        symlink(f.base.join("sdk/loop"), f.base.join("app/loop")).unwrap();
        symlink(f.base.join("app/loop"), f.base.join("sdk/loop")).unwrap();
        let r = roots(&f.base, &["app", "sdk"]);
        assert_eq!(shown(&r, "app/loop"), Err("InvalidPath"));
    }

    #[test]
    fn nested_roots_resolve_in_the_innermost_and_climb_into_the_outer() {
        let f = fixture();
        let r = roots(&f.base, &["app", "app/nested"]);
        assert_eq!(shown(&r, "app/nested/src").unwrap().0, "app/nested/src");
        assert_eq!(shown(&r, "nested/src").unwrap().0, "nested/src");
        assert_eq!(shown(&r, "nested/..").unwrap().0, "app");
        assert_eq!(shown(&r, "nested/../src").unwrap().0, "app/src");
        assert_eq!(shown(&r, "nested/../.."), Err("OutsideRoot"));
        let abs = f.base.join("app/nested/src");
        assert_eq!(shown(&r, abs.to_str().unwrap()).unwrap().0, "nested/src");
    }
}
