//! The omitted section's count without drawing it: the budget's fit measures many prompts that
//! differ from the last one by a few files moved in or out of the omitted section, and with
//! skeletons that section lists thousands of lines. Per level of detail ([`view_at`]'s
//! `depth`), [`OmittedSums`] keeps the lines of the last omitted set it was asked about (each
//! line's files and tokens) and the sum of their counts, each line counted alone; the next
//! set is met by moving only the files that differ, recounting only the lines they touch
//! (each distinct line is rendered and counted once per run).
//!
//! The sum stands for the lines between the first and the last one when every line is sealed
//! ([`count::is_sealed`]: no tokenizer joins two of them): the prompt is then measured with
//! just its first and last omitted lines (and the true totals in the header) plus the sum of
//! the others. That is exact: the sealed lines in between meet their neighbours at safe cuts,
//! so their counts add. When a line is not sealed (json puts the omitted section on one line)
//! or the display paths are not in order (a directory's files would not be adjacent), the
//! caller draws and measures the whole view instead.
//!
//! [`view_at`]: crate::stages::budget::view_at

use crate::stages::budget::label_at;
use crate::stages::count;
use crate::vocab::{OmittedLine, OmittedView};
use std::collections::HashMap;

/// One omitted line, counted alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCount {
    pub tokens: usize,
    /// The line's text is sealed ([`count::is_sealed`]).
    pub sealed: bool,
}

/// The omitted section of one measurement, split: the view to draw (the first and last lines,
/// the totals of all) and the tokens of the lines in between.
#[derive(Debug)]
pub struct Split {
    pub ends: OmittedView,
    pub middle: usize,
}

/// The running sums, per level.
#[derive(Default)]
pub struct OmittedSums {
    levels: HashMap<Option<usize>, Level>,
    /// Each file's own line (shown alone, at any level), once counted.
    own: Vec<Option<LineCount>>,
}

/// The lines of one level for the omitted set last asked about. A line is named by its
/// number among the level's lines over every file (path order): files with the same group
/// label are adjacent in path order, so they share a number, and no label is ever hashed.
struct Level {
    /// Each file's line number.
    line_of: Vec<u32>,
    /// Each line's first file (whose label is the line's), and whether it is a group.
    first_file: Vec<(usize, bool)>,
    /// Each line's omitted files and their tokens.
    groups: Vec<(usize, usize)>,
    /// Lines with at least one omitted file.
    shown: usize,
    omitted: Vec<usize>,
    /// The sum of the shown lines' counts.
    sum: usize,
    /// How many shown lines are not sealed.
    unsealed: usize,
    /// Tokens of the omitted files.
    tokens: usize,
    /// Each line's count, by line number, files and tokens, once met.
    counts: HashMap<(u32, usize, usize), LineCount>,
}

impl Level {
    fn new(level: Option<usize>, paths: &[&str]) -> Level {
        let mut line_of = Vec::with_capacity(paths.len());
        let mut first_file = Vec::new();
        let mut prev: Option<(&str, bool)> = None;
        for (i, p) in paths.iter().enumerate() {
            let (label, group) = label_at(p, level);
            let same = matches!(prev, Some((l, true)) if group && l == label);
            if !same {
                first_file.push((i, group));
            }
            line_of.push(first_file.len() as u32 - 1);
            prev = Some((label, group));
        }
        Level {
            line_of,
            groups: vec![(0, 0); first_file.len()],
            first_file,
            shown: 0,
            omitted: Vec::new(),
            sum: 0,
            unsealed: 0,
            tokens: 0,
            counts: HashMap::new(),
        }
    }

    /// The count of line `id` with `files` files of `tokens` tokens, remembered: a group's
    /// in this level, a file's own line in `own`, for every level.
    fn count(
        &mut self,
        own: &mut [Option<LineCount>],
        id: u32,
        (files, tokens): (usize, usize),
        label: &str,
        line: &mut dyn FnMut(&OmittedLine) -> LineCount,
    ) -> LineCount {
        let draw = || {
            line(&OmittedLine {
                label: label.to_string(),
                files,
                tokens,
            })
        };
        match self.first_file[id as usize] {
            (file, false) => *own[file].get_or_insert_with(draw),
            _ => *self.counts.entry((id, files, tokens)).or_insert_with(draw),
        }
    }
}

impl OmittedSums {
    /// The omitted files `omitted` (indices in path order; `paths` strictly increasing) shown
    /// at `level`, split into the view of its first and last lines and the count of the lines
    /// between; `None` when there are fewer than two lines or one is not sealed. `line` renders
    /// and counts one line alone.
    pub fn split(
        &mut self,
        omitted: &[usize],
        level: Option<usize>,
        paths: &[&str],
        tokens: &[usize],
        line: &mut dyn FnMut(&OmittedLine) -> LineCount,
    ) -> Option<Split> {
        let (Some(&first), Some(&last)) = (omitted.first(), omitted.last()) else {
            return None;
        };
        if self.own.len() != paths.len() {
            self.own = vec![None; paths.len()];
        }
        let own = &mut self.own;
        let state = self
            .levels
            .entry(level)
            .or_insert_with(|| Level::new(level, paths));
        update(state, own, omitted, level, paths, tokens, line);
        if state.unsealed > 0 || state.shown < 2 {
            return None;
        }
        let mut end = |i: usize| -> (OmittedLine, usize) {
            let id = state.line_of[i];
            let group = state.groups[id as usize];
            let label = label_at(paths[i], level).0;
            let c = state.count(own, id, group, label, line);
            let l = OmittedLine {
                label: label.to_string(),
                files: group.0,
                tokens: group.1,
            };
            (l, c.tokens)
        };
        let (head, head_tokens) = end(first);
        let (tail, tail_tokens) = end(last);
        Some(Split {
            ends: OmittedView {
                files: omitted.len(),
                tokens: state.tokens,
                lines: vec![head, tail],
            },
            middle: state.sum.checked_sub(head_tokens + tail_tokens)?,
        })
    }
}

