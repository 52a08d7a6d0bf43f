//! The driver's per-file step: for one candidate, take the warm cache's piece or read, keep
//! sensitive files out, scan for secrets, and render and count the file's piece. Runs on every
//! worker thread; returns the kept body or why the file is skipped, and the secrets found
//! either way.
//!
//! A followed link is checked by its target too: the read stage names the target (its path
//! relative to the repo, proven to be the opened file), and the target must pass what its own
//! path would have to: not a sensitive file, not inside `.git`, not hidden unless `hidden`, and,
//! in a walk that honours ignore files, a file the walk lists by its own path (so not ignored).
//! That last check walks the repo once more, unfiltered, the first time a link is followed.
//!
//! A sensitive file that `.gnawconfig`'s includes name is brought back only when the policy
//! allows it; either way it is recorded, and [`FileContext::widenings`] reports it.
//!
//! A search (grep) sets [`FileContext::prefilter`]: a file whose text is shown as it is read and
//! holds none of the pattern's required literals is kept as [`BodyText::Unmatched`], without being
//! scanned or rendered; its outcome (kept, or left out as sensitive) is the one the full step
//! gives. A text is shown as read in `off` and `warn` modes, on an allowed path, and in `redact`
//! and `block` modes when it holds no keyword of any secret rule (then it scans clean). A text
//! that may hold a secret always goes the full way, and the pattern is never run on it before
//! its scan: the work done on it does not depend on whether the pattern would match the secret.
//! Whether a text holds a keyword is worked out once per text and kept with it
//! ([`Text::has_keyword`]), so a warm call does not look through the cached texts again; it
//! depends on the text alone, never on the pattern.

use super::options::FileOptions;
use crate::cache::{self, Cache};
use crate::error::Error;
use crate::gnawconfig::{Options, Secrets, Widening};
use crate::par::lock;
use crate::spec::Widen;
use crate::stages::filter::Filter;
use crate::stages::grep::Prefilter;
use crate::stages::name::{Namer, ShownName};
use crate::stages::{count, filter, read, render, scan, source, syntax};
use crate::vocab::{Candidate, Compress, EntryKind, Finding, SecretsMode, SkipReason, Text};
use gnaw_sandbox::{BeneathDir, Root};
use render::FileView;
use std::collections::BTreeSet;
use std::os::unix::ffi::OsStrExt;
use std::sync::{Arc, Mutex, OnceLock};

/// How many sensitive files a report names before it only counts the rest.
const NAMED_FILES: usize = 10;

/// What every file's step shares: the settings, and what is compiled from them once per run.
pub struct FileContext<'a> {
    /// The root, opened: every file is opened beneath it.
    pub dir: &'a BeneathDir,
    /// The per-file settings of this run.
    pub options: &'a FileOptions,
    allow: scan::Allow,
    /// How every name this run shows is rendered (escaped, secrets handled by the mode).
    namer: Namer,
    explicit: globset::GlobSet,
    /// The warm cache, when the caller keeps one.
    pub cache: Option<&'a Cache>,
    /// The cache key of `options` (see [`cache::context_key`]).
    context: u128,
    /// The repo as a [`Root`], to name a followed link's target; made at the first link.
    repo: OnceLock<Result<Root, String>>,
    /// Every file an unfiltered walk lists (sorted): what ignore files and `hidden` let in.
    /// Made at the first link whose target must pass the ignore rules.
    listed: OnceLock<Vec<Vec<u8>>>,
    /// Sensitive files that `.gnawconfig`'s includes named, brought back or refused.
    reincluded: Mutex<BTreeSet<String>>,
    /// The parse budget of this call, shared by every file it parses.
    pub parse: syntax::ParseBudget,
    /// A search's prefilter: files it proves hold no match are kept unscanned and unrendered
    /// (see the module's doc). `None` for everything but grep.
    pub prefilter: Option<&'a Prefilter>,
    /// The caller drops every finding (grep): in `warn` mode, where the scan changes no text
    /// and no name, neither the text nor the name is scanned.
    pub findings_unused: bool,
    /// Kept files' pieces are neither rendered nor counted here (tokens and length 0): the
    /// caller measures the ones it keeps with [`measure_piece`]. `extract --compress` without a
    /// budget and without the warm cache sets it: most files are then shown as skeletons, and
    /// their full pieces were counted for nothing. Never set with a cache, whose pieces must
    /// hold their counts.
    pub defer_count: bool,
}

