//! The exit gate: every message the server writes passes here on its way to the transport
//! ([`super::transport::Output::send`] is the only writer, and it seals each message first).
//!
//! What it does to a message:
//! - every string it says of its own is **redacted** with the secret rules, as text and as a
//!   name ([`scan::scan`] then [`scan::scan_name`], which also breaks words at `_` and `/`), in
//!   `redact` mode whatever mode the call ran in (an error or a title is never where a secret
//!   is meant to be read), then has its invisible characters written out
//!   ([`crate::vocab::display_text`]);
//! - an **error** (a JSON-RPC error, or a tool result with `isError: true`) is cut to its
//!   ceiling, measured on the message as it is sent (encoded JSON, envelope included): the
//!   longest strings are shortened first, before the word the cut falls in, and say so.
//!
//! "Its own strings" are every string of every message except what the client gave and gets
//! back as it is (the request `id`, a `progressToken`) and the text of a successful answer
//! (`content` and `structuredContent` of a tool's result without `isError`, `contents` of a
//! resource's, `messages` of a prompt's), which the pipeline
//! made under the call's own secrets mode: file text scanned and redacted per file (with the
//! operator's allow list, which this gate does not know), names through the one name renderer
//! ([`crate::stages::name`]), and fitted to the call's ceiling by the tool itself.
//!
//! Errors quote what they were given through [`crate::vocab::excerpt`] (short, escaped, no
//! word cut in two), so the gate's cut is the last bound, not the usual one.

use crate::stages::scan::{self, Allow, Scanned};
use crate::vocab::{SecretsMode, display_text};
use serde_json::Value;
use std::sync::OnceLock;

/// The keys of a result that hold an answer's text, made by the pipeline under the call's own
/// secrets mode: a tool's `content` and `structuredContent`, a resource's `contents`, a
/// prompt's `messages`.
const ANSWER_KEYS: [&str; 4] = ["content", "structuredContent", "contents", "messages"];

/// The fewest characters an error may be cut to, whatever the call's ceiling: room to say what
/// went wrong and what to do.
pub const MIN_ERROR_CHARS: usize = 1_000;

/// How many times an error's longest string is cut before the gate gives up shortening
/// (each cut takes off at least the excess, so one or two suffice).
const CUTS: usize = 8;

/// What a cut string ends with.
const CUT_NOTE: &str = " … (cut to fit the answer's ceiling)";

/// The exit gate, with the ceiling of a message that is not a call's answer.
#[derive(Clone, Copy, Debug)]
pub struct Gate {
    ceiling: usize,
}

impl Gate {
    /// A gate whose errors fit `ceiling` characters as sent (never less than
    /// [`MIN_ERROR_CHARS`]).
    pub fn new(ceiling: usize) -> Gate {
        Gate {
            ceiling: ceiling.max(MIN_ERROR_CHARS),
        }
    }

    /// The ceiling of an answer to a call whose `max_chars` is `max_chars` (0: the server's
    /// limit `server`), as every tool reads it; the gate's own when the call set none.
    pub fn for_call(&self, max_chars: Option<u64>, server: usize) -> Gate {
        let ceiling = match max_chars {
            Some(0) => server,
            Some(n) => usize::try_from(n).unwrap_or(usize::MAX).min(server),
            None => self.ceiling,
        };
        Gate::new(ceiling)
    }

    /// `message` as it may leave the server.
    pub fn seal(&self, mut message: Value) -> Value {
        let Some(obj) = message.as_object_mut() else {
            return message;
        };
        if let Some(error) = obj.get_mut("error") {
            clean_all(error);
            self.fit(&mut message);
            return message;
        }
        if let Some(result) = obj.get_mut("result").and_then(Value::as_object_mut) {
            let failed = result.get("isError") == Some(&Value::Bool(true));
            let answer = ANSWER_KEYS.iter().any(|k| result.contains_key(*k));
            for (key, value) in result.iter_mut() {
                let answer_text = ANSWER_KEYS.contains(&key.as_str());
                if failed || !answer || !answer_text {
                    clean_all(value);
                }
            }
            if failed {
                self.fit(&mut message);
            }
            return message;
        }
        if let Some(params) = obj.get_mut("params").and_then(Value::as_object_mut) {
            for (key, value) in params.iter_mut() {
                if key != "progressToken" {
                    clean_all(value);
                }
            }
        }
        message
    }

