//! `overview`: the repository at a glance, within a budget. A short header (languages by share
//! of the text, the size, where tests and docs live, the entry points the manifests declare),
//! then the **map**: files ranked by how central they are, each with its most used definitions
//! as one-line signatures.
//!
//! - **Centrality** is PageRank over the reference graph the search index already reads
//!   ([`crate::stages::rank::graph`]: imports, and uses of the names a file defines, weighted
//!   as `related` weighs them), kept warm beside the index ([`repo_index::centrality`]). Without a
//!   query, the root's manifests and the programs of the largest packages come first
//!   (`map_order`). Tests and examples count
//!   [`SECONDARY_WEIGHT`] of their rank, other non-code files [`OTHER_WEIGHT`]; docs,
//!   generated, vendored and lock files are not mapped (the header says where docs live).
//! - With `query`, the ranking is personalized toward the query's best files as `search` ranks
//!   them (the first [`SEEDS`]): the random reader of PageRank jumps back to them, so the map
//!   shows what surrounds them ([`QUERY_SHARE`] of the score; the rest is the plain rank, which
//!   also orders the files the query's neighbourhood does not reach).
//! - A file's **definitions** are its outline's (the syntax stage, within the call's parse
//!   budget), most used elsewhere first, as the graph weighs a name's uses (files importing it
//!   count more than files only mentioning it), shared among the files defining it (by its
//!   square root) and [`MEMBER_WEIGHT`] of that for a member of a type; at most
//!   [`MAX_DEFINITIONS`] a file.
//!
//! **Fitting.** The map is a list of entries, most central first: a file's first entry is its
//! line with its most used definition, each further entry one more definition, and a file's
//! `j`-th entry weighs its score over `j + 1`, so a central file shows several definitions
//! before a marginal one shows any. The answer is the most entries whose rendered text fits
//! the budget and the byte ceiling, counted whole ([`paging::fit`]), shown grouped by file in map
//! order; so the map grows and shrinks by its least central entries. A cut answer ends with the
//! `offset` that continues it (the entries after those shown). Only the files the answer can
//! reach are outlined: the first ones in map order (a fiftieth of the budget in files), and
//! while every entry of those fits, as many more as the rest of the budget could show.
//!
//! What does not depend on the call (each file's class, the header but for the ranking, the
//! declared entry points, each outlined file's definitions) is kept beside the index with the
//! graph ([`repo_index::derived`]), so a warm call ranks, outlines and parses nothing again.
//!
//! The budget is the call's, else [`DEFAULT_BUDGET`] tokens: a map is meant to be read whole.
//! Every path is shown as the index shows it (the one name renderer: escaped, redacted), every
//! signature is from the scanned text (secrets redacted under the policy in force) with its
//! invisible characters escaped; files not searched are counted by reason, never named.
//!
//! `order.rs` ranks the map and picks each file's definitions, `header.rs` gathers what the
//! header says, `render.rs` writes the answer the fit measures; this file runs the call.

mod header;
mod order;
mod render;

use header::facts_of;
use order::{map_order, personalized};
use render::{Render, entries};

use super::repo_index::{self, Outlines, RepoIndex};
use crate::driver::call::paging::{self, Paged};
use crate::driver::call::paths::quote;
use crate::driver::call::request::{NavError, Request};
use crate::driver::call::session::Session;
use crate::driver::call::{Answer, args};
use crate::driver::file::FileContext;
use crate::error::Error;
use crate::spec::Overrides;
use crate::stages::rank::Query;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The budget when the call gives none, in tokens.
pub const DEFAULT_BUDGET: usize = 4_000;
/// The most definitions shown of one file.
pub const MAX_DEFINITIONS: usize = 8;
/// The search hits a query personalizes the ranking toward.
pub const SEEDS: usize = 10;
/// With a query, the share of a file's score that is its personalized rank.
pub const QUERY_SHARE: f64 = 0.9;
/// The least share of the code a program's package holds for the program to be put first.
pub const MIN_PROGRAM_SHARE: f64 = 0.03;
/// The most declared programs put first in the map.
pub const MAX_PROGRAMS_FIRST: usize = 5;
/// What a member's uses (a method, a field) count, of a top-level definition's: a method is
/// called by a name other types' methods share.
pub const MEMBER_WEIGHT: f64 = 0.3;
/// What a file that is neither code, docs, tests nor a manifest counts of its rank in the map
/// (data, config, fixtures without a code extension).
pub const OTHER_WEIGHT: f64 = 0.25;
/// What tests and examples count of their rank in the map.
pub const SECONDARY_WEIGHT: f64 = 0.3;
/// The most manifests read for entry points.
const MAX_MANIFESTS: usize = 512;
/// Languages, places and entry points named in the header.
const LANGUAGES_SHOWN: usize = 6;
const PLACES_SHOWN: usize = 3;
const ENTRY_POINTS_SHOWN: usize = 6;
/// The highest `offset` accepted.
const MAX_OFFSET: usize = 1_000_000;

