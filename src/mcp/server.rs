//! The MCP server loop: read framed JSON-RPC from stdin, answer on stdout, and run tool calls
//! on a worker thread so `ping` and `notifications/cancelled` are handled while one runs.
//!
//! Both protocol eras are served on the same stream, chosen per message as the 2026-07-28
//! versioning page says:
//! - a request whose `params._meta` carries `io.modelcontextprotocol/protocolVersion` is
//!   *modern*: stateless, validated on its own, answered with `resultType: "complete"`;
//! - anything else is *legacy*: `initialize` negotiates one of 2024-11-05 .. 2025-11-25 for
//!   the life of the process, and results are shaped for that revision.

use std::collections::HashMap;
use std::io::{self, BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use crate::scan::SecretsMode;
use crate::spec::Policy;
use serde_json::{Map, Value, json};

use super::framing::{Frame, LineReader};
use super::jsonrpc::{self, Incoming, Parsed, RpcError};
use super::tools::{self, Containment, Outcome, Shape};
use crate::Observer;

/// Legacy (initialize-handshake) revisions we speak, oldest first.
pub const LEGACY_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// Modern (per-request `_meta`) revisions we speak.
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// How long a client may cache `tools/list` and `server/discover`: the tools are fixed for the
/// life of the process and carry nothing user-specific.
const CACHE_TTL_MS: u64 = 3_600_000;

/// Minimum gap between two progress notifications for one call.
const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);

const INSTRUCTIONS: &str = "gnaw turns a local source repository under this server's root \
directory into one LLM-ready prompt with an exact token count. Call `estimate` to learn the \
size, then `extract` with `include`/`exclude` globs to get the text. Both tools are read-only.";

/// Limits, from the environment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    /// Longest accepted input line (`GNAW_MCP_MAX_LINE_BYTES`).
    pub max_line_bytes: usize,
    /// Largest prompt `extract` returns (`GNAW_MCP_MAX_OUTPUT_BYTES`).
    pub max_output_bytes: usize,
    /// Bytes the warm cache may hold (`GNAW_MCP_CACHE_BYTES`; 0 turns it off).
    pub cache_bytes: usize,
    /// Defaults and floors for every call: `GNAW_MCP_DEFAULT_BUDGET`, `GNAW_MCP_MAX_FILE_SIZE`,
    /// `GNAW_MCP_HARD_LINKS` and
    /// `GNAW_MCP_SECRETS_FLOOR` on top of [`Policy::server`].
    pub policy: Policy,
}

impl Default for Config {
    /// 4 MiB for both. A line holds one request, and requests are a few hundred bytes, so 4 MiB
    /// is generous without letting a client make us hold an unbounded line. For output, about
    /// 4 bytes of source make one token, so 4 MiB is roughly one million tokens: as much as the
    /// largest context windows take. Anything bigger could only be truncated by the client.
    fn default() -> Config {
        Config {
            max_line_bytes: 4 << 20,
            max_output_bytes: 4 << 20,
            cache_bytes: crate::cache::DEFAULT_CACHE_BYTES,
            policy: Policy::server(),
        }
    }
}

