//! The 2026-07-28 revision's mirrored headers: what a stateless request's head repeats of its
//! body (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` in plain or `=?base64?...?=` form),
//! checked against the body before the request goes on. A proxy or a load balancer routes by the
//! head, so a head that says one thing while the body does another is refused (400,
//! `HeaderMismatch`, `-32020`), naming the header; what the refusal says of a value is an
//! excerpt.

use serde_json::{Map, Value};

use super::request::Request;
use super::response::{Response, rpc_error};
use crate::mcp::era::META_VERSION;
use crate::mcp::jsonrpc;
use crate::vocab::{ErrorKind, excerpt};

/// The 2026-07-28 mirrored headers, checked against the body: `MCP-Protocol-Version`
/// against `_meta`'s revision, `Mcp-Method` against the method, `Mcp-Name` (plain, or in its
/// `=?base64?...?=` form, decoded first) against the name or URI of `tools/call`,
/// `prompts/get` and `resources/read`; a refusal (400, `HeaderMismatch`) when one is missing,
/// malformed or differs. What the refusal says of a value is an excerpt.
pub fn check(
    request: &Request,
    id: &Value,
    method: &str,
    params: &Map<String, Value>,
) -> Option<Response> {
    let mismatch = |what: String| Some(refusal(id, what));
    if let Some(refusal) = version(request, id, params) {
        return Some(refusal);
    }
    let header = request.header("mcp-method");
    if let Some(what) = differs(header, "Mcp-Method", "the body's method is", method, "") {
        return mismatch(what);
    }
    let named = match method {
        "tools/call" | "prompts/get" => params.get("name"),
        "resources/read" => params.get("uri"),
        _ => None,
    };
    if let Some(name) = named.and_then(Value::as_str) {
        let header = request.header("mcp-name").map(decoded_header);
        if header == Some(None) {
            return mismatch("Mcp-Name's =?base64?...?= value does not decode".into());
        }
        if let Some(what) = differs(
            header.flatten().as_deref(),
            "Mcp-Name",
            "the body's is",
            name,
            "",
        ) {
            return mismatch(what);
        }
    }
    None
}

/// A mirrored header's value: plain, or the UTF-8 text of its `=?base64?...?=` form (`None`
/// when that does not decode).
fn decoded_header(value: &str) -> Option<String> {
    use base64::Engine;
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(encoded) => base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok()),
        None => Some(value.to_string()),
    }
}

/// `MCP-Protocol-Version` against the revision `_meta` names, when it names one (what `_meta`
/// lacks is refused afterwards, as `-32602`). Checked before the revision itself: a head that
/// says 2026-07-28 over a body naming a revision this server does not serve is a mismatch
/// (`-32020`), as the revision orders its checks, not an unsupported version.
pub fn version(request: &Request, id: &Value, params: &Map<String, Value>) -> Option<Response> {
    let mismatch = |what: String| Some(refusal(id, what));
    let version = params
        .get("_meta")
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str)?;
    let header = request.header("mcp-protocol-version");
    let what = differs(
        header,
        "MCP-Protocol-Version",
        "the body's _meta says",
        version,
        ", as the body's _meta says",
    )?;
    mismatch(what)
}

/// A mirrored header's value (`found`, `None` when missing) against the body's `value`: `None`
/// when they agree, else what the refusal says: that `header` is one thing but `body_says`
/// ("the body's method is") another, or that it is missing (send `value`, then `send_why`).
fn differs(
    found: Option<&str>,
    header: &str,
    body_says: &str,
    value: &str,
    send_why: &str,
) -> Option<String> {
    match found {
        Some(h) if h == value => None,
        Some(h) => Some(format!(
            "{header} is {} but {body_says} {}",
            excerpt(h),
            excerpt(value)
        )),
        None => Some(format!(
            "{header} is missing; send {}{send_why}",
            excerpt(value)
        )),
    }
}

/// The refusal of a header that disagrees with the body, saying `what`.
fn refusal(id: &Value, what: String) -> Response {
    rpc_error(
        400,
        id,
        jsonrpc::HEADER_MISMATCH,
        format!("Header mismatch: {what}"),
        ErrorKind::HeaderMismatch,
    )
}
