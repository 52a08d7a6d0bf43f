//! The driver: runs the stages, in order, for one [`ExtractionSpec`]. The CLI and gnaw-mcp both
//! call [`run_extraction`] (or its streaming form, [`run_extraction_to`]) and nothing else.
//!
//! | step | module | what |
//! |---|---|---|
//! | options | [`options`] | `.gnawconfig` + overrides + the operator's floors; the per-file settings |
//! | source | [`crate::stages::source`] | walk the repo (the filter prunes inside the walk) or take the path list |
//! | per file | [`file`] | cache, read, scan, render and count each file's piece, in parallel |
//! | plan | [`plan`] | rank, then fit the budget, measuring every candidate prompt exactly |
//! | assemble | [`assemble`] | the prompt, in memory or streamed to its destination |
//!
//! [`extraction`] is what a run hands back, and [`summary`] its bounded summary. [`nav`] drives
//! the navigation tools (`read`, `grep`, `tree`) with the same per-file step, and [`git`] the
//! git tools (`changes`, `log`) over `.git` read in-process.

pub mod assemble;
pub mod extraction;
pub mod file;
pub mod git;
pub mod nav;
pub mod options;
pub mod plan;
pub mod summary;

use crate::error::Error;
use crate::par;
use crate::spec::{ExtractionSpec, Mode};
use crate::stages::filter::Filter;
use crate::stages::rank::{self, Query};
use crate::stages::source;
use crate::vocab::{Finding, Skipped, display_path};
use assemble::{Frame, Sink, Target};
use extraction::{Extraction, FileEntry, Omitted, Ranked};
use file::FileContext;
use options::FileOptions;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Run the whole pipeline for one spec.
pub fn run_extraction(spec: &ExtractionSpec<'_>) -> Result<Extraction, Error> {
    run(spec, None).map(|(ex, _)| ex)
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
    run(spec, Some(sink))
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
fn run(
    spec: &ExtractionSpec<'_>,
    sink: Option<Sink<'_>>,
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
    let sourced = match &spec.paths {
        None => source::walk(
            &dir,
            &source::WalkOptions {
                hidden: options.hidden,
                no_ignore: options.no_ignore,
                filter: &filter,
                threads,
                max_depth: spec.policy.max_depth,
                under: &[],
            },
        )?,
        Some(paths) => {
            let repo_root = spec.repo.as_root().map_err(|e| repo_open_error(&e))?;
            source::from_list(&repo_root, paths, &filter, spec.overrides.paths_from_git)
                .map_err(|(path, why)| Error::PathRejected { path, why })?
        }
    };
    if stop() {
        return Err(Error::Cancelled);
    }

    // per file: read, scan, render and count every piece on a shared queue, largest first.
    // Pieces are counted here and rendered again at assembly rather than kept: peak memory stays
    // near the file texts plus the output.
    let file_options = FileOptions::new(&options, spec, counting);
    let mut ctx = FileContext::new(&dir, &file_options, spec.cache)?;
    // compress without a budget shows most files as skeletons: their full pieces are counted
    // only for the files left whole, after the skeletons are made (not with the warm cache,
    // whose pieces keep their counts).
    ctx.defer_count =
        counting && spec.overrides.compress && options.budget.is_none() && spec.cache.is_none();
    let candidates = &sourced.candidates;
    let total = candidates.len();
    let done = AtomicUsize::new(0);
    let order = par::largest_first(candidates, |c| c.size);
    let processed = par::map(candidates, &order, threads, &stop, |c| {
        let r = file::process_named(&ctx, c);
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(o) = spec.observer {
            o.progress(n, total);
        }
        r
    })
    .ok_or(Error::Cancelled)?;
    // Paths skipped by the walk are shown under the same rule for secrets in names.
    let mut skipped: Vec<Skipped> = sourced
        .skipped
        .into_iter()
        .filter_map(|s| match file::shown_path(&ctx, s.path) {
            (Some(path), _) => Some(Skipped { path, ..s }),
            (None, _) => None,
        })
        .collect();
    let mut kept = Vec::new();
    // Each kept file's findings (by kept index); findings of skipped files are only counted.
    let mut kept_findings: Vec<Vec<Finding>> = Vec::new();
    let mut left_out = 0;
    for (path, (r, found)) in processed {
        match r {
            Ok(body) => {
                kept.push((path, body));
                kept_findings.push(found);
            }
            Err(reason) => {
                left_out += found.len();
                skipped.push(Skipped { path, reason });
            }
        }
    }
    source::out_of_fds_error(&skipped).map_or(Ok(()), Err)?;
    skipped.sort_by(|a, b| a.path.cmp(&b.path));

    // plan: rank, then budget
    // With several roots, the repo is named under its root's name (`sdk/src`), as a `repo`
    // argument spells it; with one, by its own directory name.
    let repo_name = match spec.repo.shown_name() {
        Some(name) => display_path(name.as_bytes()),
        None => spec
            .repo
            .contained()
            .path()
            .file_name()
            .map(|n| display_path(n.as_bytes()))
            .unwrap_or_else(|| "/".into()),
    };
    let ranking = plan::rank(&kept, query.as_ref(), &ctx.parse, &stop).ok_or(Error::Cancelled)?;
    // compress: every file that has one gets its skeleton; without a budget it replaces the
    // file, with one it is offered for the files that do not fit whole (the graded budget),
    // and only those are parsed.
    if spec.overrides.compress && options.budget.is_none() {
        let all: Vec<usize> = (0..kept.len()).collect();
        for (i, s) in skeletons(&ctx, &kept, &all, threads, &stop)? {
            if let Some(s) = s {
                kept[i].1 = s;
            }
        }
        if ctx.defer_count {
            // The files left whole: their pieces, measured now, in parallel.
            let whole: Vec<usize> = (0..kept.len())
                .filter(|&i| !kept[i].1.is_skeleton())
                .collect();
            let order = par::largest_first(&whole, |&i| kept[i].1.bytes);
            let measured = par::map(&whole, &order, threads, &stop, |&i| {
                let (path, body) = &kept[i];
                file::measure_piece(&ctx, path, body)
            })
            .ok_or(Error::Cancelled)?;
            for (&i, (tokens, len)) in whole.iter().zip(measured) {
                kept[i].1.tokens = tokens;
                kept[i].1.piece_len = len;
            }
        }
    }
    let graded = match options.budget {
        Some(b) if spec.overrides.compress => Some(grade(
            &ctx, &mut kept, &ranking, b, &repo_name, threads, &stop,
        )?),
        _ => None,
    };
    let m = plan::Measure::new(&ctx, &kept, &repo_name, &stop);
    let max_chars = spec.overrides.max_chars.filter(|&c| c > 0);
    let order = graded.as_deref().unwrap_or(&ranking);
    let fitted = plan::fit_chars(&m, options.budget, max_chars, order)?;
    let last = fitted.kept.last().copied();
    let files = fitted
        .kept
        .iter()
        .map(|&i| FileEntry {
            path: kept[i].0.clone(),
            bytes: kept[i].1.bytes,
            tokens: if Some(i) == last {
                m.last_tokens(i)
            } else {
                m.piece_tokens(i)
            },
            lossy: kept[i].1.lossy,
            skeleton: kept[i].1.is_skeleton(),
        })
        .collect();
    let omitted = fitted
        .omitted
        .iter()
        .map(|&i| Omitted {
            path: kept[i].0.clone(),
            tokens: m.piece_tokens(i),
        })
        .collect();
    let ranking = ranking
        .into_iter()
        .map(|(i, score)| Ranked {
            path: kept[i].0.clone(),
            score,
        })
        .collect();
    // Findings are described only for files in the prompt; the rest are counted.
    let mut in_prompt = vec![false; kept.len()];
    for &i in &fitted.kept {
        in_prompt[i] = true;
    }
    let mut findings = Vec::new();
    for (i, found) in kept_findings.into_iter().enumerate() {
        if in_prompt[i] {
            findings.extend(found);
        } else {
            left_out += found.len();
        }
    }
    findings.sort_by(|a, b| (&a.path, a.line, a.rule).cmp(&(&b.path, b.line, b.rule)));
    let frame = Frame::new(&m, &file_options.render, &fitted).ok_or(Error::Cancelled)?;
    drop(m);

    // assemble
    let target = match (spec.mode, sink) {
        (Mode::Estimate, _) => Target::Nowhere,
        (_, Some(open)) => Target::Stream(open),
        (_, None) => Target::Memory,
    };
    let assembled = assemble::assemble(frame, &file_options.render, &fitted, kept, target, &stop)?;
    let ex = Extraction {
        output: assembled.output,
        tokens: fitted.tokens,
        output_bytes: assembled.output_bytes,
        encoding: options.encoding,
        format: options.format,
        files,
        skipped,
        findings,
        findings_left_out: left_out,
        budget: options.budget,
        max_chars,
        omitted,
        ranking,
        widenings: ctx.widenings(&options),
        not_parsed: ctx.parse.not_parsed(),
    };
    Ok((ex, assembled.written))
}

/// The skeletons of the kept files `which` (indices into `kept`), made in parallel, largest
/// first: each index with its skeleton, `None` for a file without one.
fn skeletons(
    ctx: &FileContext<'_>,
    kept: &[(String, file::Body)],
    which: &[usize],
    threads: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<(usize, Option<file::Body>)>, Error> {
    let order = par::largest_first(which, |&i| kept[i].1.bytes);
    par::map(which, &order, threads, stop, |&i| {
        let (path, body) = &kept[i];
        (i, file::skeleton_of(ctx, path, body, stop))
    })
    .ok_or(Error::Cancelled)
}

/// The graded budget's order (`compress` with a budget). Walking the ranking, each file is
/// taken whole when its estimate fits what is left, else as its skeleton when that fits, else
/// left for the omitted section (as its skeleton, the smaller, should the exact fit find room).
/// The files taken come first, in rank order, then the rest; the budget stage then fits that
/// order exactly, measuring every candidate prompt, so the estimates here only decide which
/// form each file is offered in.
///
/// A file taken whole is never parsed. At the first file that does not fit whole, every later
/// file too big to fit whole in what is left then (which only shrinks) is parsed, in parallel;
/// a later file that might still fit whole is parsed only if, when its turn comes, it does not.
fn grade(
    ctx: &FileContext<'_>,
    kept: &mut [(String, file::Body)],
    ranking: &[(usize, rank::Score)],
    budget: usize,
    repo_name: &str,
    threads: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<(usize, rank::Score)>, Error> {
    let base = plan::Measure::new(ctx, kept, repo_name, stop)
        .measure(&[], &crate::vocab::OmittedView::default(), usize::MAX)
        .ok_or(Error::Cancelled)?;
    let path_tokens: Vec<usize> = kept.iter().map(|(p, _)| ctx.count(p)).collect();
    // Room for the omitted section (collapsed by directory past a fifth of the budget), and a
    // little for what estimates miss.
    let omitted_lines: usize = path_tokens.iter().map(|t| t + 6).sum();
    let reserve = omitted_lines.min(budget / 5) + 32 + budget / 50;
    let mut left = budget.saturating_sub(base + reserve);
    let mut taken = vec![false; kept.len()];
    // Skeletons made ahead, by kept index; `made[i]` says whether file i's was asked for.
    let mut ahead: Vec<Option<file::Body>> = (0..kept.len()).map(|_| None).collect();
    let mut made = vec![false; kept.len()];
    let mut missed = false;
    for (at, &(i, _)) in ranking.iter().enumerate() {
        if stop() {
            return Err(Error::Cancelled);
        }
        // Its piece and its line in the tree.
        let line = path_tokens[i] + 3;
        let whole = kept[i].1.tokens + line;
        if whole <= left {
            left -= whole;
            taken[i] = true;
            continue;
        }
        if !made[i] {
            // The first miss: parse, at once, every later file that cannot fit whole any more.
            let mut batch = vec![i];
            if !missed {
                missed = true;
                batch.extend(
                    ranking[at + 1..]
                        .iter()
                        .map(|&(j, _)| j)
                        .filter(|&j| kept[j].1.tokens + path_tokens[j] + 3 > left),
                );
            }
            for (j, s) in skeletons(ctx, kept, &batch, threads, stop)? {
                made[j] = true;
                ahead[j] = s;
            }
        }
        if let Some(s) = ahead[i].take() {
            let cost = s.tokens + line;
            if cost <= left {
                left -= cost;
                taken[i] = true;
            }
            kept[i].1 = s;
        }
    }
    Ok(ranking
        .iter()
        .filter(|(i, _)| taken[*i])
        .chain(ranking.iter().filter(|(i, _)| !taken[*i]))
        .cloned()
        .collect())
}
