//! The conformance suite's fixture server: a test-only server definition over gnaw-mcp's own
//! protocol layer ([`gnaw::mcp::serve_definition`]: the same dispatcher, queue, worker, eras and
//! exit gate the shipped server runs; over HTTP, the same front door and spawner), declaring the
//! tools, resources and prompts the official suite (`@modelcontextprotocol/conformance`) calls by
//! fixed names (`test_simple_text`, `test://static-text`, `test_prompt_with_arguments`, the
//! SEP-2322 `test_input_required_result_*` tools, ...), each answering as the suite's scenario
//! describes. It is an example, built by `cargo test` and never shipped;
//! `scripts/conformance.sh` runs the suite against it beside the shipped server.
//!
//! `cargo run --example conformance_fixture` serves stdio; `-- --listen ADDR` serves HTTP on a
//! loopback address (no token: `--unauthenticated-loopback`), with this same binary as the
//! tenant's worker (the spawner re-executes it with the roots' descriptors: stdio mode). In stdio
//! mode it starts up and confines itself as gnaw-mcp does ([`gnaw::mcp::stdio::serve_with`]:
//! `GNAW_MCP_ROOT`, default the working directory), though it reads no file.
//!
//! `requestState` (SEP-2322) is integrity-protected: the state's text, then an HMAC-SHA-256 of
//! it under a key drawn from the OS when the process starts, hex; a state whose tag does not
//! match is refused with `-32602`. HMAC (RFC 2104) is written out below over the `sha2` crate
//! the server already uses: ten lines, not worth a dependency for a test fixture.

use std::process::ExitCode;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use gnaw::mcp::Operator;
use gnaw::mcp::definition::Definition;
use gnaw::mcp::jsonrpc::{self, RpcError};
use gnaw::mcp::prompt::{Argument, Prompt, messages};
use gnaw::mcp::resource::{CacheHint, Completion, Resources, refused};
use gnaw::mcp::tool::{About, Declared, Outcome, Tool, ToolContext};
use gnaw::vocab::ErrorKind;
use gnaw_sandbox::spawner::ROOT_FDS_FLAG;
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";

/// A 1x1 red PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV file of no samples.
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

// ------------------------------------------------------------------ requestState

/// The key the states are signed with, drawn once.
fn key() -> &'static [u8; 32] {
    static KEY: OnceLock<[u8; 32]> = OnceLock::new();
    KEY.get_or_init(|| {
        let mut k = [0u8; 32];
        getrandom::fill(&mut k).expect("the OS random source");
        k
    })
}

