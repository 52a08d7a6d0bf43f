//! `read`: the lines of one or more files, by range, numbered, exactly within a token budget and
//! a byte ceiling, with the exact continuation when cut.
//!
//! Each entry is `path`, `path:START-END`, `path:START-` or `path:N` (1-based, inclusive; the
//! range is what follows the *last* `:`, so `a:b.txt:1-` reads `a:b.txt`). Every path is proven
//! inside the repo before anything is read. Files are read by the per-file step `extract` uses:
//! regular files only, opened beneath the repo and checked against the proof's identity, binary,
//! sensitive and hard-linked files reported and not shown, secrets handled by the policy in
//! force (redacted by default in gnaw-mcp), non-UTF-8 text marked. The whole file is scanned
//! before any range of it is cut out, so a range can never show part of a secret.
//!
//! A file over `max_file_size` is read only when a range is given, up to the operator's ceiling
//! ([`crate::driver::call::session::Session::range_ceiling`]). Lines are shown as the scanned text
//! has them.
//!
//! The answer is the sections of the entries in order (a header, then `N | line` rows), cut so
//! that its exact token count is within the budget and its size within the ceiling. When cut, its
//! last line names the `paths` argument that continues it: the rest of the cut file's range and
//! every entry not reached, as given. Following continuations shows every line exactly once. A
//! single line too long for the whole budget is shown cut, and marked so.

use super::sections::{self, Items, Note, Report, Sectioned};
use crate::driver::call::Answer;
use crate::driver::call::paging::{self, Fitted, Limits, One};
use crate::driver::call::paths::Proven;
use crate::driver::call::request::{NavError, Request};
use crate::driver::call::session::Session;
use crate::driver::file::FileContext;
use crate::error::Error;
use crate::stages::count;
use crate::stages::filter::Filter;
use crate::vocab::{Candidate, Encoding, SkipReason};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt::Write as _;

pub use super::sections::{Entry, MAX_PATHS, parse_entry, prove_entries};

/// What to read: a `read` call's arguments, as the CLI's arguments give them and as a tool call's
/// JSON is read ([`crate::driver::call::args`]; the `read` tool's input schema is derived from
/// them).
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema, clap::Args)]
pub struct ReadArgs {
    /// Each "path", "path:START-END", "path:START-" or "path:N" (1-based).
    #[schemars(length(min = 1, max = MAX_PATHS))]
    #[arg(required = true, value_name = "PATH[:RANGE]")]
    #[serde(deserialize_with = "crate::driver::call::args::path_list")]
    pub paths: Vec<String>,
}

/// Rows longer than this are estimated, not counted, when guessing the fit.
const HUGE_ROW: usize = 64 << 10;

/// How one entry ended up: its status is `shown`, `partial`, `empty`, `not_shown` or
/// `not_reached`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct FileReport {
    /// The file's entry: its path, status, and why it is not shown.
    #[serde(flatten)]
    pub entry: Report,
    /// First and last line shown (0 when none).
    pub start: u64,
    /// Last line shown (0 when none).
    pub end: u64,
    /// Exact tokens of the shown rows (counted alone).
    pub tokens: usize,
    /// The file was not valid UTF-8 and was decoded lossily.
    pub lossy: bool,
}

impl FileReport {
    /// The report that says only what every entry's does.
    fn of(entry: Report) -> FileReport {
        FileReport {
            entry,
            ..FileReport::default()
        }
    }
}

/// What `read` found: how each entry ended up, and the `paths` that continue the answer.
pub type ReadFacts = sections::Facts<FileReport>;

/// What `read` answers.
pub type ReadAnswer = Answer<ReadFacts>;

/// A read entry's content.
enum Body {
    /// Rows `start..start + lines.len()` of a file of `total` lines; the range ends at `last`.
    Lines {
        total: u64,
        start: u64,
        last: u64,
        lines: Vec<String>,
        lossy: bool,
    },
    /// One line of note instead of rows.
    Note(Note),
    /// Not read: the answer was full before it.
    NotReached,
}

type Section = sections::Section<Body>;

impl Items for Body {
    fn items(&self) -> usize {
        match self {
            Body::Lines { lines, .. } => lines.len(),
            Body::Note(..) => 1,
            Body::NotReached => 0,
        }
    }

    fn rest(&self, entry: &Entry, shown: usize) -> Option<String> {
        match self {
            Body::Lines { start, last, .. } if shown > 0 => {
                let next = start + shown as u64;
                (next <= *last).then(|| match entry.end {
                    Some(e) => format!("{}:{next}-{e}", entry.path),
                    None => format!("{}:{next}-", entry.path),
                })
            }
            Body::Note(..) if shown > 0 => None,
            _ => Some(entry.given.clone()),
        }
    }

