//! An explicit list of paths (`--stdin`, `--changed`): split, each proven inside the repo
//! through the sandbox's containment, and turned into candidates as the walk makes them.

use super::*;

/// Resolve an explicit path list against the repo. Every path is canonicalized and proven to
/// lie inside the repo by comparing components; the first one that does not rejects the whole
/// list with `Err((path, why))`. Paths inside `.git` are skipped with a reason, never read.
/// A list git made (`listed_by_git`, for `--changed`) names files of the repository by their
/// own paths: one that resolves outside through a symbolic link is skipped with the reason,
/// as the walk skips such a link, instead of rejecting the list.
pub fn from_list(
    repo: &Root,
    paths: &[Vec<u8>],
    filter: &Filter,
    listed_by_git: bool,
) -> Result<Sourced, (String, String)> {
    let mut candidates = Vec::new();
    let mut skipped = Vec::new();
    for raw in paths {
        let shown = display_path(raw);
        let contained = match repo.contain(OsStr::from_bytes(raw)) {
            Ok(c) => c,
            Err(Rejection::NotFound) if lexically_inside(repo.path(), raw) => {
                skipped.push(Skipped {
                    path: shown,
                    reason: SkipReason::Unreadable {
                        error: "no such file".into(),
                    },
                });
                continue;
            }
            Err(Rejection::NotFound) => {
                return Err((
                    shown,
                    "it does not exist and is not inside the repository".into(),
                ));
            }
            Err(Rejection::OutsideRoot) if listed_by_git && lexically_inside(repo.path(), raw) => {
                skipped.push(Skipped {
                    path: shown,
                    reason: SkipReason::Symlink {
                        detail: "a symbolic link (or inside one) that leads outside the \
                                 repository; not read",
                    },
                });
                continue;
            }
            Err(r) => return Err((shown, r.to_string())),
        };
        let rel = contained.relative().as_os_str().as_bytes().to_vec();
        if rel.is_empty() {
            return Err((
                shown,
                "it is the repository itself, not a file in it".into(),
            ));
        }
        if rel.split(|&b| b == b'/').any(|part| part == b".git") {
            skipped.push(Skipped {
                path: display_path(&rel),
                reason: SkipReason::Sensitive {
                    what: "inside .git",
                },
            });
            continue;
        }
        if !filter.keeps(&rel) {
            continue;
        }
        // The proof's own lstat: the path is not looked up again.
        let st = contained.stat();
        if st.kind == FileKind::Dir {
            skipped.push(Skipped {
                path: display_path(&rel),
                reason: SkipReason::NotRegular { kind: "directory" },
            });
        } else {
            candidates.push(candidate(rel, st));
        }
    }
    candidates.sort_by(|a, b| a.rel.cmp(&b.rel));
    candidates.dedup_by(|a, b| a.rel == b.rel);
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    skipped.dedup();
    Ok(Sourced {
        candidates,
        skipped,
    })
}

/// Split a stdin buffer into paths: on NUL when `nul` is set, else on newlines (a trailing
/// `\r` is kept: it is a legal byte of a Unix file name). Empty entries are dropped.
pub fn split_list(buf: &[u8], nul: bool) -> Vec<Vec<u8>> {
    let sep = if nul { 0 } else { b'\n' };
    buf.split(|&b| b == sep)
        .filter(|p| !p.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

/// For a path that does not exist: whether it would be inside the repo without resolving any
/// link (no `..` anywhere, and an absolute path must start with the repo's components).
pub(super) fn lexically_inside(repo: &Path, raw: &[u8]) -> bool {
    let p = Path::new(OsStr::from_bytes(raw));
    let rest = if p.is_absolute() {
        match p.strip_prefix(repo) {
            Ok(rest) => rest,
            Err(_) => return false,
        }
    } else {
        p
    };
    rest.components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}
