//! Answers made of one section per named file (`read`, `outline`): the `paths` argument's
//! entries (`path[:START[-[END]]]`), parsed and proven under the root before anything is read;
//! the scanned text of each, or why it is not shown; how many of its items each section shows when the answer shows `k` in
//! all; the text of the sections shown; and the `paths` argument that continues a cut answer
//! from where it stopped, in the text and in the answer's facts ([`Facts`]).

use super::fit::{self, Limits};
use super::session::{NavError, Proven, Request, prove, quote, repo_root};
use crate::driver::file::Body;
use crate::stages::filter::Filter;
use crate::vocab::{Candidate, SkipReason};
use serde::Serializer;
use std::fmt::Write as _;

/// Most entries one call may name.
pub const MAX_PATHS: usize = 100;

/// One entry of `paths`, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The entry as given.
    pub given: String,
    /// Its path part.
    pub path: String,
    /// First line (1-based).
    pub start: u64,
    /// Last line, when given.
    pub end: Option<u64>,
    /// A range was given.
    pub ranged: bool,
}

/// Parse `path[:START[-[END]]]`. `what` names the entry in messages.
pub fn parse_entry(what: &str, given: &str) -> Result<Entry, NavError> {
    let whole = Entry {
        given: given.to_string(),
        path: given.to_string(),
        start: 1,
        end: None,
        ranged: false,
    };
    let Some((path, range)) = given.rsplit_once(':') else {
        return Ok(whole);
    };
    let (a, b) = match range.split_once('-') {
        Some((a, b)) => (a, Some(b)),
        None => (range, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    if !digits(a) || b.is_some_and(|b| !b.is_empty() && !digits(b)) {
        return Ok(whole);
    }
    let bad = |why: String| {
        NavError::argument(
            "InvalidArguments",
            format!(
                "{what} {}: {why}; write path, path:START-END, path:START- or path:N (lines \
                 count from 1)",
                quote(given)
            ),
        )
    };
    let num = |s: &str| {
        s.parse::<u64>()
            .map_err(|_| bad(format!("{s} is too large")))
    };
    let start = num(a)?;
    let end = match b {
        None => Some(start),
        Some("") => None,
        Some(b) => Some(num(b)?),
    };
    if start == 0 {
        return Err(bad("line 0 does not exist".into()));
    }
    if let Some(e) = end
        && e < start
    {
        return Err(bad(format!(
            "the range ends ({e}) before it starts ({start})"
        )));
    }
    if path.is_empty() {
        return Err(bad("the path is empty".into()));
    }
    Ok(Entry {
        given: given.to_string(),
        path: path.to_string(),
        start,
        end,
        ranged: true,
    })
}

/// Every entry of a `paths` argument (1 to [`MAX_PATHS`]), parsed and proven under the root
/// before anything is read (`.gnawconfig` included); `example` is shown when it is empty.
pub fn prove_entries(
    req: &Request<'_>,
    paths: &[String],
    example: &str,
) -> Result<Vec<(Entry, Proven)>, NavError> {
    if paths.is_empty() {
        return Err(NavError::argument(
            "InvalidArguments",
            format!("paths is empty; name at least one file, e.g. {example}"),
        ));
    }
    if paths.len() > MAX_PATHS {
        return Err(NavError::argument(
            "InvalidArguments",
            format!(
                "paths names {} files; at most {MAX_PATHS} per call",
                paths.len()
            ),
        ));
    }
    let root = repo_root(req)?;
    let mut proven: Vec<(Entry, Proven)> = Vec::with_capacity(paths.len());
    for (i, given) in paths.iter().enumerate() {
        let what = format!("paths[{i}]");
        let entry = parse_entry(&what, given)?;
        let p = prove(&root, &what, &entry.path)?;
        proven.push((entry, p));
    }
    Ok(proven)
}

/// The scanned text of a proven entry, as `read` reads it (the per-file step `extract` uses), or
/// why it is not shown: a directory (`directory` says what to do with one instead), inside
/// `.git`, excluded by the repository's `.gnawconfig`, larger than the size limit (`too_large`
/// says what to do, from the limit), a sensitive file, or not read for another reason.
pub fn scanned(
    excluded: &Filter,
    p: &Proven,
    directory: &str,
    read: impl FnOnce(&Candidate) -> Result<Body, SkipReason>,
    too_large: impl FnOnce(u64) -> String,
) -> Result<Body, String> {
    if p.is_dir() {
        return Err(directory.to_string());
    }
    if p.in_git() {
        return Err("inside .git, which is never read".into());
    }
    if !excluded.keeps(&p.rel) {
        return Err("excluded by the repository's .gnawconfig".into());
    }
    read(&p.candidate()).map_err(|reason| match reason {
        SkipReason::TooLarge { limit } => too_large(limit),
        SkipReason::Sensitive { what } => {
            format!("sensitive file ({what}); the repository's .gnawconfig can include it by name")
        }
        reason => reason.describe(),
    })
}

/// What a section holds: a number of items (lines, definitions, one note), and the entry that
/// continues it after some of them.
pub trait Items {
    /// How many items it can show.
    fn items(&self) -> usize;
    /// The `paths` entry that continues the section of `entry` after `shown` of its items.
    fn rest(&self, entry: &Entry, shown: usize) -> Option<String>;
}

/// One named file of an answer: the entry as asked, its path as shown, and what it holds.
pub struct Section<B> {
    pub entry: Entry,
    pub shown: String,
    pub body: B,
}

impl<B: Items> Section<B> {
    pub fn items(&self) -> usize {
        self.body.items()
    }

    /// The entry that continues this section after `shown` of its items.
    pub fn rest(&self, shown: usize) -> Option<String> {
        self.body.rest(&self.entry, shown)
    }
}

/// How many items each section shows when the answer shows `k`, in order.
pub fn allot<B: Items>(sections: &[Section<B>], mut k: usize) -> Vec<usize> {
    sections
        .iter()
        .map(|sec| {
            let n = sec.items().min(k);
            k -= n;
            n
        })
        .collect()
}

/// The continuation after `shown` items per section; `cut_first`: the section whose first
/// item shown was cut (it continues after that item).
pub fn next<B: Items>(
    sections: &[Section<B>],
    shown: &[usize],
    cut_first: Option<usize>,
) -> Vec<String> {
    sections
        .iter()
        .enumerate()
        .filter_map(|(s, sec)| match cut_first {
            Some(c) if c == s => sec.rest(1),
            _ => sec.rest(shown[s]),
        })
        .collect()
}

/// The text of the sections that show something (`shown` items each), a blank line between
/// two: `section` writes section `s` showing `n` items.
pub fn text<B>(
    sections: &[Section<B>],
    shown: &[usize],
    mut section: impl FnMut(&mut String, usize, &Section<B>, usize),
) -> String {
    let mut out = String::new();
    for (s, sec) in sections.iter().enumerate() {
        let n = shown[s];
        if n == 0 {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        section(&mut out, s, sec, n);
    }
    out
}

/// The line that ends a cut answer: the limits it was cut to, and the `paths` that continue it.
pub fn footer(out: &mut String, limits: &Limits, next: &[String]) {
    if next.is_empty() {
        return;
    }
    let args = serde_json::json!({ "paths": next });
    let limit = limits.describe();
    let _ = write!(out, "\n--- cut to fit {limit}. Continue with: {args}\n");
}

/// What a sections answer found: how each entry ended up (`R`: its report), and the `paths`
/// argument that continues the answer (empty when it is complete), said as `complete` and
/// `next_paths`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Facts<R> {
    pub files: Vec<R>,
    #[serde(flatten, serialize_with = "next_paths")]
    pub next: Vec<String>,
}

/// No files and no continuation, whatever a report is (a derived `Default` would ask `R` for
/// one).
impl<R> Default for Facts<R> {
    fn default() -> Facts<R> {
        Facts {
            files: Vec::new(),
            next: Vec::new(),
        }
    }
}

fn next_paths<S: Serializer>(next: &[String], s: S) -> Result<S::Ok, S::Error> {
    fit::continued(s, "next_paths", next.is_empty(), next)
}