    /// Cut the longest strings of an error until the whole message fits the ceiling.
    fn fit(&self, message: &mut Value) {
        for _ in 0..CUTS {
            let sent = chars_sent(message);
            if sent <= self.ceiling {
                return;
            }
            let excess = sent - self.ceiling;
            let Some(longest) = longest_string(message) else {
                return;
            };
            let keep = longest
                .chars()
                .count()
                .saturating_sub(excess + CUT_NOTE.chars().count());
            cut(longest, keep);
        }
    }
}

/// Characters of `message` as the transport writes it.
fn chars_sent(message: &Value) -> usize {
    serde_json::to_string(message).map_or(usize::MAX, |s| s.chars().count())
}

/// The longest string in an error's body (`error`, or the result's strings), by characters.
fn longest_string(message: &mut Value) -> Option<&mut String> {
    let key = if message.get("error").is_some() {
        "error"
    } else {
        "result"
    };
    let body = message.get_mut(key)?;
    let mut longest = 0;
    visit(body, &mut |s: &mut String| {
        longest = longest.max(s.chars().count())
    });
    let mut found = None;
    visit_find(body, longest, &mut found);
    found
}

/// Every string under `value`, mutably.
fn visit(value: &mut Value, f: &mut dyn FnMut(&mut String)) {
    match value {
        Value::String(s) => f(s),
        Value::Array(items) => items.iter_mut().for_each(|v| visit(v, f)),
        Value::Object(map) => map.values_mut().for_each(|v| visit(v, f)),
        _ => {}
    }
}

/// The first string under `value` of `len` characters.
fn visit_find<'a>(value: &'a mut Value, len: usize, found: &mut Option<&'a mut String>) {
    if found.is_some() {
        return;
    }
    match value {
        Value::String(s) if s.chars().count() == len => *found = Some(s),
        Value::Array(items) => {
            for v in items {
                visit_find(v, len, found);
            }
        }
        Value::Object(map) => {
            for v in map.values_mut() {
                visit_find(v, len, found);
            }
        }
        _ => {}
    }
}

/// Keep the first `keep` characters of `s`, less the word the cut falls in, and say it was cut.
fn cut(s: &mut String, keep: usize) {
    let end = s.char_indices().nth(keep).map_or(s.len(), |(i, _)| i);
    let is_word = |c: char| c.is_alphanumeric() || "_-+/=.".contains(c);
    let cut_in_word = s[end..].chars().next().is_some_and(is_word);
    s.truncate(end);
    if cut_in_word {
        while s.chars().next_back().is_some_and(is_word) {
            s.pop();
        }
    }
    s.push_str(CUT_NOTE);
}

/// Redact and escape every string under `value`.
fn clean_all(value: &mut Value) {
    visit(value, &mut |s| {
        if let Some(clean) = clean(s) {
            *s = clean;
        }
    });
}

/// `text` redacted and escaped, or `None` when it is shown as it is.
pub fn clean(text: &str) -> Option<String> {
    static NONE_ALLOWED: OnceLock<Allow> = OnceLock::new();
    let allow = NONE_ALLOWED.get_or_init(Allow::default);
    let mut out: Option<String> = None;
    if let Scanned::Redacted { text, .. } = scan::scan(text, "", SecretsMode::Redact, allow) {
        out = Some(text);
    }
    let current = out.as_deref().unwrap_or(text);
    if let Scanned::Redacted { text, .. } = scan::scan_name(current, SecretsMode::Redact, allow) {
        out = Some(text);
    }
    let current = out.as_deref().unwrap_or(text);
    if let std::borrow::Cow::Owned(shown) = display_text(current) {
        out = Some(shown);
    }
    out
}

/// An error's text for a log line: what the gate would send.
pub fn for_log(text: &str) -> String {
    clean(text).unwrap_or_else(|| text.to_string())
}
