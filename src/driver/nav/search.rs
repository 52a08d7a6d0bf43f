//! `search`: the files of a repository ranked for a query, each with the 1–3 regions that match
//! it best, as `path:START-END` ranges the next `read` can take (the path said once per file),
//! and with `explain` its score's parts.
//!
//! The ranker is `extract --query`'s ([`crate::stages::rank`]), run on the same files and the
//! same text: the walk is `extract`'s (ignore files, hidden files, include/exclude), every file
//! goes through the per-file step `extract` uses, and what is ranked and matched is the scanned
//! text, with secrets already redacted under the policy in force, and the path as it is shown
//! (a secret in a file name is redacted too). A query can therefore tell nothing about a secret
//! that `extract` does not show. Files not searched are counted by reason, never named.
//!
//! The files are ranked from their search index ([`super::repo_index`]): each file's terms, counted
//! once from that shown text and kept in the warm cache, so a warm call re-indexes only the
//! files that changed and scores the rest by lookups ([`rank::rank_indexed`], the same scores as
//! `extract --query`'s). The answer states the index's size beside the text it indexes.
//!
//! A region is a window of lines holding the query's words ([`rank::regions`]); where the
//! file's language has a grammar, it is shown with the innermost definition holding it
//! (`function parse_header`), and as that whole definition when it is at most
//! `MAX_SYMBOL_REGION` lines long; a region no definition holds is shown with the query's words
//! found in it. A test, example, fixture, vendored or generated file is marked with that word
//! ([`rank::secondary_word`]). The answer is what an agent needs to choose what to read: the
//! score and its parts, and the words found in a region a definition names, only with `explain`.
//!
//! The answer lists the matching files best first, from `offset`, at most `limit` of them, and as
//! many as fit the budget and the byte ceiling exactly; when cut it ends with the `offset` that
//! continues it. Ranking is deterministic (ties broken by path), so following continuations lists
//! every matching file exactly once while the repository is unchanged.

use super::repo_index::{self, RepoIndex};
use crate::driver::call::paging::{self, Limits, One, Paged};
use crate::driver::call::paths::quote;
use crate::driver::call::request::{NavError, Request};
use crate::driver::call::session::Session;
use crate::driver::call::{Answer, args};
use crate::driver::file::FileContext;
use crate::error::Error;
use crate::par;
use crate::stages::rank::{self, Indexed, Query, Region, Score};
use crate::vocab::Symbol;
use serde::ser::{SerializeMap, Serializer};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Files shown when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 10;
/// The most files one answer may list.
pub const MAX_LIMIT: usize = 100;
/// The most regions shown for one file.
pub const MAX_REGIONS: usize = 3;

/// What to search for: a `search` call's arguments, as the CLI's flags give them and as a tool
/// call's JSON is read ([`crate::driver::call::args`]; the `search` tool's input schema is derived
/// from them).
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema, clap::Args)]
pub struct SearchArgs {
    /// A name (Config::load), a file name or words.
    #[serde(deserialize_with = "args::text")]
    pub query: String,
    /// Most files in the answer; `None` for [`DEFAULT_LIMIT`].
    #[schemars(description = limit_help())]
    #[arg(short = 'n', long, value_name = "N", help = limit_help())]
    #[serde(default, deserialize_with = "args::some_count")]
    pub limit: Option<usize>,
    /// The continuation a cut answer gives, as given.
    #[arg(long, value_name = "N")]
    #[serde(default, deserialize_with = "args::some_count")]
    pub offset: Option<usize>,
    /// Also show each file's score and what makes it up.
    #[arg(long)]
    #[serde(default, deserialize_with = "args::or_default")]
    pub explain: bool,
}

/// What `limit` means, for the tool's schema and the CLI's help.
fn limit_help() -> String {
    format!("Most files to show, 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT}).")
}

/// One ranked file as shown.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Hit {
    /// 1-based rank among the matching files.
    pub rank: usize,
    /// The file, relative to the root, escaped for display.
    pub path: String,
    /// Its score, and the parts that sum to it.
    #[serde(flatten, serialize_with = "score_and_parts")]
    pub score: Score,
    /// Its best regions, best first.
    pub regions: Vec<Shown>,
}

