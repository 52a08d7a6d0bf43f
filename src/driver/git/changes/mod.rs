//! `changes`: the working tree against a commit (`HEAD` by default), as `git diff BASE` shows it
//! for tracked files, plus the untracked files: first the list of changed files with their
//! status and line counts, then the unified diff, cut to the budget by hunks with the exact
//! continuation (`after: "PATH:N"`, the last hunk shown).
//!
//! Which files changed is decided as git decides it: the paths of the base commit's tree and of
//! the index; a working-tree file whose size, times and inode match its index entry (and that
//! is not newer than the index) has the index's blob; any other is read and hashed. Renames are
//! paired as git does by default: identical content first, then the most similar text at 50% or
//! more. Both sides of a diff are what the read stage keeps (binary detected, sensitive files
//! left out, secrets handled), so the hunks are those of the text the model may see.
//!
//! `status.rs` finds which files changed, `sides.rs` reads both sides of each and diffs them;
//! this file answers: the list, the hunks fitted to the budget, the continuation.

use super::{DEFAULT_CONTEXT, DiffBody, DiffStatus, FileDiff, MAX_CONTEXT, path_filter};
use crate::driver::call::paging::{self, Limits, One, Paged};
use crate::driver::call::paths::quote;
use crate::driver::call::session::Session;
use crate::driver::call::{Answer, NavError, Request, args};
use crate::driver::file::FileContext;
use crate::error::Error;
use crate::stages::git::Repo;
use serde::Serializer;
use std::fmt::Write as _;

mod sides;
mod status;

use sides::{BATCH_BYTES, BATCH_FILES, Prepared, finish, prepare, untracked_diff};
pub use status::changed_paths;
use status::{Computed, open_and_compute};

/// The most changed files one call diffs; more are listed and counted.
pub const MAX_FILES: usize = 5_000;
/// The most untracked files listed.
pub const MAX_UNTRACKED: usize = 1_000;
/// Rename pairs compared by similarity at most (added x deleted).
const MAX_RENAME_PAIRS: usize = 10_000;

/// What a `changes` call asks, as the CLI gives it and as a tool call's JSON is read
/// ([`crate::driver::call::args`]; the `changes` tool's input schema is derived from it).
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema, clap::Args)]
pub struct ChangesArgs {
    /// Commit to compare the working tree with (default HEAD).
    #[serde(default, deserialize_with = "args::some_text")]
    pub base: Option<String>,
    /// Files or directories to limit it to, e.g. src/.
    #[schemars(length(max = super::MAX_PATHS))]
    #[arg(long = "path", value_name = "PATH", action = clap::ArgAction::Append)]
    #[serde(default, deserialize_with = "args::paths")]
    pub paths: Vec<String>,
    /// Lines of context around each change (default 3).
    #[arg(short = 'U', long, value_name = "N")]
    pub context: Option<u32>,
    /// The continuation a cut answer gives, as given.
    #[arg(long, value_name = "PATH:N")]
    #[serde(default, deserialize_with = "args::some_text")]
    pub after: Option<String>,
    /// Count the answer's tokens even without a budget (the CLI, which prints no count, does
    /// not, and so never loads a tokenizer for an uncut answer).
    #[arg(skip)]
    #[serde(skip_deserializing, default = "args::counted")]
    pub count: bool,
}

/// One changed file, for the structured answer.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ChangedFile {
    /// `added`, `modified`, `deleted`, `renamed`, `type_changed` or `untracked`.
    pub status: DiffStatus,
    pub path: String,
    /// The old path of a rename (empty otherwise).
    pub old_path: String,
    pub added: u32,
    pub removed: u32,
    /// Why the diff is not shown (empty when it is).
    pub note: String,
}

/// What `changes` found.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct ChangesFacts {
    /// The base commit's full id (empty in a repository without commits).
    pub base: String,
    /// The changed files listed (those that fit a quarter of the answer's limits).
    pub files: Vec<ChangedFile>,
    /// Changed and untracked files counted but not listed.
    pub files_not_listed: usize,
    /// The `after` argument that continues the answer, when cut.
    #[serde(flatten, serialize_with = "next_after")]
    pub next: Option<String>,
}

/// What `changes` answers.
pub type ChangesAnswer = Answer<ChangesFacts>;

/// How a changes answer says where it continues: `complete`, and the `next_after` that
/// continues it (empty when complete).
fn next_after<S: Serializer>(next: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
    paging::continued(
        s,
        "next_after",
        next.is_none(),
        next.as_deref().unwrap_or_default(),
    )
}

