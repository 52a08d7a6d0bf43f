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

use super::repo_index::{self, Centrality, IndexedFile, Outlines, RepoIndex};
use super::search;
use crate::driver::call::paging::{self, Limits, One, Paged};
use crate::driver::call::paths::quote;
use crate::driver::call::request::{NavError, Request};
use crate::driver::call::session::Session;
use crate::driver::call::{Answer, args};
use crate::driver::file::FileContext;
use crate::error::Error;
use crate::par::lock;
use crate::spec::Overrides;
use crate::stages::manifest;
use crate::stages::rank::graph::{name_term, uses_weight};
use crate::stages::rank::{Class, Query, class_of, plain_word};
use crate::stages::syntax::Language;
use crate::vocab::{Symbol, SymbolKind, display_text};
use serde::Serializer;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

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
    pub language: String,
    pub files: usize,
    pub bytes: usize,
}

/// A place where tests or docs live (`crates/*/tests`: one directory in many packages).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Place {
    pub path: String,
    pub files: usize,
}

/// An entry point a manifest declares.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct EntryPoint {
    pub path: String,
    /// What declares it (`bin rust-analyzer`, `lib`, `main`, `script serve`, `main package`),
    /// and the manifest that does.
    pub role: String,
    pub manifest: String,
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
    pub text_bytes: usize,
    /// Files not searched, by reason.
    pub not_searched: BTreeMap<&'static str, usize>,
    /// Languages by bytes, largest first (all of them).
    pub languages: Vec<Share>,
    /// Where tests and docs live, most files first, and how many there are.
    pub tests: Vec<Place>,
    pub test_files: usize,
    pub docs: Vec<Place>,
    pub doc_files: usize,
    /// Declared entry points: programs first, then library roots, most central first.
    pub entry_points: Vec<EntryPoint>,
    /// The reference graph: its links, and the files whose links were cut to a bound.
    pub links: usize,
    pub links_cut: usize,
    /// With a query: the search hits the map is centered on.
    pub around: Vec<String>,
}

/// One definition as the map shows it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Definition {
    pub name: String,
    pub kind: &'static str,
    pub start: u32,
    pub end: u32,
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
    pub header: Header,
    pub map: Vec<MapFile>,
    #[serde(flatten, serialize_with = "offset")]
    pub next: Option<usize>,
}

/// What `overview` answers.
pub type OverviewAnswer = Answer<OverviewFacts>;

fn offset<S: Serializer>(next: &Option<usize>, s: S) -> Result<S::Ok, S::Error> {
    paging::continued(s, "offset", next.is_none(), &next.unwrap_or_default())
}

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

/// Each file's score personalized toward `query`'s best files, with those files (positions).
fn personalized(
    ctx: &FileContext<'_>,
    repo: &RepoIndex,
    central: &Centrality,
    query: &Query,
    outlines: &Outlines<'_>,
    stop: &dyn Fn() -> bool,
) -> Result<(Vec<f64>, Vec<usize>), Error> {
    let (matching, _) = search::ranked(ctx, repo, query, outlines, stop).ok_or(Error::Cancelled)?;
    let seeds: Vec<usize> = matching.iter().take(SEEDS).map(|(i, _)| *i).collect();
    if seeds.is_empty() {
        return Ok((central.ranks.clone(), seeds));
    }
    let mut jump = vec![0.0; repo.files.len()];
    for (k, &i) in seeds.iter().enumerate() {
        jump[i] = 1.0 / (k + 1) as f64;
    }
    let around = central
        .graph
        .rank(Some(&jump), stop)
        .ok_or(Error::Cancelled)?;
    let scores = around
        .iter()
        .zip(&central.ranks)
        .map(|(a, p)| QUERY_SHARE * a + (1.0 - QUERY_SHARE) * p)
        .collect();
    Ok((scores, seeds))
}

