//! Grep stage: compile a search pattern within fixed bounds, and find the lines of a text it
//! matches. The text is whatever a caller is allowed to show (the driver hands it the scanned,
//! redacted text of a file, never the raw bytes), so a search can reveal nothing a read would not.
//!
//! Patterns use the `regex` crate's syntax, which guarantees time linear in the text. The pattern
//! is at most [`MAX_PATTERN_BYTES`] long, and its compiled program and lazy DFA are bounded
//! ([`COMPILED_LIMIT`], [`DFA_LIMIT`]): a pattern that would compile to more (such as
//! `\w{1000}{1000}`) is refused with a message instead of exhausting memory or time.
//!
//! A match is a line (the text between two `\n`) on which the pattern matches, as grep defines it.
//! [`Matcher::lines`] searches the whole text at once, which lets the regex engine's literal
//! prefilters skip the lines that cannot match, and confirms every candidate on its line alone,
//! so a pattern that could match across a newline (`a[^b]*c`) still reports only lines that match
//! on their own.
//!
//! [`Matcher::prefilter`] gives the literals every match holds one of ([`prefilter`]), so the
//! driver can tell from a file's raw text, before scanning it, that its shown text cannot match.

pub mod prefilter;

pub use prefilter::Prefilter;

use regex_automata::meta::{self, Regex};
use regex_automata::util::syntax;
use regex_automata::{Input, Span};

/// Longest pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 4096;
/// Bound on the compiled program (the NFA; `regex`'s `size_limit`).
pub const COMPILED_LIMIT: usize = 1 << 20;
/// Bound on the lazy DFA's cache and on any full DFA (`regex`'s `dfa_size_limit`).
pub const DFA_LIMIT: usize = 2 << 20;

/// A compiled search.
#[derive(Clone, Debug)]
pub struct Matcher {
    regex: Regex,
    prefilter: Option<Prefilter>,
}

/// How a pattern is to be read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PatternOptions {
    /// The pattern is a literal string, not a regular expression.
    pub fixed_strings: bool,
    /// Match letters in either case.
    pub ignore_case: bool,
}

impl Matcher {
    /// Compile `pattern`, or say why it cannot be used and what to do instead.
    pub fn new(pattern: &str, opts: PatternOptions) -> Result<Matcher, String> {
        if pattern.is_empty() {
            return Err(
                "the pattern is empty; give a regular expression or a string to find".into(),
            );
        }
        if pattern.len() > MAX_PATTERN_BYTES {
            return Err(format!(
                "the pattern is {} bytes, over the limit of {MAX_PATTERN_BYTES}; search for a \
                 shorter, distinctive part of the text",
                pattern.len()
            ));
        }
        let source = if opts.fixed_strings {
            regex::escape(pattern)
        } else {
            pattern.to_string()
        };
        let syntax = syntax::Config::new()
            .case_insensitive(opts.ignore_case)
            .multi_line(true);
        let regex = Regex::builder()
            .syntax(syntax)
            .configure(
                meta::Config::new()
                    .nfa_size_limit(Some(COMPILED_LIMIT))
                    .dfa_size_limit(Some(DFA_LIMIT))
                    .hybrid_cache_capacity(DFA_LIMIT),
            )
            .build(&source)
            .map_err(|e| {
                if let Some(limit) = e.size_limit() {
                    format!(
                        "the pattern compiles to more than {limit} bytes (large counted \
                         repetitions such as {{1000}}, or many Unicode classes, make it big); \
                         simplify it, or set fixed_strings to search for a literal string"
                    )
                } else if let Some(s) = e.syntax_error() {
                    format!(
                        "the pattern is not a valid regular expression (Rust regex syntax; set \
                         fixed_strings to search for a literal string): {s}"
                    )
                } else {
                    format!("the pattern cannot be used: {e}")
                }
            })?;
        // The same parse the regex was built from (it succeeded just above).
        let prefilter = syntax::parse_with(&source, &syntax)
            .ok()
            .and_then(|hir| Prefilter::new(&hir, opts.ignore_case));
        Ok(Matcher { regex, prefilter })
    }

    /// The literals every match holds one of, when the pattern has a usable set: a text
    /// without any of them has no match.
    pub fn prefilter(&self) -> Option<&Prefilter> {
        self.prefilter.as_ref()
    }

