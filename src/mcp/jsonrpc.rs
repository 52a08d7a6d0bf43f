//! JSON-RPC 2.0 on `serde_json`: the one check of an incoming message, shared by the stdio
//! server and the HTTP front door ([`check`], run before anything rewrites the message), its
//! classification as a request, a notification, a response, or an error to send back
//! ([`parse`]); the messages the server sends; and the one table of the error codes it sends
//! ([`CODES`]), each with one meaning and the HTTP status it takes.
//!
//! Ids are echoed exactly: only strings and integers are accepted (MCP forbids `null`), and
//! integers are kept as `i64`/`u64`, so `0`, `-1` and `"7"` come back byte for byte; a number
//! beyond 64 bits (which would come back as a float) is refused like any other bad id.

use serde_json::{Map, Value, json};

/// Every JSON-RPC error code this server sends, with its one meaning and the HTTP status it
/// takes when it answers a 2026-07-28 request over Streamable HTTP. (Refusals the front door
/// makes at the HTTP level, such as a missing token or a bound, carry their own status beside
/// one of these codes; answers in the legacy eras are HTTP 200 with the code in the body.) The
/// codes the MCP revision defines are its own (`-32020` to `-32022`); the server's own codes are
/// outside JSON-RPC's reserved range, as the revision asks of new codes.
pub struct Code {
    /// The JSON-RPC error code.
    pub code: i64,
    /// Its short name, as the docs and the audit log spell it.
    pub name: &'static str,
    /// What it means, in one line.
    pub meaning: &'static str,
    /// HTTP status of a 2026-07-28 answer carrying this code.
    pub modern_status: u16,
}

/// JSON-RPC: the message is not JSON.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC: the message is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// JSON-RPC: no such method.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC: the method's parameters are missing or wrong.
pub const INVALID_PARAMS: i64 = -32602;
/// JSON-RPC: the server failed inside.
pub const INTERNAL_ERROR: i64 = -32603;
/// MCP 2026-07-28: a header the transport mirrors from the body is missing or differs.
pub const HEADER_MISMATCH: i64 = -32020;
/// MCP 2026-07-28: the request needs a client capability its `_meta` does not declare.
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
/// MCP 2026-07-28: the request's `_meta` protocol version is not one this server implements.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
/// The request was cancelled (closing its stream, or `notifications/cancelled`), as LSP
/// numbers it.
pub const CANCELLED: i64 = -32800;
/// The server's own: a queue or an allowance of calls is full; nothing was run; retry later.
pub const BUSY: i64 = -31001;

/// The table (see [`Code`]).
pub const CODES: &[Code] = &[
    Code {
        code: PARSE_ERROR,
        name: "ParseError",
        meaning: "the message is not JSON, or nests deeper than 128",
        modern_status: 400,
    },
    Code {
        code: INVALID_REQUEST,
        name: "InvalidRequest",
        meaning: "not one JSON-RPC message: a batch, a non-object, a bad jsonrpc, method or id",
        modern_status: 400,
    },
    Code {
        code: METHOD_NOT_FOUND,
        name: "MethodNotFound",
        meaning: "no such method in the request's revision (removed or unknown)",
        modern_status: 404,
    },
    Code {
        code: INVALID_PARAMS,
        name: "InvalidParams",
        meaning: "params, _meta, a tool or an argument cannot be used as given",
        modern_status: 400,
    },
    Code {
        code: INTERNAL_ERROR,
        name: "InternalError",
        meaning: "the server failed, not the request",
        modern_status: 500,
    },
    Code {
        code: HEADER_MISMATCH,
        name: "HeaderMismatch",
        meaning: "an HTTP header mirrored from the body is missing, malformed or differs",
        modern_status: 400,
    },
    Code {
        code: MISSING_REQUIRED_CLIENT_CAPABILITY,
        name: "MissingRequiredClientCapability",
        meaning: "the request needs a client capability its _meta does not declare",
        modern_status: 400,
    },
    Code {
        code: UNSUPPORTED_PROTOCOL_VERSION,
        name: "UnsupportedProtocolVersion",
        meaning: "the _meta protocol version is not one this server implements",
        modern_status: 400,
    },
    Code {
        code: CANCELLED,
        name: "Cancelled",
        meaning: "the client cancelled the request",
        modern_status: 200,
    },
    Code {
        code: BUSY,
        name: "Busy",
        meaning: "a queue or allowance of calls is full; nothing was run; retry later",
        modern_status: 429,
    },
];

