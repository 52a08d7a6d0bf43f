//! The front door under test: a real `gnaw-mcp --listen 127.0.0.1:0` with a real tenants file
//! (tokens minted by `--mint-token`), each tenant's roots in a real temp dir; and a small
//! HTTP/1.1 client on std::net (JSON and chunked SSE bodies), so every byte on the wire is the
//! test's.

use serde_json::{Value, json};
use std::collections::HashMap;
use std::fs;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub const MODERN: &str = "2026-07-28";

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_gnaw-mcp")
}

/// A running front door.
pub struct Front {
    child: Child,
    pub port: u16,
    pub tokens: HashMap<String, String>,
    pub stderr: Arc<Mutex<String>>,
    pub tmp: tempfile::TempDir,
}

impl Drop for Front {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `gnaw-mcp --mint-token name`: (token, the tenants-file lines).
pub fn mint(name: &str) -> (String, String) {
    let out = Command::new(bin())
        .args(["--mint-token", name])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let token = text.lines().nth(1).unwrap().to_string();
    let table = text.split_once("GNAW_MCP_TENANTS):\n").unwrap().1;
    (token, table.to_string())
}

/// Tenants and their roots' contents: `name -> [(root dir name, [(file, text)])]`.
pub type Layout<'a> = &'a [(&'a str, Roots<'a>)];
/// A tenant's roots: `[(root dir name, [(file, text)])]`.
pub type Roots<'a> = &'a [Root<'a>];
/// One root: its directory name and its files.
pub type Root<'a> = (&'a str, &'a [(&'a str, &'a str)]);

impl Front {
    /// Start with `tenants`, under `tmp/<root dir name>`, with `env` set.
    pub fn start(tenants: Layout<'_>, env: &[(&str, &str)]) -> Front {
        Front::start_as(Command::new(bin()), tenants, env)
    }

    /// [`Front::start`] with descriptor 3 open for appending on `audit` (by the shell that
    /// execs the server), and `GNAW_MCP_AUDIT_FD=3`.
    pub fn start_with_audit_fd(tenants: Layout<'_>, audit: &std::path::Path) -> Front {
        let mut shell = Command::new("bash");
        shell
            .args(["-c", "exec \"$0\" \"$@\" 3>>\"$AUDIT_FILE\"", bin()])
            .env("AUDIT_FILE", audit);
        Front::start_as(shell, tenants, &[("GNAW_MCP_AUDIT_FD", "3")])
    }

    /// [`Front::start`] through `command` (the server, or a shell that execs it).
    fn start_as(command: Command, tenants: Layout<'_>, env: &[(&str, &str)]) -> Front {
        Front::start_listing(command, tenants, env, |_| {}, |base, dir| base.join(dir))
    }

    /// [`Front::start`], with `prepare` run on the base directory once the roots are made, and
    /// each root listed in the tenants file as `listed(base, root dir name)` says (a link to
    /// it, say).
    pub fn start_with(
        tenants: Layout<'_>,
        env: &[(&str, &str)],
        prepare: impl FnOnce(&std::path::Path),
        listed: impl Fn(&std::path::Path, &str) -> PathBuf,
    ) -> Front {
        Front::start_listing(Command::new(bin()), tenants, env, prepare, listed)
    }

    fn start_listing(
        command: Command,
        tenants: Layout<'_>,
        env: &[(&str, &str)],
        prepare: impl FnOnce(&std::path::Path),
        listed_as: impl Fn(&std::path::Path, &str) -> PathBuf,
    ) -> Front {
        let tmp = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(tmp.path()).unwrap();
        let mut file = String::new();
        let mut tokens = HashMap::new();
        for (name, roots) in tenants {
            let (token, table) = mint(name);
            let mut listed = Vec::new();
            for (dir, files) in roots.iter() {
                let root = base.join(dir);
                fs::create_dir_all(&root).unwrap();
                for (path, text) in files.iter() {
                    let p = root.join(path);
                    fs::create_dir_all(p.parent().unwrap()).unwrap();
                    fs::write(p, text).unwrap();
                }
                listed.push(format!("{:?}", listed_as(&base, dir).display().to_string()));
            }
            file.push_str(&table.replace(
                "roots = [\"/path/to/repo\"]",
                &format!("roots = [{}]", listed.join(", ")),
            ));
            tokens.insert(name.to_string(), token);
        }
        prepare(&base);
        let tenants_file = base.join("tenants.toml");
        fs::write(&tenants_file, file).unwrap();
        Front::launch_as(
            command,
            tmp,
            tokens,
            &["--listen", "127.0.0.1:0"],
            &[("GNAW_MCP_TENANTS", tenants_file.to_str().unwrap())],
            env,
        )
    }

    /// Start `command args` (the server, or a shell that execs it) and wait for its listening
    /// line.
    fn launch_as(
        mut command: Command,
        tmp: tempfile::TempDir,
        tokens: HashMap<String, String>,
        args: &[&str],
        env1: &[(&str, &str)],
        env2: &[(&str, &str)],
    ) -> Front {
        command
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .env("RUST_LOG", "info")
            .env_remove("GNAW_MCP_LISTEN")
            .env_remove("GNAW_MCP_TENANTS");
        for (k, v) in env1.iter().chain(env2) {
            command.env(k, v);
        }
        let mut child = command.spawn().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let (tx, rx) = std::sync::mpsc::channel();
        {
            let stderr = Arc::clone(&stderr);
            let pipe = child.stderr.take().unwrap();
            std::thread::spawn(move || {
                for line in BufReader::new(pipe).lines() {
                    let Ok(line) = line else { break };
                    if let Some(rest) = line.split("listening on http://127.0.0.1:").nth(1) {
                        let port: u16 = rest.split('/').next().unwrap().parse().unwrap();
                        let _ = tx.send(port);
                    }
                    let mut s = stderr.lock().unwrap();
                    s.push_str(&line);
                    s.push('\n');
                }
            });
        }
        let port = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(port) => port,
            Err(_) => {
                let _ = child.kill();
                panic!("the front door did not start: {}", stderr.lock().unwrap());
            }
        };
        Front {
            child,
            port,
            tokens,
            stderr,
            tmp,
        }
    }

    pub fn base(&self) -> PathBuf {
        fs::canonicalize(self.tmp.path()).unwrap()
    }

    /// A tree at `dir` under the base that takes a tool a while to read: `files` files
    /// `f{i}.rs`, each `copies` copies of `line(i)`.
    pub fn big_tree(&self, dir: &str, files: usize, copies: usize, line: impl Fn(usize) -> String) {
        let big = self.base().join(dir);
        fs::create_dir_all(&big).unwrap();
        for i in 0..files {
            fs::write(big.join(format!("f{i}.rs")), line(i).repeat(copies)).unwrap();
        }
    }

    /// The line of [`Front::big_tree`]'s usual files: `fn f{i}() { let x = {i}; }`.
    pub fn let_line(i: usize) -> String {
        format!("fn f{i}() {{ let x = {i}; }}\n")
    }

    /// A legacy-era `initialize` (no `_meta` revision) as `tenant`, asking for `version`.
    pub fn initialize(&self, tenant: &str, version: &str) -> Reply {
        self.post(Some(tenant), &[], &initialize(version))
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The audit lines of the log, parsed.
    pub fn audits(&self) -> Vec<Value> {
        self.log()
            .lines()
            .filter(|l| l.starts_with("{\"audit\""))
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    pub fn log(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }

    /// The pid of tenant `name`'s worker, as last logged.
    pub fn worker_pid(&self, name: &str) -> Option<u32> {
        let needle = format!("tenant {name}: worker started, pid ");
        self.log()
            .lines()
            .rev()
            .find_map(|l| l.split(&needle).nth(1))
            .map(|p| p.trim().parse().unwrap())
    }

    /// Like [`Front::worker_pid`], waiting for the line.
    pub fn worker_pid_any(&self, name: &str) -> u32 {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(pid) = self.worker_pid(name) {
                return pid;
            }
            assert!(Instant::now() < deadline, "no worker pid for {name}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn connect(&self) -> Conn {
        let stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(120)))
            .unwrap();
        Conn {
            stream,
            buf: Vec::new(),
        }
    }

    /// POST `body` as tenant `tenant` (None: no token) with extra headers.
    pub fn post(&self, tenant: Option<&str>, headers: &[(&str, &str)], body: &Value) -> Reply {
        let mut conn = self.connect();
        conn.post(tenant.map(|t| self.tokens[t].as_str()), headers, body)
    }

    /// A modern tools/call as `tenant`, answered as JSON.
    pub fn modern_call(&self, tenant: &str, id: Value, tool: &str, args: Value) -> Reply {
        self.post(
            Some(tenant),
            &modern_headers("tools/call", Some(tool)),
            &modern_call(id, tool, args),
        )
    }
}

/// The body of a legacy-era `initialize` asking for `version`.
pub fn initialize(version: &str) -> Value {
    serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                       "params": {"protocolVersion": version, "capabilities": {}}})
}

