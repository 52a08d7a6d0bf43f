//! gnaw turns a source repository into one LLM-ready prompt: a directory tree and every
//! file's contents, with an exact token count.
//!
//! The pipeline's stages are modules, run in this order by [`run_extraction`]:
//!
//! | stage | module | job |
//! |---|---|---|
//! | source | [`source`] | walk the repo (or take paths from stdin), honouring ignore files inside it only |
//! | filter | [`filter`] | apply `.gnawconfig` and CLI include/exclude globs |
//! | read | [`read`] | open regular files beneath the repo, bounded, and decide text or binary |
//! | scan | [`scan`] | find secrets and redact or block them before anything is counted |
//! | count | [`count`] | exact tiktoken counts, in parallel, of the rendered pieces |
//! | render | [`render`] | markdown, xml or json, byte-identical for the same input |
//!
//! [`config`] resolves `.gnawconfig` plus overrides into [`config::Options`]; [`spec`] holds what a
//! caller asks for and [`extraction`] what it gets back. Both `gnaw` and `gnaw-mcp` call
//! [`run_extraction`] (or its streaming form, [`run_extraction_to`]) and nothing else.

pub mod budget;
pub mod cache;
pub mod cli;
pub mod config;
pub mod count;
pub mod error;
pub mod extraction;
pub mod filter;
pub mod mcp;
pub mod par;
pub mod rank;
pub mod read;
pub mod render;
pub mod scan;
pub mod source;
pub mod spec;

pub use error::Error;
pub use extraction::{Extraction, FileEntry, Omitted, Ranked, SkipReason, Skipped};
pub use spec::{ExtractionSpec, Mode, Observer, Overrides, Policy};

use config::Options;
use filter::Filter;
use gnaw_sandbox::BeneathDir;
use read::ReadOptions;
use render::{FileView, RenderOptions};
use std::io::{Read as _, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Why the proven repository directory could not be opened, for a person.
fn repo_open_error(e: &std::io::Error) -> Error {
    if gnaw_sandbox::is_file_changed(e)
        || matches!(
            e.raw_os_error(),
            Some(libc::ELOOP | libc::EXDEV | libc::ENOTDIR)
        )
    {
        Error::Io(
            "the repository directory was moved or replaced while it was being opened \
             (a concurrent rename?); nothing was read; try again"
                .into(),
        )
    } else {
        Error::Io(format!("cannot open the repository directory: {e}"))
    }
}

/// Run the whole pipeline for one spec. The CLI and gnaw-mcp both call this (or
/// [`run_extraction_to`]) and nothing else.
pub fn run_extraction(spec: &ExtractionSpec<'_>) -> Result<Extraction, Error> {
    run(spec, None).map(|(ex, _)| ex)
}

/// Opens the writer a streamed prompt goes to.
type Sink<'s> = Box<dyn FnOnce() -> std::io::Result<Box<dyn Write + 's>> + 's>;

/// Like [`run_extraction`], but the prompt (in [`Mode::Render`] or [`Mode::RenderUncounted`]) is
/// written to the writer `open` returns instead of being kept, and `Extraction::output` is
/// `None`. `open` is called only once the prompt is fully decided, so a failed run creates
/// nothing. Each file's text is dropped as soon as its piece is written: peak memory is the file
/// texts, not the texts plus the prompt. The second value is the outcome of opening and writing
/// (`Ok` when nothing was to be written, in [`Mode::Estimate`]).
pub fn run_extraction_to<'s, W: Write + 's>(
    spec: &ExtractionSpec<'_>,
    open: impl FnOnce() -> std::io::Result<W> + 's,
) -> Result<(Extraction, std::io::Result<()>), Error> {
    let sink: Sink<'s> = Box::new(move || open().map(|w| Box::new(w) as Box<dyn Write + 's>));
    run(spec, Some(sink))
}

