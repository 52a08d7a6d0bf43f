//! Answers made of one section per named file (`read`, `outline`): the `paths` argument's
//! entries (`path[:START[-[END]]]`), parsed and proven under the root before anything is read;
//! the section of each, its file read and scanned (or the [`Note`] that says why it is not
//! shown); how many of its items each section shows when the answer shows `k` in all; the
//! answer's text; the `paths` argument that continues a cut answer from where it stopped; and
//! what the answer reports of each entry ([`Report`], [`Facts`]).

use crate::driver::call::paging::{self, Fitted, Limits, One, Paged};
use crate::driver::call::paths::{Proven, prove, quote, repo_root};
use crate::driver::call::request::{NavError, Request};
use crate::driver::call::session::Session;
use crate::driver::file::{self, Body, FileContext};
use crate::error::Error;
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
        NavError::invalid(format!(
            "{what} {}: {why}; write path, path:START-END, path:START- or path:N (lines \
             count from 1)",
            quote(given)
        ))
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
        return Err(NavError::invalid(format!(
            "paths is empty; name at least one file, e.g. {example}"
        )));
    }
    if paths.len() > MAX_PATHS {
        return Err(NavError::invalid(format!(
            "paths names {} files; at most {MAX_PATHS} per call",
            paths.len()
        )));
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

/// The one line that stands for a section's items: why its file is not shown, not outlined, or
/// that it is empty.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The entry's status in the answer's report (`not_shown`, `no_outline`, `empty`).
    pub status: &'static str,
    /// What the line says before the reason (`not shown: `).
    lead: &'static str,
    /// The reason, as the report gives it.
    pub reason: String,
    /// Lines in the file (0 when not read).
    pub total: u64,
}

impl Note {
    /// A file not shown, and why.
    pub fn not_shown(reason: String, total: u64) -> Note {
        Note {
            status: "not_shown",
            lead: "not shown: ",
            reason,
            total,
        }
    }

    /// A file read but not outlined, and why.
    pub fn no_outline(reason: String, total: u64) -> Note {
        Note {
            status: "no_outline",
            lead: "no outline: ",
            reason,
            total,
        }
    }

    /// An empty file.
    pub fn empty() -> Note {
        Note {
            status: "empty",
            lead: "",
            reason: "empty file".into(),
            total: 0,
        }
    }

    /// Its line in the answer, for the file shown as `shown`.
    pub fn line(&self, shown: &str) -> String {
        format!("==> {shown}: {}{}\n", self.lead, self.reason)
    }
}

/// How an entry ended up, as every sections answer reports it (its own fields follow): its path
/// as shown, its status (`not_reached` until the answer reaches it), why it is not shown (empty
/// otherwise), and the lines in its file (0 when not read).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    pub path: String,
    pub status: &'static str,
    pub reason: String,
    pub total_lines: u64,
}

impl Report {
    /// The report of an entry the answer did not reach (yet).
    pub fn not_reached(path: &str) -> Report {
        Report {
            path: path.to_string(),
            status: "not_reached",
            ..Report::default()
        }
    }

    /// The report of an entry shown as its note.
    pub fn noted(path: &str, note: &Note) -> Report {
        Report {
            path: path.to_string(),
            status: note.status,
            reason: note.reason.clone(),
            total_lines: note.total,
        }
    }
}

