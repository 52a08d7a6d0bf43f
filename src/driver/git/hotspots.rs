//! `hotspots`: the files ranked by recent churn, read from the history in-process (never by
//! running git), as `log` reads it: each commit from HEAD, newest first, against its first
//! parent (merges counted as walked but left out, as their changes are their parents').
//!
//! The window: commits committed since `since` (a date as `log` takes it); by default the 90
//! days before the newest commit's date (not today's: a quiet repository still has a window),
//! and in either case at most `max_commits` commits (default 500, at most 5000). The walk is
//! also bounded in time ([`MAX_TIME`]) and by the call's git object caps; a bound that stops it
//! is said in the header, with what was seen so far ranked.
//!
//! Per file (under `path`, when given): the commits that changed it, lines added and removed
//! (counted as `log` counts them, on the text as served: binary, too-large and sensitive sides
//! count no lines), its last change, its distinct authors (the one with most commits shown,
//! through the name renderer and redaction as `log` shows authors), its size at HEAD, and the
//! three files that change most with it (each shared commit weighing `1 / (files - 1)`, as
//! co-change weighs it). A commit of more than [`SWEEP_FILES`] files (a reformat, a vendored
//! update) counts as a commit for each file but adds no lines and no co-change.
//!
//! The score: `Σ 0.5^(age_days / 30) + 0.5 · ln(1 + added + removed)`: each commit weighs by
//! its recency (half-life 30 days, age from the newest commit walked), plus the lines changed on
//! a log scale. Ties are broken by path, so continuations (`offset`) list every file once.

use super::log::Sides;
use super::{Side, format_date, git_error, open, path_arg, shown, since_arg};
use crate::driver::call::{Answer, NavError, Request, args, paging};
use crate::error::Error;
use crate::stages::git::diff as line_diff;
use crate::stages::git::history::Parent;
use crate::stages::git::tree::{CacheTree, MODE_COMMIT, PathFilter};
use crate::stages::git::{Blob, GitError, is_binary, short};
use crate::vocab::ErrorKind;
use gix::ObjectId;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// Commits walked when `max_commits` is not given.
pub const DEFAULT_MAX_COMMITS: usize = 500;
/// The most commits one call may walk.
pub const MAX_COMMITS: usize = 5000;
/// The window when `since` is not given: this many days before the newest commit.
pub const DEFAULT_DAYS: i64 = 90;
/// Files shown when `limit` is not given, and the most one answer may show.
pub const DEFAULT_LIMIT: usize = 20;
/// The most files one answer may show.
pub const MAX_LIMIT: usize = 100;
/// A commit changing more files than this is a sweep: counted, but no lines nor co-change.
pub const SWEEP_FILES: usize = 30;
/// The longest the walk may take.
pub const MAX_TIME: Duration = Duration::from_secs(10);
/// The most co-change pairs kept (new pairs past it are not recorded).
const MAX_PAIRS: usize = 200_000;
/// Co-changed files shown per file.
const WITH: usize = 3;

/// What a `hotspots` call asks, as the CLI gives it and as a tool call's JSON is read.
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema, clap::Args)]
pub struct HotspotsArgs {
    /// Only commits since YYYY-MM-DD, RFC 3339 or @SECONDS (default 90 days before the newest).
    #[arg(long, value_name = "DATE")]
    #[serde(default, deserialize_with = "args::some_text")]
    pub since: Option<String>,
    /// Most commits walked (default 500, at most 5000).
    #[arg(long, value_name = "N")]
    #[serde(default, deserialize_with = "args::some_count")]
    pub max_commits: Option<usize>,
    /// Only files under this file or directory (default: all).
    #[arg(long, value_name = "PATH")]
    #[serde(default, deserialize_with = "args::some_path")]
    pub path: Option<String>,
    /// Most files in the answer; `None` for [`DEFAULT_LIMIT`].
    #[schemars(description = limit_help())]
    #[arg(short = 'n', long, value_name = "N", help = limit_help())]
    #[serde(default, deserialize_with = "args::some_count")]
    pub limit: Option<usize>,
    /// The continuation a cut answer gives, as given.
    #[arg(long, value_name = "N", default_value_t = 0)]
    #[serde(default, deserialize_with = "args::count")]
    pub offset: usize,
    /// Count the answer's tokens even without a budget (the CLI does not).
    #[arg(skip)]
    #[serde(skip_deserializing, default = "args::counted")]
    pub count: bool,
}

/// What `limit` means, for the tool's schema and the CLI's help.
fn limit_help() -> String {
    format!("Most files in this answer, 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT}).")
}

