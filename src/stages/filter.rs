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
//!
//! - Patterns see what the answer shows ([`Filter::seeing`]): a path with a secret redacted in
//!   it is matched in its shown form (`key_[REDACTED:github-token]`), so no glob can test the
//!   characters of a redacted span, and two globs that differ only inside one give the same
//!   answer (issue 21).
//!
//! Every list is checked against [`crate::limits`] before anything is compiled (the number of
//! patterns, their total size, and each pattern's length, brace nesting and alternatives): a
//! pattern past a limit is an error naming it and the limit, never a stack overflow.

use crate::error::Error;
use crate::limits::{check_globs, shown_glob};
use crate::stages::name::Namer;
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// The compiled include and exclude sets.
pub struct Filter {
    include: Option<GlobSet>,
    exclude: GlobSet,
    /// How names are shown: a path is matched as the answer shows it.
    namer: Option<Namer>,
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
            namer: None,
        })
    }

    /// The filter matching each path as `namer` shows it: a path with a redacted secret is
    /// matched in its shown form (see [`Namer::seen`]).
    pub fn seeing(mut self, namer: Namer) -> Filter {
        self.namer = Some(namer);
        self
    }

    /// Whether a file at `rel` (relative, `/`-separated) passes the filter.
    pub fn keeps(&self, rel: &[u8]) -> bool {
        if self.include.is_none() && self.exclude.is_empty() {
            return true;
        }
        let seen = self.seen(rel);
        if matches_self_or_ancestor(&self.exclude, &seen) {
            return false;
        }
        match &self.include {
            None => true,
            Some(set) => matches_self_or_ancestor(set, &seen),
        }
    }

    /// Whether a directory can be pruned from the walk: it is excluded, so nothing beneath it
    /// can be kept.
    pub fn prunes_dir(&self, rel: &[u8]) -> bool {
        !self.exclude.is_empty() && matches_self_or_ancestor(&self.exclude, &self.seen(rel))
    }

    /// The path the globs are matched against.
    fn seen<'a>(&self, rel: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
        match &self.namer {
            Some(n) => n.seen(rel),
            None => std::borrow::Cow::Borrowed(rel),
        }
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
/// `what` names where the patterns came from (`include`, `exclude`), for the error. The list is
/// checked against the limits of [`crate::limits`] first.
pub fn compile(patterns: &[String], what: &str) -> Result<GlobSet, Error> {
    check_glob_list(patterns, what)?;
    let bad = |pattern: &str, why: String| Error::Glob {
        source: what.to_string(),
        pattern: shown_glob(pattern),
        why,
    };
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        b.add(glob(p).map_err(|e| bad(p, e.kind().to_string()))?);
    }
    b.build().map_err(|e| {
        bad(
            &format!("({} patterns)", patterns.len()),
            format!("the {what} patterns together are too complex to compile ({e}); use fewer or simpler patterns"),
        )
    })
}

/// Check a list of globs from `what` (`include`, `secrets.allow_paths`, ...) against the limits
/// of [`crate::limits`]: an [`Error::Glob`] naming the pattern (or the list) and the limit.
pub fn check_glob_list<S: AsRef<str>>(patterns: &[S], what: &str) -> Result<(), Error> {
    check_globs(patterns).map_err(|(pattern, limit)| Error::Glob {
        source: what.to_string(),
        pattern: pattern.map_or_else(|| format!("({} patterns)", patterns.len()), shown_glob),
        why: limit.to_string(),
    })
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
    fn globs_match_the_shown_name_not_the_secret() {
        let token = format!("{}{}", "gh", "p_") + "u8Zq3LmN7pX2vR9tK4wY6bJ1cH5dF0gS8aQe";
        let raw = format!("keys/key_{token}.txt");
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let seeing = |inc: &[&str], exc: &[&str]| {
            Filter::new(&s(inc), &s(exc))
                .unwrap()
                .seeing(Namer::redacting())
        };
        // A right and a wrong guess at the secret's first characters: the same answer.
        assert!(!seeing(&["key_ghp_u8*"], &[]).keeps(raw.as_bytes()));
        assert!(!seeing(&["key_ghp_Z*"], &[]).keeps(raw.as_bytes()));
        assert!(seeing(&[], &["key_ghp_u8*"]).keeps(raw.as_bytes()));
        // What the model sees matches.
        assert!(seeing(&["key_*"], &[]).keeps(raw.as_bytes()));
        assert!(seeing(&["key_\\[REDACTED:github-token\\]*"], &[]).keeps(raw.as_bytes()));
        assert!(seeing(&["keys"], &[]).keeps(raw.as_bytes()));
        // Without the renderer (before issue 21) the guess was told apart.
        assert!(f(&["key_ghp_u8*"], &[]).keeps(raw.as_bytes()));
    }

    #[test]
    fn bad_pattern_is_named() {
        let err = Filter::new(&["a[".into()], &[]).err().unwrap().to_string();
        assert!(err.contains("\"a[\""), "{err}");
    }

    #[test]
    fn patterns_past_the_limits_are_refused_before_compiling() {
        // 16,000 levels overflowed a 2 MiB stack inside globset before the limits.
        let deep = format!("{}a{}", "{a,".repeat(16_000), "}".repeat(16_000));
        let err = Filter::new(&[], &[deep]).err().unwrap();
        assert_eq!(err.kind(), "InvalidGlob");
        let msg = err.to_string();
        assert!(msg.contains("exclude") && msg.contains("nest"), "{msg}");
        assert!(
            msg.len() < 400,
            "the pattern is shown whole: {} bytes",
            msg.len()
        );
        let many: Vec<String> = (0..1001).map(|i| format!("f{i}")).collect();
        let msg = Filter::new(&many, &[]).err().unwrap().to_string();
        assert!(msg.contains("1001 globs"), "{msg}");
    }
}
