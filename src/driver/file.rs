//! The driver's per-file step: for one candidate, take the warm cache's piece or read, keep
//! sensitive files out, scan for secrets, and render and count the file's piece. Runs on every
//! worker thread; returns the kept body or why the file is skipped, and the secrets found
//! either way.

use super::options::FileOptions;
use crate::cache::{self, Cache};
use crate::error::Error;
use crate::stages::{count, filter, read, render, scan};
use crate::vocab::{Candidate, EntryKind, Finding, SecretsMode, SkipReason, Text, display_path};
use gnaw_sandbox::BeneathDir;
use render::FileView;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;

/// What every file's step shares: the settings, and what is compiled from them once per run.
pub struct FileContext<'a> {
    pub dir: &'a BeneathDir,
    pub options: &'a FileOptions,
    allow: scan::Allow,
    explicit: globset::GlobSet,
    pub cache: Option<&'a Cache>,
    /// The cache key of `options` (see [`cache::context_key`]).
    context: u128,
}

impl<'a> FileContext<'a> {
    /// Compile the allow list and the explicit includes of `options`.
    pub fn new(
        dir: &'a BeneathDir,
        options: &'a FileOptions,
        cache: Option<&'a Cache>,
    ) -> Result<FileContext<'a>, Error> {
        filter::check_glob_list(&options.secrets_allow_paths, "secrets.allow_paths")?;
        let allow = scan::Allow::new(
            &options.secrets_allow_paths,
            options.secrets_allow_fingerprints.iter().cloned(),
        )
        .map_err(|e| Error::Glob {
            source: "secrets.allow_paths".into(),
            pattern: e.glob.clone(),
            why: e.error.kind().to_string(),
        })?;
        Ok(FileContext {
            dir,
            options,
            allow,
            explicit: explicit_includes(&options.config_include)?,
            cache,
            context: cache::context_key(options),
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
pub struct Body {
    pub bytes: u64,
    pub lossy: bool,
    pub text: BodyText,
    pub tokens: usize,
    pub piece_len: usize,
}

/// A kept file's text.
pub enum BodyText {
    /// The file's text as read (and as cached).
    Shared(Arc<Text>),
    /// The scan's copy, with secrets replaced.
    Redacted(String),
}

impl std::ops::Deref for BodyText {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            BodyText::Shared(t) => &t.text,
            BodyText::Redacted(s) => s,
        }
    }
}

/// What the step makes of one candidate: the body or why it is skipped, and its findings.
pub type Processed = (Result<Body, SkipReason>, Vec<Finding>);

/// Read (or take from the cache), keep sensitive files out, scan, and render and count one
/// candidate's piece. On a warm cache hit for an unchanged file nothing but one lookup is done
/// (and a scan again for a redacted file, to rebuild its text).
pub fn process(ctx: &FileContext<'_>, c: &Candidate) -> Processed {
    let path = display_path(&c.rel);
    let explicit = || ctx.explicit.is_match(std::ffi::OsStr::from_bytes(&c.rel));
    if let Some(what) = scan::sensitive_file(&path, None)
        && !explicit()
    {
        return (Err(SkipReason::Sensitive { what }), Vec::new());
    }
    let read_opts = &ctx.options.read;
    let key = (c.kind == EntryKind::File).then_some(cache::FileKey {
        dev: c.dev,
        ino: c.ino,
        size: c.size,
        mtime_ns: c.mtime_ns,
        ctime_ns: c.ctime_ns,
        max_file_size: read_opts.max_file_size,
        skip_hard_links: read_opts.skip_hard_links,
    });
    if let (Some(cache), Some(key)) = (ctx.cache, &key) {
        match cache.piece(key, ctx.context, &path) {
            Some(Err(reason)) => return (Err(reason), Vec::new()),
            Some(Ok((text, piece))) => {
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
        let fresh: cache::ReadOutcome = read::read(ctx.dir, c, read_opts).map(Arc::new);
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
    let (kept, findings) = scan_text(ctx, &path, text, explicit);
    let result = kept.map(|(text, bytes, lossy)| {
        let piece = render::file_piece(
            &ctx.options.render,
            &FileView {
                path: &path,
                text: &text,
                lossy,
            },
            false,
        );
        Body {
            bytes,
            lossy,
            tokens: ctx.count(&piece),
            piece_len: piece.len(),
            text,
        }
    });
    if let (Some(cache), Some(key)) = (ctx.cache, &key) {
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
    let (bytes, lossy) = (text.bytes, text.lossy);
    let body_text = if info.redacted {
        match scan::scan(&text.text, path, ctx.options.secrets, &ctx.allow) {
            scan::Scanned::Redacted { text, .. } => BodyText::Redacted(text),
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
type ScannedText = (BodyText, u64, bool);

/// Keep a sensitive file out (by its content) and scan the text for secrets: the text to render
/// with its size and lossiness, or why the file is skipped; and the findings either way.
fn scan_text(
    ctx: &FileContext<'_>,
    path: &str,
    text: Arc<Text>,
    explicit: impl Fn() -> bool,
) -> (Result<ScannedText, SkipReason>, Vec<Finding>) {
    if let Some(what) = scan::sensitive_file(path, Some(text.text.as_bytes()))
        && !explicit()
    {
        return (Err(SkipReason::Sensitive { what }), Vec::new());
    }
    let (bytes, lossy) = (text.bytes, text.lossy);
    let kept = |text| Ok((text, bytes, lossy));
    let secrets = ctx.options.secrets;
    if secrets == SecretsMode::Off || ctx.allow.allows_path(path) {
        return (kept(BodyText::Shared(text)), Vec::new());
    }
    match scan::scan(&text.text, path, secrets, &ctx.allow) {
        scan::Scanned::Clean(_) => (kept(BodyText::Shared(text)), Vec::new()),
        scan::Scanned::Warned { findings, .. } => {
            (kept(BodyText::Shared(Arc::clone(&text))), findings)
        }
        scan::Scanned::Redacted { text, findings } => (kept(BodyText::Redacted(text)), findings),
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
