//! The driver: runs the stages, in order, for one [`ExtractionSpec`]. The CLI and gnaw-mcp both
//! call [`run_extraction`] (or its streaming form, [`run_extraction_to`]) and nothing else.
//!
//! | step | module | what |
//! |---|---|---|
//! | options | `options` | `.gnawconfig` + overrides + the operator's floors; the per-file settings |
//! | source | [`gather`] | walk the repo (the filter prunes inside the walk) or take the path list |
//! | per file | [`gather`], [`file`](mod@file) | cache, read, scan, render and count each file's piece, in parallel |
//! | compress | [`compress`] | skeletons for the files that need them (all, or with a budget only those that do not fit whole) |
//! | plan | [`plan`], `omitted_sums` | rank, then fit the budget (and `max_chars`), measuring every candidate prompt exactly; list what was kept |
//! | assemble | `assemble` | the prompt, in memory or streamed to its destination |
//!
//! [`extraction`] is what a run hands back, and [`summary`] its bounded summary. [`nav`] drives
//! the navigation and code tools (`read`, `grep`, `search`, `outline`, ...) with the same
//! per-file step, and [`git`] the git tools (`changes`, `log`, `hotspots`) over `.git` read
//! in-process; both answer through [`call`]: the request, its settings and proven paths, the
//! arguments, and the answer paged to fit its budget.

pub(crate) mod assemble;
pub mod call;
pub mod compress;
pub mod extraction;
pub mod file;
pub mod gather;
pub mod git;
pub mod nav;
pub(crate) mod omitted_sums;
pub(crate) mod options;
pub mod plan;
pub mod summary;

use crate::error::Error;
use crate::par;
use crate::spec::{ExtractionSpec, Mode};
use crate::stages::count;
use crate::stages::filter::Filter;
use crate::stages::rank::Query;
use assemble::{Frame, Sink, Target};
use extraction::Extraction;
use file::FileContext;
use options::FileOptions;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;

/// Run the whole pipeline for one spec.
pub fn run_extraction(spec: &ExtractionSpec<'_>) -> Result<Extraction, Error> {
    run(spec, Output::Memory).map(|(ex, _)| ex)
}

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
    run(spec, Output::Stream(sink))
}

/// Like [`run_extraction`], but the prompt (in [`Mode::Render`] or [`Mode::RenderUncounted`]) is
/// handed to `sink` part by part (`assemble::Part`: the preamble, each kept file's piece with
/// the text it was rendered from, the epilogue) instead of being kept. The parts are exactly the
/// prompt's pieces; a caller lays them out itself (into several files, or through a template).
pub fn run_extraction_parts<'s>(
    spec: &ExtractionSpec<'_>,
    sink: impl FnMut(assemble::Part<'_>) + 's,
) -> Result<Extraction, Error> {
    let sink: PartsSink<'s> = Box::new(sink);
    run(spec, Output::Parts(sink)).map(|(ex, _)| ex)
}

type PartsSink<'s> = assemble::PartSink<'s>;

