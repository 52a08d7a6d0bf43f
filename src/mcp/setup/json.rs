//! JSON client files for `gnaw-mcp setup`, edited in place: the file is read once by a
//! validating walk over jsonc-parser's tokens (JSON, plus the comments and trailing commas of
//! JSONC, which VS Code's and Zed's files hold), which finds the byte spans of the servers map
//! and its entries; the merge then inserts the entry's text, or replaces the old entry's span,
//! and every other byte of the file stays as it was: numbers (`12345678901234567890123`, `1.10`
//! are not rounded or reformatted), comments, whitespace, key order, line endings.
//!
//! The walk keeps its nesting in a stack of its own, bounded at [`MAX_DEPTH`] (no recursion),
//! and holds only the members of the objects on the path to the servers map: its memory is
//! the file's text and little more, where a syntax tree of a 60 MB `~/.claude.json` took 30
//! times the file. The inserted text follows the file's indentation (its first member's),
//! newline style and trailing-comma style. The result is walked again before it is written: a
//! merge that would not leave valid JSON with the entry in place writes nothing.

use std::borrow::Cow;

use jsonc_parser::tokens::Token;
use jsonc_parser::{Scanner, ScannerOptions};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::Outcome;

/// How deeply arrays and objects may nest in a client's file.
pub const MAX_DEPTH: usize = 512;

/// A JSON value to write (the entry), its objects' keys in the order given.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Bool(bool),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Bool(b) => s.serialize_bool(*b),
            Json::String(text) => s.serialize_str(text),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(fields) => {
                let mut map = s.serialize_map(Some(fields.len()))?;
                for (key, value) in fields {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

/// A byte range of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    start: usize,
    end: usize,
}

/// What a member's value is, as far as the merge cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Object,
    Null,
    Other,
}

/// One member of an object on the path to the servers map.
#[derive(Debug)]
struct Member {
    key: String,
    key_start: usize,
    value: Span,
    kind: Kind,
}

/// An object on the path to the servers map (level 0 is the top level).
#[derive(Debug, Default)]
struct Object {
    open: usize,
    close: usize,
    members: Vec<Member>,
    /// A comma follows the last member (JSONC's trailing comma).
    comma_after_last: bool,
}

/// What the walk found: the objects on the path, by level, as far as the path exists.
#[derive(Debug)]
struct Found {
    /// `None` for a file with no value at all (blank, or comments only).
    top: Option<Kind>,
    path: Vec<Object>,
}

/// Where the walk is, in one open array or object.
#[derive(Debug)]
enum State {
    /// Object: after `{` or `,`: a key, or `}` (after `,`, JSONC's trailing comma).
    Key,
    Colon,
    /// Object: after `:`.
    Value,
    /// After a member or an element: `,` or the close.
    CommaOrClose,
    /// Array: after `[` or `,`: an element, or `]`.
    Element,
}

#[derive(Debug)]
struct Frame {
    is_object: bool,
    state: State,
    start: usize,
    /// The level of this object on the path to the servers map, when it is on it.
    level: Option<usize>,
    /// The key of the member whose value is being read, and where it starts.
    key: Option<(String, usize)>,
}

/// A position as a person finds it: line and column, from 1.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |n| n + 1) + 1;
    (line, column)
}

fn invalid(text: &str, at: usize, what: &str) -> String {
    let (line, column) = line_column(text, at);
    format!(
        "it is not valid JSON: {what} at line {line}, column {column}; fix it or move it aside, \
         then run again"
    )
}

