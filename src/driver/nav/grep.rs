//! `grep`: the lines matching a pattern, grouped by file in path order, with line numbers and
//! context, the totals, and the exact continuation when cut.
//!
//! It searches the text the model would be shown and nothing else: the walk is `extract`'s
//! (ignore files, hidden files, include/exclude), every file goes through the per-file step
//! `extract` uses, so binary, oversized, sensitive and blocked files are not searched, and the
//! text searched is the scanned text, with secrets already redacted under the policy in force.
//! A pattern can therefore tell nothing about a secret that `extract` does not show: every guess
//! at a redacted key gets the same answer. Not-searched files are counted by reason, never named.
//! Each file is read and searched as soon as the walk finds it ([`Session::walk_each_named`]),
//! on the walk's threads; the outcomes are put back in path order before anything is counted or
//! shown, so the answer does not depend on the order the threads met the files in.
//!
//! The answer shows matches in order (path, then line), each with its context rows, up to
//! `max_matches` and as many as fit the budget and the byte ceiling exactly. It always gives the
//! totals (matches and files in the whole search), and when cut, the `after` argument
//! (`path:line`, the last match shown) that continues it; following continuations lists every
//! match exactly once. Shown rows are cut to [`MAX_ROW_BYTES`] around the match.

use crate::driver::call::paging::{self, Limits, One, Paged};
use crate::driver::call::paths::{prove, quote, repo_root};
use crate::driver::call::request::{NavError, Request};
use crate::driver::call::session::Session;
use crate::driver::call::{Answer, args};
use crate::driver::file::{Body, BodyText};
use crate::error::Error;
use crate::stages::grep::{Matcher, PatternOptions};
use crate::vocab::ErrorKind;
use serde::Serializer;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Most bytes of one row shown; a longer row is cut around its first match.
pub const MAX_ROW_BYTES: usize = 300;
/// Most context rows on each side of a match.
pub const MAX_CONTEXT: usize = 50;
/// Matches shown when `max_matches` is not given.
pub const DEFAULT_MAX_MATCHES: usize = 200;

/// What to search for: a `grep` call's arguments, as the CLI's flags give them and as a tool call's
/// JSON is read ([`crate::driver::call::args`]; the `grep` tool's input schema is derived from
/// them).
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema, clap::Args)]
pub struct GrepArgs {
    /// A Rust regex, matched against every line.
    #[serde(deserialize_with = "args::text")]
    pub pattern: String,
    /// Match the pattern as a string, not a regex.
    #[arg(short = 'F', long)]
    #[serde(default, deserialize_with = "args::or_default")]
    pub fixed_strings: bool,
    /// Match letters in either case (default false).
    #[arg(short, long)]
    #[serde(default, deserialize_with = "args::or_default")]
    pub ignore_case: bool,
    /// Lines shown around each match (at most 50).
    #[arg(short = 'C', long, value_name = "N", default_value_t = 0)]
    #[serde(default, deserialize_with = "args::count")]
    pub context: usize,
    /// Most matches shown (default 200), all counted.
    #[arg(short = 'm', long, value_name = "N")]
    #[serde(default, deserialize_with = "args::some_count")]
    pub max_matches: Option<usize>,
    /// The continuation a cut answer gives, as given.
    #[arg(long, value_name = "PATH:LINE")]
    #[serde(default, deserialize_with = "args::some_path")]
    pub after: Option<String>,
    /// Count the answer's tokens even without a budget (the CLI, which prints no count, does
    /// not, and so never loads a tokenizer for an uncut answer).
    #[arg(skip)]
    #[serde(skip_deserializing, default = "args::counted")]
    pub count: bool,
}

impl GrepArgs {
    /// How the pattern is matched.
    pub fn options(&self) -> PatternOptions {
        PatternOptions {
            fixed_strings: self.fixed_strings,
            ignore_case: self.ignore_case,
        }
    }
}

/// One match as shown.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Match {
    /// The file, relative to the root, escaped for display.
    pub path: String,
    /// The matching line's number, 1-based.
    pub line: u32,
    /// The row as shown (cut around the match when long).
    pub text: String,
}