impl Config {
    /// Read `GNAW_MCP_MAX_LINE_BYTES` and `GNAW_MCP_MAX_OUTPUT_BYTES` (positive byte counts).
    pub fn from_env() -> Result<Config, String> {
        let mut config = Config::default();
        for (name, slot) in [
            ("GNAW_MCP_MAX_LINE_BYTES", &mut config.max_line_bytes),
            ("GNAW_MCP_MAX_OUTPUT_BYTES", &mut config.max_output_bytes),
        ] {
            if let Some(raw) = std::env::var_os(name) {
                let value = raw
                    .to_str()
                    .and_then(|s| s.trim().parse::<usize>().ok())
                    .filter(|&n| n > 0)
                    .ok_or_else(|| {
                        format!(
                            "{name} must be a positive number of bytes, got {:?}; unset it to use the default ({})",
                            raw,
                            slot
                        )
                    })?;
                *slot = value;
            }
        }
        if let Some(raw) = std::env::var_os("GNAW_MCP_CACHE_BYTES") {
            config.cache_bytes = raw
                .to_str()
                .and_then(crate::config::parse_size)
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| {
                    format!(
                        "GNAW_MCP_CACHE_BYTES must be a byte count such as 268435456 or \"256MiB\" (0 turns the cache off), got {raw:?}"
                    )
                })?;
        }
        if let Some(raw) = std::env::var_os("GNAW_MCP_DEFAULT_BUDGET") {
            let budget = raw
                .to_str()
                .and_then(|s| s.trim().parse::<usize>().ok())
                .ok_or_else(|| {
                    format!(
                        "GNAW_MCP_DEFAULT_BUDGET must be a token count (0 for unlimited), got {raw:?}"
                    )
                })?;
            config.policy.budget_default = (budget > 0).then_some(budget);
        }
        if let Some(raw) = std::env::var_os("GNAW_MCP_MAX_FILE_SIZE") {
            let cap = raw
                .to_str()
                .and_then(crate::config::parse_size)
                .filter(|&n| n > 0)
                .ok_or_else(|| {
                    format!(
                        "GNAW_MCP_MAX_FILE_SIZE must be a byte count such as 16777216 or \"16MiB\", got {raw:?}"
                    )
                })?;
            config.policy.max_file_size_cap = Some(cap);
        }
        if let Some(raw) = std::env::var_os("GNAW_MCP_HARD_LINKS") {
            config.policy.skip_hard_links = match raw.to_str().map(str::trim) {
                Some("skip") => true,
                Some("read") => false,
                _ => {
                    return Err(format!(
                        "GNAW_MCP_HARD_LINKS must be skip (the default: files with more than one hard link are left out, since they may be links to files outside the root) or read, got {raw:?}"
                    ));
                }
            };
        }
        if let Some(raw) = std::env::var_os("GNAW_MCP_SECRETS_FLOOR") {
            config.policy.secrets_floor = raw
                .to_str()
                .and_then(|s| s.trim().parse::<SecretsMode>().ok())
                .ok_or_else(|| {
                    format!(
                        "GNAW_MCP_SECRETS_FLOOR must be off, warn, redact or block, got {raw:?}"
                    )
                })?;
        }
        Ok(config)
    }
}

/// The server's own name and version, as `serverInfo`.
fn server_info() -> Value {
    json!({ "name": "gnaw-mcp", "version": env!("CARGO_PKG_VERSION") })
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// stdout, shared by the reader and the worker: one compact message per line, flushed each time.
struct Output {
    writer: Mutex<Box<dyn Write + Send>>,
}

impl Output {
    fn send(&self, message: &Value) {
        let mut line = match serde_json::to_vec(message) {
            Ok(line) => line,
            Err(e) => {
                log::error!("could not serialize a response: {e}");
                return;
            }
        };
        line.push(b'\n');
        let mut w = lock(&self.writer);
        if let Err(e) = w.write_all(&line).and_then(|()| w.flush()) {
            log::warn!("could not write to stdout: {e}");
        }
    }
}

/// How one request is to be answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Era {
    Legacy,
    Modern,
}

/// Decide the era of a request from its `_meta`, validating the modern fields.
fn era_of(params: &Map<String, Value>) -> Result<Era, RpcError> {
    let Some(Value::Object(meta)) = params.get("_meta") else {
        return Ok(Era::Legacy);
    };
    let Some(version) = meta.get(META_VERSION) else {
        return Ok(Era::Legacy);
    };
    let Some(version) = version.as_str() else {
        return Err(RpcError::invalid_params(format!(
            "_meta[\"{META_VERSION}\"] must be a string"
        )));
    };
    if !MODERN_VERSIONS.contains(&version) {
        return Err(RpcError::new(
            jsonrpc::UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
        )
        .with_data(json!({ "supported": MODERN_VERSIONS, "requested": version })));
    }
    if !matches!(meta.get(META_CAPABILITIES), Some(Value::Object(_))) {
        return Err(RpcError::invalid_params(format!(
            "_meta[\"{META_CAPABILITIES}\"] is required and must be an object"
        )));
    }
    Ok(Era::Modern)
}

