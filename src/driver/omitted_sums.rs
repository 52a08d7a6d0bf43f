//! The omitted section's count without drawing it: the budget's fit measures many prompts that
//! differ from the last one by a few files moved in or out of the omitted section, and with
//! skeletons that section lists thousands of lines. Per level of detail ([`view_at`]'s
//! `depth`), [`OmittedSums`] keeps the lines of the last omitted set it was asked about (each
//! line's label, files and tokens) and the sum of their counts, each line counted alone; the
//! next set is met by moving only the files that differ, recounting only the lines they
//! touch (each distinct line is rendered and counted once per run).
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

/// The running sums, per level, and the counts of the lines met.
#[derive(Default)]
pub struct OmittedSums {
    levels: HashMap<Option<usize>, Level>,
    /// Each line's count, by label, then by (files, tokens).
    lines: HashMap<String, HashMap<(usize, usize), LineCount>>,
}

/// The lines of one level for the omitted set last asked about.
#[derive(Default)]
struct Level {
    omitted: Vec<usize>,
    /// Each line's files and tokens, by label.
    groups: HashMap<String, (usize, usize)>,
    /// The sum of the lines' counts.
    sum: usize,
    /// How many lines are not sealed.
    unsealed: usize,
    /// Tokens of the omitted files.
    tokens: usize,
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
        let mut state = self.levels.remove(&level).unwrap_or_default();
        self.update(&mut state, omitted, level, paths, tokens, line);
        let split = self.ends(&state, first, last, level, paths, line);
        self.levels.insert(level, state);
        split
    }

    /// Move `state` to `omitted`: the files that left or joined change their lines' counts.
    fn update(
        &mut self,
        state: &mut Level,
        omitted: &[usize],
        level: Option<usize>,
        paths: &[&str],
        tokens: &[usize],
        line: &mut dyn FnMut(&OmittedLine) -> LineCount,
    ) {
        // Per label: files and tokens joining (positive) and leaving (negative).
        let mut delta: HashMap<&str, (isize, isize)> = HashMap::new();
        let mut moved = |i: usize, sign: isize| {
            let d = delta.entry(label_at(paths[i], level).0).or_default();
            d.0 += sign;
            d.1 += sign * tokens[i] as isize;
        };
        let (old, mut a, mut b) = (&state.omitted, 0, 0);
        while a < old.len() || b < omitted.len() {
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
        for (label, (files, toks)) in delta {
            let before = state.groups.get(label).copied();
            if let Some((f, t)) = before {
                let c = self.count(label, f, t, line);
                state.sum -= c.tokens;
                state.unsealed -= usize::from(!c.sealed);
            }
            let (f, t) = before.unwrap_or((0, 0));
            let (f, t) = (
                f.saturating_add_signed(files),
                t.saturating_add_signed(toks),
            );
            state.tokens = state.tokens.saturating_add_signed(toks);
            if f == 0 {
                state.groups.remove(label);
                continue;
            }
            let c = self.count(label, f, t, line);
            state.sum += c.tokens;
            state.unsealed += usize::from(!c.sealed);
            state.groups.insert(label.to_string(), (f, t));
        }
        state.omitted.clear();
        state.omitted.extend_from_slice(omitted);
    }

    /// The split of `state`, whose first file is `first` and last `last`.
    fn ends(
        &mut self,
        state: &Level,
        first: usize,
        last: usize,
        level: Option<usize>,
        paths: &[&str],
        line: &mut dyn FnMut(&OmittedLine) -> LineCount,
    ) -> Option<Split> {
        if state.unsealed > 0 || state.groups.len() < 2 {
            return None;
        }
        let mut end = |i: usize| -> Option<(OmittedLine, usize)> {
            let label = label_at(paths[i], level).0;
            let &(files, tokens) = state.groups.get(label)?;
            let c = self.count(label, files, tokens, line);
            let l = OmittedLine {
                label: label.to_string(),
                files,
                tokens,
            };
            Some((l, c.tokens))
        };
        let (head, head_tokens) = end(first)?;
        let (tail, tail_tokens) = end(last)?;
        Some(Split {
            ends: OmittedView {
                files: state.omitted.len(),
                tokens: state.tokens,
                lines: vec![head, tail],
            },
            middle: state.sum.checked_sub(head_tokens + tail_tokens)?,
        })
    }

    /// The count of the line `label` with `files` files of `tokens` tokens, remembered.
    fn count(
        &mut self,
        label: &str,
        files: usize,
        tokens: usize,
        line: &mut dyn FnMut(&OmittedLine) -> LineCount,
    ) -> LineCount {
        if let Some(c) = self.lines.get(label).and_then(|m| m.get(&(files, tokens))) {
            return *c;
        }
        let c = line(&OmittedLine {
            label: label.to_string(),
            files,
            tokens,
        });
        self.lines
            .entry(label.to_string())
            .or_default()
            .insert((files, tokens), c);
        c
    }
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
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
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
        assert!(sums.split(&[0, 1, 2], None, &paths, &tokens, &mut toy).is_none());
        // Once the unsealed line has left, the split is back.
        assert!(sums.split(&[1, 2], None, &paths, &tokens, &mut toy).is_some());
        assert!(sums.split(&[], None, &paths, &tokens, &mut toy).is_none());
    }
}
