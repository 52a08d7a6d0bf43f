//! `log`: the history from a commit (`HEAD` by default), newest first, in git's own layout
//! (`git log --numstat --date=iso --no-renames`): full id, author, date, the message, then each
//! changed file with its added and removed lines (`-` for binary files). A merge lists no files,
//! as git's log does not. With `path`, only commits that change something under it (a merge
//! only when it differs from every parent) and only those files. With `since`, commits
//! committed before that date end the walk. With `patch`, each file's diff follows (its text as
//! the read stage keeps it: binary and sensitive files noted, secrets handled).
//!
//! The answer is cut to the budget by whole commits; the continuation is `skip`.

use super::{
    DEFAULT_CONTEXT, DiffBody, DiffStatus, FileDiff, Side, Version, git_error, open, path_arg,
    scanned_message, shown, side, since_arg,
};
use crate::driver::call::paging::{self, Limits, One, Paged};
use crate::driver::call::{Answer, NavError, Request, args};
use crate::driver::file::FileContext;
use crate::error::Error;
use crate::stages::git::diff::{self as line_diff, diff_lines};
use crate::stages::git::history::{Parent, Step};
use crate::stages::git::tree::{FileAt, MODE_COMMIT, PathFilter, TreeChange};
use crate::stages::git::{Blob, CommitInfo, Repo, is_binary, short};
use crate::vocab::ErrorKind;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::rc::Rc;

/// The default number of commits.
pub const DEFAULT_MAX_COUNT: usize = 20;
/// The most files one commit lists (and reads, to count their lines); more are counted.
pub const MAX_COMMIT_FILES: usize = 200;
/// The most commits one call may ask for.
pub const MAX_COUNT: usize = 10_000;

/// What a `log` call asks, as the CLI gives it and as a tool call's JSON is read
/// ([`crate::driver::call::args`]; the `log` tool's input schema is derived from it).
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema, clap::Args)]
pub struct LogArgs {
    /// Commit to start from: branch, tag or id (default HEAD).
    #[serde(default, deserialize_with = "args::some_text")]
    pub rev: Option<String>,
    /// Most commits shown (default 20, at most 10000).
    #[arg(short = 'n', long, value_name = "N")]
    pub max_count: Option<usize>,
    /// Only the commits that change this file or directory.
    #[arg(long, value_name = "PATH")]
    #[serde(default, deserialize_with = "args::some_path")]
    pub path: Option<String>,
    /// Only commits since YYYY-MM-DD, an RFC 3339 time or @SECONDS.
    #[arg(long, value_name = "DATE")]
    #[serde(default, deserialize_with = "args::some_text")]
    pub since: Option<String>,
    /// Also show each commit's diff (default false).
    #[arg(short, long)]
    #[serde(default, deserialize_with = "args::or_default")]
    pub patch: bool,
    /// The continuation a cut answer gives, as given.
    #[arg(long, value_name = "N", default_value_t = 0)]
    #[serde(default, deserialize_with = "args::or_default")]
    pub skip: usize,
    /// Count the answer's tokens even without a budget (the CLI, which prints no count, does
    /// not, and so never loads a tokenizer for an uncut answer).
    #[arg(skip)]
    #[serde(skip_deserializing, default = "args::counted")]
    pub count: bool,
}

/// One commit, for the structured answer.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CommitReport {
    /// The commit's full id.
    pub id: String,
    /// Its short id.
    pub short: String,
    /// The author, escaped and redacted as names are shown.
    pub author: String,
    /// The author's date (`YYYY-MM-DD HH:MM:SS +ZZZZ`).
    pub date: String,
    /// The first line of its message, escaped for display.
    pub subject: String,
    /// How many files it changed.
    pub files: usize,
}

/// What `log` found: the commits shown, and the `skip` that continues the answer (`None` when
/// it is complete).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct LogFacts {
    /// The commits shown, newest first.
    pub commits: Vec<CommitReport>,
    /// The `skip` that continues the answer; `None` when it is complete.
    #[serde(flatten, serialize_with = "paging::next_skip")]
    pub next_skip: Option<usize>,
}

/// What `log` answers.
pub type LogAnswer = Answer<LogFacts>;

/// A commit as shown.
struct Shown {
    info: CommitInfo,
    text: String,
    files: usize,
    /// `Name <email>`, and the message's first line, as shown.
    author: String,
    subject: String,
}

