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

use super::{
    DEFAULT_CONTEXT, DiffBody, DiffStatus, FileDiff, MAX_CONTEXT, Side, Version, git_error,
    open_repo, path_filter, read_worktree, shown, side, skip_note,
};
use crate::driver::call::paging::{self, Limits, One, Paged};
use crate::driver::call::paths::quote;
use crate::driver::call::session::Session;
use crate::driver::call::{Answer, NavError, Request, args};
use crate::driver::file::{self, FileContext};
use crate::error::Error;
use crate::stages::git::diff::{LineSet, diff_lines, similarity, similarity_bound};
use crate::stages::git::tree::{FileAt, MODE_COMMIT, MODE_LINK, PathFilter, normal_mode};
use crate::stages::git::{Blob, IndexEntry, Repo, short};
use crate::stages::source::Sourced;
use crate::vocab::SkipReason;
use gix::ObjectId;
use gnaw_sandbox::BeneathDir;
use gnaw_sandbox::beneath::{FileKind, Stat};
use serde::Serializer;
use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

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

/// The working-tree state of an index path.
enum Worktree {
    Absent,
    /// Mode, blob id when known, bytes when read; or why it was not compared.
    Present {
        mode: u32,
        id: Option<ObjectId>,
        bytes: Option<Vec<u8>>,
        note: Option<String>,
    },
}

/// A tracked change before rendering.
struct Change {
    old_rel: Vec<u8>,
    new_rel: Vec<u8>,
    old: Option<FileAt>,
    /// New side: mode, id (when known), bytes (when read).
    new: Option<(u32, Option<ObjectId>, Option<Vec<u8>>)>,
    note: Option<String>,
    similarity: Option<u32>,
}

/// The paths changed against `base` (added, modified, renamed and untracked; not deleted), for
/// `extract --changed`.
pub fn changed_paths(req: &Request<'_>, base: Option<&str>) -> Result<Vec<Vec<u8>>, NavError> {
    let session = Session::open(req)?;
    let fo = session.file_options(false, None);
    let ctx = session.context(&fo)?;
    let (_, computed) = open_and_compute(&session, &ctx, base, &PathFilter::default(), false)?;
    let mut out: Vec<Vec<u8>> = computed
        .changes
        .iter()
        .filter(|c| c.new.is_some())
        .map(|c| c.new_rel.clone())
        .collect();
    out.extend(computed.untracked.iter().map(|c| c.rel.clone()));
    out.sort();
    out.dedup();
    Ok(out)
}

/// The changes and untracked files, before their diffs.
struct Computed {
    base_id: Option<ObjectId>,
    base_label: String,
    changes: Vec<Change>,
    untracked: Vec<crate::vocab::Candidate>,
    more_untracked: usize,
}

/// Open `.git` and compute the changes on this thread while another walks the working tree
/// for the untracked files: the two read different things (`.git` and the index's files; the
/// directories and ignore files), so on two cores the walk costs no time of its own. The walk
/// starts only when there is a `.git` to read, so a directory without one is refused at once.
fn open_and_compute(
    session: &Session<'_, '_>,
    ctx: &FileContext<'_>,
    base: Option<&str>,
    filter: &PathFilter,
    renames: bool,
) -> Result<(Repo, Computed), NavError> {
    if session
        .dir
        .stat_child(std::ffi::OsStr::new(".git"))
        .is_err()
    {
        // Not a repository (or .git cannot be seen): the open says why.
        let repo = open_repo(session)?;
        let computed = compute(session, &repo, ctx, base, filter, renames, || {
            session.walk()
        })?;
        return Ok((repo, computed));
    }
    std::thread::scope(|scope| {
        let walking = scope.spawn(|| session.walk());
        let walked = || {
            walking
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        };
        let repo = open_repo(session)?;
        let computed = compute(session, &repo, ctx, base, filter, renames, walked)?;
        Ok((repo, computed))
    })
}