impl<'a> FileContext<'a> {
    /// Compile the allow list and the explicit includes of `options`.
    pub fn new(
        dir: &'a BeneathDir,
        options: &'a FileOptions,
        cache: Option<&'a Cache>,
    ) -> Result<FileContext<'a>, Error> {
        let allow = allow_list(&options.secrets)?;
        Ok(FileContext {
            dir,
            options,
            namer: Namer::new(options.secrets.mode, allow.clone()),
            allow,
            explicit: explicit_includes(&options.config_include)?,
            cache,
            context: cache::context_key(options),
            repo: OnceLock::new(),
            listed: OnceLock::new(),
            reincluded: Mutex::new(BTreeSet::new()),
            parse: syntax::ParseBudget::default(),
            prefilter: None,
            findings_unused: false,
            defer_count: false,
        })
    }

    /// What the warm cache knows `c` by: what the walk's `lstat` saw and the read options;
    /// `None` for anything but a regular file (a followed link is read afresh every time).
    pub fn cache_key(&self, c: &Candidate) -> Option<cache::FileKey> {
        let read_opts = &self.options.read;
        (c.kind == EntryKind::File).then_some(cache::FileKey {
            dev: c.dev,
            ino: c.ino,
            size: c.size,
            mtime_ns: c.mtime_ns,
            ctime_ns: c.ctime_ns,
            max_file_size: read_opts.max_file_size,
            skip_hard_links: read_opts.skip_hard_links,
        })
    }

    /// The cache key of this run's per-file options (what shapes a file's shown text).
    pub fn context_key(&self) -> u128 {
        self.context
    }

    /// The renderer of every name this run shows.
    pub fn namer(&self) -> &Namer {
        &self.namer
    }

    /// What the repo's config widened in this run: the settings `super::options::resolve`
    /// found, and the sensitive files its includes named, in [`Widen`] order.
    pub fn widenings(&self, options: &Options) -> Vec<Widening> {
        let mut all = options.widenings.clone();
        let files = lock(&self.reincluded);
        if !files.is_empty() {
            let mut named: Vec<&str> = files.iter().take(NAMED_FILES).map(String::as_str).collect();
            let more = files.len() - named.len();
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            named.sort_unstable();
            all.push(Widening {
                key: options.key_of("include"),
                widen: Widen::SensitiveInclude,
                what: format!(
                    "{}: {}{more}",
                    Widen::SensitiveInclude.effect(),
                    named.join(", ")
                ),
                refused: !self.options.sensitive_include,
            });
        }
        all.sort_by_key(|w| w.widen);
        all
    }

    /// Why the sensitive file at `rel` (shown as `path`) is left out, or `None` when it is not
    /// sensitive, or when `.gnawconfig` names it and the policy lets it come back.
    fn sensitive(&self, rel: &[u8], path: &str, content: Option<&[u8]>) -> Option<SkipReason> {
        let what = scan::sensitive_file(path, content)?;
        if !self.names(rel) {
            return Some(SkipReason::Sensitive { what });
        }
        lock(&self.reincluded).insert(path.to_string());
        (!self.options.sensitive_include).then_some(SkipReason::Sensitive { what })
    }

    /// Whether `.gnawconfig`'s includes name `rel` explicitly.
    fn names(&self, rel: &[u8]) -> bool {
        !self.explicit.is_empty() && self.explicit.is_match(std::ffi::OsStr::from_bytes(rel))
    }

    /// The repo as a [`Root`], proven to be the directory this run opened.
    fn repo(&self) -> Result<&Root, SkipReason> {
        let made = self.repo.get_or_init(|| {
            let root = Root::new(self.dir.path(), true).map_err(|e| e.to_string())?;
            let opened = self.dir.stat().map_err(|e| e.to_string())?;
            let again = *root.as_dir().contained().stat();
            if (opened.dev, opened.ino) != (again.dev, again.ino) {
                return Err("the repository directory was moved or replaced".into());
            }
            Ok(root)
        });
        made.as_ref().map_err(|e| SkipReason::Unreadable {
            error: format!("cannot resolve the link's target: {e}"),
        })
    }

    /// Why a followed link's `target` is left out, or `None` when it passes what its own path
    /// would have to.
    fn check_target(&self, target: &[u8]) -> Option<SkipReason> {
        let shown = self.namer.path(target).into_string();
        let mut parts = target.split(|&b| b == b'/');
        if parts.clone().any(|p| p == b".git") {
            return Some(SkipReason::Sensitive {
                what: "inside .git",
            });
        }
        if let Some(reason) = self.sensitive(target, &shown, None) {
            return Some(reason);
        }
        let checks = self.options.targets;
        if !checks.hidden && parts.any(|p| p.starts_with(b".")) {
            return Some(SkipReason::Symlink {
                detail: "target is hidden or inside a hidden directory (pass --hidden to read it)",
            });
        }
        if checks.ignore_rules
            && self
                .listed()
                .binary_search_by(|p| p.as_slice().cmp(target))
                .is_err()
        {
            return Some(SkipReason::Symlink {
                detail: "target is left out by .gitignore, .ignore or .git/info/exclude \
                         (pass --no-ignore to read it)",
            });
        }
        None
    }

    /// Every file a walk of the repo lists with this run's `hidden`, honouring ignore files,
    /// with no include or exclude patterns.
    fn listed(&self) -> &[Vec<u8>] {
        self.listed.get_or_init(|| {
            let Ok(everything) = Filter::new(&[], &[]) else {
                return Vec::new();
            };
            let sourced = source::walk(
                self.dir,
                &source::WalkOptions {
                    hidden: self.options.targets.hidden,
                    no_ignore: false,
                    filter: &Arc::new(everything),
                    threads: crate::par::threads(),
                    max_depth: self.options.targets.max_depth,
                    under: &[],
                },
            );
            // Sorted by path, without duplicates. A walk that fails lists nothing, so every
            // target is refused rather than let through unchecked.
            sourced
                .map(|s| s.candidates.into_iter().map(|c| c.rel).collect())
                .unwrap_or_default()
        })
    }

    /// Count `text` exactly (0 when not counting), through the cache when there is one.
    pub fn count(&self, text: &str) -> usize {
        match (self.options.counting, self.cache) {
            (false, _) => 0,
            (true, Some(cache)) => cache.count(self.options.encoding, text, || {
                count::count(self.options.encoding, text)
            }),
            (true, None) => count::count(self.options.encoding, text),
        }
    }
}

