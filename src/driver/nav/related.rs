//! `related`: the files most related to one file (or to one of its definitions), by the search
//! index ([`super::repo_index`]), best first, each with why: it imports the file, the file imports
//! it, it uses names the file defines, or it defines names the file uses. What widens a search
//! from a hit.
//!
//! - **Imports** are read from import lines (`use`, `import`, `from`, `#include`, `require(`,
//!   ...): a file imports another when one of its import lines names the other's module (its
//!   stem, or its directory for `mod.rs`, `index.js`, `__init__.py`), weighted down when several
//!   files share that module name.
//! - **Names**: the file's definitions (from the syntax stage when its language has a grammar,
//!   else the keyword guess), each weighted by its rarity in the repository (inverse document
//!   frequency), found among another file's terms; and the other way, the names another file
//!   defines found among this file's terms. With `symbol`, only that name counts, and only the
//!   files that have it are listed.
//!
//! - **Co-change**: when the repository has a `.git`, the files changed in the same commits as
//!   the file (`crate::stages::git::cochange`: the newest commits, each shared one weighing
//!   `1 / (its files - 1)`, commits of many files passed over), a file changed with it in
//!   several small commits counting about as much as an import. Not with `symbol`, which asks
//!   about one name.
//!
//! Every file is searched as `search` searches it (same walk, rules and redacted text, same warm
//! index); a file the history names is shown only when it is among them, by the name the index
//! shows it by (the history's paths are rendered by the same renderer). At most [`MAX_NAMES`]
//! names of the file count (said in the answer when more are defined).

use super::repo_index::{self, IndexedFile, RepoIndex};
use crate::driver::call::Answer;
use crate::driver::call::paging::{self, Limits, Paged};
use crate::driver::call::paths::{prove, quote, repo_root};
use crate::driver::call::request::{NavError, Request};
use crate::driver::call::session::Session;
use crate::driver::file::FileContext;
use crate::error::Error;
use crate::stages::git::{self, cochange};
use crate::stages::rank::FileIndex;
use crate::stages::rank::graph::{self, Modules, NAME_WEIGHT};
use crate::vocab::ErrorKind;
use crate::vocab::Symbol;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Files shown when `limit` is not given.
pub const DEFAULT_LIMIT: usize = 10;
/// The most files one answer may list.
pub const MAX_LIMIT: usize = 50;
/// The most names of the file that count.
pub const MAX_NAMES: usize = 512;

/// The most names listed as the reason for one file.
const NAMES_SHOWN: usize = 4;
/// Weight of co-change, times `ln(1 + w)` where `w` sums `1 / (files - 1)` over the commits
/// that changed both files: two commits of two files weigh about as much as an import.
const CO_CHANGE_WEIGHT: f64 = 3.0;

/// What `related` is asked: a call's arguments, as the CLI's flags give them and as a tool call's
/// JSON is read ([`crate::driver::call::args`]; the `related` tool's input schema is derived from
/// them).
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema, clap::Args)]
pub struct RelatedArgs {
    /// A file, or path::Name for one of its names.
    #[serde(deserialize_with = "crate::driver::call::args::path")]
    pub path: String,
    /// Only this definition's name counts (as path::Name says it).
    #[arg(long, value_name = "NAME")]
    #[serde(skip)]
    pub symbol: Option<String>,
    /// Most files listed; `None` for [`DEFAULT_LIMIT`].
    #[schemars(description = limit_help())]
    #[arg(short = 'n', long, value_name = "N", help = limit_help())]
    #[serde(default, deserialize_with = "crate::driver::call::args::some_count")]
    pub limit: Option<usize>,
}

/// What `limit` means, for the tool's schema and the CLI's help.
fn limit_help() -> String {
    format!("Most files to list, best first (default {DEFAULT_LIMIT}).")
}

impl RelatedArgs {
    /// `src/a.rs::Name` as the path and the name, unless `symbol` is given; a path without
    /// `::` is the whole file.
    fn split(&self) -> RelatedArgs {
        let (path, symbol) = match (&self.symbol, self.path.rsplit_once("::")) {
            (None, Some((path, name)))
                if !path.is_empty() && !name.is_empty() && !name.contains('/') =>
            {
                (path.to_string(), Some(name.to_string()))
            }
            _ => (self.path.clone(), self.symbol.clone()),
        };
        RelatedArgs {
            path,
            symbol,
            limit: self.limit,
        }
    }
}