/// The HTTP status of a 2026-07-28 answer: 200 for a result, the table's for an error (500
/// for a code not in it, which this server never sends).
pub fn modern_status(answer: &Value) -> u16 {
    match answer.pointer("/error/code").and_then(Value::as_i64) {
        None => 200,
        Some(code) => CODES
            .iter()
            .find(|c| c.code == code)
            .map_or(500, |c| c.modern_status),
    }
}

/// An error to answer with.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// The error code (one of [`CODES`]).
    pub code: i64,
    /// The message the client reads.
    pub message: String,
    /// Structured detail sent as the error's `data`, if any.
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with `code` and `message` and no data.
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error carrying `data`.
    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }

    /// An [`INVALID_PARAMS`] error with `message`.
    pub fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(INVALID_PARAMS, message)
    }

    fn to_json(&self) -> Value {
        let mut err = json!({ "code": self.code, "message": self.message });
        if let Some(data) = &self.data {
            err["data"] = data.clone();
        }
        err
    }
}

/// A well-formed message from the client.
#[derive(Debug, PartialEq)]
pub enum Incoming {
    /// A request: it gets exactly one response (unless cancelled).
    Request {
        /// The request's id, echoed in its response.
        id: Value,
        /// The method called.
        method: String,
        /// `params`, or an empty object when absent.
        params: Map<String, Value>,
    },
    /// A notification: never answered.
    Notification {
        /// The method notified.
        method: String,
        /// `params`, or an empty object when absent.
        params: Map<String, Value>,
    },
    /// A response to a request of ours. The server sends none, so these are only logged.
    Response,
}

/// What to do with one line of input.
#[derive(Debug, PartialEq)]
pub enum Parsed {
    /// A well-formed message to handle.
    Message(Incoming),
    /// Answer with this error; `id` is the request's id when it could be read, else `null`.
    Reject {
        /// The request's id, or `null` when it could not be read.
        id: Value,
        /// The error to answer with.
        error: RpcError,
    },
    /// A malformed notification: JSON-RPC says never answer it.
    Ignore(&'static str),
}

/// Parse and classify one line. Never panics; deep nesting fails as a parse error because
/// `serde_json` stops at its recursion limit.
pub fn parse(line: &[u8]) -> Parsed {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Parsed::Reject {
                id: Value::Null,
                error: RpcError::new(PARSE_ERROR, format!("Parse error: {e}")),
            };
        }
    };
    classify(value)
}

/// What a checked message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// It has a `method` and an `id`: it is answered.
    Request,
    /// It has a `method` and no `id`: never answered.
    Notification,
    /// It has no `method`: a response to a request of the server's.
    Response,
}

