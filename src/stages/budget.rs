//! Budget stage: choose whole files, best-ranked first, so that the rendered prompt's exact
//! token count never exceeds the budget, and describe what was left out.
//!
//! The prompt keeps the tree of what is kept and an "omitted" section that lists what is not,
//! with token counts, so a model knows what exists and can ask for it with `include`. That
//! section is itself inside the budget. When listing every omitted file would crowd out the
//! files, the list is collapsed by directory (`tokio/src/sync/ — 14 files, 120000 tokens`),
//! level by level, down to one line. Only when not even that fits is the budget an error.
//!
//! Every candidate selection is measured exactly (the caller counts the preamble: given the
//! omitted files and a level of detail, [`Prompt::measure_at`], it may count the omitted
//! section from what changed since its last measurement); estimates only choose what to try
//! first. A file's estimate covers the tree lines it adds:
//! its own and those of its directories not yet in the tree, each indented by its depth, so
//! deep paths (whose tree grows with the square of their depth) are not kept on a guess.
//!
//! The number of exact measurements per fit is bounded, whatever the input: 3, then at most
//! [`MAX_EVALUATIONS`] selections (the first guess, [`SHRINK_STEPS`] one-file shrinks and a
//! bisection, [`GROW_TRIES`] grows), each trying at most [`LEVEL_SCAN`] omitted views (or,
//! with more levels than that, two plus a bisection of them). The caller may decline to
//! measure a prompt it can prove is over the limit (see [`Prompt::measure`]), and is asked
//! whether to stop before every measurement.

use crate::error::Error;
pub use crate::vocab::{OmittedLine, OmittedView};
use std::collections::HashMap;

/// The fitted selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Indices of kept files, in path order.
    pub kept: Vec<usize>,
    /// Indices of omitted files, in path order.
    pub omitted: Vec<usize>,
    /// What the omitted section shows.
    pub view: OmittedView,
    /// The exact token count of the prompt this plan renders to.
    pub tokens: usize,
}

/// What fitting needs from the caller: exact counts of candidate prompts.
pub trait Prompt {
    /// The exact token count of the whole prompt with exactly `kept` (path order) and `view`.
    /// `None` when it is proven above `limit` without measuring it, or the run was cancelled.
    fn measure(&self, kept: &[usize], view: &OmittedView, limit: usize) -> Option<usize>;
    /// [`Prompt::measure`] of the prompt with `kept` and the omitted files `omitted` (path
    /// order) shown at `level` (as [`view_at`] draws them; `view` draws that view). The default
    /// draws the view and measures it; a caller that can count the omitted section from what
    /// changed since its last measurement need not draw it. The same count either way.
    fn measure_at(
        &self,
        kept: &[usize],
        omitted: &[usize],
        level: Option<usize>,
        view: &dyn Fn() -> OmittedView,
        limit: usize,
    ) -> Option<usize> {
        let _ = (omitted, level);
        self.measure(kept, &view(), limit)
    }
    /// The tokens of file `i`'s display path (a cheap part of its estimate).
    fn path_tokens(&self, i: usize) -> usize;
    /// Whether to abandon the fit ([`Error::Cancelled`]).
    fn cancelled(&self) -> bool;
}

/// How many extra files the grow phase may try after the first fit.
pub const GROW_TRIES: usize = 64;

/// How many worst-ranked files the shrink phase drops one at a time before it bisects.
pub const SHRINK_STEPS: usize = 8;

/// Up to this many omitted views (levels) are tried one by one, most detailed first; a deeper
/// tree's levels are bisected.
pub const LEVEL_SCAN: usize = 16;

/// The most selections one fit evaluates: the first guess, the shrink steps, a bisection over
/// up to 2^64 files, the grow tries.
pub const MAX_EVALUATIONS: usize = 1 + SHRINK_STEPS + 65 + GROW_TRIES;

/// Share of the budget the omitted list may take before it is collapsed by directory.
const OMITTED_SHARE: usize = 5;

/// Indentation units per estimated token: a unit is at least 4 bytes and no token of any
/// supported encoding is longer than 128 bytes.
const UNITS_PER_TOKEN: usize = 32;

