//! `symbol`: where a name is defined, with each definition's source and exact line range, then
//! where it is used; on a miss, the closest names the repository defines.
//!
//! `name` is `Name`, `Type::method` (also `Type.method`), or `path::Name` / `path::Type::method`
//! where `path` (a file or a directory, which must contain `/` or `.`: `src/` or `lib.rs`) is
//! proven inside the repo before anything is read and narrows the search to it. The repo is
//! walked as `extract` walks it (ignore files, hidden files, include/exclude, size limits), and
//! files are read by the same per-file step, so what is parsed and shown is the scanned
//! (redacted) text; the warm cache serves the reads. Only files whose text contains the name are
//! parsed, so a lookup costs a substring search over the repo plus a few parses.
//!
//! Matches are ranked: definitions before uses, files outside tests before test files, then by
//! path and line. The answer holds at most `limit` matches and fits the token budget exactly.

use crate::driver::call::Answer;
use crate::driver::call::paging::{self, Paged};
use crate::driver::call::paths::{prove, repo_root};
use crate::driver::call::request::{NavError, Request};
use crate::driver::call::session::Session;
use crate::error::Error;
use crate::stages::syntax::{self, Language, Outline};
use crate::vocab::Symbol;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// Default and most matches one call returns.
pub const DEFAULT_LIMIT: usize = 10;
/// The most matches one call may return.
pub const MAX_LIMIT: usize = 100;
/// Longest `name` accepted, in bytes: a path of up to `PATH_MAX` and a name of up to 512.
pub const MAX_NAME_BYTES: usize = crate::limits::PATH_MAX + 512;
/// Most source lines shown of one definition (the rest is named as a range to read).
const MAX_DEF_LINES: usize = 300;
/// Most names remembered for suggestions on a miss.
const MAX_NAMES: usize = 200_000;
/// How many closest names a miss suggests.
const SUGGESTIONS: usize = 8;

/// The name to look up: a `symbol` call's arguments, as the CLI gives them and as a tool call's
/// JSON is read ([`crate::driver::call::args`]; the `symbol` tool's input schema is derived from
/// them).
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema, clap::Args)]
pub struct SymbolArgs {
    /// "Name", "Type::method", or "dir/::Name" to look only under a path.
    #[serde(deserialize_with = "crate::driver::call::args::text")]
    pub name: String,
    /// Most matches shown; `None` for [`DEFAULT_LIMIT`].
    #[schemars(description = limit_help(), range(min = 1, max = MAX_LIMIT))]
    #[arg(long, value_name = "N", help = limit_help())]
    #[serde(default, deserialize_with = "crate::driver::call::args::some_count")]
    pub limit: Option<usize>,
}

/// What `limit` means, for the tool's schema and the CLI's help.
fn limit_help() -> String {
    format!("Most matches, definitions then uses (default {DEFAULT_LIMIT}).")
}

/// What `symbol` found.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SymbolFacts {
    /// Definitions and uses found (before the limit), and how many are shown.
    pub definitions: usize,
    /// Uses found.
    pub uses: usize,
    /// Definitions and uses shown.
    pub shown: usize,
    /// The closest names, on a miss.
    pub suggestions: Vec<String>,
}

/// What `symbol` answers.
pub type SymbolAnswer = Answer<SymbolFacts>;

/// The parsed `name` argument.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Wanted {
    path: Option<String>,
    /// The enclosing type, module or receiver, when given.
    qualifier: Option<String>,
    name: String,
}

fn parse_name(given: &str) -> Result<Wanted, NavError> {
    let bad = |why: &str| {
        NavError::invalid(format!(
            "name {}: {why}; write Name, Type::method or path/to/file.rs::Name",
            crate::driver::call::paths::quote(given)
        ))
    };
    if given.len() > MAX_NAME_BYTES {
        return Err(bad(&format!("longer than {MAX_NAME_BYTES} bytes")));
    }
    let (path, rest) = match given.split_once("::") {
        Some((p, rest)) if p.contains('/') || p.contains('.') => (Some(p.to_string()), rest),
        _ => (None, given),
    };
    let parts: Vec<&str> = rest
        .split("::")
        .flat_map(|p| p.split('.'))
        .filter(|p| !p.is_empty())
        .collect();
    let Some(name) = parts.last() else {
        return Err(bad("no name in it"));
    };
    if name.chars().any(char::is_whitespace) {
        return Err(bad("a name has no spaces"));
    }
    Ok(Wanted {
        path,
        qualifier: (parts.len() > 1).then(|| parts[parts.len() - 2].to_string()),
        name: (*name).to_string(),
    })
}

