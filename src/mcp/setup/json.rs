//! JSON client files for `gnaw-mcp setup`: parsed by serde_json into a value that keeps every
//! object's keys in the file's order (the crate's `serde_json::Value` sorts them: its
//! `preserve_order` feature is off, and turning it on would reorder every JSON answer the server
//! sends), the entry merged in, written back pretty-printed. Comments (JSONC) would be lost, so
//! a file holding one is refused before anything is changed.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::Outcome;

/// A JSON value whose objects keep their keys in order (and any duplicates, as found).
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
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

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Json, D::Error> {
        Json::deserialize(d)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
        Ok(Json::Number(n.into()))
    }
    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(n)
            .map(Json::Number)
            .ok_or_else(|| E::custom("a number JSON cannot hold"))
    }
    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::String(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Json, E> {
        Ok(Json::String(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut fields = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Json>()? {
            fields.push((key, value));
        }
        Ok(Json::Object(fields))
    }
}

/// Where the first comment (`//` or `/*` outside a string) starts, as line and column (from 1).
pub fn first_comment(text: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let (mut in_string, mut escaped) = (false, false);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if b == b'/' && matches!(bytes.get(i + 1), Some(b'/' | b'*')) {
            let before = &text[..i];
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |n| n + 1) + 1;
            return Some((line, column));
        }
    }
    None
}

/// Parse a client's file: an object (an empty or blank file is an empty object). The error says
/// what is wrong, at which line and column.
pub fn parse(text: &str) -> Result<Json, String> {
    if let Some((line, column)) = first_comment(text) {
        return Err(format!(
            "it holds a comment (JSON with comments) at line {line}, column {column}, which \
             rewriting it would drop; add the entry by hand (run without --write to print it), \
             or remove the comments and run again"
        ));
    }
    if text.trim().is_empty() {
        return Ok(Json::Object(Vec::new()));
    }
    match serde_json::from_str::<Json>(text) {
        Ok(doc @ Json::Object(_)) => Ok(doc),
        Ok(_) => Err("its top level is not a JSON object ({ ... })".into()),
        Err(e) => Err(format!(
            "it is not valid JSON: {e} (line {}, column {}); fix it or move it aside, then run \
             again",
            e.line(),
            e.column()
        )),
    }
}

/// Put `entry` at `servers` (a key path) under `name` in `doc`, creating the maps on the way.
/// An entry of that name is replaced only with `force`.
pub fn merge(
    doc: &mut Json,
    servers: &[&str],
    name: &str,
    entry: Json,
    force: bool,
) -> Result<Outcome, String> {
    let mut node = doc;
    for (depth, key) in servers.iter().enumerate() {
        let Json::Object(fields) = node else {
            return Err(format!("{} is not an object", shown(&servers[..depth])));
        };
        let at = match fields.iter().position(|(k, _)| k == key) {
            Some(at) => at,
            None => {
                fields.push(((*key).to_owned(), Json::Object(Vec::new())));
                fields.len() - 1
            }
        };
        node = &mut fields[at].1;
        if *node == Json::Null {
            *node = Json::Object(Vec::new());
        }
    }
    let Json::Object(entries) = node else {
        return Err(format!("{} is not an object of servers", shown(servers)));
    };
    match entries.iter().position(|(k, _)| k == name) {
        Some(_) if !force => Err(format!(
            "it already has a server named {name:?} under {}; pass --force to replace it \
             (the old file is kept as a backup), or --name to add another",
            shown(servers)
        )),
        Some(at) => {
            entries[at].1 = entry;
            Ok(Outcome::Replaced)
        }
        None => {
            entries.push((name.to_owned(), entry));
            Ok(Outcome::Added)
        }
    }
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

/// The document as written back: pretty-printed, two spaces, a final newline.
pub fn render(doc: &Json) -> String {
    let mut text = serde_json::to_string_pretty(doc).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_keep_their_order_and_text_round_trips() {
        let text = "{\n  \"z\": 1,\n  \"a\": [\n    true,\n    null,\n    2.5,\n    \"s\"\n  ],\n  \"m\": {}\n}\n";
        assert_eq!(render(&parse(text).unwrap()), text);
    }

    #[test]
    fn comments_outside_strings_are_found() {
        assert_eq!(first_comment("{\"a\": \"http://x\"}"), None);
        assert_eq!(first_comment("{\"a\\\"//\": 1}"), None);
        assert_eq!(first_comment("{\n  // hi\n}"), Some((2, 3)));
        assert_eq!(first_comment("{ /* */ }"), Some((1, 3)));
    }

    #[test]
    fn merge_refuses_a_name_taken_unless_forced() {
        let mut doc = parse(r#"{"mcpServers": {"gnaw": {}}}"#).unwrap();
        let entry = Json::Bool(true);
        assert!(merge(&mut doc, &["mcpServers"], "gnaw", entry.clone(), false).is_err());
        assert_eq!(
            merge(&mut doc, &["mcpServers"], "gnaw", entry, true),
            Ok(Outcome::Replaced)
        );
        let mut bad = parse(r#"{"mcpServers": []}"#).unwrap();
        assert!(merge(&mut bad, &["mcpServers"], "gnaw", Json::Null, true).is_err());
    }
}
