//! The MCP endpoint, `/mcp`, and the protected-resource metadata: one request in, one
//! response out (or an SSE stream), in the request's era.
//!
//! Order of checks: path, `Origin` (403), bearer token (401 with `WWW-Authenticate` naming the
//! metadata), HTTP method, then the message.
//!
//! - **2026-07-28** (a request whose `params._meta` names the revision): stateless. The
//!   headers that revision mirrors must match the body (`MCP-Protocol-Version` the `_meta`
//!   revision, `Mcp-Method` the method, `Mcp-Name` a `tools/call`'s tool), or 400 with a
//!   `HeaderMismatch` error. The request goes to the tenant's worker; the answer is JSON, or a
//!   request-scoped SSE stream (progress, then the result) when the client accepts SSE and gave
//!   a progress token. Closing the connection cancels the call.
//! - **2025-03-26 .. 2025-11-25**: `initialize` (forwarded, so the worker negotiates as on
//!   stdio) opens a session ([`super::sessions`]); every later request names it in
//!   `Mcp-Session-Id` (unknown, expired or another tenant's: 404) and, when it sends
//!   `MCP-Protocol-Version`, a revision of that era (400 otherwise). `notifications/cancelled`
//!   reaches the call it names; GET opens the session's SSE stream (keep-alives only: this
//!   server sends no request of its own); DELETE ends the session.

use std::io;
use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::FrontDoor;
use super::audit::Audit;
use super::guard::{self, Caller};
use super::request::Request;
use super::response::{Response, Sse};
use super::sessions::{OpenError, SESSION_META};
use super::upstream::{Event, Forwarded, Refusal};
use crate::mcp::era::{LEGACY_VERSIONS, META_VERSION};
use crate::mcp::jsonrpc::{self, RpcError};
use crate::vocab::ErrorKind;

/// JSON-RPC code of a header that does not match the body.
pub const HEADER_MISMATCH: i64 = -32001;
/// JSON-RPC code of a request the client cancelled.
pub const CANCELLED: i64 = -32800;

const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// Handle one request; whether the connection may serve another.
pub fn handle(
    door: &FrontDoor,
    request: &Request,
    stream: &mut TcpStream,
    audit: &mut Audit,
) -> io::Result<bool> {
    audit.http = request.method.clone();
    let close = request.wants_close();
    let response = route(door, request, stream, audit)?;
    match response {
        Some(response) => {
            audit.bytes = response.send(stream, close)?;
            Ok(!close)
        }
        None => Ok(!close),
    }
}

/// An error response: `status` with a JSON-RPC error body.
fn rpc_error(status: u16, id: &Value, code: i64, message: String, kind: ErrorKind) -> Response {
    let error =
        RpcError::new(code, message.clone()).with_data(json!({ "kind": kind, "message": message }));
    Response::json(status, &jsonrpc::error(id, &error))
}

/// The URL clients reach the server by: `GNAW_MCP_PUBLIC_URL`, else the request's `Host`
/// when it is a plain host name or address with a port (anything else, which would reach a
/// quoted header value, is replaced by `localhost`).
fn base_url(door: &FrontDoor, request: &Request) -> String {
    match &door.settings.public_url {
        Some(url) => url.clone(),
        None => {
            let host = request.header("host").map(str::trim).filter(|h| {
                !h.is_empty()
                    && h.len() <= 255
                    && h.bytes()
                        .all(|b| b.is_ascii_alphanumeric() || b"-.:[]".contains(&b))
            });
            format!("http://{}", host.unwrap_or("localhost"))
        }
    }
}

