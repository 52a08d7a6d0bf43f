//! The driver's choice of what goes in: rank the kept files, then fit them to the budget,
//! measuring every candidate prompt exactly. A prompt's count is the preamble's plus the kept
//! pieces' counts (known from the per-file step) plus the epilogue's; only json's last piece
//! differs from its measured form (no trailing comma), and its count is memoized per file.
//!
//! The preamble is counted in parts (title and tree, the omitted section's header, each omitted
//! line), joined only around junctions where a tokenizer could merge them
//! ([`count::exact_units`]), so the sum is exact; a part already counted in this run is not
//! counted again. A measurement whose prompt is provably over its limit is not rendered at all:
//! no token is longer than [`MAX_TOKEN_BYTES`], so a prompt has at least its bytes divided by
//! that many tokens, and the tree's length is known without drawing it
//! ([`render::tree_len`]). Big parts are counted in chunks, asking between chunks whether the
//! run was cancelled.
//!
//! The fit asks for the omitted files at a level of detail rather than for a drawn view
//! ([`Prompt::measure_at`]): the omitted section is then counted from what changed since the
//! last measurement at that level (`omitted_sums`), and only its first and last lines are
//! drawn; the count is the same as the whole view's.

use super::extraction::{FileEntry, Omitted, Ranked};
use super::file::{Body, FileContext};
use super::omitted_sums::{self, LineCount, OmittedSums};
use crate::error::Error;
use crate::stages::budget::{self, Prompt};
use crate::stages::count;
use crate::stages::rank::{self, Query};
use crate::stages::render::{self, FileView, RenderOptions};
use crate::stages::syntax;
use crate::vocab::{Finding, Format, OmittedLine, OmittedView};
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The longest token of every supported encoding, in bytes (o200k_base, cl100k_base,
/// p50k_base and r50k_base all top out at 128; `tests/linearity/requests.rs` checks their vocabularies).
pub const MAX_TOKEN_BYTES: usize = 128;

/// Parts up to this size are counted once per run and remembered by their text; larger ones go
/// through the warm cache in chunks of [`CHUNK_BYTES`].
const MEMO_BYTES: usize = 16 << 10;
const CHUNK_BYTES: usize = 256 << 10;

/// The measure of every prompt a run could render from its kept files.
pub struct Measure<'a> {
    ctx: &'a FileContext<'a>,
    /// The kept files, in path order: display path and body.
    kept: &'a [(String, Body)],
    /// Their display paths.
    paths: Vec<&'a str>,
    render: &'a RenderOptions,
    repo_name: &'a str,
    epilogue: String,
    tail_tokens: usize,
    piece_tokens: Vec<usize>,
    last_memo: Mutex<HashMap<usize, usize>>,
    /// Counts of the small preamble parts met so far.
    part_memo: Mutex<HashMap<String, usize>>,
    /// The tree's length for the last kept set asked about.
    tree_memo: Mutex<Option<(Vec<usize>, usize)>>,
    /// Characters of each file's piece (not last, last), once asked for.
    chars_memo: Mutex<HashMap<(usize, bool), usize>>,
    /// Tokens of each display path, once asked for (`usize::MAX` before).
    path_memo: Vec<AtomicUsize>,
    /// The omitted section's running sums; `None` when the display paths are not strictly in
    /// order (a directory's files would not be adjacent in every view).
    sums: Option<Mutex<OmittedSums>>,
    stop: &'a (dyn Fn() -> bool + Sync),
}

impl<'a> Measure<'a> {
    /// The measure for `kept` (in path order) under `ctx`'s settings; `stop` is asked between
    /// steps.
    pub fn new(
        ctx: &'a FileContext<'a>,
        kept: &'a [(String, Body)],
        repo_name: &'a str,
        stop: &'a (dyn Fn() -> bool + Sync),
    ) -> Self {
        let render = &ctx.options.render;
        let epilogue = render::epilogue(render);
        let paths: Vec<&str> = kept.iter().map(|(p, _)| p.as_str()).collect();
        let ordered = paths.windows(2).all(|w| w[0] < w[1]);
        Measure {
            ctx,
            kept,
            paths,
            render,
            repo_name,
            tail_tokens: ctx.count(&epilogue),
            epilogue,
            piece_tokens: kept.iter().map(|(_, b)| b.tokens).collect(),
            last_memo: Mutex::new(HashMap::new()),
            part_memo: Mutex::new(HashMap::new()),
            tree_memo: Mutex::new(None),
            chars_memo: Mutex::new(HashMap::new()),
            path_memo: kept.iter().map(|_| AtomicUsize::new(usize::MAX)).collect(),
            sums: ordered.then(|| Mutex::new(OmittedSums::default())),
            stop,
        }
    }