/// Fit files into `budget` tokens.
///
/// - `ranked`: file indices, best first.
/// - `paths`, `tokens`: per file (by index; indices are in path order), its display path and the
///   exact token count of its piece.
/// - `prompt`: exact measurements of candidate prompts, and cancellation.
pub fn fit(
    budget: usize,
    ranked: &[usize],
    paths: &[&str],
    tokens: &[usize],
    prompt: &dyn Prompt,
) -> Result<Plan, Error> {
    let n = paths.len();
    let all: Vec<usize> = (0..n).collect();
    let go_on = || {
        if prompt.cancelled() {
            Err(Error::Cancelled)
        } else {
            Ok(())
        }
    };
    // Everything fits: no omitted section at all.
    go_on()?;
    if let Some(everything) = prompt.measure(&all, &OmittedView::default(), budget)
        && everything <= budget
    {
        return Ok(Plan {
            kept: all,
            omitted: Vec::new(),
            view: OmittedView::default(),
            tokens: everything,
        });
    }
    go_on()?;
    // The smallest possible prompt: no files, everything collapsed into one line.
    let none: Vec<usize> = Vec::new();
    let floor_view = view_at(&all, paths, tokens, Some(0));
    let floor = prompt
        .measure(&none, &floor_view, usize::MAX)
        .ok_or(Error::Cancelled)?;
    if floor > budget {
        return Err(Error::Budget {
            budget,
            floor,
            files: n,
        });
    }
    // Greedy by rank against an estimate, then shrink until the exact count fits, then grow
    // with whatever still fits. The estimate reserves room for the omitted section: what the
    // full list of every file costs (an upper bound, as kept files leave it) when that is
    // modest, else a share of the budget for a collapsed form.
    let modest = floor + budget / OMITTED_SHARE;
    let listed = prompt
        .measure_at(
            &none,
            &all,
            None,
            &|| view_at(&all, paths, tokens, None),
            modest,
        )
        .unwrap_or(modest);
    go_on()?;
    let reserve = listed.min(modest);
    let mut keep = vec![false; n];
    let mut spent = reserve;
    let mut tree = Dirs::default();
    for &i in ranked {
        let cost = tokens[i] + estimate(prompt, &tree, paths[i], i);
        if spent + cost <= budget {
            keep[i] = true;
            spent += cost;
            tree.insert(paths[i]);
        }
    }
    let fitter = Fitter {
        budget,
        paths,
        tokens,
        prompt,
    };
    let mut best = fitter.evaluate(&keep)?;
    if best.is_none() {
        best = fitter.shrink(ranked, &mut keep)?;
    }
    let Some(mut plan) = best else {
        // No files at all: the floor view is known to fit.
        return Ok(Plan {
            kept: none,
            omitted: all,
            view: floor_view,
            tokens: floor,
        });
    };
    // Growing costs one exact measurement per try; cap the tries so a large repo under a tight
    // budget stays fast.
    let mut tree = Dirs::default();
    for &i in &plan.kept {
        tree.insert(paths[i]);
    }
    let mut tries = GROW_TRIES;
    for &i in ranked {
        if keep[i] || plan.tokens + tokens[i] + estimate(prompt, &tree, paths[i], i) > budget {
            continue;
        }
        if tries == 0 {
            break;
        }
        tries -= 1;
        keep[i] = true;
        match fitter.evaluate(&keep)? {
            Some(p) => {
                plan = p;
                tree.insert(paths[i]);
            }
            None => keep[i] = false,
        }
    }
    Ok(Plan {
        view: view_at(&plan.omitted, paths, tokens, plan.level),
        kept: plan.kept,
        omitted: plan.omitted,
        tokens: plan.tokens,
    })
}

/// A selection that fits, with the level of its omitted view (drawn once, for the plan chosen).
struct Fitted {
    kept: Vec<usize>,
    omitted: Vec<usize>,
    level: Option<usize>,
    tokens: usize,
}

/// What keeping the file at `path` adds besides its piece, estimated: its tree lines (its own
/// and its directories' not yet in `tree`), at least one token each plus their indentation;
/// never less than its path's tokens and two.
fn estimate(prompt: &dyn Prompt, tree: &Dirs<'_>, path: &str, i: usize) -> usize {
    let (lines, indent) = tree.added(path);
    (prompt.path_tokens(i) + 2).max(lines + indent / UNITS_PER_TOKEN)
}

