//! Answers made of one section per named file (`read`, `outline`): the section, how many of
//! its items each section shows when the answer shows `k` in all, the text of the sections
//! shown, and the `paths` argument that continues a cut answer from where it stopped.

use super::fit::Limits;
use super::read::Entry;
use std::fmt::Write as _;

/// What a section holds: a number of items (lines, definitions, one note), and the entry that
/// continues it after some of them.
pub trait Items {
    /// How many items it can show.
    fn items(&self) -> usize;
    /// The `paths` entry that continues the section of `entry` after `shown` of its items.
    fn rest(&self, entry: &Entry, shown: usize) -> Option<String>;
}

/// One named file of an answer: the entry as asked, its path as shown, and what it holds.
pub struct Section<B> {
    pub entry: Entry,
    pub shown: String,
    pub body: B,
}

impl<B: Items> Section<B> {
    pub fn items(&self) -> usize {
        self.body.items()
    }

    /// The entry that continues this section after `shown` of its items.
    pub fn rest(&self, shown: usize) -> Option<String> {
        self.body.rest(&self.entry, shown)
    }
}

/// How many items each section shows when the answer shows `k`, in order.
pub fn allot<B: Items>(sections: &[Section<B>], mut k: usize) -> Vec<usize> {
    sections
        .iter()
        .map(|sec| {
            let n = sec.items().min(k);
            k -= n;
            n
        })
        .collect()
}

/// The continuation after `shown` items per section; `cut_first`: the section whose first
/// item shown was cut (it continues after that item).
pub fn next<B: Items>(
    sections: &[Section<B>],
    shown: &[usize],
    cut_first: Option<usize>,
) -> Vec<String> {
    sections
        .iter()
        .enumerate()
        .filter_map(|(s, sec)| match cut_first {
            Some(c) if c == s => sec.rest(1),
            _ => sec.rest(shown[s]),
        })
        .collect()
}

/// The text of the sections that show something (`shown` items each), a blank line between
/// two: `section` writes section `s` showing `n` items.
pub fn text<B>(
    sections: &[Section<B>],
    shown: &[usize],
    mut section: impl FnMut(&mut String, usize, &Section<B>, usize),
) -> String {
    let mut out = String::new();
    for (s, sec) in sections.iter().enumerate() {
        let n = shown[s];
        if n == 0 {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        section(&mut out, s, sec, n);
    }
    out
}

/// The line that ends a cut answer: the limits it was cut to, and the `paths` that continue it.
pub fn footer(out: &mut String, limits: &Limits, next: &[String]) {
    if next.is_empty() {
        return;
    }
    let args = serde_json::json!({ "paths": next });
    let limit = limits.describe();
    let _ = write!(out, "\n--- cut to fit {limit}. Continue with: {args}\n");
}