/// Whether a path is a test's (ranked after the sources).
fn is_test(path: &str) -> bool {
    path.split('/').any(|part| {
        matches!(
            part,
            "test" | "tests" | "spec" | "specs" | "__tests__" | "testdata"
        ) || part.starts_with("test_")
            || part.contains("_test.")
            || part.contains(".test.")
            || part.contains(".spec.")
            || part.contains("Test.")
    })
}

/// The last segment of a qualified name (`Foo::bar`, `Recv.M`, `M:i`).
fn last_segment(name: &str) -> &str {
    name.rsplit(['.', ':']).next().unwrap_or(name)
}

/// A found definition or use.
struct Match {
    test: bool,
    definition: bool,
    path: String,
    start: u32,
    /// Its section of the answer.
    text: String,
}

/// One file's findings.
#[derive(Default)]
struct Found {
    matches: Vec<Match>,
}

fn numbered(out: &mut String, text: &str, start: u32, end: u32, path: &str) {
    let lines: Vec<&str> = text
        .split('\n')
        .skip(start as usize - 1)
        .take((end - start + 1) as usize)
        .collect();
    let w = end.to_string().len();
    for (i, l) in lines.iter().take(MAX_DEF_LINES).enumerate() {
        let _ = writeln!(out, "{:>w$} | {l}", start as usize + i);
    }
    if lines.len() > MAX_DEF_LINES {
        let from = start as usize + MAX_DEF_LINES;
        let _ = writeln!(out, "⋯ read {path}:{from}-{end} for the rest");
    }
}

/// Whether `word` occurs in `line` as a whole identifier.
fn has_word(line: &str, word: &str) -> bool {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(word).any(|(i, _)| {
        !line[..i].chars().next_back().is_some_and(ident)
            && !line[i + word.len()..].chars().next().is_some_and(ident)
    })
}

fn find_in(
    path: &str,
    lang: Language,
    text: &str,
    w: &Wanted,
    budget: &syntax::ParseBudget,
    stop: &dyn Fn() -> bool,
) -> Found {
    let mut found = Found::default();
    let Outline::Parsed(symbols) = syntax::outline_of(lang, text, budget, stop) else {
        return found;
    };
    let mut def_lines = BTreeSet::new();
    for (parent, s) in Symbol::walk(&symbols) {
        if last_segment(&s.name) != w.name && s.name != w.name {
            continue;
        }
        if let Some(q) = &w.qualifier {
            let by_parent = parent.is_some_and(|p| {
                p.name == *q || last_segment(&p.name) == q || p.name.ends_with(&format!(" {q}"))
            });
            let by_name = s.name.contains(&format!("{q}::")) || s.name.contains(&format!("{q}."));
            if !by_parent && !by_name {
                continue;
            }
        }
        let mut out = String::new();
        let within = parent
            .map(|p| format!(" in {} {}", p.kind, p.name))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "==> {path}:{} {} {}{within} ({})",
            s.lines,
            s.kind,
            s.name,
            lang.as_str()
        );
        numbered(&mut out, text, s.lines.start, s.lines.end, path);
        def_lines.extend(s.lines.start..=s.lines.end);
        found.matches.push(Match {
            test: is_test(path),
            definition: true,
            path: path.to_string(),
            start: s.lines.start,
            text: out,
        });
    }
    for (i, line) in text.lines().enumerate() {
        let n = u32::try_from(i + 1).unwrap_or(u32::MAX);
        if !def_lines.contains(&n) && has_word(line, &w.name) {
            let shown: String = line.trim().chars().take(200).collect();
            found.matches.push(Match {
                test: is_test(path),
                definition: false,
                path: path.to_string(),
                start: n,
                text: format!("{path}:{n}: {shown}\n"),
            });
        }
    }
    found
}

