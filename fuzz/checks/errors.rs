//! Fuzz the error paths that quote repository content, through the exit gate: any text as a
//! `.gnawconfig` (with a known secret spliced in where the input says), any profile asked for,
//! and the globs the config yields compiled as a run compiles them. Each error the parse or the
//! compile raises is sent the way the server sends it (a JSON-RPC error and an `isError`
//! result, through `gnaw::mcp::gate::Gate`), and what comes out must hold no secret the secret
//! rules can find, as text or as a name, and must fit the gate's ceiling measured on the encoded
//! message.
//!
//! The first byte picks where the secret goes: into every `$` of the text (a key, a value, a
//! profile's name, a glob, wherever the input put one), and, when its low bit is set, also as
//! the profile asked for. A line starting with `@` first names the profile to select.

use gnaw::filter::Filter;
use gnaw::gnawconfig::{Options, parse};
use gnaw::mcp::gate::Gate;
use gnaw::scan::{self, Allow, Scanned};
use gnaw::vocab::SecretsMode;
use serde_json::{Value, json};

/// The ceiling errors are held to here: the smallest the gate allows.
const CEILING: usize = gnaw::mcp::gate::MIN_ERROR_CHARS;

/// A secret the rules know (in two parts, so no scanner flags this file).
fn secret() -> String {
    format!("{}{}", "gh", "p_u8Zq3LmN7pX2vR9tK4wY6bJ1cH5dF0gS8aQe")
}

/// Every string under `value`.
fn strings<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::String(s) => out.push(s),
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// `message` sent as the server sends an error, both ways, checked.
fn assert_sealed(message: &str) {
    let gate = Gate::new(CEILING);
    let rpc = json!({ "jsonrpc": "2.0", "id": 1,
        "error": { "code": -32602, "message": message, "data": { "message": message } } });
    let result = json!({ "jsonrpc": "2.0", "id": 1, "result": {
        "content": [{ "type": "text", "text": message }], "isError": true } });
    let allow = Allow::default();
    for sent in [gate.seal(rpc), gate.seal(result)] {
        let wire = sent.to_string();
        assert!(
            wire.chars().count() <= CEILING,
            "{} characters sent: {wire}",
            wire.chars().count()
        );
        let mut all = Vec::new();
        strings(&sent, &mut all);
        for s in all {
            assert!(
                matches!(
                    scan::scan(s, "", SecretsMode::Redact, &allow),
                    Scanned::Clean(_)
                ),
                "a secret is sent: {s}"
            );
            assert!(
                matches!(
                    scan::scan_name(s, SecretsMode::Redact, &allow),
                    Scanned::Clean(_)
                ),
                "a secret is sent in a name: {s}"
            );
        }
        assert!(!wire.contains(&secret()), "the secret is sent: {wire}");
    }
}

pub fn check(data: &[u8]) {
    let Some((&how, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let text = text.replace('$', &secret());
    let (profile, body) = match text.strip_prefix('@') {
        Some(rest) => match rest.split_once('\n') {
            Some((name, body)) => (Some(name.to_string()), body.to_string()),
            None => (Some(rest.to_string()), String::new()),
        },
        None if how & 1 == 1 => (Some(secret()), text.clone()),
        None => (None, text.clone()),
    };
    match parse(&body, Options::default(), profile.as_deref()) {
        Ok(o) => {
            if let Err(e) = Filter::new(&o.include, &o.exclude) {
                assert_sealed(&e.to_string());
            }
            if let Err(e) = gnaw::filter::check_glob_list(&o.secrets.allow_paths, "allow_paths") {
                assert_sealed(&e.to_string());
            } else if let Err(e) =
                Allow::new(&o.secrets.allow_paths, o.secrets.allow_fingerprints.clone())
            {
                assert_sealed(&e.to_string());
            }
        }
        Err(e) => assert_sealed(&e.message),
    }
}
