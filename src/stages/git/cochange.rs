//! Co-change: the files changed in the same commits as one file, read from the history (newest
//! first, each commit against its first parent; merges left out, as their changes are their
//! parents'). What widens a search from a hit when imports and names do not tell: a file and
//! its test, a parser and its grammar table, a feature's code and its docs.
//!
//! Bounded: at most [`MAX_COMMITS`] commits are looked at, and a commit that changes more than
//! [`MAX_COMMIT_FILES`] files (a reformat, a vendored update, a rename sweep) says little about
//! which files belong together and is passed over. Each shared commit counts `1 / (files - 1)`,
//! so a commit of two files binds them more than one of twenty. The history is walked under
//! the call's object caps; a cap, a shallow boundary or the walk's end stops it, with what was
//! seen so far.

use super::history::Parent;
use super::tree::PathFilter;
use super::{GitError, Repo};
use std::collections::HashMap;

/// The most commits looked at, newest first.
pub const MAX_COMMITS: usize = 2000;
/// The most files a commit may change and still count.
pub const MAX_COMMIT_FILES: usize = 30;

/// What the history says of one file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CoChange {
    /// Commits looked at, and those of them that change the file (and count).
    pub commits: usize,
    pub changing: usize,
    /// Each other file changed with it: in how many commits, and their weight (each commit
    /// `1 / (its files - 1)`).
    pub files: HashMap<Vec<u8>, (u32, f64)>,
    /// Why the walk stopped before the history's start, if it did.
    pub stopped: Option<String>,
}

/// The files changed together with `target` (a path as git records it) in the history from
/// HEAD. `None` for a repository without commits. `stop` is asked every commit.
pub fn co_changes(
    repo: &Repo,
    target: &[u8],
    stop: &dyn Fn() -> bool,
) -> Result<Option<CoChange>, GitError> {
    let Some(head) = repo.head()? else {
        return Ok(None);
    };
    let only = PathFilter {
        prefixes: vec![target.to_vec()],
    };
    let all = PathFilter::default();
    let mut out = CoChange::default();
    let walked = repo.history(head, |mut step| {
        if stop() {
            out.stopped = Some("cancelled".into());
            return Ok(false);
        }
        if out.commits == MAX_COMMITS {
            out.stopped = Some(format!("{MAX_COMMITS} commits looked at"));
            return Ok(false);
        }
        out.commits += 1;
        let parent = match step.parent()? {
            Parent::Root => None,
            Parent::One(tree) => Some(tree),
            Parent::Merge => return Ok(true),
        };
        let info = &step.info;
        if repo.diff_trees(parent, Some(info.tree), &only)?.is_empty() {
            return Ok(true);
        }
        // A commit of many files is passed over as soon as that is known.
        let Some(changed) =
            repo.diff_trees_at_most(parent, Some(info.tree), &all, MAX_COMMIT_FILES)?
        else {
            return Ok(true);
        };
        out.changing += 1;
        let weight = 1.0 / (changed.len().max(2) - 1) as f64;
        for c in changed.into_iter().filter(|c| c.path != target) {
            let e = out.files.entry(c.path).or_default();
            e.0 += 1;
            e.1 += weight;
        }
        Ok(true)
    });
    match walked {
        Ok(()) => {}
        // What was seen before a cap still tells.
        Err(GitError::Bound(_)) => out.stopped = Some("the git objects one call may read".into()),
        Err(e) => return Err(e),
    }
    Ok(Some(out))
}