/// A kept file: its text (shared with the cache, or the scan's redacted copy) and its piece's
/// exact token count and length.
#[derive(Clone)]
pub struct Body {
    /// The size of the text served: the file's, or for a file with a secret redacted, its
    /// redacted text's (the original's would tell the secrets' lengths).
    pub bytes: u64,
    /// The file was not valid UTF-8 and was decoded lossily.
    pub lossy: bool,
    /// The text served.
    pub text: BodyText,
    /// Exact token count of the file's piece (header, contents and fence).
    pub tokens: usize,
    /// The piece's length in bytes.
    pub piece_len: usize,
}

/// A kept file's text.
#[derive(Clone)]
pub enum BodyText {
    /// The file's text as read (and as cached).
    Shared(Arc<Text>),
    /// The scan's copy, with secrets replaced.
    Redacted(String),
    /// The skeleton of the scanned text (`extract --compress`), see [`skeleton_of`].
    Skeleton(String),
    /// A file the context's [`Prefilter`] proved to hold no match, neither in its text nor in
    /// its text as shown: never scanned or rendered, and no text is kept (it reads as empty).
    Unmatched,
}

impl Body {
    /// Whether the text is the file's skeleton.
    pub fn is_skeleton(&self) -> bool {
        matches!(self.text, BodyText::Skeleton(_))
    }
}