    /// The 1-based numbers of the lines of `text` the pattern matches, in order: the lines
    /// holding a match that does not run past the line's end (anchors such as `\A` see the
    /// whole text). `stop` is asked now and then; when it says so the search ends (`None`).
    pub fn lines(&self, text: &str, stop: &dyn Fn() -> bool) -> Option<Vec<u32>> {
        let bytes = text.as_bytes();
        let mut found = Vec::new();
        // The line being looked at: its number and where it starts.
        let (mut no, mut start) = (1u32, 0usize);
        while start < text.len() {
            if stop() {
                return None;
            }
            let Some(m) = self.regex.search(&Input::new(text).range(start..)) else {
                break;
            };
            if m.start() == text.len() && text.ends_with('\n') {
                // An empty match after the last newline: that is not a line.
                break;
            }
            // Move to the line holding the match's start.
            let skipped = memchr::memchr_iter(b'\n', &bytes[start..m.start()]).count();
            if skipped > 0 {
                no += skipped as u32;
                start += memchr::memrchr(b'\n', &bytes[start..m.start()]).map_or(0, |i| i + 1);
            }
            let end = line_end(bytes, m.start());
            if m.end() > end {
                // The match runs past the line: the pattern can match a newline. From here on,
                // test line by line, which stays linear whatever the pattern.
                return self.by_line(text, start, no, found, stop);
            }
            found.push(no);
            if end >= text.len() {
                break;
            }
            start = end + 1;
            no += 1;
        }
        Some(found)
    }

    /// The rest of [`Matcher::lines`], one line at a time from `start` (the start of line `no`).
    fn by_line(
        &self,
        text: &str,
        mut start: usize,
        mut no: u32,
        mut found: Vec<u32>,
        stop: &dyn Fn() -> bool,
    ) -> Option<Vec<u32>> {
        let bytes = text.as_bytes();
        while start < text.len() {
            if no.is_multiple_of(1024) && stop() {
                return None;
            }
            let end = line_end(bytes, start);
            if self.within(text, start, end).is_some() {
                found.push(no);
            }
            start = end + 1;
            no += 1;
        }
        Some(found)
    }

    /// The first match lying within `text[start..end]`, as a range of `text`.
    fn within(&self, text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
        let input = Input::new(text).span(Span { start, end });
        self.regex.search(&input).map(|m| (m.start(), m.end()))
    }

    /// Byte range, within the line, of the first match on line `text[start..end]` (a line of
    /// `text` found by [`Matcher::lines`]).
    pub fn find_in(&self, text: &str, start: usize, end: usize) -> Option<(usize, usize)> {
        self.within(text, start, end)
            .map(|(s, e)| (s - start, e - start))
    }
}

/// The end of the line holding byte `at`: the offset of its `\n`, or the text's length.
fn line_end(bytes: &[u8], at: usize) -> usize {
    memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(p: &str) -> Matcher {
        Matcher::new(p, PatternOptions::default()).unwrap()
    }

    fn naive(p: &str, text: &str) -> Vec<u32> {
        let re = regex::Regex::new(p).unwrap();
        let mut lines: Vec<&str> = text.split('\n').collect();
        if text.ends_with('\n') {
            lines.pop();
        }
        lines
            .iter()
            .enumerate()
            .filter(|(_, l)| re.is_match(l))
            .map(|(i, _)| i as u32 + 1)
            .collect()
    }

    #[test]
    fn lines_are_those_matching_on_their_own() {
        let never = || false;
        let text = "alpha\nbeta\n\ngamma alpha\na\nxc\nlast";
        for p in [
            "alpha", "^a", "a$", "^$", "a[^b]*c", "(?s)a.*c", "x", "\\n", "[^z]+",
        ] {
            assert_eq!(m(p).lines(text, &never).unwrap(), naive(p, text), "{p}");
        }
        assert_eq!(m("a").lines("", &never).unwrap(), Vec::<u32>::new());
        assert_eq!(m("^\\s*$").lines("", &never).unwrap(), Vec::<u32>::new());
        assert_eq!(m("^\\s*$").lines("a\n", &never).unwrap(), Vec::<u32>::new());
        assert_eq!(m("^\\s*$").lines("a\n\n", &never).unwrap(), vec![2]);
        assert_eq!(m("$").lines("a\nb", &never).unwrap(), vec![1, 2]);
        assert_eq!(m("^").lines("x\n", &never).unwrap(), vec![1]);
    }

    #[test]
    fn bounds_are_named() {
        let big = Matcher::new("\\w{1000}{1000}", PatternOptions::default()).unwrap_err();
        assert!(big.contains("compiles to more"), "{big}");
        let long = Matcher::new(&"a".repeat(5000), PatternOptions::default()).unwrap_err();
        assert!(long.contains("over the limit"), "{long}");
        let bad = Matcher::new("(", PatternOptions::default()).unwrap_err();
        assert!(bad.contains("not a valid regular expression"), "{bad}");
        let fixed = PatternOptions {
            fixed_strings: true,
            ignore_case: true,
        };
        let lit = Matcher::new("A(", fixed).unwrap();
        assert_eq!(lit.lines("xa(\nb", &|| false).unwrap(), vec![1]);
        assert_eq!(lit.find_in("xa(\nb", 0, 3), Some((1, 3)));
    }
}