/// HMAC-SHA-256 of `data` under [`key`] (RFC 2104).
fn hmac(data: &[u8]) -> [u8; 32] {
    let mut block = [0u8; 64];
    block[..32].copy_from_slice(key());
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let inner = Sha256::new()
        .chain_update(pad(0x36))
        .chain_update(data)
        .finalize();
    Sha256::new()
        .chain_update(pad(0x5c))
        .chain_update(inner)
        .finalize()
        .into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `state` signed: `STATE.TAG`.
fn sign(state: &str) -> String {
    format!("{state}.{}", hex(&hmac(state.as_bytes())))
}

/// The state of a signed `requestState`, or the refusal of a tampered or malformed one.
fn verify(signed: &Value) -> Result<String, RpcError> {
    let tampered = || RpcError::invalid_params("Invalid requestState: its integrity check failed");
    let signed = signed.as_str().ok_or_else(tampered)?;
    let (state, tag) = signed.rsplit_once('.').ok_or_else(tampered)?;
    // Compared in full whatever differs (no early exit on the first byte).
    let want = hex(&hmac(state.as_bytes()));
    let same = want.len() == tag.len()
        && want
            .bytes()
            .zip(tag.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    if same {
        Ok(state.to_string())
    } else {
        Err(tampered())
    }
}

// ------------------------------------------------------------------ input requests

fn elicit(message: &str, field: &str, kind: &str) -> Value {
    json!({
        "method": "elicitation/create",
        "params": {
            "message": message,
            "requestedSchema": {
                "type": "object",
                "properties": { field: { "type": kind } },
                "required": [field],
            },
        },
    })
}

fn sample(text: &str, max_tokens: u64) -> Value {
    json!({
        "method": "sampling/createMessage",
        "params": {
            "messages": [{ "role": "user", "content": { "type": "text", "text": text } }],
            "maxTokens": max_tokens,
        },
    })
}

fn list_roots() -> Value {
    json!({ "method": "roots/list", "params": {} })
}

/// An `InputRequiredResult`, with a signed `requestState` when `state` is given.
fn input_required(requests: Value, state: Option<&str>) -> Outcome {
    let mut result = json!({ "resultType": "input_required", "inputRequests": requests });
    if let Some(state) = state {
        result["requestState"] = json!(sign(state));
    }
    Outcome::Done(result)
}

/// The responses the client sent for the keys `keys`, when it answered all of them, each with
/// an object (a result of the method asked); otherwise the request asks again.
fn responses<'a>(ctx: &'a ToolContext<'_>, keys: &[&str]) -> Option<&'a Map<String, Value>> {
    let given = ctx.params.get("inputResponses")?.as_object()?;
    keys.iter()
        .all(|k| given.get(*k).is_some_and(Value::is_object))
        .then_some(given)
}

/// The verified state of a retried request (`None` on a first round).
fn state(ctx: &ToolContext<'_>) -> Result<Option<String>, Outcome> {
    match ctx.params.get("requestState") {
        None | Some(Value::Null) => Ok(None),
        Some(signed) => verify(signed).map(Some).map_err(Outcome::Rejected),
    }
}

/// The client's declared capabilities.
fn capabilities<'a>(ctx: &'a ToolContext<'_>) -> Option<&'a Map<String, Value>> {
    ctx.params.get("_meta")?.get(META_CAPABILITIES)?.as_object()
}

fn text(t: impl Into<String>) -> Outcome {
    Outcome::Done(json!({ "content": [{ "type": "text", "text": t.into() }] }))
}

// ------------------------------------------------------------------ tools

/// A tool of no arguments.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

type Run = fn(&ToolContext<'_>) -> Outcome;

/// A fixture tool: its name and what it does.
macro_rules! tools {
    ($($name:ident: $run:expr),+ $(,)?) => {
        /// Every fixture tool, in `tools/list` order.
        static TOOLS: &[&dyn Tool] = &[$(&Declared::<NoArgs> {
            about: About {
                name: stringify!($name),
                title: stringify!($name),
                description: concat!("Conformance fixture tool ", stringify!($name), "."),
                summary: "a conformance fixture",
            },
            output: None,
            run: |_, _, ctx| Ok(($run as Run)(ctx)),
        }),+];
    };
}

tools! {
    test_simple_text: |_| text("This is a simple text response for testing."),
    test_image_content: |_| Outcome::Done(json!({
        "content": [{ "type": "image", "data": PNG, "mimeType": "image/png" }]
    })),
    test_audio_content: |_| Outcome::Done(json!({
        "content": [{ "type": "audio", "data": WAV, "mimeType": "audio/wav" }]
    })),
    test_embedded_resource: |_| Outcome::Done(json!({
        "content": [{ "type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain",
            "text": "This is an embedded resource content.",
        }}]
    })),
    test_multiple_content_types: |_| Outcome::Done(json!({
        "content": [
            { "type": "text", "text": "Multiple content types test:" },
            { "type": "image", "data": PNG, "mimeType": "image/png" },
            { "type": "resource", "resource": {
                "uri": "test://mixed-content-resource", "mimeType": "application/json",
                "text": "{\"test\":\"data\",\"value\":123}",
            }},
        ]
    })),
    test_error_handling: |_| Outcome::Done(json!({
        "isError": true,
        "content": [{ "type": "text", "text": "This tool intentionally returns an error for testing" }],
    })),
    test_tool_with_progress: |ctx| {
        let token = ctx.params.get("_meta").and_then(|m| m.get("progressToken")).cloned();
        for (i, progress) in [0, 50, 100].into_iter().enumerate() {
            if i > 0 {
                std::thread::sleep(Duration::from_millis(50));
            }
            if let Some(token) = &token {
                (ctx.notify)("notifications/progress", json!({
                    "progressToken": token, "progress": progress, "total": 100,
                }));
            }
        }
        text("Progress tool completed")
    },
    test_tool_with_logging: |ctx| log_three(ctx),
    test_logging_tool: |ctx| log_three(ctx),
    test_missing_capability: |ctx| {
        if capabilities(ctx).is_some_and(|c| c.contains_key("sampling")) {
            return text("The client declared sampling.");
        }
        Outcome::Rejected(RpcError::new(
            jsonrpc::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "Missing required client capability: this tool needs sampling",
        ).with_data(json!({ "requiredCapabilities": { "sampling": {} } })))
    },
    test_streaming_elicitation: |ctx| match responses(ctx, &["user_name"]) {
        Some(_) => text("Thanks."),
        None => input_required(json!({ "user_name": elicit("What is your name?", "name", "string") }), None),
    },
    test_input_required_result_elicitation: |ctx| match responses(ctx, &["user_name"]) {
        Some(r) => {
            let name = r["user_name"]["content"]["name"].as_str().unwrap_or("there");
            text(format!("Hello, {name}!"))
        }
        None => input_required(json!({ "user_name": elicit("What is your name?", "name", "string") }), None),
    },
    test_input_required_result_sampling: |ctx| match responses(ctx, &["capital_question"]) {
        Some(r) => {
            let said = r["capital_question"]["content"]["text"].as_str().unwrap_or_default();
            text(format!("The model said: {said}"))
        }
        None => input_required(json!({ "capital_question": sample("What is the capital of France?", 100) }), None),
    },
    test_input_required_result_list_roots: |ctx| match responses(ctx, &["client_roots"]) {
        Some(r) => {
            let uris: Vec<&str> = r["client_roots"]["roots"].as_array().into_iter().flatten()
                .filter_map(|root| root["uri"].as_str()).collect();
            text(format!("The client's roots: {}", uris.join(", ")))
        }
        None => input_required(json!({ "client_roots": list_roots() }), None),
    },
    test_input_required_result_request_state: |ctx| {
        let state = match state(ctx) { Ok(s) => s, Err(e) => return e };
        match (responses(ctx, &["confirm"]), state) {
            (Some(_), Some(s)) if s == "confirm" => text("state-ok: the requestState came back intact"),
            _ => input_required(json!({ "confirm": elicit("Please confirm", "ok", "boolean") }), Some("confirm")),
        }
    },
    test_input_required_result_multiple_inputs: |ctx| {
        let state = match state(ctx) { Ok(s) => s, Err(e) => return e };
        let keys = ["user_name", "greeting", "client_roots"];
        match (responses(ctx, &keys), state) {
            (Some(_), Some(s)) if s == "multiple" => text("All three inputs received."),
            _ => input_required(json!({
                "user_name": elicit("What is your name?", "name", "string"),
                "greeting": sample("Generate a greeting", 50),
                "client_roots": list_roots(),
            }), Some("multiple")),
        }
    },
    test_input_required_result_multi_round: |ctx| {
        let state = match state(ctx) { Ok(s) => s, Err(e) => return e };
        match state.as_deref() {
            Some("round-2") if responses(ctx, &["step2"]).is_some() => text("Both steps done."),
            Some("round-1") | Some("round-2") if responses(ctx, &["step1"]).is_some() => input_required(
                json!({ "step2": elicit("Step 2: What is your favorite color?", "color", "string") }),
                Some("round-2"),
            ),
            _ => input_required(
                json!({ "step1": elicit("Step 1: What is your name?", "name", "string") }),
                Some("round-1"),
            ),
        }
    },
    test_input_required_result_tampered_state: |ctx| {
        let state = match state(ctx) { Ok(s) => s, Err(e) => return e };
        match (responses(ctx, &["confirm"]), state) {
            (Some(_), Some(_)) => text("The requestState was intact."),
            _ => input_required(json!({ "confirm": elicit("Please confirm", "ok", "boolean") }), Some("tamper-check")),
        }
    },
    test_input_required_result_capabilities: |ctx| {
        if responses(ctx, &["question"]).is_some() || responses(ctx, &["user_name"]).is_some() {
            return text("Thanks.");
        }
        let caps = capabilities(ctx);
        let mut requests = Map::new();
        if caps.is_some_and(|c| c.contains_key("elicitation")) {
            requests.insert("user_name".into(), elicit("What is your name?", "name", "string"));
        }
        if caps.is_some_and(|c| c.contains_key("sampling")) {
            requests.insert("question".into(), sample("Say hello", 50));
        }
        if requests.is_empty() {
            return text("The client declared neither elicitation nor sampling.");
        }
        input_required(Value::Object(requests), None)
    },
}

/// Three log messages, 50 ms apart, each only when the request asked for logs (2026-07-28:
/// `_meta`'s log level; earlier revisions send none, as nothing here sets a level).
fn log_three(ctx: &ToolContext<'_>) -> Outcome {
    let level = ctx
        .params
        .get("_meta")
        .and_then(|m| m.get(META_LOG_LEVEL))
        .is_some();
    for (i, said) in [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]
    .into_iter()
    .enumerate()
    {
        if i > 0 {
            std::thread::sleep(Duration::from_millis(50));
        }
        if level {
            (ctx.notify)(
                "notifications/message",
                json!({ "level": "info", "data": said }),
            );
        }
    }
    text("Logging tool completed")
}

// ------------------------------------------------------------------ resources

struct FixtureResources;

const TEMPLATE: &str = "test://template/{id}/data";

impl Resources for FixtureResources {
    fn list(&self, _: &ToolContext<'_>) -> Result<Vec<Value>, RpcError> {
        Ok(vec![
            json!({ "uri": "test://static-text", "name": "static-text", "description": "A static text resource", "mimeType": "text/plain" }),
            json!({ "uri": "test://static-binary", "name": "static-binary", "description": "A static binary resource", "mimeType": "image/png" }),
            json!({ "uri": "test://watched-resource", "name": "watched-resource", "description": "A resource to subscribe to", "mimeType": "text/plain" }),
        ])
    }

    fn templates(&self) -> Vec<Value> {
        vec![
            json!({ "uriTemplate": TEMPLATE, "name": "template", "description": "A resource template", "mimeType": "application/json" }),
        ]
    }

    fn read(&self, uri: &str, _: &ToolContext<'_>) -> Outcome {
        let contents = match uri {
            "test://static-text" => {
                json!({ "uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource." })
            }
            "test://static-binary" => json!({ "uri": uri, "mimeType": "image/png", "blob": PNG }),
            "test://watched-resource" => {
                json!({ "uri": uri, "mimeType": "text/plain", "text": "Watched." })
            }
            _ => match uri
                .strip_prefix("test://template/")
                .and_then(|r| r.strip_suffix("/data"))
            {
                Some(id) if !id.is_empty() && !id.contains('/') => json!({
                    "uri": uri, "mimeType": "application/json",
                    "text": json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") }).to_string(),
                }),
                _ => {
                    return Outcome::Rejected(refused(
                        uri,
                        ErrorKind::NotFound,
                        "no such resource",
                    ));
                }
            },
        };
        Outcome::Done(json!({ "contents": [contents] }))
    }

    fn complete(
        &self,
        template: &str,
        argument: &str,
        typed: &str,
        _: &Map<String, Value>,
        _: &ToolContext<'_>,
    ) -> Result<Completion, RpcError> {
        Ok(match (template, argument) {
            (TEMPLATE, "id") => Completion::filtered(["123", "456", "789"], typed),
            _ => Completion::default(),
        })
    }

    fn hint(&self) -> CacheHint {
        CacheHint {
            ttl_ms: 60_000,
            public: true,
        }
    }

    fn templates_hint(&self) -> CacheHint {
        CacheHint {
            ttl_ms: 3_600_000,
            public: true,
        }
    }
}

// ------------------------------------------------------------------ prompts

/// A fixture prompt: its name, arguments, and messages for the arguments given.
struct FixturePrompt {
    name: &'static str,
    arguments: &'static [Argument],
    get: fn(&Map<String, Value>, &ToolContext<'_>) -> Outcome,
}

impl Prompt for FixturePrompt {
    fn name(&self) -> &'static str {
        self.name
    }
    fn title(&self) -> &'static str {
        self.name
    }
    fn description(&self) -> &'static str {
        "Conformance fixture prompt."
    }
    fn arguments(&self) -> &'static [Argument] {
        self.arguments
    }
    fn get(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome {
        (self.get)(args, ctx)
    }
    fn complete(
        &self,
        argument: &str,
        typed: &str,
        _: &Map<String, Value>,
        _: &ToolContext<'_>,
    ) -> Result<Completion, RpcError> {
        Ok(match argument {
            "arg1" | "arg2" => {
                Completion::filtered(["paris", "park", "party", "test", "testing"], typed)
            }
            _ => Completion::default(),
        })
    }
}