/// Walk `text`, checking it is one JSON (or JSONC) value, and find the objects on `servers`'
/// path with their members' spans. Errors say what is wrong and where.
fn walk(text: &str, servers: &[&str]) -> Result<Found, String> {
    let options = ScannerOptions {
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let mut scanner = Scanner::new(text, &options);
    let mut stack: Vec<Frame> = Vec::new();
    let mut found = Found {
        top: None,
        path: Vec::new(),
    };
    let mut done = false;
    loop {
        let token = scanner.scan().map_err(|e| {
            format!(
                "it is not valid JSON: {} at line {}, column {}; fix it or move it aside, then \
                 run again",
                e.kind(),
                e.line_display(),
                e.column_display()
            )
        })?;
        let start = scanner.token_start();
        let end = scanner.token_end();
        let Some(token) = token else { break };
        if matches!(token, Token::CommentLine(_) | Token::CommentBlock(_)) {
            continue;
        }
        if done {
            return Err(invalid(text, start, "more after the top-level value"));
        }
        // A value where one may start: at the top, after a key's `:`, or in an array.
        let at_value = match stack.last() {
            None => true,
            Some(f) => matches!(f.state, State::Value | State::Element),
        };
        match token {
            Token::OpenBrace | Token::OpenBracket if at_value => {
                if stack.len() >= MAX_DEPTH {
                    return Err(invalid(
                        text,
                        start,
                        &format!("arrays and objects nested deeper than {MAX_DEPTH}"),
                    ));
                }
                let is_object = token == Token::OpenBrace;
                let level = match stack.last() {
                    None => Some(0),
                    Some(parent) => match (parent.level, &parent.key) {
                        (Some(l), Some((key, _))) if l < servers.len() && key == servers[l] => {
                            Some(l + 1)
                        }
                        _ => None,
                    },
                };
                let level = level.filter(|_| is_object);
                if let Some(l) = level {
                    found.path.truncate(l);
                    found.path.push(Object {
                        open: start,
                        ..Object::default()
                    });
                }
                stack.push(Frame {
                    is_object,
                    state: if is_object {
                        State::Key
                    } else {
                        State::Element
                    },
                    start,
                    level,
                    key: None,
                });
            }
            Token::String(_) | Token::Number(_) | Token::Boolean(_) | Token::Null if at_value => {
                let kind = if token == Token::Null {
                    Kind::Null
                } else {
                    Kind::Other
                };
                if complete(&mut stack, &mut found, Span { start, end }, kind)? {
                    done = true;
                }
            }
            Token::String(key) if matches!(stack.last(), Some(f) if matches!(f.state, State::Key)) =>
            {
                let frame = stack.last_mut().expect("a frame");
                frame.key = Some((key.into_owned(), start));
                frame.state = State::Colon;
            }
            Token::Colon if matches!(stack.last(), Some(f) if matches!(f.state, State::Colon)) => {
                stack.last_mut().expect("a frame").state = State::Value;
            }
            Token::Comma if matches!(stack.last(), Some(f) if matches!(f.state, State::CommaOrClose)) =>
            {
                let frame = stack.last_mut().expect("a frame");
                if let Some(l) = frame.level {
                    found.path[l].comma_after_last = true;
                }
                frame.state = if frame.is_object {
                    State::Key
                } else {
                    State::Element
                };
            }
            Token::CloseBrace | Token::CloseBracket => {
                let closes = match stack.last() {
                    Some(f) if f.is_object == (token == Token::CloseBrace) => {
                        matches!(f.state, State::Key | State::CommaOrClose | State::Element)
                    }
                    _ => false,
                };
                if !closes {
                    return Err(invalid(
                        text,
                        start,
                        &format!("an unexpected `{}`", token.as_str()),
                    ));
                }
                let frame = stack.pop().expect("a frame");
                if let Some(l) = frame.level {
                    found.path[l].close = start;
                }
                let kind = if frame.is_object {
                    Kind::Object
                } else {
                    Kind::Other
                };
                let span = Span {
                    start: frame.start,
                    end,
                };
                if complete(&mut stack, &mut found, span, kind)? {
                    done = true;
                }
            }
            Token::Word(w) => {
                return Err(invalid(
                    text,
                    start,
                    &format!("an unquoted word `{}`", excerpt(w)),
                ));
            }
            other => {
                return Err(invalid(
                    text,
                    start,
                    &format!("an unexpected `{}`", excerpt(other.as_str())),
                ));
            }
        }
    }
    if let Some(open) = stack.last() {
        return Err(invalid(
            text,
            open.start,
            &format!(
                "this {} is never closed",
                if open.is_object { "object" } else { "array" }
            ),
        ));
    }
    Ok(found)
}

/// A value of `kind` at `span` is complete: the frame holding it moves on, and an object on
/// the path records the member. `true` when it was the top-level value.
fn complete(
    stack: &mut [Frame],
    found: &mut Found,
    span: Span,
    kind: Kind,
) -> Result<bool, String> {
    let Some(frame) = stack.last_mut() else {
        found.top = Some(kind);
        return Ok(true);
    };
    if let (Some(l), Some((key, key_start))) = (frame.level, frame.key.take()) {
        let object = &mut found.path[l];
        object.comma_after_last = false;
        object.members.push(Member {
            key,
            key_start,
            value: span,
            kind,
        });
    }
    frame.key = None;
    frame.state = State::CommaOrClose;
    Ok(false)
}

/// At most 40 characters of `s`, for a message.
fn excerpt(s: &str) -> String {
    let cut: String = s.chars().take(40).collect();
    crate::vocab::display_path(cut.as_bytes())
}

/// The whitespace that starts the line holding byte `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line = &text[line_start..];
    let len = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[..len]
}

