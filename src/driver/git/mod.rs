//! The git tools' driver: `changes` (the working tree against a commit) and `log` (the history
//! with line counts and, optionally, patches), for the MCP tools of the same names and the
//! `gnaw changes|log` subcommands, which print the same text; and the changed-file list that
//! `extract --changed` extracts.
//!
//! | module | job |
//! |---|---|
//! | `changes` | changed files with their status, then the unified diff, within the budget |
//! | [`log`] | commits newest first, each with the files it changed and line counts |
//! | `hotspots` | files ranked by recent churn, with authors, size and co-changed files |
//!
//! `.git` is read by the git stage ([`crate::stages::git`]), in-process, never by running git.
//! Working-tree files are read like every other file gnaw reads: opened beneath the repository,
//! bounded, binary detected. Both sides of every diff go through the per-file step's sensitive
//! rule and secrets scan ([`crate::driver::file::scan_text`]) before they are compared, so a
//! secret is redacted on removed lines too, and a sensitive file's diff is left out with the
//! reason.

pub(crate) mod changes;
pub(crate) mod hotspots;
pub mod log;

use super::call::session::Session;
use super::call::{NavError, Request};
use super::file::{self, FileContext};
use crate::bounded::read_capped;
use crate::error::Error;
use crate::stages::git::diff::Hunk;
use crate::stages::git::{self as stage, Caps, GitError, Repo};
use crate::stages::read;
use crate::vocab::ErrorKind;
use crate::vocab::{SkipReason, Text, display_path};
use std::fmt::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

/// The default lines of context around each change (git's).
pub const DEFAULT_CONTEXT: u32 = 3;
/// The most lines of context a call may ask for.
pub const MAX_CONTEXT: u32 = 1000;
/// The most path filters a call may give.
pub const MAX_PATHS: usize = 100;

/// A git stage failure as the tools report it. Its message may quote what `.git` holds (a ref
/// name, a path, a URL), so every secret in it is redacted, whatever the mode: an error is no
/// place for one.
pub fn git_error(e: GitError) -> NavError {
    let e = match e {
        GitError::Refused { kind, message } => GitError::Refused {
            kind,
            message: redacted(message),
        },
        GitError::BadRevision(m) => GitError::BadRevision(redacted(m)),
        GitError::Bound(m) => GitError::Bound(redacted(m)),
        GitError::Failed(m) => GitError::Failed(redacted(m)),
    };
    match e {
        GitError::Refused { kind, message } => NavError::argument(kind, message),
        GitError::BadRevision(m) => NavError::argument(ErrorKind::InvalidRevision, m),
        GitError::Bound(m) => NavError::Run(Error::Usage { message: m }),
        GitError::Failed(m) => NavError::Run(Error::Io {
            what: "cannot read the repository's .git".into(),
            error: m,
        }),
    }
}

/// `message` with every secret in it replaced by its marker.
fn redacted(message: String) -> String {
    match crate::stages::scan::scan(
        &message,
        "(git error)",
        crate::vocab::SecretsMode::Redact,
        &crate::stages::scan::Allow::default(),
    ) {
        crate::stages::scan::Scanned::Redacted { text, .. } => text,
        _ => message,
    }
}

/// Open the call's session and its repository's `.git`.
fn open<'r, 'a>(req: &'r Request<'a>) -> Result<(Session<'r, 'a>, Repo), NavError> {
    let session = Session::open(req)?;
    let repo = open_repo(&session)?;
    Ok((session, repo))
}

/// Open the session's repository's `.git`, its caps from the session's settings.
fn open_repo(session: &Session<'_, '_>) -> Result<Repo, NavError> {
    let caps = Caps {
        max_blob: session.options.max_file_size,
        ..Caps::default()
    };
    stage::open(&session.dir, caps).map_err(git_error)
}

/// The `paths` arguments as filters: relative paths spelled as gnaw shows them, checked
/// lexically (nothing is opened by them: they only select among the paths git records).
pub fn path_filter(given: &[String]) -> Result<stage::tree::PathFilter, NavError> {
    if given.len() > MAX_PATHS {
        return Err(NavError::invalid(format!(
            "paths names {} paths; at most {MAX_PATHS}",
            given.len()
        )));
    }
    let mut prefixes = Vec::new();
    for (i, g) in given.iter().enumerate() {
        let raw = super::call::paths::parse_display(g);
        let bad = |why: &str| {
            NavError::argument(
                ErrorKind::InvalidPath,
                format!(
                    "paths[{i}] {} {why}; give a path relative to the repository, as changes \
                     and tree show them",
                    super::call::paths::quote(g)
                ),
            )
        };
        if raw.len() > 4096 {
            return Err(bad("is over 4096 bytes"));
        }
        if raw.contains(&0) {
            return Err(bad("contains a NUL byte"));
        }
        if raw.starts_with(b"/") {
            return Err(bad("is absolute"));
        }
        let parts: Vec<&[u8]> = raw
            .split(|&b| b == b'/')
            .filter(|p| !p.is_empty() && *p != b".")
            .collect();
        if parts.iter().any(|p| *p == b"..") {
            return Err(bad("leaves the repository (..)"));
        }
        if parts.is_empty() {
            // The repository itself: no filter.
            return Ok(stage::tree::PathFilter::default());
        }
        prefixes.push(parts.join(&b'/'));
    }
    Ok(stage::tree::PathFilter { prefixes })
}

