//! What the navigation tools share: one call's request and settings (`.gnawconfig`, overrides and
//! the operator's floors, resolved exactly as for `extract`), the proof of every path argument
//! inside the repo, and the per-file step (`driver::file`) run over a set of candidates with
//! progress and cancellation.
//!
//! Path arguments are spelled as gnaw shows paths ([`crate::vocab::display_path`]): `\\`, `\n`,
//! `\t`, `\r`, `\u{..}` and `\xNN` stand for the bytes they show, so every path a tool prints can
//! be passed back as it is; a backslash that starts no such escape stands for itself. The decoded
//! bytes are then proven inside the repo component by component, through directory fds, with the
//! same containment as `--stdin` ([`gnaw_sandbox::ContainedDir::as_root`] then
//! [`gnaw_sandbox::Root::contain`]): escaping cannot get around the proof, it only names bytes.
//!
//! A path shown with a secret redacted in it (`keys/key_[REDACTED:github-token].txt`) is passed
//! back as shown: each component holding a redaction marker names the entry of its directory
//! whose shown name it is (`resolve_shown`); the bytes found are then proven like any others.
//! The raw name is never needed and never echoed. Two entries that show the same (their names
//! differ only inside a secret) cannot be told apart by their shown name, and are refused as
//! ambiguous.

use super::fit::{self, Limits};
use crate::cache::Cache;
use crate::config::Options;
use crate::driver::file::{self, FileContext, Processed};
use crate::driver::options::{self, FileOptions};
use crate::driver::repo_open_error;
use crate::error::Error;
use crate::par;
use crate::spec::{ExtractionSpec, IdleWork, Mode, Observer, Overrides, Policy};
use crate::stages::count;
use crate::stages::filter::Filter;
use crate::stages::name::Namer;
use crate::stages::source::{self, Sourced, WalkOptions};
use crate::vocab::{Candidate, Encoding, ErrorKind};
use gnaw_sandbox::beneath::{FileKind, Stat};
use gnaw_sandbox::{BeneathDir, ContainedDir, Rejection, Root};
use std::ffi::OsStr;
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One navigation call.
pub struct Request<'a> {
    /// The repository, proven under the root.
    pub repo: ContainedDir,
    /// Include and exclude globs (added to `.gnawconfig`'s) and the budget (`Some(0)`: none).
    pub overrides: Overrides,
    /// The surface's defaults and the operator's floors.
    pub policy: Policy,
    /// The server's warm cache.
    pub cache: Option<&'a Cache>,
    pub observer: Option<&'a dyn Observer>,
    /// Most bytes the answer's text may take (`usize::MAX`: no limit).
    pub max_text_bytes: usize,
    /// Count the answer's tokens even when it has no budget: the server reports every answer's
    /// count (`answer_tokens`); the CLI prints only the text, so it counts only to fit a budget
    /// and never builds the tokenizer otherwise.
    pub count_answer: bool,
}

impl Request<'_> {
    /// A call on `repo` under the server's policy with a budget of `budget` tokens (0: none)
    /// and a text ceiling of `max_text_bytes`, with no warm cache and no observer: one call
    /// run on its own, as the tests and the fuzz checks make it.
    pub fn alone(repo: ContainedDir, budget: usize, max_text_bytes: usize) -> Request<'static> {
        Request {
            repo,
            overrides: Overrides {
                budget: Some(budget),
                ..Overrides::default()
            },
            policy: Policy::server(),
            cache: None,
            observer: None,
            max_text_bytes,
            count_answer: true,
        }
    }
}

/// Why a navigation call gave no answer.
#[derive(Debug)]
pub enum NavError {
    /// An argument cannot be used (a path that is not inside the repo, a bad range or
    /// pattern): `OutsideRoot`, `NotFound`, `InvalidPath`, `NotADirectory`, `NotAFile`,
    /// `InvalidArguments`, `InvalidPattern`, ...
    Argument { kind: ErrorKind, message: String },
    /// The run failed or was cancelled.
    Run(Error),
}

impl NavError {
    /// An argument error with `kind` and `message`.
    pub fn argument(kind: ErrorKind, message: impl Into<String>) -> NavError {
        NavError::Argument {
            kind,
            message: message.into(),
        }
    }

    /// An argument that cannot be used as given (`InvalidArguments`), with `message`.
    pub fn invalid(message: impl Into<String>) -> NavError {
        NavError::argument(ErrorKind::InvalidArguments, message)
    }
}