/// What a file of `class` counts of its rank in the map; `None`: not mapped.
fn map_weight(path: &str, class: Class) -> Option<f64> {
    match class {
        Class::ReadmeOrManifest => manifest_or_readme(path).then_some(1.0),
        Class::EntryPoint | Class::Source => Some(1.0),
        Class::Other => Some(OTHER_WEIGHT),
        Class::Test | Class::Example => Some(SECONDARY_WEIGHT),
        Class::Docs | Class::Generated | Class::Lock => None,
    }
}

/// Whether a file the default order puts first is a manifest (not a README).
fn manifest_or_readme(path: &str) -> bool {
    !path
        .rsplit('/')
        .next()
        .unwrap_or(path)
        .to_ascii_lowercase()
        .starts_with("readme")
}

/// The map's files in order: with `first`, the root's manifests and the programs of the
/// largest packages (at most [`MAX_PROGRAMS_FIRST`], each package holding at least
/// [`MIN_PROGRAM_SHARE`] of the code), then every mapped file by score (ties by path).
fn map_order(
    files: &[IndexedFile],
    classes: &[Class],
    scores: &[f64],
    header: &Header,
    first: bool,
) -> Vec<Mapped> {
    let at: HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect();
    let mut out: Vec<Mapped> = Vec::new();
    let mut placed: HashSet<usize> = HashSet::new();
    if first {
        for (i, f) in files.iter().enumerate() {
            if !f.path.contains('/')
                && classes[i] == Class::ReadmeOrManifest
                && manifest_or_readme(&f.path)
            {
                placed.insert(i);
                out.push(Mapped {
                    at: i,
                    score: scores[i],
                    role: "manifest".into(),
                });
            }
        }
        // The programs of the largest packages (a quarter of the first's size or more, and
        // at least MIN_PROGRAM_SHARE of the code).
        let top = header.entry_points.first().filter(|e| e.program);
        let least = top.map_or(0.0, |e| e.weight / 4.0).max(MIN_PROGRAM_SHARE);
        let programs = header
            .entry_points
            .iter()
            .filter(|e| e.program && e.weight >= least);
        for e in programs.take(MAX_PROGRAMS_FIRST) {
            if let Some(&i) = at.get(e.path.as_str())
                && placed.insert(i)
            {
                out.push(Mapped {
                    at: i,
                    score: scores[i],
                    role: e.role.clone(),
                });
            }
        }
    }
    let mut rest: Vec<Mapped> = files
        .iter()
        .enumerate()
        .filter(|(i, _)| !placed.contains(i))
        .filter_map(|(i, f)| {
            let weight = map_weight(&f.path, classes[i])?;
            Some(Mapped {
                at: i,
                score: scores[i] * weight,
                role: String::new(),
            })
        })
        .collect();
    rest.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| files[a.at].path.cmp(&files[b.at].path))
    });
    out.extend(rest);
    out
}