/// What an `overview` call asks, as the CLI's flags give it and as a tool call's JSON is read
/// ([`crate::driver::call::args`]; the tool's input schema is derived from it).
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema, clap::Args)]
pub struct OverviewArgs {
    /// Center the map on the best files search finds for this.
    #[arg(long, value_name = "QUERY")]
    #[serde(default, deserialize_with = "args::some_text")]
    pub query: Option<String>,
    /// The continuation a cut answer gives, as given.
    #[arg(long, value_name = "N", default_value_t = 0)]
    #[serde(default, deserialize_with = "args::count")]
    pub offset: usize,
}

/// A language's share of the text.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Share {
    /// The language's name.
    pub language: String,
    /// How many of the files searched are in it.
    pub files: usize,
    /// Their text's bytes.
    pub bytes: usize,
}

/// A place where tests or docs live (`crates/*/tests`: one directory in many packages).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Place {
    /// The directory (or a glob over directories), relative to the root.
    pub path: String,
    /// How many files it holds.
    pub files: usize,
}

/// An entry point a manifest declares.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EntryPoint {
    /// The entry point's file, relative to the root.
    pub path: String,
    /// What declares it (`bin rust-analyzer`, `lib`, `main`, `script serve`, `main package`),
    /// and the manifest that does.
    pub role: String,
    /// The manifest that declares it, relative to the root.
    pub manifest: String,
    /// A program (a binary, a script, a `main`) rather than a library root.
    pub program: bool,
    /// How central it is: a library root's score; a program's, its package's share of the code
    /// (the source files under its manifest's directory).
    #[serde(skip)]
    pub weight: f64,
}

/// The header's facts.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Header {
    /// Files searched, and their text's bytes.
    pub files: usize,
    /// The bytes of the searched files' text.
    pub text_bytes: usize,
    /// Files not searched, by reason.
    pub not_searched: BTreeMap<&'static str, usize>,
    /// Languages by bytes, largest first (all of them).
    pub languages: Vec<Share>,
    /// Where tests and docs live, most files first, and how many there are.
    pub tests: Vec<Place>,
    /// How many test files there are in all.
    pub test_files: usize,
    /// Where docs live, most files first.
    pub docs: Vec<Place>,
    /// How many doc files there are in all.
    pub doc_files: usize,
    /// Declared entry points: programs first, then library roots, most central first.
    pub entry_points: Vec<EntryPoint>,
    /// The reference graph: its links, and the files whose links were cut to a bound.
    pub links: usize,
    /// How many files had their links cut to the bound.
    pub links_cut: usize,
    /// With a query: the search hits the map is centered on.
    pub around: Vec<String>,
}

/// One definition as the map shows it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Definition {
    /// The definition's name (escaped for display).
    pub name: String,
    /// Its kind (`fn`, `struct`, `class`, ...).
    pub kind: &'static str,
    /// The line it starts on.
    pub start: u32,
    /// The line it ends on.
    pub end: u32,
    /// Its signature line, escaped for display.
    pub signature: String,
    /// How much its name is used elsewhere ([`crate::stages::rank::Graph::name_weight`]).
    pub uses: f64,
    /// The definition it is nested in (`impl Foo`'s name, a class), if any.
    #[serde(serialize_with = "paging::or_default")]
    pub parent: Option<String>,
}

/// One file of the map as shown.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MapFile {
    /// The file, relative to the root.
    pub path: String,
    /// Its score (its rank, weighed by its kind and, with a query, personalized).
    pub score: f64,
    /// Why it is first (`manifest`, a declared program's role), empty when by rank.
    pub role: String,
    /// The definitions shown, most used first.
    pub definitions: Vec<Definition>,
}

/// What `overview` found: the header, the map's files shown (with their definitions shown),
/// and the `offset` that continues the map.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct OverviewFacts {
    /// The header's facts.
    pub header: Header,
    /// The map's files shown, in order.
    pub map: Vec<MapFile>,
    /// The `offset` that continues the map, if more files are left.
    #[serde(flatten, serialize_with = "paging::offset")]
    pub next: Option<usize>,
}

/// What `overview` answers.
pub type OverviewAnswer = Answer<OverviewFacts>;