/// A commit's `Name <email>` as shown: both strings come from `.git`, which whoever wrote the
/// repository wrote, so they are escaped and scanned like a name (a token in them redacted).
fn author(ctx: &FileContext<'_>, info: &CommitInfo) -> String {
    let namer = ctx.namer();
    format!(
        "{} <{}>",
        namer.git_string(&info.author_name),
        namer.git_string(&info.author_email)
    )
}

/// Run `log`.
pub fn log(req: &Request<'_>, args: &LogArgs) -> Result<LogAnswer, NavError> {
    let max_count = args::bounded("max_count", args.max_count, DEFAULT_MAX_COUNT, MAX_COUNT)?;
    args::skip("skip", args.skip)?;
    let since = since_arg(args.since.as_deref())?;
    let filter = path_arg(args.path.as_ref())?;
    let (session, repo) = open(req)?;
    let fo = session.file_options(false, None);
    let ctx = session.context(&fo)?;
    let tip = match &args.rev {
        Some(r) => repo.resolve(r).map_err(git_error)?,
        None => match repo.head().map_err(git_error)? {
            Some(id) => id,
            None => {
                return Err(NavError::argument(
                    ErrorKind::InvalidRevision,
                    "this repository has no commits yet",
                ));
            }
        },
    };
    let mut shown_commits: Vec<Shown> = Vec::new();
    let mut skipped = 0usize;
    let mut more = false;
    let mut err: Option<NavError> = None;
    let mut sides = Sides::default();
    repo.history(tip, |mut step| {
        if session.cancelled() {
            err = Some(Error::Cancelled.into());
            return Ok(false);
        }
        if since.is_some_and(|s| step.info.commit_time < s) {
            return Ok(false);
        }
        let Some(changes) = changes_of(&repo, &mut step, &filter)? else {
            return Ok(true);
        };
        let info = step.info;
        if skipped < args.skip {
            skipped += 1;
            return Ok(true);
        }
        if shown_commits.len() == max_count {
            more = true;
            return Ok(false);
        }
        // The author and message are rendered and scanned once, for the text and the report.
        let who = author(&ctx, &info);
        let message = scanned_message(&ctx, &info.message);
        let rendered = render_commit(
            &repo,
            &ctx,
            &mut sides,
            (&info, &who, &message),
            &changes,
            args.patch,
        );
        match rendered {
            Ok(text) => {
                shown_commits.push(Shown {
                    files: changes.len(),
                    subject: message.lines().next().unwrap_or("").trim().to_string(),
                    author: who,
                    info,
                    text,
                });
                if let Some(o) = req.observer {
                    o.progress(shown_commits.len(), max_count);
                }
                Ok(true)
            }
            Err(e) => {
                err = Some(e);
                Ok(false)
            }
        }
    })
    .map_err(git_error)?;
    if let Some(e) = err {
        return Err(e);
    }
    let (encoding, limits) = (session.encoding(), session.limits());
    let budget = limits.budget;
    let r = Render {
        commits: &shown_commits,
        more,
        max_count,
        skip: args.skip,
        patch: args.patch,
        limits,
    };
    let count = paging::counter(encoding, args.count || budget.is_some());
    let fitted = paging::fit(&r, limits, &count)?;
    let next_skip = r.next(fitted.k);
    let commits = shown_commits[..fitted.k]
        .iter()
        .map(|s| CommitReport {
            id: s.info.id.to_string(),
            short: short(&s.info.id),
            author: s.author.clone(),
            date: super::format_date(s.info.time, s.info.offset),
            subject: s.subject.clone(),
            files: s.files,
        })
        .collect();
    Ok(Answer {
        page: fitted.page(encoding, budget),
        facts: LogFacts { commits, next_skip },
    })
}

/// Renders answers for a log: the commits shown, newest first, then the continuation.
struct Render<'a> {
    commits: &'a [Shown],
    /// More commits match than `max_count`.
    more: bool,
    max_count: usize,
    /// Commits left out before the first (the call's `skip`).
    skip: usize,
    patch: bool,
    limits: Limits,
}