/// A region as shown: its lines and why.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Shown {
    /// The region's first line.
    pub start: u32,
    /// The region's last line.
    pub end: u32,
    /// The innermost definition holding it (`function parse_header`), when the file's
    /// language has a grammar.
    #[serde(serialize_with = "paging::or_default")]
    pub symbol: Option<String>,
    /// The query terms found in it.
    pub terms: Vec<String>,
}

/// What `search` found: the files the query matches and those shown, best first, the `offset`
/// that continues the answer (`None` when it is complete), and the index it was ranked with.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SearchFacts {
    /// Files the query matches, and files searched.
    pub total_files: usize,
    /// Files searched.
    pub files_searched: usize,
    /// Files not searched, by reason (`binary`, `too_large`, `sensitive`, ...).
    pub not_searched: BTreeMap<&'static str, usize>,
    /// The files shown, best first.
    #[serde(rename = "files")]
    pub hits: Vec<Hit>,
    /// The `offset` that continues the answer; `None` when it is complete.
    #[serde(flatten, serialize_with = "paging::offset")]
    pub next: Option<usize>,
    /// The index the query was ranked with (its sizes).
    #[serde(serialize_with = "index_sizes")]
    pub index: repo_index::IndexStatus,
}

/// What `search` answers.
pub type SearchAnswer = Answer<SearchFacts>;

/// A hit's score as its facts say it: the total, and each part by name.
fn score_and_parts<S: Serializer>(score: &Score, s: S) -> Result<S::Ok, S::Error> {
    let parts: BTreeMap<&str, f64> = score.parts.iter().map(|(p, v)| (p.name(), *v)).collect();
    let mut map = s.serialize_map(Some(2))?;
    map.serialize_entry("score", &score.total)?;
    map.serialize_entry("parts", &parts)?;
    map.end()
}

/// The index's sizes: its files, what their indexes take, what its postings take (0 until a
/// kept index is used again), the text they index.
fn index_sizes<S: Serializer>(index: &repo_index::IndexStatus, s: S) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(4))?;
    map.serialize_entry("files", &index.files)?;
    map.serialize_entry("bytes", &index.bytes)?;
    map.serialize_entry("postings_bytes", &index.postings_bytes)?;
    map.serialize_entry("text_bytes", &index.text_bytes)?;
    map.end()
}

/// Rank `req`'s repository for `args.query`.
pub fn search(req: &Request<'_>, args: &SearchArgs) -> Result<SearchAnswer, NavError> {
    let query = Query::parse(&args.query).map_err(|e| NavError::invalid(format!("query: {e}")))?;
    if query.terms().is_empty() {
        return Err(NavError::invalid(format!(
            "query {}: no word to search for (only punctuation, single letters or lowercase \
             words as common as \"the\"); name what you are looking for, e.g. an identifier or a few words",
            quote(&args.query)
        )));
    }
    let limit = args::limit(args.limit, DEFAULT_LIMIT, MAX_LIMIT)?;
    let offset = args.offset.unwrap_or(0);
    let t0 = std::time::Instant::now();
    // The tokenizer is built while the index is: a counted answer needs it.
    repo_index::open_for_index(req, |session, ctx| {
        repo_index::with_index(session, ctx, |repo| {
            answer(session, ctx, repo, &query, args, (limit, offset), t0)
        })
    })
}