    /// The text after the last file.
    pub fn epilogue(&self) -> &str {
        &self.epilogue
    }

    /// Kept file `i` as the renderer sees it.
    pub fn view(&self, i: usize) -> FileView<'_> {
        FileView {
            path: &self.kept[i].0,
            text: &self.kept[i].1.text,
            lossy: self.kept[i].1.lossy,
            skeleton: self.kept[i].1.is_skeleton(),
        }
    }

    /// Tokens of file `i`'s piece where it is not the last one.
    pub fn piece_tokens(&self, i: usize) -> usize {
        self.piece_tokens[i]
    }

    /// Tokens of file `i`'s piece when it is the last one (json drops the trailing comma).
    pub fn last_tokens(&self, i: usize) -> usize {
        if self.render.format != Format::Json {
            return self.piece_tokens[i];
        }
        let mut memo = crate::par::lock(&self.last_memo);
        *memo.entry(i).or_insert_with(|| {
            self.ctx
                .count(&render::file_piece(self.render, &self.view(i), true))
        })
    }

    fn paths(&self, kept_ix: &[usize]) -> Vec<&str> {
        kept_ix.iter().map(|&i| self.paths[i]).collect()
    }

    /// The text before the first file, for these kept files (path order) and omitted view;
    /// `None` when the run was cancelled while it was drawn.
    pub fn preamble(&self, kept_ix: &[usize], view: &OmittedView) -> Option<String> {
        render::preamble_parts(
            self.render,
            self.repo_name,
            &self.paths(kept_ix),
            view,
            self.stop,
        )
        .map(|(text, _)| text)
    }

    /// A lower bound of [`Measure::measure`]'s count, without rendering: the kept pieces (but
    /// the last), the epilogue, and the tree's and omitted labels' bytes over
    /// [`MAX_TOKEN_BYTES`].
    fn lower_bound(&self, kept_ix: &[usize], view: &OmittedView) -> usize {
        let body: usize = kept_ix
            .iter()
            .take(kept_ix.len().saturating_sub(1))
            .map(|&i| self.piece_tokens[i])
            .sum();
        let tree = if self.render.tree {
            let mut memo = crate::par::lock(&self.tree_memo);
            match &*memo {
                Some((ix, len)) if ix == kept_ix => *len,
                _ => {
                    let len = render::tree_len(self.repo_name, &self.paths(kept_ix));
                    *memo = Some((kept_ix.to_vec(), len));
                    len
                }
            }
        } else {
            0
        };
        let labels: usize = view.lines.iter().map(|l| l.label.len()).sum();
        body + self.tail_tokens + (tree + labels) / MAX_TOKEN_BYTES
    }

    /// The exact token count of the whole prompt with exactly these kept files (path order) and
    /// this omitted section; `None` when it is proven above `limit` without rendering it, or
    /// when the run was cancelled.
    pub fn measure(&self, kept_ix: &[usize], view: &OmittedView, limit: usize) -> Option<usize> {
        if (self.stop)() || self.lower_bound(kept_ix, view) > limit {
            return None;
        }
        let (head, cuts) = render::preamble_parts(
            self.render,
            self.repo_name,
            &self.paths(kept_ix),
            view,
            self.stop,
        )?;
        let mut parts = Vec::with_capacity(cuts.len() + 1);
        let mut start = 0;
        for cut in cuts.into_iter().chain([head.len()]) {
            parts.push(&head[start..cut]);
            start = cut;
        }
        let mut head_tokens = 0;
        for unit in count::exact_units(&parts) {
            head_tokens += self.count_part(&unit)?;
        }
        let body: usize = kept_ix.iter().map(|&i| self.piece_tokens[i]).sum();
        let last_fix = kept_ix.last().map_or(0, |&l| self.last_tokens(l)) as isize
            - kept_ix.last().map_or(0, |&l| self.piece_tokens[l]) as isize;
        Some((head_tokens + body + self.tail_tokens).saturating_add_signed(last_fix))
    }

    /// One omitted line, drawn alone by the renderer, and its count; not sealed when the
    /// renderer does not give it as a part of its own (json) or the count was cancelled.
    fn omitted_line(&self, line: &OmittedLine) -> LineCount {
        let view = OmittedView {
            files: line.files,
            tokens: line.tokens,
            lines: vec![line.clone()],
        };
        let unsealed = LineCount {
            tokens: 0,
            sealed: false,
        };
        // The line does not depend on the tree, which is left out.
        let opts = RenderOptions {
            tree: false,
            ..self.render.clone()
        };
        let Some((text, cuts)) =
            render::preamble_parts(&opts, self.repo_name, &[], &view, &|| false)
        else {
            return unsealed;
        };
        let &[_, start, end] = cuts.as_slice() else {
            return unsealed;
        };
        // Through the warm cache: the same lines come back in the next call's fit.
        let text = &text[start..end];
        omitted_sums::line_count(text, self.ctx.count(text))
    }

    /// The exact length in characters, as `width` measures a text, of the prompt with exactly
    /// these kept files (path order) and this omitted section; `None` when the run was
    /// cancelled. Each piece is rendered once and its length remembered (one width per run).
    pub fn chars(&self, kept_ix: &[usize], view: &OmittedView, width: Width) -> Option<usize> {
        let head = width(&self.preamble(kept_ix, view)?);
        let mut body = 0;
        for (n, &i) in kept_ix.iter().enumerate() {
            if (self.stop)() {
                return None;
            }
            let last = n + 1 == kept_ix.len() && self.render.format == Format::Json;
            let mut memo = crate::par::lock(&self.chars_memo);
            body += *memo
                .entry((i, last))
                .or_insert_with(|| width(&render::file_piece(self.render, &self.view(i), last)));
        }
        Some(head + body + width(&self.epilogue))
    }

    /// The exact count of one part of a preamble: remembered when small; in chunks cut at safe
    /// points ([`count::split_for_parallel`]) through the warm cache when large, stopping between
    /// chunks when the run is cancelled.
    fn count_part(&self, part: &str) -> Option<usize> {
        if !self.ctx.options.counting {
            return Some(0);
        }
        if part.len() <= MEMO_BYTES {
            if let Some(&n) = crate::par::lock(&self.part_memo).get(part) {
                return Some(n);
            }
            // Through the cache too: a rerun whose every count is kept loads no tokenizer.
            let n = self.ctx.count(part);
            crate::par::lock(&self.part_memo).insert(part.to_string(), n);
            return Some(n);
        }
        let mut n = 0;
        for chunk in count::split_for_parallel(part, CHUNK_BYTES) {
            if (self.stop)() {
                return None;
            }
            n += self.ctx.count(chunk);
        }
        Some(n)
    }
}