/// One ranked file, for the structured answer.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Hotspot {
    /// The file, relative to the root, escaped for display.
    pub path: String,
    /// Its score: recency-weighted commits plus lines changed on a log scale (see the module).
    pub score: f64,
    /// Commits in the window that changed it.
    pub commits: u32,
    /// Lines added by them.
    pub added: u64,
    /// Lines removed by them.
    pub removed: u64,
    /// How many distinct authors changed it.
    pub authors: usize,
    /// The author with the most of its commits, escaped and redacted.
    pub top_author: String,
    /// The date of its last change (`YYYY-MM-DD`, in the committer's offset).
    pub last_date: String,
    /// The short id of the commit that last changed it.
    pub last_commit: String,
    /// Size at HEAD (`None`: not in HEAD, or not counted).
    pub lines: Option<u64>,
    /// Size at HEAD in bytes (`None`: not in HEAD, or not counted).
    pub bytes: Option<u64>,
    /// The files that change most with it, most first (at most three).
    pub with: Vec<String>,
}

/// What `hotspots` found: the window, the files shown, and the `offset` that continues.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct HotspotsFacts {
    /// Commits walked.
    pub commits_walked: usize,
    /// The window's start, as a date.
    pub since: String,
    /// The bound that stopped the walk (empty when the window's start or the history's did).
    pub stopped: String,
    /// How many files changed in the window (all of them, not only those shown).
    pub files_changed: usize,
    /// The files shown, highest score first.
    pub files: Vec<Hotspot>,
    /// The `offset` that continues, if more files are left.
    #[serde(flatten, serialize_with = "paging::next_offset")]
    pub next_offset: Option<usize>,
}

/// What `hotspots` answers.
pub type HotspotsAnswer = Answer<HotspotsFacts>;

/// What the walk gathered of one file.
#[derive(Default)]
struct Stat {
    commits: u32,
    recency: f64,
    added: u64,
    removed: u64,
    /// The newest commit that changed it: time, offset, id.
    last: Option<(i64, i32, ObjectId)>,
    /// Commits per author (an index into the authors seen).
    authors: HashMap<usize, u32>,
    /// Weight shared with each other file (an index into the paths seen).
    with: HashMap<usize, f64>,
}

