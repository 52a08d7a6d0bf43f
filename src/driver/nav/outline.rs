//! `outline`: each named file's definitions, nested, one line each (line range, kind, name,
//! signature, first doc line), exactly within a token budget and a byte ceiling, with the exact
//! continuation when cut.
//!
//! Each entry of `paths` is `path`, or `path:START-` / `path:START-END` to outline only the
//! definitions that start in that range (a cut answer continues that way). Paths are proven
//! inside the repo before anything is read, and files are read by the per-file step `extract`
//! uses ([`crate::driver::file`]): what is parsed is the scanned text (redacted under the server's
//! policy), so a signature or doc line shows nothing a `read` would not. A file without a grammar,
//! or past a parse bound, is reported in one line and not outlined; `read` shows it.
//!
//! An agent reads a definition's body with `read path:START-END`, the range the row gives.

use super::sections::Entry;
use super::sections::{self, Items, Note, Report, Sectioned};
use crate::driver::call::Answer;
use crate::driver::call::paging::{self, Fitted, Limits, One, Paged};
use crate::driver::call::paths::Proven;
use crate::driver::call::request::{NavError, Request};
use crate::driver::call::session::Session;
use crate::driver::file::FileContext;
use crate::error::Error;
use crate::stages::filter::Filter;
use crate::stages::syntax::{self, Language, Outline};
use crate::vocab::{Encoding, Symbol};
use std::fmt::Write as _;

/// Most files one call may outline (as many as `read` takes).
pub const MAX_PATHS: usize = sections::MAX_PATHS;

/// What to outline: an `outline` call's arguments, as the CLI's arguments give them and as a tool
/// call's JSON is read ([`crate::driver::call::args`]; the `outline` tool's input schema is derived
/// from them).
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema, clap::Args)]
pub struct OutlineArgs {
    /// Each "path", or "path:START-" for the definitions from line START.
    #[schemars(length(min = 1, max = MAX_PATHS))]
    #[arg(required = true, value_name = "PATH[:START-]")]
    #[serde(deserialize_with = "crate::driver::call::args::path_list")]
    pub paths: Vec<String>,
}

/// How one entry ended up: its status is `shown`, `partial`, `no_outline`, `not_shown` or
/// `not_reached`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct OutlineFile {
    /// The file's entry: its path, status, and why it is not shown.
    #[serde(flatten)]
    pub entry: Report,
    /// The grammar used (empty when none).
    pub language: &'static str,
    /// Definitions in the entry's range, and how many of them are shown.
    pub definitions: usize,
    /// How many definitions are shown.
    pub shown: usize,
}

/// What `outline` found: how each entry ended up, and the `paths` that continue the answer.
pub type OutlineFacts = sections::Facts<OutlineFile>;

/// What `outline` answers.
pub type OutlineAnswer = Answer<OutlineFacts>;

/// One row of an outline: a definition at its nesting depth.
#[derive(Clone, Debug)]
struct Row {
    depth: usize,
    start: u32,
    text: String,
}

enum Body {
    Rows {
        language: Language,
        total: u64,
        rows: Vec<Row>,
    },
    /// One line of note instead of rows.
    Note(Note),
}

type Section = sections::Section<Body>;

impl Body {
    /// A file's language, its line count and its rows; `None` for a note.
    fn rows(&self) -> Option<(Language, u64, &[Row])> {
        match self {
            Body::Rows {
                language,
                total,
                rows,
            } => Some((*language, *total, rows)),
            Body::Note(_) => None,
        }
    }
}

impl Items for Body {
    fn items(&self) -> usize {
        match self {
            Body::Rows { rows, .. } => rows.len().max(1),
            Body::Note(..) => 1,
        }
    }

    fn rest(&self, entry: &Entry, shown: usize) -> Option<String> {
        match self {
            Body::Rows { rows, .. } if shown > 0 => rows.get(shown).map(|r| match entry.end {
                Some(e) => format!("{}:{}-{e}", entry.path, r.start),
                None => format!("{}:{}-", entry.path, r.start),
            }),
            _ if shown > 0 => None,
            _ => Some(entry.given.clone()),
        }
    }

    fn note(&self) -> Option<&Note> {
        match self {
            Body::Note(note) => Some(note),
            Body::Rows { .. } => None,
        }
    }
}