fn compute(
    session: &Session<'_, '_>,
    repo: &Repo,
    ctx: &FileContext<'_>,
    base: Option<&str>,
    filter: &PathFilter,
    renames: bool,
    walked: impl FnOnce() -> Result<Sourced, NavError>,
) -> Result<Computed, NavError> {
    let base_id = match base {
        Some(b) => Some(repo.resolve(b).map_err(git_error)?),
        None => repo.head().map_err(git_error)?,
    };
    let label = base.unwrap_or("HEAD").to_string();
    let commit = match base_id {
        Some(id) => Some(repo.commit(id).map_err(git_error)?),
        None => None,
    };
    let index = repo.index().map_err(git_error)?;
    let index_time = index.time;
    let mut entries = index.entries;
    if !entries.windows(2).all(|w| w[0].path < w[1].path) {
        // Out of order (git never writes that): sorted, the last of a path kept.
        entries.sort_by(|a, b| a.path.cmp(&b.path));
        entries.reverse();
        entries.dedup_by(|a, b| a.path == b.path);
        entries.reverse();
    }
    let (base_files, base_label) = match (base_id, commit) {
        (Some(id), Some(c)) => {
            let subject = super::scanned_message(ctx, c.message.lines().next().unwrap_or(""))
                .trim()
                .to_string();
            (
                repo.files(c.tree, filter, &index.cache, &entries)
                    .map_err(git_error)?,
                format!("{label} ({} {})", short(&id), quote(&subject)),
            )
        }
        _ => (
            BTreeMap::new(),
            format!("{label} (no commits yet: everything in the index is added)"),
        ),
    };
    // The index's paths the filter keeps, in path order.
    let kept: Vec<&IndexEntry> = entries.iter().filter(|e| filter.keeps(&e.path)).collect();
    let max = repo.caps().max_blob;
    let mut changes = Vec::new();
    let mut dirs = DirStat::new(ctx.dir);
    // Both sides in path order, merged.
    let (mut olds, mut news) = (base_files.iter().peekable(), kept.iter().peekable());
    let mut n = 0usize;
    loop {
        let (rel, old, entry) = match (olds.peek(), news.peek()) {
            (None, None) => break,
            (Some((p, o)), Some(e)) if p.as_slice() == e.path.as_slice() => {
                let r = (p.as_slice(), Some(**o), Some(**e));
                olds.next();
                news.next();
                r
            }
            (Some((p, o)), Some(e)) if p.as_slice() < e.path.as_slice() => {
                let r = (p.as_slice(), Some(**o), None);
                olds.next();
                r
            }
            (Some((p, o)), None) => {
                let r = (p.as_slice(), Some(**o), None);
                olds.next();
                r
            }
            (_, Some(e)) => {
                let r = (e.path.as_slice(), None, Some(**e));
                news.next();
                r
            }
        };
        if n.is_multiple_of(256) && session.cancelled() {
            return Err(Error::Cancelled.into());
        }
        n += 1;
        let wt = match entry {
            None => Worktree::Absent,
            Some(e) => worktree(ctx, &mut dirs, repo, e, index_time, max),
        };
        let change = match wt {
            Worktree::Absent => old.map(|_| None),
            Worktree::Present {
                mode,
                id,
                bytes,
                note,
            } => {
                let same = old.is_some_and(|o| Some(o.id) == id && o.mode == mode);
                (!same).then_some(Some((mode, id, bytes, note)))
            }
        };
        let Some(new) = change else { continue };
        let note = new.as_ref().and_then(|n| n.3.clone());
        changes.push(Change {
            old_rel: rel.to_vec(),
            new_rel: rel.to_vec(),
            old,
            new: new.map(|(m, i, b, _)| (m, i, b)),
            note,
            similarity: None,
        });
    }
    if renames {
        pair_renames(repo, ctx, &mut changes, max)?;
    }
    // Untracked: what the walk lists (ignore files and extract's rules) that the index lacks.
    let sourced = walked()?;
    let mut untracked: Vec<crate::vocab::Candidate> = sourced
        .candidates
        .into_iter()
        .filter(|c| {
            kept.binary_search_by(|e| e.path.as_slice().cmp(&c.rel))
                .is_err()
                && filter.keeps(&c.rel)
        })
        .filter(|c| !c.rel.split(|&b| b == b'/').any(|p| p == b".git"))
        .collect();
    untracked.sort_by(|a, b| a.rel.cmp(&b.rel));
    let more_untracked = untracked.len().saturating_sub(MAX_UNTRACKED);
    untracked.truncate(MAX_UNTRACKED);
    Ok(Computed {
        base_id,
        base_label,
        changes,
        untracked,
        more_untracked,
    })
}

