//! What a server's resources are: the [`Resources`] trait a server definition's resources
//! implement (gnaw-mcp's are the roots' files, [`super::files`]), the [`Completion`] a
//! completion answers with, and the caching hints every list and read carries.
//!
//! Listing and reading run on the call worker, as tool calls do (they may read the repository),
//! with the same [`ToolContext`]; the template list is fixed and answered at once.

use super::jsonrpc::RpcError;
use super::tool::{Outcome, ToolContext};
use serde_json::{Map, Value, json};

/// Most values one completion answers with (the MCP schema's own bound).
pub const MAX_COMPLETIONS: usize = 100;

/// How long a client may keep an answer, and whether a shared cache may (`ttlMs`,
/// `cacheScope`: the 2026-07-28 caching hints).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheHint {
    /// How long the client may keep the answer, in milliseconds.
    pub ttl_ms: u64,
    /// `public`: the same for every caller; `private`: one caller's (a tenant's files).
    pub public: bool,
}

impl CacheHint {
    /// Add the hints to a result.
    pub fn apply(self, result: &mut Value) {
        result["ttlMs"] = json!(self.ttl_ms);
        result["cacheScope"] = json!(if self.public { "public" } else { "private" });
    }
}

/// A completion: the values offered (at most [`MAX_COMPLETIONS`], best first), how many matched
/// in all, and whether there are more than were sent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    /// The values offered, best first.
    pub values: Vec<String>,
    /// How many values matched in all, when known.
    pub total: Option<usize>,
}

impl Completion {
    /// The values of `all` that start with `typed`, in order, bounded.
    pub fn filtered<'a>(all: impl IntoIterator<Item = &'a str>, typed: &str) -> Completion {
        let matched: Vec<String> = all
            .into_iter()
            .filter(|v| v.starts_with(typed))
            .map(str::to_string)
            .collect();
        let total = matched.len();
        Completion {
            values: matched.into_iter().take(MAX_COMPLETIONS).collect(),
            total: Some(total),
        }
    }

    /// The `completion/complete` result.
    pub fn to_json(&self) -> Value {
        let mut values = self.values.clone();
        values.truncate(MAX_COMPLETIONS);
        let mut completion = json!({ "values": values });
        if let Some(total) = self.total {
            completion["total"] = json!(total);
            completion["hasMore"] = json!(total > values.len());
        } else {
            completion["hasMore"] = json!(false);
        }
        json!({ "completion": completion })
    }
}

/// A server's resources: direct ones to list, templates, reading a URI and completing a
/// template's argument.
pub trait Resources: Send + Sync {
    /// The direct resources, for `resources/list` (each `uri`, `name`, ...).
    fn list(&self, ctx: &ToolContext<'_>) -> Result<Vec<Value>, RpcError>;
    /// The resource templates, for `resources/templates/list`.
    fn templates(&self) -> Vec<Value>;
    /// A `ReadResourceResult` for `uri` (`contents`), or the refusal (`-32602`, naming the URI
    /// in `data.uri`, for one that names no resource).
    fn read(&self, uri: &str, ctx: &ToolContext<'_>) -> Outcome;
    /// Values for the argument `argument` of the template `template` as typed so far, given the
    /// template's other arguments already chosen (`context`).
    fn complete(
        &self,
        template: &str,
        argument: &str,
        typed: &str,
        context: &Map<String, Value>,
        ctx: &ToolContext<'_>,
    ) -> Result<Completion, RpcError>;
    /// The hints of `resources/list` and `resources/read`.
    fn hint(&self) -> CacheHint;
    /// The hints of `resources/templates/list`.
    fn templates_hint(&self) -> CacheHint;
}

/// The longest URI an error repeats as it was sent; a longer one is cut to an excerpt.
const MAX_URI_ECHO: usize = 2048;

/// The refusal of a URI that names no resource: `-32602`, the URI in `data.uri` (SEP-2164),
/// with `kind` and `why` (the exit gate escapes and bounds both).
pub fn refused(uri: &str, kind: crate::vocab::ErrorKind, why: &str) -> RpcError {
    let echo = if uri.len() <= MAX_URI_ECHO {
        uri.to_string()
    } else {
        crate::vocab::excerpt(uri)
    };
    RpcError::invalid_params(format!("Resource not read: {why}"))
        .with_data(json!({ "uri": echo, "kind": kind, "message": why }))
}
