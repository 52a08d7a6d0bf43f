//! Property test of the MCP message handling: sequences of valid, malformed, oversize and
//! random lines through the real server loop; every request answered once with its exact id,
//! nothing else answered, and the loop never panics (see `jsonrpc_check`). The same invariant
//! is fuzzed by `fuzz/fuzz_targets/jsonrpc.rs`. `GNAW_PROPTEST_CASES` raises the case count.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;

use common::jsonrpc_check;

use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("GNAW_PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

const IDS: &[&str] = &[
    "0",
    "1",
    "-1",
    "\"a\"",
    "\"0\"",
    "18446744073709551615",
    "null",
    "1.5",
    "{}",
    "[]",
    "true",
];

const METHODS: &[&str] = &[
    "ping",
    "initialize",
    "tools/list",
    "tools/call",
    "server/discover",
    "notifications/cancelled",
    "notifications/initialized",
    "nope",
    "",
];

const PARAMS: &[&str] = &[
    "{}",
    "[]",
    "5",
    "null",
    r#"{"protocolVersion":"2025-06-18"}"#,
    r#"{"protocolVersion":"1999-01-01"}"#,
    r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}"#,
    r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}"#,
    r#"{"name":"estimate","arguments":{"repo":"."}}"#,
    r#"{"name":"extract","arguments":{"repo":"../.."}}"#,
    r#"{"name":"extract","arguments":{"repo":"/etc"}}"#,
    r#"{"name":"estimate","arguments":{"repo":7}}"#,
    r#"{"name":"nope","arguments":{}}"#,
    r#"{"name":"extract","arguments":{"repo":".","bogus":1}}"#,
    r#"{"requestId":1}"#,
    r#"{"cursor":"x"}"#,
];

fn line() -> impl Strategy<Value = Vec<u8>> {
    let message = (
        proptest::option::of(0..IDS.len()),
        proptest::option::of(0..METHODS.len()),
        proptest::option::of(0..PARAMS.len()),
        any::<bool>(),
    )
        .prop_map(|(id, method, params, v2)| {
            let mut fields = vec![format!(r#""jsonrpc":"{}""#, if v2 { "2.0" } else { "1.0" })];
            if let Some(i) = id {
                fields.push(format!(r#""id":{}"#, IDS[i]));
            }
            if let Some(m) = method {
                fields.push(format!(r#""method":"{}""#, METHODS[m]));
            }
            if let Some(p) = params {
                fields.push(format!(r#""params":{}"#, PARAMS[p]));
            }
            format!("{{{}}}", fields.join(",")).into_bytes()
        });
    prop_oneof![
        6 => message.clone(),
        1 => message.clone().prop_map(|m| format!("[{}]", String::from_utf8_lossy(&m)).into_bytes()),
        1 => message.prop_flat_map(|m| {
            let n = m.len();
            (Just(m), 0..n).prop_map(|(m, cut)| m[..cut].to_vec())
        }),
        1 => proptest::collection::vec(any::<u8>(), 0..40),
        1 => (1..3usize).prop_map(|k| vec![b'x'; jsonrpc_check::MAX_LINE * k]),
        1 => Just(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{}}".to_vec()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn every_request_answered_once(lines in proptest::collection::vec(line(), 0..12), crlf in any::<bool>()) {
        let mut input = Vec::new();
        for l in &lines {
            input.extend_from_slice(l);
            input.extend_from_slice(if crlf { b"\r\n" } else { b"\n" });
        }
        if let Err(violation) = jsonrpc_check::check(&input) {
            panic!("{violation}\ninput: {}", String::from_utf8_lossy(&input));
        }
    }

    #[test]
    fn raw_bytes(input in proptest::collection::vec(any::<u8>(), 0..300)) {
        if let Err(violation) = jsonrpc_check::check(&input) {
            panic!("{violation}");
        }
    }
}

/// The judge must catch a missing answer, a duplicate and an invented id.
#[test]
fn the_judge_catches_violations() {
    let ping = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n";
    let answer = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";
    assert_eq!(jsonrpc_check::judge(ping, answer), Ok(()));
    assert!(jsonrpc_check::judge(ping, b"").is_err());
    assert!(jsonrpc_check::judge(ping, &[&answer[..], &answer[..]].concat()).is_err());
    assert!(jsonrpc_check::judge(b"", answer).is_err());
    let note = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    assert!(
        jsonrpc_check::judge(note, b"{\"jsonrpc\":\"2.0\",\"id\":null,\"result\":{}}\n").is_err()
    );
    assert_eq!(jsonrpc_check::check(ping), Ok(()));
}