/// One related file.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Relation {
    /// The file, relative to the root, escaped for display.
    pub path: String,
    /// How related it is: imports, shared names and co-changes, weighed and summed.
    pub score: f64,
    /// It imports the file; the file imports it.
    pub imports_it: bool,
    /// The file imports it.
    pub imported_by_it: bool,
    /// Names the file defines that it uses.
    pub uses: Vec<String>,
    /// How many names it defines that the file uses.
    pub provides: usize,
    /// In how many commits of the history looked at it changed with the file.
    pub co_changes: u32,
}

/// What `related` found: the files related at all, and those shown, best first.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct RelatedFacts {
    /// Files related at all, and files searched.
    pub total_files: usize,
    /// Files searched.
    #[serde(skip)]
    pub files_searched: usize,
    /// The files shown, best first.
    pub files: Vec<Relation>,
    /// Names of the file that counted, and how many it defines.
    #[serde(skip)]
    pub names: (usize, usize),
    /// What the history said: commits looked at and those that changed the file, or why it
    /// was not read (no `.git`, a bound); `None` with `symbol`.
    #[serde(skip)]
    pub history: Option<History>,
}

/// What the history gave `related`.
#[derive(Clone, Debug, PartialEq)]
pub enum History {
    /// Commits looked at, those that changed the file, and why the walk stopped early.
    Read {
        /// Commits looked at.
        commits: usize,
        /// Those of them that changed the file.
        changing: usize,
        /// Why the walk stopped early, if it did.
        stopped: Option<String>,
    },
    /// Not read, and why.
    Unread(String),
}

/// What `related` answers.
pub type RelatedAnswer = Answer<RelatedFacts>;

/// Rank the files of `req`'s repository by how related they are to `args.path`.
pub fn related(req: &Request<'_>, args: &RelatedArgs) -> Result<RelatedAnswer, NavError> {
    let args = &args.split();
    let limit = crate::driver::call::args::limit(args.limit, DEFAULT_LIMIT, MAX_LIMIT)?;
    let root = repo_root(req)?;
    let proven = prove(&root, "path", &args.path)?;
    if proven.is_dir() {
        return Err(NavError::argument(
            ErrorKind::NotAFile,
            format!("path {}: a directory; give one file", quote(&args.path)),
        ));
    }
    let session = Session::open(req)?;
    let fo = session.file_options(false, None);
    let mut ctx = session.context(&fo)?;
    // Findings are not part of the answer (nor of the index): in warn mode no scan is needed.
    ctx.findings_unused = true;
    let shown = ctx.namer().path(&proven.rel).into_parts().0;
    let RepoIndex { files, .. } = repo_index::index(&session, &ctx)?;
    let Some(me) = files.iter().position(|f| f.path == shown) else {
        return Err(NavError::argument(
            ErrorKind::NotSearched,
            format!(
                "path {}: not among the files searched (ignored, excluded, binary, too large or \
                 sensitive); related files are found only for a searched file",
                quote(&args.path)
            ),
        ));
    };
    let stop = || session.cancelled();
    let names = names_of(&files[me], &ctx, &stop, args.symbol.as_deref());
    let defined = names.len();
    let names: Vec<(String, u64)> = names.into_iter().take(MAX_NAMES).collect();
    // Each name's rarity, and the files by module name (the weights are the reference
    // graph's, `graph`).
    let idf: Vec<f64> = names
        .iter()
        .map(|(_, h)| {
            let df = files.iter().filter(|f| f.index.tf(*h).is_some()).count();
            graph::idf(files.len(), df)
        })
        .collect();
    let modules = Modules::of(files.iter().map(|f| f.path.as_str()));
    let import_weight =
        |m: Option<u64>| graph::import_weight(m.map_or(1, |m| modules.files(m).len()));
    let mine = &files[me].index;
    let my_module = modules.name_of(&files[me].path);
    // The files changed with it, by the index's position.
    let (history, together) = match args.symbol {
        Some(_) => (None, HashMap::new()),
        None => {
            let (history, together) = co_changed(&session, &ctx, &files, &proven.rel, &stop)?;
            (Some(history), together)
        }
    };
    let mut out: Vec<Relation> = Vec::new();
    for (i, f) in files.iter().enumerate() {
        if i % 256 == 0 && stop() {
            return Err(Error::Cancelled.into());
        }
        if i == me {
            continue;
        }
        let mut score = 0.0;
        let module = modules.name_of(&f.path);
        let it_imports = my_module.is_some_and(|m| f.index.imports(m));
        let imported = module.is_some_and(|m| mine.imports(m));
        if it_imports {
            score += import_weight(my_module);
        }
        if imported {
            score += import_weight(module);
        }
        let mut uses = Vec::new();
        for (k, (name, h)) in names.iter().enumerate() {
            if f.index.tf(*h).is_some() {
                score += NAME_WEIGHT * idf[k];
                uses.push(name.clone());
            }
        }
        // By one name, only the files that have it count (their import edges add to it).
        if args.symbol.is_some() && uses.is_empty() {
            continue;
        }
        let provides = if args.symbol.is_some() {
            0
        } else {
            provided(&f.index, mine)
        };
        score += NAME_WEIGHT * provides as f64 / (1.0 + provides as f64).ln().max(1.0);
        let (co_changes, weight) = together.get(&i).copied().unwrap_or_default();
        score += CO_CHANGE_WEIGHT * weight.ln_1p();
        if score > 0.0 {
            out.push(Relation {
                path: f.path.clone(),
                score,
                imports_it: it_imports,
                imported_by_it: imported,
                uses,
                provides,
                co_changes,
            });
        }
    }
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.path.as_bytes().cmp(b.path.as_bytes()))
    });
    let total = out.len();
    out.truncate(limit);
    let (encoding, limits) = (session.encoding(), session.limits());
    let budget = limits.budget;
    let count = session.counter();
    let r = Render {
        args,
        shown: &files[me].path,
        files: &out,
        total,
        searched: files.len(),
        names: (names.len(), defined),
        history: history.as_ref(),
        limits,
        count: &count,
    };
    let fitted = paging::fit(&r, limits, &count)?;
    let mut shown_files = out.clone();
    shown_files.truncate(fitted.k);
    Ok(Answer {
        page: fitted.page(encoding, budget),
        facts: RelatedFacts {
            total_files: total,
            files_searched: files.len(),
            files: shown_files,
            names: (names.len(), defined),
            history,
        },
    })
}