impl Prompt for Measure<'_> {
    fn measure(&self, kept: &[usize], view: &OmittedView, limit: usize) -> Option<usize> {
        Measure::measure(self, kept, view, limit)
    }

    /// [`Measure::measure`] of the prompt with `kept_ix` and the omitted files `omitted` shown
    /// at `level`: from the omitted section's running sums when they apply (drawing its first
    /// and last lines only), else of the drawn `view`.
    fn measure_at(
        &self,
        kept_ix: &[usize],
        omitted: &[usize],
        level: Option<usize>,
        view: &dyn Fn() -> OmittedView,
        limit: usize,
    ) -> Option<usize> {
        if (self.stop)() {
            return None;
        }
        let split = self.sums.as_ref().and_then(|sums| {
            crate::par::lock(sums).split(
                omitted,
                level,
                &self.paths,
                &self.piece_tokens,
                &mut |l| self.omitted_line(l),
            )
        });
        match split {
            Some(split) => {
                let rest = limit.checked_sub(split.middle)?;
                let ends = self.measure(kept_ix, &split.ends, rest)?;
                Some(ends + split.middle)
            }
            None => self.measure(kept_ix, &view(), limit),
        }
    }

    fn path_tokens(&self, i: usize) -> usize {
        match self.path_memo[i].load(Ordering::Relaxed) {
            usize::MAX => {
                let n = self.ctx.count(self.paths[i]);
                self.path_memo[i].store(n, Ordering::Relaxed);
                n
            }
            n => n,
        }
    }

    fn cancelled(&self) -> bool {
        (self.stop)()
    }
}