    fn note(&self) -> Option<&Note> {
        match self {
            Body::Note(note) => Some(note),
            _ => None,
        }
    }

    fn reached(&self) -> bool {
        !matches!(self, Body::NotReached)
    }
}

/// Read `paths` in `req`'s repository.
pub fn read(req: &Request<'_>, paths: &[String]) -> Result<ReadAnswer, NavError> {
    let proven = prove_entries(req, paths, "[\"src/main.rs\"] or [\"src/main.rs:1-200\"]")?;
    let session = Session::open(req)?;
    let fo = session.file_options(false, None);
    let ctx = session.context(&fo)?;
    let big_fo = session.file_options(false, Some(session.range_ceiling()));
    let big_ctx = session.context(&big_fo)?;
    let excluded = session.filter(&[])?;
    let limits = session.limits();
    let budget = limits.budget;
    // Rows are copied out of a file only while the answer could still show them.
    let mut allowance = limits
        .max_bytes
        .min(budget.map_or(usize::MAX, |b| b.saturating_mul(16)));
    let sections = sections::read_each(&session, &ctx, proven, |entry, p| {
        if allowance == 0 {
            Body::NotReached
        } else {
            body(&ctx, &big_ctx, &excluded, entry, p, &mut allowance)
        }
    })?;
    let encoding = session.encoding();
    let count = session.counter();
    let r = Render {
        sections: &sections,
        limits,
        encoding,
        count: &count,
        memo: RefCell::new(HashMap::new()),
    };
    let fitted = paging::fit(&r, limits, &count)?;
    Ok(r.answer(fitted, budget))
}

/// One whole file, as `read` would show all of it: its shown path and its scanned text, without
/// numbers or headers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Whole {
    /// The path as every answer shows it.
    pub shown: String,
    /// The text, secrets handled by the policy in force.
    pub text: String,
    /// Whether bytes that are not UTF-8 were replaced.
    pub lossy: bool,
}

/// Read the file `path` of `req`'s repository whole, by `read`'s road: proven under the repo
/// (a path is taken as it is: no range is parsed from it), `.git`, excluded, sensitive, binary
/// and too-large files refused with the reason `read` gives (`NotSearched`; a directory is
/// `NotAFile`), secrets handled by the policy. What a resource read returns.
pub fn whole(req: &Request<'_>, path: &str) -> Result<Whole, NavError> {
    let root = crate::driver::call::paths::repo_root(req)?;
    let proven = crate::driver::call::paths::prove(&root, "path", path)?;
    let session = Session::open(req)?;
    let fo = session.file_options(false, None);
    let ctx = session.context(&fo)?;
    let excluded = session.filter(&[])?;
    let shown = crate::driver::file::shown_name(&ctx, &proven.rel).into_string();
    let limit = ctx.options.read.max_file_size;
    let scanned = sections::scanned(
        &excluded,
        &proven,
        "a directory",
        |c| crate::driver::file::process_named(&ctx, c).1.0,
        |over| {
            format!(
                "larger than {over} bytes (max_file_size {limit}); read it by range with the read tool"
            )
        },
    );
    if session.cancelled() {
        return Err(Error::Cancelled.into());
    }
    match scanned {
        Ok(body) => {
            let text: &str = &body.text;
            Ok(Whole {
                shown,
                text: text.to_string(),
                lossy: body.lossy,
            })
        }
        Err(why) if proven.is_dir() => Err(NavError::argument(
            crate::vocab::ErrorKind::NotAFile,
            format!("{shown} is {why}; list it with tree"),
        )),
        Err(why) => Err(NavError::argument(
            crate::vocab::ErrorKind::NotSearched,
            format!("{shown} is not shown: {why}"),
        )),
    }
}

/// Read one proven entry into its section body; `allowance` is what rows may still take.
fn body(
    ctx: &FileContext<'_>,
    big_ctx: &FileContext<'_>,
    excluded: &Filter,
    entry: &Entry,
    p: &Proven,
    allowance: &mut usize,
) -> Body {
    let limit = ctx.options.read.max_file_size;
    let ceiling = big_ctx.options.read.max_file_size;
    // A file over the limit is read again up to the ceiling when a range of it is asked for.
    let read = |c: &Candidate| match crate::driver::file::process_named(ctx, c).1.0 {
        Err(SkipReason::TooLarge { .. }) if entry.ranged && ceiling > limit => {
            crate::driver::file::process_named(big_ctx, c).1.0
        }
        outcome => outcome,
    };
    let too_large = |over: u64| {
        if !entry.ranged && ceiling > limit {
            format!(
                "larger than max_file_size ({limit} bytes); read it by range, e.g. \"{}:1-400\" \
                 (a range may read files of up to {ceiling} bytes)",
                entry.path
            )
        } else {
            format!("larger than {over} bytes, the most this server reads of one file")
        }
    };
    let scanned = sections::scanned(
        excluded,
        p,
        "a directory; list it with tree",
        read,
        too_large,
    );
    let body = match scanned {
        Ok(b) => b,
        Err(why) => return Body::Note(Note::not_shown(why, 0)),
    };
    let text: &str = &body.text;
    let total = line_count(text);
    if total == 0 {
        return Body::Note(Note::empty());
    }
    if entry.start > total {
        let why = format!(
            "the range starts at line {} but the file has {total} lines",
            entry.start
        );
        return Body::Note(Note::not_shown(why, total));
    }
    let last = entry.end.map_or(total, |e| e.min(total));
    let mut lines = Vec::new();
    for line in text
        .split('\n')
        .skip((entry.start - 1) as usize)
        .take((last - entry.start + 1) as usize)
    {
        if *allowance == 0 && !lines.is_empty() {
            break;
        }
        *allowance = allowance.saturating_sub(line.len() + 8);
        lines.push(line.to_string());
    }
    Body::Lines {
        total,
        start: entry.start,
        last,
        lines,
        lossy: body.lossy,
    }
}