/// Whether only whitespace stands between the start of its line and byte `at`.
fn starts_line(text: &str, at: usize) -> bool {
    let line_start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    text[line_start..at]
        .bytes()
        .all(|b| b == b' ' || b == b'\t')
}

/// How the file lays itself out.
struct Style<'a> {
    unit: Cow<'a, str>,
    newline: &'static str,
}

impl Style<'_> {
    /// The text of `value`, pretty-printed in this style, its later lines indented by `base`.
    fn render(&self, value: &Json, base: &str) -> String {
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(self.unit.as_bytes());
        let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
        // Strings, booleans, arrays and objects only: serializing cannot fail.
        let _ = value.serialize(&mut ser);
        let text = String::from_utf8(out).unwrap_or_default();
        text.replace('\n', &format!("{}{base}", self.newline))
    }

    /// The indentation of `object`'s members: its first member's when that starts a line,
    /// else one unit more than the line of its `{`.
    fn member_indent(&self, text: &str, object: &Object) -> String {
        match object.members.first() {
            Some(m) if starts_line(text, m.key_start) => line_indent(text, m.key_start).to_owned(),
            _ => format!("{}{}", line_indent(text, object.open), self.unit),
        }
    }
}

/// The file's style: its indentation unit (the top-level object's first member's, two spaces
/// when it has none) and its newline (`\r\n` when it uses it).
fn style<'a>(text: &'a str, top: Option<&Object>) -> Style<'a> {
    let unit = top
        .and_then(|o| {
            let m = o.members.first()?;
            if !starts_line(text, m.key_start) {
                return None;
            }
            let outer = line_indent(text, o.open);
            let inner = line_indent(text, m.key_start);
            inner
                .strip_prefix(outer)
                .filter(|u| !u.is_empty())
                .map(Cow::Borrowed)
        })
        .unwrap_or(Cow::Borrowed("  "));
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    Style { unit, newline }
}

/// `servers[from..]` as nested objects holding `name: entry`.
fn nested(servers: &[&str], name: &str, entry: &Json) -> Json {
    let mut value = Json::Object(vec![(name.to_owned(), entry.clone())]);
    for key in servers.iter().rev() {
        value = Json::Object(vec![((*key).to_owned(), value)]);
    }
    value
}

/// The edit that adds the member `key: value` at the end of `object`.
fn append(
    text: &str,
    style: &Style<'_>,
    object: &Object,
    key: &str,
    value: &Json,
) -> Vec<(usize, String)> {
    let indent = style.member_indent(text, object);
    let before_close = text[..object.close]
        .trim_end_matches([' ', '\t', '\r', '\n'])
        .len();
    let mut edits = Vec::new();
    if let Some(last) = object.members.last()
        && !object.comma_after_last
    {
        edits.push((last.value.end, ",".to_owned()));
    }
    let key = serde_json::to_string(key).unwrap_or_default();
    let mut added = format!(
        "{}{indent}{key}: {}",
        style.newline,
        style.render(value, &indent)
    );
    if object.comma_after_last {
        added.push(',');
    }
    if !text[before_close..object.close].contains('\n') {
        added.push_str(style.newline);
        added.push_str(line_indent(text, object.open));
    }
    edits.push((before_close, added));
    edits
}