impl From<Error> for NavError {
    fn from(e: Error) -> NavError {
        NavError::Run(e)
    }
}

impl std::error::Error for NavError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NavError::Argument { .. } => None,
            NavError::Run(e) => Some(e),
        }
    }
}

impl fmt::Display for NavError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NavError::Argument { message, .. } => f.write_str(message),
            NavError::Run(e) => write!(f, "{e}"),
        }
    }
}

/// A call's resolved settings and its open repository.
pub struct Session<'r, 'a> {
    pub req: &'r Request<'a>,
    pub dir: BeneathDir,
    pub options: Options,
    spec: ExtractionSpec<'a>,
}

impl<'r, 'a> Session<'r, 'a> {
    /// Open the repository and resolve `.gnawconfig` with the request's overrides and floors.
    pub fn open(req: &'r Request<'a>) -> Result<Session<'r, 'a>, NavError> {
        let spec = ExtractionSpec {
            repo: req.repo.clone(),
            overrides: req.overrides.clone(),
            paths: None,
            mode: Mode::Estimate,
            observer: req.observer,
            policy: req.policy,
            cache: req.cache,
        };
        let dir = req.repo.open().map_err(|e| repo_open_error(&e))?;
        let options = options::resolve(&dir, &spec)?;
        // An answer fitted to a budget is counted: the tokenizer is built while the call walks
        // and reads (a tool that counts without one asks for it itself).
        if options.budget.is_some() {
            count::prefetch(options.encoding);
        }
        Ok(Session {
            req,
            dir,
            options,
            spec,
        })
    }

    /// The per-file settings: the very ones `extract` uses when `counting` (so the warm cache's
    /// pieces are shared with it), else the same without token counts. `max_file_size` raises
    /// the read limit (a range of a large file).
    pub fn file_options(&self, counting: bool, max_file_size: Option<u64>) -> FileOptions {
        let mut fo = FileOptions::new(&self.options, &self.spec, counting);
        if let Some(max) = max_file_size {
            fo.read.max_file_size = max;
        }
        fo
    }

    /// The file context for `fo`, sharing the request's cache.
    pub fn context<'s>(&'s self, fo: &'s FileOptions) -> Result<FileContext<'s>, NavError> {
        Ok(FileContext::new(&self.dir, fo, self.req.cache)?)
    }

    /// The token budget: the call's, else `.gnawconfig`'s, else the surface's default.
    pub fn budget(&self) -> Option<usize> {
        self.options.budget
    }

    pub fn encoding(&self) -> Encoding {
        self.options.encoding
    }

    /// Whether the answer is counted: always when it is fitted to a budget, else when the
    /// surface reports counts ([`Request::count_answer`]).
    pub fn counting(&self) -> bool {
        self.budget().is_some() || self.req.count_answer
    }

    /// The counter of this call's answer: exact when [`Session::counting`], else one that
    /// counts nothing (the answer's `tokens` is then 0).
    pub fn counter(&self) -> impl Fn(&str) -> usize + use<> {
        fit::counter(self.encoding(), self.counting())
    }

    /// What the answer must fit: the call's budget and its text limit.
    pub fn limits(&self) -> Limits {
        Limits {
            budget: self.budget(),
            max_bytes: self.req.max_text_bytes,
        }
    }

    /// The largest file a range may be read from: the operator's ceiling on `max_file_size`
    /// (the server's default ceiling when the surface sets none), and never below the limit in
    /// force.
    pub fn range_ceiling(&self) -> u64 {
        self.req
            .policy
            .max_file_size_cap
            .unwrap_or(crate::spec::SERVER_MAX_FILE_SIZE_CAP)
            .max(self.options.max_file_size)
    }

    /// Whether the call was cancelled.
    pub fn cancelled(&self) -> bool {
        self.req.observer.is_some_and(|o| o.cancelled())
    }

    /// Leave `work` for the server's idle time (dropped without an observer, as in the CLI).
    pub fn leave(&self, work: IdleWork) {
        if let Some(o) = self.req.observer {
            o.leave(work);
        }
    }

    /// Walk the repository as `extract` does: its ignore files, hidden and filter rules.
    pub fn walk(&self) -> Result<Sourced, NavError> {
        self.walk_under(&[])
    }