/// Move `state` to `omitted`: the files that left or joined change their lines' counts.
fn update(
    state: &mut Level,
    own: &mut [Option<LineCount>],
    omitted: &[usize],
    level: Option<usize>,
    paths: &[&str],
    tokens: &[usize],
    line: &mut dyn FnMut(&OmittedLine) -> LineCount,
) {
    // Per line touched, in path order: files and tokens joining (positive) or leaving.
    let mut delta: Vec<(u32, isize, isize)> = Vec::new();
    let line_of = &state.line_of;
    let mut moved = |i: usize, sign: isize| {
        let id = line_of[i];
        let t = sign * tokens[i] as isize;
        match delta.last_mut() {
            Some(d) if d.0 == id => {
                d.1 += sign;
                d.2 += t;
            }
            _ => delta.push((id, sign, t)),
        }
    };
    let (old, mut a, mut b) = (&state.omitted, 0, 0);
    loop {
        match (old.get(a), omitted.get(b)) {
            (Some(x), Some(y)) if x == y => {
                a += 1;
                b += 1;
            }
            (Some(&x), Some(&y)) if x < y => {
                moved(x, -1);
                a += 1;
            }
            (Some(&x), None) => {
                moved(x, -1);
                a += 1;
            }
            (_, Some(&y)) => {
                moved(y, 1);
                b += 1;
            }
            (None, None) => break,
        }
    }
    for (id, files, toks) in delta {
        let label = label_at(paths[state.first_file[id as usize].0], level).0;
        let before = state.groups[id as usize];
        if before.0 > 0 {
            let c = state.count(own, id, before, label, line);
            state.sum -= c.tokens;
            state.unsealed -= usize::from(!c.sealed);
            state.shown -= 1;
        }
        let after = (
            before.0.saturating_add_signed(files),
            before.1.saturating_add_signed(toks),
        );
        state.tokens = state.tokens.saturating_add_signed(toks);
        state.groups[id as usize] = after;
        if after.0 > 0 {
            let c = state.count(own, id, after, label, line);
            state.sum += c.tokens;
            state.unsealed += usize::from(!c.sealed);
            state.shown += 1;
        }
    }
    state.omitted.clear();
    state.omitted.extend_from_slice(omitted);
}

/// A line's count and whether it is sealed, from its text.
pub fn line_count(text: &str, tokens: usize) -> LineCount {
    LineCount {
        tokens,
        sealed: count::is_sealed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::budget::view_at;

    /// A line's "count": its label's length plus the digits of its numbers; sealed unless its
    /// label starts with `!`.
    fn toy(l: &OmittedLine) -> LineCount {
        LineCount {
            tokens: l.label.len() + l.files.to_string().len() + l.tokens.to_string().len(),
            sealed: !l.label.starts_with('!'),
        }
    }

    fn sum(view: &OmittedView) -> usize {
        view.lines.iter().map(|l| toy(l).tokens).sum()
    }

    /// Whatever sequence of omitted sets is asked for, at every level, the split's ends are the
    /// view's first and last lines with its totals, and ends plus middle count as the view.
    #[test]
    fn splits_agree_with_the_drawn_views() {
        let mut paths: Vec<String> = (0..60)
            .map(|i| format!("d{}/e{}/f{i:02}.rs", i % 4, i % 3))
            .chain(["top.rs".to_string(), "z/zz.rs".to_string()])
            .collect();
        paths.sort();
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        let tokens: Vec<usize> = (0..paths.len()).map(|i| 7 + i * 13 % 50).collect();
        let mut sums = OmittedSums::default();
        let mut seed = 17u64;
        for round in 0..200 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Mostly small moves from the last set, sometimes a new one.
            let omitted: Vec<usize> = (0..paths.len())
                .filter(|&i| (seed >> (i % 60)) & 3 != 0 || (round % 7 == 0 && i % 2 == 0))
                .collect();
            for level in [None, Some(0), Some(1), Some(2), Some(3)] {
                let view = view_at(&omitted, &paths, &tokens, level);
                let split = sums.split(&omitted, level, &paths, &tokens, &mut toy);
                if view.lines.len() < 2 {
                    assert!(split.is_none());
                    continue;
                }
                let split = split.expect("every line is sealed");
                assert_eq!(split.ends.files, view.files);
                assert_eq!(split.ends.tokens, view.tokens);
                assert_eq!(split.ends.lines[0], view.lines[0]);
                assert_eq!(split.ends.lines[1], *view.lines.last().unwrap());
                assert_eq!(sum(&split.ends) + split.middle, sum(&view), "{level:?}");
            }
        }
    }

    #[test]
    fn an_unsealed_line_declines_the_split() {
        let paths = ["!odd.rs", "a.rs", "b.rs"];
        let tokens = [1, 2, 3];
        let mut sums = OmittedSums::default();
        assert!(
            sums.split(&[0, 1, 2], None, &paths, &tokens, &mut toy)
                .is_none()
        );
        // Once the unsealed line has left, the split is back.
        assert!(
            sums.split(&[1, 2], None, &paths, &tokens, &mut toy)
                .is_some()
        );
        assert!(sums.split(&[], None, &paths, &tokens, &mut toy).is_none());
    }
}
