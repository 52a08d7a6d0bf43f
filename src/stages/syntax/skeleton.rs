//! Skeletons: a source text with each function's and method's body replaced by one marker line
//! naming the lines it stands for, at the body's indentation (`⋯ 41 lines (88–128)`; at
//! `signatures` the range alone, between the braces when they have lines of their own:
//! `fn f() { ⋯ 88–128 }`; and at `signatures` only, a body the lines keep, of one line, goes
//! within its lines when the marker is shorter, `f() { ⋯ 33 }`, `def f(): ⋯ 33`, as does a
//! function-like C macro's replacement text, `#define SQ(x) ⋯ 12`); the rest
//! (imports, declarations, signatures, attributes, fields) is kept as it is. By level
//! ([`Compress`]), its comments are kept as written (`docs`); its doc comments are cut to their
//! first sentence, in the comment's own syntax, and its other comments dropped (`summary`); or
//! every comment is dropped (`signatures`). At `summary` and `signatures`, the other blocks of
//! code (a callback's, a closure's, a test's body) are elided as bodies are, a callback with the
//! call it closes (`describe("x", () => { … })` goes whole); but a block that holds definitions
//! (or, at `summary`, doc comments) keeps their lines, and only each run of two lines or more
//! between them is elided. A shebang and compiler directives (`//go:build`,
//! `/// <reference …/>`, Ruby's magic comments) are kept at every level. A comment on lines of
//! its own goes with its lines (and with a blank line it leaves doubled); one after code on its
//! line goes with the spaces before it.

use super::{Comment, Found};
use crate::vocab::{Compress, LineRange, Symbol};

/// Longest first sentence a `summary` keeps, in characters (cut with `…`): a doc comment
/// without a full stop is not kept whole.
const MAX_SENTENCE_CHARS: usize = 300;

/// One change to the text: the bytes `start..end` replaced by `with`. Where two overlap, the
/// one that starts first (an elided body before a comment at the same place) is made.
struct Edit {
    start: usize,
    end: usize,
    /// 0 for an elided body, 1 for a comment: the order of edits that start together.
    rank: u8,
    with: String,
}