/// Lines in `text`: a last line without `\n` counts.
pub fn line_count(text: &str) -> u64 {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count() as u64;
    newlines + u64::from(!text.is_empty() && !text.ends_with('\n'))
}

/// Renders answers for a read.
struct Render<'a> {
    sections: &'a [Section],
    limits: Limits,
    encoding: Encoding,
    count: &'a dyn Fn(&str) -> usize,
    /// Tokens of a section's first `n` rows, by (section, n).
    memo: RefCell<HashMap<(usize, usize), usize>>,
}

impl Render<'_> {
    /// Width of the row numbers of section `s`.
    fn width(&self, s: usize) -> usize {
        match &self.sections[s].body {
            Body::Lines { last, .. } => last.to_string().len(),
            _ => 1,
        }
    }

    /// The rows of section `s`, first `n`.
    fn rows(&self, s: usize, n: usize) -> String {
        let mut out = String::new();
        for j in 0..n {
            out.push_str(&self.item_text(s, j));
        }
        out
    }

    fn rows_tokens(&self, s: usize, n: usize, rows: &str) -> usize {
        *self
            .memo
            .borrow_mut()
            .entry((s, n))
            .or_insert_with(|| count::count(self.encoding, rows))
    }

    /// The answer when not even the first row fits: that row cut to the longest prefix that
    /// does, marked, with the continuation after it (`None` when the first item is a note).
    fn cut_first_line(&self, count: &dyn Fn(&str) -> usize) -> Option<Result<Fitted, Error>> {
        let s = self.sections.iter().position(|sec| sec.items() > 0)?;
        let sec = &self.sections[s];
        let Body::Lines {
            total,
            start,
            lines,
            lossy,
            ..
        } = &sec.body
        else {
            return None;
        };
        let line = &lines[0];
        let mut shown = vec![0; self.sections.len()];
        shown[s] = 1;
        let next = sections::next(self.sections, &shown, Some(s));
        let render = |len: usize| {
            let mut out = format!(
                "==> {}: line {start} of {total}, cut to its first {len} of {} bytes: the whole \
                 line does not fit{}\n{start} | {} [line cut]\n",
                sec.shown,
                line.len(),
                lossy_note(*lossy),
                &line[..len]
            );
            sections::footer(&mut out, &self.limits, &next);
            out
        };
        let fits = |len: usize| -> Option<(String, usize)> {
            let text = render(len);
            let tokens = count(&text);
            (text.len() <= self.limits.max_bytes && self.limits.budget.is_none_or(|b| tokens <= b))
                .then_some((text, tokens))
        };
        let boundary = |mut i: usize| {
            while !line.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        let Some(mut best) = fits(0) else {
            let text = render(0);
            return Some(Err(paging::too_small(
                self.limits,
                count(&text),
                text.len(),
            )));
        };
        // Gallop up from a short prefix, then bisect: no count is much longer than the answer.
        let (mut lo, mut hi) = (0, line.len());
        let mut step = 256;
        while step < line.len() {
            let at = boundary(step);
            match fits(at) {
                Some(f) => {
                    best = f;
                    lo = at;
                    step *= 2;
                }
                None => {
                    hi = at;
                    break;
                }
            }
        }
        while hi > lo + 1 {
            let mid = boundary(lo + (hi - lo) / 2);
            if mid <= lo {
                break;
            }
            match fits(mid) {
                Some(f) => {
                    best = f;
                    lo = mid;
                }
                None => hi = mid,
            }
        }
        Some(Ok(Fitted {
            k: usize::MAX,
            text: best.0,
            tokens: best.1,
        }))
    }

    /// The answer for the fitted text (`k == usize::MAX`: the first row was cut).
    fn answer(&self, fitted: Fitted, budget: Option<usize>) -> ReadAnswer {
        let cut = fitted.k == usize::MAX;
        let shown = if cut {
            let mut v = vec![0; self.sections.len()];
            if let Some(s) = self.sections.iter().position(|sec| sec.items() > 0) {
                v[s] = 1;
            }
            v
        } else {
            sections::allot(self.sections, fitted.k)
        };
        let cut_at = cut.then(|| shown.iter().position(|&n| n > 0)).flatten();
        let files = sections::reports(self.sections, &shown, |s, sec, n, mut entry| {
            let Body::Lines {
                total,
                start,
                last,
                lossy,
                ..
            } = &sec.body
            else {
                return FileReport::of(entry);
            };
            entry.total_lines = *total;
            let lossy = *lossy;
            if n == 0 {
                return FileReport {
                    lossy,
                    ..FileReport::of(entry)
                };
            }
            // The first row shown was cut: its section continues after it, and has no count.
            let cut = cut_at == Some(s);
            let end = start + n as u64 - 1;
            entry.status = if end == *last && !cut {
                "shown"
            } else {
                "partial"
            };
            let tokens = if cut {
                0
            } else {
                self.rows_tokens(s, n, &self.rows(s, n))
            };
            FileReport {
                entry,
                start: *start,
                end,
                tokens,
                lossy,
            }
        });
        Answer {
            page: fitted.page(self.encoding, budget),
            facts: sections::Facts {
                next: sections::next(self.sections, &shown, cut_at),
                files,
            },
        }
    }
}