/// The working-tree state of the index entry `e`.
fn worktree(
    ctx: &FileContext<'_>,
    dirs: &mut DirStat<'_>,
    repo: &Repo,
    e: &IndexEntry,
    index_time: (u32, u32),
    max: u64,
) -> Worktree {
    if e.skip_worktree {
        // Outside a sparse checkout: the index's blob, as git takes it.
        return Worktree::Present {
            mode: normal_mode(e.mode),
            id: Some(e.id),
            bytes: None,
            note: None,
        };
    }
    let st = match dirs.stat(&e.path) {
        Ok(st) => st,
        Err(_) => return Worktree::Absent,
    };
    let index_mode = normal_mode(e.mode);
    if index_mode == MODE_COMMIT {
        // A submodule: its recorded commit (its own checkout is not read).
        return Worktree::Present {
            mode: MODE_COMMIT,
            id: Some(e.id),
            bytes: None,
            note: None,
        };
    }
    let mode = match st.kind {
        FileKind::File => normal_mode(st.mode),
        FileKind::Symlink => MODE_LINK,
        _ => return Worktree::Absent,
    };
    let secs = |ns: i128| {
        (
            (ns.div_euclid(1_000_000_000)) as u32,
            ns.rem_euclid(1_000_000_000) as u32,
        )
    };
    let clean = st.size as u32 == e.size
        && secs(st.mtime_ns) == e.mtime
        && secs(st.ctime_ns) == e.ctime
        && st.ino as u32 == e.ino
        && (mode == MODE_LINK) == (index_mode == MODE_LINK)
        && e.mtime < index_time;
    if clean {
        return Worktree::Present {
            mode,
            id: Some(e.id),
            bytes: None,
            note: None,
        };
    }
    if mode == MODE_LINK {
        return Worktree::Present {
            mode,
            id: None,
            bytes: None,
            note: Some("a symbolic link that changed; its target is not read".into()),
        };
    }
    match read_worktree(ctx, &e.path, max) {
        Ok(bytes) => match repo.hash_blob(&bytes) {
            Ok(id) => Worktree::Present {
                mode,
                id: Some(id),
                bytes: Some(bytes),
                note: None,
            },
            Err(e) => Worktree::Present {
                mode,
                id: None,
                bytes: None,
                note: Some(e.to_string()),
            },
        },
        Err(reason) => Worktree::Present {
            mode,
            id: None,
            bytes: None,
            note: Some(format!("not compared: {}", skip_note(&reason))),
        },
    }
}

/// The deepest directory path [`DirStat`] keeps open; deeper paths are stat'ed whole.
const MAX_OPEN_DEPTH: usize = 64;

/// `lstat` of index paths, one `fstatat` each: the directories on the way are opened once,
/// one component at a time without following a link (a link or a file on the way makes the
/// path absent, as it does for [`BeneathDir::stat_beneath`]), and kept open while the index's
/// sorted paths stay beneath them. A path with an empty, `.` or `..` component, or deeper than
/// [`MAX_OPEN_DEPTH`], is stat'ed whole with `stat_beneath`, which never leaves the repository.
struct DirStat<'d> {
    root: &'d BeneathDir,
    /// The open directories from the root down: each one's name, and the directory (`None`:
    /// it could not be opened, so nothing beneath it exists for the index).
    open: Vec<(Vec<u8>, Option<BeneathDir>)>,
}