/// A file's definitions as the map shows them, most used first, at most [`MAX_DEFINITIONS`]:
/// every named definition but impl blocks and modules (their members count) and an impl's
/// associated types.
fn definitions(symbols: Option<&Vec<Symbol>>, central: &Centrality) -> Vec<Definition> {
    let Some(symbols) = symbols else {
        return Vec::new();
    };
    // Each candidate scored first; only those shown are made (escaped) after.
    let walked = Symbol::walk(symbols);
    let mut scored: Vec<(f64, bool, usize)> = Vec::new();
    for (order, (parent, s)) in walked.iter().enumerate() {
        // An impl's associated type (`type Output = ()`) repeats its trait's vocabulary.
        let associated =
            s.kind == SymbolKind::TypeAlias && parent.is_some_and(|p| p.kind == SymbolKind::Impl);
        if matches!(s.kind, SymbolKind::Impl | SymbolKind::Module)
            || s.name.is_empty()
            || associated
        {
            continue;
        }
        // As the graph weighs the name's uses elsewhere (plain or not as this file writes it),
        // shared among the files defining it (by its square root: a name several files define
        // is still theirs), a member's less.
        let last = s.name.rsplit([':', '.']).next().unwrap_or(&s.name);
        let uses = name_term(last).map_or(0.0, |h| {
            let (users, by) = central.graph.name_uses(h).unwrap_or((0, 1));
            let importers = central.graph.name_importers(h);
            let member = if parent.is_some_and(|p| p.kind.is_container()) {
                MEMBER_WEIGHT
            } else {
                1.0
            };
            member * uses_weight(users, importers, plain_word(last)) / (by.max(1) as f64).sqrt()
        });
        scored.push((uses, parent.is_some(), order));
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    scored.truncate(MAX_DEFINITIONS);
    scored
        .into_iter()
        .map(|(uses, _, order)| {
            let (parent, s) = walked[order];
            Definition {
                name: display_text(&s.name).into_owned(),
                kind: s.kind.as_str(),
                start: s.lines.start,
                end: s.lines.end,
                signature: display_text(&s.signature).into_owned(),
                uses,
                parent: parent.map(|p| display_text(&p.name).into_owned()),
            }
        })
        .collect()
}

/// One entry of the map: the `j`-th of map file `m` (0: its line with its first definition).
#[derive(Clone, Copy, Debug)]
struct Entry {
    m: usize,
    j: usize,
}

/// The entries of the first `reach` map files, most central first: the exact first entries of
/// the whole map's order (an entry weighing less than the next file's first would come after
/// entries of files not reached yet, so it is left for a wider reach).
fn entries(map: &[Mapped], defs: &[Option<Arc<Vec<Definition>>>], reach: usize) -> Vec<Entry> {
    // The files placed first keep their place; every other entry weighs score / (j + 1).
    let first = map.iter().take_while(|m| !m.role.is_empty()).count();
    let below = map.get(reach).map_or(f64::NEG_INFINITY, |m| m.score);
    let mut out: Vec<(f64, Entry)> = Vec::new();
    for (m, file) in map.iter().enumerate().take(reach) {
        let n = defs[m].as_ref().map_or(0, |d| d.len()).max(1);
        for j in 0..n {
            let weight = if m < first && j == 0 {
                f64::INFINITY
            } else {
                file.score / (j + 1) as f64
            };
            if weight >= below || m < first && j == 0 {
                out.push((weight, Entry { m, j }));
            }
        }
    }
    out.sort_by(|(wa, a), (wb, b)| wb.total_cmp(wa).then(a.m.cmp(&b.m)).then(a.j.cmp(&b.j)));
    out.into_iter().map(|(_, e)| e).collect()
}

/// What `overview` knows of `files` whatever the call asks: each file's class, the header but
/// for what depends on the ranking, the declared entry points.
fn facts_of(files: &[IndexedFile]) -> Facts {
    let classes: Vec<Class> = files.iter().map(|f| class_of(&f.path)).collect();
    let mut languages: HashMap<String, (usize, usize)> = HashMap::new();
    let mut tests: Vec<String> = Vec::new();
    let mut docs: Vec<String> = Vec::new();
    let mut text_bytes = 0;
    for (f, class) in files.iter().zip(&classes) {
        let bytes = f.body.text.len();
        text_bytes += bytes;
        let one = languages.entry(language_of(&f.path)).or_default();
        one.0 += 1;
        one.1 += bytes;
        match class {
            Class::Test => tests.push(place_of(&f.path, is_test_dir)),
            Class::Docs => docs.push(place_of(&f.path, |d| {
                matches!(d, "docs" | "doc" | "documentation")
            })),
            _ => {}
        }
    }
    let mut languages: Vec<Share> = languages
        .into_iter()
        .map(|(language, (files, bytes))| Share {
            language,
            files,
            bytes,
        })
        .collect();
    languages.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.language.cmp(&b.language)));
    let header = Header {
        files: files.len(),
        text_bytes,
        not_searched: BTreeMap::new(),
        languages,
        test_files: tests.len(),
        tests: places(tests),
        doc_files: docs.len(),
        docs: places(docs),
        entry_points: Vec::new(),
        links: 0,
        links_cut: 0,
        around: Vec::new(),
    };
    let entry_points = entry_points(files, &classes);
    Facts {
        classes,
        header,
        entry_points,
        definitions: Mutex::new(HashMap::new()),
    }
}