/// Run `changes`.
pub fn changes(req: &Request<'_>, args: &ChangesArgs) -> Result<ChangesAnswer, NavError> {
    let context = args.context.unwrap_or(DEFAULT_CONTEXT);
    if context > MAX_CONTEXT {
        return Err(NavError::invalid(format!(
            "context {context} is over {MAX_CONTEXT} lines"
        )));
    }
    let filter = path_filter(&args.paths)?;
    let session = Session::open(req)?;
    let fo = session.file_options(false, None);
    let ctx = session.context(&fo)?;
    let (repo, computed) = open_and_compute(&session, &ctx, args.base.as_deref(), &filter, true)?;
    let mut diffs = diff_changed(&session, &ctx, &repo, &computed, context)?;
    diffs.extend(diff_untracked(
        &session,
        &ctx,
        &computed.untracked,
        context,
    )?);
    let (encoding, limits) = (session.encoding(), session.limits());
    let budget = limits.budget;
    // Items: every hunk (or note) of every file, in order.
    let all_items: Vec<(usize, usize)> = diffs
        .iter()
        .enumerate()
        .flat_map(|(f, d)| (0..d.items()).map(move |i| (f, i)))
        .collect();
    let start = match &args.after {
        None => 0,
        Some(a) => after_position(a, &diffs, &all_items)?,
    };
    let items = &all_items[start..];
    let (head, listed) = head(&computed, &diffs, limits, args.after.as_deref());
    let r = Render {
        head,
        diffs: &diffs,
        items,
        texts: items.iter().map(|&(f, i)| diffs[f].item_text(i)).collect(),
        after: args.after.as_deref(),
        limits,
    };
    let count = paging::counter(encoding, args.count || budget.is_some());
    let fitted = paging::fit(&r, limits, &count)?;
    let next = r.next(fitted.k);
    Ok(Answer {
        page: fitted.page(encoding, budget),
        facts: ChangesFacts {
            base: computed.base_id.map(|i| i.to_string()).unwrap_or_default(),
            files: changed_files(&diffs[..listed]),
            files_not_listed: diffs.len() - listed + computed.more_untracked,
            next,
        },
    })
}

/// The diffs of the changed files (the first [`MAX_FILES`]), in order. Both sides are read
/// here (`.git` is read on this thread only), a batch at a time; each batch is then scanned
/// and diffed in parallel.
fn diff_changed(
    session: &Session<'_, '_>,
    ctx: &FileContext<'_>,
    repo: &Repo,
    computed: &Computed,
    context: u32,
) -> Result<Vec<FileDiff>, NavError> {
    let max = repo.caps().max_blob;
    let total = computed.changes.len() + computed.untracked.len();
    let listed = computed.changes.len().min(MAX_FILES);
    let mut diffs = Vec::with_capacity(listed);
    let stop = || session.cancelled();
    let mut batch: Vec<Prepared> = Vec::new();
    let mut batch_bytes = 0;
    for (n, c) in computed.changes.iter().take(MAX_FILES).enumerate() {
        if session.cancelled() {
            return Err(Error::Cancelled.into());
        }
        let p = prepare(repo, ctx, c, max)?;
        batch_bytes += p.old.pending.bytes() + p.new.pending.bytes();
        batch.push(p);
        if batch.len() == BATCH_FILES || batch_bytes >= BATCH_BYTES || n + 1 == listed {
            let prepared: Vec<std::sync::Mutex<Option<Prepared>>> = batch
                .drain(..)
                .map(|p| std::sync::Mutex::new(Some(p)))
                .collect();
            let order: Vec<usize> = (0..prepared.len()).collect();
            let done = crate::par::map(&prepared, &order, crate::par::threads(), &stop, |p| {
                // Each is taken once; a lock poisoned by a panic is still read.
                let p = p.lock().unwrap_or_else(|e| e.into_inner()).take();
                p.map(|p| finish(ctx, p, context))
            })
            .ok_or(Error::Cancelled)?;
            diffs.extend(done.into_iter().flatten());
            batch_bytes = 0;
        }
        if let Some(o) = session.req.observer {
            o.progress(n + 1, total);
        }
    }
    Ok(diffs)
}

/// The untracked files' diffs, read and scanned as extract reads them: in parallel, largest
/// first.
fn diff_untracked(
    session: &Session<'_, '_>,
    ctx: &FileContext<'_>,
    untracked: &[crate::vocab::Candidate],
    context: u32,
) -> Result<Vec<FileDiff>, NavError> {
    let order = crate::par::largest_first(untracked, |c| c.size);
    let stop = || session.cancelled();
    let diffs = crate::par::map(untracked, &order, crate::par::threads(), &stop, |c| {
        untracked_diff(ctx, c, context)
    })
    .ok_or(Error::Cancelled)?;
    Ok(diffs)
}