/// The skeleton at `level` of a kept file (`extract --compress`): its scanned text with the
/// bodies of its functions and methods elided and its comments as the level keeps them
/// ([`syntax::skeleton`]), rendered and counted as its piece. `None` when the file has no
/// grammar, is past a parse bound, or the level changes nothing in it: then the file is shown
/// in full. With the warm cache, the skeleton of a text parsed before (by the hash of its
/// language, the level and the text) is taken from it, and the file is not parsed again.
pub fn skeleton_of(
    ctx: &FileContext<'_>,
    path: &str,
    full: &Body,
    level: Compress,
    stop: &dyn Fn() -> bool,
) -> Option<Body> {
    let lang = syntax::Language::detect(path.as_bytes())?;
    // Each level is its own entry: the level is hashed with the language.
    let id = ctx
        .cache
        .map(|_| cache::skeleton_id(&(lang, level), &full.text));
    let cached = match (ctx.cache, id) {
        (Some(cache), Some(id)) => cache.skeleton(id),
        _ => None,
    };
    let text: String = match cached {
        Some(skeleton) => skeleton?.to_string(),
        None => {
            let made = make_skeleton(ctx, lang, level, &full.text, stop)?;
            if let (Some(cache), Some(id)) = (ctx.cache, id) {
                cache.put_skeleton(id, made.as_deref().map(Arc::from));
            }
            made?
        }
    };
    let piece = render::file_piece(
        &ctx.options.render,
        &FileView {
            path,
            text: &text,
            lossy: full.lossy,
            skeleton: true,
        },
        false,
    );
    Some(Body {
        bytes: full.bytes,
        lossy: full.lossy,
        tokens: ctx.count(&piece),
        piece_len: piece.len(),
        text: BodyText::Skeleton(text),
    })
}

/// Parse `text` and make its skeleton at `level`: `Some(None)` when it parsed and the level
/// changes nothing in it (a pure outcome of the text, worth caching), `None` when the parse was
/// stopped by a bound or a cancellation (not to be cached).
fn make_skeleton(
    ctx: &FileContext<'_>,
    lang: syntax::Language,
    level: Compress,
    text: &str,
    stop: &dyn Fn() -> bool,
) -> Option<Option<String>> {
    let extras = level != Compress::Docs;
    let found = syntax::found_of(lang, text, &ctx.parse, extras, stop).ok()?;
    let skeleton = syntax::skeleton(text, &found, level);
    Some((skeleton != text).then_some(skeleton))
}

impl std::ops::Deref for BodyText {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            BodyText::Shared(t) => &t.text,
            BodyText::Redacted(s) | BodyText::Skeleton(s) => s,
            BodyText::Unmatched => "",
        }
    }
}

/// What the step makes of one candidate: the body or why it is skipped, and its findings.
pub type Processed = (Result<Body, SkipReason>, Vec<Finding>);

/// The allow list of the secrets scan, from `secrets.allow_paths` and
/// `secrets.allow_fingerprints`.
pub fn allow_list(secrets: &Secrets) -> Result<scan::Allow, Error> {
    filter::check_glob_list(&secrets.allow_paths, "secrets.allow_paths")?;
    scan::Allow::new(
        &secrets.allow_paths,
        secrets.allow_fingerprints.iter().cloned(),
    )
    .map_err(|e| Error::Glob {
        source: "secrets.allow_paths".into(),
        pattern: e.glob.clone(),
        why: e.error.kind().to_string(),
    })
}

/// The renderer of names under `options`' secrets mode and allow list: what the walk's filter
/// matches globs against, before any file is read.
pub fn namer(options: &Options) -> Result<Namer, Error> {
    Ok(Namer::new(
        options.secrets.mode,
        allow_list(&options.secrets)?,
    ))
}

/// How the path `rel` is shown under the run's secrets mode (see [`Namer`]).
pub fn shown_name(ctx: &FileContext<'_>, rel: &[u8]) -> ShownName {
    ctx.namer.path(rel)
}