fn route(
    door: &FrontDoor,
    request: &Request,
    stream: &mut TcpStream,
    audit: &mut Audit,
) -> io::Result<Option<Response>> {
    if request.path == METADATA_PATH || request.path == format!("{METADATA_PATH}/mcp") {
        audit.serve(200);
        let base = base_url(door, request);
        return Ok(Some(Response::json(
            200,
            &json!({
                "resource": format!("{base}/mcp"),
                "bearer_methods_supported": ["header"],
                "resource_name": "gnaw-mcp",
            }),
        )));
    }
    if request.path != "/mcp" {
        audit.refuse(404, "no such path");
        return Ok(Some(rpc_error(
            404,
            &Value::Null,
            jsonrpc::INVALID_REQUEST,
            format!("Not found: {:?}; the MCP endpoint is /mcp", request.path),
            ErrorKind::NotFound,
        )));
    }
    if !guard::origin_allowed(request.header("origin"), &door.settings, door.loopback) {
        audit.refuse(403, "origin not allowed");
        return Ok(Some(rpc_error(
            403,
            &Value::Null,
            jsonrpc::INVALID_REQUEST,
            "Forbidden: this Origin is not allowed (a browser page from another site); the \
             operator may allow it with GNAW_MCP_ALLOWED_ORIGINS"
                .into(),
            ErrorKind::OriginNotAllowed,
        )));
    }
    let tenant = match guard::authenticate(request, door.tenants.as_ref()) {
        Caller::Tenant(i) => i,
        caller => {
            let (why, extra) = match caller {
                Caller::Invalid => ("token not recognised", ", error=\"invalid_token\""),
                _ => ("no bearer token", ""),
            };
            audit.refuse(401, why);
            let metadata = format!("{}{METADATA_PATH}", base_url(door, request));
            return Ok(Some(
                rpc_error(
                    401,
                    &Value::Null,
                    jsonrpc::INVALID_REQUEST,
                    format!(
                        "Unauthorized: {why}; send Authorization: Bearer <token> with a token \
                         from the server's operator"
                    ),
                    ErrorKind::Unauthorized,
                )
                .with(
                    "WWW-Authenticate",
                    format!("Bearer resource_metadata=\"{metadata}\"{extra}"),
                ),
            ));
        }
    };
    audit.tenant = Some(door.upstreams[tenant].name().to_string());
    match request.method.as_str() {
        "POST" => post(door, tenant, request, stream, audit),
        "GET" => get(door, tenant, request, stream, audit),
        "DELETE" => Ok(Some(delete(door, tenant, request, audit))),
        _ => {
            audit.refuse(405, "method not allowed");
            Ok(Some(
                rpc_error(
                    405,
                    &Value::Null,
                    jsonrpc::INVALID_REQUEST,
                    format!(
                        "Method not allowed: {}; /mcp takes POST, and GET and DELETE with an \
                         Mcp-Session-Id",
                        request.method
                    ),
                    ErrorKind::MethodNotAllowed,
                )
                .with("Allow", "POST, GET, DELETE"),
            ))
        }
    }
}

fn accepts(request: &Request, kind: &str) -> bool {
    request.header("accept").is_some_and(|a| {
        a.split(',')
            .any(|p| p.split(';').next().unwrap_or_default().trim() == kind)
    })
}

