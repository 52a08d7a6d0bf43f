//! Line diffs as git makes them: Myers with git's indent heuristic (imara-diff), hunks grouped
//! with `context` lines around each change and merged when at most twice that apart, line
//! counts, and a rename similarity score.

use imara_diff::{Algorithm, Diff, InternedInput};
use rustc_hash::FxHashMap;

/// One line of a hunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// `b' '` (context), `b'-'` (removed) or `b'+'` (added).
    pub kind: u8,
    /// The line without its `\n` (a `\r` before it is kept, as git shows it).
    pub text: String,
    /// The line is the last of its file and has no `\n`.
    pub no_newline: bool,
}

/// A hunk: its ranges (1-based starts as git prints them) and its lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hunk {
    pub old_start: u32,
    pub old_len: u32,
    pub new_start: u32,
    pub new_len: u32,
    /// The function line git shows after the header: the nearest line above the hunk that
    /// starts with a letter, `_` or `$` (git's default), cut to 80 bytes.
    pub func: Option<String>,
    pub lines: Vec<Line>,
}

impl Hunk {
    /// The `@@ -a,b +c,d @@` header, as git writes it.
    pub fn header(&self) -> String {
        let range = |start: u32, len: u32| {
            if len == 1 {
                format!("{start}")
            } else {
                format!("{start},{len}")
            }
        };
        let mut out = format!(
            "@@ -{} +{} @@",
            range(self.old_start, self.old_len),
            range(self.new_start, self.new_len)
        );
        if let Some(f) = &self.func {
            out.push(' ');
            out.push_str(f);
        }
        out
    }
}

/// A file's line diff.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineDiff {
    pub hunks: Vec<Hunk>,
    pub added: u32,
    pub removed: u32,
}

fn diff_of<'a>(old: &'a str, new: &'a str) -> (InternedInput<&'a str>, Diff) {
    let input = InternedInput::new(old, new);
    let mut diff = Diff::compute(Algorithm::Myers, &input);
    diff.postprocess_lines(&input);
    (input, diff)
}

/// Lines added and removed from `old` to `new` (git's `--numstat`).
pub fn count(old: &str, new: &str) -> (u32, u32) {
    let (_, diff) = diff_of(old, new);
    (diff.count_additions(), diff.count_removals())
}

/// The hunks from `old` to `new` with `context` lines around each change.
pub fn diff_lines(old: &str, new: &str, context: u32) -> LineDiff {
    let (input, diff) = diff_of(old, new);
    let changes: Vec<imara_diff::Hunk> = diff.hunks().collect();
    let before = &input.before;
    let after = &input.after;
    let (n_old, n_new) = (before.len() as u32, after.len() as u32);
    let line = |kind: u8, token: imara_diff::Token| {
        let raw: &str = input.interner[token];
        let (text, no_newline) = match raw.strip_suffix('\n') {
            Some(t) => (t, false),
            None => (raw, true),
        };
        Line {
            kind,
            text: text.to_string(),
            no_newline,
        }
    };
    let mut hunks = Vec::new();
    // The last function line before the scan position, found in one forward pass.
    let (mut scanned, mut func): (u32, Option<u32>) = (0, None);
    let mut i = 0;
    while i < changes.len() {
        // The group of changes at most 2*context apart.
        let mut j = i;
        while j + 1 < changes.len()
            && changes[j + 1].before.start - changes[j].before.end <= 2 * context
        {
            j += 1;
        }
        let first = &changes[i];
        let last = &changes[j];
        let pre = context.min(first.before.start).min(first.after.start);
        let post = context
            .min(n_old - last.before.end)
            .min(n_new - last.after.end);
        let old_from = first.before.start - pre;
        let new_from = first.after.start - pre;
        let old_to = last.before.end + post;
        let new_to = last.after.end + post;
        let mut lines = Vec::new();
        let mut pos = old_from;
        for c in &changes[i..=j] {
            for k in pos..c.before.start {
                lines.push(line(b' ', before[k as usize]));
            }
            for k in c.before.clone() {
                lines.push(line(b'-', before[k as usize]));
            }
            for k in c.after.clone() {
                lines.push(line(b'+', after[k as usize]));
            }
            pos = c.before.end;
        }
        for k in pos..old_to {
            lines.push(line(b' ', before[k as usize]));
        }
        while scanned < old_from {
            let text: &str = input.interner[before[scanned as usize]];
            if text
                .bytes()
                .next()
                .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
            {
                func = Some(scanned);
            }
            scanned += 1;
        }
        let func_text = func.map(|k| {
            let text: &str = input.interner[before[k as usize]];
            let bytes = &text.as_bytes()[..text.len().min(80)];
            String::from_utf8_lossy(bytes).trim_end().to_string()
        });
        let (old_len, new_len) = (old_to - old_from, new_to - new_from);
        hunks.push(Hunk {
            old_start: if old_len == 0 { old_from } else { old_from + 1 },
            old_len,
            new_start: if new_len == 0 { new_from } else { new_from + 1 },
            new_len,
            func: func_text,
            lines,
        });
        i = j + 1;
    }
    LineDiff {
        hunks,
        added: diff.count_additions(),
        removed: diff.count_removals(),
    }
}

