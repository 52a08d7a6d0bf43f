//! The fields of a file's text, for a field-weighted BM25 (BM25F): what the file says about
//! itself counts more than what its code mentions. Each line of the text is code, a comment, or
//! part of the file's header: its first comment block that is not a license (the module doc,
//! the leading comment of a C file, a Python module docstring, an Elixir `@moduledoc`). A term
//! of the header counts [`HEADER_WEIGHT`] times, a term of a name the file defines
//! [`DEFINED_WEIGHT`] more, a term of the path [`PATH_WEIGHT`] times, any other once (other
//! comments included: counting them twice was measured worse). A term's weighted frequency is
//! the sum over its occurrences, and the file's length is weighted the same way, so that ranking
//! from text and the index count exactly alike ([`for_each_weighted_term`] is the one source of
//! both). The index keeps one weighted count per distinct term as before: the fields cost it no
//! memory.
//!
//! Comments are found line by line, by markers chosen from the file's extension (`//` and
//! `/* */` for C-like languages, `#` for scripts, `--` for Lua and Haskell, `%` for Erlang,
//! `(* *)` for OCaml, docstrings, POD): a line that starts with a comment, or lies within a block
//! comment, is a comment line. A comment after code on the same line stays code. Prose files and
//! files of unknown extension have no header. Linear in the text; no parse.

use super::classes::is_prose;
use super::score::{PATH_WEIGHT, defined_words};
use super::terms::for_each_term;

/// Weight of a term occurrence in the header (the first comment block that is not a license,
/// at most [`HEADER_LINES`] of it, starting within the first [`HEADER_WITHIN`] lines), against 1
/// in code or in any other comment. Measured on the dev half: 4 and 8 gave the most; 16 less.
pub(super) const HEADER_WEIGHT: usize = 8;

/// Weight added to a term of a name the file defines (by the keyword guess), over its own
/// occurrence: the file's definitions say what it is about.
pub(super) const DEFINED_WEIGHT: usize = 2;

/// The most lines of the header counted at [`HEADER_WEIGHT`].
const HEADER_LINES: usize = 20;

/// The header starts within this many lines of the file's top (after a license and imports).
const HEADER_WITHIN: usize = 80;

/// The comment markers of a language.
#[derive(Default)]
struct Markers {
    line: &'static [&'static str],
    block: &'static [(&'static str, &'static str)],
    /// Python docstrings and Elixir heredoc docs: `"""` blocks.
    docstring: bool,
    /// Perl's POD: `=head1` ... `=cut`.
    pod: bool,
}

fn markers(path: &str) -> Option<Markers> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    const C_BLOCK: &[(&str, &str)] = &[("/*", "*/")];
    let m = match ext.to_ascii_lowercase().as_str() {
        "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" | "cs" | "java" | "kt" | "kts"
        | "js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx" | "go" | "rs" | "scala"
        | "swift" | "dart" | "zig" | "groovy" | "gradle" | "m" | "mm" => Markers {
            line: &["//"],
            block: C_BLOCK,
            ..Markers::default()
        },
        "php" => Markers {
            line: &["//", "#"],
            block: C_BLOCK,
            ..Markers::default()
        },
        "py" | "pyi" => Markers {
            line: &["#"],
            docstring: true,
            ..Markers::default()
        },
        "ex" | "exs" => Markers {
            line: &["#"],
            docstring: true,
            ..Markers::default()
        },
        "pl" | "pm" | "t" => Markers {
            line: &["#"],
            pod: true,
            ..Markers::default()
        },
        "rb" | "sh" | "bash" | "zsh" | "r" | "toml" | "yml" | "yaml" | "cmake" | "mk" | "nix" => {
            Markers {
                line: &["#"],
                ..Markers::default()
            }
        }
        "lua" => Markers {
            line: &["--"],
            block: &[("--[[", "]]"), ("--[==[", "]==]")],
            ..Markers::default()
        },
        "hs" | "lhs" | "elm" | "sql" => Markers {
            line: &["--"],
            block: &[("{-", "-}")],
            ..Markers::default()
        },
        "erl" | "hrl" | "yrl" | "xrl" | "tex" => Markers {
            line: &["%"],
            ..Markers::default()
        },
        "ml" | "mli" | "mll" | "mly" => Markers {
            block: &[("(*", "*)")],
            ..Markers::default()
        },
        "el" | "lisp" | "clj" | "cljs" | "scm" => Markers {
            line: &[";"],
            ..Markers::default()
        },
        // No extension: a script (a shell completion, a `Makefile`), commented with `#`.
        "" => Markers {
            line: &["#"],
            ..Markers::default()
        },
        _ => return None,
    };
    Some(m)
}