/// The one check of a message, before anything reads or rewrites it: an object with
/// `"jsonrpc": "2.0"`; an `id`, when present, a string or an integer of at most 64 bits; a
/// string `method` (or, without one, a response); `params`, when present, an object, and its
/// `_meta`, when present, an object. `Err` is what to do instead: a [`Parsed::Reject`] to
/// answer, or a [`Parsed::Ignore`] for a malformed notification (never answered).
pub fn check(value: &Value) -> Result<Kind, Parsed> {
    let obj = match value {
        Value::Object(obj) => obj,
        Value::Array(_) => {
            return Err(reject_null(
                "Invalid Request: batches (JSON arrays) are not supported; send one message per \
                 line",
            ));
        }
        _ => {
            return Err(reject_null(
                "Invalid Request: a message must be a JSON object",
            ));
        }
    };
    let id = obj.get("id");
    let id_ok = matches!(id, Some(Value::String(_)))
        || matches!(id, Some(Value::Number(n)) if n.is_i64() || n.is_u64());
    let echo_id = if id_ok {
        id.cloned().unwrap_or(Value::Null)
    } else {
        Value::Null
    };
    let reject = |code: i64, message: &str| Parsed::Reject {
        id: echo_id.clone(),
        error: RpcError::new(code, message),
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(reject(
            INVALID_REQUEST,
            "Invalid Request: \"jsonrpc\" must be \"2.0\"",
        ));
    }
    match obj.get("method") {
        Some(Value::String(_)) => {}
        Some(_) => {
            return Err(reject(
                INVALID_REQUEST,
                "Invalid Request: \"method\" must be a string",
            ));
        }
        None if id.is_some() && (obj.contains_key("result") || obj.contains_key("error")) => {
            return Ok(Kind::Response);
        }
        None => {
            return Err(reject(
                INVALID_REQUEST,
                "Invalid Request: \"method\" is missing",
            ));
        }
    }
    let bad_params = match obj.get("params") {
        None | Some(Value::Object(_)) => None,
        Some(_) => Some("\"params\" must be an object"),
    }
    .or_else(|| match obj.get("params").and_then(|p| p.get("_meta")) {
        None | Some(Value::Object(_)) => None,
        Some(_) => Some("\"params._meta\" must be an object"),
    });
    match (id, bad_params) {
        (None, None) => Ok(Kind::Notification),
        (None, Some(why)) => Err(Parsed::Ignore(why)),
        (Some(_), _) if !id_ok => Err(reject_null(
            "Invalid Request: \"id\" must be a string or an integer of at most 64 bits (MCP \
             forbids null ids)",
        )),
        (Some(_), Some(why)) => Err(reject(INVALID_PARAMS, why)),
        (Some(_), None) => Ok(Kind::Request),
    }
}

fn classify(value: Value) -> Parsed {
    let kind = match check(&value) {
        Ok(kind) => kind,
        Err(parsed) => return parsed,
    };
    let Value::Object(mut obj) = value else {
        unreachable!("check accepts objects only")
    };
    let params = match obj.remove("params") {
        Some(Value::Object(p)) => p,
        _ => Map::new(),
    };
    let method = match obj.remove("method") {
        Some(Value::String(m)) => m,
        _ => String::new(),
    };
    match (kind, obj.remove("id")) {
        (Kind::Response, _) => Parsed::Message(Incoming::Response),
        (Kind::Request, Some(id)) => Parsed::Message(Incoming::Request { id, method, params }),
        _ => Parsed::Message(Incoming::Notification { method, params }),
    }
}

fn reject_null(message: &str) -> Parsed {
    Parsed::Reject {
        id: Value::Null,
        error: RpcError::new(INVALID_REQUEST, message),
    }
}

/// A success response.
pub fn result(id: &Value, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

/// An error response.
pub fn error(id: &Value, error: &RpcError) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": error.to_json() })
}