/// The pipeline; the prompt is kept in the extraction, or streamed to `sink`.
fn run(
    spec: &ExtractionSpec<'_>,
    sink: Option<Sink<'_>>,
) -> Result<(Extraction, std::io::Result<()>), Error> {
    let repo = spec.repo.contained().path();
    let dir = spec.repo.open().map_err(|e| repo_open_error(&e))?;
    let options = resolve_options(&dir, spec)?;
    let filter = Arc::new(Filter::new(&options.include, &options.exclude).map_err(Error::Config)?);
    let threads = par::threads();
    let stop = || spec.observer.is_some_and(|o| o.cancelled());

    // source
    let sourced = match &spec.paths {
        None => source::walk(
            &dir,
            &source::WalkOptions {
                hidden: options.hidden,
                no_ignore: options.no_ignore,
                filter: &filter,
                threads,
            },
        ),
        Some(paths) => {
            let repo_root = spec.repo.as_root().map_err(|e| repo_open_error(&e))?;
            source::from_list(&repo_root, paths, &filter)
                .map_err(|(path, why)| Error::PathRejected { path, why })?
        }
    };
    if stop() {
        return Err(Error::Cancelled);
    }

    // read and scan, on a shared queue, largest first
    let ropts_read = ReadOptions {
        max_file_size: options.max_file_size,
        follow_links: options.follow_links,
        skip_hard_links: spec.policy.skip_hard_links,
    };
    let allow = scan::Allow::new(
        &options.secrets_allow_paths,
        options.secrets_allow_fingerprints.iter().cloned(),
    )
    .map_err(|e| Error::Config(format!("{}: {e}", config::CONFIG_FILE)))?;
    let explicit = explicit_includes(&options.config_include)?;
    let ropts = RenderOptions {
        format: options.format,
        line_numbers: options.line_numbers,
        tree: options.tree,
    };
    let enc = options.encoding;
    let keep_text = spec.mode != Mode::Estimate;
    let counting = spec.mode != Mode::RenderUncounted;
    if !counting && options.budget.is_some() {
        return Err(Error::Config(
            "a token budget needs token counts; drop --no-count or the budget".into(),
        ));
    }
    // Everything besides the file itself and its path that shapes what is derived from it.
    let context = cache::context_key(&format!(
        "{:?}",
        (
            (ropts.format, ropts.line_numbers, enc, counting),
            (options.secrets, &options.secrets_allow_paths),
            (&options.secrets_allow_fingerprints, &options.config_include),
        )
    ));
    let ctx = FileContext {
        dir: &dir,
        read: ropts_read,
        secrets: options.secrets,
        allow: &allow,
        explicit: &explicit,
        cache: spec.cache,
        render: &ropts,
        enc,
        counting,
        context,
    };
    let candidates = &sourced.candidates;
    let total = candidates.len();
    let done = AtomicUsize::new(0);
    let order = par::largest_first(candidates, |c| c.size);
    // Read, scan, render and count every file's piece, on the shared queue, largest first.
    // Pieces are counted here and rendered again at assembly rather than kept: peak memory stays
    // near the file texts plus the output.
    let processed = par::map(candidates, &order, threads, &stop, |c| {
        let r = process_file(&ctx, c);
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(o) = spec.observer {
            o.progress(n, total);
        }
        r
    })
    .ok_or(Error::Cancelled)?;

    let mut skipped = sourced.skipped;
    let mut kept = Vec::new();
    let mut findings = Vec::new();
    for (c, (r, found)) in candidates.iter().zip(processed) {
        let path = render::display_path(&c.rel);
        findings.extend(found);
        match r {
            Ok(body) => kept.push((path, body)),
            Err(reason) => skipped.push(Skipped { path, reason }),
        }
    }
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    findings.sort_by(|a, b| (&a.path, a.line, a.rule).cmp(&(&b.path, b.line, b.rule)));

    // rank
    let docs: Vec<rank::Doc<'_>> = kept
        .iter()
        .map(|(path, t)| rank::Doc {
            path,
            text: &t.text,
        })
        .collect();
    let ranking = rank::rank(&docs, spec.overrides.query.as_deref());
    drop(docs);

    let count = |text: &str| match (counting, spec.cache) {
        (false, _) => 0,
        (true, Some(cache)) => cache.count(enc, text),
        (true, None) => count::count(enc, text),
    };
    let view_of = |i: usize| FileView {
        path: &kept[i].0,
        text: &kept[i].1.text,
        lossy: kept[i].1.lossy,
    };
    let indices: Vec<usize> = (0..kept.len()).collect();
    let piece_tokens: Vec<usize> = kept.iter().map(|(_, b)| b.tokens).collect();

    // budget: choose what is kept, measuring every candidate prompt exactly
    let repo_name = repo
        .file_name()
        .map(|n| render::display_path(n.as_bytes()))
        .unwrap_or_else(|| "/".into());
    let paths: Vec<&str> = kept.iter().map(|(p, _)| p.as_str()).collect();
    let epilogue = render::epilogue(&ropts);
    let tail_tokens = count(&epilogue);
    // Only json's last piece differs (no trailing comma); its count is memoized per file.
    let last_memo = std::sync::Mutex::new(std::collections::HashMap::new());
    let last_tokens = |i: usize| -> usize {
        if ropts.format != config::Format::Json {
            return piece_tokens[i];
        }
        let mut memo = last_memo.lock().unwrap_or_else(|p| p.into_inner());
        *memo
            .entry(i)
            .or_insert_with(|| count(&render::file_piece(&ropts, &view_of(i), true)))
    };
    let measure = |kept_ix: &[usize], view: &budget::OmittedView| -> usize {
        let kept_paths: Vec<&str> = kept_ix.iter().map(|&i| paths[i]).collect();
        let head = render::preamble(&ropts, &repo_name, &kept_paths, view);
        let body: usize = kept_ix.iter().map(|&i| piece_tokens[i]).sum();
        let last_fix = kept_ix.last().map_or(0, |&l| last_tokens(l)) as isize
            - kept_ix.last().map_or(0, |&l| piece_tokens[l]) as isize;
        (count(&head) + body + tail_tokens).saturating_add_signed(last_fix)
    };
    let ranked: Vec<usize> = ranking.iter().map(|(i, _)| *i).collect();
    let plan = match options.budget {
        None => {
            let all: Vec<usize> = indices.clone();
            let view = budget::OmittedView::default();
            let tokens = measure(&all, &view);
            budget::Plan {
                kept: all,
                omitted: Vec::new(),
                view,
                tokens,
            }
        }
        Some(b) => budget::fit(b, &ranked, &paths, &piece_tokens, &measure, &|i| {
            count(paths[i]) + 2
        })
        .map_err(Error::Budget)?,
    };

    // assemble
    let kept_paths: Vec<&str> = plan.kept.iter().map(|&i| paths[i]).collect();
    let preamble = render::preamble(&ropts, &repo_name, &kept_paths, &plan.view);
    drop(kept_paths);
    let last = plan.kept.last().copied();
    // Only json's last piece differs from the one measured (no trailing comma).
    let last_piece = last
        .filter(|_| ropts.format == config::Format::Json)
        .map(|l| render::file_piece(&ropts, &view_of(l), true));
    let body_bytes: usize = plan
        .kept
        .iter()
        .map(|&i| match (&last_piece, Some(i) == last) {
            (Some(p), true) => p.len(),
            _ => kept[i].1.piece_len,
        })
        .sum();
    let output_bytes = preamble.len() + body_bytes + epilogue.len();
    let files = plan
        .kept
        .iter()
        .map(|&i| FileEntry {
            path: kept[i].0.clone(),
            bytes: kept[i].1.bytes,
            tokens: if Some(i) == last {
                last_tokens(i)
            } else {
                piece_tokens[i]
            },
            lossy: kept[i].1.lossy,
        })
        .collect();
    let omitted = plan
        .omitted
        .iter()
        .map(|&i| Omitted {
            path: kept[i].0.clone(),
            tokens: piece_tokens[i],
        })
        .collect();
    let ranking = ranking
        .into_iter()
        .map(|(i, score)| Ranked {
            path: kept[i].0.clone(),
            score,
        })
        .collect();
    // The output is built at its exact size (or streamed), and each file's text is dropped as
    // soon as its piece is in: the texts shrink as the output grows.
    let mut texts: Vec<Option<(String, Body)>> = if keep_text {
        kept.into_iter().map(Some).collect()
    } else {
        Vec::new()
    };
    let mut pieces = plan.kept.iter().filter_map(|&i| {
        let (path, body) = texts.get_mut(i)?.take()?;
        let view = FileView {
            path: &path,
            text: &body.text,
            lossy: body.lossy,
        };
        Some(match (&last_piece, Some(i) == last) {
            (Some(p), true) => p.clone(),
            _ => render::file_piece(&ropts, &view, false),
        })
    });
    let mut written = Ok(());
    let output = match sink {
        _ if !keep_text => None,
        Some(open) => {
            written = (|| {
                let mut w = std::io::BufWriter::with_capacity(1 << 20, open()?);
                w.write_all(preamble.as_bytes())?;
                for p in pieces.by_ref() {
                    w.write_all(p.as_bytes())?;
                }
                w.write_all(epilogue.as_bytes())?;
                w.flush()
            })();
            None
        }
        None => {
            let mut out = String::with_capacity(output_bytes);
            out.push_str(&preamble);
            for p in pieces.by_ref() {
                out.push_str(&p);
            }
            out.push_str(&epilogue);
            debug_assert_eq!(out.len(), output_bytes);
            Some(out)
        }
    };
    let ex = Extraction {
        output,
        tokens: plan.tokens,
        output_bytes,
        encoding: enc,
        format: options.format,
        files,
        skipped,
        findings,
        budget: options.budget,
        omitted,
        ranking,
    };
    Ok((ex, written))
}