/// What `overview` knows of a repository whatever the call asks (kept beside its index).
struct Facts {
    /// Each file's class.
    classes: Vec<Class>,
    /// The header but what depends on the ranking (its entry points are in `entry_points`).
    header: Header,
    /// The declared entry points, each at its file (programs weighed, libraries not yet).
    entry_points: Vec<(usize, EntryPoint)>,
    /// Each outlined file's definitions as the map shows them, by its position in the index
    /// (at most [`MAX_KEPT_DEFINITIONS`] files).
    definitions: Mutex<HashMap<usize, Arc<Vec<Definition>>>>,
}

/// The most files whose definitions the kept facts hold, and what each is reckoned to take.
const MAX_KEPT_DEFINITIONS: usize = 2048;
const KEPT_DEFINITIONS_BYTES: usize = 1024;

impl Facts {
    /// The definitions of file `i` as the map shows them: kept ones, else made from its
    /// outline (and kept when it has one; at most [`MAX_KEPT_DEFINITIONS`] files).
    fn definitions(
        &self,
        i: usize,
        outlines: &Outlines<'_>,
        central: &Centrality,
    ) -> Arc<Vec<Definition>> {
        if let Some(found) = lock(&self.definitions).get(&i) {
            return Arc::clone(found);
        }
        let symbols = outlines.get(i);
        let made = Arc::new(definitions(symbols.as_deref(), central));
        let mut kept = lock(&self.definitions);
        if symbols.is_some() && kept.len() < MAX_KEPT_DEFINITIONS {
            kept.insert(i, Arc::clone(&made));
        }
        made
    }

    /// About what it takes in memory, in bytes (its definitions reckoned full).
    fn bytes(&self) -> usize {
        let strings = |v: &[Place]| v.iter().map(|p| p.path.len() + 32).sum::<usize>();
        self.classes.len()
            + self.classes.len().min(MAX_KEPT_DEFINITIONS) * KEPT_DEFINITIONS_BYTES
            + strings(&self.header.tests)
            + strings(&self.header.docs)
            + self.header.languages.len() * 64
            + self
                .entry_points
                .iter()
                .map(|(_, e)| e.path.len() + e.role.len() + e.manifest.len() + 64)
                .sum::<usize>()
    }

    /// The header of a call ranking the files by `scores`: the entry points ordered (programs
    /// by their package's share of the code, library roots by their scores).
    fn header(&self, central: &Centrality, scores: &[f64]) -> Header {
        let mut entry_points: Vec<EntryPoint> = self
            .entry_points
            .iter()
            .map(|(i, e)| EntryPoint {
                weight: if e.program { e.weight } else { scores[*i] },
                ..e.clone()
            })
            .collect();
        entry_points.sort_by(|a, b| {
            b.program
                .cmp(&a.program)
                .then(b.weight.total_cmp(&a.weight))
                .then(a.path.cmp(&b.path))
        });
        Header {
            entry_points,
            links: central.graph.link_count(),
            links_cut: central.graph.bounds().files,
            ..self.header.clone()
        }
    }
}

/// A file's language: its grammar's name, else its extension, else `other`.
fn language_of(path: &str) -> String {
    if let Some(l) = Language::detect(path.as_bytes()) {
        return l.as_str().to_string();
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        Some((stem, ext))
            if !stem.is_empty() && ext.len() <= 8 && ext.chars().all(char::is_alphanumeric) =>
        {
            ext.to_ascii_lowercase()
        }
        _ => "other".into(),
    }
}