/// A file diff's note when a side is binary.
pub const NOTE_BINARY: &str = "diff not shown: binary";

/// The note of a binary side.
pub const BINARY: &str = "binary";

/// What a diff shows of one side of a file.
#[derive(Clone, Debug)]
pub enum Side {
    /// The scanned text (secrets handled by the mode in force).
    Text(String),
    /// Not shown, and why.
    Note(String),
}

/// One side's bytes as the read stage would keep them: binary detected, decoded, then the
/// sensitive rule and the secrets scan.
pub fn side(ctx: &FileContext<'_>, rel: &[u8], path: &str, bytes: Vec<u8>) -> Side {
    if read::is_binary(&bytes[..bytes.len().min(read::SNIFF_BYTES)]) {
        return Side::Note(BINARY.into());
    }
    let size = bytes.len() as u64;
    let (text, lossy) = match String::from_utf8(bytes) {
        Ok(s) => (s, false),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), true),
    };
    let text = Text::new(text, size, lossy);
    match file::scan_text(ctx, rel, path, Arc::new(text)).0 {
        Ok((body, _, _)) => Side::Text(body.to_string()),
        Err(reason) => Side::Note(skip_note(&reason)),
    }
}

/// Why a side is not shown, in a diff's words.
pub fn skip_note(reason: &SkipReason) -> String {
    match reason {
        SkipReason::Sensitive { what } => format!("sensitive file ({what})"),
        SkipReason::Secret => "holds secrets (secrets mode block)".into(),
        other => other.describe(),
    }
}

/// A working-tree file's bytes, read beneath the repository without following links, at most
/// `max` bytes; `Err` says why not.
pub fn read_worktree(ctx: &FileContext<'_>, rel: &[u8], max: u64) -> Result<Vec<u8>, SkipReason> {
    let path = Path::new(std::ffi::OsStr::from_bytes(rel));
    let file = ctx
        .dir
        .open_file(path, false)
        .map_err(|e| SkipReason::Unreadable {
            error: crate::bounded::os_message(&e),
        })?;
    let meta = file.metadata().map_err(|e| SkipReason::Unreadable {
        error: crate::bounded::os_message(&e),
    })?;
    if !meta.is_file() {
        return Err(SkipReason::NotRegular {
            kind: "not a regular file",
        });
    }
    read_capped(file, max, meta.len())
        .map_err(|e| SkipReason::Unreadable {
            error: crate::bounded::os_message(&e),
        })?
        .ok_or(SkipReason::TooLarge { limit: max })
}

/// What happened to a file: one value, its letter in a list (`git diff --name-status`'s) and its
/// name in a structured answer both derived from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffStatus {
    /// The file is new in the change.
    Added,
    /// The file's content or mode changed.
    Modified,
    /// The file was removed.
    Deleted,
    /// The file was moved (with or without changes).
    Renamed,
    /// A file became a link or a link a file.
    TypeChanged,
    /// In the working tree, not in the index.
    Untracked,
}

impl DiffStatus {
    /// The letter a list of changed files shows (`A`, `M`, `D`, `R`, `T`, `?`).
    pub fn letter(self) -> char {
        match self {
            DiffStatus::Added => 'A',
            DiffStatus::Modified => 'M',
            DiffStatus::Deleted => 'D',
            DiffStatus::Renamed => 'R',
            DiffStatus::TypeChanged => 'T',
            DiffStatus::Untracked => '?',
        }
    }

    /// Whether the file was not there before (`/dev/null` on the old side).
    pub fn is_new(self) -> bool {
        matches!(self, DiffStatus::Added | DiffStatus::Untracked)
    }
}

/// A file's change, ready to render.
#[derive(Clone, Debug)]
pub struct FileDiff {
    /// What happened to the file.
    pub status: DiffStatus,
    /// The file before the change and after it.
    pub old: Version,
    /// The file after the change.
    pub new: Version,
    /// Rename similarity in percent.
    pub similarity: Option<u32>,
    /// Lines added and removed; `None` when not compared (binary, not shown).
    pub counts: Option<(u32, u32)>,
    /// What the diff shows: hunks, or a note instead.
    pub body: DiffBody,
}