    /// [`Session::walk`], with the [`source::Listing`] of what it saw (when everything in it
    /// had settled): what tells a later call whether a walk would find the same.
    pub fn walk_listed(&self) -> Result<(Sourced, Option<source::Listing>), NavError> {
        let filter = Arc::new(self.filter(&self.options.include)?);
        let walked = source::walk_listed(&self.dir, &self.walk_options(&filter, &[]))?;
        if self.cancelled() {
            return Err(Error::Cancelled.into());
        }
        Ok(walked)
    }

    /// The warm cache's key for `what`, derived from a whole walk of this repository with the
    /// per-file options of `ctx`: the repository's identity (device and inode), every setting
    /// of the call but its budget (all of [`Options`], as its `Debug` spells it, so a setting
    /// added later is in it too; the budget shapes the answer, not what is walked and read),
    /// the operator's depth limit and `ctx`'s options.
    pub fn repo_key(&self, ctx: &FileContext<'_>, what: &str) -> u128 {
        let root = self.dir.stat().ok().map(|st| (st.dev, st.ino));
        let options = Options {
            budget: None,
            ..self.options.clone()
        };
        crate::cache::context_key(&(
            what,
            root,
            format!("{options:?}"),
            self.req.policy.max_depth,
            ctx.context_key(),
        ))
    }

    /// [`Session::walk`], entering only the directory `under` (repo-relative) and the
    /// directories on the way to it, whose ignore files apply.
    pub fn walk_under(&self, under: &[u8]) -> Result<Sourced, NavError> {
        let filter = Arc::new(self.filter(&self.options.include)?);
        let sourced = source::walk(&self.dir, &self.walk_options(&filter, under))?;
        if self.cancelled() {
            return Err(Error::Cancelled.into());
        }
        Ok(sourced)
    }

    /// [`Session::walk`] and [`Session::each_named`] at once: each file goes through the per-file
    /// step and then `f` as soon as the walk finds it, on the walk's threads, so reading overlaps
    /// listing. The walk and each result come back exactly as the two steps give them: the
    /// candidates sorted by path, the results in their order. Progress counts the files done
    /// against those found so far until the walk ends, then against all of them.
    pub fn walk_each_named<R: Send>(
        &self,
        ctx: &FileContext<'_>,
        f: impl Fn(&Candidate, String, Processed) -> R + Sync,
    ) -> Result<(Sourced, Vec<R>), NavError> {
        let filter = Arc::new(self.filter(&self.options.include)?);
        let done = AtomicUsize::new(0);
        let stop = || self.cancelled();
        let each = |c: &Candidate, found: usize| {
            let (shown, processed) = file::process_named(ctx, c);
            let r = f(c, shown, processed);
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            // Done with every file found so far is not done: the walk may find more.
            if let Some(o) = self.req.observer
                && n < found
            {
                o.progress(n, found);
            }
            r
        };
        let opts = self.walk_options(&filter, &[]);
        let (sourced, results) = source::walk_each(&self.dir, &opts, &stop, &each)?;
        let total = sourced.candidates.len();
        if let Some(o) = self.req.observer
            && total > 0
        {
            o.progress(total, total);
        }
        Ok((sourced, results))
    }

    /// The walk's settings as `extract`'s: its ignore files, hidden and filter rules.
    fn walk_options<'o>(&self, filter: &'o Arc<Filter>, under: &'o [u8]) -> WalkOptions<'o> {
        WalkOptions {
            hidden: self.options.hidden,
            no_ignore: self.options.no_ignore,
            filter,
            threads: par::threads(),
            max_depth: self.req.policy.max_depth,
            under,
        }
    }

    /// The filter of the call's walk: `include` (the call's and `.gnawconfig`'s, or none) and
    /// the excludes in force, matched against paths as the answer shows them.
    pub fn filter(&self, include: &[String]) -> Result<Filter, NavError> {
        Ok(Filter::new(include, &self.options.exclude)?.seeing(file::namer(&self.options)?))
    }

    /// Run the per-file step on every candidate in parallel (largest first), reporting progress,
    /// and hand each outcome to `f` on the worker thread. Results come back in input order.
    pub fn each_file<R: Send>(
        &self,
        ctx: &FileContext<'_>,
        candidates: &[Candidate],
        f: impl Fn(&Candidate, Processed) -> R + Sync,
    ) -> Result<Vec<R>, NavError> {
        self.each_named(ctx, candidates, |c, _, p| f(c, p))
    }

