//! Source stage: which paths a run considers, either by walking the repo or from an explicit
//! list (the CLI's `--stdin`).
//!
//! The walk goes through directory handles, never through path strings: each directory is listed
//! through its own fd ([`BeneathDir::entries`]) and each subdirectory is opened by name from its
//! parent's fd without following links ([`BeneathDir::child_dir`]). A directory swapped for a
//! symlink mid-walk is therefore never followed out of the repo, and no name from outside is ever
//! listed. Links are not followed here: they come out as [`EntryKind::Symlink`] and the read stage
//! decides, with the kernel, whether a link stays inside the repo.
//!
//! Bounds (see [`crate::limits`]): a subdirectory is opened only when its turn comes, so the
//! directories waiting to be listed hold no fd of their own; a parent's fd is kept for its
//! waiting subdirectories within a budget of [`MAX_WALK_DIR_FDS`], past which a subdirectory is
//! reached by its names from the nearest kept ancestor, one `O_NOFOLLOW` step at a time.
//! Running out of file descriptors ends the walk with an error rather than losing files. The
//! walk does not descend past [`WalkOptions::max_depth`] levels, nor into a directory whose
//! entries' relative paths could not fit [`PATH_MAX`]; each such directory is reported. Every
//! ignore-file line is checked against the glob limits before it is compiled.
//!
//! Ignore files are honoured only from *inside* the repo, with the `ignore` crate's gitignore
//! matcher and its precedence: `.ignore` over `.gitignore` over `.git/info/exclude`, deeper
//! directories over shallower ones, and a directory holding `.git` (a nested repository) is not
//! subject to the `.gitignore` files above it. `.gitignore` counts whether or not `.git` exists;
//! `.git/info/exclude` only when `.git` at the repo root is a real directory. Parent
//! directories, the global git excludes file and `$HOME` are never consulted, so the result does
//! not depend on who runs it or where. Ignore files are opened through the directory's fd
//! without following links (as git does), non-blocking, and only regular files of at most
//! [`MAX_IGNORE_FILE`] bytes are read: a FIFO or a link to `/dev/zero` named `.gitignore` neither
//! hangs nor exhausts memory. `.git` itself is never emitted.
//!
//! | module | job |
//! |---|---|
//! | [`walk`] | the walk through directory handles, bounded in fds, depth and path length; optionally running a per-file step on each file as it is found |
//! | `ignores` | the ignore files honoured inside the repo, read bounded and checked against the glob limits |
//! | `state` | the walk's shared state: found, skipped, the fd budget, the first fatal error |
//! | `seen` | what a walk saw, with every `lstat`, to tell whether another walk would see the same |
//! | `explicit` | an explicit list of paths (`--stdin`, `--changed`) proven inside the repo |

mod explicit;
mod ignores;
mod seen;
mod state;
mod walk;

pub use explicit::{from_list, split_list};
pub use seen::{Check, Listing, MAX_FILES_CHANGED};
pub use walk::{Each, out_of_fds_error, walk, walk_each, walk_listed};

use crate::bounded::{os_message, read_capped};
use crate::error::Error;
use crate::limits::{MAX_IGNORE_PATTERN_BYTES, MAX_WALK_DIR_FDS, PATH_MAX, check_glob};
use crate::par::{into_inner, lock};
use crate::stages::filter::Filter;
use crate::vocab::{Candidate, EntryKind, SkipReason, Skipped, display_path};
use gnaw_sandbox::beneath::{FileKind, Stat};
use gnaw_sandbox::{BeneathDir, Rejection, Root};
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Largest ignore file honoured, in bytes. A larger one is reported and not honoured.
pub const MAX_IGNORE_FILE: u64 = 16 << 20;

