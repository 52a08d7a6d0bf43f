//! The MCP endpoint, `/mcp`, and the protected-resource metadata: one request in, one
//! response out (or an SSE stream), in the request's era.
//!
//! Order of checks, on the request's head alone ([`admit`]): path (404), `Origin` (403), bearer
//! token (401 with `WWW-Authenticate` naming the metadata); a refusal closes the connection, its
//! body unread. Then, for a known tenant whose body has been read ([`handle`]): the HTTP method,
//! then the message; a 400 closes the connection too.
//!
//! Every string of the client's that an error or the audit line repeats (a path, a method, a
//! header's value, a tool's name) is an excerpt, escaped ([`crate::vocab::excerpt`]), and every
//! error passes the exit gate (`super::response::rpc_error`).
//!
//! - **2026-07-28** (every request without `Mcp-Session-Id` but a legacy `initialize`):
//!   stateless. Its `_meta` must name the revision and the client's capabilities (400,
//!   `-32602` or `-32022`), and the headers that revision mirrors must match the body
//!   (`MCP-Protocol-Version` the `_meta` revision, `Mcp-Method` the method, `Mcp-Name` the
//!   name or URI, decoded from `=?base64?...?=`), or 400 with `HeaderMismatch` (`-32020`). The
//!   request goes to the tenant's worker; the answer is JSON with the status the error table
//!   gives its code ([`jsonrpc::modern_status`]), or a request-scoped SSE stream (progress,
//!   then the result) when the client accepts SSE and gave a progress token. Closing the
//!   connection cancels the call.
//! - **2025-03-26 .. 2025-11-25**: `initialize` (forwarded, so the worker negotiates as on
//!   stdio) opens a session (`super::sessions`); every later request names it in
//!   `Mcp-Session-Id` (unknown, expired or another tenant's: 404) and, when it sends
//!   `MCP-Protocol-Version`, a revision of that era (400 otherwise). `notifications/cancelled`
//!   reaches the call it names; GET opens the session's SSE stream (keep-alives only: this
//!   server sends no request of its own); DELETE ends the session.

use std::io;
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::RecvTimeoutError;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use super::FrontDoor;
use super::audit::Audit;
use super::guard::{self, Caller};
use super::mirrored;
use super::request::Request;
use super::response::{Response, Sse, rpc_error, rpc_refusal};
use super::sessions::{OpenError, SESSION_META};
use super::upstream::{Admit, Event, Forwarded, Refusal, Upstream};
use crate::mcp::era::{Era, LEGACY_VERSIONS, era_of, require_modern};
use crate::mcp::jsonrpc::{self, Parsed};
use crate::vocab::{ErrorKind, excerpt};

const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";
const HEALTH_PATH: &str = "/healthz";
const METRICS_PATH: &str = "/metrics";

/// `/healthz`: no token; `ok` while the front door and its spawner answer (whether or not any
/// worker runs), else 503. It says nothing else.
fn health(door: &FrontDoor, request: &Request, audit: &mut Audit) -> Response {
    if request.method != "GET" && request.method != "HEAD" {
        audit.refuse(405, "method not allowed");
        return Response::empty(405).with("Allow", "GET, HEAD");
    }
    let (status, body) = if door.fleet.tenancy().spawner.ping() {
        (200, "ok\n")
    } else {
        (503, "unavailable\n")
    };
    audit.serve(status);
    Response {
        status,
        content_type: Some("text/plain; charset=utf-8"),
        body: body.as_bytes().to_vec(),
        ..Response::default()
    }
}

