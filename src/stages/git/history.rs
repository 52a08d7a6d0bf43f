//! The history walk every git tool shares: commits from a tip, newest first, each decoded once,
//! with the tree of its parents on demand. A parent decoded for its tree is kept until the walk
//! reaches it (at most [`MAX_KEPT`] at a time: a linear history holds one), so a commit is never
//! read twice; `log`, `hotspots` and co-change walk through it, under the call's object caps.

use super::{CommitInfo, GitError, Repo};
use gix::ObjectId;
use std::collections::HashMap;

/// The most commits decoded as a parent and kept until the walk reaches them.
pub const MAX_KEPT: usize = 4096;

/// What a commit is compared against to say what it changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parent {
    /// The first commit: everything it holds is added.
    Root,
    /// The tree of its one parent.
    One(ObjectId),
    /// A merge: its changes are its parents', so the walkers that count changes pass it over.
    Merge,
}

/// One commit of the walk, and the way to its parents' trees.
pub struct Step<'a> {
    pub info: CommitInfo,
    repo: &'a Repo,
    kept: &'a mut HashMap<ObjectId, CommitInfo>,
}

impl Step<'_> {
    /// The tree of the parent `id`, decoded once: the commit is kept for when the walk reaches
    /// it.
    pub fn tree_of(&mut self, id: ObjectId) -> Result<ObjectId, GitError> {
        if let Some(c) = self.kept.get(&id) {
            return Ok(c.tree);
        }
        let c = self.repo.commit(id)?;
        let tree = c.tree;
        if self.kept.len() < MAX_KEPT {
            self.kept.insert(id, c);
        }
        Ok(tree)
    }

    /// What this commit is compared against.
    pub fn parent(&mut self) -> Result<Parent, GitError> {
        match self.info.parents.as_slice() {
            [] => Ok(Parent::Root),
            [p] => Ok(Parent::One(self.tree_of(*p)?)),
            _ => Ok(Parent::Merge),
        }
    }
}

impl Repo {
    /// Walk the history from `tip`, newest first, calling `f` with each commit decoded until it
    /// returns false. A shallow boundary ends the walk; a cap is an error, as [`Repo::walk`]'s.
    pub fn history(
        &self,
        tip: ObjectId,
        mut f: impl FnMut(Step<'_>) -> Result<bool, GitError>,
    ) -> Result<(), GitError> {
        let mut kept: HashMap<ObjectId, CommitInfo> = HashMap::new();
        self.walk(tip, |id| {
            let info = match kept.remove(&id) {
                Some(i) => i,
                None => self.commit(id)?,
            };
            f(Step {
                info,
                repo: self,
                kept: &mut kept,
            })
        })
    }
}