/// What `grep` found: the totals, the matches shown, and the `after` argument that continues
/// the answer (empty when it is complete).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct GrepFacts {
    /// Matching lines in the whole search, and files holding them.
    pub total_matches: usize,
    /// Files holding a match.
    pub total_files: usize,
    /// Files searched.
    pub files_searched: usize,
    /// Files not searched, by reason (`binary`, `too_large`, `sensitive`, ...).
    pub not_searched: BTreeMap<&'static str, usize>,
    /// 1-based position of the first shown match among all of them (0 when none is shown).
    pub first: usize,
    /// The matches shown, in file and line order.
    pub matches: Vec<Match>,
    /// The `after` argument that continues the answer; empty when it is complete.
    #[serde(flatten, serialize_with = "after")]
    pub next: String,
}

/// What `grep` answers.
pub type GrepAnswer = Answer<GrepFacts>;

/// How a grep answer says where it continues: `complete`, and the `after` that continues it
/// (empty when complete).
fn after<S: Serializer>(next: &str, s: S) -> Result<S::Ok, S::Error> {
    paging::continued(s, "after", next.is_empty(), next)
}

/// A searched file with matches: its path, its text and its matching lines.
struct Hit {
    rel: Vec<u8>,
    path: String,
    body: Option<Body>,
    lines: Vec<u32>,
}

/// Search `req`'s repository.
pub fn grep(req: &Request<'_>, args: &GrepArgs) -> Result<GrepAnswer, NavError> {
    let matcher = Matcher::new(&args.pattern, args.options())
        .map_err(|m| NavError::argument(ErrorKind::InvalidPattern, format!("pattern: {m}")))?;
    if args.context > MAX_CONTEXT {
        return Err(NavError::invalid(format!(
            "context is {}; at most {MAX_CONTEXT} rows on each side",
            args.context
        )));
    }
    let max_matches = args.max_matches.unwrap_or(DEFAULT_MAX_MATCHES);
    if max_matches == 0 {
        return Err(NavError::invalid(
            "max_matches is 0; give at least 1, or leave it out for the default",
        ));
    }
    let after = match &args.after {
        Some(a) => Some(parse_after(req, a)?),
        None => None,
    };
    let session = Session::open(req)?;
    let fo = session.file_options(false, None);
    let mut ctx = session.context(&fo)?;
    // Files whose text cannot match are read and classified, but neither scanned nor searched.
    ctx.prefilter = matcher.prefilter();
    // Findings are not part of an answer: in warn mode no scan is needed.
    ctx.findings_unused = true;
    let is_after = |rel: &[u8], line: u32| match &after {
        None => true,
        Some((r, l)) => rel > r.as_slice() || (rel == r.as_slice() && line > *l),
    };
    let stop = || session.cancelled();
    // Files are read and searched as the walk finds them; the outcomes come back in path order.
    let (sourced, searched) = session.walk_each_named(&ctx, |c, path, (r, _)| match r {
        Err(reason) => Ok::<_, Error>(Err(reason.kind())),
        Ok(body) => {
            let lines = matcher.lines(&body.text, &stop).ok_or(Error::Cancelled)?;
            let wanted = lines.last().is_some_and(|&l| is_after(&c.rel, l));
            Ok(Ok(Hit {
                rel: c.rel.clone(),
                path,
                body: wanted.then_some(body),
                lines,
            }))
        }
    })?;
    let mut not_searched: BTreeMap<&'static str, usize> = BTreeMap::new();
    for s in &sourced.skipped {
        *not_searched.entry(s.reason.kind()).or_default() += 1;
    }
    let mut hits = Vec::new();
    let mut files_searched = 0;
    for r in searched {
        match r? {
            Err(kind) => *not_searched.entry(kind).or_default() += 1,
            Ok(hit) => {
                files_searched += 1;
                if !hit.lines.is_empty() {
                    hits.push(hit);
                }
            }
        }
    }
    let total_matches: usize = hits.iter().map(|h| h.lines.len()).sum();
    // The matches after the position, in order, up to max_matches: (hit, index in its lines).
    let mut before = 0;
    let mut items: Vec<(usize, usize)> = Vec::new();
    let mut capped = false;
    for (h, hit) in hits.iter().enumerate() {
        for (j, &line) in hit.lines.iter().enumerate() {
            if !is_after(&hit.rel, line) {
                before += 1;
            } else if items.len() < max_matches {
                items.push((h, j));
            } else {
                capped = true;
            }
        }
    }
    let (encoding, limits) = (session.encoding(), session.limits());
    let budget = limits.budget;
    let count = paging::counter(encoding, args.count || budget.is_some());
    let r = Render {
        args,
        matcher: &matcher,
        hits: &hits,
        views: hits
            .iter()
            .map(|h| h.body.as_ref().map(View::new))
            .collect(),
        items: &items,
        capped,
        before,
        total_matches,
        files_searched,
        not_searched: &not_searched,
        limits,
        count: &count,
    };
    let fitted = paging::fit(&r, limits, &count)?;
    let k = fitted.k;
    let matches = items[..k]
        .iter()
        .map(|&(h, j)| {
            let line = hits[h].lines[j];
            Match {
                path: hits[h].path.clone(),
                line,
                text: r.row_text(h, line, true),
            }
        })
        .collect();
    Ok(Answer {
        page: fitted.page(encoding, budget),
        facts: GrepFacts {
            next: r.next(k).unwrap_or_default(),
            total_matches,
            total_files: hits.len(),
            files_searched,
            first: if k > 0 { before + 1 } else { 0 },
            matches,
            not_searched,
        },
    })
}