/// What a line of text is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Field {
    Code,
    Comment,
    Header,
}

/// Each line of `text` (as `str::split('\n')` gives them) with its field.
fn classify<'t>(path: &str, text: &'t str) -> Vec<(&'t str, Field)> {
    let lines: Vec<&str> = text.split('\n').collect();
    let Some(m) = (!is_prose(path)).then(|| markers(path)).flatten() else {
        return lines.into_iter().map(|l| (l, Field::Code)).collect();
    };
    let mut out: Vec<(&str, Field)> = Vec::with_capacity(lines.len());
    // The end marker of the block comment we are in.
    let mut open: Option<&'static str> = None;
    for line in lines {
        let t = line.trim_start();
        let comment = if let Some(end) = open {
            if t.contains(end) {
                open = None;
            }
            true
        } else if m.pod
            && t.starts_with('=')
            && t.len() > 1
            && t.as_bytes()[1].is_ascii_alphabetic()
        {
            if !t.starts_with("=cut") {
                open = Some("\n=cut");
            }
            true
        } else if m.docstring && docstring_start(t).is_some() {
            let (q, rest) = docstring_start(t).unwrap_or(("\"\"\"", ""));
            if !rest.contains(q) {
                open = Some(q);
            }
            true
        } else if let Some((start, end)) = m.block.iter().find(|(s, _)| t.starts_with(s)) {
            if !t[start.len()..].contains(end) {
                open = Some(end);
            }
            true
        } else {
            m.line
                .iter()
                .any(|s| t.starts_with(s) && line_comment(s, t))
        };
        // POD's end is a line of its own.
        if open == Some("\n=cut") && t.starts_with("=cut") {
            open = None;
        }
        out.push((line, if comment { Field::Comment } else { Field::Code }));
    }
    // The header: the first comment block (consecutive comment lines) that is not a license,
    // starting within the first lines, and at most so many lines of it.
    let mut at = 0;
    while at < out.len() && at < HEADER_WITHIN {
        if out[at].1 != Field::Comment {
            at += 1;
            continue;
        }
        let end = (at..out.len())
            .find(|&j| out[j].1 != Field::Comment)
            .unwrap_or(out.len());
        if !is_license(&out[at..end]) {
            for l in out[at..end].iter_mut().take(HEADER_LINES) {
                l.1 = Field::Header;
            }
            break;
        }
        at = end;
    }
    out
}

/// Whether `t` (a trimmed line starting with the line-comment marker `s`) is a comment, not
/// code that starts alike: C's `#include` is not a `#` comment, nor Rust's `#[attr]`.
fn line_comment(s: &str, t: &str) -> bool {
    if s != "#" {
        return true;
    }
    let rest = &t[1..];
    !(rest.starts_with('[')
        || rest.starts_with('{')
        || (rest.starts_with('!') && !t.starts_with("#!/")))
}

/// A docstring or documentation heredoc opening the trimmed line `t`: its quote and the rest of
/// the line after it.
fn docstring_start(t: &str) -> Option<(&'static str, &str)> {
    let t = ["@moduledoc", "@typedoc", "@doc"]
        .iter()
        .find_map(|a| t.strip_prefix(a))
        .map_or(t, str::trim_start);
    // A Python string prefix (`r"""`), or an Elixir sigil (`~S"""`).
    let t = ["~S", "~s", "r", "u", "b", "R", "U", "B"]
        .iter()
        .find_map(|p| t.strip_prefix(p).filter(|r| r.starts_with(['"', '\''])))
        .unwrap_or(t);
    for q in ["\"\"\"", "'''"] {
        if let Some(rest) = t.strip_prefix(q) {
            return Some((q, rest));
        }
    }
    None
}