/// Levenshtein distance, or `None` when over `max` (bounded work: names are short).
fn distance(a: &str, b: &str, max: usize) -> Option<usize> {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().abs_diff(b.len()) > max || a.len() > 128 || b.len() > 128 {
        return None;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(!ca.eq_ignore_ascii_case(cb));
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    let d = prev[b.len()];
    (d <= max).then_some(d)
}

/// Look `name` up in `req`'s repository.
pub fn symbol(req: &Request<'_>, args: &SymbolArgs) -> Result<SymbolAnswer, NavError> {
    let limit = crate::driver::call::args::limit(args.limit, DEFAULT_LIMIT, MAX_LIMIT)?;
    let wanted = parse_name(&args.name)?;
    // The path is proven before anything is read.
    let scope = match &wanted.path {
        Some(p) => {
            let root = repo_root(req)?;
            let proven = prove(&root, "name's path", p)?;
            Some((proven.rel.clone(), proven.is_dir()))
        }
        None => None,
    };
    let session = Session::open(req)?;
    let sourced = session.walk()?;
    let candidates: Vec<_> = sourced
        .candidates
        .into_iter()
        .filter(|c| match &scope {
            None => true,
            Some((rel, _)) if rel.is_empty() => true,
            Some((rel, true)) => c.rel.starts_with(rel) && c.rel.get(rel.len()) == Some(&b'/'),
            Some((rel, false)) => c.rel == *rel,
        })
        .filter(|c| Language::detect(&c.rel).is_some())
        .collect();
    let fo = session.file_options(false, None);
    let ctx = session.context(&fo)?;
    let stop = || session.cancelled();
    let needle = wanted.name.as_bytes();
    let finder = memchr::memmem::Finder::new(needle);
    let per_file = session.each_named(&ctx, &candidates, |c, path, (r, _)| {
        let Ok(body) = r else {
            return Found::default();
        };
        if finder.find(body.text.as_bytes()).is_none() {
            return Found::default();
        }
        let Some(lang) = Language::detect(&c.rel) else {
            return Found::default();
        };
        find_in(&path, lang, &body.text, &wanted, &ctx.parse, &stop)
    })?;
    let mut matches: Vec<Match> = per_file.into_iter().flat_map(|f| f.matches).collect();
    matches.sort_by(|a, b| {
        (!a.definition, a.test, &a.path, a.start).cmp(&(!b.definition, b.test, &b.path, b.start))
    });
    let definitions = matches.iter().filter(|m| m.definition).count();
    let uses = matches.len() - definitions;
    // A miss: the closest names the searched files define.
    let mut suggestions = Vec::new();
    if definitions == 0 {
        let names = session.each_file(&ctx, &candidates, |c, (r, _)| {
            let Ok(body) = r else { return Vec::new() };
            let Some(lang) = Language::detect(&c.rel) else {
                return Vec::new();
            };
            match syntax::outline_of(lang, &body.text, &ctx.parse, &stop) {
                Outline::Parsed(s) => Symbol::walk(&s)
                    .into_iter()
                    .map(|(_, s)| last_segment(&s.name).to_string())
                    .collect(),
                _ => Vec::new(),
            }
        })?;
        let all: BTreeSet<String> = names.into_iter().flatten().take(MAX_NAMES).collect();
        if session.cancelled() {
            return Err(Error::Cancelled.into());
        }
        let max = (wanted.name.chars().count() / 3).clamp(1, 4);
        let mut scored: Vec<(usize, &String)> = all
            .iter()
            .filter(|n| !n.contains(char::is_whitespace))
            .filter_map(|n| {
                let lower = n.to_lowercase();
                let target = wanted.name.to_lowercase();
                if lower.contains(&target) || target.contains(&lower) && lower.len() > 2 {
                    return Some((0, n));
                }
                distance(n, &wanted.name, max).map(|d| (d, n))
            })
            .collect();
        scored.sort();
        suggestions = scored
            .into_iter()
            .take(SUGGESTIONS)
            .map(|(_, n)| n.clone())
            .collect();
    }
    let shown_max = matches.len().min(limit);
    let header = {
        let mut h = format!(
            "symbol {}: {definitions} definition{}, {uses} use{}",
            wanted.name,
            if definitions == 1 { "" } else { "s" },
            if uses == 1 { "" } else { "s" },
        );
        if let Some(note) = ctx.parse.not_parsed() {
            let _ = write!(h, "; not searched for definitions: {note}");
        }
        if definitions == 0 {
            if suggestions.is_empty() {
                h.push_str("; no close names either");
            } else {
                let _ = write!(h, "; closest names: {}", suggestions.join(", "));
            }
        }
        h.push('\n');
        h
    };
    let (encoding, limits) = (session.encoding(), session.limits());
    let budget = limits.budget;
    let count = session.counter();
    let r = Render {
        header,
        matches: &matches,
        shown_max,
        name: &wanted.name,
        count: &count,
    };
    let fitted = paging::fit(&r, limits, &count)?;
    let shown = fitted.k;
    Ok(Answer {
        page: fitted.page(encoding, budget),
        facts: SymbolFacts {
            definitions,
            uses,
            shown,
            suggestions,
        },
    })
}

/// Renders answers for a symbol: the summary, then the matches shown, up to `shown_max`.
struct Render<'a> {
    header: String,
    matches: &'a [Match],
    shown_max: usize,
    /// The name asked for, as the hint to narrow says it.
    name: &'a str,
    count: &'a dyn Fn(&str) -> usize,
}

