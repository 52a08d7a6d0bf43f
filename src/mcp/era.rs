//! The protocol eras, as the 2026-07-28 versioning page defines them: which revisions are
//! spoken, how a request's era is read from its `_meta` (and its modern fields validated), and
//! what every modern result carries. [`super::dispatch`] answers each request in its era.

use super::jsonrpc::{self, RpcError};
use serde_json::{Map, Value, json};

/// Legacy (initialize-handshake) revisions we speak, oldest first.
pub const LEGACY_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// Modern (per-request `_meta`) revisions we speak.
pub const MODERN_VERSIONS: [&str; 1] = ["2026-07-28"];

/// The `_meta` key that carries a 2026-07-28 request's protocol revision.
pub const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// The `_meta` key that carries a 2026-07-28 request's client capabilities.
pub const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";

/// How long a client may cache `tools/list` and `server/discover`: the tools are fixed for the
/// life of the process and carry nothing user-specific.
pub const CACHE_TTL_MS: u64 = 3_600_000;

/// The server's own name and version, as `serverInfo`.
pub fn server_info() -> Value {
    json!({ "name": "gnaw-mcp", "version": env!("CARGO_PKG_VERSION") })
}

/// How one request is to be answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Era {
    /// A revision of [`LEGACY_VERSIONS`], negotiated by the `initialize` handshake.
    Legacy,
    /// A revision of [`MODERN_VERSIONS`], named in each request's `_meta`.
    Modern,
}

/// Decide the era of a request from its `_meta`, validating the modern fields.
pub fn era_of(params: &Map<String, Value>) -> Result<Era, RpcError> {
    match params.get("_meta") {
        Some(Value::Object(meta)) if meta.contains_key(META_VERSION) => {
            modern_meta(meta).map(|()| Era::Modern)
        }
        _ => Ok(Era::Legacy),
    }
}

/// Check the `_meta` of a request that can only be of the 2026-07-28 era (over HTTP, one
/// without a legacy session): present, naming a revision this server implements, with the
/// client's capabilities.
pub fn require_modern(params: &Map<String, Value>) -> Result<(), RpcError> {
    match params.get("_meta") {
        Some(Value::Object(meta)) if meta.contains_key(META_VERSION) => modern_meta(meta),
        _ => Err(RpcError::invalid_params(format!(
            "Invalid params: this request names no protocol revision; a 2026-07-28 request \
             carries params._meta with \"{META_VERSION}\" and \"{META_CAPABILITIES}\" (or send \
             initialize first, for a session of an earlier revision)"
        ))),
    }
}

/// The modern fields of a `_meta` that names a revision: a supported one, and capabilities.
fn modern_meta(meta: &Map<String, Value>) -> Result<(), RpcError> {
    let Some(version) = meta.get(META_VERSION).and_then(Value::as_str) else {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: _meta[\"{META_VERSION}\"] must be a string"
        )));
    };
    if !MODERN_VERSIONS.contains(&version) {
        return Err(RpcError::new(
            jsonrpc::UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
        )
        .with_data(json!({
            "supported": MODERN_VERSIONS,
            "requested": crate::vocab::excerpt(version),
        })));
    }
    if !matches!(meta.get(META_CAPABILITIES), Some(Value::Object(_))) {
        return Err(RpcError::invalid_params(format!(
            "Invalid params: _meta[\"{META_CAPABILITIES}\"] is required and must be an object"
        )));
    }
    Ok(())
}

/// Add what every modern result carries (`resultType: "complete"` unless the result says
/// otherwise, as an `input_required` one does).
pub fn finish(era: Era, mut result: Value) -> Value {
    if era == Era::Modern {
        if result.get("resultType").is_none() {
            result["resultType"] = json!("complete");
        }
        result["_meta"] = json!({ META_SERVER_INFO: server_info() });
    }
    result
}