/// How a path the walk already escaped (a skipped entry's) is shown: `None` when `block` mode
/// leaves the entry out.
pub fn shown_path(ctx: &FileContext<'_>, display: String) -> (Option<String>, Vec<Finding>) {
    let shown = ctx.namer.escaped(display);
    let blocked = shown.is_blocked();
    let (text, findings) = shown.into_parts();
    ((!blocked).then_some(text), findings)
}

/// [`process`], after the path itself is scanned (issue 12: secrets in names): the path as it
/// is shown everywhere (tree, headings, omitted list, findings), the outcome, and the findings
/// of the name and the content.
pub fn process_named(ctx: &FileContext<'_>, c: &Candidate) -> (String, Processed) {
    let shown = if ctx.findings_unused && ctx.options.secrets.mode == SecretsMode::Warn {
        // Warn mode shows a name as it is: its scan would only give findings, which the caller
        // drops (and it compiles the rules a name wakes, megabytes of a short run's memory).
        Namer::new(SecretsMode::Off, scan::Allow::default()).path(&c.rel)
    } else {
        ctx.namer.path(&c.rel)
    };
    let blocked = shown.is_blocked();
    let (path, mut found) = shown.into_parts();
    if blocked {
        return (path, (Err(SkipReason::Secret), found));
    }
    let (result, mut more) = process(ctx, c, &path);
    // In warn mode the name is shown as it is, but a finding never holds a secret: the content's
    // findings name the redacted form too.
    if let Some(redacted) = found.first().map(|f| f.path.clone()) {
        for f in more.iter_mut().filter(|f| f.path != redacted) {
            f.fingerprint = format!("{redacted}:{}:{}", f.rule, f.line);
            f.path = redacted.clone();
        }
    }
    found.extend(more);
    (path, (result, found))
}

/// Read (or take from the cache), keep sensitive files out, scan, and render and count one
/// candidate's piece. On a warm cache hit for an unchanged file nothing but one lookup is done
/// (and a scan again for a redacted file, to rebuild its text).
pub fn process(ctx: &FileContext<'_>, c: &Candidate, path: &str) -> Processed {
    let path = path.to_string();
    if let Some(reason) = ctx.sensitive(&c.rel, &path, None) {
        return (Err(reason), Vec::new());
    }
    if c.kind == EntryKind::Symlink && ctx.options.read.follow_links {
        return process_link(ctx, c, &path);
    }
    let key = ctx.cache_key(c);
    if let Some(hit) = prefiltered_warm(ctx, &c.rel, &path, key.as_ref()) {
        return hit;
    }
    if let (Some(cache), Some(key)) = (ctx.cache, &key) {
        match cache.piece(key, ctx.context, &path) {
            Some(Err(reason)) => {
                if matches!(reason, SkipReason::Sensitive { .. }) && ctx.names(&c.rel) {
                    lock(&ctx.reincluded).insert(path.clone());
                }
                return (Err(reason), Vec::new());
            }
            Some(Ok((text, piece))) => {
                if ctx.names(&c.rel) {
                    // Only to record a sensitive file brought back; the outcome is cached.
                    let _ = ctx.sensitive(&c.rel, &path, Some(text.text.as_bytes()));
                }
                // A piece not redacted is the file's text as read.
                if let (Some(pf), Ok(info)) = (ctx.prefilter, &piece.outcome)
                    && !info.redacted
                    && !pf.may_match(text.text.as_bytes())
                {
                    return (Ok(unmatched(&text)), piece.findings.clone());
                }
                if let Some(hit) = from_piece(ctx, &path, text, &piece) {
                    return hit;
                }
            }
            None => {}
        }
    }
    let cached = match (ctx.cache, &key) {
        (Some(cache), Some(key)) => cache.file(key),
        _ => None,
    };
    let outcome = cached.unwrap_or_else(|| {
        let fresh: cache::ReadOutcome = read::read(ctx.dir, c, &ctx.options.read).map(Arc::new);
        if let (Some(cache), Some(key)) = (ctx.cache, key)
            && !cache::is_racy(key.mtime_ns.max(key.ctime_ns))
        {
            cache.put_file(key, &fresh);
        }
        fresh
    });
    let text = match outcome {
        Ok(t) => t,
        Err(reason) => return (Err(reason), Vec::new()),
    };
    if let Some(hit) = prefiltered(ctx, &c.rel, &path, &text) {
        return hit;
    }
    let (kept, findings) = scan_text(ctx, &c.rel, &path, text);
    let result = kept.map(|kept| body(ctx, &path, kept));
    // A piece made without the scan holds no findings: it is not one to share.
    let scanned = !(ctx.findings_unused && ctx.options.secrets.mode == SecretsMode::Warn);
    if let (Some(cache), Some(key), true) = (ctx.cache, &key, scanned) {
        let piece = cache::Piece {
            outcome: result
                .as_ref()
                .map(|b| cache::PieceInfo {
                    redacted: matches!(b.text, BodyText::Redacted(_)),
                    tokens: b.tokens,
                    len: b.piece_len,
                })
                .map_err(Clone::clone),
            findings: findings.clone(),
        };
        cache.put_piece(key, ctx.context, &path, piece);
    }
    (result, findings)
}