/// What every answer starts with: the summary line, then the list of changed files, which
/// takes at most a quarter of the answer's `limits` (the rest are counted, and their hunks
/// still follow in order), and where the answer continues from. With how many are listed.
fn head(
    computed: &Computed,
    diffs: &[FileDiff],
    limits: Limits,
    after: Option<&str>,
) -> (String, usize) {
    let total_changed = computed.changes.len();
    let mut head = format!(
        "changes: the working tree against {}: {} changed",
        computed.base_label, total_changed
    );
    let (plus, minus) = diffs
        .iter()
        .filter(|d| d.status != DiffStatus::Untracked)
        .filter_map(|d| d.counts)
        .fold((0u64, 0u64), |(p, m), (a, r)| {
            (p + u64::from(a), m + u64::from(r))
        });
    let _ = writeln!(
        head,
        " (+{plus} -{minus}), {} untracked",
        computed.untracked.len() + computed.more_untracked
    );
    if total_changed > MAX_FILES {
        let _ = writeln!(
            head,
            "(only the first {MAX_FILES} changed files are diffed; narrow with paths)"
        );
    }
    let share_bytes = limits.max_bytes / 4;
    let share_tokens = limits.budget.map_or(usize::MAX, |b| b / 4);
    let mut listed = 0;
    let mut list_bytes = 0;
    for d in diffs {
        let line = d.list_line();
        list_bytes += line.len();
        // A rough count (a token is about 3 bytes of a path) only chooses the cut.
        if listed > 0 && (list_bytes > share_bytes || list_bytes / 3 > share_tokens) {
            break;
        }
        head.push_str(&line);
        listed += 1;
    }
    if listed < diffs.len() {
        let _ = writeln!(
            head,
            "... and {} more changed files, not listed here (their hunks follow; narrow with paths)",
            diffs.len() - listed
        );
    }
    if computed.more_untracked > 0 {
        let _ = writeln!(
            head,
            "? ... and {} more untracked files",
            computed.more_untracked
        );
    }
    if let Some(a) = after {
        let _ = writeln!(head, "(continuing after {})", quote(a));
    }
    (head, listed)
}

/// The listed files, for the structured answer.
fn changed_files(diffs: &[FileDiff]) -> Vec<ChangedFile> {
    diffs
        .iter()
        .map(|d| {
            let (added, removed) = d.counts.unwrap_or((0, 0));
            ChangedFile {
                status: d.status,
                path: d.path().to_string(),
                old_path: if d.status == DiffStatus::Renamed {
                    d.old.path.clone()
                } else {
                    String::new()
                },
                added,
                removed,
                note: match &d.body {
                    DiffBody::Note(n) => n.clone(),
                    DiffBody::Hunks(_) => String::new(),
                },
            }
        })
        .collect()
}

/// Renders answers for `changes`: the head, then the hunks (or notes) from where the answer
/// starts, each file's header before its first one shown.
struct Render<'a> {
    head: String,
    diffs: &'a [FileDiff],
    /// The items from where the answer starts: (file, hunk or note).
    items: &'a [(usize, usize)],
    /// Each item's text.
    texts: Vec<String>,
    /// The call's `after`.
    after: Option<&'a str>,
    limits: Limits,
}

impl Paged for Render<'_> {
    /// The `after` that continues the answer, when it is cut.
    type Next = Option<String>;

    fn items(&self) -> usize {
        self.items.len()
    }

    fn cost(&self, i: usize) -> (usize, usize) {
        let t = &self.texts[i];
        let header = self.diffs[self.items[i].0].header(false).len();
        ((t.len() + header) / 3 + 4, t.len() + header + 1)
    }

    fn render(&self, k: usize) -> String {
        let mut out = self.head.clone();
        let mut last_file = None;
        for (n, &(f, i)) in self.items[..k].iter().enumerate() {
            if last_file != Some(f) {
                out.push('\n');
                out.push_str(&self.diffs[f].header(i > 0));
                last_file = Some(f);
            }
            out.push_str(&self.texts[n]);
        }
        if let Some(next) = self.next(k) {
            let why = paging::why(true, &self.limits, String::new);
            let shown = format!("showing {k} of {} hunks", self.items.len());
            paging::continuation(&mut out, &shown, &why, "after", next);
        }
        out
    }

    fn next(&self, k: usize) -> Option<String> {
        (k < self.items.len()).then(|| continuation(self.diffs, self.items, k, self.after))
    }

    fn needs_one(&self) -> Option<One> {
        Some(One {
            what: "the list and the first hunk, which would",
            advice: ", or narrow with paths",
        })
    }
}

/// The `after` that continues an answer showing `k` of `items`.
fn continuation(
    diffs: &[FileDiff],
    items: &[(usize, usize)],
    k: usize,
    after: Option<&str>,
) -> String {
    match k.checked_sub(1) {
        Some(i) => {
            let (f, j) = items[i];
            format!("{}:{}", diffs[f].path(), j + 1)
        }
        None => after.map(str::to_string).unwrap_or_else(|| {
            let (f, _) = items[0];
            format!("{}:0", diffs[f].path())
        }),
    }
}

/// Where `after` (`PATH:N`) leaves off in `items`.
fn after_position(
    after: &str,
    diffs: &[FileDiff],
    items: &[(usize, usize)],
) -> Result<usize, NavError> {
    let bad = |why: &str| {
        NavError::invalid(format!(
            "after {}: {why}; pass the after a cut answer ended with",
            quote(after)
        ))
    };
    let (path, n) = after
        .rsplit_once(':')
        .ok_or_else(|| bad("write PATH:N, the last hunk shown"))?;
    let n: usize = n.parse().map_err(|_| bad("N is not a number"))?;
    let f = diffs
        .iter()
        .position(|d| d.path() == path)
        .ok_or_else(|| bad("no changed file has that path now; the changes moved on"))?;
    let i = items
        .iter()
        .position(|&(g, j)| g > f || (g == f && j >= n))
        .unwrap_or(items.len());
    Ok(i)
}