fn post(
    door: &FrontDoor,
    tenant: usize,
    request: &Request,
    stream: &mut TcpStream,
    audit: &mut Audit,
) -> io::Result<Option<Response>> {
    let json_type = request
        .header("content-type")
        .is_some_and(|t| t.split(';').next().unwrap_or_default().trim() == "application/json");
    if !json_type {
        audit.refuse(415, "content type is not application/json");
        return Ok(Some(rpc_error(
            415,
            &Value::Null,
            jsonrpc::INVALID_REQUEST,
            "Unsupported media type: POST a JSON-RPC message as Content-Type: application/json"
                .into(),
            ErrorKind::UnsupportedMediaType,
        )));
    }
    let mut message: Value = match serde_json::from_slice(&request.body) {
        Ok(v) => v,
        Err(e) => {
            audit.refuse(400, "body is not JSON");
            return Ok(Some(rpc_error(
                400,
                &Value::Null,
                jsonrpc::PARSE_ERROR,
                format!("Parse error: the body is not JSON ({e})"),
                ErrorKind::ParseError,
            )));
        }
    };
    let Some(object) = message.as_object_mut() else {
        audit.refuse(400, "not one JSON-RPC object");
        return Ok(Some(rpc_error(
            400,
            &Value::Null,
            jsonrpc::INVALID_REQUEST,
            "Invalid Request: POST one JSON-RPC message (an object); batches are not served".into(),
            ErrorKind::InvalidRequest,
        )));
    };
    // Only the front door may say which session a request belongs to.
    if let Some(Value::Object(params)) = object.get_mut("params")
        && let Some(Value::Object(meta)) = params.get_mut("_meta")
    {
        meta.remove(SESSION_META);
    }
    let method = object
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_string);
    let id = object.get("id").cloned();
    audit.method = method.clone();
    let Some(method) = method else {
        // A response: this server sends no request, so there is nothing to match it to.
        audit.serve(202);
        return Ok(Some(Response::empty(202)));
    };
    if method == "tools/call" {
        audit.tool = object
            .get("params")
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .map(|n| n.chars().take(64).collect());
        audit.repo = object
            .get("params")
            .and_then(|p| p.get("arguments"))
            .and_then(|a| a.get("repo"))
            .and_then(Value::as_str)
            .map(super::audit::rendered_repo);
    }
    let modern_version = object
        .get("params")
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get(META_VERSION))
        .cloned();
    match modern_version {
        Some(version) if method != "initialize" => {
            if let Some(refusal) = mirrored_headers(request, &message, &method, &version) {
                audit.refuse(400, "headers do not match the body");
                return Ok(Some(refusal));
            }
            let Some(id) = id else {
                // Stateless notifications: a call is cancelled by closing its connection.
                audit.serve(202);
                return Ok(Some(Response::empty(202)));
            };
            forward(
                door,
                tenant,
                request,
                stream,
                audit,
                message,
                id,
                Vec::new(),
            )
        }
        _ => legacy(door, tenant, request, stream, audit, message, &method, id),
    }
}

/// The 2026-07-28 mirrored headers, checked against the body; a refusal when one is missing or
/// differs.
fn mirrored_headers(
    request: &Request,
    message: &Value,
    method: &str,
    version: &Value,
) -> Option<Response> {
    let id = message.get("id").cloned().unwrap_or(Value::Null);
    let mismatch = |what: String| {
        Some(rpc_error(
            400,
            &id,
            HEADER_MISMATCH,
            format!("Header mismatch: {what}"),
            ErrorKind::HeaderMismatch,
        ))
    };
    let version = version.as_str().unwrap_or_default();
    match request.header("mcp-protocol-version") {
        Some(h) if h == version => {}
        Some(h) => {
            return mismatch(format!(
                "MCP-Protocol-Version is {h:?} but the body's _meta says {version:?}"
            ));
        }
        None => {
            return mismatch(format!(
                "MCP-Protocol-Version is missing; send {version:?}, as the body's _meta says"
            ));
        }
    }
    match request.header("mcp-method") {
        Some(h) if h == method => {}
        Some(h) => {
            return mismatch(format!(
                "Mcp-Method is {h:?} but the body's method is {method:?}"
            ));
        }
        None => return mismatch(format!("Mcp-Method is missing; send {method:?}")),
    }
    if let Some(name) = message.pointer("/params/name").and_then(Value::as_str) {
        match request.header("mcp-name") {
            Some(h) if h == name => {}
            Some(h) => {
                return mismatch(format!("Mcp-Name is {h:?} but the body's name is {name:?}"));
            }
            None => return mismatch(format!("Mcp-Name is missing; send {name:?}")),
        }
    }
    None
}

