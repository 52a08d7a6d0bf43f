//! Reading one HTTP/1.1 request from a connection, under the front door's bounds, in two steps
//! so that nothing unauthenticated costs more than its head: [`read_head`] reads and parses the
//! request line and headers (`httparse`), at most [`Settings::max_header_bytes`], arriving
//! within [`Settings::header_timeout`] of the first byte (a slow client is cut off); the caller
//! authenticates on the head, and only then [`read_body`] reads the body, when
//! `Content-Length` says it is within [`Settings::max_body_bytes`].
//!
//! Framing is strict (RFC 9112 §6.3): `Content-Length` is digits only (no sign, no space, no
//! other character), and several values that differ, or one beside `Transfer-Encoding`, are
//! a bad request (400, and the connection closes: where the body ends cannot be known, so the
//! next bytes cannot be trusted to start a request). A chunked body alone is refused with 411.
//! Bytes a client sent past one request stay in the buffer for the next (pipelining).

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
    /// The body: empty until [`read_body`] has read it.
    pub body: Vec<u8>,
    /// The body's length, as `Content-Length` says (0 without one).
    pub body_len: u64,
    /// When the head's first byte arrived plus the header timeout: the body must be in by then.
    deadline: Instant,
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

    /// Whether the body is still on the connection, unread.
    pub fn body_unread(&self) -> bool {
        self.body_len > 0 && self.body.is_empty()
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
    /// Not HTTP/1.1, or framing that cannot be trusted (400); the text says what.
    Malformed(String),
}

/// Read one request's head; `buf` carries bytes between requests of one connection. The body,
/// if any, stays unread ([`read_body`]).
pub fn read_head(
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
                    let value = std::str::from_utf8(h.value)
                        .map_err(|_| ReadError::Malformed("a header value is not UTF-8".into()))?;
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
    let body_len = body_length(&headers)?;
    buf.drain(..head_len);
    Ok(Request {
        method,
        path,
        headers,
        body: Vec::new(),
        body_len,
        deadline,
    })
}

/// The body's length from the head (RFC 9112 §6.3): `Content-Length` as digits only, every
/// value the same; `Transfer-Encoding` beside it is a bad request, alone a chunked body (411).
pub fn body_length(headers: &[(String, String)]) -> Result<u64, ReadError> {
    let has = |name: &str| headers.iter().any(|(n, _)| n == name);
    let mut length: Option<u64> = None;
    for (_, value) in headers.iter().filter(|(n, _)| n == "content-length") {
        for part in value.split(',') {
            let part = part.trim_matches([' ', '\t']);
            if part.is_empty() || part.len() > 19 || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(ReadError::Malformed(
                    "Content-Length must be a number written in digits only".into(),
                ));
            }
            let n: u64 = part.parse().map_err(|_| {
                ReadError::Malformed(
                    "Content-Length must be a number written in digits only".into(),
                )
            })?;
            match length {
                Some(m) if m != n => {
                    return Err(ReadError::Malformed(
                        "several Content-Length values that differ".into(),
                    ));
                }
                _ => length = Some(n),
            }
        }
    }
    if has("transfer-encoding") {
        return Err(if length.is_some() {
            ReadError::Malformed("both Content-Length and Transfer-Encoding".into())
        } else {
            ReadError::LengthRequired
        });
    }
    Ok(length.unwrap_or(0))
}

/// Read `request`'s body (after the caller has authenticated its head), refusing one past the
/// bound unread.
pub fn read_body(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    request: &mut Request,
    settings: &Settings,
) -> Result<(), ReadError> {
    if request.body_len > settings.max_body_bytes as u64 {
        return Err(ReadError::BodyTooLarge(request.body_len));
    }
    let length = request.body_len as usize;
    while buf.len() < length {
        fill(stream, buf, request.deadline, length)?;
    }
    request.body = buf.drain(..length).collect();
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn length(headers: &[(&str, &str)]) -> Result<u64, String> {
        let headers: Vec<(String, String)> = headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect();
        body_length(&headers).map_err(|e| format!("{e:?}"))
    }

    #[test]
    fn content_length_is_digits_only_and_one_value() {
        assert_eq!(length(&[]), Ok(0));
        assert_eq!(length(&[("content-length", "42")]), Ok(42));
        assert_eq!(length(&[("content-length", "0042")]), Ok(42));
        // The same value twice (as a list or as two lines) is one length.
        assert_eq!(length(&[("content-length", "7, 7")]), Ok(7));
        assert_eq!(
            length(&[("content-length", "7"), ("content-length", "7")]),
            Ok(7)
        );
        for bad in [
            "+5",
            "-5",
            "5 5",
            "0x10",
            "5.0",
            "",
            " ",
            "1e3",
            "5;x",
            "99999999999999999999",
        ] {
            let e = length(&[("content-length", bad)]).unwrap_err();
            assert!(e.contains("Malformed"), "{bad:?}: {e}");
        }
        let e = length(&[("content-length", "5"), ("content-length", "6")]).unwrap_err();
        assert!(e.contains("differ"), "{e}");
        let e = length(&[("content-length", "5, 6")]).unwrap_err();
        assert!(e.contains("differ"), "{e}");
        let e = length(&[("content-length", "5"), ("transfer-encoding", "chunked")]).unwrap_err();
        assert!(e.contains("both"), "{e}");
        let e = length(&[("transfer-encoding", "chunked")]).unwrap_err();
        assert!(e.contains("LengthRequired"), "{e}");
    }
}
