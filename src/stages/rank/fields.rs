//! The fields of a file's text, for a field-weighted BM25 (BM25F): what the file says about
//! itself counts more than what its code mentions. Each line of the text is code, a comment, or
//! part of the file's header (its first comment block that is not a license: the module doc,
//! the leading comment of a C file, a Python module docstring, an Elixir `@moduledoc`); the
//! names the file defines count again. A term's weighted frequency is the sum of its
//! occurrences times their field's weight, and the file's length is weighted the same way, so
//! that both ranking from text and the index count exactly alike ([`for_each_weighted_term`]).
//!
//! Comments are found line by line, by markers chosen from the file's extension (`//` and
//! `/* */` for C-like languages, `#` for scripts, `--` for Lua and Haskell, `%` for Erlang,
//! `(* *)` for OCaml, docstrings, POD): a line that starts with a comment, or lies within a block
//! comment, is a comment line. A comment after code on the same line stays code. Linear in the
//! text; no parse.

use super::classes::is_prose;
use super::score::defined_words;
use super::terms::for_each_term;

/// Weight of a term occurrence in code (the baseline), in a comment, in the header, and (added
/// to its own field's) in the name of a definition.
pub(super) const CODE_WEIGHT: usize = 1;

/// Tunable weights (while experimenting: read once from the environment).
fn knob(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub(super) fn factor(name: &str, default: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

pub(super) struct Weights {
    pub comment: usize,
    pub header: usize,
    pub defined: usize,
    pub header_lines: usize,
    pub header_within: usize,
}

pub(super) fn weights() -> &'static Weights {
    static W: std::sync::OnceLock<Weights> = std::sync::OnceLock::new();
    W.get_or_init(|| Weights {
        comment: knob("GNAW_W_COMMENT", 2),
        header: knob("GNAW_W_HEADER", 4),
        defined: knob("GNAW_W_DEFINED", 2),
        header_lines: knob("GNAW_HEADER_LINES", 60),
        header_within: knob("GNAW_HEADER_WITHIN", 80),
    })
}

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
        } else if m.pod && t.starts_with('=') && t.len() > 1 && t.as_bytes()[1].is_ascii_alphabetic()
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
            m.line.iter().any(|s| t.starts_with(s) && line_comment(s, t))
        };
        // POD's end is a line of its own.
        if open == Some("\n=cut") && t.starts_with("=cut") {
            open = None;
        }
        out.push((line, if comment { Field::Comment } else { Field::Code }));
    }
    // The header: the first comment block (consecutive comment lines) that is not a license,
    // starting within the first lines, and at most so many lines of it.
    let w = weights();
    let mut at = 0;
    while at < out.len() && at < w.header_within {
        if out[at].1 != Field::Comment {
            at += 1;
            continue;
        }
        let end = (at..out.len())
            .find(|&j| out[j].1 != Field::Comment)
            .unwrap_or(out.len());
        if !is_license(&out[at..end]) {
            for l in out[at..end].iter_mut().take(w.header_lines) {
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
    !(rest.starts_with('[') || rest.starts_with('{') || rest.starts_with('!') && !t.starts_with("#!/"))
}

/// A docstring or documentation heredoc opening the trimmed line `t`: its quote and the rest of
/// the line after it.
fn docstring_start(t: &str) -> Option<(&'static str, &str)> {
    let t = t
        .strip_prefix("@moduledoc")
        .or_else(|| t.strip_prefix("@doc"))
        .or_else(|| t.strip_prefix("@typedoc"))
        .map_or(t, str::trim_start);
    let t = t.strip_prefix(['r', 'u', 'b', 'R', 'U', 'B', '~']).map_or(t, |r| {
        if r.starts_with('"') || r.starts_with('\'') || r.starts_with('S') {
            r
        } else {
            t
        }
    });
    let t = t.strip_prefix('S').unwrap_or(t);
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
/// the text's terms by field (code, comment, header), the terms of the names it defines once
/// more, then the path's terms at [`PATH_WEIGHT`](super::score::PATH_WEIGHT). The one source of
/// the weighted frequencies both the ranking from text and the index count.
pub(super) fn for_each_weighted_term(path: &str, text: &str, mut f: impl FnMut(&str, usize)) {
    let w = weights();
    let lines = classify(path, text);
    for (line, field) in lines {
        let weight = match field {
            Field::Code => CODE_WEIGHT,
            Field::Comment => w.comment,
            Field::Header => w.header,
        };
        for_each_term(line, |t| f(t, weight));
    }
    if w.defined > 0 {
        for name in defined_words(text) {
            for_each_term(name, |t| f(t, w.defined));
        }
    }
    for_each_term(path, |t| f(t, super::score::PATH_WEIGHT));
}
