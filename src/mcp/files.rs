//! gnaw-mcp's resources: each root's files, named by `gnaw://ROOT/PATH` URIs.
//!
//! Why this scheme: a resource URI names a root and a path under it and nothing else. `file://`
//! would carry the server's absolute paths (over HTTP, the operator's layout, which a tenant is
//! never told) and invite a client to open the path on its own machine; `gnaw://` says the file
//! is reached through this server only. `ROOT` is the root's name (its directory's name, made
//! unique: the name a `repo` argument starts with when there are several roots); `PATH` is the
//! path as every answer shows it, percent-encoded (every byte but `A-Z a-z 0-9 - . _ ~ /`), so
//! any file name round-trips.
//!
//! A URI is decoded and then takes `read`'s road, and no other: the root is found by its name
//! among the server's roots (never from a path), proven by the `super::containment` as a
//! `repo` argument is, and the path proven beneath it, read, scanned and redacted by
//! [`crate::driver::nav::read::whole`] under the operator's policy; the answer leaves through
//! the exit gate. So every spelling that leaves a root (`..`, an absolute path, a link out,
//! `%2e%2e`, another root's path) is refused as `read` refuses it, with the same kind.
//!
//! Each root is a resource template, `gnaw://ROOT/{+path}`, whose `path` completes to the
//! root's files ranked by the search index (`crate::driver::nav::complete`); `resources/list`
//! lists each root's most central files.

use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use super::containment::Containment;
use super::jsonrpc::{self, RpcError};
use super::resource::{CacheHint, Completion, MAX_COMPLETIONS, Resources, refused};
use super::tool::{Outcome, ToolContext};
use super::tools::navigation;
use crate::driver::call::{NavError, Request};
use crate::driver::nav::{complete, read};
use crate::error::Error;
use crate::vocab::ErrorKind;

/// The scheme of every resource URI.
pub const SCHEME: &str = "gnaw://";
/// Most files `resources/list` lists of one root.
const LISTED_PER_ROOT: usize = 50;
/// The longest URI decoded, in bytes.
const MAX_URI_BYTES: usize = 8192;

/// The roots' files as resources.
pub struct Files {
    /// Each root's name, as a URI names it.
    names: Vec<String>,
    /// Each root's `repo` value, in the same order.
    repos: Vec<Value>,
}

impl Files {
    /// The file resources of the roots `containment` serves.
    pub fn new(containment: &dyn Containment) -> Files {
        Files {
            names: containment.names(),
            repos: containment.roots(),
        }
    }

    fn template(name: &str) -> String {
        format!("{SCHEME}{}/{{+path}}", encode(name, false))
    }

    /// The request on root `i`, proven.
    fn request<'a>(&self, i: usize, ctx: &ToolContext<'a>) -> Result<Request<'a>, Outcome> {
        navigation::request(ctx, Some(&self.repos[i]), Vec::new(), Vec::new(), None)
    }

    /// The root a URI or template names, by its decoded name.
    fn root(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}

/// `text` percent-encoded: every byte but the unreserved ones (and `/` when `slash`).
pub fn encode(text: &str, slash: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) || (slash && b == b'/') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// `text` percent-decoded, or why it cannot be.
pub fn decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
                .ok_or("a % not followed by two hex digits")?;
            out.push(hex);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| "percent-encoded bytes that are not UTF-8".to_string())
}

/// A `gnaw://ROOT/PATH` URI split into its decoded root name and path, or why it is not one.
pub fn parse(uri: &str) -> Result<(String, String), (ErrorKind, String)> {
    let invalid = |why: &str| (ErrorKind::InvalidPath, why.to_string());
    if uri.len() > MAX_URI_BYTES {
        return Err(invalid(&format!(
            "the URI is {} bytes; at most {MAX_URI_BYTES}",
            uri.len()
        )));
    }
    let rest = match uri.get(..SCHEME.len()) {
        Some(s) if s.eq_ignore_ascii_case(SCHEME) => &uri[SCHEME.len()..],
        _ => {
            return Err((
                ErrorKind::NotFound,
                format!("this server's resources are {SCHEME}ROOT/PATH"),
            ));
        }
    };
    if rest.contains(['?', '#']) {
        return Err(invalid("a resource URI has no query or fragment"));
    }
    let (root, path) = rest.split_once('/').unwrap_or((rest, ""));
    let root = decode(root).map_err(|e| invalid(&e))?;
    let path = decode(path).map_err(|e| invalid(&e))?;
    // An empty path is refused where `read` refuses it, the same way.
    Ok((root, path))
}

/// The MIME type a file is sent as, by its extension.
fn mime(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext.to_ascii_lowercase().as_str() {
        "md" | "markdown" => "text/markdown",
        "json" => "application/json",
        "html" | "htm" => "text/html",
        _ => "text/plain",
    }
}

/// A navigation failure as a refusal of `uri`.
fn failed(uri: &str, e: NavError) -> Outcome {
    match e {
        NavError::Argument { kind, message } => Outcome::Rejected(refused(uri, kind, &message)),
        NavError::Run(Error::Cancelled) => Outcome::Cancelled,
        NavError::Run(e) => Outcome::Rejected(
            RpcError::new(
                jsonrpc::INTERNAL_ERROR,
                format!("resources/read failed: {e}"),
            )
            .with_data(json!({ "kind": e.kind(), "uri": uri })),
        ),
    }
}

