//! A small MCP test client: spawns the built `gnaw-mcp`, writes JSON-RPC lines to its stdin and
//! reads its stdout on a thread, with timeouts so a hung server fails the test instead of
//! hanging it. Every stdout line is checked to be one JSON-RPC object: stdout is protocol only.

#![allow(dead_code)]

use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// How long any single expected message may take.
pub const TIMEOUT: Duration = Duration::from_secs(90);

pub const MODERN: &str = "2026-07-28";

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_gnaw-mcp")
}

/// `_meta` for a modern (2026-07-28) request.
pub fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "gnaw-tests", "version": "0" },
    })
}

pub struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    stderr: Arc<Mutex<Vec<u8>>>,
    next_id: i64,
    /// Notifications received while waiting for a response.
    pub notifications: Vec<Value>,
}

impl Server {
    /// Start gnaw-mcp serving `root`, with extra environment.
    pub fn start(root: &Path, env: &[(&str, &str)]) -> Server {
        Server::start_with(Some(root), &[], env)
    }

    /// Start `gnaw-mcp args`, serving `root` when given (else what the arguments say), with
    /// extra environment.
    pub fn start_with(root: Option<&Path>, args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut cmd = Command::new(bin());
        cmd.env_clear();
        if let Some(root) = root {
            cmd.env("GNAW_MCP_ROOT", root);
        }
        cmd.args(args)
            .env("RUST_LOG", "debug")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(path) = std::env::var_os("PATH") {
            cmd.env("PATH", path);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("spawn gnaw-mcp");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = Vec::new();
            while reader.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                let value = stdout_message(&line);
                line.clear();
                if tx.send(value).is_err() {
                    break;
                }
            }
        });
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut err_pipe = child.stderr.take().unwrap();
        let sink = Arc::clone(&stderr);
        thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = err_pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        let stdin = child.stdin.take();
        Server {
            child,
            stdin,
            lines,
            stderr,
            next_id: 1,
            notifications: Vec::new(),
        }
    }

    /// The server's process id (for `/proc/PID/status`).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    /// Write raw bytes (a newline is not added).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to gnaw-mcp");
        stdin.flush().unwrap();
    }

    pub fn send(&mut self, message: &Value) {
        let mut line = serde_json::to_vec(message).unwrap();
        line.push(b'\n');
        self.send_raw(&line);
    }

    /// The next message, failing the test after `TIMEOUT`.
    pub fn recv(&mut self) -> Value {
        self.recv_within(TIMEOUT)
            .unwrap_or_else(|| panic!("no message from gnaw-mcp; stderr:\n{}", self.stderr()))
    }

    pub fn recv_within(&mut self, timeout: Duration) -> Option<Value> {
        match self.lines.recv_timeout(timeout) {
            Ok(v) => Some(v),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => {
                panic!("gnaw-mcp closed stdout; stderr:\n{}", self.stderr())
            }
        }
    }

    /// Wait for the response with `id`, keeping notifications; fails on any other response.
    pub fn response(&mut self, id: &Value) -> Value {
        loop {
            let msg = self.recv();
            if msg.get("id").is_none() {
                self.notifications.push(msg);
                continue;
            }
            assert_eq!(&msg["id"], id, "unexpected response: {msg}");
            return msg;
        }
    }

    pub fn fresh_id(&mut self) -> Value {
        self.next_id += 1;
        json!(self.next_id)
    }

    /// Send a request and wait for its response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.fresh_id();
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        self.response(&id)
    }

    /// The `result` of a request, failing the test on an error response.
    pub fn ok(&mut self, method: &str, params: Value) -> Value {
        let resp = self.request(method, params);
        assert!(resp.get("error").is_none(), "{method} failed: {resp}");
        resp["result"].clone()
    }

    /// The `error` of a request, failing the test on a success.
    pub fn err(&mut self, method: &str, params: Value) -> Value {
        let resp = self.request(method, params);
        assert!(resp.get("result").is_none(), "{method} should fail: {resp}");
        resp["error"].clone()
    }

    /// A legacy ping answers `{}`: proves the server is alive and in order.
    pub fn ping(&mut self) {
        let resp = self.request("ping", json!({}));
        assert_eq!(resp["result"], json!({}), "ping: {resp}");
    }

    pub fn initialize(&mut self, version: &str) -> Value {
        let result = self.ok(
            "initialize",
            json!({
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": { "name": "gnaw-tests", "version": "0" },
            }),
        );
        self.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        result
    }

    /// Call a tool (legacy era) and return the whole response.
    pub fn call(&mut self, name: &str, arguments: Value) -> Value {
        self.request(
            "tools/call",
            json!({ "name": name, "arguments": arguments }),
        )
    }

    /// Close stdin, wait for the exit, and fail the test (showing stderr) unless it succeeded.
    pub fn finish_ok(self) {
        let (status, stderr) = self.finish();
        assert!(status.success(), "{status}: {stderr}");
    }

    /// Close stdin and wait for the exit status.
    pub fn finish(mut self) -> (ExitStatus, String) {
        drop(self.stdin.take());
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // Nothing may be left unread on stdout.
                if let Ok(extra) = self.lines.recv_timeout(Duration::from_millis(200)) {
                    panic!("unexpected message after EOF: {extra}");
                }
                return (status, self.stderr());
            }
            assert!(Instant::now() < deadline, "gnaw-mcp did not exit after EOF");
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Run gnaw-mcp with `args` and no stdin, returning (status, stdout, stderr).
pub fn run(root: &Path, args: &[&str], env: &[(&str, &str)]) -> (ExitStatus, String, String) {
    let mut cmd = Command::new(bin());
    cmd.env_clear().env("GNAW_MCP_ROOT", root).args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.stdin(Stdio::null()).output().expect("run gnaw-mcp");
    (
        out.status,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Field `field` of the last cache statistics the server logged on `stderr` (it logs them after
/// each call, at debug level).
pub fn cache_stat(stderr: &str, field: &str) -> u64 {
    let line = stderr
        .lines()
        .rev()
        .find(|l| l.contains("cache CacheStats"))
        .unwrap_or_else(|| panic!("no cache stats in: {stderr}"));
    let at = line
        .find(&format!("{field}: "))
        .unwrap_or_else(|| panic!("no {field} in: {line}"))
        + field.len()
        + 2;
    line[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// Arguments that make a tool run on `repo`, from its input schema: each required argument given
/// a plain value (`path` and `paths` name `path`, anything else is `word`), then `extra` on top.
pub fn required_arguments(
    schema: &Value,
    repo: &str,
    path: &str,
    word: &str,
    extra: &Value,
) -> Value {
    let mut args = json!({ "repo": repo });
    for name in schema["required"].as_array().into_iter().flatten() {
        let name = name.as_str().unwrap_or_default();
        if name != "repo" {
            args[name] = match name {
                "path" => json!(path),
                "paths" => json!([path]),
                _ => json!(word),
            };
        }
    }
    for (k, v) in extra.as_object().into_iter().flatten() {
        args[k] = v.clone();
    }
    args
}

/// One line of the server's stdout, which must be one JSON-RPC message: UTF-8, JSON, on one
/// line that ends with a line break.
fn stdout_message(line: &[u8]) -> Value {
    assert_eq!(
        line.last(),
        Some(&b'\n'),
        "stdout line not newline-terminated"
    );
    let text = std::str::from_utf8(line).expect("stdout is UTF-8");
    let value: Value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {text:?}"));
    assert_eq!(value["jsonrpc"], "2.0", "not a JSON-RPC message: {text}");
    assert!(!text.trim_end().contains('\n'), "message spans lines");
    value
}