/// A directory whose name says it holds tests.
fn is_test_dir(d: &str) -> bool {
    matches!(d, "tests" | "test" | "__tests__" | "spec" | "specs" | "t")
        || ["_test", "_tests", ".test", ".tests", "-test", "-tests"]
            .iter()
            .any(|s| d.ends_with(s))
}

/// Where a file lives, as the header groups it: its path up to the first directory `marks`
/// names (lowercased), else its directory (`.` at the top).
fn place_of(path: &str, marks: impl Fn(&str) -> bool) -> String {
    let dirs: Vec<&str> = path.split('/').collect();
    let dirs = &dirs[..dirs.len() - 1];
    let upto = dirs
        .iter()
        .position(|d| marks(&d.to_ascii_lowercase()))
        .map_or(dirs.len(), |i| i + 1);
    match upto {
        0 => ".".into(),
        n => dirs[..n].join("/"),
    }
}

/// The places of some files (one entry a file), most files first: places alike but for their
/// second directory (`crates/hir/tests`, `crates/ide/tests`) are one (`crates/*/tests`).
fn places(each: Vec<String>) -> Vec<Place> {
    let mut by: BTreeMap<String, usize> = BTreeMap::new();
    for p in each {
        *by.entry(p).or_default() += 1;
    }
    let shape = |p: &str| -> Option<String> {
        let parts: Vec<&str> = p.split('/').collect();
        (parts.len() >= 3).then(|| {
            let mut s = parts.clone();
            s[1] = "*";
            s.join("/")
        })
    };
    let mut alike: HashMap<String, usize> = HashMap::new();
    for p in by.keys() {
        if let Some(s) = shape(p) {
            *alike.entry(s).or_default() += 1;
        }
    }
    let mut grouped: BTreeMap<String, usize> = BTreeMap::new();
    for (p, n) in by {
        let key = match shape(&p) {
            Some(s) if alike[&s] > 1 => s,
            _ => p,
        };
        *grouped.entry(key).or_default() += n;
    }
    let mut out: Vec<Place> = grouped
        .into_iter()
        .map(|(path, files)| Place { path, files })
        .collect();
    out.sort_by(|a, b| b.files.cmp(&a.files).then(a.path.cmp(&b.path)));
    out
}