/// One side of a file's change: its path as shown (secrets in names handled), and its mode
/// (`None` when the file is not on that side).
#[derive(Clone, Debug)]
pub struct Version {
    /// The path as shown, escaped for display.
    pub path: String,
    /// Its mode bits on this side, `None` when the file is not on it.
    pub mode: Option<u32>,
}

/// What a file's diff shows.
#[derive(Clone, Debug)]
pub enum DiffBody {
    /// The changed lines, in hunks.
    Hunks(Vec<Hunk>),
    /// One line instead of hunks.
    Note(String),
}

impl FileDiff {
    /// The path the change is known by (the new one, or the old for a deletion).
    pub fn path(&self) -> &str {
        if self.status == DiffStatus::Deleted {
            &self.old.path
        } else {
            &self.new.path
        }
    }

    /// Items a budget cuts between: hunks, or one for a note or a change without lines.
    pub fn items(&self) -> usize {
        match &self.body {
            DiffBody::Hunks(h) if !h.is_empty() => h.len(),
            _ => 1,
        }
    }

    /// The `diff --git` header with the mode, rename and `---`/`+++` lines.
    pub fn header(&self, continued: bool) -> String {
        let mut out = format!("diff --git a/{} b/{}", self.old.path, self.new.path);
        if continued {
            out.push_str(" (continued)");
        }
        out.push('\n');
        let (om, nm) = (self.old.mode.unwrap_or(0), self.new.mode.unwrap_or(0));
        match self.status {
            DiffStatus::Added => {
                let _ = writeln!(out, "new file mode {nm:06o}");
            }
            DiffStatus::Untracked => out.push_str("untracked file (not in the index)\n"),
            DiffStatus::Deleted => {
                let _ = writeln!(out, "deleted file mode {om:06o}");
            }
            _ if om != nm => {
                let _ = writeln!(out, "old mode {om:06o}\nnew mode {nm:06o}");
            }
            _ => {}
        }
        if self.status == DiffStatus::Renamed {
            let _ = writeln!(
                out,
                "similarity index {}%\nrename from {}\nrename to {}",
                self.similarity.unwrap_or(100),
                self.old.path,
                self.new.path
            );
        }
        if let DiffBody::Hunks(h) = &self.body
            && !h.is_empty()
        {
            let _ = writeln!(out, "--- {}\n+++ {}", self.old_name(), self.new_name());
        }
        out
    }

    /// The old side as the diff names it: `a/PATH`, or `/dev/null` for a file that was not there.
    fn old_name(&self) -> String {
        if self.status.is_new() {
            "/dev/null".to_string()
        } else {
            format!("a/{}", self.old.path)
        }
    }

    /// The new side as the diff names it: `b/PATH`, or `/dev/null` for a deleted file.
    fn new_name(&self) -> String {
        if self.status == DiffStatus::Deleted {
            "/dev/null".to_string()
        } else {
            format!("b/{}", self.new.path)
        }
    }

    /// Item `i`'s text (a hunk, or the note).
    pub fn item_text(&self, i: usize) -> String {
        match &self.body {
            DiffBody::Hunks(h) if !h.is_empty() => hunk_text(&h[i]),
            DiffBody::Hunks(_) => String::new(),
            DiffBody::Note(n) if n == NOTE_BINARY => format!(
                "Binary files {} and {} differ\n",
                self.old_name(),
                self.new_name()
            ),
            DiffBody::Note(n) => format!("({n})\n"),
        }
    }

    /// Its line in a list of changed files: status, path (`old -> new` for a rename, with its
    /// similarity), and its counts.
    pub fn list_line(&self) -> String {
        let letter = self.status.letter();
        let mut line = if self.status == DiffStatus::Renamed {
            format!("{letter} {} -> {}", self.old.path, self.new.path)
        } else {
            format!("{letter} {}", self.path())
        };
        if let Some(s) = self
            .similarity
            .filter(|_| self.status == DiffStatus::Renamed)
        {
            let _ = write!(line, " ({s}%)");
        }
        let counts = self.counts_text();
        if !counts.is_empty() {
            let _ = write!(line, "  {counts}");
        }
        line.push('\n');
        line
    }

    /// The `+A -R` of the listing.
    pub fn counts_text(&self) -> String {
        match self.counts {
            Some((a, r)) => format!("+{a} -{r}"),
            None => match &self.body {
                DiffBody::Note(n) => n.clone(),
                DiffBody::Hunks(_) => String::new(),
            },
        }
    }
}

/// A hunk as git prints it.
pub fn hunk_text(h: &Hunk) -> String {
    let mut out = h.header();
    out.push('\n');
    for l in &h.lines {
        out.push(l.kind as char);
        out.push_str(&l.text);
        out.push('\n');
        if l.no_newline {
            out.push_str("\\ No newline at end of file\n");
        }
    }
    out
}