/// Rank the kept files by `query` (path order when there is none): best first, with scores;
/// `None` when the run was cancelled.
pub fn rank(
    kept: &[(String, Body)],
    query: Option<&Query>,
    budget: &syntax::ParseBudget,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<(usize, rank::Score)>> {
    let docs: Vec<rank::Doc<'_>> = kept
        .iter()
        .map(|(path, t)| rank::Doc {
            path,
            text: &t.text,
        })
        .collect();
    let outline = |i: usize| match syntax::outline_with(
        docs[i].path.as_bytes(),
        docs[i].text,
        budget,
        stop,
    ) {
        syntax::Outline::Parsed(symbols) => {
            Some(std::sync::Arc::new(rank::SymbolFacts::of(&symbols)))
        }
        _ => None,
    };
    rank::rank(&docs, query, &outline, stop)
}

/// How a text's length in characters is measured: plain, or as sent in a JSON string
/// ([`crate::vocab::json_chars`]).
pub type Width = fn(&str) -> usize;

/// How many budgets [`fit_chars`] tries before it gives up.
const CHAR_TRIES: usize = 12;

/// Choose what is kept so that the prompt fits the token budget and, when `max_chars` is given,
/// that many characters as its width function measures them (plain, or as sent in JSON): the
/// budget is lowered in proportion to the excess (by at least one
/// token) and the ranked files fitted again, each candidate measured exactly, until the prompt
/// fits both. The token fit keeps its own guarantees; the characters are counted, never guessed.
pub fn fit_chars(
    m: &Measure<'_>,
    budget: Option<usize>,
    max_chars: Option<(usize, Width)>,
    ranking: &[(usize, rank::Score)],
) -> Result<budget::Plan, Error> {
    let mut plan = fit(m, budget, ranking)?;
    let Some((max, width)) = max_chars else {
        return Ok(plan);
    };
    let mut tokens = plan.tokens;
    for _ in 0..CHAR_TRIES {
        let chars = m
            .chars(&plan.kept, &plan.view, width)
            .ok_or(Error::Cancelled)?;
        if chars <= max {
            return Ok(plan);
        }
        // The next budget: this one scaled by the share that fits, with a little to spare.
        let scaled = (tokens as u128 * max as u128 * 97 / 100 / chars as u128) as usize;
        tokens = scaled.min(tokens.saturating_sub(1));
        plan = match fit(m, Some(tokens), ranking) {
            Err(Error::Budget { .. }) => {
                return Err(Error::TooSmall {
                    message: format!(
                        "a max_chars of {max} characters is too small: no prompt of this \
                         repository fits, its tree and the list of what is left out alone take \
                         more; raise max_chars or narrow with include/exclude"
                    ),
                });
            }
            other => other?,
        };
    }
    Err(Error::TooSmall {
        message: format!(
            "a max_chars of {max} characters is too small: the prompt could not be fitted to \
             it in {CHAR_TRIES} tries; raise \
             max_chars or narrow with include/exclude"
        ),
    })
}

/// Choose what is kept: everything when there is no budget, else the budget stage's fit of the
/// ranked files.
pub fn fit(
    m: &Measure<'_>,
    budget: Option<usize>,
    ranking: &[(usize, rank::Score)],
) -> Result<budget::Plan, Error> {
    let n = m.kept.len();
    let Some(b) = budget else {
        let all: Vec<usize> = (0..n).collect();
        let view = OmittedView::default();
        let tokens = m.measure(&all, &view, usize::MAX).ok_or(Error::Cancelled)?;
        return Ok(budget::Plan {
            kept: all,
            omitted: Vec::new(),
            view,
            tokens,
        });
    };
    let ranked: Vec<usize> = ranking.iter().map(|(i, _)| *i).collect();
    budget::fit(b, &ranked, &m.paths, &m.piece_tokens, m)
}

/// What a fitted plan lists about its files, for the extraction it hands back.
pub struct Listing {
    /// The files in the prompt, in path order, with the tokens of their pieces.
    pub files: Vec<FileEntry>,
    /// The files left out to fit the budget, in path order.
    pub omitted: Vec<Omitted>,
    /// Every readable file's rank, best first.
    pub ranking: Vec<Ranked>,
    /// The findings of the files in the prompt, by path, line and rule.
    pub findings: Vec<Finding>,
    /// Findings of files not in the prompt: counted, not described.
    pub findings_left_out: usize,
}

/// The listing of `fitted`: each kept file's entry (the last one's count as it is rendered
/// last), each omitted file's, the ranking by path, and the findings of the files in the prompt
/// only (the rest are counted).
pub fn listing(
    m: &Measure<'_>,
    kept: &[(String, Body)],
    fitted: &budget::Plan,
    ranking: Vec<(usize, rank::Score)>,
    findings: Vec<Vec<Finding>>,
) -> Listing {
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
    let mut in_prompt = vec![false; kept.len()];
    for &i in &fitted.kept {
        in_prompt[i] = true;
    }
    let mut described = Vec::new();
    let mut findings_left_out = 0;
    for (i, found) in findings.into_iter().enumerate() {
        if in_prompt[i] {
            described.extend(found);
        } else {
            findings_left_out += found.len();
        }
    }
    described.sort_by(|a, b| (&a.path, a.line, a.rule).cmp(&(&b.path, b.line, b.rule)));
    Listing {
        files,
        omitted,
        ranking,
        findings: described,
        findings_left_out,
    }
}