/// Add what every modern result carries.
fn finish(era: Era, mut result: Value) -> Value {
    if era == Era::Modern {
        result["resultType"] = json!("complete");
        result["_meta"] = json!({ META_SERVER_INFO: server_info() });
    }
    result
}

/// A tool call waiting for, or running on, the worker.
struct Job {
    id: Value,
    key: String,
    era: Era,
    call: tools::Call,
    shape: Shape,
    progress_token: Option<Value>,
    cancel: Arc<AtomicBool>,
}

/// The observer handed to the pipeline for one call: cancellation and progress.
struct CallObserver<'a> {
    cancel: &'a AtomicBool,
    out: &'a Output,
    token: Option<&'a Value>,
    /// Last `done` reported and when.
    last: Mutex<(usize, Option<Instant>)>,
}

impl Observer for CallObserver<'_> {
    fn progress(&self, done: usize, total: usize) {
        let Some(token) = self.token else { return };
        if self.cancelled() {
            return;
        }
        let mut last = lock(&self.last);
        let due = last.1.is_none_or(|t| t.elapsed() >= PROGRESS_INTERVAL) || done >= total;
        if done <= last.0 && last.1.is_some() || !due {
            return;
        }
        *last = (done, Some(Instant::now()));
        self.out.send(&jsonrpc::notification(
            "notifications/progress",
            json!({
                "progressToken": token,
                "progress": done,
                "total": total,
                "message": format!("{done} of {total} files"),
            }),
        ));
    }

    fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

type InFlight = Arc<Mutex<HashMap<String, Arc<AtomicBool>>>>;

fn id_key(id: &Value) -> String {
    id.to_string()
}

fn worker(jobs: mpsc::Receiver<Job>, out: Arc<Output>, inflight: InFlight, config: Config) {
    // The warm cache lives as long as the worker: in memory only, bounded, shared by every call.
    let cache = crate::cache::Cache::new(config.cache_bytes);
    let cache = (config.cache_bytes > 0).then_some(&cache);
    for job in jobs {
        let started = Instant::now();
        let outcome = if job.cancel.load(Ordering::Relaxed) {
            Some(Outcome::Cancelled)
        } else {
            let observer = CallObserver {
                cancel: &job.cancel,
                out: &out,
                token: job.progress_token.as_ref(),
                last: Mutex::new((0, None)),
            };
            let tool = job.call.tool;
            let shape = job.shape;
            let call = job.call;
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                tools::run(call, &observer, shape, &config, cache)
            }));
            match cache {
                Some(c) => log::info!(
                    "{} finished in {:?}; cache {:?}",
                    tool.name(),
                    started.elapsed(),
                    c.stats()
                ),
                None => log::info!("{} finished in {:?}", tool.name(), started.elapsed()),
            }
            run.ok()
        };
        lock(&inflight).remove(&job.key);
        match outcome {
            Some(Outcome::Done(result)) if !job.cancel.load(Ordering::Relaxed) => {
                out.send(&jsonrpc::result(&job.id, finish(job.era, result)));
            }
            Some(_) => log::info!("request {} was cancelled; no response sent", job.key),
            None => out.send(&jsonrpc::error(
                &job.id,
                &RpcError::new(
                    jsonrpc::INTERNAL_ERROR,
                    "Internal error: the tool failed unexpectedly; see the server's stderr log",
                ),
            )),
        }
    }
}

/// The reader side: dispatches every message, hands tool calls to the worker.
struct Server {
    out: Arc<Output>,
    config: Config,
    containment: Arc<dyn Containment>,
    inflight: InFlight,
    jobs: mpsc::Sender<Job>,
    /// The legacy revision `initialize` negotiated, if any.
    legacy_version: Option<&'static str>,
}