/// `/metrics`: the Prometheus text format, for the bearer token whose hash
/// `GNAW_MCP_METRICS_TOKEN_SHA256` holds, or, without one, for a loopback peer that is not a
/// trusted proxy. Anyone else gets 401 or 403 and the connection closes.
fn metrics(
    door: &FrontDoor,
    request: &Request,
    audit: &mut Audit,
    peer: std::net::IpAddr,
) -> Admitted {
    let settings = &door.settings;
    let allowed = match settings.metrics_token_sha256 {
        Some(hash) => request
            .header("authorization")
            .and_then(|v| v.split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .is_some_and(|(_, token)| {
                super::tenants::constant_time_eq(
                    &super::tenants::sha256(token.trim().as_bytes()),
                    &hash,
                )
            }),
        None => peer.is_loopback() && !settings.trusted_proxies.contains(&peer),
    };
    if !allowed {
        let (status, why) = match settings.metrics_token_sha256 {
            Some(_) => (401, "no valid metrics token"),
            None => (403, "metrics answer loopback peers only"),
        };
        let message = match settings.metrics_token_sha256 {
            Some(_) => "Unauthorized: /metrics takes the operator's metrics token \
                            (GNAW_MCP_METRICS_TOKEN_SHA256)"
                .to_string(),
            None => "Forbidden: /metrics answers loopback peers only; the operator may \
                         set GNAW_MCP_METRICS_TOKEN_SHA256 to serve it to a token"
                .to_string(),
        };
        let kind = if status == 401 {
            ErrorKind::Unauthorized
        } else {
            ErrorKind::OriginNotAllowed
        };
        return Admitted::Refused(audit.invalid(status, why, kind, message));
    }
    audit.serve(200);
    Admitted::Answer(Response {
        status: 200,
        content_type: Some("text/plain; version=0.0.4; charset=utf-8"),
        body: door.metrics.render(door).into_bytes(),
        ..Response::default()
    })
}

/// One request of a known tenant being answered: what every step of the answer needs.
struct Exchange<'a> {
    door: &'a FrontDoor,
    tenant: Arc<Upstream>,
    request: &'a Request,
    stream: &'a mut TcpStream,
    audit: &'a mut Audit,
}

/// What the head of a request decided.
pub enum Admitted {
    /// A known tenant: read the body and [`handle`] it.
    Tenant(Arc<Upstream>),
    /// A public answer (the protected-resource metadata): send it; no tenant involved.
    Answer(Response),
    /// Refused on the head: send it and close the connection, the body unread.
    Refused(Response),
}

/// Decide on a request's head: the path, the `Origin`, the bearer token. `peer` is the
/// connection's own peer (a trusted proxy's address, not its client's).
pub fn admit(
    door: &FrontDoor,
    request: &Request,
    audit: &mut Audit,
    peer: std::net::IpAddr,
) -> Admitted {
    audit.http = super::audit::rendered(&request.method);
    match request.path.as_str() {
        HEALTH_PATH => return Admitted::Answer(health(door, request, audit)),
        METRICS_PATH => return metrics(door, request, audit, peer),
        _ => {}
    }
    if request.path == METADATA_PATH || request.path == format!("{METADATA_PATH}/mcp") {
        audit.serve(200);
        let base = base_url(door, request);
        return Admitted::Answer(Response::json(
            200,
            &json!({
                "resource": format!("{base}/mcp"),
                "bearer_methods_supported": ["header"],
                "resource_name": "gnaw-mcp",
            }),
        ));
    }
    if request.path != "/mcp" {
        let message = format!(
            "Not found: {}; the MCP endpoint is /mcp",
            excerpt(&request.path)
        );
        let why = "no such path";
        return Admitted::Refused(audit.invalid(404, why, ErrorKind::NotFound, message));
    }
    if !guard::origin_allowed(request.header("origin"), &door.settings, door.loopback) {
        let message = "Forbidden: this Origin is not allowed (a browser page from another \
                       site); the operator may allow it with GNAW_MCP_ALLOWED_ORIGINS";
        let why = "origin not allowed";
        return Admitted::Refused(audit.invalid(403, why, ErrorKind::OriginNotAllowed, message));
    }
    match door.fleet.tenancy().authenticate(request) {
        Ok(tenant) => {
            audit.tenant = Some(tenant.name().to_string());
            Admitted::Tenant(tenant)
        }
        Err(caller) => {
            let (why, extra) = match caller {
                Caller::Invalid => ("token not recognised", ", error=\"invalid_token\""),
                _ => ("no bearer token", ""),
            };
            let metadata = format!("{}{METADATA_PATH}", base_url(door, request));
            let message = format!(
                "Unauthorized: {why}; send Authorization: Bearer <token> with a token from the \
                 server's operator"
            );
            let challenge = format!("Bearer resource_metadata=\"{metadata}\"{extra}");
            Admitted::Refused(
                audit
                    .invalid(401, why, ErrorKind::Unauthorized, message)
                    .with("WWW-Authenticate", challenge),
            )
        }
    }
}

