//! compress: skeletons (bodies elided) for the files that need them, made in parallel through
//! the warm cache. Without a budget every file that has one is shown as its skeleton; with one,
//! the graded budget offers a skeleton only to the files that do not fit whole, and only those
//! are parsed.

use super::file::{self, FileContext};
use super::plan;
use crate::error::Error;
use crate::par;
use crate::stages::rank;
use crate::vocab::Compress;

/// Without a budget: every kept file that has a skeleton is shown as it; when the full pieces'
/// counts were deferred ([`FileContext::defer_count`]), the files left whole are measured now,
/// in parallel.
pub fn all(
    ctx: &FileContext<'_>,
    level: Compress,
    kept: &mut [(String, file::Body)],
    threads: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<(), Error> {
    let every: Vec<usize> = (0..kept.len()).collect();
    for (i, s) in skeletons(ctx, level, kept, &every, threads, stop)? {
        if let Some(s) = s {
            kept[i].1 = s;
        }
    }
    if ctx.defer_count {
        let whole: Vec<usize> = (0..kept.len())
            .filter(|&i| !kept[i].1.is_skeleton())
            .collect();
        let order = par::largest_first(&whole, |&i| kept[i].1.bytes);
        let measured = par::map(&whole, &order, threads, stop, |&i| {
            let (path, body) = &kept[i];
            file::measure_piece(ctx, path, body)
        })
        .ok_or(Error::Cancelled)?;
        for (&i, (tokens, len)) in whole.iter().zip(measured) {
            kept[i].1.tokens = tokens;
            kept[i].1.piece_len = len;
        }
    }
    Ok(())
}

/// The skeletons at `level` of the kept files `which` (indices into `kept`), made in parallel,
/// largest first: each index with its skeleton, `None` for a file without one.
fn skeletons(
    ctx: &FileContext<'_>,
    level: Compress,
    kept: &[(String, file::Body)],
    which: &[usize],
    threads: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> Result<Vec<(usize, Option<file::Body>)>, Error> {
    let order = par::largest_first(which, |&i| kept[i].1.bytes);
    par::map(which, &order, threads, stop, |&i| {
        let (path, body) = &kept[i];
        (i, file::skeleton_of(ctx, path, body, level, stop))
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
#[allow(clippy::too_many_arguments)] // the run's parts, each used once
pub fn grade(
    ctx: &FileContext<'_>,
    level: Compress,
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
            for (j, s) in skeletons(ctx, level, kept, &batch, threads, stop)? {
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