/// One definition's row: `START-END kind: signature  // doc`, with the name before the colon
/// when the signature does not show it (`START-END kind name: signature`).
pub fn row_text(s: &Symbol) -> String {
    let mut out = format!("{} {}", s.lines, s.kind);
    if s.signature.is_empty() || !s.signature.contains(s.name.as_str()) {
        let _ = write!(out, " {}", s.name);
    }
    if !s.signature.is_empty() {
        let _ = write!(out, ": {}", s.signature);
    }
    if let Some(doc) = &s.doc {
        let _ = write!(out, "  // {doc}");
    }
    out
}

/// The definitions of `symbols`, depth first, with their depth. Iterative.
pub fn rows_of(symbols: &[Symbol]) -> Vec<(usize, &Symbol)> {
    let mut out = Vec::new();
    let mut stack: Vec<(usize, &Symbol)> = symbols.iter().rev().map(|s| (0, s)).collect();
    while let Some((d, s)) = stack.pop() {
        out.push((d, s));
        stack.extend(s.children.iter().rev().map(|c| (d + 1, c)));
    }
    out
}

/// Outline `paths` in `req`'s repository.
pub fn outline(req: &Request<'_>, paths: &[String]) -> Result<OutlineAnswer, NavError> {
    let proven = sections::prove_entries(req, paths, "[\"src/main.rs\"]")?;
    let session = Session::open(req)?;
    let fo = session.file_options(false, None);
    let ctx = session.context(&fo)?;
    let excluded = session.filter(&[])?;
    let stop = || session.cancelled();
    let sections = sections::read_each(&session, &ctx, proven, |entry, p| {
        body(&ctx, &excluded, entry, p, &stop)
    })?;
    if session.cancelled() {
        return Err(Error::Cancelled.into());
    }
    let (encoding, limits) = (session.encoding(), session.limits());
    let budget = limits.budget;
    let count = session.counter();
    let r = Render {
        sections: &sections,
        limits,
        count: &count,
    };
    let fitted = paging::fit(&r, limits, &count)?;
    let fitted = r.same_line_cut(fitted);
    Ok(r.answer(fitted, encoding, budget))
}

/// Read and outline one proven entry.
fn body(
    ctx: &FileContext<'_>,
    excluded: &Filter,
    entry: &Entry,
    p: &Proven,
    stop: &dyn Fn() -> bool,
) -> Body {
    let scanned = sections::scanned(
        excluded,
        p,
        "a directory; list its files with tree, then outline them",
        |c| crate::driver::file::process_named(ctx, c).1.0,
        |limit| format!("larger than max_file_size ({limit} bytes); grep it or read it by range"),
    );
    let body = match scanned {
        Ok(b) => b,
        Err(why) => return Body::Note(Note::not_shown(why, 0)),
    };
    let text: &str = &body.text;
    let total = super::read::line_count(text);
    let no_grammar = || {
        let why = format!(
            "no grammar for this file's language ({}); read it",
            lines(total)
        );
        Body::Note(Note::no_outline(why, total))
    };
    let Some(language) = Language::detect(&p.rel) else {
        return no_grammar();
    };
    let symbols = match syntax::outline_of(language, text, &ctx.parse, stop) {
        Outline::Parsed(s) => s,
        Outline::Unsupported => return no_grammar(),
        Outline::Skipped(why) => {
            let why = format!("{why} ({}); read it by range", lines(total));
            return Body::Note(Note::no_outline(why, total));
        }
    };
    let last = entry.end.unwrap_or(u64::MAX);
    let rows = rows_of(&symbols)
        .into_iter()
        .filter(|(_, s)| {
            u64::from(s.lines.start) >= entry.start && u64::from(s.lines.start) <= last
        })
        .map(|(depth, s)| Row {
            depth,
            start: s.lines.start,
            text: row_text(s),
        })
        .collect();
    Body::Rows {
        language,
        total,
        rows,
    }
}

struct Render<'a> {
    sections: &'a [Section],
    limits: Limits,
    count: &'a dyn Fn(&str) -> usize,
}