/// Handle one request of a known tenant, its body read; whether the connection may serve
/// another.
pub fn handle(
    door: &FrontDoor,
    tenant: Arc<Upstream>,
    request: &Request,
    stream: &mut TcpStream,
    audit: &mut Audit,
) -> io::Result<bool> {
    let close = request.wants_close();
    let mut x = Exchange {
        door,
        tenant,
        request,
        stream,
        audit,
    };
    let response = route(&mut x)?;
    match response {
        Some(response) => {
            // A request the front door could not take as it was sent closes its connection.
            let close = close || response.status == 400;
            audit.bytes = response.send(stream, close)?;
            Ok(!close)
        }
        None => Ok(!close),
    }
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

fn route(x: &mut Exchange<'_>) -> io::Result<Option<Response>> {
    let request = x.request;
    match request.method.as_str() {
        "POST" => post(x),
        "GET" => get(x),
        "DELETE" => Ok(Some(delete(x))),
        _ => {
            let why = "method not allowed";
            let message = format!(
                "Method not allowed: {}; /mcp takes POST, and GET and DELETE with an \
                 Mcp-Session-Id",
                excerpt(&request.method)
            );
            let refusal = x
                .audit
                .invalid(405, why, ErrorKind::MethodNotAllowed, message);
            Ok(Some(refusal.with("Allow", "POST, GET, DELETE")))
        }
    }
}

fn accepts(request: &Request, kind: &str) -> bool {
    request.header("accept").is_some_and(|a| {
        a.split(',')
            .any(|p| p.split(';').next().unwrap_or_default().trim() == kind)
    })
}

fn post(x: &mut Exchange<'_>) -> io::Result<Option<Response>> {
    let request = x.request;
    let json_type = request
        .header("content-type")
        .is_some_and(|t| t.split(';').next().unwrap_or_default().trim() == "application/json");
    if !json_type {
        let message =
            "Unsupported media type: POST a JSON-RPC message as Content-Type: application/json";
        let why = "content type is not application/json";
        let refusal = x
            .audit
            .invalid(415, why, ErrorKind::UnsupportedMediaType, message);
        return Ok(Some(refusal));
    }
    let mut message: Value = match serde_json::from_slice(&request.body) {
        Ok(v) => v,
        Err(e) => {
            x.audit.refuse(400, "body is not JSON");
            return Ok(Some(rpc_error(
                400,
                &Value::Null,
                jsonrpc::PARSE_ERROR,
                format!("Parse error: the body is not JSON ({e})"),
                ErrorKind::ParseError,
            )));
        }
    };
    // The stdio server's own check of a message, before anything here reads or rewrites it:
    // the same input is refused the same way on both transports.
    let kind = match jsonrpc::check(&message) {
        Ok(kind) => kind,
        Err(Parsed::Reject { id, error }) => {
            x.audit.refuse(400, "not a valid JSON-RPC message");
            let kind = if error.code == jsonrpc::INVALID_PARAMS {
                ErrorKind::InvalidArguments
            } else {
                ErrorKind::InvalidRequest
            };
            return Ok(Some(rpc_refusal(400, &id, error, kind)));
        }
        Err(_) => {
            // A malformed notification: never answered, as on stdio.
            x.audit.refuse(202, "malformed notification ignored");
            return Ok(Some(Response::empty(202)));
        }
    };
    if kind == jsonrpc::Kind::Response {
        // This server sends no request, so there is nothing to match a response to.
        x.audit.serve(202);
        return Ok(Some(Response::empty(202)));
    }
    let Some(object) = message.as_object_mut() else {
        unreachable!("checked: an object")
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
        .unwrap_or_default()
        .to_string();
    let id = object.get("id").cloned();
    x.audit.method = Some(super::audit::rendered(&method));
    let params = match object.get("params") {
        Some(Value::Object(params)) => params.clone(),
        _ => Map::new(),
    };
    if method == "tools/call" {
        x.audit.tool = params
            .get("name")
            .and_then(Value::as_str)
            .map(super::audit::rendered);
        x.audit.repo = params
            .get("arguments")
            .and_then(|a| a.get("repo"))
            .and_then(Value::as_str)
            .map(super::audit::rendered);
    }
    // A legacy session's request names its session, and `initialize` (of an earlier revision)
    // opens one; every other request is of the 2026-07-28 revision and says so in its _meta.
    let opens_session = method == "initialize" && era_of(&params) != Ok(Era::Modern);
    if opens_session || request.header("mcp-session-id").is_some() {
        return legacy(x, message, &method, id);
    }
    // The head's revision against the body's first: a mismatch is -32020 whatever the body names.
    if let Some(refusal) = mirrored::version(request, id.as_ref().unwrap_or(&Value::Null), &params)
    {
        x.audit.refuse(400, "headers do not match the body");
        return Ok(Some(refusal));
    }
    if let Err(error) = require_modern(&params) {
        let status = jsonrpc::modern_status(&jsonrpc::error(&Value::Null, &error));
        let kind = if error.code == jsonrpc::UNSUPPORTED_PROTOCOL_VERSION {
            ErrorKind::UnsupportedProtocolVersion
        } else {
            ErrorKind::InvalidMeta
        };
        x.audit.refuse(status, "no valid 2026-07-28 _meta");
        return Ok(Some(rpc_refusal(
            status,
            id.as_ref().unwrap_or(&Value::Null),
            error,
            kind,
        )));
    }
    let Some(id) = id else {
        // Stateless notifications: a call is cancelled by closing its connection.
        x.audit.serve(202);
        return Ok(Some(Response::empty(202)));
    };
    if let Some(refusal) = mirrored::check(request, &id, &method, &params) {
        x.audit.refuse(400, "headers do not match the body");
        return Ok(Some(refusal));
    }
    forward(x, message, id, Era::Modern, |_| {})
}

fn legacy(
    x: &mut Exchange<'_>,
    mut message: Value,
    method: &str,
    id: Option<Value>,
) -> io::Result<Option<Response>> {
    let (door, tenant, request) = (x.door, Arc::clone(&x.tenant), x.request);
    let settings = &door.settings;
    if method == "initialize" {
        let Some(id) = id else {
            let message = "Invalid Request: initialize is a request and needs an id";
            let why = "initialize without an id";
            let refusal = x
                .audit
                .invalid(400, why, ErrorKind::InvalidRequest, message);
            return Ok(Some(refusal));
        };
        let client = message
            .pointer("/params/clientInfo/name")
            .and_then(Value::as_str)
            .map(|n| n.chars().take(256).collect::<String>());
        return initialize(x, message, id, client);
    }
    // Only a request naming its session comes here (the caller sends the rest to the
    // 2026-07-28 road).
    let session_id = request.header("mcp-session-id").unwrap_or_default();
    let Some(session) = door
        .sessions
        .get(session_id, tenant.key(), settings.session_idle)
    else {
        x.audit.refuse(404, "unknown session");
        return Ok(Some(unknown_session(id.as_ref())));
    };
    // The transport spec asks for a supported revision here (400 otherwise), not the session's
    // own: clients that send no header are taken as 2025-03-26, and some send that explicitly.
    // The session's negotiated revision shapes the answers either way.
    if let Some(h) = request.header("mcp-protocol-version")
        && !LEGACY_VERSIONS.contains(&h)
    {
        x.audit.refuse(400, "unsupported protocol version");
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
                tenant.cancel(&ours, "cancelled by the client");
            }
        }
        x.audit.serve(202);
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
    let result = forward(x, message, id, Era::Legacy, |ours| {
        crate::par::lock(&session.calls).insert(key.clone(), ours.to_string());
    });
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

fn initialize(
    x: &mut Exchange<'_>,
    message: Value,
    id: Value,
    client: Option<String>,
) -> io::Result<Option<Response>> {
    let (door, tenant, request) = (x.door, Arc::clone(&x.tenant), x.request);
    let upstream = &tenant;
    let admit = |u: &Upstream, start: &mut dyn FnMut(Option<u64>) -> Result<(), Refusal>| {
        door.fleet.admit(u, start)
    };
    let mut forwarded = match upstream.call(message, &admit) {
        Ok(f) => f,
        Err(refusal) => return Ok(Some(refused(refusal, &id, x.audit))),
    };
    let answer = match wait(&mut forwarded, &admit, Watch::Plain(&*x.stream))? {
        Waited::Answer(a) => a,
        other => return Ok(Some(unanswered(other, &id, x.audit))),
    };
    drop(forwarded);
    let mut answer = answer;
    answer["id"] = id.clone();
    let Some(version) = answer
        .pointer("/result/protocolVersion")
        .and_then(Value::as_str)
    else {
        x.audit.serve(200);
        return Ok(Some(Response::json(200, &answer)));
    };
    let settings = &door.settings;
    match door.sessions.open(
        tenant.key(),
        version.to_string(),
        client,
        settings.max_sessions_per_tenant,
        settings.session_idle,
    ) {
        Ok(session) => {
            x.audit.serve(200);
            if accepts(request, "application/json") || !accepts(request, "text/event-stream") {
                Ok(Some(
                    Response::json(200, &answer).with("Mcp-Session-Id", session),
                ))
            } else {
                let mut sse = Sse::start(&mut *x.stream, &[("Mcp-Session-Id", session)])?;
                sse.message(&answer)?;
                x.audit.bytes = sse.finish()?;
                Ok(None)
            }
        }
        Err(OpenError::Full { limit }) => {
            x.audit
                .refuse_at(429, "max_sessions_per_tenant", "sessions per tenant");
            Ok(Some(
                rpc_error(
                    429,
                    &id,
                    jsonrpc::BUSY,
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
            x.audit.refuse(500, "no random bytes");
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

/// Forward a request to the tenant's worker and answer it: JSON, or SSE when the client
/// accepts it and asked for progress (or accepts only SSE). A 2026-07-28 answer that is an
/// error takes the status the error table gives its code ([`jsonrpc::modern_status`]); a
/// legacy one is 200. `started` learns the front door's id of the request.
fn forward(
    x: &mut Exchange<'_>,
    message: Value,
    id: Value,
    era: Era,
    started: impl FnOnce(&str),
) -> io::Result<Option<Response>> {
    let (door, tenant, request) = (x.door, Arc::clone(&x.tenant), x.request);
    let wants_progress = message.pointer("/params/_meta/progressToken").is_some();
    let sse_ok = accepts(request, "text/event-stream");
    let use_sse = sse_ok && (wants_progress || !accepts(request, "application/json"));
    let admit = |u: &Upstream, start: &mut dyn FnMut(Option<u64>) -> Result<(), Refusal>| {
        door.fleet.admit(u, start)
    };
    let mut forwarded = match tenant.call(message, &admit) {
        Ok(f) => f,
        Err(refusal) => return Ok(Some(refused(refusal, &id, x.audit))),
    };
    started(forwarded.id());
    if !use_sse {
        return Ok(Some(
            match wait(&mut forwarded, &admit, Watch::Plain(&*x.stream))? {
                Waited::Answer(mut answer) => {
                    answer["id"] = id;
                    let status = match era {
                        Era::Modern => jsonrpc::modern_status(&answer),
                        Era::Legacy => 200,
                    };
                    x.audit.serve(status);
                    Response::json(status, &answer)
                }
                other => unanswered(other, &id, x.audit),
            },
        ));
    }
    let mut sse = Sse::start(&mut *x.stream, &[])?;
    let waited = wait(&mut forwarded, &admit, Watch::Sse(&mut sse));
    let last = match waited {
        Ok(Waited::Answer(mut answer)) => {
            answer["id"] = id;
            x.audit.serve(200);
            answer
        }
        Ok(Waited::Gone) => {
            x.audit
                .refuse(200, "client closed the connection; call cancelled");
            x.audit.bytes = sse.bytes;
            return Err(io::Error::new(
                io::ErrorKind::ConnectionAborted,
                "client gone",
            ));
        }
        Ok(other) => {
            let mut unused = Audit::new(String::new());
            let response = unanswered(other, &id, &mut unused);
            x.audit.status = 200;
            x.audit.decision = unused.decision;
            serde_json::from_slice(&response.body).unwrap_or(Value::Null)
        }
        Err(e) => {
            forwarded.cancel("the client's connection failed");
            x.audit
                .refuse(200, "client connection failed; call cancelled");
            x.audit.bytes = sse.bytes;
            return Err(e);
        }
    };
    sse.message(&last)?;
    x.audit.bytes = sse.finish()?;
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
fn wait(
    forwarded: &mut Forwarded<'_>,
    admit: &Admit<'_>,
    mut watch: Watch<'_, '_>,
) -> io::Result<Waited> {
    let mut checked = Instant::now();
    loop {
        match forwarded.events.recv_timeout(Duration::from_millis(200)) {
            Ok(Event::Answer(answer)) => return Ok(Waited::Answer(answer)),
            Ok(Event::Died) => return Ok(Waited::Died),
            Ok(Event::Cancelled) => return Ok(Waited::Cancelled),
            // Its worker ended before taking it: a new worker gets it.
            Ok(Event::Untaken) => {
                if !forwarded.resend(admit) {
                    return Ok(Waited::Died);
                }
            }
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

impl Audit {
    /// A request refused as an Invalid Request before it has an id to answer to: audited as
    /// refused with `status` for `why`, answered with that status and an error of `kind`
    /// saying `message`. (The front door's refusals; here, beside them.)
    fn invalid(
        &mut self,
        status: u16,
        why: &str,
        kind: ErrorKind,
        message: impl Into<String>,
    ) -> Response {
        self.refuse(status, why);
        rpc_error(
            status,
            &Value::Null,
            jsonrpc::INVALID_REQUEST,
            message.into(),
            kind,
        )
    }
}

fn refused(refusal: Refusal, id: &Value, audit: &mut Audit) -> Response {
    let (status, code, kind) = match refusal {
        Refusal::Busy { .. } => (429, jsonrpc::BUSY, ErrorKind::Busy),
        Refusal::Workers { .. } | Refusal::Memory { .. } => (503, jsonrpc::BUSY, ErrorKind::Busy),
        Refusal::Down(_) | Refusal::BackingOff { .. } => {
            (503, jsonrpc::INTERNAL_ERROR, ErrorKind::WorkerDown)
        }
        Refusal::RootChanged(_) => (503, jsonrpc::INTERNAL_ERROR, ErrorKind::RootChanged),
    };
    // The bound hit (a setting's key, if one), the audit's reason, the error's message, and
    // the seconds of Retry-After (if it says when to retry).
    let (bound, why, message, retry_after) = match refusal {
        Refusal::Busy { limit } => (
            Some("max_calls_per_tenant"),
            "calls per tenant",
            format!(
                "Server busy: this tenant has {limit} requests waiting or running, the most \
                 it may (GNAW_MCP_MAX_CALLS_PER_TENANT); nothing was run; retry once an \
                 earlier call has been answered"
            ),
            Some(1),
        ),
        Refusal::Down(e) => {
            log::error!("a tenant's worker could not start: {e}");
            let message =
                "Internal error: this tenant's worker could not start; see the server's log";
            (None, "worker could not start", message.into(), None)
        }
        Refusal::RootChanged(why) => {
            log::error!("a tenant's worker was not started: {why}");
            let message = "Internal error: a root of this tenant is no longer the directory the \
                           server proved at startup (it was moved, replaced or removed); nothing \
                           is served from it; ask the server's operator to restore it or restart \
                           the server";
            (None, "root changed since startup", message.into(), None)
        }
        Refusal::Workers { max } => (
            Some("max_workers"),
            "workers at their bound",
            format!(
                "Server busy: {max} workers run, the most this server runs at once \
                 (GNAW_MCP_MAX_WORKERS), and none is idle; nothing was run; retry shortly"
            ),
            Some(2),
        ),
        Refusal::Memory { budget } => (
            Some("fleet_memory"),
            "fleet memory at its bound",
            format!(
                "Server busy: the workers hold the most memory this server allows them \
                 ({} MiB, GNAW_MCP_FLEET_MEMORY), and none is idle; nothing was run; retry \
                 shortly",
                budget >> 20
            ),
            Some(2),
        ),
        Refusal::BackingOff { failures, wait } => {
            let secs = wait.as_secs_f64().ceil().max(1.0) as u64;
            let message = format!(
                "Internal error: this tenant's worker ended before answering {failures} \
                 times in a row (its roots may be gone; see the server's log); no new one \
                 is started for {secs} s; retry after that"
            );
            (None, "worker backing off", message, Some(secs))
        }
    };
    match bound {
        Some(bound) => audit.refuse_at(status, bound, why),
        None => audit.refuse(status, why),
    }
    let response = rpc_error(status, id, code, message, kind);
    match retry_after {
        Some(secs) => response.with("Retry-After", secs.to_string()),
        None => response,
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
                jsonrpc::CANCELLED,
                "Request cancelled by the client".into(),
                ErrorKind::Cancelled,
            )
        }
    }
}

fn get(x: &mut Exchange<'_>) -> io::Result<Option<Response>> {
    let (door, tenant, request) = (x.door, Arc::clone(&x.tenant), x.request);
    let Some(session_id) = request.header("mcp-session-id") else {
        let why = "GET without a session";
        let message = "Method not allowed: GET opens a session's stream and needs \
                       Mcp-Session-Id; the 2026-07-28 revision has no GET stream";
        let refusal = x
            .audit
            .invalid(405, why, ErrorKind::MethodNotAllowed, message);
        return Ok(Some(refusal.with("Allow", "POST")));
    };
    let idle = door.settings.session_idle;
    let Some(session) = door.sessions.get(session_id, tenant.key(), idle) else {
        x.audit.refuse(404, "unknown session");
        return Ok(Some(unknown_session(None)));
    };
    if !accepts(request, "text/event-stream") {
        let message = "Not acceptable: GET opens an SSE stream; send Accept: text/event-stream";
        let why = "GET without Accept: text/event-stream";
        let refusal = x.audit.invalid(406, why, ErrorKind::NotAcceptable, message);
        return Ok(Some(refusal));
    }
    if session.streaming.swap(true, Ordering::SeqCst) {
        let message = "Conflict: this session's stream is already open";
        let why = "session stream already open";
        let refusal = x.audit.invalid(409, why, ErrorKind::Conflict, message);
        return Ok(Some(refusal));
    }
    x.audit.serve(200);
    let result = (|| {
        let mut sse = Sse::start(&mut *x.stream, &[])?;
        let mut beat = Instant::now();
        loop {
            std::thread::sleep(Duration::from_millis(250));
            if session.ended.load(Ordering::SeqCst)
                || door.sessions.get(session_id, tenant.key(), idle).is_none()
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
    x.audit.bytes = result?;
    Ok(None)
}

fn delete(x: &mut Exchange<'_>) -> Response {
    let (door, tenant, request) = (x.door, Arc::clone(&x.tenant), x.request);
    let Some(session_id) = request.header("mcp-session-id") else {
        let message = "Bad Request: DELETE ends a session and needs Mcp-Session-Id";
        let why = "DELETE without a session";
        return x.audit.invalid(400, why, ErrorKind::NoSession, message);
    };
    if door.sessions.end(session_id, tenant.key()) {
        x.audit.serve(200);
        Response::empty(200)
    } else {
        x.audit.refuse(404, "unknown session");
        unknown_session(None)
    }
}
