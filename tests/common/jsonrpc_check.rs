//! The message-handling invariant, shared by the property test (`tests/protocol/jsonrpc_props.rs`) and
//! the `jsonrpc` fuzz target (`fuzz/fuzz_targets/jsonrpc.rs`). Any bytes go through the real
//! [`gnaw::mcp::serve`] loop; then:
//!
//! - it returns (no panic, no hang) and every output line is one compact JSON-RPC 2.0 message;
//! - every request is answered exactly once with its id echoed exactly, except a `tools/call`
//!   that may be cancelled (by the client, or at end of input), which gets at most one answer;
//! - parse errors, invalid requests and oversize lines get one error each with a `null` id;
//! - notifications, malformed notifications and responses get nothing;
//! - the only thing the server sends unasked is `notifications/progress`.
//!
//! What each line deserves is worked out with the server's own framing and classifier
//! (`framing::LineReader`, `jsonrpc::parse`), which have unit tests of their own.

use std::collections::HashMap;
use std::io::{self, Write};
use std::sync::{Arc, Mutex, OnceLock};

use gnaw::mcp::framing::{Frame, LineReader};
use gnaw::mcp::jsonrpc::{self, Incoming, Parsed};
use gnaw::mcp::{Config, RootContainment};
use gnaw_sandbox::Root;
use serde_json::Value;

/// A longest line small enough that random inputs hit the cap.
pub const MAX_LINE: usize = 512;

/// stdout for the server under test.
#[derive(Clone, Default)]
struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A tiny repository for tool calls to read, made once per process and left in the temp dir.
fn containment() -> Arc<RootContainment> {
    static ROOT: OnceLock<Arc<RootContainment>> = OnceLock::new();
    Arc::clone(ROOT.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("gnaw-jsonrpc-check-{}", std::process::id()));
        let _ = std::fs::create_dir_all(dir.join("src"));
        let _ = std::fs::write(dir.join("src/lib.rs"), "pub fn f() {}\n");
        let root = Root::new(&dir, false).expect("scratch root");
        Arc::new(RootContainment(root))
    }))
}

fn key(id: &Value) -> String {
    id.to_string()
}

/// What the input deserves: per id, the least and most number of answers.
fn expected(input: &[u8]) -> HashMap<String, (usize, usize)> {
    let mut want: HashMap<String, (usize, usize)> = HashMap::new();
    let mut reader = LineReader::new(input, MAX_LINE);
    while let Ok(Some(frame)) = reader.next_frame() {
        let (id, optional) = match frame {
            Frame::Oversize { .. } => (Value::Null, false),
            Frame::Line(line) => match jsonrpc::parse(&line) {
                Parsed::Reject { id, .. } => (id, false),
                Parsed::Message(Incoming::Request { id, method, .. }) => {
                    (id, method == "tools/call")
                }
                Parsed::Ignore(_)
                | Parsed::Message(Incoming::Notification { .. })
                | Parsed::Message(Incoming::Response) => continue,
            },
        };
        let slot = want.entry(key(&id)).or_default();
        if optional {
            slot.1 += 1;
        } else {
            slot.0 += 1;
            slot.1 += 1;
        }
    }
    want
}

/// Run `input` through the server and judge its output. `Err` describes the violation.
pub fn check(input: &[u8]) -> Result<(), String> {
    let config = Config {
        max_line_bytes: MAX_LINE,
        max_output_bytes: 1 << 20,
        ..Config::default()
    };
    let sink = Sink::default();
    gnaw::mcp::serve(
        input,
        sink.clone(),
        config,
        containment(),
        gnaw::mcp::ToolSet::default(),
    )
    .map_err(|e| format!("serve failed on a byte slice: {e}"))?;
    let output = sink.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
    judge(input, &output)
}

/// Judge `output` as the answer to `input`.
pub fn judge(input: &[u8], output: &[u8]) -> Result<(), String> {
    let want = expected(input);
    let mut got: HashMap<String, usize> = HashMap::new();
    if !output.is_empty() && !output.ends_with(b"\n") {
        return Err("output does not end with a newline".into());
    }
    for line in output.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let text = std::str::from_utf8(line).map_err(|_| "an output line is not UTF-8")?;
        let msg: Value = serde_json::from_str(text)
            .map_err(|e| format!("output line is not JSON ({e}): {text}"))?;
        // Compact: re-serializing (keys may come back in another order) gives the same length.
        if serde_json::to_string(&msg).map(|s| s.len()).ok() != Some(text.len()) {
            return Err(format!("output line is not compact JSON: {text}"));
        }
        if msg["jsonrpc"] != "2.0" {
            return Err(format!("output without jsonrpc 2.0: {text}"));
        }
        if let Some(method) = msg.get("method") {
            if method != "notifications/progress" || msg.get("id").is_some() {
                return Err(format!("unexpected message from the server: {text}"));
            }
            continue;
        }
        let Some(id) = msg.get("id") else {
            return Err(format!("response without an id: {text}"));
        };
        match (msg.get("result"), msg.get("error")) {
            (Some(_), None) => {}
            (None, Some(e)) if e["code"].is_i64() && e["message"].is_string() => {}
            _ => return Err(format!("malformed response: {text}")),
        }
        *got.entry(key(id)).or_default() += 1;
    }
    for (id, n) in &got {
        let (lo, hi) = want.get(id).copied().unwrap_or((0, 0));
        if *n < lo || *n > hi {
            return Err(format!("id {id} answered {n} times, expected {lo}..={hi}"));
        }
    }
    for (id, (lo, _)) in &want {
        if got.get(id).copied().unwrap_or(0) < *lo {
            return Err(format!("id {id} was not answered (expected at least {lo})"));
        }
    }
    Ok(())
}