/// Whether a comment block is a license or copyright notice.
fn is_license(lines: &[(&str, Field)]) -> bool {
    lines.iter().any(|(l, _)| {
        let l = l.to_ascii_lowercase();
        l.contains("license")
            || l.contains("licence")
            || l.contains("all rights reserved")
            || l.contains("copyright (c)")
            || l.contains("copyright ©")
            || l.contains("spdx")
    })
}

/// Call `f` with every term of the file at `path` whose text is `text`, each with its weight:
/// the text's terms (1, or [`HEADER_WEIGHT`] in the header), the terms of the names it defines
/// once more (at [`DEFINED_WEIGHT`]), then the path's terms (at [`PATH_WEIGHT`]). The one
/// source of the weighted frequencies that both the ranking from text and the index count.
pub(super) fn for_each_weighted_term(path: &str, text: &str, mut f: impl FnMut(&str, usize)) {
    for (line, field) in classify(path, text) {
        let weight = match field {
            Field::Code | Field::Comment => 1,
            Field::Header => HEADER_WEIGHT,
        };
        for_each_term(line, |t| f(t, weight));
    }
    for name in defined_words(text) {
        for_each_term(name, |t| f(t, DEFINED_WEIGHT));
    }
    for_each_term(path, |t| f(t, PATH_WEIGHT));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(path: &str, text: &str) -> Vec<Field> {
        classify(path, text).into_iter().map(|(_, f)| f).collect()
    }

    #[test]
    fn the_header_is_the_first_comment_block_that_is_not_a_license() {
        use Field::{Code, Comment, Header};
        let c = "/* Copyright (c) 2020 A. Person. MIT License. */\n\
                 #include <stdio.h>\n\
                 /*\n** Debug interface\n*/\n\
                 int f(void) { return 0; } // trailing\n\
                 // later comment";
        assert_eq!(
            fields("src/ldebug.c", c),
            vec![Comment, Code, Header, Header, Header, Code, Comment]
        );
        let py =
            "#!/usr/bin/env python\n\"\"\"Session handling.\n\nCookies.\n\"\"\"\nimport os\n# note";
        assert_eq!(
            fields("pkg/sessions.py", py),
            vec![Header, Header, Header, Header, Header, Code, Comment]
        );
        let ex = "defmodule Mix.Task do\n  @moduledoc \"\"\"\n  Runs tasks.\n  \"\"\"\nend";
        assert_eq!(
            fields("lib/mix/task.ex", ex),
            vec![Code, Header, Header, Header, Code]
        );
        // Rust attributes are code; a file of unknown kind or prose has no header.
        assert_eq!(
            fields("src/a.rs", "#[derive(Debug)]\n//! Doc\nstruct A;"),
            vec![Code, Header, Code]
        );
        assert_eq!(fields("notes.md", "# Title\ntext"), vec![Code, Code]);
        assert_eq!(fields("data.bin", "// x"), vec![Code]);
    }

    #[test]
    fn header_terms_and_defined_names_count_more() {
        let weights = |path: &str, text: &str| {
            let mut out: Vec<(String, usize)> = Vec::new();
            for_each_weighted_term(path, text, |t, w| out.push((t.to_string(), w)));
            out
        };
        let w = weights(
            "a.lua",
            "-- Lua compatibility\nlocal compat = {}\nfunction shim() end",
        );
        let of = |t: &str| -> usize { w.iter().filter(|(x, _)| x == t).map(|(_, w)| w).sum() };
        assert_eq!(of("compat"), 1);
        assert_eq!(of("compatibiliti"), HEADER_WEIGHT);
        assert_eq!(of("shim"), 1 + DEFINED_WEIGHT);
        assert_eq!(of("a"), 0, "one letter is no term");
        assert_eq!(of("lua"), HEADER_WEIGHT + PATH_WEIGHT);
    }
}