impl Sectioned for Render<'_> {
    type Body = Body;

    /// A huge row is not worth counting to guess: a generous guess sends it to the cut.
    fn item_tokens(&self, text: &str) -> usize {
        if text.len() > HUGE_ROW {
            text.len() / 2
        } else {
            (self.count)(text)
        }
    }

    const HEADER_TOKENS: usize = 12;

    fn frame(&self) -> (&[Section], &Limits) {
        (self.sections, &self.limits)
    }

    /// Item `j` of section `s` as rendered (a row, or the note line).
    fn item_text(&self, s: usize, j: usize) -> String {
        let sec = &self.sections[s];
        match &sec.body {
            Body::Lines { start, lines, .. } => {
                let w = self.width(s);
                format!("{:>w$} | {}\n", start + j as u64, lines[j])
            }
            Body::Note(note) => note.line(&sec.shown),
            Body::NotReached => String::new(),
        }
    }

    fn section(&self, out: &mut String, s: usize, sec: &Section, n: usize) {
        match &sec.body {
            Body::Lines {
                total,
                start,
                lossy,
                ..
            } => {
                let rows = self.rows(s, n);
                let tokens = self.rows_tokens(s, n, &rows);
                let _ = writeln!(
                    out,
                    "==> {}: lines {start}-{} of {total} ({tokens} tokens){}",
                    sec.shown,
                    start + n as u64 - 1,
                    lossy_note(*lossy)
                );
                out.push_str(&rows);
            }
            _ => out.push_str(&self.item_text(s, 0)),
        }
    }

    /// A first file shown as its note when the note does not fit.
    fn one(&self) -> One {
        One {
            what: "the first file's note, with the continuation, would",
            advice: "",
        }
    }

    /// Not even the first row fits: that row, cut.
    fn cut_first(&self, count: &dyn Fn(&str) -> usize) -> Option<Result<Fitted, Error>> {
        self.cut_first_line(count)
    }
}

fn lossy_note(lossy: bool) -> &'static str {
    if lossy {
        " (not valid UTF-8; invalid bytes shown as U+FFFD)"
    } else {
        ""
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse() {
        let e = |s: &str| parse_entry("p", s).unwrap();
        assert_eq!((e("a.rs").path.as_str(), e("a.rs").ranged), ("a.rs", false));
        let r = e("src/a.rs:10-20");
        assert_eq!(
            (r.path.as_str(), r.start, r.end),
            ("src/a.rs", 10, Some(20))
        );
        let r = e("a.rs:401-");
        assert_eq!((r.start, r.end), (401, None));
        let r = e("a.rs:7");
        assert_eq!((r.start, r.end), (7, Some(7)));
        let r = e("a:b.txt:1-");
        assert_eq!(r.path, "a:b.txt");
        assert_eq!(e("c:notarange").path, "c:notarange");
        for bad in ["a.rs:0-3", "a.rs:9-3", ":1-2", "a.rs:99999999999999999999-"] {
            assert!(parse_entry("p", bad).is_err(), "{bad}");
        }
        assert_eq!(line_count(""), 0);
        assert_eq!(line_count("a"), 1);
        assert_eq!(line_count("a\n"), 1);
        assert_eq!(line_count("a\n\nb"), 3);
    }
}