impl<'d> DirStat<'d> {
    fn new(root: &'d BeneathDir) -> DirStat<'d> {
        DirStat {
            root,
            open: Vec::new(),
        }
    }

    fn stat(&mut self, rel: &[u8]) -> std::io::Result<Stat> {
        let (dir, name) = match rel.iter().rposition(|&b| b == b'/') {
            Some(i) => (&rel[..i], &rel[i + 1..]),
            None => (&rel[..0], rel),
        };
        let parts: Vec<&[u8]> = if dir.is_empty() {
            Vec::new()
        } else {
            dir.split(|&b| b == b'/').collect()
        };
        let odd = |p: &[u8]| p.is_empty() || p == b"." || p == b"..";
        if parts.len() > MAX_OPEN_DEPTH || parts.iter().any(|p| odd(p)) || odd(name) {
            return self
                .root
                .stat_beneath(Path::new(std::ffi::OsStr::from_bytes(rel)));
        }
        let keep = self
            .open
            .iter()
            .zip(&parts)
            .take_while(|(o, p)| o.0 == **p)
            .count();
        self.open.truncate(keep);
        for p in &parts[keep..] {
            let parent = match self.open.last() {
                None => Some(self.root),
                Some((_, d)) => d.as_ref(),
            };
            let d = parent.and_then(|d| d.child_dir(std::ffi::OsStr::from_bytes(p)).ok());
            self.open.push((p.to_vec(), d));
        }
        let parent = match self.open.last() {
            None => Some(self.root),
            Some((_, d)) => d.as_ref(),
        };
        match parent {
            Some(d) => d.stat_child(std::ffi::OsStr::from_bytes(name)),
            None => Err(std::io::ErrorKind::NotFound.into()),
        }
    }
}

/// Pair deletions with additions: same content first, then the most similar text (50% or more).
fn pair_renames(
    repo: &Repo,
    ctx: &FileContext<'_>,
    changes: &mut Vec<Change>,
    max: u64,
) -> Result<(), NavError> {
    let deleted: Vec<usize> = (0..changes.len())
        .filter(|&i| changes[i].new.is_none() && changes[i].old.is_some())
        .collect();
    let added: Vec<usize> = (0..changes.len())
        .filter(|&i| changes[i].old.is_none() && changes[i].new.is_some())
        .collect();
    if deleted.is_empty() || added.is_empty() {
        return Ok(());
    }
    let mut pairs: Vec<(usize, usize, u32)> = Vec::new();
    let mut used_d = HashSet::new();
    let mut used_a = HashSet::new();
    for &a in &added {
        let aid = changes[a].new.as_ref().and_then(|n| n.1);
        if let Some(&d) = deleted
            .iter()
            .find(|&&d| !used_d.contains(&d) && changes[d].old.map(|o| o.id) == aid)
        {
            used_d.insert(d);
            used_a.insert(a);
            pairs.push((d, a, 100));
        }
    }
    let rest_d: Vec<usize> = deleted
        .into_iter()
        .filter(|d| !used_d.contains(d))
        .collect();
    let rest_a: Vec<usize> = added.into_iter().filter(|a| !used_a.contains(a)).collect();
    if !rest_d.is_empty() && rest_a.len() * rest_d.len() <= MAX_RENAME_PAIRS {
        let text = |s: Side| match s {
            Side::Text(t) => Some(t),
            Side::Note(_) => None,
        };
        let olds: Vec<Option<String>> = rest_d
            .iter()
            .map(|&d| {
                let o = changes[d].old?;
                match repo.blob(o.id) {
                    Ok(Blob::Bytes(b)) => text(side(ctx, &changes[d].old_rel, "", b)),
                    _ => None,
                }
            })
            .collect();
        let old_lines: Vec<Option<LineSet<'_>>> = olds
            .iter()
            .map(|o| o.as_deref().map(LineSet::new))
            .collect();
        let mut scored = Vec::new();
        for &a in &rest_a {
            let new_text = new_bytes(ctx, &changes[a], max)
                .and_then(|b| text(side(ctx, &changes[a].new_rel, "", b)));
            let Some(new_text) = new_text else { continue };
            let new_lines = LineSet::new(&new_text);
            for (k, &d) in rest_d.iter().enumerate() {
                if let (Some(old_text), Some(lines)) = (&olds[k], &old_lines[k]) {
                    let larger = old_text.len().max(new_text.len());
                    let smaller = old_text.len().min(new_text.len());
                    // Sizes alone rule a pair out below 50%, and so do lines too few in common.
                    if smaller * 2 < larger || similarity_bound(lines, &new_lines) < 50 {
                        continue;
                    }
                    let s = similarity(old_text, &new_text);
                    if s >= 50 {
                        scored.push((s, d, a));
                    }
                }
            }
        }
        scored.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
        for (s, d, a) in scored {
            if used_d.contains(&d) || used_a.contains(&a) {
                continue;
            }
            used_d.insert(d);
            used_a.insert(a);
            pairs.push((d, a, s));
        }
    }
    let mut drop = HashSet::new();
    for (d, a, s) in pairs {
        changes[a].old_rel = changes[d].old_rel.clone();
        changes[a].old = changes[d].old;
        changes[a].similarity = Some(s);
        drop.insert(d);
    }
    let mut i = 0;
    changes.retain(|_| {
        i += 1;
        !drop.contains(&(i - 1))
    });
    Ok(())
}

/// The new side's bytes of a change: as read, or read now.
fn new_bytes(ctx: &FileContext<'_>, c: &Change, max: u64) -> Option<Vec<u8>> {
    match &c.new {
        Some((_, _, Some(b))) => Some(b.clone()),
        Some((mode, _, None)) if *mode != MODE_LINK && *mode != MODE_COMMIT => {
            read_worktree(ctx, &c.new_rel, max).ok()
        }
        _ => None,
    }
}

/// One side of a change before it is shown: already a text or a note, or bytes the read
/// stage's rules (binary, sensitive, secrets) have still to be applied to.
enum Pending {
    Ready(Side),
    Bytes(Vec<u8>),
}

impl Pending {
    fn bytes(&self) -> usize {
        match self {
            Pending::Bytes(b) => b.len(),
            Pending::Ready(_) => 0,
        }
    }
}

/// A change with both sides' bytes in hand: what is left ([`finish`]: scanning and diffing)
/// reads nothing from `.git`, so changes are finished in parallel.
struct Prepared {
    status: DiffStatus,
    old: PreparedSide,
    new: PreparedSide,
    similarity: Option<u32>,
}

/// One side of a prepared change: the file's path in the repository, the side as the diff
/// names it, and its bytes or what is shown instead.
struct PreparedSide {
    rel: Vec<u8>,
    version: Version,
    pending: Pending,
}

impl PreparedSide {
    /// The side as the read stage keeps it, and as the diff names it.
    fn finish(self, ctx: &FileContext<'_>) -> (Side, Version) {
        let side = match self.pending {
            Pending::Ready(s) => s,
            Pending::Bytes(b) => side(ctx, &self.rel, &self.version.path, b),
        };
        (side, self.version)
    }
}

/// The old side of a change: a submodule's commit line, or the blob's bytes.
fn old_side(repo: &Repo, at: FileAt) -> Result<Pending, NavError> {
    if at.mode == MODE_COMMIT {
        return Ok(Pending::Ready(Side::Text(format!(
            "Subproject commit {}\n",
            at.id
        ))));
    }
    Ok(match repo.blob(at.id).map_err(git_error)? {
        Blob::Bytes(b) => Pending::Bytes(b),
        Blob::TooLarge(n) => {
            Pending::Ready(Side::Note(format!("larger than max_file_size ({n} bytes)")))
        }
    })
}

/// Read both sides of a change (the base's blob, the working tree's file or the index's blob).
fn prepare(repo: &Repo, ctx: &FileContext<'_>, c: &Change, max: u64) -> Result<Prepared, NavError> {
    let status = match (&c.old, &c.new) {
        (None, _) => DiffStatus::Added,
        (_, None) => DiffStatus::Deleted,
        _ if c.similarity.is_some() => DiffStatus::Renamed,
        (Some(o), Some(n)) if (o.mode == MODE_LINK) != (n.0 == MODE_LINK) => {
            DiffStatus::TypeChanged
        }
        _ => DiffStatus::Modified,
    };
    let old = match c.old {
        None => Pending::Ready(Side::Text(String::new())),
        Some(at) => old_side(repo, at)?,
    };
    let new = match &c.new {
        None => Pending::Ready(Side::Text(String::new())),
        Some(_) if c.note.is_some() => {
            Pending::Ready(Side::Note(c.note.clone().unwrap_or_default()))
        }
        Some((MODE_COMMIT, Some(id), _)) => {
            Pending::Ready(Side::Text(format!("Subproject commit {id}\n")))
        }
        Some((MODE_LINK, Some(id), _)) => match repo.blob(*id).map_err(git_error)? {
            Blob::Bytes(b) => Pending::Bytes(b),
            Blob::TooLarge(n) => {
                Pending::Ready(Side::Note(format!("larger than max_file_size ({n} bytes)")))
            }
        },
        Some(_) => match new_bytes(ctx, c, max) {
            Some(b) => Pending::Bytes(b),
            None => Pending::Ready(match read_worktree(ctx, &c.new_rel, max) {
                Ok(_) => Side::Note("unreadable".into()),
                Err(r) => Side::Note(skip_note(&r)),
            }),
        },
    };
    let prepared = |rel: &[u8], mode: Option<u32>, pending: Pending| PreparedSide {
        rel: rel.to_vec(),
        version: Version {
            path: shown(ctx, rel),
            mode,
        },
        pending,
    };
    Ok(Prepared {
        status,
        old: prepared(&c.old_rel, c.old.map(|o| o.mode), old),
        new: prepared(&c.new_rel, c.new.as_ref().map(|n| n.0), new),
        similarity: c.similarity,
    })
}

/// A prepared change's diff: both sides as the read stage keeps them, then their hunks.
fn finish(ctx: &FileContext<'_>, p: Prepared, context: u32) -> FileDiff {
    let (old_side, old) = p.old.finish(ctx);
    let (new_side, new) = p.new.finish(ctx);
    let (counts, body) = match (old_side, new_side) {
        (Side::Text(a), Side::Text(b)) => {
            let d = diff_lines(&a, &b, context);
            (Some((d.added, d.removed)), DiffBody::Hunks(d.hunks))
        }
        (Side::Note(n), _) | (_, Side::Note(n)) => {
            (None, DiffBody::Note(format!("diff not shown: {n}")))
        }
    };
    FileDiff {
        status: p.status,
        old,
        new,
        similarity: p.similarity,
        counts,
        body,
    }
}

/// The changes prepared at most at once before they are finished: a batch holds both sides'
/// bytes of each, so it is bounded in files and in bytes.
const BATCH_FILES: usize = 64;
const BATCH_BYTES: usize = 32 << 20;

/// An untracked file's diff: its content as extract would show it, all added.
fn untracked_diff(ctx: &FileContext<'_>, c: &crate::vocab::Candidate, context: u32) -> FileDiff {
    let (path, (outcome, _)) = file::process_named(ctx, c);
    let (counts, body) = match outcome {
        Ok(b) => {
            let d = diff_lines("", &b.text, context);
            (Some((d.added, d.removed)), DiffBody::Hunks(d.hunks))
        }
        Err(SkipReason::Sensitive { what }) => (
            None,
            DiffBody::Note(format!("content not shown: sensitive file ({what})")),
        ),
        Err(r) => (
            None,
            DiffBody::Note(format!("content not shown: {}", skip_note(&r))),
        ),
    };
    let version = Version { path, mode: None };
    FileDiff {
        status: DiffStatus::Untracked,
        old: version.clone(),
        new: version,
        similarity: None,
        counts,
        body,
    }
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