impl Server {
    fn handle_frame(&mut self, frame: Frame) {
        match frame {
            Frame::Oversize { len } => {
                log::warn!("discarded an input line of {len} bytes");
                self.out.send(&jsonrpc::error(
                    &Value::Null,
                    &RpcError::new(
                        jsonrpc::INVALID_REQUEST,
                        format!(
                            "Invalid Request: message of {len} bytes exceeds the limit of {} bytes (GNAW_MCP_MAX_LINE_BYTES); it was discarded",
                            self.config.max_line_bytes
                        ),
                    ),
                ));
            }
            Frame::Line(line) => match jsonrpc::parse(&line) {
                Parsed::Reject { id, error } => {
                    log::debug!("rejected a message: {}", error.message);
                    self.out.send(&jsonrpc::error(&id, &error));
                }
                Parsed::Ignore(why) => log::debug!("ignored a notification: {why}"),
                Parsed::Message(Incoming::Response) => {
                    log::debug!("ignored a response: this server sends no requests")
                }
                Parsed::Message(Incoming::Notification { method, params }) => {
                    self.notification(&method, &params)
                }
                Parsed::Message(Incoming::Request { id, method, params }) => {
                    log::debug!("request {method}");
                    if let Some(reply) = self.request(&id, &method, params) {
                        self.out.send(&reply);
                    }
                }
            },
        }
    }

    fn notification(&mut self, method: &str, params: &Map<String, Value>) {
        match method {
            "notifications/cancelled" => {
                let Some(id) = params.get("requestId") else {
                    return;
                };
                let key = id_key(id);
                if let Some(flag) = lock(&self.inflight).get(&key) {
                    log::info!("cancelling request {key}");
                    flag.store(true, Ordering::Relaxed);
                }
            }
            "notifications/initialized" => log::debug!("client initialized"),
            other => log::debug!("ignored notification {other}"),
        }
    }

    /// Answer a request; `None` when the answer comes later from the worker.
    fn request(&mut self, id: &Value, method: &str, params: Map<String, Value>) -> Option<Value> {
        let era = match era_of(&params) {
            Ok(era) => era,
            // `initialize` is legacy whatever its `_meta` says.
            Err(_) if method == "initialize" => Era::Legacy,
            Err(e) => return Some(jsonrpc::error(id, &e)),
        };
        let answer = match (method, era) {
            ("initialize", _) => self.initialize(&params),
            ("ping", Era::Legacy) => Ok(json!({})),
            ("server/discover", Era::Modern) => Ok(json!({
                "supportedVersions": MODERN_VERSIONS,
                "capabilities": { "tools": {} },
                "instructions": INSTRUCTIONS,
                "ttlMs": CACHE_TTL_MS,
                "cacheScope": "public",
            })),
            ("server/discover", Era::Legacy) => Err(RpcError::invalid_params(format!(
                "server/discover needs params._meta with \"{META_VERSION}\" and \"{META_CAPABILITIES}\""
            ))),
            ("tools/list", _) => self.tools_list(era, &params),
            ("tools/call", _) => return self.tools_call(id, era, params),
            ("ping", Era::Modern) => Err(RpcError::new(
                jsonrpc::METHOD_NOT_FOUND,
                "Method not found: ping was removed in protocol version 2026-07-28",
            )),
            _ => Err(RpcError::new(
                jsonrpc::METHOD_NOT_FOUND,
                "Method not found; this server offers initialize, ping, server/discover, tools/list and tools/call",
            )),
        };
        Some(match answer {
            Ok(result) => jsonrpc::result(id, finish(era, result)),
            Err(e) => jsonrpc::error(id, &e),
        })
    }

