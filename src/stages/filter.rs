//! Filter stage: include and exclude globs from `.gnawconfig` and the command line.
//!
//! Semantics (a contract; see `docs/formats.md`):
//! - Patterns match the `/`-separated path relative to the repo root. A leading `/` anchors
//!   nothing extra: patterns are always relative to the root.
//! - A pattern with no `/` matches a name at any depth: `*.rs` matches `src/a/b.rs`, and `tests`
//!   matches the directory `tests` wherever it is.
//! - `*` and `?` never cross a `/`; `**` crosses any number of directories.
//! - A pattern that matches a directory matches everything beneath it (`-e vendor`, `-i src`).
//! - No include patterns means everything is included. Exclude wins over include.

use crate::error::Error;
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// The compiled include and exclude sets.
pub struct Filter {
    include: Option<GlobSet>,
    exclude: GlobSet,
}

impl Filter {
    /// Compile the patterns; a bad pattern is an error naming it.
    pub fn new(include: &[String], exclude: &[String]) -> Result<Filter, Error> {
        let include = if include.is_empty() {
            None
        } else {
            Some(compile(include, "include")?)
        };
        Ok(Filter {
            include,
            exclude: compile(exclude, "exclude")?,
        })
    }

    /// Whether a file at `rel` (relative, `/`-separated) passes the filter.
    pub fn keeps(&self, rel: &[u8]) -> bool {
        if matches_self_or_ancestor(&self.exclude, rel) {
            return false;
        }
        match &self.include {
            None => true,
            Some(set) => matches_self_or_ancestor(set, rel),
        }
    }

    /// Whether a directory can be pruned from the walk: it is excluded, so nothing beneath it
    /// can be kept.
    pub fn prunes_dir(&self, rel: &[u8]) -> bool {
        matches_self_or_ancestor(&self.exclude, rel)
    }
}

/// True when `set` matches `rel` or any of its ancestor directories.
fn matches_self_or_ancestor(set: &GlobSet, rel: &[u8]) -> bool {
    if set.is_empty() {
        return false;
    }
    let mut end = rel.len();
    loop {
        if set.is_match(bytes_path(&rel[..end])) {
            return true;
        }
        match rel[..end].iter().rposition(|&b| b == b'/') {
            Some(i) => end = i,
            None => return false,
        }
    }
}

/// globset matches on `Path`; on Unix every byte string is a valid path.
fn bytes_path(b: &[u8]) -> &std::path::Path {
    use std::os::unix::ffi::OsStrExt;
    std::path::Path::new(std::ffi::OsStr::from_bytes(b))
}

/// Compile patterns into one set: a pattern without `/` is matched as `**/pattern`.
/// `what` names where the patterns came from (`include`, `exclude`), for the error.
pub fn compile(patterns: &[String], what: &str) -> Result<GlobSet, Error> {
    let bad = |pattern: &str, e: globset::Error| Error::Glob {
        source: what.to_string(),
        pattern: pattern.to_string(),
        why: e.to_string(),
    };
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        b.add(glob(p).map_err(|e| bad(p, e))?);
    }
    b.build().map_err(|e| bad("", e))
}

fn glob(pattern: &str) -> Result<Glob, globset::Error> {
    let trimmed = pattern.trim_start_matches('/').trim_end_matches('/');
    let anchored = pattern.starts_with('/') || trimmed.contains('/');
    let full = if anchored {
        trimmed.to_string()
    } else {
        format!("**/{trimmed}")
    };
    GlobBuilder::new(&full)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(inc: &[&str], exc: &[&str]) -> Filter {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        Filter::new(&s(inc), &s(exc)).unwrap()
    }

    #[test]
    fn basename_patterns_match_at_any_depth() {
        let x = f(&["*.rs"], &[]);
        assert!(x.keeps(b"a.rs"));
        assert!(x.keeps(b"src/a/b.rs"));
        assert!(!x.keeps(b"src/a/b.md"));
    }

    #[test]
    fn slash_patterns_are_anchored_and_star_does_not_cross() {
        let x = f(&["src/*.rs"], &[]);
        assert!(x.keeps(b"src/a.rs"));
        assert!(!x.keeps(b"src/a/b.rs"));
        assert!(!x.keeps(b"lib/src/a.rs"));
        let x = f(&["src/**/*.rs"], &[]);
        assert!(x.keeps(b"src/a/b.rs"));
        assert!(x.keeps(b"src/a.rs"));
        let x = f(&["/top.md"], &[]);
        assert!(x.keeps(b"top.md"));
        assert!(!x.keeps(b"sub/top.md"));
    }

    #[test]
    fn directories_cover_their_contents() {
        let x = f(&["src"], &["tests", "vendor/"]);
        assert!(x.keeps(b"src/a/b.rs"));
        assert!(!x.keeps(b"src/tests/t.rs"));
        assert!(!x.keeps(b"lib.rs"));
        assert!(x.prunes_dir(b"src/vendor"));
    }

    #[test]
    fn exclude_wins_over_include() {
        let x = f(&["*.rs"], &["*.rs"]);
        assert!(!x.keeps(b"a.rs"));
        let x = f(&["src/**"], &["*_test.rs"]);
        assert!(x.keeps(b"src/a.rs"));
        assert!(!x.keeps(b"src/a_test.rs"));
    }

    #[test]
    fn bad_pattern_is_named() {
        let err = Filter::new(&["a[".into()], &[]).err().unwrap().to_string();
        assert!(err.contains("\"a[\""), "{err}");
    }
}