/// The answer to `args` (parsed as `query`) from the repository's index `repo`.
fn answer(
    session: &Session<'_, '_>,
    ctx: &FileContext<'_>,
    repo: &RepoIndex,
    query: &Query,
    args: &SearchArgs,
    (limit, offset): (usize, usize),
    t0: std::time::Instant,
) -> Result<SearchAnswer, NavError> {
    let t_index = t0.elapsed();
    let (kept, index) = (&repo.files, repo.status);
    let not_searched = repo.not_searched.clone();
    let stop = || session.cancelled();
    // Each file's definitions once per call (the warm cache keeps them across calls); the files
    // the re-scoring will ask for are parsed first, on as many threads as the parse workers.
    let outlines = repo_index::Outlines::new(kept, ctx, &stop);
    let (matching, idf) = ranked(ctx, repo, query, &outlines, &stop).ok_or(Error::Cancelled)?;
    let t_rank = t0.elapsed();
    let page: Vec<&(usize, Score)> = matching.iter().skip(offset).take(limit).collect();
    // The page's files' best regions, on the pool's threads, the longest text first (one pass
    // over each text: a long file shown beside short ones should not be the tail of the call).
    let order = par::largest_first(&page, |(i, _)| kept[*i].body.text.len() as u64);
    let finder = rank::Regions::new(query);
    let found_per_hit = par::map(&page, &order, par::threads(), &stop, |(i, _)| {
        finder.find(&kept[*i].body.text, &idf, MAX_REGIONS, &stop)
    })
    .ok_or(Error::Cancelled)?;
    let mut hits = Vec::with_capacity(page.len());
    for (n, ((i, score), found)) in page.iter().zip(found_per_hit).enumerate() {
        let found = found.ok_or(Error::Cancelled)?;
        let symbols = outlines.get(*i).unwrap_or_default();
        let mut regions: Vec<Shown> = Vec::new();
        for r in &found {
            let one = shown(r, query, &symbols);
            // Two windows in one short definition are that definition once.
            if regions
                .iter()
                .any(|o| o.start <= one.end && one.start <= o.end)
            {
                continue;
            }
            regions.push(one);
        }
        hits.push(Hit {
            rank: offset + n + 1,
            path: kept[*i].path.clone(),
            score: score.clone(),
            regions,
        });
    }
    let t_ranked = t0.elapsed();
    let (encoding, limits) = (session.encoding(), session.limits());
    let budget = limits.budget;
    let count = session.counter();
    let r = Render {
        args,
        hits: &hits,
        offset,
        total: matching.len(),
        files_searched: kept.len(),
        not_searched: &not_searched,
        not_parsed: ctx.parse.not_parsed(),
        limits,
        count: &count,
    };
    let fitted = paging::fit(&r, limits, &count)?;
    let k = fitted.k;
    let next = r.next(k);
    hits.truncate(k);
    log::debug!(
        "search timing: index {:?}, rank {:?}, regions {:?}, render {:?}",
        t_index,
        t_rank - t_index,
        t_ranked - t_rank,
        t0.elapsed() - t_ranked
    );
    Ok(Answer {
        page: fitted.page(encoding, budget),
        facts: SearchFacts {
            total_files: matching.len(),
            files_searched: kept.len(),
            not_searched,
            hits,
            next,
            index,
        },
    })
}

/// The matching files (positions in the index) with their scores, best first, and each query
/// term's inverse document frequency.
pub(super) type Ranked = (Vec<(usize, Score)>, Vec<f64>);

/// The files of `repo` that `query` matches, best first, with each query term's inverse
/// document frequency: `extract --query`'s ranking from the index ([`rank::rank_indexed`]), its
/// re-scoring's definitions taken from `outlines`. `None` when `stop` said so.
pub(super) fn ranked(
    ctx: &FileContext<'_>,
    repo: &RepoIndex,
    query: &Query,
    outlines: &repo_index::Outlines<'_>,
    stop: &dyn Fn() -> bool,
) -> Option<Ranked> {
    let kept = &repo.files;
    let files: Vec<Indexed<'_>> = kept
        .iter()
        .map(|f| Indexed {
            path: &f.path,
            index: &f.index,
        })
        .collect();
    // The re-scoring's facts of each file's definitions, kept beside its outline.
    let facts = |i: usize| kept[i].symbol_facts(ctx, || outlines.get(i));
    let prefetch = |wanted: &[usize]| outlines.prefetch(wanted);
    let postings = repo.postings.as_deref();
    let (ranked, idf) = rank::rank_indexed(&files, postings, query, &facts, &prefetch, stop)?;
    let matching = ranked.into_iter().filter(|(_, s)| s.matched()).collect();
    Some((matching, idf))
}

/// The longest definition a region grows to: a window inside a definition at most this long
/// is shown as the whole definition.
const MAX_SYMBOL_REGION: u32 = 80;

/// A region as shown: the innermost definition holding it when there is one, as the whole
/// definition when it is short, else the window inside it.
fn shown(r: &Region, q: &Query, symbols: &[Symbol]) -> Shown {
    let inner = Symbol::walk(symbols)
        .into_iter()
        .map(|(_, s)| s)
        .filter(|s| s.lines.start <= r.start && r.end <= s.lines.end)
        .min_by_key(|s| (s.lines.len(), s.lines.start));
    let (start, end) = match inner {
        Some(s) if s.lines.len() <= MAX_SYMBOL_REGION => (s.lines.start, s.lines.end),
        _ => (r.start, r.end),
    };
    Shown {
        start,
        end,
        symbol: inner.map(|s| format!("{} {}", s.kind, s.name)),
        terms: r.terms.iter().map(|&k| q.words()[k].clone()).collect(),
    }
}