/// Run `hotspots`.
pub fn hotspots(req: &Request<'_>, args: &HotspotsArgs) -> Result<HotspotsAnswer, NavError> {
    let max_commits = args::bounded(
        "max_commits",
        args.max_commits,
        DEFAULT_MAX_COMMITS,
        MAX_COMMITS,
    )?;
    let limit = args::limit(args.limit, DEFAULT_LIMIT, MAX_LIMIT)?;
    args::skip("offset", args.offset)?;
    let given_since = since_arg(args.since.as_deref())?;
    let filter = path_arg(args.path.as_ref())?;
    let (session, repo) = open(req)?;
    let fo = session.file_options(false, None);
    let ctx = session.context(&fo)?;
    let Some(head) = repo.head().map_err(git_error)? else {
        return Err(NavError::argument(
            ErrorKind::InvalidRevision,
            "this repository has no commits yet",
        ));
    };
    let head_info = repo.commit(head).map_err(git_error)?;
    let newest = head_info.commit_time;
    let since = given_since.unwrap_or(newest - DEFAULT_DAYS * 86_400);
    let all = PathFilter::default();
    let deadline = Instant::now() + MAX_TIME;

    let mut paths: Vec<Vec<u8>> = Vec::new();
    let mut path_ids: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut authors: Vec<String> = Vec::new();
    let mut author_ids: HashMap<(String, String), usize> = HashMap::new();
    let mut stats: HashMap<usize, Stat> = HashMap::new();
    let mut pairs = 0usize;
    let mut walked = 0usize;
    let mut oldest: Option<(i64, i32)> = None;
    let mut stopped: Option<String> = None;
    let mut err: Option<NavError> = None;
    let mut sides = Sides::default();
    let mut intern = |p: &[u8], paths: &mut Vec<Vec<u8>>| -> usize {
        if let Some(&i) = path_ids.get(p) {
            return i;
        }
        paths.push(p.to_vec());
        path_ids.insert(p.to_vec(), paths.len() - 1);
        paths.len() - 1
    };
    let walk = repo.history(head, |mut step| {
        if session.cancelled() {
            err = Some(Error::Cancelled.into());
            return Ok(false);
        }
        if Instant::now() > deadline {
            stopped = Some(format!("the time bound ({} s)", MAX_TIME.as_secs()));
            return Ok(false);
        }
        if step.info.commit_time < since {
            return Ok(false);
        }
        if walked == max_commits {
            stopped = Some(format!("max_commits ({max_commits})"));
            return Ok(false);
        }
        walked += 1;
        oldest = Some((step.info.time, step.info.offset));
        let parent = match step.parent()? {
            Parent::Root => None,
            Parent::One(tree) => Some(tree),
            Parent::Merge => return Ok(true),
        };
        let info = &step.info;
        let (changes, sweep) =
            match repo.diff_trees_at_most(parent, Some(info.tree), &all, SWEEP_FILES)? {
                Some(c) => (c, false),
                None => (repo.diff_trees(parent, Some(info.tree), &filter)?, true),
            };
        let key = (info.author_name.clone(), info.author_email.clone());
        let author = match author_ids.get(&key) {
            Some(&a) => a,
            None => {
                authors.push(ctx.namer().git_string(&info.author_name));
                author_ids.insert(key, authors.len() - 1);
                authors.len() - 1
            }
        };
        let age_days = (newest - info.commit_time).max(0) as f64 / 86_400.0;
        let recency = 0.5f64.powf(age_days / 30.0);
        let ids: Vec<usize> = changes
            .iter()
            .map(|c| intern(&c.path, &mut paths))
            .collect();
        let weight = 1.0 / (changes.len().max(2) - 1) as f64;
        for (c, &i) in changes.iter().zip(&ids) {
            if !filter.keeps(&c.path) {
                continue;
            }
            let s = stats.entry(i).or_default();
            s.commits += 1;
            s.recency += recency;
            s.last.get_or_insert((info.time, info.offset, info.id));
            *s.authors.entry(author).or_default() += 1;
            if sweep {
                continue;
            }
            for &j in ids.iter().filter(|&&j| j != i) {
                match s.with.get_mut(&j) {
                    Some(w) => *w += weight,
                    None if pairs < MAX_PAIRS => {
                        pairs += 1;
                        s.with.insert(j, weight);
                    }
                    None => {}
                }
            }
            // Lines as log counts them: on the text as served, both sides scanned.
            let path = shown(&ctx, &c.path);
            let lines = sides
                .get(&repo, &ctx, c.old, &c.path, &path, true)
                .and_then(|a| Ok((a, sides.get(&repo, &ctx, c.new, &c.path, &path, false)?)));
            let (a, b) = match lines {
                Ok(ab) => ab,
                Err(e) => {
                    err = Some(e);
                    return Ok(false);
                }
            };
            if let (false, false, Side::Text(a), Side::Text(b)) =
                (a.binary, b.binary, &a.side, &b.side)
            {
                let (added, removed) = line_diff::count(a, b);
                let s = stats.entry(i).or_default();
                s.added += u64::from(added);
                s.removed += u64::from(removed);
            }
        }
        Ok(true)
    });
    match walk {
        Ok(()) => {}
        Err(GitError::Bound(_)) => stopped = Some("the git objects one call may read".into()),
        Err(e) => return Err(git_error(e)),
    }
    if let Some(e) = err {
        return Err(e);
    }

    // Rank.
    let score = |s: &Stat| s.recency + 0.5 * ((1 + s.added + s.removed) as f64).ln();
    let mut ranked: Vec<(usize, f64)> = stats.iter().map(|(&i, s)| (i, score(s))).collect();
    ranked.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| paths[a.0].cmp(&paths[b.0]))
    });
    let files_changed = ranked.len();
    let page: Vec<(usize, f64)> = ranked
        .iter()
        .skip(args.offset)
        .take(limit)
        .copied()
        .collect();
    let more = args.offset + page.len() < files_changed;

    // Sizes at HEAD of the files shown.
    let wanted = PathFilter {
        prefixes: page.iter().map(|(i, _)| paths[*i].clone()).collect(),
    };
    let at_head = if wanted.prefixes.is_empty() {
        Default::default()
    } else {
        repo.files(head_info.tree, &wanted, &CacheTree::default(), &[])
            .map_err(git_error)?
    };
    let mut reports = Vec::with_capacity(page.len());
    for &(i, score) in &page {
        let s = &stats[&i];
        let (mut lines, mut bytes) = (None, None);
        if let Some(at) = at_head.get(&paths[i]).filter(|a| a.mode != MODE_COMMIT) {
            match repo.blob(at.id) {
                Ok(Blob::Bytes(b)) => {
                    bytes = Some(b.len() as u64);
                    if !is_binary(&b) {
                        let n = b.iter().filter(|&&c| c == b'\n').count() as u64;
                        lines = Some(n + u64::from(b.last().is_some_and(|&c| c != b'\n')));
                    }
                }
                Ok(Blob::TooLarge(n)) => bytes = Some(n),
                Err(GitError::Bound(_)) => {}
                Err(e) => return Err(git_error(e)),
            }
        }
        let mut by: Vec<(&usize, &u32)> = s.authors.iter().collect();
        by.sort_by(|a, b| b.1.cmp(a.1).then_with(|| authors[*a.0].cmp(&authors[*b.0])));
        let mut with: Vec<(&usize, &f64)> = s.with.iter().collect();
        with.sort_by(|a, b| {
            b.1.total_cmp(a.1)
                .then_with(|| paths[*a.0].cmp(&paths[*b.0]))
        });
        let (time, offset, id) = s.last.unwrap_or((0, 0, head));
        reports.push(Hotspot {
            path: shown(&ctx, &paths[i]),
            score: (score * 1000.0).round() / 1000.0,
            commits: s.commits,
            added: s.added,
            removed: s.removed,
            authors: s.authors.len(),
            top_author: by
                .first()
                .map(|a| authors[*a.0].clone())
                .unwrap_or_default(),
            last_date: format_date(time, offset)[..10].to_string(),
            last_commit: short(&id),
            lines,
            bytes,
            with: with
                .iter()
                .take(WITH)
                .map(|(j, _)| shown(&ctx, &paths[**j]))
                .collect(),
        });
    }

    let since_text = format_date(since, head_info.offset)[..10].to_string();
    let mut header = format!("hotspots: {walked} commits walked");
    if let Some((t, o)) = oldest {
        let _ = write!(
            header,
            ", {} to {}",
            &format_date(t, o)[..10],
            &format_date(head_info.time, head_info.offset)[..10]
        );
    }
    match given_since {
        Some(_) => {
            let _ = write!(header, " (since {since_text})");
        }
        None => {
            let _ = write!(
                header,
                " (since {since_text}, {DEFAULT_DAYS} days before the newest commit)"
            );
        }
    }
    let _ = write!(header, "; {files_changed} files changed");
    if let Some(s) = &stopped {
        let _ = write!(header, "; stopped by {s}: older commits not counted");
    }
    header.push('\n');
    let items: Vec<String> = reports.iter().map(item_text).collect();
    let (encoding, limits) = (session.encoding(), session.limits());
    let budget = limits.budget;
    let r = Render {
        header: &header,
        items: &items,
        files_changed,
        more,
        limit,
        offset: args.offset,
        limits,
    };
    let count = paging::counter(encoding, args.count || budget.is_some());
    let fitted = paging::fit(&r, limits, &count)?;
    let next_offset = paging::Paged::next(&r, fitted.k);
    reports.truncate(fitted.k);
    Ok(Answer {
        page: fitted.page(encoding, budget),
        facts: HotspotsFacts {
            commits_walked: walked,
            since: since_text,
            stopped: stopped.unwrap_or_default(),
            files_changed,
            files: reports,
            next_offset,
        },
    })
}

