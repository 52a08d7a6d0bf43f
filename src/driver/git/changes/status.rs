//! Which files changed against the base, as git decides it: the base commit's tree against the
//! index, the index against the working tree (stat first, read and hashed only when the stat
//! differs), the untracked files, and renames paired as git pairs them by default.

use super::{MAX_RENAME_PAIRS, MAX_UNTRACKED};
use crate::driver::call::paths::quote;
use crate::driver::call::session::Session;
use crate::driver::call::{NavError, Request};
use crate::driver::file::FileContext;
use crate::driver::git::{Side, git_error, open_repo, read_worktree, side, skip_note};
use crate::error::Error;
use crate::stages::git::diff::{LineSet, similarity, similarity_bound};
use crate::stages::git::tree::{FileAt, MODE_COMMIT, MODE_LINK, PathFilter, normal_mode};
use crate::stages::git::{Blob, IndexEntry, Repo, short};
use crate::stages::source::Sourced;
use gix::ObjectId;
use gnaw_sandbox::BeneathDir;
use gnaw_sandbox::beneath::{FileKind, Stat};
use std::collections::{BTreeMap, HashSet};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The working-tree state of an index path.
pub(super) enum Worktree {
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
pub(super) struct Change {
    pub(super) old_rel: Vec<u8>,
    pub(super) new_rel: Vec<u8>,
    pub(super) old: Option<FileAt>,
    /// New side: mode, id (when known), bytes (when read).
    pub(super) new: Option<(u32, Option<ObjectId>, Option<Vec<u8>>)>,
    pub(super) note: Option<String>,
    pub(super) similarity: Option<u32>,
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
pub(super) struct Computed {
    pub(super) base_id: Option<ObjectId>,
    pub(super) base_label: String,
    pub(super) changes: Vec<Change>,
    pub(super) untracked: Vec<crate::vocab::Candidate>,
    pub(super) more_untracked: usize,
}

/// Open `.git` and compute the changes on this thread while another walks the working tree
/// for the untracked files: the two read different things (`.git` and the index's files; the
/// directories and ignore files), so on two cores the walk costs no time of its own. The walk
/// starts only when there is a `.git` to read, so a directory without one is refused at once.
pub(super) fn open_and_compute(
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

pub(super) fn compute(
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
            let subject =
                super::super::scanned_message(ctx, c.message.lines().next().unwrap_or(""))
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
pub(super) fn worktree(
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
pub(super) const MAX_OPEN_DEPTH: usize = 64;

/// `lstat` of index paths, one `fstatat` each: the directories on the way are opened once,
/// one component at a time without following a link (a link or a file on the way makes the
/// path absent, as it does for [`BeneathDir::stat_beneath`]), and kept open while the index's
/// sorted paths stay beneath them. A path with an empty, `.` or `..` component, or deeper than
/// [`MAX_OPEN_DEPTH`], is stat'ed whole with `stat_beneath`, which never leaves the repository.
pub(super) struct DirStat<'d> {
    pub(super) root: &'d BeneathDir,
    /// The open directories from the root down: each one's name, and the directory (`None`:
    /// it could not be opened, so nothing beneath it exists for the index).
    pub(super) open: Vec<(Vec<u8>, Option<BeneathDir>)>,
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
pub(super) fn pair_renames(
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
pub(super) fn new_bytes(ctx: &FileContext<'_>, c: &Change, max: u64) -> Option<Vec<u8>> {
    match &c.new {
        Some((_, _, Some(b))) => Some(b.clone()),
        Some((mode, _, None)) if *mode != MODE_LINK && *mode != MODE_COMMIT => {
            read_worktree(ctx, &c.new_rel, max).ok()
        }
        _ => None,
    }
}