/// A notification from the server.
pub fn notification(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reject_code(p: Parsed) -> (Value, i64) {
        match p {
            Parsed::Reject { id, error } => (id, error.code),
            other => panic!("expected a rejection, got {other:?}"),
        }
    }

    #[test]
    fn ids_are_kept_exactly() {
        for raw in ["0", "-1", "\"0\"", "\"abc\"", "18446744073709551615"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"ping"}}"#);
            match parse(line.as_bytes()) {
                Parsed::Message(Incoming::Request { id, .. }) => {
                    assert_eq!(serde_json::to_string(&id).unwrap(), raw)
                }
                other => panic!("{raw}: {other:?}"),
            }
        }
    }

    #[test]
    fn bad_ids_are_invalid_requests_with_null_id() {
        for raw in ["null", "1.5", "true", "{}", "[1]"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"ping"}}"#);
            assert_eq!(
                reject_code(parse(line.as_bytes())),
                (Value::Null, INVALID_REQUEST)
            );
        }
    }

    #[test]
    fn parse_errors_batches_and_shapes() {
        assert_eq!(reject_code(parse(b"{not json")), (Value::Null, PARSE_ERROR));
        assert_eq!(
            reject_code(parse(b"{\"jsonrpc\":\"2.0\",")),
            (Value::Null, PARSE_ERROR)
        );
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(
            reject_code(parse(deep.as_bytes())),
            (Value::Null, PARSE_ERROR)
        );
        assert_eq!(
            reject_code(parse(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#)),
            (Value::Null, INVALID_REQUEST)
        );
        assert_eq!(reject_code(parse(b"42")), (Value::Null, INVALID_REQUEST));
        assert_eq!(
            reject_code(parse(br#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#)),
            (json!(3), INVALID_REQUEST)
        );
        assert_eq!(
            reject_code(parse(br#"{"jsonrpc":"2.0","id":3,"method":7}"#)),
            (json!(3), INVALID_REQUEST)
        );
        assert_eq!(
            reject_code(parse(
                br#"{"jsonrpc":"2.0","id":3,"method":"x","params":[1]}"#
            )),
            (json!(3), INVALID_PARAMS)
        );
    }

    #[test]
    fn notifications_and_responses() {
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            Parsed::Message(Incoming::Notification { .. })
        ));
        assert!(matches!(
            parse(br#"{"jsonrpc":"2.0","method":"x","params":5}"#),
            Parsed::Ignore(_)
        ));
        assert_eq!(
            parse(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Parsed::Message(Incoming::Response)
        );
    }

    #[test]
    fn meta_must_be_an_object_and_big_ids_are_refused() {
        for meta in ["null", "[]", "5", "\"x\"", "true"] {
            let line = format!(
                r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{"_meta":{meta}}}}}"#
            );
            assert_eq!(
                reject_code(parse(line.as_bytes())),
                (json!(4), INVALID_PARAMS),
                "{meta}"
            );
            let note = format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/x","params":{{"_meta":{meta}}}}}"#
            );
            assert!(
                matches!(parse(note.as_bytes()), Parsed::Ignore(_)),
                "{meta}"
            );
        }
        for raw in ["18446744073709551616", "-9223372036854775809", "1e2", "1.0"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{raw},"method":"ping"}}"#);
            assert_eq!(
                reject_code(parse(line.as_bytes())),
                (Value::Null, INVALID_REQUEST),
                "{raw}"
            );
        }
        assert_eq!(
            reject_code(parse(br#"{"jsonrpc":"2.0","id":1}"#)),
            (json!(1), INVALID_REQUEST)
        );
    }

    #[test]
    fn every_code_has_one_meaning_and_the_revisions_own_are_its_numbers() {
        let mut codes: Vec<i64> = CODES.iter().map(|c| c.code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), CODES.len(), "two rows share a code");
        let mut names: Vec<&str> = CODES.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CODES.len(), "two rows share a name");
        // The 2026-07-28 revision's table (basic/index, "Error Codes"; transports, "Server
        // Validation"; versioning): its codes, names and statuses.
        for (code, name, status) in [
            (-32020, "HeaderMismatch", 400),
            (-32021, "MissingRequiredClientCapability", 400),
            (-32022, "UnsupportedProtocolVersion", 400),
            (-32601, "MethodNotFound", 404),
            (-32602, "InvalidParams", 400),
        ] {
            let row = CODES.iter().find(|c| c.code == code).unwrap();
            assert_eq!((row.name, row.modern_status), (name, status), "{code}");
        }
        for c in CODES {
            // -32000..-32019 is legacy and -32020..-32099 the revision's alone: the server's
            // own codes live outside JSON-RPC's reserved range.
            let reserved = (-32768..=-32000).contains(&c.code);
            let standard = (-32700..=-32600).contains(&c.code) || c.code == -32700;
            let revisions = (-32099..=-32020).contains(&c.code);
            assert!(
                !reserved || standard || revisions && c.code >= -32022,
                "{} ({}) is in a reserved range",
                c.name,
                c.code
            );
            // The docs name every code.
            let docs = include_str!("../../docs/mcp.md");
            assert!(
                docs.contains(&c.code.to_string()),
                "docs/mcp.md lacks {}",
                c.code
            );
        }
    }

    #[test]
    fn missing_params_is_an_empty_object() {
        match parse(br#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#) {
            Parsed::Message(Incoming::Request { params, .. }) => assert!(params.is_empty()),
            other => panic!("{other:?}"),
        }
    }
}
