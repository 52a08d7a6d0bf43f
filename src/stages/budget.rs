//! Budget stage: choose whole files, best-ranked first, so that the rendered prompt's exact
//! token count never exceeds the budget, and describe what was left out.
//!
//! The prompt keeps the tree of what is kept and an "omitted" section that lists what is not,
//! with token counts, so a model knows what exists and can ask for it with `include`. That
//! section is itself inside the budget. When listing every omitted file would crowd out the
//! files, the list is collapsed by directory (`tokio/src/sync/ — 14 files, 120000 tokens`),
//! level by level, down to one line. Only when not even that fits is the budget an error.
//!
//! Every candidate selection is measured exactly (the caller renders and counts the preamble);
//! estimates only choose what to try first.

use crate::error::Error;
pub use crate::vocab::{OmittedLine, OmittedView};

/// The fitted selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Indices of kept files, in path order.
    pub kept: Vec<usize>,
    /// Indices of omitted files, in path order.
    pub omitted: Vec<usize>,
    pub view: OmittedView,
    /// The exact token count of the prompt this plan renders to.
    pub tokens: usize,
}

/// How many extra files the grow phase may try after the first fit.
const GROW_TRIES: usize = 64;

/// Share of the budget the omitted list may take before it is collapsed by directory.
const OMITTED_SHARE: usize = 5;

/// Fit files into `budget` tokens.
///
/// - `ranked`: file indices, best first.
/// - `paths`, `tokens`: per file (by index; indices are in path order), its display path and the
///   exact token count of its piece.
/// - `measure(kept, view)`: the exact token count of the whole prompt with exactly these kept
///   files (path order) and this omitted section.
/// - `estimate_line(i)`: a cheap estimate of what keeping file `i` adds to the tree.
pub fn fit(
    budget: usize,
    ranked: &[usize],
    paths: &[&str],
    tokens: &[usize],
    measure: &dyn Fn(&[usize], &OmittedView) -> usize,
    estimate_line: &dyn Fn(usize) -> usize,
) -> Result<Plan, Error> {
    let n = paths.len();
    let all: Vec<usize> = (0..n).collect();
    // Everything fits: no omitted section at all.
    let everything = measure(&all, &OmittedView::default());
    if everything <= budget {
        return Ok(Plan {
            kept: all,
            omitted: Vec::new(),
            view: OmittedView::default(),
            tokens: everything,
        });
    }
    // The smallest possible prompt: no files, everything collapsed into one line.
    let none: Vec<usize> = Vec::new();
    let floor_view = view_at(&all, paths, tokens, Some(0));
    let floor = measure(&none, &floor_view);
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
    let listed = measure(&none, &view_at(&all, paths, tokens, None));
    let reserve = listed.min(floor + budget / OMITTED_SHARE);
    let mut keep = vec![false; n];
    let mut spent = reserve;
    for &i in ranked {
        let cost = tokens[i] + estimate_line(i);
        if spent + cost <= budget {
            keep[i] = true;
            spent += cost;
        }
    }
    let mut best = evaluate(&keep, budget, paths, tokens, measure);
    let worst_first: Vec<usize> = ranked.iter().rev().copied().filter(|&i| keep[i]).collect();
    for i in worst_first {
        if best.is_some() {
            break;
        }
        keep[i] = false;
        best = evaluate(&keep, budget, paths, tokens, measure);
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
    let mut tries = GROW_TRIES;
    for &i in ranked {
        if keep[i] || plan.tokens + tokens[i] + estimate_line(i) > budget {
            continue;
        }
        if tries == 0 {
            break;
        }
        tries -= 1;
        keep[i] = true;
        match evaluate(&keep, budget, paths, tokens, measure) {
            Some(p) => plan = p,
            None => keep[i] = false,
        }
    }
    Ok(plan)
}

/// The plan for this selection with the most detailed omitted view that fits, if any.
fn evaluate(
    keep: &[bool],
    budget: usize,
    paths: &[&str],
    tokens: &[usize],
    measure: &dyn Fn(&[usize], &OmittedView) -> usize,
) -> Option<Plan> {
    let kept: Vec<usize> = (0..keep.len()).filter(|&i| keep[i]).collect();
    let omitted: Vec<usize> = (0..keep.len()).filter(|&i| !keep[i]).collect();
    let max_depth = omitted
        .iter()
        .map(|&i| paths[i].matches('/').count())
        .max()
        .unwrap_or(0);
    // Most detailed first: every file, then directories ever closer to the root.
    let levels = std::iter::once(None).chain((0..=max_depth).rev().map(Some));
    for level in levels {
        let view = view_at(&omitted, paths, tokens, level);
        let total = measure(&kept, &view);
        if total <= budget {
            return Some(Plan {
                kept,
                omitted,
                view,
                tokens: total,
            });
        }
    }
    None
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
        let p = paths[i];
        let label = match depth {
            None => p.to_string(),
            Some(0) => String::new(),
            Some(d) => match p.match_indices('/').nth(d - 1) {
                Some((k, _)) => p[..=k].to_string(),
                None => p.to_string(),
            },
        };
        let is_group = depth.is_some() && (label.is_empty() || label.ends_with('/'));
        match lines.last_mut() {
            Some(last) if is_group && last.label == label => {
                last.files += 1;
                last.tokens += tokens[i];
            }
            _ => lines.push(OmittedLine {
                label,
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

    #[test]
    fn fit_respects_the_budget_exactly() {
        let paths: Vec<String> = (0..50).map(|i| format!("d{}/f{i}.rs", i % 5)).collect();
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        let tokens: Vec<usize> = (0..50).map(|i| 10 + i * 3).collect();
        // A toy measure: 20 fixed, 2 per kept tree line, the pieces, 5 per omitted line.
        let measure = |kept: &[usize], v: &OmittedView| {
            20 + kept.iter().map(|&i| 2 + tokens[i]).sum::<usize>() + 5 * v.lines.len()
        };
        let ranked: Vec<usize> = (0..50).collect();
        for budget in [60, 100, 500, 1000, 3000, 10_000] {
            let plan = fit(budget, &ranked, &paths, &tokens, &measure, &|_| 2).unwrap();
            assert!(plan.tokens <= budget, "{budget}: {}", plan.tokens);
            assert_eq!(plan.tokens, measure(&plan.kept, &plan.view));
            assert_eq!(plan.kept.len() + plan.omitted.len(), 50);
        }
        assert!(fit(10, &ranked, &paths, &tokens, &measure, &|_| 2).is_err());
    }
}
