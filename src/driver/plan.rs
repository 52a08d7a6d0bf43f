//! The driver's choice of what goes in: rank the kept files, then fit them to the budget,
//! measuring every candidate prompt exactly. A prompt's count is the preamble's (rendered and
//! counted for each trial) plus the kept pieces' counts (known from the per-file step) plus the
//! epilogue's; only json's last piece differs from its measured form (no trailing comma), and its
//! count is memoized per file.

use super::file::{Body, FileContext};
use crate::error::Error;
use crate::stages::render::{self, FileView, RenderOptions};
use crate::stages::{budget, rank};
use crate::vocab::{Format, OmittedView};
use std::collections::HashMap;
use std::sync::Mutex;

/// The measure of every prompt a run could render from its kept files.
pub struct Measure<'a> {
    ctx: &'a FileContext<'a>,
    /// The kept files, in path order: display path and body.
    kept: &'a [(String, Body)],
    render: &'a RenderOptions,
    repo_name: &'a str,
    epilogue: String,
    tail_tokens: usize,
    piece_tokens: Vec<usize>,
    last_memo: Mutex<HashMap<usize, usize>>,
}

impl<'a> Measure<'a> {
    pub fn new(ctx: &'a FileContext<'a>, kept: &'a [(String, Body)], repo_name: &'a str) -> Self {
        let render = &ctx.options.render;
        let epilogue = render::epilogue(render);
        Measure {
            ctx,
            kept,
            render,
            repo_name,
            tail_tokens: ctx.count(&epilogue),
            epilogue,
            piece_tokens: kept.iter().map(|(_, b)| b.tokens).collect(),
            last_memo: Mutex::new(HashMap::new()),
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

    /// The text before the first file, for these kept files (path order) and omitted view.
    pub fn preamble(&self, kept_ix: &[usize], view: &OmittedView) -> String {
        let kept_paths: Vec<&str> = kept_ix.iter().map(|&i| self.kept[i].0.as_str()).collect();
        render::preamble(self.render, self.repo_name, &kept_paths, view)
    }

    /// The exact token count of the whole prompt with exactly these kept files (path order) and
    /// this omitted section.
    pub fn measure(&self, kept_ix: &[usize], view: &OmittedView) -> usize {
        let head = self.preamble(kept_ix, view);
        let body: usize = kept_ix.iter().map(|&i| self.piece_tokens[i]).sum();
        let last_fix = kept_ix.last().map_or(0, |&l| self.last_tokens(l)) as isize
            - kept_ix.last().map_or(0, |&l| self.piece_tokens[l]) as isize;
        (self.ctx.count(&head) + body + self.tail_tokens).saturating_add_signed(last_fix)
    }
}

/// Rank the kept files by `query` (path order when there is none): best first, with scores.
pub fn rank(kept: &[(String, Body)], query: Option<&str>) -> Vec<(usize, rank::Score)> {
    let docs: Vec<rank::Doc<'_>> = kept
        .iter()
        .map(|(path, t)| rank::Doc {
            path,
            text: &t.text,
        })
        .collect();
    rank::rank(&docs, query)
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
        let tokens = m.measure(&all, &view);
        return Ok(budget::Plan {
            kept: all,
            omitted: Vec::new(),
            view,
            tokens,
        });
    };
    let ranked: Vec<usize> = ranking.iter().map(|(i, _)| *i).collect();
    let paths: Vec<&str> = m.kept.iter().map(|(p, _)| p.as_str()).collect();
    budget::fit(
        b,
        &ranked,
        &paths,
        &m.piece_tokens,
        &|kept, view| m.measure(kept, view),
        &|i| m.ctx.count(paths[i]) + 2,
    )
}