    /// [`Session::each_file`], with each file's path as it is shown (a secret in its name
    /// redacted under the policy in force, as in `extract`'s output).
    pub fn each_named<R: Send>(
        &self,
        ctx: &FileContext<'_>,
        candidates: &[Candidate],
        f: impl Fn(&Candidate, String, Processed) -> R + Sync,
    ) -> Result<Vec<R>, NavError> {
        let total = candidates.len();
        let done = AtomicUsize::new(0);
        let order = par::largest_first(candidates, |c| c.size);
        let stop = || self.cancelled();
        par::map(candidates, &order, par::threads(), &stop, |c| {
            let (shown, processed) = file::process_named(ctx, c);
            let r = f(c, shown, processed);
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(o) = self.req.observer {
                o.progress(n, total);
            }
            r
        })
        .ok_or(NavError::Run(Error::Cancelled))
    }
}

/// The request's repository as a root of its own, to prove paths given relative to it. Done
/// before anything in the repository is read.
pub fn repo_root(req: &Request<'_>) -> Result<Root, NavError> {
    req.repo.as_root().map_err(|e| repo_open_error(&e).into())
}

/// A path argument proven inside the repo.
#[derive(Clone, Debug)]
pub struct Proven {
    /// Relative to the repo, resolved (no links, `.` or `..`), raw bytes; empty for the repo.
    pub rel: Vec<u8>,
    /// What the proof saw of it.
    pub stat: Stat,
}

impl Proven {
    pub fn is_dir(&self) -> bool {
        self.stat.kind == FileKind::Dir
    }

    /// The candidate the read stage opens: the proof's own identity, so a file swapped after
    /// the proof is refused at the open.
    pub fn candidate(&self) -> Candidate {
        source::candidate(self.rel.clone(), &self.stat)
    }

    /// Whether it lies inside `.git` (never read).
    pub fn in_git(&self) -> bool {
        self.rel.split(|&b| b == b'/').any(|part| part == b".git")
    }
}

/// Prove the path argument `given` (named `what` in messages, e.g. `paths[2]`) inside the repo
/// `root`, or the `-32602` answer naming why not.
pub fn prove(root: &Root, what: &str, given: &str) -> Result<Proven, NavError> {
    let raw = parse_display(given);
    let contained = match root.contain(OsStr::from_bytes(&raw)) {
        Err(Rejection::NotFound) if given.contains(REDACTION_MARK) => {
            match resolve_shown(root, given) {
                Shown::One(raw) => root.contain(OsStr::from_bytes(&raw)),
                Shown::None => Err(Rejection::NotFound),
                Shown::Ambiguous(n) => {
                    return Err(NavError::argument(
                        ErrorKind::InvalidPath,
                        format!(
                            "{what} {}: {n} entries show as this name (their names differ                              only inside a redacted secret), so it names none of them; reach                              their contents with grep or extract",
                            quote(given)
                        ),
                    ));
                }
            }
        }
        other => other,
    };
    match contained {
        Ok(c) => Ok(Proven {
            rel: c.relative().as_os_str().as_bytes().to_vec(),
            stat: *c.stat(),
        }),
        Err(r) => Err(NavError::argument(
            ErrorKind::from(&r),
            rejected(what, given, &r),
        )),
    }
}

/// What every redaction marker starts with (`[REDACTED:<rule>]`).
const REDACTION_MARK: &str = "[REDACTED:";

/// The entries a shown path names.
enum Shown {
    /// Exactly one: its raw path, relative to the root.
    One(Vec<u8>),
    None,
    /// More than one entry of a directory shows as the same component.
    Ambiguous(usize),
}