/// A commit message with secrets handled by the mode in force.
pub fn scanned_message(ctx: &FileContext<'_>, message: &str) -> String {
    let text = Text::new(message.to_string(), message.len() as u64, false);
    match file::scan_text(ctx, b"", "(commit message)", Arc::new(text)).0 {
        Ok((body, _, _)) => body.to_string(),
        Err(_) => "(message not shown: it holds secrets)".into(),
    }
}

/// A path as shown: escaped, with a secret in it handled by the mode in force.
pub fn shown(ctx: &FileContext<'_>, rel: &[u8]) -> String {
    file::shown_path(ctx, display_path(rel))
        .0
        .unwrap_or_else(|| "[path withheld: holds a secret]".into())
}

/// `YYYY-MM-DD HH:MM:SS +HHMM` for `secs` since the epoch at `offset` seconds from UTC.
pub fn format_date(secs: i64, offset: i32) -> String {
    let local = secs.saturating_add(i64::from(offset));
    let days = local.div_euclid(86_400);
    let rem = local.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let sign = if offset < 0 { '-' } else { '+' };
    let off = offset.unsigned_abs();
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} {sign}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        off / 3600,
        off % 3600 / 60
    )
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Days since 1970-01-01 of (year, month, day).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = i64::from(if m > 2 { m - 3 } else { m + 9 });
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// A `since` argument: `None` when left out; a date [`parse_since`] cannot read is an error that
/// says how to write one.
pub fn since_arg(given: Option<&str>) -> Result<Option<i64>, NavError> {
    given
        .map(|s| {
            parse_since(s).ok_or_else(|| {
                NavError::invalid(format!(
                    "since {}: write a date as YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ (UTC), or \
                     @SECONDS",
                    crate::driver::call::paths::quote(s)
                ))
            })
        })
        .transpose()
}

/// A `path` argument of one path: every path when left out.
pub fn path_arg(given: Option<&String>) -> Result<stage::tree::PathFilter, NavError> {
    match given {
        Some(p) => path_filter(std::slice::from_ref(p)),
        None => Ok(stage::tree::PathFilter::default()),
    }
}

/// Parse a `since` date: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM[:SS][Z]` (UTC), or `@SECONDS`.
pub fn parse_since(s: &str) -> Option<i64> {
    let s = s.trim();
    if let Some(n) = s.strip_prefix('@') {
        return n.parse().ok();
    }
    if s.len() > 40 || !s.is_ascii() {
        return None;
    }
    let (date, time) = match s.split_once(['T', ' ']) {
        Some((d, t)) => (d, t.trim_end_matches('Z')),
        None => (s, ""),
    };
    let mut dp = date.split('-');
    let y: i64 = dp.next()?.parse().ok()?;
    let m: u32 = dp.next()?.parse().ok()?;
    let d: u32 = dp.next()?.parse().ok()?;
    if dp.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let mut secs = 0i64;
    if !time.is_empty() {
        let mut tp = time.split(':');
        let h: i64 = tp.next()?.parse().ok()?;
        let mi: i64 = tp.next()?.parse().ok()?;
        let se: i64 = tp.next().map_or(Some(0), |x| x.parse().ok())?;
        if h > 23 || mi > 59 || se > 60 {
            return None;
        }
        secs = h * 3600 + mi * 60 + se;
    }
    Some(days_from_civil(y, m, d) * 86_400 + secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip() {
        assert_eq!(format_date(0, 0), "1970-01-01 00:00:00 +0000");
        assert_eq!(
            format_date(1_700_000_000, 3600),
            "2023-11-14 23:13:20 +0100"
        );
        assert_eq!(
            format_date(1_700_000_000, -18000),
            "2023-11-14 17:13:20 -0500"
        );
        assert_eq!(parse_since("2023-11-14T22:13:20Z"), Some(1_700_000_000));
        assert_eq!(parse_since("1970-01-02"), Some(86_400));
        assert_eq!(parse_since("@5"), Some(5));
        assert_eq!(parse_since("yesterday"), None);
        assert_eq!(parse_since("2023-13-01"), None);
    }

    #[test]
    fn path_filters_stay_inside() {
        assert!(path_filter(&["../x".into()]).is_err());
        assert!(path_filter(&["/etc".into()]).is_err());
        let f = path_filter(&["src/".into(), "./a.rs".into()]).unwrap();
        assert_eq!(f.prefixes, vec![b"src".to_vec(), b"a.rs".to_vec()]);
        assert!(f.keeps(b"src/x.rs") && f.keeps(b"a.rs") && !f.keeps(b"srcx/y"));
    }
}