/// Parse and prove `after` (`path:line`): the position's path (raw, relative) and line.
fn parse_after(req: &Request<'_>, given: &str) -> Result<(Vec<u8>, u32), NavError> {
    let bad = || {
        NavError::invalid(format!(
            "after {}: write path:line, the position a previous answer's continuation \
             gives, e.g. \"src/main.rs:120\"",
            quote(given)
        ))
    };
    let (path, line) = given.rsplit_once(':').ok_or_else(bad)?;
    if line.is_empty() || !line.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let line: u32 = line.parse().map_err(|_| bad())?;
    let root = repo_root(req)?;
    let p = prove(&root, "after", path)?;
    if p.is_dir() {
        return Err(NavError::argument(
            ErrorKind::NotAFile,
            format!(
                "after {}: {} is a directory; after names a file and a line",
                quote(given),
                quote(path)
            ),
        ));
    }
    Ok((p.rel, line))
}

/// Line offsets of a hit's text.
struct View<'b> {
    text: &'b str,
    /// Start of each line.
    starts: Vec<usize>,
}

impl<'b> View<'b> {
    fn new(body: &'b Body) -> View<'b> {
        let text: &str = match &body.text {
            BodyText::Shared(t) => &t.text,
            BodyText::Redacted(s) | BodyText::Skeleton(s) => s,
            BodyText::Unmatched => "",
        };
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        if starts.last() == Some(&text.len()) && !text.is_empty() {
            starts.pop();
        }
        View { text, starts }
    }

    fn lines(&self) -> u32 {
        self.starts.len() as u32
    }

    /// Line `n` (1-based): its range in the text.
    fn line(&self, n: u32) -> (usize, usize) {
        let start = self.starts[(n - 1) as usize];
        let end = self
            .starts
            .get(n as usize)
            .map_or(self.text.len(), |&next| next - 1);
        (start, end)
    }
}

struct Render<'a> {
    args: &'a GrepArgs,
    matcher: &'a Matcher,
    hits: &'a [Hit],
    views: Vec<Option<View<'a>>>,
    items: &'a [(usize, usize)],
    capped: bool,
    before: usize,
    total_matches: usize,
    files_searched: usize,
    not_searched: &'a BTreeMap<&'static str, usize>,
    limits: Limits,
    count: &'a dyn Fn(&str) -> usize,
}