/// The entry points the manifests among `files` (of `classes`) declare, and Go's `main`
/// packages, each at its file; a program weighed by its package's share of the code.
fn entry_points(files: &[IndexedFile], classes: &[Class]) -> Vec<(usize, EntryPoint)> {
    let at: BTreeMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect();
    let mut found: Vec<(usize, EntryPoint)> = Vec::new();
    let mut seen: HashSet<usize> = HashSet::new();
    let mut push = |i: usize, role: String, manifest: &str, program: bool| {
        if seen.insert(i) {
            found.push((
                i,
                EntryPoint {
                    path: files[i].path.clone(),
                    role,
                    manifest: manifest.to_string(),
                    program,
                    weight: 0.0,
                },
            ));
        }
    };
    let manifests = files
        .iter()
        .zip(classes)
        .filter(|(f, c)| manifest::is_manifest(&f.path) && **c != Class::Generated)
        .map(|(f, _)| f)
        .take(MAX_MANIFESTS);
    for f in manifests {
        for d in manifest::declared(&f.path, &f.body.text) {
            for p in &d.paths {
                if let Some(dir) = p.strip_suffix('/') {
                    // Every code file directly in `dir`.
                    let inside = at
                        .range(p.as_str()..)
                        .take_while(|(q, _)| q.starts_with(p.as_str()))
                        .filter(|(q, _)| !q[dir.len() + 1..].contains('/'))
                        .filter(|(q, _)| Language::detect(q.as_bytes()).is_some());
                    for (_, &i) in inside {
                        push(i, d.role.clone(), &f.path, d.program);
                    }
                } else if let Some(&i) = at.get(p.as_str()) {
                    push(i, d.role.clone(), &f.path, d.program);
                    break;
                }
            }
        }
    }
    // Go: a `main` package's file defining `main`.
    let main = name_term("main");
    for (i, f) in files.iter().enumerate() {
        if f.path.ends_with(".go")
            && main.is_some_and(|h| f.index.defines_term(h))
            && (f.body.text.starts_with("package main") || f.body.text.contains("\npackage main"))
        {
            push(i, "main package".into(), "", true);
        }
    }
    // A program weighs its package's share of the code (what it runs: the source files under
    // its manifest's directory, its own directory's for Go).
    let code = |k: usize| matches!(classes[k], Class::Source | Class::EntryPoint);
    let total = (0..files.len())
        .filter(|&k| code(k))
        .map(|k| files[k].body.text.len())
        .sum::<usize>()
        .max(1) as f64;
    let mut mass: HashMap<String, f64> = HashMap::new();
    for (_, e) in found.iter_mut().filter(|(_, e)| e.program) {
        let from = if e.manifest.is_empty() {
            &e.path
        } else {
            &e.manifest
        };
        let dir = from.rsplit_once('/').map_or("", |(d, _)| d);
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        e.weight = *mass.entry(prefix.clone()).or_insert_with(|| {
            let bytes: usize = at
                .range(prefix.as_str()..)
                .take_while(|(p, _)| p.starts_with(prefix.as_str()))
                .filter(|(_, k)| code(**k))
                .map(|(_, &k)| files[k].body.text.len())
                .sum();
            bytes as f64 / total
        });
    }
    found
}

struct Render<'a> {
    files: &'a [IndexedFile],
    map: &'a [Mapped],
    defs: &'a [Option<Arc<Vec<Definition>>>],
    /// The entries from `offset` on.
    entries: &'a [Entry],
    offset: usize,
    /// Whether `entries` ends where the whole map does.
    complete: bool,
    header: &'a Header,
    query: Option<&'a str>,
    /// Files whose definitions a parse bound kept out, said in the header.
    not_parsed: Option<String>,
    limits: Limits,
    count: &'a dyn Fn(&str) -> usize,
}

/// `17.2 MB`, `940 KB`, `312 B`.
fn size(bytes: usize) -> String {
    match bytes {
        b if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b if b >= 1_000 => format!("{} KB", b / 1_000),
        b => format!("{b} B"),
    }
}

/// `1 file`, `2 files`.
fn files(n: usize) -> String {
    format!("{n} file{}", if n == 1 { "" } else { "s" })
}

/// The first `n` of `items` as `show` says each, then `N more` (`more`: `more places`), by
/// commas: `crates/*/tests (120), tests (12), 4 more places`.
fn listed<T>(items: &[T], n: usize, show: impl Fn(&T) -> String, more: &str) -> String {
    let mut parts: Vec<String> = items.iter().take(n).map(show).collect();
    if items.len() > n {
        parts.push(format!("{} {more}", items.len() - n));
    }
    parts.join(", ")
}

/// Where tests or docs live, as the header says it.
fn places_line(places: &[Place]) -> String {
    listed(
        places,
        PLACES_SHOWN,
        |p| format!("{} ({})", p.path, p.files),
        "more places",
    )
}