/// The files changed with the file, by their position in the index: the commits they share
/// and their weight.
type Together = HashMap<usize, (u32, f64)>;

/// What the history says of the file `rel` (as git records it): the files of `files` changed
/// with it, by position, with the commits they share and their weight. A repository without a
/// usable `.git` has none, said in [`History::Unread`]; so has one whose history cannot be read
/// (a missing object, a corrupt pack), as `related` does not need it.
fn co_changed(
    session: &Session<'_, '_>,
    ctx: &FileContext<'_>,
    files: &[IndexedFile],
    rel: &[u8],
    stop: &dyn Fn() -> bool,
) -> Result<(History, Together), NavError> {
    let caps = git::Caps {
        max_blob: session.options.max_file_size,
        ..git::Caps::default()
    };
    let found =
        git::open(&session.dir, caps).and_then(|repo| cochange::co_changes(&repo, rel, stop));
    let found = match found {
        Ok(Some(found)) => found,
        Ok(None) => return Ok((History::Unread("no commits yet".into()), HashMap::new())),
        // Said by kind only: a message may quote what `.git` holds.
        Err(git::GitError::Refused { kind, .. }) => {
            return Ok((History::Unread(kind.to_string()), HashMap::new()));
        }
        Err(git::GitError::BadRevision(_)) => {
            return Ok((
                History::Unread("HEAD names no commit".into()),
                HashMap::new(),
            ));
        }
        Err(git::GitError::Bound(_) | git::GitError::Failed(_)) => {
            let why = "its objects could not be read (missing, corrupt or over a bound)";
            return Ok((History::Unread(why.into()), HashMap::new()));
        }
    };
    if stop() {
        return Err(Error::Cancelled.into());
    }
    let at: HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect();
    let mut together = HashMap::new();
    for (path, shared) in &found.files {
        let shown = ctx.namer().path(path).into_parts().0;
        if let Some(&i) = at.get(shown.as_str()) {
            together.insert(i, *shared);
        }
    }
    let history = History::Read {
        commits: found.commits,
        changing: found.changing,
        stopped: found.stopped,
    };
    Ok((history, together))
}