impl Paged for Render<'_> {
    /// The `skip` that continues the answer, if there is more.
    type Next = Option<usize>;

    fn items(&self) -> usize {
        self.commits.len()
    }

    fn cost(&self, i: usize) -> (usize, usize) {
        let t = &self.commits[i].text;
        (t.len() / 3 + 4, t.len() + 1)
    }

    fn render(&self, k: usize) -> String {
        let mut out = String::new();
        for (i, s) in self.commits[..k].iter().enumerate() {
            if i > 0 {
                out.push('\n');
            }
            out.push_str(&s.text);
        }
        if self.commits.is_empty() {
            out.push_str("(no commits match)\n");
        }
        if let Some(next) = self.next(k) {
            let max_count = self.max_count;
            let cut = k < self.commits.len();
            let why = paging::why(cut, &self.limits, || {
                format!("max_count ({max_count}) reached")
            });
            let shown = format!("showing {k} commits");
            paging::continuation(&mut out, &shown, &why, "skip", next);
        }
        out
    }

    fn next(&self, k: usize) -> Option<usize> {
        (k < self.commits.len() || self.more).then_some(self.skip + k)
    }

    fn needs_one(&self) -> Option<One> {
        Some(One {
            what: "the first commit, which would",
            advice: if self.patch {
                ", or leave out patch"
            } else {
                ""
            },
        })
    }
}

/// The files a commit changed (against its first parent; none for a merge), or `None` when a
/// path filter is given and the commit does not touch it (a merge: touches it against every
/// parent).
fn changes_of(
    repo: &Repo,
    step: &mut Step<'_>,
    filter: &PathFilter,
) -> Result<Option<Vec<TreeChange>>, crate::stages::git::GitError> {
    let filtered = !filter.prefixes.is_empty();
    let tree = step.info.tree;
    let parent = match step.parent()? {
        Parent::Root => None,
        Parent::One(t) => Some(t),
        Parent::Merge => {
            if filtered {
                for p in step.info.parents.clone() {
                    if repo
                        .diff_trees(Some(step.tree_of(p)?), Some(tree), filter)?
                        .is_empty()
                    {
                        return Ok(None);
                    }
                }
            }
            return Ok(Some(Vec::new()));
        }
    };
    let c = repo.diff_trees(parent, Some(tree), filter)?;
    Ok((!filtered || !c.is_empty()).then_some(c))
}

/// One side's bytes from the object store.
fn blob_bytes(repo: &Repo, at: Option<FileAt>) -> Result<Option<Vec<u8>>, NavError> {
    match at {
        None => Ok(Some(Vec::new())),
        Some(a) if a.mode == MODE_COMMIT => {
            Ok(Some(format!("Subproject commit {}\n", a.id).into_bytes()))
        }
        Some(a) => match repo.blob(a.id).map_err(git_error)? {
            Blob::Bytes(b) => Ok(Some(b)),
            Blob::TooLarge(_) => Ok(None),
        },
    }
}

/// One side of a file's change as read: whether git calls its bytes binary, and what the
/// answer shows of it.
pub(super) struct Read {
    pub(super) binary: bool,
    pub(super) side: Side,
}

/// The most bytes of text [`Sides`] keeps; past it, it starts again empty.
const SIDES_BYTES: usize = 64 << 20;

/// Sides read and scanned, kept for the next commit that needs them: a file's old side in one
/// commit is its new side in the next (older) commit the walk reaches that changed it, so each
/// version of a file is inflated and scanned once, not twice. Keyed by the file's mode, blob
/// and path (the scan's rules depend on the path), so a hit is the very side a read would give.
#[derive(Default)]
pub(super) struct Sides {
    kept: HashMap<(FileAt, Vec<u8>), Rc<Read>>,
    bytes: usize,
}