/// How alike `old` and `new` are, in percent: the bytes of their common lines over the larger
/// size (git's rename similarity, measured by lines).
pub fn similarity(old: &str, new: &str) -> u32 {
    let larger = old.len().max(new.len());
    if larger == 0 {
        return 100;
    }
    let (input, diff) = diff_of(old, new);
    let common: usize = input
        .before
        .iter()
        .enumerate()
        .filter(|(k, _)| !diff.is_removed(*k as u32))
        .map(|(_, t)| input.interner[*t].len())
        .sum();
    (common * 100 / larger) as u32
}

/// A text's lines (as the diff splits them: each with its `\n`) and how often each occurs, for
/// [`similarity_bound`].
pub struct LineSet<'a> {
    counts: FxHashMap<&'a str, u32>,
    len: usize,
}

impl<'a> LineSet<'a> {
    pub fn new(text: &'a str) -> LineSet<'a> {
        let mut counts = FxHashMap::default();
        for line in text.split_inclusive('\n') {
            *counts.entry(line).or_insert(0) += 1;
        }
        LineSet {
            counts,
            len: text.len(),
        }
    }
}

/// At least [`similarity`] of the two texts, from their lines alone: a line can be common to
/// both at most as many times as the rarer side has it. No diff is made, so a pair this puts
/// under a threshold is ruled out cheaply, and [`similarity`] decides the rest exactly.
pub fn similarity_bound(old: &LineSet<'_>, new: &LineSet<'_>) -> u32 {
    let larger = old.len.max(new.len);
    if larger == 0 {
        return 100;
    }
    let (few, many) = if old.counts.len() <= new.counts.len() {
        (old, new)
    } else {
        (new, old)
    };
    let common: usize = few
        .counts
        .iter()
        .map(|(line, &n)| {
            many.counts
                .get(line)
                .map_or(0, |&m| n.min(m) as usize * line.len())
        })
        .sum();
    (common.min(larger) * 100 / larger) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_are_grouped_as_git_groups_them() {
        let old: String = (1..=20).map(|i| format!("line {i}\n")).collect();
        let new = old
            .replace("line 3\n", "line three\n")
            .replace("line 17\n", "");
        let d = diff_lines(&old, &new, 3);
        assert_eq!(d.hunks.len(), 2);
        assert_eq!(d.hunks[0].header(), "@@ -1,6 +1,6 @@");
        assert_eq!(d.hunks[1].header(), "@@ -14,7 +14,6 @@ line 13");
        assert_eq!((d.added, d.removed), (1, 2));
        // Closer changes merge into one hunk.
        let near = old.replace("line 9\n", "nine\n").replace("line 3\n", "3\n");
        assert_eq!(diff_lines(&old, &near, 3).hunks.len(), 1);
        // A file without a final newline.
        let d = diff_lines("a\nb", "a\nc", 3);
        assert!(d.hunks[0].lines.iter().any(|l| l.no_newline));
        assert_eq!(d.hunks[0].header(), "@@ -1,2 +1,2 @@");
        // Added from nothing.
        assert_eq!(diff_lines("", "x\n", 3).hunks[0].header(), "@@ -0,0 +1 @@");
    }

    #[test]
    fn similarity_measures_common_lines() {
        assert_eq!(similarity("a\nb\n", "a\nb\n"), 100);
        assert_eq!(similarity("a\nb\n", "c\nd\n"), 0);
        assert!(similarity("a\nb\nc\nd\n", "a\nb\nc\ne\n") >= 50);
    }

    #[test]
    fn the_bound_is_never_under_the_similarity() {
        let texts = [
            "",
            "a\n",
            "a\nb\nc\nd\n",
            "d\nc\nb\na\n",
            "a\na\na\nb",
            "x\ny\nz\n",
            "a\nb\nc\ne\n",
            "b\na\n\n\nc",
        ];
        for old in texts {
            for new in texts {
                let bound = similarity_bound(&LineSet::new(old), &LineSet::new(new));
                assert!(bound >= similarity(old, new), "{old:?} {new:?}");
            }
        }
        // Reordered lines: all in common by the bound, half by the diff.
        let (a, b) = ("a\nb\nc\nd\n", "d\nc\nb\na\n");
        assert_eq!(similarity_bound(&LineSet::new(a), &LineSet::new(b)), 100);
        assert!(similarity(a, b) < 100);
        // Nothing in common: ruled out without a diff.
        assert_eq!(
            similarity_bound(&LineSet::new(a), &LineSet::new("x\ny\n")),
            0
        );
    }
}
