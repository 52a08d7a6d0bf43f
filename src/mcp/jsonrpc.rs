//! JSON-RPC 2.0 on `serde_json`: classify one incoming line as a request, a notification, a
//! response, or an error to send back; and build the messages the server sends.
//!
//! Ids are echoed exactly: only strings and integers are accepted (MCP forbids `null`), and
//! integers are kept as `i64`/`u64`, so `0`, `-1` and `"7"` come back byte for byte.

use serde_json::{Map, Value, json};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;
/// Server-defined: the queue of pending calls is full; nothing was run, retry later.
pub const SERVER_BUSY: i64 = -32001;
/// MCP 2026-07-28: the request's `_meta` protocol version is not one this server implements.
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// An error to answer with.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }

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
        id: Value,
        method: String,
        /// `params`, or an empty object when absent.
        params: Map<String, Value>,
    },
    /// A notification: never answered.
    Notification {
        method: String,
        params: Map<String, Value>,
    },
    /// A response to a request of ours. The server sends none, so these are only logged.
    Response,
}

/// What to do with one line of input.
#[derive(Debug, PartialEq)]
pub enum Parsed {
    Message(Incoming),
    /// Answer with this error; `id` is the request's id when it could be read, else `null`.
    Reject {
        id: Value,
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

fn classify(value: Value) -> Parsed {
    let mut obj = match value {
        Value::Object(obj) => obj,
        Value::Array(_) => {
            return reject_null(
                "Invalid Request: batches (JSON arrays) are not supported; send one message per line",
            );
        }
        _ => return reject_null("Invalid Request: a message must be a JSON object"),
    };
    let id = obj.remove("id");
    let id_ok = matches!(&id, Some(Value::String(_)))
        || matches!(&id, Some(Value::Number(n)) if n.is_i64() || n.is_u64());
    let echo_id = if id_ok {
        id.clone().unwrap_or(Value::Null)
    } else {
        Value::Null
    };

    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Parsed::Reject {
            id: echo_id,
            error: RpcError::new(
                INVALID_REQUEST,
                "Invalid Request: \"jsonrpc\" must be \"2.0\"",
            ),
        };
    }
    let method = match obj.remove("method") {
        Some(Value::String(m)) => m,
        Some(_) => {
            return Parsed::Reject {
                id: echo_id,
                error: RpcError::new(
                    INVALID_REQUEST,
                    "Invalid Request: \"method\" must be a string",
                ),
            };
        }
        None if id.is_some() && (obj.contains_key("result") || obj.contains_key("error")) => {
            return Parsed::Message(Incoming::Response);
        }
        None => {
            return Parsed::Reject {
                id: echo_id,
                error: RpcError::new(INVALID_REQUEST, "Invalid Request: \"method\" is missing"),
            };
        }
    };
    let params = match obj.remove("params") {
        None => Ok(Map::new()),
        Some(Value::Object(p)) => Ok(p),
        Some(_) => Err(()),
    };
    match id {
        None => match params {
            Ok(params) => Parsed::Message(Incoming::Notification { method, params }),
            Err(()) => Parsed::Ignore("notification params are not an object"),
        },
        Some(_) if !id_ok => reject_null(
            "Invalid Request: \"id\" must be a string or an integer (MCP forbids null ids)",
        ),
        Some(id) => match params {
            Ok(params) => Parsed::Message(Incoming::Request { id, method, params }),
            Err(()) => Parsed::Reject {
                id,
                error: RpcError::invalid_params("\"params\" must be an object"),
            },
        },
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
    fn missing_params_is_an_empty_object() {
        match parse(br#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#) {
            Parsed::Message(Incoming::Request { params, .. }) => assert!(params.is_empty()),
            other => panic!("{other:?}"),
        }
    }
}