impl Sides {
    /// The side `at` of the file `rel` (shown as `path`); kept for later when `keep`.
    pub(super) fn get(
        &mut self,
        repo: &Repo,
        ctx: &FileContext<'_>,
        at: Option<FileAt>,
        rel: &[u8],
        path: &str,
        keep: bool,
    ) -> Result<Rc<Read>, NavError> {
        let Some(at) = at else {
            return Ok(Rc::new(Read {
                binary: false,
                side: Side::Text(String::new()),
            }));
        };
        let key = (at, rel.to_vec());
        if let Some(r) = self.kept.remove(&key) {
            self.bytes -= weight(&r);
            return Ok(r);
        }
        // As a side is made from its bytes: binary by git's rule on the raw bytes; the text
        // as the read stage keeps it (binary detected, sensitive files noted, secrets handled).
        let read = Rc::new(match blob_bytes(repo, Some(at))? {
            None => Read {
                binary: false,
                side: Side::Note("larger than max_file_size".into()),
            },
            Some(b) if b.is_empty() => Read {
                binary: false,
                side: Side::Text(String::new()),
            },
            Some(b) => Read {
                binary: is_binary(&b),
                side: side(ctx, rel, path, b),
            },
        });
        if keep {
            let w = weight(&read);
            if self.bytes + w > SIDES_BYTES {
                self.kept.clear();
                self.bytes = 0;
            }
            self.bytes += w;
            self.kept.insert(key, Rc::clone(&read));
        }
        Ok(read)
    }
}

/// What a kept side costs: its text, its path and the map's own overhead.
fn weight(r: &Read) -> usize {
    64 + match &r.side {
        Side::Text(t) | Side::Note(t) => t.len(),
    }
}

/// A commit in git's log layout.
fn render_commit(
    repo: &Repo,
    ctx: &FileContext<'_>,
    sides: &mut Sides,
    (info, author, message): (&CommitInfo, &str, &str),
    changes: &[TreeChange],
    patch: bool,
) -> Result<String, NavError> {
    let mut out = format!("commit {}\n", info.id);
    if info.parents.len() > 1 {
        let shorts: Vec<String> = info.parents.iter().map(short).collect();
        let _ = writeln!(out, "Merge: {}", shorts.join(" "));
    }
    let _ = writeln!(out, "Author: {author}");
    let _ = writeln!(
        out,
        "Date:   {}",
        super::format_date(info.time, info.offset)
    );
    out.push('\n');
    for line in message.trim_end().lines() {
        let _ = writeln!(out, "    {line}");
    }
    if repo.is_shallow_boundary(&info.id) {
        out.push_str(
            "\n(shallow clone boundary: the parents of this commit are not in the clone)\n",
        );
    }
    if changes.is_empty() {
        return Ok(out);
    }
    out.push('\n');
    let mut patches = String::new();
    for c in changes.iter().take(MAX_COMMIT_FILES) {
        let path = shown(ctx, &c.path);
        // Lines are counted on the text as served (both sides scanned, secrets redacted under
        // the mode in force): counts of the original would tell a secret's lines and when it
        // was rotated.
        let a = sides.get(repo, ctx, c.old, &c.path, &path, true)?;
        let b = sides.get(repo, ctx, c.new, &c.path, &path, false)?;
        let counts = match (&a.side, &b.side) {
            _ if a.binary || b.binary => "-\t-".to_string(),
            (Side::Text(a), Side::Text(b)) => {
                let (added, removed) = line_diff::count(a, b);
                format!("{added}\t{removed}")
            }
            _ => "?\t?".to_string(),
        };
        let _ = writeln!(out, "{counts}\t{path}");
        if patch {
            let (counts, body) = match (&a.side, &b.side) {
                (Side::Text(a), Side::Text(b)) => {
                    let d = diff_lines(a, b, DEFAULT_CONTEXT);
                    (Some((d.added, d.removed)), DiffBody::Hunks(d.hunks))
                }
                (Side::Note(n), _) | (_, Side::Note(n)) => {
                    (None, DiffBody::Note(format!("diff not shown: {n}")))
                }
            };
            let d = FileDiff {
                status: match (c.old, c.new) {
                    (None, _) => DiffStatus::Added,
                    (_, None) => DiffStatus::Deleted,
                    _ => DiffStatus::Modified,
                },
                old: Version {
                    path: path.clone(),
                    mode: c.old.map(|o| o.mode),
                },
                new: Version {
                    path,
                    mode: c.new.map(|n| n.mode),
                },
                similarity: None,
                counts,
                body,
            };
            patches.push('\n');
            patches.push_str(&d.header(false));
            for i in 0..d.items() {
                patches.push_str(&d.item_text(i));
            }
        }
    }
    if changes.len() > MAX_COMMIT_FILES {
        let _ = writeln!(
            out,
            "... and {} more files, not listed (narrow with path)",
            changes.len() - MAX_COMMIT_FILES
        );
    }
    out.push_str(&patches);
    Ok(out)
}