/// The directories of the kept files' tree, as a trie: (parent, name) → node, node 0 the root.
#[derive(Default)]
struct Dirs<'a> {
    nodes: HashMap<(usize, &'a str), usize>,
}

impl<'a> Dirs<'a> {
    /// The tree lines keeping `path` adds and their indentation units in all: linear in the
    /// path's length.
    fn added(&self, path: &str) -> (usize, usize) {
        let comps: Vec<&str> = path.split('/').collect();
        let dirs = &comps[..comps.len() - 1];
        let mut node = 0;
        let mut known = 0;
        for (depth, name) in dirs.iter().enumerate() {
            match self.nodes.get(&(node, *name)) {
                Some(&child) => {
                    node = child;
                    known = depth + 1;
                }
                None => break,
            }
        }
        // New lines at depths known..=dirs.len(): the missing directories and the file.
        let lines = dirs.len() + 1 - known;
        let indent = (known..=dirs.len()).sum();
        (lines, indent)
    }

    fn insert(&mut self, path: &'a str) {
        let mut comps: Vec<&'a str> = path.split('/').collect();
        comps.pop();
        let mut node = 0;
        for name in comps {
            let next = self.nodes.len() + 1;
            node = *self.nodes.entry((node, name)).or_insert(next);
        }
    }
}

/// Evaluates selections against the budget.
struct Fitter<'a> {
    budget: usize,
    paths: &'a [&'a str],
    tokens: &'a [usize],
    prompt: &'a dyn Prompt,
}

impl Fitter<'_> {
    /// Drop the worst-ranked kept files until the selection fits: one at a time for the first
    /// [`SHRINK_STEPS`], then by bisection over how many of the best-ranked ones are kept.
    fn shrink(&self, ranked: &[usize], keep: &mut [bool]) -> Result<Option<Fitted>, Error> {
        let by_rank: Vec<usize> = ranked.iter().copied().filter(|&i| keep[i]).collect();
        let mut count = by_rank.len();
        for _ in 0..SHRINK_STEPS {
            if count == 0 {
                return Ok(None);
            }
            count -= 1;
            keep[by_rank[count]] = false;
            if let Some(plan) = self.evaluate(keep)? {
                return Ok(Some(plan));
            }
        }
        // Keeping the best `lo` fits (none at all does: the floor view fits), `hi` does not.
        let (mut lo, mut hi) = (0, count);
        let mut best = None;
        let set = |keep: &mut [bool], k: usize| {
            for (r, &i) in by_rank[..count].iter().enumerate() {
                keep[i] = r < k;
            }
        };
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            set(keep, mid);
            match self.evaluate(keep)? {
                Some(plan) => {
                    lo = mid;
                    best = Some(plan);
                }
                None => hi = mid,
            }
        }
        set(keep, lo);
        match best {
            Some(plan) => Ok(Some(plan)),
            None => self.evaluate(keep),
        }
    }

    /// The plan for this selection with the most detailed omitted view that fits, if any.
    fn evaluate(&self, keep: &[bool]) -> Result<Option<Fitted>, Error> {
        let kept: Vec<usize> = (0..keep.len()).filter(|&i| keep[i]).collect();
        let omitted: Vec<usize> = (0..keep.len()).filter(|&i| !keep[i]).collect();
        let max_depth = omitted
            .iter()
            .map(|&i| self.paths[i].matches('/').count())
            .max()
            .unwrap_or(0);
        // Most detailed first: every file, then directories ever closer to the root.
        let levels: Vec<Option<usize>> = std::iter::once(None)
            .chain((0..=max_depth).rev().map(Some))
            .collect();
        let fits = |level: Option<usize>| -> Result<Option<Fitted>, Error> {
            if self.prompt.cancelled() {
                return Err(Error::Cancelled);
            }
            let view = || view_at(&omitted, self.paths, self.tokens, level);
            match self
                .prompt
                .measure_at(&kept, &omitted, level, &view, self.budget)
            {
                Some(total) if total <= self.budget => Ok(Some(Fitted {
                    kept: kept.clone(),
                    omitted: omitted.clone(),
                    level,
                    tokens: total,
                })),
                _ if self.prompt.cancelled() => Err(Error::Cancelled),
                _ => Ok(None),
            }
        };
        if levels.len() <= LEVEL_SCAN {
            for &level in &levels {
                if let Some(plan) = fits(level)? {
                    return Ok(Some(plan));
                }
            }
            return Ok(None);
        }
        // Deep trees: the full list, then the one-line summary, then bisect between them (a
        // more detailed view is larger, so the levels that fit are the least detailed ones).
        if let Some(plan) = fits(levels[0])? {
            return Ok(Some(plan));
        }
        let (mut lo, mut hi) = (0, levels.len() - 1);
        let Some(mut best) = fits(levels[hi])? else {
            return Ok(None);
        };
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            match fits(levels[mid])? {
                Some(plan) => {
                    hi = mid;
                    best = plan;
                }
                None => lo = mid,
            }
        }
        Ok(Some(best))
    }
}