impl Render<'_> {
    /// The header (on the first page), or the line that says where a continued map resumes.
    fn head(&self) -> String {
        let h = self.header;
        if self.offset > 0 {
            return format!(
                "overview (continued): the map from entry {}\n",
                self.offset + 1
            );
        }
        let mut out = format!(
            "overview: {}, {} of text",
            files(h.files),
            size(h.text_bytes)
        );
        if !h.not_searched.is_empty() {
            let _ = write!(out, " (not searched: {})", paging::tally(&h.not_searched));
        }
        let total = h.text_bytes.max(1) as f64;
        let langs: Vec<String> = h
            .languages
            .iter()
            .take(LANGUAGES_SHOWN)
            .filter(|l| l.bytes as f64 / total >= 0.01)
            .map(|l| format!("{} {:.0}%", l.language, 100.0 * l.bytes as f64 / total))
            .collect();
        if !langs.is_empty() {
            let _ = write!(out, "; {}", langs.join(", "));
        }
        out.push('\n');
        for (what, n, places) in [
            ("tests", h.test_files, &h.tests),
            ("docs", h.doc_files, &h.docs),
        ] {
            if n > 0 {
                let _ = writeln!(out, "{what}: {} in {}", files(n), places_line(places));
            }
        }
        if !h.entry_points.is_empty() {
            let programs: Vec<&EntryPoint> = h.entry_points.iter().filter(|e| e.program).collect();
            let libs: Vec<&EntryPoint> = h.entry_points.iter().filter(|e| !e.program).collect();
            let named = |list: &[&EntryPoint], n: usize| -> String {
                listed(list, n, |e| format!("{} ({})", e.path, e.role), "more")
            };
            let mut parts = Vec::new();
            if !programs.is_empty() {
                parts.push(format!(
                    "programs: {}",
                    named(&programs, ENTRY_POINTS_SHOWN)
                ));
            }
            if !libs.is_empty() {
                let n = ENTRY_POINTS_SHOWN
                    .saturating_sub(programs.len().min(ENTRY_POINTS_SHOWN))
                    .max(2);
                parts.push(format!("libraries: {}", named(&libs, n)));
            }
            let _ = writeln!(out, "entry points (manifests): {}", parts.join("; "));
        }
        match self.query {
            Some(q) if h.around.is_empty() => {
                let _ = writeln!(
                    out,
                    "map: no file matches {}; files by centrality (PageRank over imports and \
                     used names)",
                    quote(q)
                );
            }
            Some(q) => {
                let mut near: Vec<&str> = h.around.iter().take(3).map(String::as_str).collect();
                if h.around.len() > 3 {
                    near.push("…");
                }
                let _ = writeln!(
                    out,
                    "map around {} (its best files: {}): files by centrality personalized \
                     toward them",
                    quote(q),
                    near.join(", ")
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "map: manifests and programs first, then files by centrality (PageRank over \
                     imports and used names)"
                );
            }
        }
        let _ = write!(
            out,
            "each with its most used definitions as START-END signature"
        );
        if h.links_cut > 0 {
            let _ = write!(
                out,
                "; links of {} files cut to their heaviest {}",
                h.links_cut,
                crate::stages::rank::graph::MAX_LINKS
            );
        }
        if let Some(note) = &self.not_parsed {
            let _ = write!(out, "; definitions missing: {note}");
        }
        out.push('\n');
        out
    }

    /// The line of map file `m`.
    fn file_line(&self, out: &mut String, m: usize) {
        let f = &self.map[m];
        out.push('\n');
        out.push_str(&self.files[f.at].path);
        if !f.role.is_empty() {
            let _ = write!(out, "  ({})", f.role);
        }
        out.push('\n');
    }

    /// The line of definition `j` of map file `m`, if it has one.
    fn def_line(&self, out: &mut String, m: usize, j: usize) {
        let Some(d) = self.defs[m].as_ref().and_then(|d| d.get(j)) else {
            return;
        };
        let _ = write!(out, "  {}-{} ", d.start, d.end);
        if let Some(p) = &d.parent {
            let _ = write!(out, "{p}: ");
        }
        if d.signature.is_empty() || !d.signature.contains(d.name.as_str()) {
            let _ = write!(out, "{} {}", d.kind, d.name);
            if !d.signature.is_empty() {
                let _ = write!(out, ": {}", d.signature);
            }
        } else {
            out.push_str(&d.signature);
        }
        out.push('\n');
    }

    /// The first `k` entries grouped by file, in map order: each file with its entries' `j`s.
    fn grouped(&self, k: usize) -> Vec<(usize, Vec<usize>)> {
        let mut shown: Vec<Entry> = self.entries[..k].to_vec();
        shown.sort_by_key(|e| (e.m, e.j));
        let mut out: Vec<(usize, Vec<usize>)> = Vec::new();
        for e in shown {
            match out.last_mut() {
                Some((m, js)) if *m == e.m => js.push(e.j),
                _ => out.push((e.m, vec![e.j])),
            }
        }
        out
    }

    /// The map's files shown by the first `k` entries, for the facts.
    fn shown(&self, k: usize) -> Vec<MapFile> {
        self.grouped(k)
            .into_iter()
            .map(|(m, js)| {
                let defs = self.defs[m].as_ref().map_or(&[][..], |d| d.as_slice());
                MapFile {
                    path: self.files[self.map[m].at].path.clone(),
                    score: self.map[m].score,
                    role: self.map[m].role.clone(),
                    definitions: js.iter().filter_map(|&j| defs.get(j).cloned()).collect(),
                }
            })
            .collect()
    }
}