fn one_text(t: String) -> Outcome {
    Outcome::Done(messages("fixture", &[t]))
}

static PROMPTS: [FixturePrompt; 5] = [
    FixturePrompt {
        name: "test_simple_prompt",
        arguments: &[],
        get: |_, _| one_text("This is a simple prompt for testing.".into()),
    },
    FixturePrompt {
        name: "test_prompt_with_arguments",
        arguments: &[
            Argument {
                name: "arg1",
                description: "First test argument",
                required: true,
            },
            Argument {
                name: "arg2",
                description: "Second test argument",
                required: true,
            },
        ],
        get: |args, _| {
            let a = |k: &str| {
                args.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            one_text(format!(
                "Prompt with arguments: arg1='{}', arg2='{}'",
                a("arg1"),
                a("arg2")
            ))
        },
    },
    FixturePrompt {
        name: "test_prompt_with_embedded_resource",
        arguments: &[Argument {
            name: "resourceUri",
            description: "URI of the resource to embed",
            required: true,
        }],
        get: |args, _| {
            let uri = args
                .get("resourceUri")
                .and_then(Value::as_str)
                .unwrap_or_default();
            Outcome::Done(json!({ "messages": [
                { "role": "user", "content": { "type": "resource", "resource": {
                    "uri": uri, "mimeType": "text/plain", "text": "Embedded resource content for testing.",
                }}},
                { "role": "user", "content": { "type": "text", "text": "Please process the embedded resource above." } },
            ]}))
        },
    },
    FixturePrompt {
        name: "test_prompt_with_image",
        arguments: &[],
        get: |_, _| {
            Outcome::Done(json!({ "messages": [
                { "role": "user", "content": { "type": "image", "data": PNG, "mimeType": "image/png" } },
                { "role": "user", "content": { "type": "text", "text": "Please analyze the image above." } },
            ]}))
        },
    },
    FixturePrompt {
        name: "test_input_required_result_prompt",
        arguments: &[],
        get: |_, ctx| match responses(ctx, &["user_context"]) {
            Some(r) => {
                let context = r["user_context"]["content"]["context"]
                    .as_str()
                    .unwrap_or("none");
                one_text(format!("A prompt in the context {context:?}."))
            }
            None => input_required(
                json!({
                    "user_context": elicit("What context should the prompt use?", "context", "string"),
                }),
                None,
            ),
        },
    },
];

// ------------------------------------------------------------------ the server

fn definition() -> Definition {
    Definition {
        name: "gnaw-conformance-fixture",
        tools: TOOLS.to_vec(),
        off: Box::new(|_| None),
        resources: Some(Arc::new(FixtureResources)),
        prompts: PROMPTS.iter().map(|p| p as &dyn Prompt).collect(),
        instructions: "The conformance suite's fixture server, on gnaw-mcp's protocol layer."
            .into(),
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("conformance_fixture: {message}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let operator = match Operator::from_process(None) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, listen] = args.as_slice()
        && flag == "--listen"
    {
        let launch = gnaw::mcp::http::launch::Launch {
            listen: listen.clone(),
            unauthenticated_loopback: true,
            allow_non_loopback: false,
            operator,
        };
        return match gnaw::mcp::http::launch::run(launch) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(e),
        };
    }
    // A tenant's worker, started by the spawner: the roots' descriptors it was handed.
    let root_fds: Vec<i32> = match args.as_slice() {
        [] => Vec::new(),
        [fds] if fds.starts_with(ROOT_FDS_FLAG) => {
            let list = fds[ROOT_FDS_FLAG.len()..].trim_start_matches('=');
            match list.split(',').map(str::parse).collect() {
                Ok(fds) => fds,
                Err(_) => return fail(format!("{ROOT_FDS_FLAG}: not a list of descriptors")),
            }
        }
        _ => return fail("usage: conformance_fixture [--listen ADDR]"),
    };
    let roots = match gnaw::mcp::stdio::roots(&operator, false, &root_fds) {
        Ok(r) => r,
        Err(e) => return fail(e),
    };
    // Drawn before confinement.
    key();
    let forwarded = !root_fds.is_empty();
    match gnaw::mcp::stdio::serve_with(operator, roots, false, forwarded, |_, _| definition()) {
        Ok(_) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}
