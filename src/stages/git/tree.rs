//! Trees: every file of a tree with its mode and blob ([`Repo::files`]), and the files that
//! differ between two trees ([`Repo::diff_trees`]), skipping subtrees whose ids are equal. Both
//! count every tree object against the call's caps and take an optional path filter.

use super::{GitError, Repo};
use gix::ObjectId;
use gix::objs::TreeRefIter;
use std::cmp::Ordering;
use std::collections::BTreeMap;

/// Git's modes.
pub const MODE_TREE: u32 = 0o040000;
pub const MODE_LINK: u32 = 0o120000;
pub const MODE_COMMIT: u32 = 0o160000;

/// A file of a tree: mode and blob.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileAt {
    pub mode: u32,
    pub id: ObjectId,
}

/// A path that differs between two trees: its old and new state (`None`: absent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeChange {
    pub path: Vec<u8>,
    pub old: Option<FileAt>,
    pub new: Option<FileAt>,
}

/// Which paths a call looks at: all, or those under any of the prefixes (a file or directory
/// path, relative to the repository, without a trailing `/`).
#[derive(Clone, Debug, Default)]
pub struct PathFilter {
    pub prefixes: Vec<Vec<u8>>,
}

impl PathFilter {
    /// Whether the file `path` is selected.
    pub fn keeps(&self, path: &[u8]) -> bool {
        self.prefixes.is_empty()
            || self.prefixes.iter().any(|p| {
                path == p.as_slice() || (path.starts_with(p) && path.get(p.len()) == Some(&b'/'))
            })
    }

    /// Whether anything under the directory `dir` can be selected.
    fn enters(&self, dir: &[u8]) -> bool {
        self.prefixes.is_empty()
            || self.prefixes.iter().any(|p| {
                // The prefix is inside dir, or dir is inside the prefix.
                (p.starts_with(dir) && (p.len() == dir.len() || p.get(dir.len()) == Some(&b'/')))
                    || (dir.starts_with(p) && dir.get(p.len()) == Some(&b'/'))
            })
    }
}

/// One entry of a tree, decoded.
struct Entry {
    name: Vec<u8>,
    mode: u32,
    id: ObjectId,
}

impl Entry {
    fn is_tree(&self) -> bool {
        self.mode == MODE_TREE
    }
}

fn join(prefix: &[u8], name: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(prefix.len() + 1 + name.len());
    if !prefix.is_empty() {
        p.extend_from_slice(prefix);
        p.push(b'/');
    }
    p.extend_from_slice(name);
    p
}

impl Repo {
    /// The entries of the tree `id`, by name (so two trees merge by name; a file and a
    /// directory of one name pair up).
    fn tree_entries(&self, id: ObjectId) -> Result<Vec<Entry>, GitError> {
        let object = self.find(id, "tree")?;
        self.spend(object.data.len() as u64)?;
        if object.kind != gix::object::Kind::Tree {
            return Err(GitError::Failed(format!("object {id} is not a tree")));
        }
        let mut out = Vec::new();
        for entry in TreeRefIter::from_bytes(&object.data, self.repo.object_hash()) {
            let entry =
                entry.map_err(|e| GitError::Failed(format!("tree {id} is malformed: {e}")))?;
            out.push(Entry {
                name: entry.filename.to_vec(),
                mode: normal_mode(entry.mode.value() as u32),
                id: entry.oid.to_owned(),
            });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// Every file (blob, link or submodule commit) of the tree `id` that `filter` keeps.
    pub fn files(
        &self,
        id: ObjectId,
        filter: &PathFilter,
    ) -> Result<BTreeMap<Vec<u8>, FileAt>, GitError> {
        let mut out = BTreeMap::new();
        let mut stack = vec![(Vec::new(), id)];
        while let Some((prefix, tree)) = stack.pop() {
            for e in self.tree_entries(tree)? {
                let path = join(&prefix, &e.name);
                if e.is_tree() {
                    if filter.enters(&path) {
                        stack.push((path, e.id));
                    }
                } else if filter.keeps(&path) {
                    out.insert(
                        path,
                        FileAt {
                            mode: e.mode,
                            id: e.id,
                        },
                    );
                }
            }
        }
        Ok(out)
    }

    /// The files that differ between the trees `old` (`None`: empty) and `new`, in path order
    /// as git lists them. A path that is a file on one side and a directory on the other is a
    /// deletion plus additions.
    pub fn diff_trees(
        &self,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
        filter: &PathFilter,
    ) -> Result<Vec<TreeChange>, GitError> {
        let mut out = Vec::new();
        self.diff_level(Vec::new(), old, new, filter, &mut out)?;
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    fn diff_level(
        &self,
        prefix: Vec<u8>,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
        filter: &PathFilter,
        out: &mut Vec<TreeChange>,
    ) -> Result<(), GitError> {
        if old == new {
            return Ok(());
        }
        let a = match old {
            Some(id) => self.tree_entries(id)?,
            None => Vec::new(),
        };
        let b = match new {
            Some(id) => self.tree_entries(id)?,
            None => Vec::new(),
        };
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let ord = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) => x.name.cmp(&y.name),
                (Some(_), None) => Ordering::Less,
                _ => Ordering::Greater,
            };
            let (x, y) = match ord {
                Ordering::Less => {
                    i += 1;
                    (Some(&a[i - 1]), None)
                }
                Ordering::Greater => {
                    j += 1;
                    (None, Some(&b[j - 1]))
                }
                Ordering::Equal => {
                    i += 1;
                    j += 1;
                    (Some(&a[i - 1]), Some(&b[j - 1]))
                }
            };
            let name = x.or(y).map(|e| e.name.clone()).unwrap_or_default();
            let path = join(&prefix, &name);
            let sub = |e: Option<&Entry>| e.filter(|e| e.is_tree()).map(|e| e.id);
            let file = |e: Option<&Entry>| {
                e.filter(|e| !e.is_tree()).map(|e| FileAt {
                    mode: e.mode,
                    id: e.id,
                })
            };
            let (old_sub, new_sub) = (sub(x), sub(y));
            if (old_sub.is_some() || new_sub.is_some()) && filter.enters(&path) {
                self.diff_level(path.clone(), old_sub, new_sub, filter, out)?;
            }
            let (old_file, new_file) = (file(x), file(y));
            if old_file != new_file && filter.keeps(&path) {
                out.push(TreeChange {
                    path,
                    old: old_file,
                    new: new_file,
                });
            }
        }
        Ok(())
    }
}

/// A mode as git writes it in a diff (`100644`, `100755`, `120000`, `160000`, `040000`).
pub fn normal_mode(mode: u32) -> u32 {
    match mode & 0o170000 {
        0o040000 => MODE_TREE,
        0o120000 => MODE_LINK,
        0o160000 => MODE_COMMIT,
        _ if mode & 0o111 != 0 => 0o100755,
        _ => 0o100644,
    }
}