/// The skeleton of `text` at `level`, from its definitions and (for `summary` and
/// `signatures`) its comments and blocks of code, as [`super::found_of`] found them.
pub fn skeleton(text: &str, found: &Found, level: Compress) -> String {
    let starts = line_starts(text);
    let all = Symbol::walk(&found.symbols);
    let mut cuts: Vec<LineRange> = all.iter().filter_map(|(_, s)| s.body).collect();
    // The lines kept whatever block holds them: each definition's (its own body elided as
    // usual) and, at summary, each doc comment's.
    let mut kept: Vec<LineRange> = Vec::new();
    if level != Compress::Docs {
        kept.extend(all.iter().map(|(_, s)| s.lines));
        if level == Compress::Summary {
            let line_of = |byte: u32| starts.partition_point(|&s| s <= byte as usize) as u32;
            kept.extend(found.comments.iter().filter(|c| c.doc).map(|c| LineRange {
                start: line_of(c.start),
                end: line_of(c.end.saturating_sub(1)),
            }));
        }
        kept.sort();
        for b in &found.blocks {
            // A callback that holds none of them goes with its call; else its lines around them.
            match (b.whole, b.inner) {
                (Some(whole), _) if holds_none(&kept, whole) => cuts.push(whole),
                (_, Some(inner)) => cuts.extend(gaps(text, &starts, inner, &kept)),
                _ => {}
            }
        }
    }
    // The widest first of those that start together: a block before the blocks inside it.
    cuts.sort_by_key(|c| (c.start, std::cmp::Reverse(c.end)));
    if level != Compress::Docs {
        cuts = joined(text, &starts, cuts);
    }
    let mut edits: Vec<Edit> = cuts
        .iter()
        .filter_map(|c| body_edit(text, &starts, *c, level))
        .collect();
    if level != Compress::Docs {
        edits.extend(comment_edits(text, &starts, &found.comments, level));
    }
    if level == Compress::Signatures {
        edits.extend(
            found
                .inline
                .iter()
                .filter_map(|i| inline_edit(text, &starts, i, &kept)),
        );
    }
    edits.sort_by_key(|e| (e.start, e.rank));
    let mut out = String::with_capacity(text.len() / 2);
    let mut at = 0;
    for e in edits {
        if e.start < at || e.end > text.len() || !text.is_char_boundary(e.start) {
            continue;
        }
        out.push_str(&text[at..e.start]);
        out.push_str(&e.with);
        at = e.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The edit that elides the lines `c`: a marker line at their indentation, or, at
/// `signatures`, between the braces of a block whose opener ends the line before and whose
/// closer is all the line after (`fn f() { ⋯ 12–40 }`). At signatures the marker is the range
/// alone: the count it gives costs three tokens more.
fn body_edit(text: &str, starts: &[usize], c: LineRange, level: Compress) -> Option<Edit> {
    let first = *starts.get(c.start.checked_sub(1)? as usize)?;
    let end = starts.get(c.end as usize).copied().unwrap_or(text.len());
    if level == Compress::Signatures && first > 0 && end < text.len() {
        let header_start = line_start(text, starts, first - 1);
        let header = text[header_start..first].trim_end();
        let closer_line = &text[end..line_end(text, starts, end)];
        let closer = closer_line.trim();
        let closes = closer.starts_with('}') && closer.chars().all(|c| "})];,".contains(c));
        if header.ends_with('{') && closes && closer.len() <= 4 {
            return Some(Edit {
                start: header_start + header.len(),
                end: end + closer_line.trim_end().len(),
                rank: 0,
                with: format!(" ⋯ {}–{} {closer}", c.start, c.end),
            });
        }
    }
    let indent = &text[first..first + indent_len(&text[first..])];
    let with = match level {
        Compress::Signatures => format!("{indent}⋯ {}–{}\n", c.start, c.end),
        _ => format!("{indent}⋯ {} lines ({}–{})\n", c.len(), c.start, c.end),
    };
    Some(Edit {
        start: first,
        end,
        rank: 0,
        with,
    })
}

/// The edit that elides the text of `i` within its lines, at `signatures`: the marker between
/// its braces (`{ ⋯ 33 }`, `{ ⋯ 33–34 }` when it spans lines) or after what it follows
/// (`def f(): ⋯ 33`, `#define SQ(x) ⋯ 33`), naming the lines of its first and last word;
/// `None` when the marker is no shorter than the text, or a block's holds a definition.
fn inline_edit(
    text: &str,
    starts: &[usize],
    i: &super::Inline,
    kept: &[LineRange],
) -> Option<Edit> {
    let (start, end) = (i.start as usize, i.end as usize);
    if start >= end
        || end > text.len()
        || !text.is_char_boundary(start)
        || !text.is_char_boundary(end)
    {
        return None;
    }
    // Whitespace and a macro's line continuations are not its words.
    let space: &[char] = &[' ', '\t', '\r', '\n', '\\'];
    let inner = &text[start..end];
    let content = inner.trim_start_matches(space);
    let from = start + (inner.len() - content.len());
    let content = content.trim_end_matches(space);
    if content.is_empty() {
        return None;
    }
    let line_of = |byte: usize| starts.partition_point(|&s| s <= byte) as u32;
    let lines = LineRange {
        start: line_of(from),
        end: line_of(from + content.len() - 1),
    };
    if i.block && !holds_none(kept, lines) {
        return None;
    }
    let marker = if lines.start == lines.end {
        format!("⋯ {}", lines.start)
    } else {
        format!("⋯ {}–{}", lines.start, lines.end)
    };
    if content.chars().count() <= marker.chars().count() {
        return None;
    }
    // Lines joined end in closers alone (`}`, `});`): what follows on the closer's line is
    // not pulled onto the opener's (`} catch (E& e) {`, another definition).
    let rest = &text[end..line_end(text, starts, end)];
    if inner.contains('\n') {
        // The first seven words' characters at most: a long line after it is not read.
        let closers: Vec<char> = rest
            .chars()
            .filter(|c| !c.is_whitespace())
            .take(7)
            .collect();
        if closers.len() > 6 || !closers.iter().all(|&c| "})];,".contains(c)) {
            return None;
        }
    }
    // A closer after it on its line (`}`) stays one space away.
    let closer = !rest.trim().is_empty();
    Some(Edit {
        start,
        end,
        rank: 0,
        with: if closer {
            format!(" {marker} ")
        } else {
            format!(" {marker}")
        },
    })
}

/// `cuts` (sorted, the widest first among those that start together) without those inside
/// another, and with each two that only blank lines part made one: a run of elided tests is
/// one marker.
fn joined(text: &str, starts: &[usize], cuts: Vec<LineRange>) -> Vec<LineRange> {
    let mut out: Vec<LineRange> = Vec::with_capacity(cuts.len());
    for c in cuts {
        if let Some(last) = out.last_mut() {
            if c.end <= last.end {
                continue;
            }
            if c.start > last.end && (last.end + 1..c.start).all(|n| blank_line(text, starts, n)) {
                last.end = c.end;
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// Whether line `n` (1-based) holds nothing but whitespace (or is past the end).
fn blank_line(text: &str, starts: &[usize], n: u32) -> bool {
    let Some(&from) = (n as usize).checked_sub(1).and_then(|i| starts.get(i)) else {
        return true;
    };
    let to = starts.get(n as usize).copied().unwrap_or(text.len());
    blank(&text[from..to])
}

/// Whether no `kept` range (sorted) starts within `lines`.
fn holds_none(kept: &[LineRange], lines: LineRange) -> bool {
    let at = kept.partition_point(|k| k.start < lines.start);
    kept.get(at).is_none_or(|k| k.start > lines.end)
}

/// The runs of the block's lines that no `kept` range (sorted) starting in the block holds,
/// without the blank lines at their ends, of two lines or more: what a skeleton elides of a
/// block of code. (A range that starts before the block holds it: a namespace, a class.)
fn gaps(text: &str, starts: &[usize], block: LineRange, kept: &[LineRange]) -> Vec<LineRange> {
    let blank_line = |n: u32| blank_line(text, starts, n);
    let mut out = Vec::new();
    let mut push = |mut start: u32, mut end: u32| {
        while start <= end && blank_line(start) {
            start += 1;
        }
        while end >= start && blank_line(end) {
            end -= 1;
        }
        if end > start {
            out.push(LineRange { start, end });
        }
    };
    let mut at = block.start;
    let first = kept.partition_point(|k| k.start < block.start);
    for k in &kept[first..] {
        if k.start > block.end {
            break;
        }
        if k.start > at {
            push(at, k.start - 1);
        }
        at = at.max(k.end.saturating_add(1));
    }
    if at <= block.end {
        push(at, block.end);
    }
    out
}

/// The byte offset of each line's start (the lines `str::split_inclusive` gives).
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = Vec::new();
    if !text.is_empty() {
        starts.push(0);
    }
    starts.extend(
        text.bytes()
            .enumerate()
            .filter(|&(i, b)| b == b'\n' && i + 1 < text.len())
            .map(|(i, _)| i + 1),
    );
    starts
}

fn indent_len(line: &str) -> usize {
    line.bytes()
        .take_while(|b| *b == b' ' || *b == b'\t')
        .count()
}

/// Where the line holding byte `at` starts (a line break's byte is its line's), found in the
/// line starts `starts` of `text`: no scan of the line, so a file of one long line costs a
/// lookup per edit, not the line's length.
fn line_start(text: &str, starts: &[usize], at: usize) -> usize {
    if at > 0 && text.as_bytes().get(at - 1) == Some(&b'\n') {
        return at;
    }
    starts
        .partition_point(|&s| s <= at)
        .checked_sub(1)
        .map_or(0, |i| starts[i])
}

/// Where the line holding byte `at` ends, its line break included, found as `line_start`.
fn line_end(text: &str, starts: &[usize], at: usize) -> usize {
    let next = starts.partition_point(|&s| s <= at);
    starts.get(next).copied().unwrap_or(text.len())
}

fn blank(s: &str) -> bool {
    s.trim().is_empty()
}

/// The edits `level` makes to the comments: runs of comments on consecutive lines, each run of
/// one kind (doc or not), replaced by their first sentence or dropped.
fn comment_edits(text: &str, starts: &[usize], comments: &[Comment], level: Compress) -> Vec<Edit> {
    let mut edits = Vec::new();
    // The run so far: its bytes, whether its comments are docs, whether it has its lines.
    let mut run: Option<(usize, usize, bool, bool)> = None;
    let finish = |run: Option<(usize, usize, bool, bool)>, edits: &mut Vec<Edit>| {
        if let Some((start, end, doc, _)) = run {
            let summary = (doc && level == Compress::Summary)
                .then(|| summarize(&text[start..end]))
                .flatten();
            match summary {
                Some(s) if s == text[start..end] => {}
                Some(s) => edits.push(Edit {
                    start,
                    end,
                    rank: 1,
                    with: s,
                }),
                None => edits.push(removal(text, starts, start, end)),
            }
        }
    };
    for c in comments {
        let (start, end) = (c.start as usize, c.end as usize);
        if end > text.len() || start >= end || !text.is_char_boundary(start) {
            continue;
        }
        if !text.is_char_boundary(end) || directive(text, start, end) {
            finish(run.take(), &mut edits);
            continue;
        }
        let own_line = blank(&text[line_start(text, starts, start)..start]);
        run = match run {
            Some((s, e, doc, true))
                if doc == c.doc
                    && own_line
                    && e <= start
                    && blank(&text[e..start])
                    && text[e..start].matches('\n').count() == 1 =>
            {
                Some((s, end, doc, true))
            }
            other => {
                finish(other, &mut edits);
                Some((start, end, c.doc, own_line))
            }
        };
    }
    finish(run, &mut edits);
    edits
}

/// The edit that drops the comment `start..end`: with its lines when it has them to itself
/// (and with the blank line after it when a blank line or an opener is before it, or it opens
/// the file), else with the spaces before it (after code) or after it (before code).
fn removal(text: &str, starts: &[usize], start: usize, end: usize) -> Edit {
    let ls = line_start(text, starts, start);
    let le = line_end(text, starts, end);
    let before = &text[ls..start];
    let after = &text[end..le];
    let (from, to, with) = if blank(before) && blank(after) {
        let mut to = le;
        // After a blank line or an opener, a blank line after the comment is not needed.
        let prev = if ls == 0 {
            ""
        } else {
            text[line_start(text, starts, ls - 1)..ls].trim_end()
        };
        let opened = prev.is_empty() || prev.ends_with(['{', ':', '(', '[']);
        if opened && to < text.len() && blank(&text[to..line_end(text, starts, to)]) {
            to = line_end(text, starts, to);
        }
        (ls, to, "")
    } else if blank(after) {
        (start - (before.len() - before.trim_end().len()), end, "")
    } else {
        let spaces = after.len() - after.trim_start().len();
        // `int/*x*/y` keeps its two words apart.
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        let glued = word(before.chars().next_back()) && word(after.chars().next());
        (start, end + spaces, if glued { " " } else { "" })
    };
    Edit {
        start: from,
        end: to,
        rank: 1,
        with: with.to_string(),
    }
}

/// Whether the comment `start..end` is a shebang or a directive, kept at every level.
fn directive(text: &str, start: usize, end: usize) -> bool {
    let c = &text[start..end];
    if start == 0 && c.starts_with("#!") {
        return true;
    }
    let body = c
        .trim_start_matches(['/', '#', '-', '*'])
        .trim_start_matches(' ');
    [
        "go:",
        "+build",
        "<reference",
        "frozen_string_literal",
        "swift-tools-version",
    ]
    .iter()
    .any(|d| body.starts_with(d))
        || (c.contains("-*-") && line_starts(&text[..start]).len() < 2)
}

/// The doc comment `block` as its first sentence, written in the comment's own syntax; `None`
/// when it has no words (it is then dropped).
fn summarize(block: &str) -> Option<String> {
    let first = block.trim_start();
    let sentence = first_sentence(block)?;
    let one_line = |open: &str, close: &str, bad: &str, fix: &str| {
        format!("{open} {} {close}", sentence.replace(bad, fix))
            .trim_end()
            .to_string()
    };
    // Python's docstrings: the same quotes, with their prefix.
    let prefix = first
        .bytes()
        .take_while(|b| b"rRuUbBfF".contains(b))
        .count();
    let quotes = &first[prefix..];
    if prefix <= 2 && (quotes.starts_with('"') || quotes.starts_with('\'')) {
        let q = if quotes.starts_with("\"\"\"") || quotes.starts_with("'''") {
            &quotes[..3]
        } else {
            &quotes[..1]
        };
        let mark = q.chars().next().unwrap_or('"');
        let other = if mark == '"' { "'" } else { "\"" };
        let s = sentence.replace(mark, other);
        let s = s.trim_end_matches('\\');
        return Some(format!("{}{q}{s}{q}", &first[..prefix]));
    }
    // Elixir's doc attributes: one line as it is, else the sentence as a string.
    if let Some(attr) = first.strip_prefix('@') {
        if !block.trim_end().contains('\n') {
            return Some(block.to_string());
        }
        let name: String = attr
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let s = sentence
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace("#{", "\\#{");
        return Some(format!("@{name} \"{s}\""));
    }
    let line_markers = [
        "///", "//!", "//", "--- ", "-- |", "-- ^", "--", "##", "#", ";;",
    ];
    Some(match first {
        _ if first.starts_with("/**") => one_line("/**", "*/", "*/", "* /"),
        _ if first.starts_with("/*!") => one_line("/*!", "*/", "*/", "* /"),
        _ if first.starts_with("/*") => one_line("/*", "*/", "*/", "* /"),
        _ if first.starts_with("{-|") => one_line("{-|", "-}", "-}", "- }"),
        _ if first.starts_with("{-") => one_line("{-", "-}", "-}", "- }"),
        _ if first.starts_with("--[") => format!("-- {sentence}"),
        _ if first.starts_with("=begin") => format!("# {sentence}"),
        _ => {
            let marker = line_markers.iter().find(|m| first.starts_with(**m))?;
            format!("{} {sentence}", marker.trim_end())
        }
    })
}

/// The first sentence of a comment block's first paragraph, markers stripped and whitespace
/// collapsed: up to a `.`, `!` or `?` followed by the end or by a space and no lowercase
/// letter (so `e.g. this` goes on), at most [`MAX_SENTENCE_CHARS`].
fn first_sentence(block: &str) -> Option<String> {
    let mut para: Vec<&str> = Vec::new();
    for raw in block.lines().take(256) {
        let line = clean_line(raw);
        if line.is_empty() {
            if para.is_empty() {
                continue;
            }
            break;
        }
        // Tags end the description (`@param`, `:param x:`).
        if !para.is_empty() && (line.starts_with('@') || line.starts_with(":param")) {
            break;
        }
        para.push(line);
    }
    let text = para.join(" ");
    let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.is_empty() {
        return None;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut end = chars.len();
    for (i, c) in chars.iter().enumerate() {
        if matches!(c, '.' | '!' | '?') {
            let next = chars.get(i + 1);
            let after = chars.get(i + 2);
            let word_start = chars[..i]
                .iter()
                .rposition(|c| c.is_whitespace())
                .map_or(0, |p| p + 1);
            let abbreviation = chars[word_start..i].contains(&'.');
            if next.is_none()
                || (next == Some(&' ') && !after.is_some_and(|a| a.is_lowercase()) && !abbreviation)
            {
                end = i + 1;
                break;
            }
        }
    }
    if end > MAX_SENTENCE_CHARS {
        let cut: String = chars[..MAX_SENTENCE_CHARS].iter().collect();
        let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(a, _)| a);
        return Some(format!("{cut}…"));
    }
    Some(chars[..end].iter().collect())
}

/// A line of a comment block without its markers (`///`, ` * `, `-- |`, `{-`, quotes, `@doc`).
fn clean_line(raw: &str) -> &str {
    let mut s = raw.trim();
    for m in [
        "{-|", "{-", "-- ^", "---", "=begin", "=end", "--[[", "--]]", "]]", "-}",
    ] {
        s = s.strip_prefix(m).unwrap_or(s).trim();
        s = s.strip_suffix(m).unwrap_or(s).trim();
    }
    // C#'s XML docs: the summary's tags.
    s = s.strip_prefix("///").map_or(s, str::trim);
    s = s.strip_prefix("<summary>").unwrap_or(s).trim();
    s = s.strip_suffix("</summary>").unwrap_or(s).trim();
    for m in ["@moduledoc", "@typedoc"] {
        s = s.strip_prefix(m).unwrap_or(s);
    }
    // Python's string prefixes before the quotes.
    let prefix = s.bytes().take_while(|b| b"rRuUbBfF".contains(b)).count();
    if prefix <= 2 && s[prefix..].starts_with(['"', '\'']) {
        s = &s[prefix..];
    }
    let cleaned = super::clean_comment_line(s.as_bytes());
    std::str::from_utf8(cleaned).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::super::{Language, ParseBudget, found_of};
    use super::*;

    /// The skeleton of `text`, read as `lang`, at `level`.
    fn at(lang: Language, text: &str, level: Compress) -> String {
        let found = found_of(lang, text, &ParseBudget::default(), true, &|| false).unwrap();
        skeleton(text, &found, level)
    }

    const RUST: &str = "\
//! The crate. It does things.
//!
//! More about it.

// Licensed under MIT.

use std::io; // io

/// A thing. It holds a.
///
/// More details.
#[derive(Debug)]
pub struct Thing {
    /// The a field, e.g. one. Always positive.
    a: u32, // trailing
    // internal note
    b: u32,
}

impl Thing {
    /// New thing.
    pub fn new() -> Thing {
        // body comment
        let a = 1;
        Thing { a, b: 2 }
    }
}
";

    #[test]
    fn each_level_keeps_its_comments() {
        let docs = at(Language::Rust, RUST, Compress::Docs);
        assert!(docs.starts_with("//! The crate. It does things.\n//!\n//! More about it.\n"));
        assert!(docs.contains("    a: u32, // trailing\n    // internal note\n"));
        assert!(docs.contains("        ⋯ 3 lines (23–25)\n"), "{docs}");
        assert_eq!(
            at(Language::Rust, RUST, Compress::Summary),
            "\
//! The crate.

use std::io;

/// A thing.
#[derive(Debug)]
pub struct Thing {
    /// The a field, e.g. one.
    a: u32,
    b: u32,
}

impl Thing {
    /// New thing.
    pub fn new() -> Thing {
        ⋯ 3 lines (23–25)
    }
}
"
        );
        assert_eq!(
            at(Language::Rust, RUST, Compress::Signatures),
            "\
use std::io;

#[derive(Debug)]
pub struct Thing {
    a: u32,
    b: u32,
}

impl Thing {
    pub fn new() -> Thing { ⋯ 23–25 }
}
"
        );
    }

    #[test]
    fn docstrings_are_cut_or_dropped_and_a_shebang_stays() {
        let text = "\
#!/usr/bin/env python3
r\"\"\"Module doc. More.

Details.
\"\"\"

import os


class A:
    '''An A. Really.'''

    def m(self):
        \"\"\"Does \"m\".

        Details.
        \"\"\"
        x = 1
        return x
";
        assert_eq!(
            at(Language::Python, text, Compress::Summary),
            "\
#!/usr/bin/env python3
r\"\"\"Module doc.\"\"\"

import os


class A:
    '''An A.'''

    def m(self):
        \"\"\"Does 'm'.\"\"\"
        ⋯ 2 lines (18–19)
"
        );
        assert_eq!(
            at(Language::Python, text, Compress::Signatures),
            "\
#!/usr/bin/env python3

import os


class A:
    def m(self):
        ⋯ 18–19
"
        );
    }

    #[test]
    fn directives_and_package_docs() {
        let text = "\
//go:build linux

// Package c does c. Really.
package c

// T is a type. It types.
type T struct {
\t// F is a field.
\tF int // trailing
}
";
        assert_eq!(
            at(Language::Go, text, Compress::Summary),
            "//go:build linux\n\n// Package c does c.\npackage c\n\n// T is a type.\ntype T struct {\n\tF int\n}\n"
        );
        assert_eq!(
            at(Language::Go, text, Compress::Signatures),
            "//go:build linux\n\npackage c\n\ntype T struct {\n\tF int\n}\n"
        );
    }

    #[test]
    fn summaries_keep_each_language_s_comment_syntax() {
        let cases = [
            (
                Language::Java,
                "/**\n * Parses it. Then more.\n *\n * @param x the x\n */\nclass P {}\n",
                "/** Parses it. */\nclass P {}\n",
            ),
            (
                Language::CSharp,
                "/// <summary>\n/// Gets the value.\n/// </summary>\nclass V {}\n",
                "/// Gets the value.\nclass V {}\n",
            ),
            (
                Language::Haskell,
                "module M where\n\n-- | Adds one. Or two.\n-- More.\nf :: Int -> Int\nf x = x + 1\n",
                "module M where\n\n-- | Adds one.\nf :: Int -> Int\nf x = x + 1\n",
            ),
            (
                Language::Elixir,
                "defmodule M do\n  @doc \"\"\"\n  Runs \"it\". Later.\n  \"\"\"\n  def run(x), do: x\nend\n",
                "defmodule M do\n  @doc \"Runs \\\"it\\\".\"\n  def run(x), do: x\nend\n",
            ),
            (
                Language::Lua,
                "--- Opens it. Always.\n-- more\nlocal function open()\nend\n",
                "--- Opens it.\nlocal function open()\nend\n",
            ),
            (
                Language::C,
                "/* Frees x: a sentence without a stop */\nvoid f(int x);\n",
                "/* Frees x: a sentence without a stop */\nvoid f(int x);\n",
            ),
        ];
        for (lang, text, want) in cases {
            assert_eq!(at(lang, text, Compress::Summary), want, "{lang:?}");
        }
    }

    #[test]
    fn first_sentences() {
        for (block, want) in [
            ("/// One. Two.", Some("One.")),
            ("/// See e.g. this. Then.", Some("See e.g. this.")),
            ("/// Version 1.2 is out. Yes.", Some("Version 1.2 is out.")),
            ("/// Is it? Yes.", Some("Is it?")),
            ("/// Lower. then on", Some("Lower. then on")),
            ("/// one\n/// two\n///\n/// three", Some("one two")),
            ("/**\n *\n */", None),
            ("# ----", None),
        ] {
            assert_eq!(first_sentence(block).as_deref(), want, "{block:?}");
        }
        let long = format!("/// {}", "word ".repeat(200));
        let cut = first_sentence(&long).unwrap();
        assert!(cut.ends_with('…') && cut.chars().count() <= MAX_SENTENCE_CHARS + 1);
    }

    /// At summary and signatures, blocks of code that are no definition's body go as bodies do,
    /// a callback with its call, but for the lines of the definitions inside one.
    #[test]
    fn blocks_of_code_are_elided_around_their_definitions() {
        let js = "\
describe(\"math\", function () {
  it(\"adds\", () => {
    expect(1 + 1).toBe(2);
  });
});

(function () {
  var a = 1;
  var b = 2;

  /** Helps. Much. */
  function helper(a) {
    return a + b;
  }
  helper(1);
})();
";
        assert_eq!(at(Language::JavaScript, js, Compress::Docs), js);
        assert_eq!(
            at(Language::JavaScript, js, Compress::Summary),
            "\
⋯ 5 lines (1–5)

(function () {
  ⋯ 2 lines (8–9)

  /** Helps. */
  function helper(a) {
    return a + b;
  }
  helper(1);
})();
"
        );
        assert_eq!(
            at(Language::JavaScript, js, Compress::Signatures),
            "\
⋯ 1–5

(function () {
  ⋯ 8–11
  function helper(a) { ⋯ 13 }
  helper(1);
})();
"
        );
        let c = "TEST_IMPL(fs_open) {\n  int r;\n  r = open();\n  return r;\n}\n";
        assert_eq!(
            at(Language::C, c, Compress::Summary),
            "TEST_IMPL(fs_open) {\n  ⋯ 3 lines (2–4)\n}\n"
        );
        assert_eq!(
            at(Language::C, c, Compress::Signatures),
            "TEST_IMPL(fs_open) { ⋯ 2–4 }\n"
        );
        // A macro keeps its name's line.
        let m = "#define SQ(x) \\\n  ((x) * \\\n   (x))\nint y;\n";
        assert_eq!(at(Language::C, m, Compress::Docs), m);
        assert_eq!(
            at(Language::C, m, Compress::Signatures),
            "#define SQ(x) ⋯ 2–3\nint y;\n"
        );
        assert_eq!(
            at(Language::C, m, Compress::Summary),
            "#define SQ(x) \\\n  ⋯ 2 lines (2–3)\nint y;\n"
        );
    }

    /// The lines' ends found in the line starts are those a scan of the text finds, at every
    /// byte (line breaks, a final one or none, empty lines).
    #[test]
    fn line_bounds_from_the_starts_are_the_scanned_ones() {
        for text in ["", "a", "\n", "ab\ncd", "ab\ncd\n", "\n\nx\n\n", "x\n\ny"] {
            let starts = line_starts(text);
            for at in 0..=text.len() {
                let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                assert_eq!(line_start(text, &starts, at), start, "{text:?} {at}");
                let end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
                assert_eq!(line_end(text, &starts, at), end, "{text:?} {at}");
            }
        }
    }

    /// At signatures a body of one line goes too, on its signature's line or its own, when its
    /// marker is shorter (`{ ⋯ 3 }`); docs and summary keep it.
    #[test]
    fn signatures_elide_bodies_of_one_line() {
        let cases = [
            (
                Language::Rust,
                "fn f() -> u32 { compute(1, 2) }\nfn g() -> u32 { 1 }\nfn h() {\n    run(\"x\");\n}\n",
                "fn f() -> u32 { ⋯ 1 }\nfn g() -> u32 { 1 }\nfn h() { ⋯ 4 }\n",
            ),
            (
                Language::Cpp,
                "class A {\n    static bool alwaysTrue( int ) { return true; }\n    \
                 static const char* s() {\n        return \"abc\";\n    }\n    void e() {}\n};\n",
                "class A {\n    static bool alwaysTrue( int ) { ⋯ 2 }\n    \
                 static const char* s() { ⋯ 4 }\n    void e() {}\n};\n",
            ),
            (
                Language::Python,
                "def f(x): return x * 2\n\nclass B:\n    def g(self):\n        return self.v + 1\n    def h(self): ...\n",
                "def f(x): ⋯ 1\n\nclass B:\n    def g(self): ⋯ 5\n    def h(self): ...\n",
            ),
            (
                Language::C,
                "#define SQ(x) ((x) * (x))\n#define ID(x) x\n#define K 10\n",
                "#define SQ(x) ⋯ 1\n#define ID(x) x\n#define K 10\n",
            ),
            (
                Language::Go,
                "package p\n\nfunc (t T) Name() string { return t.name }\n",
                "package p\n\nfunc (t T) Name() string { ⋯ 3 }\n",
            ),
            (
                Language::JavaScript,
                "class C {\n  get x() { return this._x; }\n}\n",
                "class C {\n  get x() { ⋯ 2 }\n}\n",
            ),
        ];
        for (lang, text, want) in cases {
            assert_eq!(at(lang, text, Compress::Signatures), want, "{lang:?}");
            assert_eq!(at(lang, text, Compress::Docs), text, "{lang:?}");
            assert_eq!(at(lang, text, Compress::Summary), text, "{lang:?}");
        }
        // A block of code of one line goes as a body does, but not one that holds a definition.
        let c = "TEST_CASE(\"one\") {\n    REQUIRE(f(1) == 2);\n}\n";
        assert_eq!(at(Language::Cpp, c, Compress::Summary), c);
        assert_eq!(
            at(Language::Cpp, c, Compress::Signatures),
            "TEST_CASE(\"one\") { ⋯ 2 }\n"
        );
        let js = "run(function () { function inner() { return 1; } });\n";
        assert_eq!(
            at(Language::JavaScript, js, Compress::Signatures),
            "run(function () { function inner() { ⋯ 1 } });\n"
        );
        // Lines are joined only up to a closer that ends its line.
        let js = "function a() {\n  return 1;\n} function b() {\n  return 2;\n}\n";
        assert_eq!(
            at(Language::JavaScript, js, Compress::Signatures),
            "function a() {\n  return 1;\n} function b() { ⋯ 4 }\n"
        );
        // A macro's continuation after its value goes with it.
        let m = "#define F(x) \\\n  g(x) \\\n\nint y;\n";
        assert_eq!(
            at(Language::C, m, Compress::Signatures),
            "#define F(x) ⋯ 2\n\nint y;\n"
        );
    }

    /// Finding the comments changes nothing the outline finds, and a docs skeleton needs none.
    #[test]
    fn the_comments_change_no_definition() {
        for (lang, text) in [
            (Language::Rust, RUST),
            (
                Language::Go,
                "package p\n// F.\nfunc F() {\n\tx()\n\ty()\n}\n",
            ),
        ] {
            let with = found_of(lang, text, &ParseBudget::default(), true, &|| false).unwrap();
            let without = found_of(lang, text, &ParseBudget::default(), false, &|| false).unwrap();
            assert_eq!(with.symbols, without.symbols);
            assert!(without.comments.is_empty() && !with.comments.is_empty());
            assert_eq!(
                skeleton(text, &with, Compress::Docs),
                skeleton(text, &without, Compress::Docs)
            );
        }
    }
}