#[allow(clippy::too_many_arguments)]
fn legacy(
    door: &FrontDoor,
    tenant: usize,
    request: &Request,
    stream: &mut TcpStream,
    audit: &mut Audit,
    mut message: Value,
    method: &str,
    id: Option<Value>,
) -> io::Result<Option<Response>> {
    let settings = &door.settings;
    if method == "initialize" {
        let Some(id) = id else {
            audit.refuse(400, "initialize without an id");
            return Ok(Some(rpc_error(
                400,
                &Value::Null,
                jsonrpc::INVALID_REQUEST,
                "Invalid Request: initialize is a request and needs an id".into(),
                ErrorKind::InvalidRequest,
            )));
        };
        let client = message
            .pointer("/params/clientInfo/name")
            .and_then(Value::as_str)
            .map(|n| n.chars().take(256).collect::<String>());
        return initialize(door, tenant, request, stream, audit, message, id, client);
    }
    let Some(session_id) = request.header("mcp-session-id") else {
        audit.refuse(400, "no session");
        return Ok(Some(rpc_error(
            400,
            id.as_ref().unwrap_or(&Value::Null),
            jsonrpc::INVALID_REQUEST,
            "Bad Request: no Mcp-Session-Id; send initialize first, or name the 2026-07-28 \
             revision in params._meta"
                .into(),
            ErrorKind::NoSession,
        )));
    };
    let Some(session) = door.sessions.get(session_id, tenant, settings.session_idle) else {
        audit.refuse(404, "unknown session");
        return Ok(Some(unknown_session(id.as_ref())));
    };
    // The transport spec asks for a supported revision here (400 otherwise), not the session's
    // own: clients that send no header are taken as 2025-03-26, and some send that explicitly.
    // The session's negotiated revision shapes the answers either way.
    if let Some(h) = request.header("mcp-protocol-version")
        && !LEGACY_VERSIONS.contains(&h)
    {
        audit.refuse(400, "unsupported protocol version");
        return Ok(Some(rpc_error(
            400,
            id.as_ref().unwrap_or(&Value::Null),
            jsonrpc::INVALID_REQUEST,
            format!(
                "Bad Request: Unsupported protocol version: MCP-Protocol-Version is {h:?}; this \
                 session negotiated {:?}, and the server speaks {}",
                session.version,
                LEGACY_VERSIONS.join(", ")
            ),
            ErrorKind::UnsupportedProtocolVersion,
        )));
    }
    let Some(id) = id else {
        if method == "notifications/cancelled"
            && let Some(target) = message.pointer("/params/requestId")
        {
            let key = target.to_string();
            if let Some(ours) = crate::par::lock(&session.calls).get(&key).cloned() {
                door.upstreams[tenant].cancel(&ours, "cancelled by the client");
            }
        }
        audit.serve(202);
        return Ok(Some(Response::empty(202)));
    };
    if let Some(params) = message.as_object_mut().and_then(|m| {
        m.entry("params")
            .or_insert_with(|| Value::Object(Map::new()))
            .as_object_mut()
    }) {
        let meta = params
            .entry("_meta")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(meta) = meta.as_object_mut() {
            meta.insert(
                SESSION_META.into(),
                json!({ "protocolVersion": session.version, "clientName": session.client }),
            );
        }
    }
    let key = id.to_string();
    let result = forward_in(
        door,
        tenant,
        request,
        stream,
        audit,
        message,
        id,
        Vec::new(),
        |ours| {
            crate::par::lock(&session.calls).insert(key.clone(), ours.to_string());
        },
    );
    crate::par::lock(&session.calls).remove(&key);
    result
}

fn unknown_session(id: Option<&Value>) -> Response {
    rpc_error(
        404,
        id.unwrap_or(&Value::Null),
        jsonrpc::INVALID_REQUEST,
        "Session not found: it ended, expired, or was never opened with this token; send \
         initialize again"
            .into(),
        ErrorKind::UnknownSession,
    )
}