/// The overview of `req`'s repository.
pub fn overview(req: &Request<'_>, args: &OverviewArgs) -> Result<OverviewAnswer, NavError> {
    let query = match &args.query {
        None => None,
        Some(q) => {
            let parsed = Query::parse(q).map_err(|e| NavError::invalid(format!("query: {e}")))?;
            if parsed.terms().is_empty() {
                return Err(NavError::invalid(format!(
                    "query {}: no word to center the map on (only punctuation, single letters \
                     or words as common as \"the\"); name a file, an identifier or a few words",
                    quote(q)
                )));
            }
            Some(parsed)
        }
    };
    if args.offset > MAX_OFFSET {
        return Err(NavError::invalid(format!(
            "offset is {}; the most is {MAX_OFFSET}",
            args.offset
        )));
    }
    // The call's budget, else the map's own default (not `.gnawconfig`'s, which is extract's).
    let defaulted;
    let req = match req.overrides.budget {
        Some(_) => req,
        None => {
            defaulted = Request {
                repo: req.repo.clone(),
                overrides: Overrides {
                    budget: Some(DEFAULT_BUDGET),
                    ..req.overrides.clone()
                },
                policy: req.policy,
                cache: req.cache,
                observer: req.observer,
                max_text_bytes: req.max_text_bytes,
                count_answer: req.count_answer,
            };
            &defaulted
        }
    };
    let t0 = std::time::Instant::now();
    let answer = repo_index::open_for_index(req, |session, ctx| {
        // The postings serve a query's search only.
        repo_index::with_index_for(session, ctx, query.is_some(), |repo| {
            answer(session, ctx, repo, query.as_ref(), args)
        })
    });
    log::debug!("overview: {:?}", t0.elapsed());
    answer
}

/// One file of the map, in map order.
struct Mapped {
    /// Its position in the index.
    at: usize,
    score: f64,
    role: String,
}

/// The answer from the repository's index `repo`.
fn answer(
    session: &Session<'_, '_>,
    ctx: &FileContext<'_>,
    repo: &RepoIndex,
    query: Option<&Query>,
    args: &OverviewArgs,
) -> Result<OverviewAnswer, NavError> {
    let stop = || session.cancelled();
    let files = &repo.files;
    let t0 = std::time::Instant::now();
    let central = repo_index::centrality(ctx, repo, &stop)?;
    let t_central = t0.elapsed();
    let outlines = Outlines::new(files, ctx, &stop);
    let (scores, around) = match query {
        None => (central.ranks.clone(), Vec::new()),
        Some(q) => personalized(ctx, repo, &central, q, &outlines, &stop)?,
    };
    let facts = repo_index::derived(ctx, repo, || {
        let facts = facts_of(files);
        let bytes = facts.bytes();
        Some((facts, bytes))
    })
    .ok_or(Error::Cancelled)?;
    let classes = &facts.classes;
    let mut header = facts.header(&central, &scores);
    header.not_searched = repo.not_searched.clone();
    header.around = around.iter().map(|&i| files[i].path.clone()).collect();
    let map = map_order(files, classes, &scores, &header, query.is_none());
    let t_header = t0.elapsed();
    let (encoding, limits) = (session.encoding(), session.limits());
    let count = session.counter();
    // The files outlined: as many as the answer may reach, more while it shows every entry.
    let budget_tokens = limits.budget.unwrap_or(usize::MAX / 64);
    let mut reach = (budget_tokens / 50)
        .min(limits.max_bytes / 96)
        .max(32)
        .saturating_add(args.offset);
    let mut defs: Vec<Option<Arc<Vec<Definition>>>> = vec![None; map.len()];
    loop {
        reach = reach.min(map.len());
        let wanted: Vec<usize> = (0..reach)
            .filter(|&m| defs[m].is_none())
            .map(|m| map[m].at)
            .collect();
        outlines.prefetch(&wanted);
        if stop() {
            return Err(Error::Cancelled.into());
        }
        for (m, d) in defs.iter_mut().enumerate().take(reach) {
            if d.is_none() {
                *d = Some(facts.definitions(map[m].at, &outlines, &central));
            }
        }
        let entries = entries(&map, &defs, reach);
        let complete = reach == map.len();
        let r = Render {
            files,
            map: &map,
            defs: &defs,
            entries: &entries[args.offset.min(entries.len())..],
            offset: args.offset,
            complete,
            header: &header,
            query: args.query.as_deref(),
            not_parsed: ctx.parse.not_parsed(),
            limits,
            count: &count,
        };
        if args.offset > entries.len() && !complete {
            reach = reach.saturating_mul(2);
            continue;
        }
        let t_outlined = t0.elapsed();
        let fitted = paging::fit(&r, limits, &count)?;
        log::debug!(
            "overview: graph and ranks {t_central:?}, header and order {:?}, {reach} files \
             outlined {:?}, fit {:?}",
            t_header - t_central,
            t_outlined - t_header,
            t0.elapsed() - t_outlined
        );
        if fitted.k == r.entries.len() && !complete {
            // Every entry fits: reach as many more files as what is left could show (each
            // shows at least one entry, of about the entries' mean size so far).
            let k = fitted.k.max(1);
            let left = match limits.budget {
                Some(b) => b.saturating_sub(fitted.tokens) / (fitted.tokens / k).max(1),
                None => {
                    let used = fitted.text.len();
                    limits.max_bytes.saturating_sub(used) / (used / k).max(1)
                }
            };
            reach = reach.saturating_add(left.max(8));
            continue;
        }
        let next = r.next(fitted.k);
        let shown = r.shown(fitted.k);
        return Ok(Answer {
            page: fitted.page(encoding, limits.budget),
            facts: OverviewFacts {
                header,
                map: shown,
                next,
            },
        });
    }
}