/// `text` with `edits` (position, text inserted there, or `(start, end)` replaced) applied.
fn apply(text: &str, mut edits: Vec<(Span, String)>) -> String {
    // Equal positions keep their order: the comma before the member that follows it.
    edits.sort_by_key(|(span, _)| span.start);
    let mut out =
        String::with_capacity(text.len() + edits.iter().map(|(_, s)| s.len()).sum::<usize>());
    let mut at = 0;
    for (span, insert) in edits {
        out.push_str(&text[at..span.start]);
        out.push_str(&insert);
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// A key path as the user would look for it: `"mcpServers"`, or `"mcp"."servers"`.
fn shown(path: &[&str]) -> String {
    if path.is_empty() {
        return "the top level".into();
    }
    path.iter()
        .map(|k| format!("{k:?}"))
        .collect::<Vec<_>>()
        .join(".")
}

/// `text` (a client's file; empty for a new one) with `entry` under `name` in the servers map
/// at `servers`, creating the maps on the way; an entry of that name is replaced only with
/// `force`. Every byte not in the entry's place is kept.
pub fn merge(
    text: &str,
    servers: &[&str],
    name: &str,
    entry: &Json,
    force: bool,
) -> Result<(String, Outcome), String> {
    // A byte-order mark is kept, and the walk starts after it.
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    };
    let found = walk(body, servers)?;
    let (merged, outcome) = edit(body, &found, servers, name, entry, force)?;
    // What is written is walked again: valid, with the entry where the client looks.
    let again = walk(&merged, servers).map_err(|e| format!("the merge went wrong ({e})"))?;
    let there = again
        .path
        .get(servers.len())
        .is_some_and(|o| o.members.iter().filter(|m| m.key == name).count() == 1);
    if !there {
        return Err(
            "the merge went wrong (the entry is not where the client looks); \
                    nothing was changed"
                .into(),
        );
    }
    if bom.is_empty() {
        return Ok((merged, outcome));
    }
    Ok((format!("{bom}{merged}"), outcome))
}

/// The merged text, before its check.
fn edit(
    text: &str,
    found: &Found,
    servers: &[&str],
    name: &str,
    entry: &Json,
    force: bool,
) -> Result<(String, Outcome), String> {
    let style = style(text, found.path.first());
    match found.top {
        None => {
            let mut fresh = style.render(&nested(servers, name, entry), "");
            fresh.push_str(style.newline);
            // Comments in an otherwise empty file stay, before the new document.
            let kept = text.trim_end();
            return Ok((
                if kept.is_empty() {
                    fresh
                } else {
                    format!("{kept}{}{fresh}", style.newline)
                },
                Outcome::Added,
            ));
        }
        Some(Kind::Object) => {}
        Some(_) => return Err("its top level is not a JSON object ({ ... })".into()),
    }
    let inserts = |edits: Vec<(usize, String)>| {
        edits
            .into_iter()
            .map(|(at, s)| (Span { start: at, end: at }, s))
            .collect::<Vec<_>>()
    };
    // Down the path: each level's object, until the path ends or a key is missing.
    for (level, object) in found.path.iter().enumerate() {
        let is_servers = level == servers.len();
        let key = if is_servers { name } else { servers[level] };
        let same: Vec<&Member> = object.members.iter().filter(|m| m.key == key).collect();
        if same.len() > 1 {
            let (line, _) = line_column(text, same[1].key_start);
            return Err(format!(
                "{} has the key {key:?} twice (again at line {line}); a client reads only one \
                 of them: remove the other, then run again",
                shown(&servers[..level])
            ));
        }
        let Some(member) = same.first() else {
            // The key is missing: add it, with what belongs under it.
            let value = if is_servers {
                entry.clone()
            } else {
                nested(&servers[level + 1..], name, entry)
            };
            let edits = inserts(append(text, &style, object, key, &value));
            return Ok((apply(text, edits), Outcome::Added));
        };
        if is_servers {
            if !force {
                return Err(format!(
                    "it already has a server named {name:?} under {}; pass --force to replace \
                     it (the old file is kept as a backup), or --name to add another",
                    shown(servers)
                ));
            }
            let indent = if starts_line(text, member.key_start) {
                line_indent(text, member.key_start).to_owned()
            } else {
                style.member_indent(text, object)
            };
            let edits = vec![(member.value, style.render(entry, &indent))];
            return Ok((apply(text, edits), Outcome::Replaced));
        }
        match member.kind {
            Kind::Object => continue,
            Kind::Null => {
                // `"mcpServers": null` becomes the map.
                let indent = line_indent(text, member.key_start).to_owned();
                let value = nested(&servers[level + 1..], name, entry);
                let edits = vec![(member.value, style.render(&value, &indent))];
                return Ok((apply(text, edits), Outcome::Added));
            }
            Kind::Other => {
                return Err(format!("{} is not an object", shown(&servers[..=level])));
            }
        }
    }
    Err("the merge went wrong (the servers map was not found); nothing was changed".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The merge of `"g": true` into the map at `path` of `text`.
    fn put_g(text: &str, path: &[&str]) -> String {
        merge(text, path, "g", &Json::Bool(true), false).unwrap().0
    }

    fn entry() -> Json {
        Json::Object(vec![
            ("command".into(), Json::String("/bin/gnaw-mcp".into())),
            ("args".into(), Json::Array(vec![])),
        ])
    }

    fn merged(text: &str) -> String {
        merge(text, &["mcpServers"], "gnaw", &entry(), false)
            .unwrap()
            .0
    }

    #[test]
    fn every_byte_outside_the_entry_is_kept() {
        let text = "{\n    \"big\": 12345678901234567890123,\n    \"f\": 1.10, // why\n    \"e\": -0.0e+00,\n    /* block */\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"}\n    },\n    \"z\": \"\\u00e9\"\n}\n";
        let out = merged(text);
        assert_eq!(
            out,
            "{\n    \"big\": 12345678901234567890123,\n    \"f\": 1.10, // why\n    \"e\": -0.0e+00,\n    /* block */\n    \"mcpServers\": {\n        \"other\": {\"command\": \"x\"},\n        \"gnaw\": {\n            \"command\": \"/bin/gnaw-mcp\",\n            \"args\": []\n        }\n    },\n    \"z\": \"\\u00e9\"\n}\n"
        );
    }

    #[test]
    fn a_missing_map_is_added_in_the_files_style() {
        assert_eq!(
            merged("{\r\n\t\"a\": 1\r\n}"),
            "{\r\n\t\"a\": 1,\r\n\t\"mcpServers\": {\r\n\t\t\"gnaw\": {\r\n\t\t\t\"command\": \"/bin/gnaw-mcp\",\r\n\t\t\t\"args\": []\r\n\t\t}\r\n\t}\r\n}"
        );
        assert_eq!(
            merged("{\"a\":1}"),
            "{\"a\":1,\n  \"mcpServers\": {\n    \"gnaw\": {\n      \"command\": \"/bin/gnaw-mcp\",\n      \"args\": []\n    }\n  }\n}"
        );
        assert_eq!(
            merged("{}"),
            "{\n  \"mcpServers\": {\n    \"gnaw\": {\n      \"command\": \"/bin/gnaw-mcp\",\n      \"args\": []\n    }\n  }\n}"
        );
        assert_eq!(
            merged(""),
            "{\n  \"mcpServers\": {\n    \"gnaw\": {\n      \"command\": \"/bin/gnaw-mcp\",\n      \"args\": []\n    }\n  }\n}\n"
        );
        assert_eq!(
            merged("{\n  \"mcpServers\": null\n}\n"),
            "{\n  \"mcpServers\": {\n    \"gnaw\": {\n      \"command\": \"/bin/gnaw-mcp\",\n      \"args\": []\n    }\n  }\n}\n"
        );
    }

    #[test]
    fn trailing_commas_and_comments_before_the_close_keep_their_place() {
        let out = merged("{\n  \"mcpServers\": {\n    \"o\": 1, // last\n  },\n}\n");
        assert_eq!(
            out,
            "{\n  \"mcpServers\": {\n    \"o\": 1, // last\n    \"gnaw\": {\n      \"command\": \"/bin/gnaw-mcp\",\n      \"args\": []\n    },\n  },\n}\n"
        );
        let out = merged("{\n  \"mcpServers\": {\n    \"o\": 1 /* c */\n  }\n}");
        assert!(out.contains("\"o\": 1, /* c */\n    \"gnaw\""), "{out}");
    }

    #[test]
    fn a_taken_name_is_replaced_only_with_force_and_only_its_span() {
        let text = "{\"mcpServers\": {\"gnaw\": {\"old\": 1e400}, \"x\": 2}, \"n\": 1.0}";
        let e = merge(text, &["mcpServers"], "gnaw", &entry(), false).unwrap_err();
        assert!(e.contains("--force"), "{e}");
        let (out, outcome) = merge(text, &["mcpServers"], "gnaw", &entry(), true).unwrap();
        assert_eq!(outcome, Outcome::Replaced);
        assert_eq!(
            out,
            "{\"mcpServers\": {\"gnaw\": {\n    \"command\": \"/bin/gnaw-mcp\",\n    \"args\": []\n  }, \"x\": 2}, \"n\": 1.0}"
        );
    }

    #[test]
    fn bad_files_are_refused_with_a_place() {
        for (text, want) in [
            ("[1, 2]", "top level is not a JSON object"),
            ("{\"a\": 1", "never closed"),
            ("{\"a\": 1}}", "more after the top-level value"),
            ("{\"a\": 1} {}", "more after the top-level value"),
            ("{a: 1}", "unquoted word"),
            ("{\"a\": 'x'}", "line 1, column 7"),
            ("{\"a\": 0x10}", "not valid JSON"),
            ("{\"a\" 1}", "unexpected"),
            ("{,}", "unexpected `,`"),
            ("{\"mcpServers\": []}", "\"mcpServers\" is not an object"),
            ("{\"mcpServers\": {}, \"mcpServers\": {}}", "twice"),
            ("{\"mcpServers\": {\"gnaw\": 1, \"gnaw\": 2}}", "twice"),
        ] {
            let e = merge(text, &["mcpServers"], "gnaw", &entry(), true).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
        let deep = format!(
            "{{\"a\": {}{}}}",
            "[".repeat(MAX_DEPTH + 1),
            "]".repeat(MAX_DEPTH + 1)
        );
        let e = merge(&deep, &["mcpServers"], "gnaw", &entry(), true).unwrap_err();
        assert!(e.contains("deeper than 512"), "{e}");
        // Deep, but within the bound, is fine; the walk has no recursion to overflow.
        let ok = format!(
            "{{\"a\": {}{}}}",
            "[".repeat(MAX_DEPTH - 2),
            "]".repeat(MAX_DEPTH - 2)
        );
        assert!(merge(&ok, &["mcpServers"], "gnaw", &entry(), true).is_ok());
    }

    #[test]
    fn a_path_of_several_keys_is_walked_and_created() {
        let text = "{\n  \"mcp\": {\n    \"servers\": {}\n  }\n}\n";
        let out = put_g(text, &["mcp", "servers"]);
        assert_eq!(
            out,
            "{\n  \"mcp\": {\n    \"servers\": {\n      \"g\": true\n    }\n  }\n}\n"
        );
        let out = put_g("{\"mcp\": {}}", &["mcp", "servers"]);
        assert_eq!(
            out,
            "{\"mcp\": {\n  \"servers\": {\n    \"g\": true\n  }\n}}"
        );
        // A key of the same name deeper down, off the path, is not the servers map.
        let out = put_g("{\"x\": {\"servers\": {}}}", &["servers"]);
        assert_eq!(
            out,
            "{\"x\": {\"servers\": {}},\n  \"servers\": {\n    \"g\": true\n  }\n}"
        );
    }

    #[test]
    fn a_byte_order_mark_and_a_comment_only_file_are_kept() {
        let out = put_g("\u{feff}{}", &["s"]);
        assert_eq!(out, "\u{feff}{\n  \"s\": {\n    \"g\": true\n  }\n}");
        let out = put_g("// mine\n", &["s"]);
        assert_eq!(out, "// mine\n{\n  \"s\": {\n    \"g\": true\n  }\n}\n");
    }
}