impl Render<'_> {
    /// Row `line` of hit `h`, cut to [`MAX_ROW_BYTES`] (around the first match when `is_match`).
    fn row_text(&self, h: usize, line: u32, is_match: bool) -> String {
        let Some(view) = &self.views[h] else {
            return String::new();
        };
        let (start, end) = view.line(line);
        let row = &view.text[start..end];
        if row.len() <= MAX_ROW_BYTES {
            return row.to_string();
        }
        let at = if is_match {
            self.matcher
                .find_in(view.text, start, end)
                .map_or(0, |(s, _)| s)
        } else {
            0
        };
        let mut from = at.saturating_sub(MAX_ROW_BYTES / 4);
        while !row.is_char_boundary(from) {
            from -= 1;
        }
        let mut to = (from + MAX_ROW_BYTES).min(row.len());
        while !row.is_char_boundary(to) {
            to -= 1;
        }
        format!(
            "{}{}{} [row of {} bytes cut]",
            if from > 0 { "[…]" } else { "" },
            &row[from..to],
            if to < row.len() { "[…]" } else { "" },
            row.len()
        )
    }

    /// Append item `i` (a match and its context); `prev` is the previous item shown, if any, so
    /// rows it already showed are not repeated and a new file gets its header.
    fn group(&self, out: &mut String, i: usize, prev: Option<usize>) {
        let (h, j) = self.items[i];
        let hit = &self.hits[h];
        let Some(view) = &self.views[h] else {
            return;
        };
        let line = hit.lines[j];
        let c = self.args.context as u32;
        let mut from = line.saturating_sub(c).max(1);
        match prev.map(|p| self.items[p]) {
            Some((ph, pj)) if ph == h => {
                let prev_end = (hit.lines[pj] + c).min(view.lines());
                if from <= prev_end {
                    from = prev_end + 1;
                } else {
                    out.push_str("--\n");
                }
            }
            _ => {
                if prev.is_some() {
                    out.push('\n');
                }
                let n = hit.lines.len();
                let _ = writeln!(
                    out,
                    "==> {}: {n} {}",
                    hit.path,
                    if n == 1 { "match" } else { "matches" }
                );
            }
        }
        let to = (line + c).min(view.lines());
        for n in from..=to {
            let is_match = hit.lines.binary_search(&n).is_ok();
            let mark = if is_match { ':' } else { '-' };
            let _ = writeln!(out, "{n}{mark}{}", self.row_text(h, n, is_match));
        }
    }

    /// The summary line(s) every answer starts with.
    fn head(&self) -> String {
        let a = self.args;
        let mut out = format!("grep {}", quote(&a.pattern));
        let mut flags = Vec::new();
        if a.fixed_strings {
            flags.push("fixed string");
        }
        if a.ignore_case {
            flags.push("ignore case");
        }
        if !flags.is_empty() {
            let _ = write!(out, " ({})", flags.join(", "));
        }
        let files = self.hits.len();
        let _ = write!(
            out,
            ": {} {} in {files} {}; {} files searched",
            self.total_matches,
            if self.total_matches == 1 {
                "match"
            } else {
                "matches"
            },
            if files == 1 { "file" } else { "files" },
            self.files_searched
        );
        if !self.not_searched.is_empty() {
            let _ = write!(out, "; not searched: {}", paging::tally(self.not_searched));
        }
        out.push('\n');
        if let Some(after) = &a.after {
            let _ = writeln!(
                out,
                "after {}: {} matches follow",
                quote(after),
                self.total_matches - self.before
            );
        }
        out
    }
}

impl Paged for Render<'_> {
    type Next = Option<String>;

    fn items(&self) -> usize {
        self.items.len()
    }

    fn cost(&self, i: usize) -> (usize, usize) {
        paging::alone(self.count, |o| self.group(o, i, None))
    }

    /// The answer showing the first `k` items.
    fn render(&self, k: usize) -> String {
        let mut out = self.head();
        for i in 0..k {
            if i == 0 {
                out.push('\n');
            }
            self.group(&mut out, i, i.checked_sub(1));
        }
        if let Some(next) = self.next(k) {
            let why = paging::why(k < self.items.len(), &self.limits, || {
                format!("max_matches ({}) reached", self.items.len())
            });
            let shown = paging::shown(("matches", "match"), self.before, k, self.total_matches);
            paging::continuation(&mut out, &shown, &why, "after", next);
        }
        out
    }

    /// The `after` that continues an answer showing `k` items, if it is cut.
    fn next(&self, k: usize) -> Option<String> {
        if k == self.items.len() && !self.capped {
            return None;
        }
        match k.checked_sub(1).map(|i| self.items[i]) {
            Some((h, j)) => Some(format!("{}:{}", self.hits[h].path, self.hits[h].lines[j])),
            // Nothing shown: continue from where this answer started.
            None => Some(self.args.after.clone().unwrap_or_else(|| {
                let (h, _) = self.items[0];
                format!("{}:0", self.hits[h].path)
            })),
        }
    }

    /// Without one match shown the continuation would be this very call again.
    fn needs_one(&self) -> Option<One> {
        Some(One {
            what: "one match: the first, with its context and the summary, would",
            advice: ", or lower context",
        })
    }
}
