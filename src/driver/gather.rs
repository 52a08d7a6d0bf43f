//! The pipeline's first steps: which paths a run considers (the walk, pruned by the filter as it
//! goes, or the explicit list), then the per-file step over every one of them, in parallel,
//! largest first, with progress and cancellation: what is kept, what is skipped and why (a
//! skipped path shown under the same rule for secrets in names as every other), and each kept
//! file's findings.

use super::file::{self, Body, FileContext};
use super::repo_open_error;
use crate::error::Error;
use crate::gnawconfig::Options;
use crate::par;
use crate::spec::{ExtractionSpec, Observer};
use crate::stages::filter::Filter;
use crate::stages::source::{self, Sourced};
use crate::vocab::{Finding, Skipped};
use gnaw_sandbox::BeneathDir;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The paths a run considers: the repo walked (the filter prunes inside the walk), or the
/// spec's explicit list, each proven inside the repo.
pub fn source(
    spec: &ExtractionSpec<'_>,
    dir: &BeneathDir,
    options: &Options,
    filter: &Arc<Filter>,
    threads: usize,
) -> Result<Sourced, Error> {
    match &spec.paths {
        None => source::walk(
            dir,
            &source::WalkOptions {
                hidden: options.hidden,
                no_ignore: options.no_ignore,
                filter,
                threads,
                max_depth: spec.policy.max_depth,
                under: &[],
            },
        ),
        Some(paths) => {
            let repo_root = spec.repo.as_root().map_err(|e| repo_open_error(&e))?;
            source::from_list(&repo_root, paths, filter, spec.overrides.paths_from_git)
                .map_err(|(path, why)| Error::PathRejected { path, why })
        }
    }
}

/// What the per-file step made of the sourced paths.
pub struct Gathered {
    /// The readable files, in path order: display path and body.
    pub kept: Vec<(String, Body)>,
    /// Each kept file's findings, by kept index.
    pub findings: Vec<Vec<Finding>>,
    /// The paths left out, in path order, each with its reason.
    pub skipped: Vec<Skipped>,
    /// Findings in skipped files: counted, not described.
    pub left_out: usize,
}

/// Read, scan, render and count every sourced file's piece on a shared queue, largest first.
/// Pieces are counted here and rendered again at assembly rather than kept: peak memory stays
/// near the file texts plus the output.
pub fn files(
    ctx: &FileContext<'_>,
    sourced: Sourced,
    observer: Option<&dyn Observer>,
    threads: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Gathered, Error> {
    let candidates = &sourced.candidates;
    let total = candidates.len();
    let done = AtomicUsize::new(0);
    let order = par::largest_first(candidates, |c| c.size);
    let processed = par::map(candidates, &order, threads, stop, |c| {
        let r = file::process_named(ctx, c);
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(o) = observer {
            o.progress(n, total);
        }
        r
    })
    .ok_or(Error::Cancelled)?;
    // Paths skipped by the walk are shown under the same rule for secrets in names.
    let mut skipped: Vec<Skipped> = sourced
        .skipped
        .into_iter()
        .filter_map(|s| match file::shown_path(ctx, s.path) {
            (Some(path), _) => Some(Skipped { path, ..s }),
            (None, _) => None,
        })
        .collect();
    let mut kept = Vec::new();
    let mut findings: Vec<Vec<Finding>> = Vec::new();
    let mut left_out = 0;
    for (path, (r, found)) in processed {
        match r {
            Ok(body) => {
                kept.push((path, body));
                findings.push(found);
            }
            Err(reason) => {
                left_out += found.len();
                skipped.push(Skipped { path, reason });
            }
        }
    }
    source::out_of_fds_error(&skipped).map_or(Ok(()), Err)?;
    skipped.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(Gathered {
        kept,
        findings,
        skipped,
        left_out,
    })
}
