//! Reading one HTTP/1.1 request from a connection, under the front door's bounds: the head
//! (request line and headers) is parsed by `httparse` and may hold at most
//! [`Settings::max_header_bytes`], arrive within [`Settings::header_timeout`] of its first
//! byte (a slow client is cut off), and the body is read only when `Content-Length` says it is
//! within [`Settings::max_body_bytes`]. Chunked request bodies are refused (`411`). Bytes a
//! client sent past one request stay in the buffer for the next (pipelining).

use std::io::{ErrorKind, Read};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::settings::Settings;

/// Most headers in one request.
const MAX_HEADERS: usize = 64;

/// One request.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    /// The path, query string removed.
    pub path: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The first value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of header `name` (lowercase), in the order sent: a header a proxy appends
    /// to (`X-Forwarded-For`) may come as several lines.
    pub fn header_values<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the client asked to close the connection after this request.
    pub fn wants_close(&self) -> bool {
        self.header("connection")
            .is_some_and(|v| v.to_ascii_lowercase().contains("close"))
    }
}

/// Why no request was read.
#[derive(Debug)]
pub enum ReadError {
    /// The client closed, or sent nothing before the idle timeout: close quietly.
    Closed,
    /// The head grew past the bound (431).
    HeadTooLarge,
    /// `Content-Length` is past the bound (413).
    BodyTooLarge(u64),
    /// The head or body did not arrive in time (408).
    Timeout,
    /// A chunked body (411).
    LengthRequired,
    /// Not HTTP/1.1 (400); the text says what.
    Malformed(String),
}

/// Read one request; `buf` carries bytes between requests of one connection.
pub fn read(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    settings: &Settings,
    idle: Duration,
) -> Result<Request, ReadError> {
    // Wait for the first byte as long as an idle connection is kept.
    if buf.is_empty() {
        fill(stream, buf, Instant::now() + idle, usize::MAX).map_err(|e| match e {
            ReadError::Timeout => ReadError::Closed,
            e => e,
        })?;
    }
    let deadline = Instant::now() + settings.header_timeout;
    let (head_len, method, path, headers) = loop {
        let mut slots = [httparse::EMPTY_HEADER; MAX_HEADERS];
        let mut parsed = httparse::Request::new(&mut slots);
        match parsed.parse(buf) {
            Ok(httparse::Status::Complete(n)) => {
                if n > settings.max_header_bytes {
                    return Err(ReadError::HeadTooLarge);
                }
                if parsed.version != Some(1) {
                    return Err(ReadError::Malformed("only HTTP/1.1 is served".into()));
                }
                let method = parsed.method.unwrap_or_default().to_string();
                let target = parsed.path.unwrap_or_default();
                let path = target.split('?').next().unwrap_or_default().to_string();
                let mut headers = Vec::with_capacity(parsed.headers.len());
                for h in parsed.headers.iter() {
                    let value = std::str::from_utf8(h.value).map_err(|_| {
                        ReadError::Malformed(format!("header {} is not UTF-8", h.name))
                    })?;
                    headers.push((h.name.to_ascii_lowercase(), value.trim().to_string()));
                }
                break (n, method, path, headers);
            }
            Ok(httparse::Status::Partial) => {
                if buf.len() >= settings.max_header_bytes {
                    return Err(ReadError::HeadTooLarge);
                }
                fill(stream, buf, deadline, settings.max_header_bytes)?;
            }
            Err(httparse::Error::TooManyHeaders) => return Err(ReadError::HeadTooLarge),
            Err(e) => return Err(ReadError::Malformed(format!("bad request head: {e}"))),
        }
    };
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    if header("transfer-encoding").is_some() {
        return Err(ReadError::LengthRequired);
    }
    let length = match header("content-length") {
        None => 0,
        Some(v) => v
            .parse::<u64>()
            .map_err(|_| ReadError::Malformed("Content-Length is not a number".into()))?,
    };
    if length > settings.max_body_bytes as u64 {
        return Err(ReadError::BodyTooLarge(length));
    }
    let length = length as usize;
    buf.drain(..head_len);
    while buf.len() < length {
        fill(stream, buf, deadline, length)?;
    }
    let body: Vec<u8> = buf.drain(..length).collect();
    Ok(Request {
        method,
        path,
        headers,
        body,
    })
}

/// Read more bytes into `buf` (at most up to `cap` in all) before `deadline`.
fn fill(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    deadline: Instant,
    cap: usize,
) -> Result<(), ReadError> {
    let mut chunk = [0u8; 8192];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(ReadError::Timeout);
        }
        let _ = stream.set_read_timeout(Some(left));
        let want = chunk.len().min(cap.saturating_sub(buf.len()).max(1));
        match stream.read(&mut chunk[..want]) {
            Ok(0) => return Err(ReadError::Closed),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                return Ok(());
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Err(ReadError::Timeout);
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => return Err(ReadError::Closed),
        }
    }
}