/// What a section holds: a number of items (lines, definitions, one note), and the entry that
/// continues it after some of them.
pub trait Items {
    /// How many items it can show.
    fn items(&self) -> usize;
    /// The `paths` entry that continues the section of `entry` after `shown` of its items.
    fn rest(&self, entry: &Entry, shown: usize) -> Option<String>;
    /// The note it is shown as, when it is one.
    fn note(&self) -> Option<&Note>;
    /// Whether its file was read (else the answer was full before it).
    fn reached(&self) -> bool {
        true
    }
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

/// The section of every proven entry, in order: `body` reads its file (or finds the answer full
/// before it), and progress is reported for each file read. Stops when the call is cancelled.
pub fn read_each<B: Items>(
    session: &Session<'_, '_>,
    ctx: &FileContext<'_>,
    proven: Vec<(Entry, Proven)>,
    mut body: impl FnMut(&Entry, &Proven) -> B,
) -> Result<Vec<Section<B>>, NavError> {
    let total = proven.len();
    let mut sections = Vec::with_capacity(total);
    for (n, (entry, p)) in proven.into_iter().enumerate() {
        if session.cancelled() {
            return Err(Error::Cancelled.into());
        }
        let shown = file::shown_name(ctx, &p.rel).into_string();
        let body = body(&entry, &p);
        if let Some(o) = session.req.observer.filter(|_| body.reached()) {
            o.progress(n + 1, total);
        }
        sections.push(Section { entry, shown, body });
    }
    Ok(sections)
}

/// The report of every section when the answer shows `shown` items of each: `report` makes it
/// from its index, the section, how many items it shows, and the part every report shares
/// (`not_reached`, or its note's when the section is shown as one).
pub fn reports<B: Items, R>(
    sections: &[Section<B>],
    shown: &[usize],
    mut report: impl FnMut(usize, &Section<B>, usize, Report) -> R,
) -> Vec<R> {
    sections
        .iter()
        .enumerate()
        .map(|(s, sec)| {
            let n = shown[s];
            let entry = match sec.body.note() {
                Some(note) if n > 0 => Report::noted(&sec.shown, note),
                _ => Report::not_reached(&sec.shown),
            };
            report(s, sec, n, entry)
        })
        .collect()
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

/// Items the sections can show in all.
pub fn total<B: Items>(sections: &[Section<B>]) -> usize {
    sections.iter().map(Section::items).sum()
}

/// The `paths` that continue the answer showing its first `k` items (empty when complete).
pub fn next_at<B: Items>(sections: &[Section<B>], k: usize) -> Vec<String> {
    next(sections, &allot(sections, k), None)
}

/// Item `i` of the answer as (section, item within it), or `None` past the last.
pub fn locate<B: Items>(sections: &[Section<B>], mut i: usize) -> Option<(usize, usize)> {
    for (s, sec) in sections.iter().enumerate() {
        if i < sec.items() {
            return Some((s, i));
        }
        i -= sec.items();
    }
    None
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

/// The answer showing the first `k` items: the text of the sections that show something, a
/// blank line between two (`section` writes section `s` showing `n` items), then, when it is
/// cut, the line that says so with the `paths` that continue it.
pub fn render<B: Items>(
    sections: &[Section<B>],
    limits: &Limits,
    k: usize,
    mut section: impl FnMut(&mut String, usize, &Section<B>, usize),
) -> String {
    let shown = allot(sections, k);
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
    footer(&mut out, limits, &next(sections, &shown, None));
    out
}

/// An answer of sections as the fit sees it, from what `read` and `outline` each say of theirs:
/// its sections and limits, an item's text and its own count, what a section's header adds,
/// a section's text showing its first `n` items, and how a "too small" error names its first
/// item. The [`Paged`] answer follows, the same for both: one item per row (or note), the
/// sections rendered in order with the footer that continues them.
pub trait Sectioned {
    type Body: Items;
    /// Its sections, and the limits it is fitted to.
    fn frame(&self) -> (&[Section<Self::Body>], &Limits);
    /// Item `j` of section `s` as rendered.
    fn item_text(&self, s: usize, j: usize) -> String;
    /// The tokens of one item's text alone: a guide for the fit.
    fn item_tokens(&self, text: &str) -> usize;
    /// What a section's header adds to its first item's guess, in tokens.
    const HEADER_TOKENS: usize;
    /// Section `s` showing its first `n` items.
    fn section(&self, out: &mut String, s: usize, sec: &Section<Self::Body>, n: usize);
    /// How a "too small" error names the answer showing one item (the answer needs one: its
    /// continuation would be the same call).
    fn one(&self) -> One;
    /// The answer when not even the first item fits whole ([`Paged::part_of_first`]), or
    /// `None` when it cannot show part of one.
    fn cut_first(&self, count: &dyn Fn(&str) -> usize) -> Option<Result<Fitted, Error>>;
}

impl<T: Sectioned> Paged for T {
    /// The `paths` that continue the answer (empty when it is complete).
    type Next = Vec<String>;

    fn items(&self) -> usize {
        total(self.frame().0)
    }

    /// An item's own count; the first of a section carries its header.
    fn cost(&self, i: usize) -> (usize, usize) {
        let Some((s, j)) = locate(self.frame().0, i) else {
            return (0, 0);
        };
        let text = self.item_text(s, j);
        let header = if j == 0 { T::HEADER_TOKENS } else { 0 };
        (self.item_tokens(&text) + header, text.len())
    }

    fn render(&self, k: usize) -> String {
        let (sections, limits) = self.frame();
        render(sections, limits, k, |out, s, sec, n| {
            self.section(out, s, sec, n)
        })
    }

    fn next(&self, k: usize) -> Vec<String> {
        next_at(self.frame().0, k)
    }

    fn needs_one(&self) -> Option<One> {
        Some(self.one())
    }

    fn part_of_first(
        &self,
        _limits: Limits,
        count: &dyn Fn(&str) -> usize,
    ) -> Option<Result<Fitted, Error>> {
        self.cut_first(count)
    }
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
    paging::continued(s, "next_paths", next.is_empty(), next)
}
