//! Writing HTTP/1.1 responses: a whole response with `Content-Length`, or a Server-Sent Events
//! stream sent chunked (one chunk per event), so a connection stays usable after the stream
//! ends. Every writer counts the bytes it sent, for the audit line.
//!
//! This is the one place a response head is written, and a header whose name or value holds a
//! control character (CR or LF above all, which would end the header and start another) is
//! never written: it is dropped, and logged. Every front-door error is made by [`rpc_error`],
//! which passes it through the exit gate the worker's answers pass.

use std::io::{self, Write};
use std::net::TcpStream;

use serde_json::{Value, json};

use crate::mcp::config::DEFAULT_MAX_CHARS;
use crate::mcp::gate::Gate;
use crate::mcp::jsonrpc::{self, RpcError};
use crate::vocab::ErrorKind;

/// A whole response.
#[derive(Debug, Default)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub content_type: Option<&'static str>,
    pub body: Vec<u8>,
}

impl Response {
    /// `status` with a JSON body.
    pub fn json(status: u16, body: &Value) -> Response {
        Response {
            status,
            content_type: Some("application/json"),
            body: serde_json::to_vec(body).unwrap_or_default(),
            ..Response::default()
        }
    }

    /// `status` with no body.
    pub fn empty(status: u16) -> Response {
        Response {
            status,
            ..Response::default()
        }
    }

    /// Add a header.
    pub fn with(mut self, name: &'static str, value: impl Into<String>) -> Response {
        self.headers.push((name, value.into()));
        self
    }

    /// Send it; `close` says the connection ends after it. Returns the bytes sent.
    pub fn send(&self, stream: &mut TcpStream, close: bool) -> io::Result<usize> {
        let mut out = head(self.status, &self.headers, close);
        if let Some(t) = self.content_type {
            out.extend_from_slice(format!("Content-Type: {t}\r\n").as_bytes());
        }
        out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", self.body.len()).as_bytes());
        out.extend_from_slice(&self.body);
        stream.write_all(&out)?;
        stream.flush()?;
        Ok(out.len())
    }
}

/// A front-door error: `status` with a JSON-RPC error body whose `data` says its `kind`, sealed
/// by the exit gate (secrets redacted, invisible characters written out, the whole within the
/// default answer's ceiling), as the worker's errors are.
pub fn rpc_error(status: u16, id: &Value, code: i64, message: String, kind: ErrorKind) -> Response {
    rpc_refusal(status, id, RpcError::new(code, message), kind)
}

/// [`rpc_error`] for an error already made (its `data`, if an object, keeps its fields, and
/// gains `kind` and `message`).
pub fn rpc_refusal(status: u16, id: &Value, mut error: RpcError, kind: ErrorKind) -> Response {
    let mut data = match error.data.take() {
        Some(Value::Object(data)) => data,
        _ => serde_json::Map::new(),
    };
    data.insert("kind".into(), json!(kind));
    data.insert("message".into(), json!(error.message));
    let error = error.with_data(Value::Object(data));
    let sealed = Gate::new(DEFAULT_MAX_CHARS).seal(jsonrpc::error(id, &error));
    Response::json(status, &sealed)
}

/// Whether a header may be written: a token name, and a value without control characters
/// (tab aside).
fn writable(name: &str, value: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
        && value
            .bytes()
            .all(|b| b == b'\t' || (b >= 0x20 && b != 0x7f))
}

fn head(status: u16, headers: &[(&'static str, String)], close: bool) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status} {}\r\n", reason(status)).into_bytes();
    for (name, value) in headers {
        if !writable(name, value) {
            log::warn!("a response header {name:?} held a control character; it was not sent");
            continue;
        }
        out.extend_from_slice(format!("{name}: {value}\r\n").as_bytes());
    }
    out.extend_from_slice(b"Cache-Control: no-store\r\n");
    if close {
        out.extend_from_slice(b"Connection: close\r\n");
    }
    out
}

/// The reason phrase of the statuses the front door sends.
pub fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        202 => "Accepted",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        406 => "Not Acceptable",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// An SSE stream being sent.
pub struct Sse<'a> {
    stream: &'a mut TcpStream,
    pub bytes: usize,
}

impl<'a> Sse<'a> {
    /// Send the head of a `200` SSE response.
    pub fn start(
        stream: &'a mut TcpStream,
        headers: &[(&'static str, String)],
    ) -> io::Result<Sse<'a>> {
        let mut out = head(200, headers, false);
        out.extend_from_slice(
            b"Content-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n",
        );
        stream.write_all(&out)?;
        stream.flush()?;
        Ok(Sse {
            bytes: out.len(),
            stream,
        })
    }

    /// Send one JSON-RPC message as an event.
    pub fn message(&mut self, message: &Value) -> io::Result<()> {
        let data = serde_json::to_string(message).unwrap_or_default();
        self.chunk(format!("event: message\ndata: {data}\n\n").as_bytes())
    }

    /// Send a comment (a keep-alive the client ignores).
    pub fn comment(&mut self, text: &str) -> io::Result<()> {
        self.chunk(format!(": {text}\n\n").as_bytes())
    }

    fn chunk(&mut self, data: &[u8]) -> io::Result<()> {
        let mut out = format!("{:x}\r\n", data.len()).into_bytes();
        out.extend_from_slice(data);
        out.extend_from_slice(b"\r\n");
        self.stream.write_all(&out)?;
        self.stream.flush()?;
        self.bytes += out.len();
        Ok(())
    }

    /// End the stream (the connection stays open).
    pub fn finish(mut self) -> io::Result<usize> {
        self.stream.write_all(b"0\r\n\r\n")?;
        self.stream.flush()?;
        self.bytes += 5;
        Ok(self.bytes)
    }

    /// The connection, to check whether the client is still there.
    pub fn stream(&self) -> &TcpStream {
        self.stream
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_header_value_with_a_control_character_is_written() {
        let out = head(
            200,
            &[
                ("Retry-After", "1".into()),
                ("Mcp-Session-Id", "abc\r\nSet-Cookie: x=1".into()),
                ("Allow", "POST\nX: y".into()),
                ("WWW-Authenticate", "Bearer\u{0}".into()),
            ],
            false,
        );
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Retry-After: 1\r\n"), "{text}");
        assert!(!text.contains("Set-Cookie"), "{text}");
        assert!(!text.contains("X: y"), "{text}");
        assert!(!text.contains("Bearer"), "{text}");
        assert_eq!(
            text.matches("\r\n").count(),
            3,
            "status, one header, Cache-Control: {text}"
        );
    }

    #[test]
    fn a_front_door_error_passes_the_exit_gate() {
        let token = format!("{}{}", "gh", "p_u8Zq3LmN7pX2vR9tK4wY6bJ1cH5dF0gS8aQe");
        let huge = "m".repeat(3_000_000);
        let r = rpc_error(
            400,
            &Value::Null,
            -32600,
            format!("bad {token} \u{202e} {huge}"),
            ErrorKind::InvalidRequest,
        );
        let body = String::from_utf8(r.body).unwrap();
        assert!(!body.contains(&token), "{body:.300}");
        assert!(!body.contains('\u{202e}'), "{body:.300}");
        assert!(body.chars().count() <= DEFAULT_MAX_CHARS, "{}", body.len());
    }
}
