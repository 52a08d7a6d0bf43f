//! What a tenant's worker and `gnaw-mcp --listen`'s front door say to each other beside the
//! protocol: the [`TAKEN`] notification, and the legacy session a request belongs to. One worker
//! serves all of a tenant's sessions, so the front door passes each session's negotiated
//! revision and client name in the request's `_meta` under [`SESSION_META`], and
//! [`super::dispatch`] shapes the answer for them instead of for the process's last
//! `initialize`. The front door removes the key from every client's message before adding its
//! own, so only it can set it; on stdio, a client that sets it only shapes its own answers.

use serde_json::{Map, Value};

use super::era::LEGACY_VERSIONS;

/// The notification a tenant's worker sends when it takes a request the front door forwarded,
/// before it runs it (`params.requestId`: the front door's id). A request the worker never took
/// when it ended goes to a new worker; one it took fails with it.
pub const TAKEN: &str = "notifications/dev.gnaw/taken";

/// The `_meta` key: `{"protocolVersion": "2025-06-18", "clientName": "..."}`.
pub const SESSION_META: &str = "dev.gnaw/session";

/// A session's revision and client name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionMeta {
    pub version: Option<&'static str>,
    pub client: Option<String>,
}

/// Remove [`SESSION_META`] from `params._meta` and return what it said.
pub fn take(params: &mut Map<String, Value>) -> Option<SessionMeta> {
    let meta = params.get_mut("_meta")?.as_object_mut()?;
    let session = meta.remove(SESSION_META)?;
    let version = session
        .get("protocolVersion")
        .and_then(Value::as_str)
        .and_then(|v| LEGACY_VERSIONS.into_iter().find(|known| *known == v));
    let client = session
        .get("clientName")
        .and_then(Value::as_str)
        .map(|n| n.chars().take(256).collect());
    Some(SessionMeta { version, client })
}
