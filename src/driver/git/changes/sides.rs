//! Both sides of each changed file, read as the model may see them (the read stage's text:
//! binary detected, sensitive files left out, secrets handled), prepared in bounded batches and
//! diffed into hunks.

use super::status::{Change, new_bytes};
use crate::driver::call::NavError;
use crate::driver::file::{self, FileContext};
use crate::driver::git::{
    DiffBody, DiffStatus, FileDiff, Side, Version, git_error, read_worktree, shown, side, skip_note,
};
use crate::stages::git::diff::diff_lines;
use crate::stages::git::tree::{FileAt, MODE_COMMIT, MODE_LINK};
use crate::stages::git::{Blob, Repo};
use crate::vocab::SkipReason;

/// One side of a change before it is shown: already a text or a note, or bytes the read
/// stage's rules (binary, sensitive, secrets) have still to be applied to.
pub(super) enum Pending {
    Ready(Side),
    Bytes(Vec<u8>),
}

impl Pending {
    pub(super) fn bytes(&self) -> usize {
        match self {
            Pending::Bytes(b) => b.len(),
            Pending::Ready(_) => 0,
        }
    }
}

/// A change with both sides' bytes in hand: what is left ([`finish`]: scanning and diffing)
/// reads nothing from `.git`, so changes are finished in parallel.
pub(super) struct Prepared {
    pub(super) status: DiffStatus,
    pub(super) old: PreparedSide,
    pub(super) new: PreparedSide,
    pub(super) similarity: Option<u32>,
}

/// One side of a prepared change: the file's path in the repository, the side as the diff
/// names it, and its bytes or what is shown instead.
pub(super) struct PreparedSide {
    pub(super) rel: Vec<u8>,
    pub(super) version: Version,
    pub(super) pending: Pending,
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
pub(super) fn old_side(repo: &Repo, at: FileAt) -> Result<Pending, NavError> {
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
pub(super) fn prepare(
    repo: &Repo,
    ctx: &FileContext<'_>,
    c: &Change,
    max: u64,
) -> Result<Prepared, NavError> {
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
pub(super) fn finish(ctx: &FileContext<'_>, p: Prepared, context: u32) -> FileDiff {
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
pub(super) const BATCH_FILES: usize = 64;
pub(super) const BATCH_BYTES: usize = 32 << 20;

/// An untracked file's diff: its content as extract would show it, all added.
pub(super) fn untracked_diff(
    ctx: &FileContext<'_>,
    c: &crate::vocab::Candidate,
    context: u32,
) -> FileDiff {
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
