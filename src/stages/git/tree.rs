//! Trees: every file of a tree with its mode and blob ([`Repo::files`]), and the files that
//! differ between two trees ([`Repo::diff_trees`]), skipping subtrees whose ids are equal. Both
//! count every tree object against the call's caps and take an optional path filter.
//!
//! [`Repo::files`] takes the index's cache-tree too ([`CacheTree`]), as `git diff` does: where
//! it records a directory's tree as the very tree being listed, the index's entries under that
//! directory are its files, and the tree objects beneath it are not read.

use super::{GitError, IndexEntry, Repo};
use gix::ObjectId;
use gix::objs::TreeRefIter;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap};

/// The directories whose tree the index's cache-tree extension records as valid: a directory
/// path (`""` for the root) to the tree the index's entries under it would write, and how many
/// entries that is.
#[derive(Clone, Debug, Default)]
pub struct CacheTree {
    dirs: HashMap<Vec<u8>, (ObjectId, u32)>,
}

/// The most directories taken from a cache-tree (more are ignored: their trees are read).
const MAX_CACHE_DIRS: usize = 1 << 20;

impl CacheTree {
    /// The valid directories of gix's cache-tree extension.
    pub fn from_extension(root: &gix::index::extension::Tree) -> CacheTree {
        let mut dirs = HashMap::new();
        let mut stack = vec![(Vec::new(), root)];
        while let Some((path, t)) = stack.pop() {
            if dirs.len() >= MAX_CACHE_DIRS {
                break;
            }
            // An invalidated directory says nothing of its own, but its subdirectories may
            // still be valid.
            if let Some(n) = t.num_entries {
                dirs.insert(path.clone(), (t.id, n));
            }
            for c in &t.children {
                stack.push((join(&path, &c.name), c));
            }
        }
        CacheTree { dirs }
    }

    /// The files under `dir` when the cache-tree says its tree is `tree`: the index entries
    /// beneath it, as many as the cache-tree counts. `None` (read the tree) when it does not
    /// say so, or when an entry there is not plainly a file of a tree git would write
    /// (intent-to-add, conflicted, a sparse directory).
    fn files_under<'e>(
        &self,
        dir: &[u8],
        tree: ObjectId,
        index: &'e [IndexEntry],
    ) -> Option<&'e [IndexEntry]> {
        let &(id, count) = self.dirs.get(dir)?;
        if id != tree {
            return None;
        }
        let under = if dir.is_empty() {
            index
        } else {
            let mut prefix = dir.to_vec();
            prefix.push(b'/');
            let start = index.partition_point(|e| e.path.as_slice() < prefix.as_slice());
            let len = index[start..]
                .iter()
                .take_while(|e| e.path.starts_with(&prefix))
                .count();
            &index[start..start + len]
        };
        let plain = under.len() == count as usize
            && under
                .iter()
                .all(|e| !e.intent_to_add && !e.conflicted && normal_mode(e.mode) != MODE_TREE);
        plain.then_some(under)
    }
}

/// Git's modes.
pub const MODE_TREE: u32 = 0o040000;
/// The mode of a symbolic link.
pub const MODE_LINK: u32 = 0o120000;
/// The mode of a submodule (a commit in a tree).
pub const MODE_COMMIT: u32 = 0o160000;

/// A file of a tree: mode and blob.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileAt {
    /// The entry's mode bits (such as `0o100644`, [`MODE_LINK`]).
    pub mode: u32,
    /// The blob's (or, for a submodule, the commit's) object id.
    pub id: ObjectId,
}

/// A path that differs between two trees: its old and new state (`None`: absent).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeChange {
    /// The path relative to the repository, as git stores it.
    pub path: Vec<u8>,
    /// What it was in the old tree; `None` when absent.
    pub old: Option<FileAt>,
    /// What it is in the new tree; `None` when absent.
    pub new: Option<FileAt>,
}

/// Which paths a call looks at: all, or those under any of the prefixes (a file or directory
/// path, relative to the repository, without a trailing `/`).
#[derive(Clone, Debug, Default)]
pub struct PathFilter {
    /// The prefixes; empty means every path.
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

    /// Every file (blob, link or submodule commit) of the tree `id` that `filter` keeps. Where
    /// `cache` records a directory's tree as the one being read, the files beneath it are the
    /// entries of `index` (sorted by path, as the index keeps them) and its tree objects are
    /// not read.
    pub fn files(
        &self,
        id: ObjectId,
        filter: &PathFilter,
        cache: &CacheTree,
        index: &[IndexEntry],
    ) -> Result<BTreeMap<Vec<u8>, FileAt>, GitError> {
        let mut out = BTreeMap::new();
        let mut stack = vec![(Vec::new(), id)];
        while let Some((prefix, tree)) = stack.pop() {
            if let Some(entries) = cache.files_under(&prefix, tree, index) {
                for e in entries.iter().filter(|e| filter.keeps(&e.path)) {
                    out.insert(
                        e.path.clone(),
                        FileAt {
                            mode: normal_mode(e.mode),
                            id: e.id,
                        },
                    );
                }
                continue;
            }
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
        self.diff_level(Vec::new(), old, new, filter, usize::MAX, &mut out)?;
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// [`Repo::diff_trees`] when at most `most` files differ; `None` as soon as one more is
    /// found (the rest of the trees is not read).
    pub fn diff_trees_at_most(
        &self,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
        filter: &PathFilter,
        most: usize,
    ) -> Result<Option<Vec<TreeChange>>, GitError> {
        let mut out = Vec::new();
        self.diff_level(Vec::new(), old, new, filter, most, &mut out)?;
        if out.len() > most {
            return Ok(None);
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(Some(out))
    }

    /// The files that differ beneath `prefix`, added to `out`; stops once it holds more than
    /// `most`.
    fn diff_level(
        &self,
        prefix: Vec<u8>,
        old: Option<ObjectId>,
        new: Option<ObjectId>,
        filter: &PathFilter,
        most: usize,
        out: &mut Vec<TreeChange>,
    ) -> Result<(), GitError> {
        if old == new || out.len() > most {
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
        while (i < a.len() || j < b.len()) && out.len() <= most {
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
                self.diff_level(path.clone(), old_sub, new_sub, filter, most, out)?;
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