/// The walk's settings.
pub struct WalkOptions<'a> {
    /// Walk hidden files and directories.
    pub hidden: bool,
    /// Do not honour `.gitignore`, `.ignore` and `.git/info/exclude`.
    pub no_ignore: bool,
    /// The include and exclude globs a path must pass.
    pub filter: &'a Arc<Filter>,
    /// How many threads walk.
    pub threads: usize,
    /// Directories more than this many levels below the repo are not walked, and each one is
    /// reported ([`crate::limits::DEFAULT_MAX_DEPTH`] unless the operator says otherwise).
    pub max_depth: usize,
    /// Walk only this directory's subtree (repo-relative, no trailing `/`; empty for the whole
    /// repo). Its ancestors are still listed, for their ignore files, but only the directories
    /// on the way down are entered, and only files beneath it are kept.
    pub under: &'a [u8],
}

impl<'a> WalkOptions<'a> {
    /// The whole repo as a run without flags walks it, on `threads` threads: ignore files
    /// honoured, hidden files left out, the default depth limit.
    pub fn whole(filter: &'a Arc<Filter>, threads: usize) -> WalkOptions<'a> {
        WalkOptions {
            hidden: false,
            no_ignore: false,
            filter,
            threads,
            max_depth: crate::limits::DEFAULT_MAX_DEPTH,
            under: &[],
        }
    }
}

/// What the source stage found.
pub struct Sourced {
    /// Sorted bytewise by path, without duplicates.
    pub candidates: Vec<Candidate>,
    /// Paths the walk itself could not use (unreadable directories and the like).
    pub skipped: Vec<Skipped>,
}

/// Whether `rel` lies strictly beneath the directory `dir` (everything does when `dir` is empty,
/// the repo itself).
fn beneath(rel: &[u8], dir: &[u8]) -> bool {
    dir.is_empty() || rel.len() > dir.len() && rel.starts_with(dir) && rel[dir.len()] == b'/'
}

/// `dir/name` for repo-relative byte paths.
fn join(dir: &[u8], name: &[u8]) -> Vec<u8> {
    if dir.is_empty() {
        return name.to_vec();
    }
    let mut rel = Vec::with_capacity(dir.len() + 1 + name.len());
    rel.extend_from_slice(dir);
    rel.push(b'/');
    rel.extend_from_slice(name);
    rel
}

/// The candidate for `rel` as `st` saw it: what the read stage opens and checks the file against.
pub fn candidate(rel: Vec<u8>, st: &Stat) -> Candidate {
    Candidate {
        rel,
        kind: kind_of(st.kind),
        dev: st.dev,
        ino: st.ino,
        size: st.size,
        mtime_ns: st.mtime_ns,
        ctime_ns: st.ctime_ns,
    }
}

fn kind_of(kind: FileKind) -> EntryKind {
    match kind {
        FileKind::File => EntryKind::File,
        FileKind::Symlink => EntryKind::Symlink,
        FileKind::Fifo => EntryKind::Other("fifo"),
        FileKind::Socket => EntryKind::Other("socket"),
        FileKind::CharDevice => EntryKind::Other("character device"),
        FileKind::BlockDevice => EntryKind::Other("block device"),
        FileKind::Dir => EntryKind::Other("directory"),
        FileKind::Unknown => EntryKind::Other("unknown type"),
    }
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are made with std::fs
mod tests {
    use super::walk::Level;
    use super::*;
    use std::fs;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        dir
    }

    #[test]
    fn a_subtree_walk_enters_only_the_way_down_and_keeps_the_ancestors_ignore_rules() {
        let dir = tree(&[
            (".gitignore", "*.log\n"),
            ("top.rs", ""),
            ("a/b/.gitignore", "gen/\n"),
            ("a/b/keep.rs", ""),
            ("a/b/x.log", ""),
            ("a/b/gen/out.rs", ""),
            ("a/b/c/deep.rs", ""),
            ("a/side.rs", ""),
            ("other/o.rs", ""),
        ]);
        // A directory off the way down whose ignore file has a line over the nesting limit:
        // entering it would report that line.
        let nested = format!("{}x{}\n", "{a,".repeat(20), "}".repeat(20));
        fs::write(dir.path().join("other/.gitignore"), &nested).unwrap();
        fs::write(dir.path().join("a/.gitignore"), "side.rs\n").unwrap();
        let sourced = walk_in(dir.path(), &[], |o| o.under = b"a/b");
        let got: Vec<String> = sourced
            .candidates
            .iter()
            .map(|c| String::from_utf8(c.rel.clone()).unwrap())
            .collect();
        assert_eq!(got, ["a/b/c/deep.rs", "a/b/keep.rs"]);
        assert!(sourced.skipped.is_empty(), "{:?}", sourced.skipped);
        // The same tree walked whole does enter `other` (so the check above means something).
        let whole = walk_with(dir.path(), false, &[], crate::limits::DEFAULT_MAX_DEPTH);
        assert_eq!(whole.skipped.len(), 1, "{:?}", whole.skipped);
        assert_eq!(whole.skipped[0].path, "other/.gitignore");
    }

    /// The repo `dir`, opened beneath itself, and the filter of `include`.
    fn opened(dir: &Path, include: &[&str]) -> (BeneathDir, Arc<Filter>) {
        let root = Root::new(dir, false).unwrap();
        let include: Vec<String> = include.iter().map(|s| s.to_string()).collect();
        let filter = Arc::new(Filter::new(&include, &[]).unwrap());
        (root.as_dir().open().unwrap(), filter)
    }

    /// The walk of `dir` with `include`, as [`WalkOptions::whole`] on two threads changed by
    /// `set`.
    fn walk_in(dir: &Path, include: &[&str], set: impl FnOnce(&mut WalkOptions<'_>)) -> Sourced {
        let (beneath, filter) = opened(dir, include);
        let mut options = WalkOptions::whole(&filter, 2);
        set(&mut options);
        walk(&beneath, &options).unwrap()
    }

    fn walk_with(dir: &Path, hidden: bool, include: &[&str], max_depth: usize) -> Sourced {
        walk_in(dir, include, |o| {
            o.hidden = hidden;
            o.max_depth = max_depth;
        })
    }

    fn walked(dir: &Path, hidden: bool, no_ignore: bool, include: &[&str]) -> Vec<String> {
        walk_in(dir, include, |o| {
            o.hidden = hidden;
            o.no_ignore = no_ignore;
        })
        .candidates
        .iter()
        .map(|c| display_path(&c.rel))
        .collect()
    }

    fn skips(s: &Sourced) -> Vec<(String, String)> {
        s.skipped
            .iter()
            .map(|k| (k.path.clone(), k.reason.describe()))
            .collect()
    }

    #[test]
    fn a_chain_of_levels_is_dropped_without_recursion() {
        // 200,000 levels: the recursive drop overflowed far smaller stacks than this thread's.
        let mut level = None;
        for _ in 0..200_000 {
            level = Some(Arc::new(Level {
                parent: level,
                ignore: None,
                git: None,
                exclude: None,
                has_git: true,
            }));
        }
        let drop_on_a_small_stack = |level: Option<Arc<Level>>| {
            std::thread::Builder::new()
                .stack_size(64 << 10)
                .spawn(move || drop(level))
                .unwrap()
                .join()
                .unwrap()
        };
        let shared = level.clone();
        drop_on_a_small_stack(level);
        // A chain still in use elsewhere is left whole.
        let mut n = 0;
        let mut l = shared.as_ref();
        while let Some(x) = l {
            n += 1;
            l = x.parent.as_ref();
        }
        assert_eq!(n, 200_000);
        drop_on_a_small_stack(shared);
    }

    fn walk_opts<'a>(filter: &'a Arc<Filter>, threads: usize) -> WalkOptions<'a> {
        WalkOptions {
            max_depth: 3,
            ..WalkOptions::whole(filter, threads)
        }
    }