#[allow(clippy::too_many_arguments)]
fn initialize(
    door: &FrontDoor,
    tenant: usize,
    request: &Request,
    stream: &mut TcpStream,
    audit: &mut Audit,
    message: Value,
    id: Value,
    client: Option<String>,
) -> io::Result<Option<Response>> {
    let upstream = &door.upstreams[tenant];
    let forwarded = match upstream.call(message) {
        Ok(f) => f,
        Err(refusal) => return Ok(Some(refused(refusal, &id, audit))),
    };
    let answer = match wait(&forwarded, Watch::Plain(stream))? {
        Waited::Answer(a) => a,
        other => return Ok(Some(unanswered(other, &id, audit))),
    };
    drop(forwarded);
    let mut answer = answer;
    answer["id"] = id.clone();
    let Some(version) = answer
        .pointer("/result/protocolVersion")
        .and_then(Value::as_str)
    else {
        audit.serve(200);
        return Ok(Some(Response::json(200, &answer)));
    };
    let settings = &door.settings;
    match door.sessions.open(
        tenant,
        version.to_string(),
        client,
        settings.max_sessions_per_tenant,
        settings.session_idle,
    ) {
        Ok(session) => {
            audit.serve(200);
            if accepts(request, "application/json") || !accepts(request, "text/event-stream") {
                Ok(Some(
                    Response::json(200, &answer).with("Mcp-Session-Id", session),
                ))
            } else {
                let mut sse = Sse::start(stream, &[("Mcp-Session-Id", session)])?;
                sse.message(&answer)?;
                audit.bytes = sse.finish()?;
                Ok(None)
            }
        }
        Err(OpenError::Full { limit }) => {
            audit.refuse(429, "sessions per tenant");
            Ok(Some(
                rpc_error(
                    429,
                    &id,
                    jsonrpc::SERVER_BUSY,
                    format!(
                        "Too many sessions: this tenant has {limit} open, the most it may \
                         (GNAW_MCP_MAX_SESSIONS_PER_TENANT); end one with DELETE, or wait for \
                         one to expire"
                    ),
                    ErrorKind::Busy,
                )
                .with("Retry-After", "5"),
            ))
        }
        Err(OpenError::Random(e)) => {
            audit.refuse(500, "no random bytes");
            Ok(Some(rpc_error(
                500,
                &id,
                jsonrpc::INTERNAL_ERROR,
                format!("Internal error: {e}"),
                ErrorKind::Internal,
            )))
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn forward(
    door: &FrontDoor,
    tenant: usize,
    request: &Request,
    stream: &mut TcpStream,
    audit: &mut Audit,
    message: Value,
    id: Value,
    headers: Vec<(&'static str, String)>,
) -> io::Result<Option<Response>> {
    forward_in(
        door,
        tenant,
        request,
        stream,
        audit,
        message,
        id,
        headers,
        |_| {},
    )
}

/// Forward a request to the tenant's worker and answer it: JSON, or SSE when the client
/// accepts it and asked for progress (or accepts only SSE). `started` learns the front door's
/// id of the request.
#[allow(clippy::too_many_arguments)]
fn forward_in(
    door: &FrontDoor,
    tenant: usize,
    request: &Request,
    stream: &mut TcpStream,
    audit: &mut Audit,
    message: Value,
    id: Value,
    headers: Vec<(&'static str, String)>,
    started: impl FnOnce(&str),
) -> io::Result<Option<Response>> {
    let wants_progress = message.pointer("/params/_meta/progressToken").is_some();
    let sse_ok = accepts(request, "text/event-stream");
    let use_sse = sse_ok && (wants_progress || !accepts(request, "application/json"));
    let forwarded = match door.upstreams[tenant].call(message) {
        Ok(f) => f,
        Err(refusal) => return Ok(Some(refused(refusal, &id, audit))),
    };
    started(forwarded.id());
    if !use_sse {
        return Ok(Some(match wait(&forwarded, Watch::Plain(stream))? {
            Waited::Answer(mut answer) => {
                answer["id"] = id;
                audit.serve(200);
                Response::json(200, &answer)
            }
            other => unanswered(other, &id, audit),
        }));
    }
    let mut sse = Sse::start(stream, &headers)?;
    let waited = wait(&forwarded, Watch::Sse(&mut sse));
    let last = match waited {
        Ok(Waited::Answer(mut answer)) => {
            answer["id"] = id;
            audit.serve(200);
            answer
        }
        Ok(Waited::Gone) => {
            audit.refuse(200, "client closed the connection; call cancelled");
            audit.bytes = sse.bytes;
            return Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "client gone",
            ));
        }
        Ok(other) => {
            let mut unused = Audit::new(String::new());
            let response = unanswered(other, &id, &mut unused);
            audit.status = 200;
            audit.decision = unused.decision;
            serde_json::from_slice(&response.body).unwrap_or(Value::Null)
        }
        Err(e) => {
            forwarded.cancel("the client's connection failed");
            audit.refuse(200, "client connection failed; call cancelled");
            audit.bytes = sse.bytes;
            return Err(e);
        }
    };
    sse.message(&last)?;
    audit.bytes = sse.finish()?;
    Ok(None)
}

/// What [`wait`] watches: the plain connection, or the SSE stream it sends progress on.
enum Watch<'a, 'b> {
    Plain(&'a TcpStream),
    Sse(&'a mut Sse<'b>),
}

enum Waited {
    Answer(Value),
    Died,
    Cancelled,
    Gone,
}

/// Wait for the answer, sending progress to `sse` when streaming; cancel the call when the
/// client goes away.
fn wait(forwarded: &Forwarded<'_>, mut watch: Watch<'_, '_>) -> io::Result<Waited> {
    let mut checked = Instant::now();
    loop {
        match forwarded.events.recv_timeout(Duration::from_millis(200)) {
            Ok(Event::Answer(answer)) => return Ok(Waited::Answer(answer)),
            Ok(Event::Died) => return Ok(Waited::Died),
            Ok(Event::Progress(note)) => {
                if let Watch::Sse(sse) = &mut watch
                    && sse.message(&note).is_err()
                {
                    forwarded.cancel("the client closed the connection");
                    return Ok(Waited::Gone);
                }
            }
            Err(RecvTimeoutError::Disconnected) => return Ok(Waited::Cancelled),
            Err(RecvTimeoutError::Timeout) => {}
        }
        if checked.elapsed() >= Duration::from_millis(200) {
            checked = Instant::now();
            let stream = match &watch {
                Watch::Plain(stream) => stream,
                Watch::Sse(sse) => sse.stream(),
            };
            if client_gone(stream) {
                forwarded.cancel("the client closed the connection");
                return Ok(Waited::Gone);
            }
        }
    }
}

/// Whether the client closed its end (a read would return end of file).
pub fn client_gone(stream: &TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return true;
    }
    let mut byte = [0u8; 1];
    let gone = match stream.peek(&mut byte) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() != io::ErrorKind::WouldBlock && e.kind() != io::ErrorKind::Interrupted,
    };
    let _ = stream.set_nonblocking(false);
    gone
}

fn refused(refusal: Refusal, id: &Value, audit: &mut Audit) -> Response {
    match refusal {
        Refusal::Busy { limit } => {
            audit.refuse(429, "calls per tenant");
            rpc_error(
                429,
                id,
                jsonrpc::SERVER_BUSY,
                format!(
                    "Server busy: this tenant has {limit} requests waiting or running, the most \
                     it may (GNAW_MCP_MAX_CALLS_PER_TENANT); nothing was run; retry once an \
                     earlier call has been answered"
                ),
                ErrorKind::Busy,
            )
            .with("Retry-After", "1")
        }
        Refusal::Down(e) => {
            audit.refuse(503, "worker could not start");
            log::error!("a tenant's worker could not start: {e}");
            rpc_error(
                503,
                id,
                jsonrpc::INTERNAL_ERROR,
                "Internal error: this tenant's worker could not start; see the server's log".into(),
                ErrorKind::WorkerDown,
            )
        }
        Refusal::RootChanged(why) => {
            audit.refuse(503, "root changed since startup");
            log::error!("a tenant's worker was not started: {why}");
            rpc_error(
                503,
                id,
                jsonrpc::INTERNAL_ERROR,
                "Internal error: a root of this tenant is no longer the directory the server \
                 proved at startup (it was moved, replaced or removed); nothing is served from \
                 it; ask the server's operator to restore it or restart the server"
                    .into(),
                ErrorKind::RootChanged,
            )
        }
        Refusal::BackingOff { failures, wait } => {
            audit.refuse(503, "worker backing off");
            let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
            rpc_error(
                503,
                id,
                jsonrpc::INTERNAL_ERROR,
                format!(
                    "Internal error: this tenant's worker ended before answering {failures} \
                     times in a row (its roots may be gone; see the server's log); no new one \
                     is started for {secs} s; retry after that"
                ),
                ErrorKind::WorkerDown,
            )
            .with("Retry-After", secs.to_string())
        }
    }
}

fn unanswered(waited: Waited, id: &Value, audit: &mut Audit) -> Response {
    match waited {
        Waited::Answer(answer) => Response::json(200, &answer),
        Waited::Died => {
            audit.refuse(200, "worker died during the call");
            rpc_error(
                200,
                id,
                jsonrpc::INTERNAL_ERROR,
                "Internal error: this tenant's worker stopped while serving the request; it is \
                 restarted on the next request; retry"
                    .into(),
                ErrorKind::WorkerDied,
            )
        }
        Waited::Cancelled | Waited::Gone => {
            audit.refuse(
                200,
                if matches!(waited, Waited::Gone) {
                    "client closed the connection; call cancelled"
                } else {
                    "cancelled by the client"
                },
            );
            rpc_error(
                200,
                id,
                CANCELLED,
                "Request cancelled by the client".into(),
                ErrorKind::Cancelled,
            )
        }
    }
}

fn get(
    door: &FrontDoor,
    tenant: usize,
    request: &Request,
    stream: &mut TcpStream,
    audit: &mut Audit,
) -> io::Result<Option<Response>> {
    let Some(session_id) = request.header("mcp-session-id") else {
        audit.refuse(405, "GET without a session");
        return Ok(Some(
            rpc_error(
                405,
                &Value::Null,
                jsonrpc::INVALID_REQUEST,
                "Method not allowed: GET opens a session's stream and needs Mcp-Session-Id; \
                 the 2026-07-28 revision has no GET stream"
                    .into(),
                ErrorKind::MethodNotAllowed,
            )
            .with("Allow", "POST"),
        ));
    };
    let idle = door.settings.session_idle;
    let Some(session) = door.sessions.get(session_id, tenant, idle) else {
        audit.refuse(404, "unknown session");
        return Ok(Some(unknown_session(None)));
    };
    if !accepts(request, "text/event-stream") {
        audit.refuse(406, "GET without Accept: text/event-stream");
        return Ok(Some(rpc_error(
            406,
            &Value::Null,
            jsonrpc::INVALID_REQUEST,
            "Not acceptable: GET opens an SSE stream; send Accept: text/event-stream".into(),
            ErrorKind::NotAcceptable,
        )));
    }
    if session.streaming.swap(true, Ordering::SeqCst) {
        audit.refuse(409, "session stream already open");
        return Ok(Some(rpc_error(
            409,
            &Value::Null,
            jsonrpc::INVALID_REQUEST,
            "Conflict: this session's stream is already open".into(),
            ErrorKind::Conflict,
        )));
    }
    audit.serve(200);
    let result = (|| {
        let mut sse = Sse::start(stream, &[])?;
        let mut beat = Instant::now();
        loop {
            std::thread::sleep(Duration::from_millis(250));
            if session.ended.load(Ordering::SeqCst)
                || door.sessions.get(session_id, tenant, idle).is_none()
            {
                return sse.finish();
            }
            if client_gone(sse.stream()) {
                return Ok(sse.bytes);
            }
            if beat.elapsed() >= Duration::from_secs(15) {
                beat = Instant::now();
                sse.comment("keep-alive")?;
            }
        }
    })();
    session.streaming.store(false, Ordering::SeqCst);
    audit.bytes = result?;
    Ok(None)
}

fn delete(door: &FrontDoor, tenant: usize, request: &Request, audit: &mut Audit) -> Response {
    let Some(session_id) = request.header("mcp-session-id") else {
        audit.refuse(400, "DELETE without a session");
        return rpc_error(
            400,
            &Value::Null,
            jsonrpc::INVALID_REQUEST,
            "Bad Request: DELETE ends a session and needs Mcp-Session-Id".into(),
            ErrorKind::NoSession,
        );
    };
    if door.sessions.end(session_id, tenant) {
        audit.serve(200);
        Response::empty(200)
    } else {
        audit.refuse(404, "unknown session");
        unknown_session(None)
    }
}