impl Render<'_> {
    /// A continuation names a line, so a cut between two definitions that start on the same
    /// line would show the first again: cut before both instead, when that still fits and
    /// shows something.
    fn same_line_cut(&self, fitted: Fitted) -> Fitted {
        let shown = sections::allot(self.sections, fitted.k);
        let Some(s) = shown.iter().rposition(|&n| n > 0) else {
            return fitted;
        };
        let Body::Rows { rows, .. } = &self.sections[s].body else {
            return fitted;
        };
        let n = shown[s];
        if n >= rows.len() || rows[n].start != rows[n - 1].start {
            return fitted;
        }
        let mut m = n - 1;
        while m > 0 && rows[m - 1].start == rows[n].start {
            m -= 1;
        }
        if m == 0 && fitted.k == n {
            return fitted;
        }
        let k = fitted.k - (n - m);
        let text = self.render(k);
        let tokens = (self.count)(&text);
        if self.limits.budget.is_none_or(|b| tokens <= b) && text.len() <= self.limits.max_bytes {
            Fitted { k, text, tokens }
        } else {
            fitted
        }
    }

    fn answer(&self, fitted: Fitted, encoding: Encoding, budget: Option<usize>) -> OutlineAnswer {
        let shown = sections::allot(self.sections, fitted.k);
        let files = sections::reports(self.sections, &shown, |_, sec, n, mut entry| {
            let Some((language, total, rows)) = sec.body.rows() else {
                return OutlineFile {
                    entry,
                    ..OutlineFile::default()
                };
            };
            let shown = n.min(rows.len());
            entry.total_lines = total;
            if n > 0 {
                entry.status = if shown == rows.len() {
                    "shown"
                } else {
                    "partial"
                };
            }
            OutlineFile {
                entry,
                language: language.as_str(),
                definitions: rows.len(),
                shown,
            }
        });
        let next = self.next(fitted.k);
        Answer {
            page: fitted.page(encoding, budget),
            facts: sections::Facts { next, files },
        }
    }
}

impl Sectioned for Render<'_> {
    type Body = Body;

    fn frame(&self) -> (&[Section], &Limits) {
        (self.sections, &self.limits)
    }

    /// Item `j` of section `s` as rendered.
    fn item_text(&self, s: usize, j: usize) -> String {
        let sec = &self.sections[s];
        match &sec.body {
            Body::Rows { rows, .. } if rows.is_empty() => String::new(),
            Body::Rows { rows, .. } => {
                let r = &rows[j];
                format!("{}{}\n", "  ".repeat(r.depth), r.text)
            }
            Body::Note(note) => note.line(&sec.shown),
        }
    }

    fn item_tokens(&self, text: &str) -> usize {
        (self.count)(text)
    }

    const HEADER_TOKENS: usize = 16;

    fn section(&self, out: &mut String, s: usize, sec: &Section, n: usize) {
        let Some((language, total, rows)) = sec.body.rows() else {
            out.push_str(&self.item_text(s, 0));
            return;
        };
        let range = match (sec.entry.ranged, rows.first()) {
            (true, _) => format!(", starting in lines {}", range_of(&sec.entry)),
            _ => String::new(),
        };
        let count = if rows.is_empty() {
            "no definitions".to_string()
        } else if rows.len() == 1 {
            "1 definition".to_string()
        } else if n < rows.len() {
            format!("{n} of {} definitions", rows.len())
        } else {
            format!("{} definitions", rows.len())
        };
        let _ = writeln!(
            out,
            "==> {} ({}, {}): {count}{range}",
            sec.shown,
            language.as_str(),
            lines(total)
        );
        for j in 0..n.min(rows.len()) {
            out.push_str(&self.item_text(s, j));
        }
    }

    fn one(&self) -> One {
        One {
            what: "one row: the first file's header and its first definition (or its note), \
                   with the continuation, would",
            advice: "",
        }
    }

    /// A definition is never shown in part.
    fn cut_first(&self, _count: &dyn Fn(&str) -> usize) -> Option<Result<Fitted, Error>> {
        None
    }
}

fn range_of(e: &Entry) -> String {
    match e.end {
        Some(end) => format!("{}-{end}", e.start),
        None => format!("{}-", e.start),
    }
}

/// `N lines`, or `1 line`.
fn lines(n: u64) -> String {
    if n == 1 {
        "1 line".to_string()
    } else {
        format!("{n} lines")
    }
}
