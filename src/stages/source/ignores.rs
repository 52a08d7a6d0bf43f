//! Ignore files, honoured only from inside the repo: read through the directory's fd without
//! following links, bounded in size, each line checked against the glob limits, and combined
//! with `ignore`'s gitignore matcher in git's precedence.

use super::state::{Walk, out_of_fds, virtual_path};
use super::*;

/// Read the ignore file `name` of the directory `dir` (at `rel`) and build its matcher. Opened
/// by name from the directory's fd, without following a link, non-blocking; only a regular file
/// of at most [`MAX_IGNORE_FILE`] bytes is honoured. Anything else is logged, and reported as
/// skipped when it would not otherwise appear (hidden files are left out).
pub(super) fn ignore_file(
    dir: &BeneathDir,
    rel: &[u8],
    name: &str,
    w: &Walk<'_>,
) -> Option<Gitignore> {
    let file_rel = join(rel, name.as_bytes());
    let report = !w.opts.hidden;
    let text = match read_bounded(dir, OsStr::new(name)) {
        Ok(Some(text)) => text,
        Ok(None) => return None,
        Err(Unusable::Io(e)) => {
            w.failed_at(&file_rel, &e);
            return None;
        }
        Err(Unusable::Why(why)) => {
            not_honoured(w, &file_rel, &why, report);
            return None;
        }
    };
    matcher(&virtual_path(rel), &text, &file_rel, w, report)
}

/// Log `why` the ignore file at `file_rel` is not honoured, and report it when `report`.
pub(super) fn not_honoured(w: &Walk<'_>, file_rel: &[u8], why: &str, report: bool) {
    let shown = display_path(file_rel);
    log::warn!("{shown} is not honoured as an ignore file: {why}");
    if report {
        w.unreadable(file_rel, format!("not honoured as an ignore file: {why}"));
    }
}

/// The matcher of an ignore file's `text`, rooted at `root`. Each pattern line is checked
/// against the limits on globs ([`check_glob`]) before it is compiled; a line past them, or
/// one the matcher refuses, is skipped, as git skips a bad line. The skipped lines are logged
/// and, when `report`, reported once for the file (the first one with its reason).
pub(super) fn matcher(
    root: &Path,
    text: &str,
    file_rel: &[u8],
    w: &Walk<'_>,
    report: bool,
) -> Option<Gitignore> {
    let mut b = GitignoreBuilder::new(root);
    let mut bytes = 0usize;
    let mut bad = 0usize;
    let mut first_bad = None;
    for (n, line) in text.lines().enumerate() {
        // Comments and blank lines are not patterns.
        let pattern = !(line.starts_with('#') || line.trim().is_empty());
        let refused = match check_glob(line) {
            Err(limit) if pattern => Some(limit.to_string()),
            _ => b.add_line(None, line).err().map(|e| e.to_string()),
        };
        if pattern && refused.is_none() {
            bytes += line.len();
            if bytes > MAX_IGNORE_PATTERN_BYTES {
                break;
            }
        }
        if let Some(why) = refused {
            bad += 1;
            first_bad.get_or_insert((n + 1, why));
        }
    }
    // Compiling is what costs: bound the walk's total before it (skipped lines cost nothing).
    let total = w.ignore_bytes.fetch_add(bytes, Ordering::Relaxed) + bytes;
    if total > MAX_IGNORE_PATTERN_BYTES {
        let shown = display_path(file_rel);
        lock(&w.fatal).get_or_insert(Error::Limit {
            what: format!(
                "the repository's ignore files hold more than {} KiB of patterns (reached at \
                 {shown}); gnaw stops rather than leave some of them out and serve files they \
                 exclude; shorten the ignore files, or run on a subdirectory",
                MAX_IGNORE_PATTERN_BYTES >> 10
            ),
        });
        w.failed.store(true, Ordering::Relaxed);
        return None;
    }
    if let Some((line, why)) = first_bad {
        let shown = display_path(file_rel);
        let lines = if bad == 1 { "line" } else { "lines" };
        let message =
            format!("{bad} {lines} not honoured as ignore patterns (first, line {line}: {why})");
        log::warn!("{shown}: {message}");
        if report {
            w.unreadable(file_rel, message);
        }
    }
    match b.build() {
        Ok(gi) if !gi.is_empty() => Some(gi),
        Ok(_) => None,
        Err(e) => {
            let why = format!("its patterns together are too complex to compile ({e})");
            not_honoured(w, file_rel, &why, report);
            None
        }
    }
}

/// Why an ignore file is not read.
pub(super) enum Unusable {
    /// It is not a usable regular file, for this reason.
    Why(String),
    /// The I/O failure (the caller tells running out of fds from the rest).
    Io(io::Error),
}

/// The text of the regular file `name` in `dir`, read through the directory's fd; `Ok(None)`
/// when it does not exist.
pub(super) fn read_bounded(dir: &BeneathDir, name: &OsStr) -> Result<Option<String>, Unusable> {
    let why = |s: String| Unusable::Why(s);
    let file = match dir.child_file(name) {
        Ok(f) => f,
        Err(e) if e.raw_os_error() == Some(libc::ENOENT) => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(why(
                "it is a symbolic link, and links are not followed for ignore files".into(),
            ));
        }
        Err(e) if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) => {
            return Err(Unusable::Io(e));
        }
        Err(e) => return Err(why(os_message(&e))),
    };
    let meta = file.metadata().map_err(|e| why(os_message(&e)))?;
    if !meta.is_file() {
        return Err(why("it is not a regular file".into()));
    }
    if meta.len() > MAX_IGNORE_FILE {
        return Err(why(format!(
            "it is larger than {} MiB",
            MAX_IGNORE_FILE >> 20
        )));
    }
    let bytes = read_capped(file, MAX_IGNORE_FILE, meta.len())
        .map_err(|e| why(os_message(&e)))?
        .ok_or_else(|| {
            why(format!(
                "it grew past {} MiB while it was read",
                MAX_IGNORE_FILE >> 20
            ))
        })?;
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// `.git/info/exclude`, when `.git` at the repo root is a real directory: reached through
/// directory handles without following links, bounded like every ignore file.
pub(super) fn git_info_exclude(root: &BeneathDir, w: &Walk<'_>) -> Option<Gitignore> {
    const SHOWN: &[u8] = b".git/info/exclude";
    let info = match root
        .child_dir(OsStr::new(".git"))
        .and_then(|git| git.child_dir(OsStr::new("info")))
    {
        Ok(info) => info,
        Err(e) => {
            if let Some(err) = out_of_fds(b".git/info", &e) {
                lock(&w.fatal).get_or_insert(err);
                w.failed.store(true, Ordering::Relaxed);
            }
            return None;
        }
    };
    let text = match read_bounded(&info, OsStr::new("exclude")) {
        Ok(text) => text?,
        Err(Unusable::Io(e)) => {
            w.failed_at(SHOWN, &e);
            return None;
        }
        Err(Unusable::Why(why)) => {
            not_honoured(w, SHOWN, &why, true);
            return None;
        }
    };
    matcher(Path::new("/"), &text, SHOWN, w, true)
}