struct Render<'a> {
    args: &'a SearchArgs,
    hits: &'a [Hit],
    offset: usize,
    total: usize,
    files_searched: usize,
    not_searched: &'a BTreeMap<&'static str, usize>,
    /// Files whose definitions could not count (a parse bound), said in the summary.
    not_parsed: Option<String>,
    limits: Limits,
    count: &'a dyn Fn(&str) -> usize,
}

impl Render<'_> {
    /// The summary line every answer starts with.
    fn head(&self) -> String {
        let mut out = format!(
            "search {}: {} {} match of {} searched",
            quote(&self.args.query),
            self.total,
            if self.total == 1 { "file" } else { "files" },
            self.files_searched
        );
        if !self.not_searched.is_empty() {
            let _ = write!(out, "; not searched: {}", paging::tally(self.not_searched));
        }
        if let Some(note) = &self.not_parsed {
            let _ = write!(out, "; ranked without definitions: {note}");
        }
        out.push('\n');
        if self.total > 0 {
            out.push_str(
                "Best first; regions to read as path:START-END, the path said once per file.\n",
            );
        }
        out
    }

    /// Append hit `i`: its rank, what kind of secondary file it is if it is one, its path with
    /// its best region, and one row per further region (`:START-END`, the path said once); a
    /// region shows the definition holding it, or else the query's words found in it. With
    /// `explain`, every region shows its words, and a last row the score and its parts.
    fn hit(&self, out: &mut String, i: usize) {
        let h = &self.hits[i];
        let _ = write!(out, "{}. ", h.rank);
        if let Some(word) = rank::secondary_word(&h.path) {
            let _ = write!(out, "({word}) ");
        }
        out.push_str(&h.path);
        if h.regions.is_empty() {
            out.push('\n');
        }
        for (n, r) in h.regions.iter().enumerate() {
            if n > 0 {
                out.push_str("   ");
            }
            let _ = write!(out, ":{}", r.start);
            if r.end > r.start {
                let _ = write!(out, "-{}", r.end);
            }
            match (&r.symbol, self.args.explain) {
                (Some(sym), false) => {
                    let _ = writeln!(out, "  {sym}");
                }
                (Some(sym), true) => {
                    let _ = writeln!(out, "  {sym}: {}", r.terms.join(", "));
                }
                (None, _) => {
                    let _ = writeln!(out, "  {}", r.terms.join(", "));
                }
            }
        }
        if self.args.explain {
            let parts = h
                .score
                .parts_shown(", ", |name, v| format!("{name} {v:.2}"));
            let _ = writeln!(out, "   score {:.2} ({parts})", h.score.total);
        }
    }
}

impl Paged for Render<'_> {
    type Next = Option<usize>;

    fn items(&self) -> usize {
        self.hits.len()
    }

    fn cost(&self, i: usize) -> (usize, usize) {
        paging::alone(self.count, |o| self.hit(o, i))
    }

    /// The answer showing the first `k` hits.
    fn render(&self, k: usize) -> String {
        let mut out = self.head();
        for i in 0..k {
            self.hit(&mut out, i);
        }
        if let Some(next) = self.next(k) {
            let why = paging::why(k < self.hits.len(), &self.limits, || {
                format!("limit ({}) reached", self.hits.len())
            });
            let shown = paging::shown(("files", "file"), self.offset, k, self.total);
            paging::continuation(&mut out, &shown, &why, "offset", next);
        }
        out
    }

    /// The `offset` that continues an answer showing `k` hits, if there is more.
    fn next(&self, k: usize) -> Option<usize> {
        let shown_to = self.offset + k;
        (shown_to < self.total).then_some(shown_to)
    }

    /// Without one file shown the continuation would be this very call again.
    fn needs_one(&self) -> Option<One> {
        Some(One {
            what: "one file: the first, with its regions and the summary, would",
            advice: "",
        })
    }
}