/// The raw path whose shown form (escaped, secrets redacted) is `given`: component by
/// component, a component without a redaction marker stands for the bytes it spells; one with
/// a marker names the entry of the directory reached so far whose name shows as it. Only
/// names are chosen here: the caller proves the path found like any other.
fn resolve_shown(root: &Root, given: &str) -> Shown {
    let namer = Namer::redacting();
    let Ok(mut dir) = root.as_dir().open() else {
        return Shown::None;
    };
    let parts: Vec<&str> = given.split('/').filter(|p| !p.is_empty()).collect();
    let mut raw: Vec<u8> = Vec::with_capacity(given.len());
    for (i, part) in parts.iter().enumerate() {
        let name = if part.contains(REDACTION_MARK) {
            let Ok(entries) = dir.entries() else {
                return Shown::None;
            };
            let mut found = entries
                .into_iter()
                .filter(|e| namer.path(e.name.as_bytes()).as_str() == *part);
            let (Some(first), rest) = (found.next(), found.count()) else {
                return Shown::None;
            };
            if rest > 0 {
                return Shown::Ambiguous(rest + 1);
            }
            first.name.as_bytes().to_vec()
        } else {
            parse_display(part)
        };
        if !raw.is_empty() {
            raw.push(b'/');
        }
        raw.extend_from_slice(&name);
        if i + 1 < parts.len() {
            // `..`, `.` and links are the proof's business; here they only stop the search.
            match dir.child_dir(OsStr::from_bytes(&name)) {
                Ok(d) => dir = d,
                Err(_) => return Shown::None,
            }
        }
    }
    if given.ends_with('/') {
        raw.push(b'/');
    }
    Shown::One(raw)
}

/// The message for a refused path argument: only the caller's own input is echoed.
fn rejected(what: &str, given: &str, r: &Rejection) -> String {
    let shown = quote(given);
    match r {
        Rejection::OutsideRoot => format!(
            "{what} {shown} resolves outside the repository; give a path inside it, relative to \
             the repository, as tree and grep show them"
        ),
        Rejection::NotFound => format!(
            "{what} {shown}: no such file or directory in the repository; find paths with tree \
             or grep"
        ),
        Rejection::InvalidPath(why) => format!("{what} {shown} is not a usable path: {why}"),
        Rejection::NotADirectory => format!("{what} {shown} ends with / but is not a directory"),
        Rejection::RootChanged => format!("{what} {shown}: {r}"),
    }
}

/// Quote an argument for a message: escaped, and cut after 200 bytes.
pub fn quote(given: &str) -> String {
    if given.len() > 200 {
        let mut cut = 200;
        while !given.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{:?}… ({} bytes)", &given[..cut], given.len())
    } else {
        format!("{given:?}")
    }
}

/// The bytes a path spelled as [`crate::vocab::display_path`] shows it stand for: the inverse
/// of `display_path` on everything it produces; a backslash that starts no escape it writes is
/// kept as it is.
pub fn parse_display(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        let rest = &s[i + 1..];
        let simple = match rest.as_bytes().first() {
            Some(b'\\') => Some(b'\\'),
            Some(b'n') => Some(b'\n'),
            Some(b'r') => Some(b'\r'),
            Some(b't') => Some(b'\t'),
            _ => None,
        };
        if let Some(byte) = simple {
            out.push(byte);
            i += 2;
            continue;
        }
        if let Some(hex) = rest.strip_prefix('x')
            && hex.len() >= 2
            && hex.as_bytes()[..2].iter().all(u8::is_ascii_hexdigit)
            && let Ok(byte) = u8::from_str_radix(&hex[..2], 16)
        {
            out.push(byte);
            i += 4;
            continue;
        }
        if let Some(body) = rest.strip_prefix("u{")
            && let Some(close) = body.find('}')
            && (1..=6).contains(&close)
            && let Ok(n) = u32::from_str_radix(&body[..close], 16)
            && let Some(c) = char::from_u32(n)
        {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            i += 1 + 2 + close + 1;
            continue;
        }
        out.push(b'\\');
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::display_path;

    #[test]
    fn parse_display_inverts_display_path() {
        let names: [&[u8]; 9] = [
            b"a/b.rs",
            b"nl\nname",
            b"back\\slash",
            b"lit\\nname",
            b"bad\xffname\x80",
            "rlo\u{202e}txt".as_bytes(),
            b"ansi\x1b[31m",
            b"tab\tcr\r",
            "caf\u{e9}/\u{1F600}".as_bytes(),
        ];
        for name in names {
            assert_eq!(parse_display(&display_path(name)), name, "{name:?}");
        }
        // Backslashes that start no escape stand for themselves.
        assert_eq!(parse_display("back\\slash"), b"back\\slash");
        assert_eq!(parse_display("a\\x4"), b"a\\x4");
        assert_eq!(parse_display("a\\u{zz}"), b"a\\u{zz}");
        assert_eq!(parse_display("end\\"), b"end\\");
    }
}
