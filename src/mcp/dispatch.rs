//! Dispatch: the server's protocol loop. Each framed line from the transport is classified
//! ([`super::jsonrpc`]) and answered here, on the reading thread, except `tools/call`, which is
//! queued for the worker thread so `ping` and `notifications/cancelled` are handled while a
//! call runs. The queue is bounded in calls and bytes; past the bound a call is refused at once
//! with an error that says to retry.
//!
//! Both protocol eras are served on the same stream, chosen per message as the 2026-07-28
//! versioning page says:
//! - a request whose `params._meta` carries `io.modelcontextprotocol/protocolVersion` is
//!   *modern*: stateless, validated on its own, answered with `resultType: "complete"`;
//! - anything else is *legacy*: `initialize` negotiates one of 2024-11-05 .. 2025-11-25 for
//!   the life of the process, and results are shaped for that revision.
//!
//! At end of input every request already received is answered, then [`serve`] returns.

use std::io::{self, BufReader, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;

use serde_json::{Map, Value, json};

use super::config::Config;
use super::containment::Containment;
use super::definition::Definition;
use super::era::{
    CACHE_TTL_MS, Era, LEGACY_VERSIONS, META_CAPABILITIES, META_VERSION, MODERN_VERSIONS, era_of,
    finish, server_info,
};
use super::framing::{Frame, LineReader};
use super::gate::Gate;
use super::jsonrpc::{self, Incoming, Parsed, RpcError};
use super::resource::CacheHint;
use super::selection::ToolSet;
use super::tool::{Outcome, Shape};
use super::tools;
use super::transport::Output;
use super::worker::{InFlight, Job, Queued, Shared, Work, id_key, worker};
use crate::par::lock;
use crate::vocab::ErrorKind;

/// The reader side: dispatches every message, hands tool calls to the worker.
struct Server {
    out: Arc<Output>,
    config: Config,
    inflight: InFlight,
    queued: Arc<Mutex<Queued>>,
    jobs: mpsc::Sender<Job>,
    /// The legacy revision `initialize` negotiated, if any.
    legacy_version: Option<&'static str>,
    /// The `clientInfo.name` `initialize` gave, if any.
    client_name: Option<String>,
    /// The legacy session of the request being answered, when gnaw-mcp --listen forwards it.
    session: Option<super::session_meta::SessionMeta>,
    /// Bytes of the line being handled.
    line_bytes: usize,
    /// What this server offers: its tools, resources, prompts and instructions.
    def: Definition,
}

impl Server {
    fn handle_frame(&mut self, frame: Frame) {
        match frame {
            Frame::Oversize { len } => {
                log::warn!("discarded an input line of {len} bytes");
                self.out.send(jsonrpc::error(
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
            Frame::Line(line) => {
                self.line_bytes = line.len();
                self.handle_message(jsonrpc::parse(&line));
            }
        }
    }

    fn handle_message(&mut self, parsed: Parsed) {
        match parsed {
            Parsed::Reject { id, error } => {
                log::debug!("rejected a message: {}", error.message);
                self.out.send(jsonrpc::error(&id, &error));
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
                if self.config.forwarded {
                    // The front door sends a request this worker never took to another one.
                    self.out.send(jsonrpc::notification(
                        super::session_meta::TAKEN,
                        json!({ "requestId": id }),
                    ));
                }
                if let Some(reply) = self.request(&id, &method, params) {
                    self.out.send(reply);
                }
            }
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
    fn request(
        &mut self,
        id: &Value,
        method: &str,
        mut params: Map<String, Value>,
    ) -> Option<Value> {
        self.session = super::session_meta::take(&mut params);
        let era = match era_of(&params) {
            Ok(era) => era,
            // `initialize` is legacy whatever its `_meta` says.
            Err(_) if method == "initialize" => Era::Legacy,
            Err(e) => return Some(jsonrpc::error(id, &e)),
        };
        let answer = match (method, era) {
            ("initialize", Era::Legacy) => self.initialize(&params),
            ("initialize", Era::Modern) => Err(RpcError::new(
                jsonrpc::METHOD_NOT_FOUND,
                "Method not found: initialize was removed in protocol version 2026-07-28; send \
                 server/discover, and name the revision in each request's _meta",
            )),
            ("ping", Era::Legacy) => Ok(json!({})),
            ("server/discover", Era::Modern) => Ok(json!({
                "supportedVersions": MODERN_VERSIONS,
                "capabilities": self.def.capabilities(),
                "instructions": self.def.instructions,
                "ttlMs": CACHE_TTL_MS,
                "cacheScope": "public",
            })),
            ("server/discover", Era::Legacy) => Err(RpcError::invalid_params(format!(
                "server/discover needs params._meta with \"{META_VERSION}\" and \"{META_CAPABILITIES}\""
            ))),
            ("tools/list", _) => self.tools_list(era, &params),
            ("tools/call", _) => return self.tools_call(id, era, params),
            ("resources/templates/list", _) if self.def.resources.is_some() => {
                self.templates_list(era, &params)
            }
            ("resources/list" | "resources/read", _) if self.def.resources.is_some() => {
                return self.resources(id, era, method, params);
            }
            ("prompts/list", _) if !self.def.prompts.is_empty() => self.prompts_list(era, &params),
            ("prompts/get", _) if !self.def.prompts.is_empty() => {
                return self.prompts_get(id, era, params);
            }
            ("completion/complete", _)
                if self.def.resources.is_some() || !self.def.prompts.is_empty() =>
            {
                return self.complete(id, era, params);
            }
            ("ping", Era::Modern) => Err(RpcError::new(
                jsonrpc::METHOD_NOT_FOUND,
                "Method not found: ping was removed in protocol version 2026-07-28",
            )),
            _ => Err(RpcError::new(
                jsonrpc::METHOD_NOT_FOUND,
                format!(
                    "Method not found; this server offers initialize, ping, server/discover, {}",
                    self.def.methods().join(", ")
                ),
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
        self.client_name = params
            .get("clientInfo")
            .and_then(|c| c.get("name"))
            .and_then(Value::as_str)
            .map(|n| n.chars().take(256).collect());
        Ok(json!({
            "protocolVersion": chosen,
            "capabilities": self.def.capabilities(),
            "serverInfo": server_info(),
            "instructions": self.def.instructions,
        }))
    }

    fn shape(&self, era: Era) -> Shape {
        let (version, client) = match &self.session {
            Some(s) => (s.version, s.client.as_deref()),
            // A tenant's worker serves many sessions: a request the front door forwarded says
            // its own; the process's last `initialize` is never another session's.
            None if self.config.forwarded => (None, None),
            None => (self.legacy_version, self.client_name.as_deref()),
        };
        let revision = match (era, version) {
            (Era::Legacy, Some(v)) => Shape::for_version(v),
            _ => Shape::FULL,
        };
        // A modern request names its client in its own _meta; a legacy one at initialize.
        let client = match era {
            Era::Legacy => client,
            Era::Modern => None,
        };
        revision.for_client(client, self.config.structured)
    }

    fn tools_list(&self, era: Era, params: &Map<String, Value>) -> Result<Value, RpcError> {
        if params.get("cursor").is_some_and(|c| !c.is_null()) {
            return Err(RpcError::invalid_params(
                "Invalid cursor: the tool list has a single page",
            ));
        }
        let mut result = json!({ "tools": tools::definitions(self.shape(era), &self.def.tools) });
        if era == Era::Modern {
            result["ttlMs"] = json!(CACHE_TTL_MS);
            result["cacheScope"] = json!("public");
        }
        Ok(result)
    }

    fn tools_call(&mut self, id: &Value, era: Era, params: Map<String, Value>) -> Option<Value> {
        let tool = match params.get("name") {
            Some(Value::String(name)) => match self.def.tool(name) {
                Some(tool) => tool,
                None => {
                    let error = match (self.def.off)(name) {
                        Some(message) => RpcError::invalid_params(message.clone()).with_data(
                            json!({ "kind": ErrorKind::ToolDisabled, "message": message }),
                        ),
                        None => {
                            RpcError::invalid_params(tools::unknown_tool_message(&self.def.tools))
                        }
                    };
                    return Some(jsonrpc::error(id, &error));
                }
            },
            _ => {
                return Some(jsonrpc::error(
                    id,
                    &RpcError::invalid_params("\"name\" must be a tool name string"),
                ));
            }
        };
        let args = match params.get("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(args)) => args.clone(),
            Some(_) => {
                return Some(jsonrpc::error(
                    id,
                    &super::tool::bad_argument("\"arguments\" must be an object".into()),
                ));
            }
        };
        let max_chars = args.get("max_chars").and_then(Value::as_u64);
        let work: Work = Box::new(move |ctx| tool.call(&args, ctx));
        self.enqueue(id, era, tool.name().to_string(), params, max_chars, work)
    }

    /// `resources/list` and `resources/read`, on the worker.
    fn resources(
        &mut self,
        id: &Value,
        era: Era,
        method: &str,
        params: Map<String, Value>,
    ) -> Option<Value> {
        let resources = Arc::clone(self.def.resources.as_ref()?);
        let hint = resources.hint();
        let modern = era == Era::Modern;
        let work: Work = if method == "resources/list" {
            if let Some(e) = single_page(&params) {
                return Some(jsonrpc::error(id, &e));
            }
            Box::new(move |ctx| match resources.list(ctx) {
                Ok(listed) => {
                    let mut result = json!({ "resources": listed });
                    if modern {
                        hint.apply(&mut result);
                    }
                    Outcome::Done(result)
                }
                Err(e) => Outcome::Rejected(e),
            })
        } else {
            let Some(uri) = params
                .get("uri")
                .and_then(Value::as_str)
                .map(str::to_string)
            else {
                return Some(jsonrpc::error(
                    id,
                    &RpcError::invalid_params("resources/read needs params.uri, a string"),
                ));
            };
            Box::new(move |ctx| match resources.read(&uri, ctx) {
                Outcome::Done(mut result) => {
                    if modern {
                        hint.apply(&mut result);
                    }
                    Outcome::Done(result)
                }
                other => other,
            })
        };
        self.enqueue(id, era, method.to_string(), params, None, work)
    }

    fn templates_list(&self, era: Era, params: &Map<String, Value>) -> Result<Value, RpcError> {
        if let Some(e) = single_page(params) {
            return Err(e);
        }
        let resources = self.def.resources.as_ref().ok_or_else(|| {
            RpcError::new(jsonrpc::METHOD_NOT_FOUND, "Method not found: no resources")
        })?;
        let mut result = json!({ "resourceTemplates": resources.templates() });
        if era == Era::Modern {
            resources.templates_hint().apply(&mut result);
        }
        Ok(result)
    }

    fn prompts_list(&self, era: Era, params: &Map<String, Value>) -> Result<Value, RpcError> {
        if let Some(e) = single_page(params) {
            return Err(e);
        }
        let prompts: Vec<Value> = self
            .def
            .prompts
            .iter()
            .map(|p| super::prompt::definition(*p))
            .collect();
        let mut result = json!({ "prompts": prompts });
        if era == Era::Modern {
            // Fixed for the life of the process, the same for every caller.
            CacheHint {
                ttl_ms: CACHE_TTL_MS,
                public: true,
            }
            .apply(&mut result);
        }
        Ok(result)
    }

    /// `prompts/get`, on the worker.
    fn prompts_get(&mut self, id: &Value, era: Era, params: Map<String, Value>) -> Option<Value> {
        let name = params
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let Some(prompt) = self.def.prompt(name) else {
            let names: Vec<&str> = self.def.prompts.iter().map(|p| p.name()).collect();
            return Some(jsonrpc::error(
                id,
                &RpcError::invalid_params(format!(
                    "Unknown prompt; this server has the prompts {}",
                    names.join(", ")
                )),
            ));
        };
        let args = match super::prompt::arguments(prompt, &params) {
            Ok(args) => args,
            Err(e) => return Some(jsonrpc::error(id, &e)),
        };
        let work: Work = Box::new(move |ctx| prompt.get(&args, ctx));
        self.enqueue(id, era, format!("prompts/get {name}"), params, None, work)
    }

    /// `completion/complete`, on the worker (a path's completion reads the index).
    fn complete(&mut self, id: &Value, era: Era, params: Map<String, Value>) -> Option<Value> {
        let request = match Completing::read(&params) {
            Ok(r) => r,
            Err(e) => return Some(jsonrpc::error(id, &e)),
        };
        let work: Work = match request.reference {
            Reference::Prompt(name) => {
                let Some(prompt) = self.def.prompt(&name) else {
                    return Some(jsonrpc::error(
                        id,
                        &RpcError::invalid_params("completion/complete: no prompt has that name"),
                    ));
                };
                Box::new(move |ctx| {
                    let done =
                        prompt.complete(&request.argument, &request.value, &request.context, ctx);
                    done.map_or_else(Outcome::Rejected, |c| Outcome::Done(c.to_json()))
                })
            }
            Reference::Resource(uri) => {
                let Some(resources) = self.def.resources.clone() else {
                    return Some(jsonrpc::error(
                        id,
                        &RpcError::invalid_params(
                            "completion/complete: this server has no resources",
                        ),
                    ));
                };
                Box::new(move |ctx| {
                    let done = resources.complete(
                        &uri,
                        &request.argument,
                        &request.value,
                        &request.context,
                        ctx,
                    );
                    done.map_or_else(Outcome::Rejected, |c| Outcome::Done(c.to_json()))
                })
            }
        };
        self.enqueue(id, era, "completion/complete".into(), params, None, work)
    }

    /// Queue `work` for the worker, or refuse it at once when the queue is full.
    fn enqueue(
        &mut self,
        id: &Value,
        era: Era,
        name: String,
        params: Map<String, Value>,
        max_chars: Option<u64>,
        work: Work,
    ) -> Option<Value> {
        let bytes = self.line_bytes;
        {
            let mut q = lock(&self.queued);
            if q.calls >= self.config.max_queued_calls
                || q.bytes + bytes > self.config.max_queued_bytes
            {
                log::warn!(
                    "{name} refused: {} calls ({} bytes) are already waiting",
                    q.calls,
                    q.bytes
                );
                let message = format!(
                    "Server busy: {} calls ({} bytes of requests) are already waiting, the most \
                     this server queues (GNAW_MCP_MAX_QUEUED_CALLS={}, \
                     GNAW_MCP_MAX_QUEUED_BYTES={}); nothing was run; retry once an earlier call \
                     has been answered",
                    q.calls, q.bytes, self.config.max_queued_calls, self.config.max_queued_bytes
                );
                return Some(jsonrpc::error(
                    id,
                    &RpcError::new(jsonrpc::BUSY, message.clone()).with_data(
                        json!({ "kind": ErrorKind::Busy, "message": message, "retry": true }),
                    ),
                ));
            }
            q.calls += 1;
            q.bytes += bytes;
        }
        let progress_token = params
            .get("_meta")
            .and_then(|m| m.get("progressToken"))
            .filter(|t| t.is_string() || t.is_i64() || t.is_u64())
            .cloned();
        let key = id_key(id);
        let cancel = Arc::new(AtomicBool::new(false));
        lock(&self.inflight).insert(key.clone(), Arc::clone(&cancel));
        log::info!("{name} (request {key})");
        let job = Job {
            id: id.clone(),
            key,
            era,
            name,
            work,
            params,
            max_chars,
            bytes,
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

/// A list's refusal of a `cursor`: every list here has a single page.
fn single_page(params: &Map<String, Value>) -> Option<RpcError> {
    params
        .get("cursor")
        .is_some_and(|c| !c.is_null())
        .then(|| RpcError::invalid_params("Invalid cursor: this list has a single page"))
}

/// What a `completion/complete` names.
enum Reference {
    Prompt(String),
    Resource(String),
}

/// A `completion/complete` request, read.
struct Completing {
    reference: Reference,
    argument: String,
    value: String,
    /// The other arguments already chosen (`context.arguments`).
    context: Map<String, Value>,
}

impl Completing {
    fn read(params: &Map<String, Value>) -> Result<Completing, RpcError> {
        let bad = |what: &str| RpcError::invalid_params(format!("completion/complete: {what}"));
        let reference = params
            .get("ref")
            .ok_or_else(|| bad("params.ref is required"))?;
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
        let reference = match reference.get("type").and_then(Value::as_str) {
            Some("ref/prompt") => Reference::Prompt(
                text(reference, "name").ok_or_else(|| bad("ref.name must be a string"))?,
            ),
            Some("ref/resource") => Reference::Resource(
                text(reference, "uri").ok_or_else(|| bad("ref.uri must be a string"))?,
            ),
            _ => return Err(bad("ref.type must be \"ref/prompt\" or \"ref/resource\"")),
        };
        let argument = params
            .get("argument")
            .ok_or_else(|| bad("params.argument is required"))?;
        let name = text(argument, "name").ok_or_else(|| bad("argument.name must be a string"))?;
        let value =
            text(argument, "value").ok_or_else(|| bad("argument.value must be a string"))?;
        let context = params
            .get("context")
            .and_then(|c| c.get("arguments"))
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        Ok(Completing {
            reference,
            argument: name,
            value,
            context,
        })
    }
}

/// Serve MCP on `input`/`output`, offering the tools of `offered`, until end of input. Every
/// request received before the end is answered (a call the client cancelled gets no answer),
/// then the worker stops and this returns.
pub fn serve(
    input: impl Read,
    output: impl Write + Send + 'static,
    config: Config,
    containment: Arc<dyn Containment>,
    offered: ToolSet,
) -> io::Result<()> {
    let def = Definition::gnaw(offered, containment.as_ref());
    serve_definition(input, output, config, containment, def)
}

/// Serve the server `def` on `input`/`output` until end of input, as [`serve`] does: the same
/// protocol, bounds and exit gate for any definition.
pub fn serve_definition(
    input: impl Read,
    output: impl Write + Send + 'static,
    config: Config,
    containment: Arc<dyn Containment>,
    def: Definition,
) -> io::Result<()> {
    let gate = Gate::new(config.default_max_chars.min(config.max_output_bytes));
    let out = Arc::new(Output::new(output, gate));
    let inflight: InFlight = Arc::default();
    let queued: Arc<Mutex<Queued>> = Arc::default();
    let (tx, rx) = mpsc::channel();
    let worker = {
        let shared = Shared {
            out: Arc::clone(&out),
            inflight: Arc::clone(&inflight),
            queued: Arc::clone(&queued),
            containment,
            config,
        };
        thread::Builder::new()
            .name("gnaw-mcp-worker".into())
            // The stack the pipeline's own workers get (see `par`): a call runs on this thread
            // when it uses one worker.
            .stack_size(crate::limits::THREAD_STACK_BYTES)
            .spawn(move || worker(rx, shared))?
    };
    let mut server = Server {
        out,
        config,
        inflight,
        queued,
        jobs: tx,
        legacy_version: None,
        client_name: None,
        session: None,
        line_bytes: 0,
        def,
    };
    let mut reader = LineReader::new(BufReader::new(input), config.max_line_bytes);
    let result = loop {
        match reader.next_frame() {
            Ok(Some(frame)) => server.handle_frame(frame),
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        }
    };
    log::info!("end of input; answering what was received, then stopping");
    drop(server);
    if worker.join().is_err() {
        log::error!("the worker thread panicked");
    }
    result
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // fixtures are made with std::fs
mod tests {
    use super::*;
    use crate::mcp::containment::RootContainment;
    use gnaw_sandbox::Root;
    use std::collections::HashMap;

    /// stdout for the server under test.
    #[derive(Clone, Default)]
    struct Sink(Arc<Mutex<Vec<u8>>>);

    impl Write for Sink {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            lock(&self.0).extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Serve `lines` (then end of input) under `containment`: every message written.
    fn serve_on(lines: &[Value], config: Config, containment: Arc<dyn Containment>) -> Vec<Value> {
        let input: Vec<u8> = lines
            .iter()
            .flat_map(|l| format!("{l}\n").into_bytes())
            .collect();
        let sink = Sink::default();
        serve(
            &input[..],
            sink.clone(),
            config,
            containment,
            ToolSet::default(),
        )
        .unwrap();
        let out = String::from_utf8(lock(&sink.0).clone()).unwrap();
        out.lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect()
    }

    /// Serve `lines` (then end of input) on a root holding `repo/a.rs`; the answers by id.
    fn serve_lines(lines: &[Value], config: Config) -> HashMap<String, Value> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("repo")).unwrap();
        std::fs::write(dir.path().join("repo/a.rs"), "fn a() {}\n").unwrap();
        let root = Root::new(dir.path(), false).unwrap();
        serve_on(lines, config, Arc::new(RootContainment(root)))
            .into_iter()
            .filter(|m| m.get("id").is_some())
            .map(|m| (m["id"].to_string(), m))
            .collect()
    }

    fn call(id: u64, args: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "estimate", "arguments": args}})
    }

    #[test]
    fn every_request_before_end_of_input_is_answered() {
        let answers = serve_lines(
            &[
                json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"protocolVersion": "2025-11-25", "capabilities": {}}}),
                call(2, json!({"repo": "repo"})),
                call(3, json!({"repo": "../.."})),
                json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}),
            ],
            Config::default(),
        );
        assert_eq!(answers.len(), 4, "{answers:?}");
        assert!(answers["2"]["result"]["structuredContent"]["tokens"].as_u64() > Some(0));
        assert_eq!(answers["3"]["error"]["data"]["kind"], "OutsideRoot");
        assert_eq!(answers["4"]["result"], json!({}));
    }

    #[test]
    fn a_full_queue_refuses_at_once_and_says_to_retry() {
        for config in [
            Config {
                max_queued_calls: 0,
                ..Config::default()
            },
            Config {
                max_queued_bytes: 10,
                ..Config::default()
            },
        ] {
            let answers = serve_lines(&[call(1, json!({"repo": "repo"}))], config);
            let err = &answers["1"]["error"];
            assert_eq!(err["code"], jsonrpc::BUSY, "{err}");
            assert_eq!(err["data"]["kind"], "Busy");
            assert_eq!(err["data"]["retry"], true);
            assert!(err["message"].as_str().unwrap().contains("retry"));
        }
    }

    #[test]
    fn a_tenants_worker_never_answers_in_the_last_initialize_s_revision() {
        let lines = [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"protocolVersion": "2024-11-05", "capabilities": {}}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
        ];
        let titled = |config: Config| {
            let answers = serve_lines(&lines, config);
            answers["2"]["result"]["tools"][0].get("title").is_some()
        };
        // A stdio server's one client: its initialize sets the revision (no titles in 2024-11-05).
        assert!(!titled(Config::default()));
        // A worker behind the front door: a request without its session's meta is not shaped by
        // another session's initialize.
        assert!(titled(Config {
            forwarded: true,
            ..Config::default()
        }));
    }

    #[test]
    fn unknown_tools_and_arguments_are_named() {
        let answers = serve_lines(
            &[
                json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "nope", "arguments": {}}}),
                call(2, json!({"repo": "repo", "verbose": true})),
                call(3, json!({"repo": "repo", "budget": "big"})),
                call(4, json!({})),
            ],
            Config::default(),
        );
        let message = |id: &str| {
            answers[id]["error"]["message"]
                .as_str()
                .unwrap()
                .to_string()
        };
        assert!(
            message("1").contains("extract, estimate"),
            "{}",
            message("1")
        );
        let m = message("2");
        assert!(
            m.contains("\"verbose\"") && m.contains("takes budget, ") && m.contains(" repo"),
            "{m}"
        );
        let m = message("3");
        assert!(
            m.contains("\"budget\"") && m.contains("non-negative integer"),
            "{m}"
        );
        for id in ["2", "3"] {
            assert_eq!(answers[id]["error"]["data"]["kind"], "InvalidArguments");
        }
        // No repo with one root: the root.
        assert!(
            answers["4"]["result"]["structuredContent"]["files"].as_u64() == Some(1),
            "{}",
            answers["4"]
        );
    }

    /// Serve `lines` on two roots, `one` (holding a.rs) and `two`; the answers by id.
    fn serve_two_roots(lines: &[Value]) -> HashMap<String, Value> {
        let dir = tempfile::tempdir().unwrap();
        for name in ["one", "two"] {
            std::fs::create_dir_all(dir.path().join(name)).unwrap();
        }
        std::fs::write(dir.path().join("one/a.rs"), "fn a() {}\n").unwrap();
        let roots =
            gnaw_sandbox::Roots::new(&[dir.path().join("one"), dir.path().join("two")], false)
                .unwrap();
        serve_on(lines, Config::default(), Arc::new(roots))
            .into_iter()
            .map(|m| (m["id"].to_string(), m))
            .collect()
    }

    #[test]
    fn repo_is_required_with_several_roots_and_the_error_lists_them() {
        let answers = serve_two_roots(&[
            call(1, json!({})),
            call(2, json!({"repo": null})),
            call(3, json!({"repo": "one"})),
        ]);
        for id in ["1", "2"] {
            let err = &answers[id]["error"];
            assert_eq!(err["code"], -32602, "{err}");
            assert_eq!(err["data"]["kind"], "InvalidArguments");
            let m = err["message"].as_str().unwrap();
            assert!(
                m.contains("\"repo\" is required") && m.contains("\"one\", \"two\""),
                "{m}"
            );
        }
        assert_eq!(answers["3"]["result"]["structuredContent"]["files"], 1);
    }
}