/// A followed link (never cached): open its target, check the target's path, read it, and
/// check the text under both names before the scan.
fn process_link(ctx: &FileContext<'_>, c: &Candidate, path: &str) -> Processed {
    let link = match ctx
        .repo()
        .and_then(|repo| read::open_link(ctx.dir, repo, &c.rel))
    {
        Ok(link) => link,
        Err(reason) => return (Err(reason), Vec::new()),
    };
    if let Some(reason) = ctx.check_target(&link.target) {
        return (Err(reason), Vec::new());
    }
    let text = match read::read_opened(link.file, &ctx.options.read) {
        Ok(text) => text,
        Err(reason) => return (Err(reason), Vec::new()),
    };
    let shown = ctx.namer.path(&link.target).into_string();
    if let Some(reason) = ctx.sensitive(&link.target, &shown, Some(text.text.as_bytes())) {
        return (Err(reason), Vec::new());
    }
    let (kept, findings) = scan_text(ctx, &c.rel, path, Arc::new(text));
    (kept.map(|kept| body(ctx, path, kept)), findings)
}

/// A file the context's prefilter proves to hold no match, from the `text` read: kept as
/// [`BodyText::Unmatched`] (or left out as a sensitive file, as the full step would), unscanned.
/// `None` when it must go the full way: it may match, or its text may hold a secret that the
/// scan would redact or block (then the pattern is not run on it here).
fn prefiltered(ctx: &FileContext<'_>, rel: &[u8], path: &str, text: &Text) -> Option<Processed> {
    let pf = ctx.prefilter?;
    let shown_as_read = matches!(
        ctx.options.secrets.mode,
        SecretsMode::Off | SecretsMode::Warn
    ) || ctx.allow.allows_path(path)
        || !text.has_keyword(scan::has_keyword);
    if !shown_as_read || pf.may_match(text.text.as_bytes()) {
        return None;
    }
    if let Some(reason) = ctx.sensitive(rel, path, Some(text.text.as_bytes())) {
        return Some((Err(reason), Vec::new()));
    }
    Some((Ok(unmatched(text)), Vec::new()))
}

/// [`prefiltered`] on the warm cache's text of the file, if it holds it: no piece is looked up
/// (none is made for a file the prefilter passes over).
fn prefiltered_warm(
    ctx: &FileContext<'_>,
    rel: &[u8],
    path: &str,
    key: Option<&cache::FileKey>,
) -> Option<Processed> {
    ctx.prefilter?;
    let text = ctx.cache?.file(key?)?.ok()?;
    prefiltered(ctx, rel, path, &text)
}

/// The body of a file a prefilter proved to hold no match.
fn unmatched(text: &Text) -> Body {
    Body {
        bytes: text.bytes,
        lossy: text.lossy,
        text: BodyText::Unmatched,
        tokens: 0,
        piece_len: 0,
    }
}