/// The names `f` defines, as written with their hashes (lowercased, without underscores, as
/// whole-identifier terms are), in source order, each once; only `symbol` when given.
fn names_of(
    f: &IndexedFile,
    ctx: &crate::driver::file::FileContext<'_>,
    stop: &dyn Fn() -> bool,
    symbol: Option<&str>,
) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = Vec::new();
    // A name's term: the whole identifier's, as the index has it.
    let mut push = |name: &str| {
        if let Some(h) = graph::name_term(name)
            && !out.iter().any(|(_, o)| *o == h)
        {
            out.push((name.to_string(), h));
        }
    };
    if let Some(s) = symbol {
        push(s.rsplit([':', '.']).next().unwrap_or(s));
        return out;
    }
    if let Some(symbols) = f.outline(ctx, stop) {
        for (_, s) in Symbol::walk(&symbols) {
            push(s.name.rsplit([':', '.']).next().unwrap_or(&s.name));
        }
    } else {
        for w in crate::stages::rank::defined_names(&f.body.text) {
            push(&w);
        }
    }
    out
}

/// How many names `other` defines that `mine` uses.
fn provided(other: &FileIndex, mine: &FileIndex) -> usize {
    other
        .defined_terms()
        .iter()
        .filter(|h| mine.tf(**h).is_some())
        .count()
}

struct Render<'a> {
    args: &'a RelatedArgs,
    shown: &'a str,
    files: &'a [Relation],
    total: usize,
    searched: usize,
    names: (usize, usize),
    history: Option<&'a History>,
    limits: Limits,
    count: &'a dyn Fn(&str) -> usize,
}

impl Render<'_> {
    fn head(&self) -> String {
        let mut out = format!(
            "related {}: {} {} related of {} searched",
            quote(self.shown),
            self.total,
            if self.total == 1 { "file" } else { "files" },
            self.searched
        );
        if let Some(s) = &self.args.symbol {
            let _ = write!(out, "; by the name {}", quote(s));
        } else if self.names.1 > self.names.0 {
            let _ = write!(
                out,
                "; {} of its {} names counted (the first in the file)",
                self.names.0, self.names.1
            );
        }
        match self.history {
            Some(History::Read {
                commits,
                changing,
                stopped,
            }) => {
                let s = if *commits == 1 { "" } else { "s" };
                let _ = write!(
                    out,
                    "; {changing} of the last {commits} commit{s} change it"
                );
                if let Some(why) = stopped {
                    let _ = write!(out, " (history read up to a bound: {why})");
                }
            }
            Some(History::Unread(why)) if why != ErrorKind::NotAGitRepository.name() => {
                let _ = write!(out, "; history not read: {why}");
            }
            _ => {}
        }
        out.push('\n');
        out
    }

    fn file(&self, out: &mut String, i: usize) {
        let f = &self.files[i];
        let mut why: Vec<String> = Vec::new();
        if f.imports_it {
            why.push("imports it".into());
        }
        if f.imported_by_it {
            why.push("imported by it".into());
        }
        if !f.uses.is_empty() {
            let mut names: Vec<&str> = f
                .uses
                .iter()
                .take(NAMES_SHOWN)
                .map(String::as_str)
                .collect();
            if f.uses.len() > NAMES_SHOWN {
                names.push("…");
            }
            why.push(format!(
                "uses {} of its names ({})",
                f.uses.len(),
                names.join(", ")
            ));
        }
        if f.provides > 0 {
            let s = if f.provides == 1 { "" } else { "s" };
            why.push(format!("defines {} name{s} it uses", f.provides));
        }
        if f.co_changes > 0 {
            let s = if f.co_changes == 1 { "" } else { "s" };
            why.push(format!("changed with it in {} commit{s}", f.co_changes));
        }
        let _ = writeln!(
            out,
            "{}. {}  score {:.2}: {}",
            i + 1,
            f.path,
            f.score,
            why.join("; ")
        );
    }
}

impl Paged for Render<'_> {
    /// No argument continues a cut answer: its last line says to raise limit or budget.
    type Next = ();

    fn items(&self) -> usize {
        self.files.len()
    }

    fn cost(&self, i: usize) -> (usize, usize) {
        paging::alone(self.count, |o| self.file(o, i))
    }

    fn render(&self, k: usize) -> String {
        let mut out = self.head();
        for i in 0..k {
            self.file(&mut out, i);
        }
        if k < self.total {
            let why = if k < self.files.len() {
                match self.limits.budget {
                    Some(b) => format!("cut to fit the budget of {b} tokens"),
                    None => format!("cut to fit the limit of {} bytes", self.limits.max_bytes),
                }
            } else {
                format!("limit ({}) reached", self.files.len())
            };
            let _ = writeln!(
                out,
                "--- showing {k} of {} related files, {why}; raise limit (at most {MAX_LIMIT}) or budget for more",
                self.total
            );
        }
        out
    }

    fn next(&self, _k: usize) {}
}