/// What every file's read, scan, render and count step shares.
struct FileContext<'a> {
    dir: &'a BeneathDir,
    read: ReadOptions,
    secrets: config::SecretsMode,
    allow: &'a scan::Allow,
    explicit: &'a globset::GlobSet,
    cache: Option<&'a cache::Cache>,
    render: &'a RenderOptions,
    enc: count::Encoding,
    counting: bool,
    /// The cache key of everything above that shapes a piece (see [`cache::context_key`]).
    context: u128,
}

/// A kept file: its text (shared with the cache, or the scan's redacted copy) and its piece's
/// exact token count and length.
struct Body {
    bytes: u64,
    lossy: bool,
    text: BodyText,
    tokens: usize,
    piece_len: usize,
}

enum BodyText {
    Shared(Arc<read::Text>),
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

/// Read (or take from the cache), keep sensitive files out, scan, and render and count one
/// candidate's piece. Returns the body or why it is skipped, and the secrets found either way.
/// On a warm cache hit for an unchanged file nothing but one lookup is done (and a scan again
/// for a redacted file, to rebuild its text).
fn process_file(
    ctx: &FileContext<'_>,
    c: &source::Candidate,
) -> (Result<Body, SkipReason>, Vec<scan::Finding>) {
    let path = render::display_path(&c.rel);
    let explicit = || ctx.explicit.is_match(std::ffi::OsStr::from_bytes(&c.rel));
    if let Some(what) = scan::sensitive_file(&path, None)
        && !explicit()
    {
        return (Err(SkipReason::Sensitive { what }), Vec::new());
    }
    let key = (c.kind == source::EntryKind::File).then_some(cache::FileKey {
        dev: c.dev,
        ino: c.ino,
        size: c.size,
        mtime_ns: c.mtime_ns,
        ctime_ns: c.ctime_ns,
        max_file_size: ctx.read.max_file_size,
        skip_hard_links: ctx.read.skip_hard_links,
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
        let fresh: cache::ReadOutcome = read::read(ctx.dir, c, &ctx.read).map(Arc::new);
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
            ctx.render,
            &FileView {
                path: &path,
                text: &text,
                lossy,
            },
            false,
        );
        let tokens = match (ctx.counting, ctx.cache) {
            (false, _) => 0,
            (true, Some(cache)) => cache.count(ctx.enc, &piece),
            (true, None) => count::count(ctx.enc, &piece),
        };
        Body {
            bytes,
            lossy,
            tokens,
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
    text: Arc<read::Text>,
    piece: &cache::Piece,
) -> Option<(Result<Body, SkipReason>, Vec<scan::Finding>)> {
    let info = match &piece.outcome {
        Ok(info) => info,
        Err(reason) => return Some((Err(reason.clone()), piece.findings.clone())),
    };
    let (bytes, lossy) = (text.bytes, text.lossy);
    let body_text = if info.redacted {
        match scan::scan(&text.text, path, ctx.secrets, ctx.allow) {
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

/// Keep a sensitive file out (by its content) and scan the text for secrets: the text to render
/// with its size and lossiness, or why the file is skipped; and the findings either way.
#[allow(clippy::type_complexity)]
fn scan_text(
    ctx: &FileContext<'_>,
    path: &str,
    text: Arc<read::Text>,
    explicit: impl Fn() -> bool,
) -> (
    Result<(BodyText, u64, bool), SkipReason>,
    Vec<scan::Finding>,
) {
    if let Some(what) = scan::sensitive_file(path, Some(text.text.as_bytes()))
        && !explicit()
    {
        return (Err(SkipReason::Sensitive { what }), Vec::new());
    }
    let (bytes, lossy) = (text.bytes, text.lossy);
    let kept = |text| Ok((text, bytes, lossy));
    if ctx.secrets == config::SecretsMode::Off || ctx.allow.allows_path(path) {
        return (kept(BodyText::Shared(text)), Vec::new());
    }
    match scan::scan(&text.text, path, ctx.secrets, ctx.allow) {
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
    filter::compile(&narrow, "include").map_err(Error::Config)
}

/// `.gnawconfig` (read beneath the repo, bounded, without following a link out) layered over the
/// surface's defaults, then the spec's overrides, then the operator's floors.
pub fn resolve_options(dir: &BeneathDir, spec: &ExtractionSpec<'_>) -> Result<Options, Error> {
    let base = Options {
        secrets: spec.policy.secrets_default,
        budget: spec.policy.budget_default,
        ..Options::default()
    };
    let from_file = match dir.open_file(Path::new(config::CONFIG_FILE), true) {
        Ok(file) => {
            let meta = file
                .metadata()
                .map_err(|e| Error::Io(format!("cannot read {}: {e}", config::CONFIG_FILE)))?;
            if !meta.is_file() {
                return Err(Error::Config(format!(
                    "{} is not a regular file; remove it or replace it with a TOML file",
                    config::CONFIG_FILE
                )));
            }
            let mut text = String::new();
            file.take(config::MAX_CONFIG_BYTES + 1)
                .read_to_string(&mut text)
                .map_err(|e| {
                    Error::Config(format!(
                        "cannot read {} as UTF-8 text: {e}",
                        config::CONFIG_FILE
                    ))
                })?;
            if text.len() as u64 > config::MAX_CONFIG_BYTES {
                return Err(Error::Config(format!(
                    "{} is larger than {} bytes; it should be a short TOML file",
                    config::CONFIG_FILE,
                    config::MAX_CONFIG_BYTES
                )));
            }
            config::parse(&text, base, spec.overrides.profile.as_deref()).map_err(Error::Config)?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match &spec.overrides.profile {
            Some(p) => {
                return Err(Error::Config(config::unknown_profile(
                    p,
                    std::iter::empty(),
                )));
            }
            None => base,
        },
        Err(e) if e.kind() == std::io::ErrorKind::CrossesDevices => {
            return Err(Error::Config(format!(
                "{} is a link to a file outside the repository; it was not read",
                config::CONFIG_FILE
            )));
        }
        Err(e) => {
            return Err(Error::Io(format!(
                "cannot open {}: {e}",
                config::CONFIG_FILE
            )));
        }
    };
    let mut options = config::apply_overrides(from_file, &spec.overrides);
    options.secrets = options.secrets.max(spec.policy.secrets_floor);
    if let Some(cap) = spec.policy.max_file_size_cap
        && options.max_file_size > cap
    {
        log::warn!(
            "max_file_size {} from {} is above the operator's ceiling; using {cap}",
            options.max_file_size,
            config::CONFIG_FILE
        );
        options.max_file_size = cap;
    }
    Ok(options)
}