/// Render and count a kept file's piece.
fn body(ctx: &FileContext<'_>, path: &str, (text, bytes, lossy): ScannedText) -> Body {
    let mut body = Body {
        bytes,
        lossy,
        tokens: 0,
        piece_len: 0,
        text,
    };
    if !ctx.defer_count {
        (body.tokens, body.piece_len) = measure_piece(ctx, path, &body);
    }
    body
}

/// Render a kept file's piece: its exact token count and length (taken by the per-file step,
/// unless [`FileContext::defer_count`] leaves it to the caller).
pub fn measure_piece(ctx: &FileContext<'_>, path: &str, body: &Body) -> (usize, usize) {
    let piece = render::file_piece(
        &ctx.options.render,
        &FileView {
            path,
            text: &body.text,
            lossy: body.lossy,
            skeleton: body.is_skeleton(),
        },
        false,
    );
    (ctx.count(&piece), piece.len())
}

/// A warm hit: the cached piece with the file's cached text. `None` if the redacted text cannot
/// be rebuilt as it was (then the file goes the cold way).
fn from_piece(
    ctx: &FileContext<'_>,
    path: &str,
    text: Arc<Text>,
    piece: &cache::Piece,
) -> Option<Processed> {
    let info = match &piece.outcome {
        Ok(info) => info,
        Err(reason) => return Some((Err(reason.clone()), piece.findings.clone())),
    };
    let (mut bytes, lossy) = (text.bytes, text.lossy);
    let body_text = if info.redacted {
        match scan::scan(&text.text, path, ctx.options.secrets.mode, &ctx.allow) {
            scan::Scanned::Redacted { text, .. } => {
                bytes = text.len() as u64;
                BodyText::Redacted(text)
            }
            _ => return None,
        }
    } else {
        BodyText::Shared(text)
    };
    let body = Body {
        bytes,
        lossy,
        text: body_text,
        tokens: info.tokens,
        piece_len: info.len,
    };
    Some((Ok(body), piece.findings.clone()))
}

/// A scanned text to render, with its size and lossiness.
pub type ScannedText = (BodyText, u64, bool);

/// Keep a sensitive file out (by its content) and scan the text for secrets: the text to render
/// with its size and lossiness, or why the file is skipped; and the findings either way.
pub fn scan_text(
    ctx: &FileContext<'_>,
    rel: &[u8],
    path: &str,
    text: Arc<Text>,
) -> (Result<ScannedText, SkipReason>, Vec<Finding>) {
    if let Some(reason) = ctx.sensitive(rel, path, Some(text.text.as_bytes())) {
        return (Err(reason), Vec::new());
    }
    let (bytes, lossy) = (text.bytes, text.lossy);
    let kept = |text| Ok((text, bytes, lossy));
    let secrets = ctx.options.secrets.mode;
    if secrets == SecretsMode::Off
        || (secrets == SecretsMode::Warn && ctx.findings_unused)
        || ctx.allow.allows_path(path)
    {
        return (kept(BodyText::Shared(text)), Vec::new());
    }
    match scan::scan(&text.text, path, secrets, &ctx.allow) {
        scan::Scanned::Clean(_) => (kept(BodyText::Shared(text)), Vec::new()),
        scan::Scanned::Warned { findings, .. } => {
            (kept(BodyText::Shared(Arc::clone(&text))), findings)
        }
        // The size of what is served: the original's would tell the secrets' lengths.
        scan::Scanned::Redacted { text, findings } => {
            let served = text.len() as u64;
            (Ok((BodyText::Redacted(text), served, lossy)), findings)
        }
        scan::Scanned::Blocked { findings } => (Err(SkipReason::Secret), findings),
    }
}

/// The `.gnawconfig` include patterns that can bring a sensitive file back in: the operator's
/// own, and only those that name something narrower than everything (`*`, `**`).
fn explicit_includes(config_include: &[String]) -> Result<globset::GlobSet, Error> {
    let narrow: Vec<String> = config_include
        .iter()
        .filter(|p| {
            let last = p.trim_end_matches('/').rsplit('/').next().unwrap_or("");
            !matches!(last, "" | "*" | "**")
        })
        .cloned()
        .collect();
    filter::compile(&narrow, "include")
}