/// Where [`run`] sends the prompt it renders.
enum Output<'s> {
    Memory,
    Stream(Sink<'s>),
    Parts(PartsSink<'s>),
}

/// Why the proven repository directory could not be opened (also used by [`nav`]).
pub fn repo_open_error(e: &std::io::Error) -> Error {
    if gnaw_sandbox::is_file_changed(e)
        || matches!(
            e.raw_os_error(),
            Some(libc::ELOOP | libc::EXDEV | libc::ENOTDIR)
        )
    {
        Error::RepoChanged
    } else {
        Error::Io {
            what: "cannot open the repository directory".into(),
            error: e.to_string(),
        }
    }
}

/// The pipeline; the prompt is kept in the extraction, or streamed to `sink`.
fn run<'s>(
    spec: &ExtractionSpec<'_>,
    sink: Output<'s>,
) -> Result<(Extraction, std::io::Result<()>), Error> {
    // options
    let dir = spec.repo.open().map_err(|e| repo_open_error(&e))?;
    let options = options::resolve(&dir, spec)?;
    let counting = spec.mode != Mode::RenderUncounted;
    if !counting && options.budget.is_some() {
        return Err(Error::Usage {
            message: "a token budget needs token counts; drop --no-count or the budget".into(),
        });
    }
    // Not when the cache already holds counts in this encoding (the CLI's rerun, loaded from
    // its disk cache): most counts will be found, and a miss builds the tokenizer then.
    if counting && spec.cache.is_none_or(|c| !c.has_counts(options.encoding)) {
        count::prefetch(options.encoding);
    }
    // A query over its bounds is refused before anything is read.
    let query = spec
        .overrides
        .query
        .as_deref()
        .map(Query::parse)
        .transpose()?;
    let filter =
        Arc::new(Filter::new(&options.include, &options.exclude)?.seeing(file::namer(&options)?));
    let threads = par::threads();
    // Asked between files and inside every long loop after them: ranking, fitting, drawing the
    // tree, counting big parts, assembling.
    let stop = || spec.observer.is_some_and(|o| o.cancelled());

    // source (the filter prunes inside the walk)
    let sourced = gather::source(spec, &dir, &options, &filter, threads)?;
    if stop() {
        return Err(Error::Cancelled);
    }

    // per file: read, scan, render and count every piece, in parallel, largest first.
    let file_options = FileOptions::new(&options, spec, counting);
    let mut ctx = FileContext::new(&dir, &file_options, spec.cache)?;
    // compress without a budget shows most files as skeletons: their full pieces are counted
    // only for the files left whole, after the skeletons are made (not with a warm cache that
    // keeps pieces, whose pieces keep their counts; the CLI's counts-only cache keeps none).
    ctx.defer_count = counting
        && spec.overrides.compress.is_some()
        && options.budget.is_none()
        && spec.cache.is_none_or(|c| !c.keeps_files());
    let gather::Gathered {
        mut kept,
        findings: kept_findings,
        skipped,
        mut left_out,
    } = gather::files(&ctx, sourced, spec.observer, threads, &stop)?;

    // plan: rank, then budget
    // With several roots, the repo is named under its root's name (`sdk/src`), as a `repo`
    // argument spells it; with one, by its own directory name. Either way through the one name
    // renderer, as `tree` names it: escaped, and redacted under the run's secrets mode.
    let repo_name = match spec.repo.shown_name() {
        Some(name) => ctx.namer().path(name.as_bytes()).into_string(),
        None => spec
            .repo
            .contained()
            .path()
            .file_name()
            .map(|n| ctx.namer().path(n.as_bytes()).into_string())
            .unwrap_or_else(|| "/".into()),
    };
    let ranking = plan::rank(&kept, query.as_ref(), &ctx.parse, &stop).ok_or(Error::Cancelled)?;
    // compress: every file that has one gets its skeleton; without a budget it replaces the
    // file, with one it is offered for the files that do not fit whole (the graded budget),
    // and only those are parsed.
    let graded = match (spec.overrides.compress, options.budget) {
        (Some(level), None) => {
            compress::all(&ctx, level, &mut kept, threads, &stop)?;
            None
        }
        (Some(level), Some(b)) => Some(compress::grade(
            &ctx, level, &mut kept, &ranking, b, &repo_name, threads, &stop,
        )?),
        (None, _) => None,
    };
    let m = plan::Measure::new(&ctx, &kept, &repo_name, &stop);
    let max_chars = spec.overrides.max_chars.filter(|&c| c > 0);
    let order = graded.as_deref().unwrap_or(&ranking);
    let width = if spec.overrides.max_chars_json {
        crate::vocab::json_chars
    } else {
        |s: &str| s.chars().count()
    };
    let fitted = plan::fit_chars(&m, options.budget, max_chars.map(|c| (c, width)), order)?;
    let listed = plan::listing(&m, &kept, &fitted, ranking, kept_findings);
    left_out += listed.findings_left_out;
    let frame = Frame::new(&m, &file_options.render, &fitted).ok_or(Error::Cancelled)?;
    drop(m);

    // assemble
    let target = match (spec.mode, sink) {
        (Mode::Estimate, _) => Target::Nowhere,
        (_, Output::Stream(open)) => Target::Stream(open),
        (_, Output::Parts(sink)) => Target::Parts(sink),
        (_, Output::Memory) => Target::Memory,
    };
    let assembled = assemble::assemble(
        frame,
        &file_options.render,
        &fitted,
        kept,
        (target, &repo_name),
        &stop,
    )?;
    let ex = Extraction {
        output: assembled.output,
        tokens: fitted.tokens,
        output_bytes: assembled.output_bytes,
        encoding: options.encoding,
        format: options.format,
        files: listed.files,
        skipped,
        findings: listed.findings,
        findings_left_out: left_out,
        budget: options.budget,
        max_chars,
        omitted: listed.omitted,
        ranking: listed.ranking,
        widenings: ctx.widenings(&options),
        not_parsed: ctx.parse.not_parsed(),
        namer: ctx.namer().clone(),
    };
    Ok((ex, assembled.written))
}