/// The omitted view of `omitted` (path order): every file when `depth` is `None`, else files
/// grouped by their ancestor directory `depth` levels down (shallower files stay as they are).
pub fn view_at(
    omitted: &[usize],
    paths: &[&str],
    tokens: &[usize],
    depth: Option<usize>,
) -> OmittedView {
    // Paths sharing a directory prefix are contiguous in path order, so grouping adjacent
    // lines with the same label is enough.
    let mut lines: Vec<OmittedLine> = Vec::new();
    for &i in omitted {
        let (label, is_group) = label_at(paths[i], depth);
        match lines.last_mut() {
            Some(last) if is_group && last.label == label => {
                last.files += 1;
                last.tokens += tokens[i];
            }
            _ => lines.push(OmittedLine {
                label: label.to_string(),
                files: 1,
                tokens: tokens[i],
            }),
        }
    }
    OmittedView {
        files: omitted.len(),
        tokens: omitted.iter().map(|&i| tokens[i]).sum(),
        lines,
    }
}

/// The label of the omitted line that shows `path` at `depth` (see [`view_at`]), and whether
/// that line is a group (a directory, or everything), which adjacent files of the same label
/// share; a file's own line is never shared.
pub fn label_at(path: &str, depth: Option<usize>) -> (&str, bool) {
    let label = match depth {
        None => path,
        Some(0) => "",
        Some(d) => match path.match_indices('/').nth(d - 1) {
            Some((k, _)) => &path[..=k],
            None => path,
        },
    };
    let is_group = depth.is_some() && (label.is_empty() || label.ends_with('/'));
    (label, is_group)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn views_collapse_by_directory() {
        let paths = ["a/b/c.rs", "a/b/d.rs", "a/e.rs", "f.rs"];
        let tokens = [10, 20, 30, 40];
        let all = [0, 1, 2, 3];
        let full = view_at(&all, &paths, &tokens, None);
        assert_eq!(full.lines.len(), 4);
        let d1 = view_at(&all, &paths, &tokens, Some(1));
        assert_eq!(
            d1.lines,
            vec![
                OmittedLine {
                    label: "a/".into(),
                    files: 3,
                    tokens: 60
                },
                OmittedLine {
                    label: "f.rs".into(),
                    files: 1,
                    tokens: 40
                },
            ]
        );
        let d0 = view_at(&all, &paths, &tokens, Some(0));
        assert_eq!(
            d0.lines,
            vec![OmittedLine {
                label: String::new(),
                files: 4,
                tokens: 100
            }]
        );
        assert_eq!(d0.tokens, 100);
    }

    /// A toy prompt: 20 fixed, 2 per kept tree line plus a quarter of its depth squared, the
    /// pieces, 5 per omitted line plus its label's depth. Counts its measurements.
    struct Toy<'a> {
        paths: &'a [&'a str],
        tokens: &'a [usize],
        measured: std::cell::Cell<usize>,
        stop_after: usize,
    }

    impl Toy<'_> {
        fn exact(&self, kept: &[usize], v: &OmittedView) -> usize {
            let depth = |p: &str| p.matches('/').count();
            20 + kept
                .iter()
                .map(|&i| 2 + depth(self.paths[i]).pow(2) / 4 + self.tokens[i])
                .sum::<usize>()
                + v.lines.iter().map(|l| 5 + depth(&l.label)).sum::<usize>()
        }
    }

    impl Prompt for Toy<'_> {
        fn measure(&self, kept: &[usize], v: &OmittedView, _limit: usize) -> Option<usize> {
            self.measured.set(self.measured.get() + 1);
            Some(self.exact(kept, v))
        }
        fn path_tokens(&self, _i: usize) -> usize {
            0
        }
        fn cancelled(&self) -> bool {
            self.measured.get() >= self.stop_after
        }
    }

    fn toy<'a>(paths: &'a [&'a str], tokens: &'a [usize]) -> Toy<'a> {
        Toy {
            paths,
            tokens,
            measured: std::cell::Cell::new(0),
            stop_after: usize::MAX,
        }
    }

    #[test]
    fn fit_respects_the_budget_exactly() {
        let paths: Vec<String> = (0..50).map(|i| format!("d{}/f{i}.rs", i % 5)).collect();
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        let tokens: Vec<usize> = (0..50).map(|i| 10 + i * 3).collect();
        let ranked: Vec<usize> = (0..50).collect();
        let prompt = toy(&paths, &tokens);
        for budget in [60, 100, 500, 1000, 3000, 10_000] {
            let plan = fit(budget, &ranked, &paths, &tokens, &prompt).unwrap();
            assert!(plan.tokens <= budget, "{budget}: {}", plan.tokens);
            assert_eq!(plan.tokens, prompt.exact(&plan.kept, &plan.view));
            assert_eq!(plan.kept.len() + plan.omitted.len(), 50);
        }
        assert!(fit(10, &ranked, &paths, &tokens, &prompt).is_err());
    }

    /// However many files and however deep, one fit measures a bounded number of prompts.
    #[test]
    fn measurements_per_fit_are_bounded() {
        let bound = 3 + MAX_EVALUATIONS * LEVEL_SCAN;
        for (files, depth) in [(10_000, 3), (40, 3000), (2_000, 200)] {
            let paths: Vec<String> = (0..files)
                .map(|i| format!("{}{}/f{i}.rs", "d/".repeat(depth * (i % 3) / 2), i % 7))
                .collect();
            let mut paths: Vec<&str> = paths.iter().map(String::as_str).collect();
            paths.sort();
            let tokens: Vec<usize> = (0..files).map(|i| 5 + i % 50).collect();
            // Best first in an order unrelated to size, so every phase has work.
            let ranked: Vec<usize> = (0..files).map(|i| (i * 7919) % files).collect();
            for budget in [2_000, 20_000, 200_000] {
                let prompt = toy(&paths, &tokens);
                let plan = fit(budget, &ranked, &paths, &tokens, &prompt);
                let n = prompt.measured.get();
                assert!(
                    n <= bound,
                    "{files} files {depth} deep, budget {budget}: {n}"
                );
                if let Ok(plan) = plan {
                    assert!(plan.tokens <= budget);
                    assert_eq!(plan.tokens, prompt.exact(&plan.kept, &plan.view));
                }
            }
        }
    }

    #[test]
    fn a_cancelled_fit_stops_measuring() {
        let paths: Vec<String> = (0..500).map(|i| format!("d{}/f{i:03}.rs", i % 9)).collect();
        let mut paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        paths.sort();
        let tokens = vec![40; 500];
        let ranked: Vec<usize> = (0..500).collect();
        let mut prompt = toy(&paths, &tokens);
        prompt.stop_after = 5;
        assert!(matches!(
            fit(3_000, &ranked, &paths, &tokens, &prompt),
            Err(Error::Cancelled)
        ));
        assert_eq!(prompt.measured.get(), 5);
    }

    #[test]
    fn estimates_count_new_directory_lines_and_their_indentation() {
        let mut tree = Dirs::default();
        assert_eq!(tree.added("f.rs"), (1, 0));
        assert_eq!(tree.added("a/b/c.rs"), (3, 3));
        tree.insert("a/b/c.rs");
        assert_eq!(tree.added("a/b/d.rs"), (1, 2));
        assert_eq!(tree.added("a/e/f.rs"), (2, 3));
        let deep = format!("{}x", "d/".repeat(1000));
        assert_eq!(tree.added(&deep), (1001, 1000 * 1001 / 2));
    }
}