impl Paged for Render<'_> {
    /// No argument continues a cut answer: its last line says to raise limit or budget, or to
    /// narrow by path.
    type Next = ();

    fn items(&self) -> usize {
        self.shown_max
    }

    fn cost(&self, i: usize) -> (usize, usize) {
        let t = &self.matches[i].text;
        ((self.count)(t) + 1, t.len() + 1)
    }

    fn render(&self, k: usize) -> String {
        let mut out = self.header.clone();
        for m in &self.matches[..k] {
            out.push('\n');
            out.push_str(&m.text);
        }
        if k < self.matches.len() {
            let _ = write!(
                out,
                "\n--- {} of {} matches shown; raise limit (at most {MAX_LIMIT}) or budget, or narrow with path::{}\n",
                k,
                self.matches.len(),
                self.name
            );
        }
        out
    }

    fn next(&self, _k: usize) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse() {
        let w = parse_name("Foo").unwrap();
        assert_eq!((w.path, w.qualifier, w.name.as_str()), (None, None, "Foo"));
        let w = parse_name("Foo::bar").unwrap();
        assert_eq!(
            (w.path, w.qualifier.as_deref(), w.name.as_str()),
            (None, Some("Foo"), "bar")
        );
        let w = parse_name("src/a.rs::Foo::bar").unwrap();
        assert_eq!(w.path.as_deref(), Some("src/a.rs"));
        assert_eq!(
            (w.qualifier.as_deref(), w.name.as_str()),
            (Some("Foo"), "bar")
        );
        let w = parse_name("Recv.M").unwrap();
        assert_eq!(
            (w.qualifier.as_deref(), w.name.as_str()),
            (Some("Recv"), "M")
        );
        assert!(parse_name("").is_err());
        assert!(parse_name("src/::").is_err());
        assert!(parse_name("a b").is_err());
        assert!(parse_name(&"x".repeat(5000)).is_err());
    }

    #[test]
    fn distances_are_bounded() {
        assert_eq!(distance("parse", "prase", 2), Some(2));
        assert_eq!(distance("Parse", "parse", 1), Some(0));
        assert_eq!(distance("a", "abcdef", 2), None);
        assert!(has_word("let x = Foo::new();", "Foo"));
        assert!(!has_word("let x = FooBar::new();", "Foo"));
        assert!(is_test("tests/a.rs") && is_test("src/a_test.go") && !is_test("src/attest.rs"));
    }
}