    fn initialize(&mut self, params: &Map<String, Value>) -> Result<Value, RpcError> {
        let Some(requested) = params.get("protocolVersion").and_then(Value::as_str) else {
            return Err(RpcError::invalid_params(
                "initialize needs params.protocolVersion (a string such as \"2025-11-25\")",
            ));
        };
        let newest = LEGACY_VERSIONS[LEGACY_VERSIONS.len() - 1];
        let chosen = LEGACY_VERSIONS
            .into_iter()
            .find(|v| *v == requested)
            .unwrap_or(newest);
        log::info!("initialize: client asked for {requested:?}, using {chosen}");
        self.legacy_version = Some(chosen);
        Ok(json!({
            "protocolVersion": chosen,
            "capabilities": { "tools": {} },
            "serverInfo": server_info(),
            "instructions": INSTRUCTIONS,
        }))
    }

    fn shape(&self, era: Era) -> Shape {
        match (era, self.legacy_version) {
            (Era::Legacy, Some(v)) => Shape::for_version(v),
            _ => Shape::FULL,
        }
    }

    fn tools_list(&self, era: Era, params: &Map<String, Value>) -> Result<Value, RpcError> {
        if params.get("cursor").is_some_and(|c| !c.is_null()) {
            return Err(RpcError::invalid_params(
                "Invalid cursor: the tool list has a single page",
            ));
        }
        let mut result = json!({ "tools": tools::definitions(self.shape(era)) });
        if era == Era::Modern {
            result["ttlMs"] = json!(CACHE_TTL_MS);
            result["cacheScope"] = json!("public");
        }
        Ok(result)
    }

    fn tools_call(&mut self, id: &Value, era: Era, params: Map<String, Value>) -> Option<Value> {
        let call = match tools::prepare(&params, self.containment.as_ref()) {
            Ok(call) => call,
            Err(e) => {
                log::info!("tools/call rejected: {}", e.message);
                return Some(jsonrpc::error(id, &e));
            }
        };
        let progress_token = params
            .get("_meta")
            .and_then(|m| m.get("progressToken"))
            .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
            .cloned();
        let key = id_key(id);
        let cancel = Arc::new(AtomicBool::new(false));
        lock(&self.inflight).insert(key.clone(), Arc::clone(&cancel));
        log::info!("tools/call {} (request {key})", call.tool.name());
        let job = Job {
            id: id.clone(),
            key,
            era,
            call,
            shape: self.shape(era),
            progress_token,
            cancel,
        };
        if let Err(mpsc::SendError(job)) = self.jobs.send(job) {
            lock(&self.inflight).remove(&job.key);
            return Some(jsonrpc::error(
                id,
                &RpcError::new(
                    jsonrpc::INTERNAL_ERROR,
                    "Internal error: the worker has stopped",
                ),
            ));
        }
        None
    }
}

/// Serve MCP on `input`/`output` until end of input. Returns once the worker has stopped;
/// calls still running at end of input are cancelled.
pub fn serve(
    input: impl Read,
    output: impl Write + Send + 'static,
    config: Config,
    containment: Arc<dyn Containment>,
) -> io::Result<()> {
    let out = Arc::new(Output {
        writer: Mutex::new(Box::new(output)),
    });
    let inflight: InFlight = Arc::default();
    let (tx, rx) = mpsc::channel();
    let worker = {
        let (out, inflight) = (Arc::clone(&out), Arc::clone(&inflight));
        thread::Builder::new()
            .name("gnaw-mcp-worker".into())
            .spawn(move || worker(rx, out, inflight, config))?
    };
    let mut server = Server {
        out,
        config,
        containment,
        inflight: Arc::clone(&inflight),
        jobs: tx,
        legacy_version: None,
    };
    let mut reader = LineReader::new(BufReader::new(input), config.max_line_bytes);
    let result = loop {
        match reader.next_frame() {
            Ok(Some(frame)) => server.handle_frame(frame),
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    log::info!("end of input; stopping");
    for flag in lock(&inflight).values() {
        flag.store(true, Ordering::Relaxed);
    }
    drop(server);
    if worker.join().is_err() {
        log::error!("the worker thread panicked");
    }
    result
}