/// Renders answers for hotspots: the header, the files shown, then the continuation.
struct Render<'a> {
    header: &'a str,
    items: &'a [String],
    files_changed: usize,
    /// More files changed than `limit` lets this answer show.
    more: bool,
    limit: usize,
    /// Files left out before the first (the call's `offset`).
    offset: usize,
    limits: paging::Limits,
}

impl paging::Paged for Render<'_> {
    /// The `offset` that continues the answer, if there is more.
    type Next = Option<usize>;

    fn items(&self) -> usize {
        self.items.len()
    }

    fn cost(&self, i: usize) -> (usize, usize) {
        let t = &self.items[i];
        (t.len() / 3 + 4, t.len() + 1)
    }

    fn render(&self, k: usize) -> String {
        let mut out = self.header.to_string();
        if self.files_changed == 0 {
            out.push_str("(no file changed in the window)\n");
        }
        for t in &self.items[..k] {
            out.push_str(t);
        }
        let cut = k < self.items.len();
        if cut || self.more {
            let limit = self.limit;
            let why = paging::why(cut, &self.limits, || format!("limit ({limit}) reached"));
            let shown = paging::shown(("files", "file"), self.offset, k, self.files_changed);
            paging::continuation(&mut out, &shown, &why, "offset", self.offset + k);
        }
        out
    }

    fn next(&self, k: usize) -> Option<usize> {
        (k < self.items.len() || self.more).then_some(self.offset + k)
    }

    fn needs_one(&self) -> Option<paging::One> {
        Some(paging::One {
            what: "the first file, which would",
            advice: "",
        })
    }
}

/// One file as the text shows it: its line, and the files that change with it.
fn item_text(h: &Hotspot) -> String {
    let size = match (h.lines, h.bytes) {
        (Some(l), _) => format!("size {l} lines"),
        (None, Some(b)) => format!("size {b} bytes"),
        (None, None) => "not in HEAD".to_string(),
    };
    let mut out = format!(
        "{}  commits {}  +{} -{}  authors {} (top {})  last {} ({})  {size}\n",
        h.path, h.commits, h.added, h.removed, h.authors, h.top_author, h.last_date, h.last_commit
    );
    if !h.with.is_empty() {
        let _ = writeln!(out, "    with: {}", h.with.join(", "));
    }
    out
}
