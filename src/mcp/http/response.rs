//! Writing HTTP/1.1 responses: a whole response with `Content-Length`, or a Server-Sent Events
//! stream sent chunked (one chunk per event), so a connection stays usable after the stream
//! ends. Every writer counts the bytes it sent, for the audit line.

use std::io::{self, Write};
use std::net::TcpStream;

use serde_json::Value;

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

fn head(status: u16, headers: &[(&'static str, String)], close: bool) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status} {}\r\n", reason(status)).into_bytes();
    for (name, value) in headers {
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