impl Paged for Render<'_> {
    type Next = Option<usize>;

    fn items(&self) -> usize {
        self.entries.len()
    }

    fn cost(&self, i: usize) -> (usize, usize) {
        let Entry { m, j } = self.entries[i];
        let mut one = String::new();
        if j == 0 {
            self.file_line(&mut one, m);
        }
        self.def_line(&mut one, m, j);
        ((self.count)(&one), one.len())
    }

    fn render(&self, k: usize) -> String {
        let mut out = self.head();
        for (m, js) in self.grouped(k) {
            self.file_line(&mut out, m);
            for j in js {
                self.def_line(&mut out, m, j);
            }
        }
        if let Some(next) = self.next(k) {
            let why = paging::why(true, &self.limits, String::new);
            let shown = match k {
                0 => "no map entry shown".to_string(),
                _ => format!(
                    "showing map entries {}-{}",
                    self.offset + 1,
                    self.offset + k
                ),
            };
            paging::continuation(&mut out, &shown, &why, "offset", next);
        }
        out
    }

    fn next(&self, k: usize) -> Option<usize> {
        (k < self.entries.len() || !self.complete).then_some(self.offset + k)
    }

    /// Without one entry shown the continuation would be this very call again.
    fn needs_one(&self) -> Option<One> {
        Some(One {
            what: "the map's first entry: it, with the header, would",
            advice: "",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_group_alike_directories() {
        let each = [
            "crates/hir/tests",
            "crates/hir/tests",
            "crates/ide/tests",
            "tests",
            "src/a_tests",
        ]
        .map(String::from)
        .to_vec();
        let p = places(each);
        assert_eq!(
            p,
            [
                Place {
                    path: "crates/*/tests".into(),
                    files: 3
                },
                Place {
                    path: "src/a_tests".into(),
                    files: 1
                },
                Place {
                    path: "tests".into(),
                    files: 1
                },
            ]
        );
        assert_eq!(
            place_of("crates/hir/tests/a/b.rs", is_test_dir),
            "crates/hir/tests"
        );
        assert_eq!(place_of("src/x_test.go", is_test_dir), "src");
        assert_eq!(place_of("x_test.go", is_test_dir), ".");
    }

    #[test]
    fn languages_are_named_by_grammar_or_extension() {
        assert_eq!(language_of("src/a.rs"), "rust");
        assert_eq!(language_of("docs/A.MD"), "md");
        assert_eq!(language_of("Makefile"), "other");
        assert_eq!(language_of(".gitignore"), "other");
        assert_eq!(size(17_200_000), "17.2 MB");
        assert_eq!(size(940_123), "940 KB");
    }
}