pub fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "gnaw-http-tests", "version": "0" },
    })
}

pub fn modern_call(id: Value, tool: &str, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": args, "_meta": modern_meta()}})
}

pub fn modern_headers<'a>(method: &'a str, name: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut h = vec![
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", method),
        ("Accept", "application/json, text/event-stream"),
    ];
    if let Some(n) = name {
        h.push(("Mcp-Name", n));
    }
    h
}

/// One HTTP response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// The messages of an SSE body.
    pub fn events(&self) -> Vec<Value> {
        String::from_utf8_lossy(&self.body)
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(|d| serde_json::from_str(d).unwrap())
            .collect()
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Fail the test, showing the body, unless the status is `status`.
    #[track_caller]
    pub fn status_is(&self, status: u16) -> &Self {
        assert_eq!(self.status, status, "{}", self.text());
        self
    }
}

/// One client connection (keep-alive).
pub struct Conn {
    pub stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    /// Whether the server closed the connection: nothing left to read, and the next read
    /// sees its end (or a reset) within 5 s rather than waiting.
    pub fn closed(&mut self) -> bool {
        let _ = self.stream.set_read_timeout(Some(Duration::from_secs(5)));
        let mut byte = [0u8; 1];
        match self.stream.read(&mut byte) {
            Ok(0) => self.buf.is_empty(),
            Ok(_) => false,
            Err(e) => !matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ),
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    /// Send one request (then `read_reply` reads its response).
    pub fn send(
        &mut self,
        method: &str,
        token: Option<&str>,
        headers: &[(&str, &str)],
        body: Option<&Value>,
    ) -> &mut Self {
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut head = format!("{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        if let Some(t) = token {
            head.push_str(&format!("Authorization: Bearer {t}\r\n"));
        }
        if !headers
            .iter()
            .any(|(n, _)| n.eq_ignore_ascii_case("accept"))
        {
            head.push_str("Accept: application/json, text/event-stream\r\n");
        }
        for (n, v) in headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        if !body.is_empty() {
            head.push_str("Content-Type: application/json\r\n");
        }
        head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
        self.send_raw(head.as_bytes());
        self.send_raw(body.as_bytes());
        self
    }

    pub fn post(&mut self, token: Option<&str>, headers: &[(&str, &str)], body: &Value) -> Reply {
        self.send("POST", token, headers, Some(body)).read_reply()
    }

    fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 16384];
        match self.stream.read(&mut chunk) {
            Ok(0) | Err(_) => false,
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                true
            }
        }
    }

    /// Read one response (Content-Length or chunked).
    pub fn read_reply(&mut self) -> Reply {
        let deadline = Instant::now() + Duration::from_secs(120);
        let head_end = loop {
            if let Some(p) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break p;
            }
            assert!(Instant::now() < deadline, "no response head");
            assert!(
                self.fill(),
                "connection closed before a response: {:?}",
                String::from_utf8_lossy(&self.buf)
            );
        };
        let head = String::from_utf8(self.buf[..head_end].to_vec()).unwrap();
        self.buf.drain(..head_end + 4);
        let mut lines = head.split("\r\n");
        let status: u16 = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
            .collect();
        let get = |n: &str| {
            headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case(n))
                .map(|(_, v)| v.clone())
        };
        let mut body = Vec::new();
        if get("transfer-encoding").is_some() {
            loop {
                let line_end = loop {
                    if let Some(p) = self.buf.windows(2).position(|w| w == b"\r\n") {
                        break p;
                    }
                    if !self.fill() {
                        return Reply {
                            status,
                            headers,
                            body,
                        };
                    }
                };
                let size = usize::from_str_radix(
                    std::str::from_utf8(&self.buf[..line_end]).unwrap().trim(),
                    16,
                )
                .unwrap();
                self.buf.drain(..line_end + 2);
                while self.buf.len() < size + 2 {
                    if !self.fill() {
                        return Reply {
                            status,
                            headers,
                            body,
                        };
                    }
                }
                body.extend_from_slice(&self.buf[..size]);
                self.buf.drain(..size + 2);
                if size == 0 {
                    break;
                }
            }
        } else {
            let len: usize = get("content-length").map_or(0, |l| l.parse().unwrap());
            while self.buf.len() < len {
                assert!(self.fill(), "connection closed mid-body");
            }
            body = self.buf.drain(..len).collect();
        }
        Reply {
            status,
            headers,
            body,
        }
    }
}