    /// Nested directories whose byte order is not their listing order, ignored and hidden
    /// files, and one directory past the depth limit of [`walk_opts`].
    fn many() -> tempfile::TempDir {
        let mut files = vec![
            (".gitignore".to_string(), "*.log\n".to_string()),
            (".hidden/x.rs".into(), String::new()),
            ("a/b/c/d/too_deep.rs".into(), String::new()),
        ];
        for top in ["a", "a-b", "B", "a.x"] {
            for sub in ["", "/s", "/s/t", "/s-u"] {
                for f in 0..5 {
                    files.push((format!("{top}{sub}/f{f}.rs"), format!("{top}{sub}{f}")));
                    files.push((format!("{top}{sub}/f{f}.log"), String::new()));
                }
            }
        }
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (&p[..], &t[..])).collect();
        tree(&files)
    }

    #[test]
    fn walk_each_gives_what_walk_gives_with_each_result_beside_its_file() {
        let dir = many();
        let (beneath, filter) = opened(dir.path(), &[]);
        let plain = walk(&beneath, &walk_opts(&filter, 2)).unwrap();
        let files = |s: &Sourced| -> Vec<String> {
            s.candidates.iter().map(|c| display_path(&c.rel)).collect()
        };
        assert_eq!(plain.candidates.len(), 80, "{:?}", files(&plain));
        assert_eq!(skips(&plain).len(), 1, "{:?}", skips(&plain));
        for threads in [1, 2, 3, 8] {
            let (sourced, results) = walk_each(
                &beneath,
                &walk_opts(&filter, threads),
                &|| false,
                &|c, found| (c.rel.clone(), c.size, found),
            )
            .unwrap();
            assert_eq!(files(&sourced), files(&plain), "threads {threads}");
            assert_eq!(skips(&sourced), skips(&plain), "threads {threads}");
            assert_eq!(results.len(), sourced.candidates.len());
            for (c, (rel, size, found)) in sourced.candidates.iter().zip(&results) {
                assert_eq!((&c.rel, c.size), (rel, *size), "threads {threads}");
                assert!((1..=80).contains(found), "{found}");
            }
        }
        // One thread: the repo's own files are searched before the walk has found the rest.
        let (_, results) = walk_each(&beneath, &walk_opts(&filter, 1), &|| false, &|_, found| {
            found
        })
        .unwrap();
        assert!(results.iter().any(|&found| found < 80), "{results:?}");
    }

    #[test]
    fn walk_each_stops_when_asked() {
        let dir = many();
        let (beneath, filter) = opened(dir.path(), &[]);
        for threads in [1, 4] {
            let done = AtomicUsize::new(0);
            let stop = || done.load(Ordering::Relaxed) >= 7;
            let got = walk_each(&beneath, &walk_opts(&filter, threads), &stop, &|_, _| {
                done.fetch_add(1, Ordering::Relaxed);
            });
            assert!(matches!(got, Err(Error::Cancelled)), "threads {threads}");
            // Each thread may have been in the middle of one file when the stop came.
            let n = done.load(Ordering::Relaxed);
            assert!(
                (7..7 + threads).contains(&n),
                "threads {threads}: {n} files"
            );
        }
    }

    #[test]
    fn the_depth_limit_is_reported_where_it_cuts() {
        let dir = tree(&[("a/b/c/d.txt", ""), ("a/top.txt", ""), ("a/b/mid.txt", "")]);
        let s = walk_with(dir.path(), false, &[], 2);
        let files: Vec<String> = s.candidates.iter().map(|c| display_path(&c.rel)).collect();
        assert_eq!(files, ["a/b/mid.txt", "a/top.txt"]);
        let skipped = skips(&s);
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert_eq!(skipped[0].0, "a/b/c");
        assert!(skipped[0].1.contains("max_depth = 2"), "{skipped:?}");
        // An ignored or excluded directory is not reported.
        let s = walk_with(dir.path(), false, &["a/top.txt"], 2);
        assert_eq!(s.candidates.len(), 1);
        assert_eq!(
            s.skipped.len(),
            1,
            "include does not prune: {:?}",
            skips(&s)
        );
    }

    #[test]
    fn bad_ignore_lines_are_skipped_and_reported_once_per_file() {
        let deep = format!("{}a{}", "{a,".repeat(5000), "}".repeat(5000));
        let dir = tree(&[
            (
                ".gitignore",
                &format!("*.log\n{deep}\n# {deep}\n{{x,y\n{deep}\nbuild/\n"),
            ),
            ("a.rs", ""),
            ("x.log", ""),
            ("build/b.rs", ""),
        ]);
        let s = walk_with(dir.path(), false, &[], 8);
        let files: Vec<String> = s.candidates.iter().map(|c| display_path(&c.rel)).collect();
        assert_eq!(files, ["a.rs"]);
        let skipped = skips(&s);
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert_eq!(skipped[0].0, ".gitignore");
        // The comment is not a pattern; the unclosed group is refused by the matcher itself.
        assert!(
            skipped[0].1.contains("3 lines not honoured") && skipped[0].1.contains("line 2"),
            "{skipped:?}"
        );
        assert!(skipped[0].1.contains("nest 5000 deep"), "{skipped:?}");
        // Shown as a file with --hidden, so not reported as skipped (it is logged).
        let s = walk_with(dir.path(), true, &[], 8);
        assert!(s.skipped.is_empty(), "{:?}", skips(&s));
    }

    #[test]
    fn the_walk_honours_ignore_files_inside_the_repo_only() {
        let dir = tree(&[
            (".gitignore", "*.log\nbuild/\n"),
            ("a.rs", ""),
            ("debug.log", ""),
            ("build/out.rs", ""),
            (".hidden/x.rs", ""),
            ("sub/.ignore", "keep.log\n"),
            ("sub/keep.log", ""),
            ("nested/.git/HEAD", ""),
            ("nested/z.log", ""),
        ]);
        // A nested repository is not subject to the .gitignore above it.
        assert_eq!(
            walked(dir.path(), false, false, &[]),
            ["a.rs", "nested/z.log"]
        );
        let all = walked(dir.path(), true, false, &[]);
        assert!(all.contains(&".hidden/x.rs".to_string()), "{all:?}");
        assert!(!all.iter().any(|p| p.starts_with("nested/.git")), "{all:?}");
        let everything = walked(dir.path(), false, true, &[]);
        assert!(
            everything.contains(&"debug.log".to_string()),
            "{everything:?}"
        );
        assert!(everything.contains(&"build/out.rs".to_string()));
        assert_eq!(
            walked(dir.path(), false, true, &["build"]),
            ["build/out.rs"]
        );
    }

    #[test]
    fn a_path_list_is_proven_inside_the_repo_and_uses_the_proofs_stat() {
        let dir = tree(&[("a.rs", "hello"), ("sub/b.rs", ""), (".git/config", "")]);
        let root = Root::new(dir.path(), false).unwrap();
        let filter = Filter::new(&[], &[]).unwrap();
        let list = split_list(b"a.rs\nsub\n.git/config\nmissing.rs\n\n", false);
        let sourced = from_list(&root, &list, &filter, false).unwrap();
        let rels: Vec<String> = sourced
            .candidates
            .iter()
            .map(|c| display_path(&c.rel))
            .collect();
        assert_eq!(rels, ["a.rs"]);
        assert_eq!(sourced.candidates[0].size, 5);
        let skipped: Vec<(&str, &str)> = sourced
            .skipped
            .iter()
            .map(|s| (s.path.as_str(), s.reason.kind()))
            .collect();
        assert_eq!(
            skipped,
            [
                (".git/config", "sensitive"),
                ("missing.rs", "unreadable"),
                ("sub", "not_regular")
            ]
        );
        for escaping in ["../x", "/etc/passwd", "sub/../../x"] {
            let err = from_list(&root, &[escaping.as_bytes().to_vec()], &filter, false);
            assert!(err.is_err(), "{escaping} was accepted");
        }
    }

    #[test]
    fn lists_split_on_newlines_or_nul() {
        assert_eq!(
            split_list(b"a\nb\r\n\n", false),
            [b"a".to_vec(), b"b\r".to_vec()]
        );
        assert_eq!(
            split_list(b"a\nb\0c\0", true),
            [b"a\nb".to_vec(), b"c".to_vec()]
        );
    }
}
