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
//! [`run_extraction`] and nothing else.

pub mod cli;
pub mod config;
pub mod count;
pub mod error;
pub mod extraction;
pub mod filter;
pub mod mcp;
pub mod par;
pub mod read;
pub mod render;
pub mod scan;
pub mod source;
pub mod spec;

pub use error::Error;
pub use extraction::{Extraction, FileEntry, SkipReason, Skipped};
pub use spec::{ExtractionSpec, Mode, Observer, Overrides, Policy};

use config::Options;
use filter::Filter;
use gnaw_sandbox::{BeneathDir, Root};
use read::ReadOptions;
use render::{FileView, RenderOptions};
use std::io::Read as _;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Run the whole pipeline for one spec. The CLI and gnaw-mcp both call this and nothing else.
pub fn run_extraction(spec: &ExtractionSpec<'_>) -> Result<Extraction, Error> {
    let repo = spec.repo.contained().path();
    let dir = spec
        .repo
        .open()
        .map_err(|e| Error::Io(format!("cannot open the repository directory: {e}")))?;
    let options = resolve_options(&dir, spec)?;
    let filter = Arc::new(Filter::new(&options.include, &options.exclude).map_err(Error::Config)?);
    let threads = par::threads();
    let stop = || spec.observer.is_some_and(|o| o.cancelled());

    // source
    let sourced = match &spec.paths {
        None => source::walk(
            repo,
            &dir,
            &source::WalkOptions {
                hidden: options.hidden,
                no_ignore: options.no_ignore,
                filter: &filter,
                threads,
            },
        ),
        Some(paths) => {
            let root = Root::new(repo, true).map_err(|e| Error::Io(e.to_string()))?;
            source::from_list(&root, paths, &filter)
                .map_err(|(path, why)| Error::PathRejected { path, why })?
        }
    };
    if stop() {
        return Err(Error::Cancelled);
    }

    // read (and scan), on a shared queue, largest first
    let ropts = ReadOptions {
        max_file_size: options.max_file_size,
        follow_links: options.follow_links,
        skip_hard_links: spec.policy.skip_hard_links,
    };
    let candidates = &sourced.candidates;
    let total = candidates.len();
    let done = AtomicUsize::new(0);
    let order = par::largest_first(candidates, |c| c.size);
    let read = par::map(candidates, &order, threads, &stop, |c| {
        let r = read::read(&dir, c, &ropts);
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(o) = spec.observer {
            o.progress(n, total);
        }
        r
    })
    .ok_or(Error::Cancelled)?;

    let mut skipped = sourced.skipped;
    let mut kept = Vec::new();
    for (c, r) in candidates.iter().zip(read) {
        let path = render::display_path(&c.rel);
        match r {
            Ok(text) => kept.push((path, text)),
            Err(reason) => skipped.push(Skipped { path, reason }),
        }
    }
    skipped.sort_by(|a, b| a.path.cmp(&b.path));

    // render and count, piece by piece
    let ropts = RenderOptions {
        format: options.format,
        line_numbers: options.line_numbers,
        tree: options.tree,
    };
    let repo_name = repo
        .file_name()
        .map(|n| render::display_path(n.as_bytes()))
        .unwrap_or_else(|| "/".into());
    let paths: Vec<&str> = kept.iter().map(|(p, _)| p.as_str()).collect();
    let preamble = render::preamble(&ropts, &repo_name, &paths);
    let epilogue = render::epilogue(&ropts);
    let last = kept.len().checked_sub(1);
    let indices: Vec<usize> = (0..kept.len()).collect();
    let order = par::largest_first(&kept, |(_, t)| t.bytes);
    let keep_text = spec.mode == Mode::Render;
    let pieces = par::map(&indices, &order, threads, &stop, |&i| {
        let (path, t) = &kept[i];
        let view = FileView {
            path,
            text: &t.text,
            lossy: t.lossy,
        };
        let piece = render::file_piece(&ropts, &view, Some(i) == last);
        let tokens = count::count(options.encoding, &piece);
        (tokens, piece.len(), keep_text.then_some(piece))
    })
    .ok_or(Error::Cancelled)?;

    let head_tokens = count::count(options.encoding, &preamble);
    let tail_tokens = count::count(options.encoding, &epilogue);
    let tokens = head_tokens + tail_tokens + pieces.iter().map(|p| p.0).sum::<usize>();
    let output_bytes = preamble.len() + epilogue.len() + pieces.iter().map(|p| p.1).sum::<usize>();
    let files = kept
        .iter()
        .zip(&pieces)
        .map(|((path, t), (tok, _, _))| FileEntry {
            path: path.clone(),
            bytes: t.bytes,
            tokens: *tok,
            lossy: t.lossy,
        })
        .collect();
    let output = keep_text.then(|| {
        let mut out = String::with_capacity(output_bytes);
        out.push_str(&preamble);
        for (_, _, piece) in &pieces {
            out.push_str(piece.as_deref().unwrap_or_default());
        }
        out.push_str(&epilogue);
        out
    });
    Ok(Extraction {
        output,
        tokens,
        output_bytes,
        encoding: options.encoding,
        format: options.format,
        files,
        skipped,
        findings: Vec::new(),
    })
}

/// `.gnawconfig` (read beneath the repo, bounded, without following a link out) layered over the
/// surface's defaults, then the spec's overrides, then the operator's floors.
pub fn resolve_options(dir: &BeneathDir, spec: &ExtractionSpec<'_>) -> Result<Options, Error> {
    let base = Options {
        secrets: spec.policy.secrets_default,
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
            config::parse(&text, base).map_err(Error::Config)?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => base,
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
    Ok(options)
}