impl Resources for Files {
    fn list(&self, ctx: &ToolContext<'_>) -> Result<Vec<Value>, RpcError> {
        let mut listed = Vec::new();
        for (i, name) in self.names.iter().enumerate() {
            let req = match self.request(i, ctx) {
                Ok(req) => req,
                Err(Outcome::Rejected(e)) => return Err(e),
                Err(_) => continue,
            };
            let offered = complete::paths(&req, "", LISTED_PER_ROOT).map_err(|e| match e {
                NavError::Argument { message, .. } => RpcError::invalid_params(message),
                NavError::Run(e) => RpcError::new(jsonrpc::INTERNAL_ERROR, e.to_string()),
            })?;
            for path in offered.paths {
                listed.push(json!({
                    "uri": format!("{SCHEME}{}/{}", encode(name, false), encode(&path, true)),
                    "name": path,
                    "title": format!("{name}/{path}"),
                    "mimeType": mime(&path),
                }));
            }
        }
        Ok(listed)
    }

    fn templates(&self) -> Vec<Value> {
        self.names
            .iter()
            .map(|name| {
                json!({
                    "uriTemplate": Files::template(name),
                    "name": format!("{name} files"),
                    "title": format!("A file of {name}"),
                    "description": format!(
                        "A file under the root {name}, as the read tool shows it (secrets redacted)."
                    ),
                })
            })
            .collect()
    }

    fn read(&self, uri: &str, ctx: &ToolContext<'_>) -> Outcome {
        let (name, path) = match parse(uri) {
            Ok(parsed) => parsed,
            Err((kind, why)) => return Outcome::Rejected(refused(uri, kind, &why)),
        };
        let Some(i) = self.root(&name) else {
            let why = format!(
                "no root is named that; this server's roots: {}",
                self.names.join(", ")
            );
            return Outcome::Rejected(refused(uri, ErrorKind::NotFound, &why));
        };
        let req = match self.request(i, ctx) {
            Ok(req) => req,
            Err(Outcome::Rejected(e)) => {
                let why = e.message.clone();
                return Outcome::Rejected(refused(uri, ErrorKind::OutsideRoot, &why));
            }
            Err(other) => return other,
        };
        let whole = match read::whole(&req, &path) {
            Ok(whole) => whole,
            Err(e) => return failed(uri, e),
        };
        let limit = ctx.config.max_output_bytes / 2;
        if whole.text.len() > limit {
            let why = format!(
                "{} is {} bytes, more than a resource may send ({limit}, half of \
                 GNAW_MCP_MAX_OUTPUT_BYTES); read it by range with the read tool",
                whole.shown,
                whole.text.len()
            );
            return Outcome::Rejected(refused(uri, ErrorKind::LimitExceeded, &why));
        }
        if ctx.observer.cancelled() {
            return Outcome::Cancelled;
        }
        Outcome::Done(json!({
            "contents": [{ "uri": uri, "mimeType": mime(&whole.shown), "text": whole.text }],
        }))
    }

    fn complete(
        &self,
        template: &str,
        argument: &str,
        typed: &str,
        _context: &Map<String, Value>,
        ctx: &ToolContext<'_>,
    ) -> Result<Completion, RpcError> {
        let Some(i) = self
            .names
            .iter()
            .position(|n| Files::template(n) == template)
        else {
            return Err(RpcError::invalid_params(format!(
                "no resource template is {}; this server's are {}",
                crate::vocab::excerpt(template),
                self.names
                    .iter()
                    .map(|n| Files::template(n))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        };
        if argument != "path" {
            return Ok(Completion::default());
        }
        let req = match self.request(i, ctx) {
            Ok(req) => req,
            Err(Outcome::Rejected(e)) => return Err(e),
            Err(_) => return Ok(Completion::default()),
        };
        let offered = complete::paths(&req, typed, MAX_COMPLETIONS).map_err(|e| match e {
            NavError::Argument { kind, message } => RpcError::invalid_params(message.clone())
                .with_data(json!({ "kind": kind, "message": message })),
            NavError::Run(e) => RpcError::new(jsonrpc::INTERNAL_ERROR, e.to_string()),
        })?;
        Ok(Completion {
            values: offered.paths,
            total: Some(offered.total),
        })
    }

    fn hint(&self) -> CacheHint {
        // Files change at any time, and are one tenant's.
        CacheHint {
            ttl_ms: 0,
            public: false,
        }
    }

    fn templates_hint(&self) -> CacheHint {
        // Fixed for the life of the process, and name one tenant's roots.
        CacheHint {
            ttl_ms: super::era::CACHE_TTL_MS,
            public: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_any_name() {
        for path in [
            "src/main.rs",
            "a b/c%d.rs",
            "é/ü.txt",
            "x?y#z",
            "..",
            "a/../b",
        ] {
            let uri = format!("{SCHEME}root/{}", encode(path, true));
            assert_eq!(parse(&uri).unwrap(), ("root".into(), path.into()), "{uri}");
        }
    }

    #[test]
    fn malformed_uris_are_refused_by_kind() {
        assert_eq!(
            parse("file:///etc/passwd").unwrap_err().0,
            ErrorKind::NotFound
        );
        assert_eq!(
            parse("gnaw://root").unwrap(),
            ("root".into(), String::new())
        );
        for bad in [
            "gnaw://root/a%2",
            "gnaw://root/a%zz",
            "gnaw://root/%ff",
            "gnaw://root/a?b",
        ] {
            assert_eq!(parse(bad).unwrap_err().0, ErrorKind::InvalidPath, "{bad}");
        }
        let long = format!("gnaw://root/{}", "a".repeat(MAX_URI_BYTES));
        assert_eq!(parse(&long).unwrap_err().0, ErrorKind::InvalidPath);
    }
}
