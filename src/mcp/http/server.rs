//! The connection loop: accept, bound connections (in all and per client address), then one
//! plain thread per connection reading requests under the front door's bounds
//! ([`super::request`]) and answering each ([`super::endpoint`]), keep-alive until the client
//! closes, goes idle or breaks a bound. Each bound, when hit, is answered with its HTTP status
//! and a JSON-RPC error naming the variable that sets it, and audited.

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use super::FrontDoor;
use super::audit::Audit;
use super::endpoint;
use super::request::{self, ReadError};
use super::response::Response;
use crate::mcp::jsonrpc::{self, RpcError};
use crate::par::lock;
use crate::vocab::ErrorKind;

/// Stack of a connection thread: it parses JSON and waits; the work runs in the workers.
const CONNECTION_STACK: usize = 512 << 10;
/// A client that does not read its answer for this long is cut off.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// Open connections, in all and per client address.
#[derive(Default)]
struct Open {
    total: usize,
    per_client: HashMap<IpAddr, usize>,
}

/// Releases a connection's slot when its thread ends.
struct Slot {
    open: Arc<Mutex<Open>>,
    /// The client address counted, or `None` for a trusted proxy's connection.
    ip: Option<IpAddr>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = lock(&self.open);
        open.total -= 1;
        let Some(ip) = self.ip else { return };
        if let Some(n) = open.per_client.get_mut(&ip) {
            *n -= 1;
            if *n == 0 {
                open.per_client.remove(&ip);
            }
        }
    }
}

fn bound_error(status: u16, message: String, kind: ErrorKind) -> Response {
    let error = RpcError::new(
        if status == 429 || status == 503 {
            jsonrpc::SERVER_BUSY
        } else {
            jsonrpc::INVALID_REQUEST
        },
        message.clone(),
    )
    .with_data(json!({ "kind": kind, "message": message }));
    Response::json(status, &jsonrpc::error(&Value::Null, &error))
}

/// Serve until the listener fails.
pub fn run(listener: TcpListener, door: Arc<FrontDoor>) -> io::Result<()> {
    let open: Arc<Mutex<Open>> = Arc::default();
    let settings = &door.settings;
    loop {
        let (mut stream, peer) = match listener.accept() {
            Ok(pair) => pair,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                // Out of descriptors, most likely: wait instead of spinning.
                log::warn!("accept failed: {e}");
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
        };
        // `::ffff:127.0.0.1` on a `[::]` listener is 127.0.0.1, for the bounds and the list.
        let ip = peer.ip().to_canonical();
        // A trusted proxy carries many clients on its connections; it bounds them itself.
        let proxy = settings.trusted_proxies.contains(&ip);
        let refusal = {
            let mut o = lock(&open);
            let mine = o.per_client.get(&ip).copied().unwrap_or(0);
            if o.total >= settings.max_connections {
                Some(bound_error(
                    503,
                    format!(
                        "Server busy: {} connections are open, the most this server keeps \
                         (GNAW_MCP_MAX_CONNECTIONS); retry later",
                        o.total
                    ),
                    ErrorKind::Busy,
                ))
            } else if !proxy && mine >= settings.max_connections_per_client {
                Some(bound_error(
                    429,
                    format!(
                        "Too many connections: {mine} are open from this address, the most one \
                         client address may (GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT); reuse a \
                         connection or close one"
                    ),
                    ErrorKind::Busy,
                ))
            } else {
                o.total += 1;
                if !proxy {
                    *o.per_client.entry(ip).or_insert(0) += 1;
                }
                None
            }
        };
        if let Some(response) = refusal {
            let mut audit = Audit::new(peer.to_string());
            audit.refuse(response.status, "connection bound");
            let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
            audit.bytes = response.send(&mut stream, true).unwrap_or(0);
            audit.emit(&door.audit);
            continue;
        }
        let slot = Slot {
            open: Arc::clone(&open),
            ip: (!proxy).then_some(ip),
        };
        let door = Arc::clone(&door);
        let spawned = std::thread::Builder::new()
            .name("gnaw-mcp-http".into())
            .stack_size(CONNECTION_STACK)
            .spawn(move || {
                let _slot = slot;
                connection(&door, stream, peer.to_string());
            });
        if let Err(e) = spawned {
            log::warn!("no thread for a connection: {e}");
        }
    }
}

/// Serve one connection's requests.
fn connection(door: &FrontDoor, mut stream: TcpStream, client: String) {
    let settings = &door.settings;
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let mut buf = Vec::new();
    let mut idle = settings.header_timeout;
    loop {
        let request = match request::read(&mut stream, &mut buf, settings, idle) {
            Ok(request) => request,
            Err(ReadError::Closed) => return,
            Err(e) => {
                let (status, message) = match e {
                    ReadError::HeadTooLarge => (
                        431,
                        format!(
                            "Request head too large: more than {} bytes of request line and \
                             headers (GNAW_MCP_MAX_HEADER_BYTES)",
                            settings.max_header_bytes
                        ),
                    ),
                    ReadError::BodyTooLarge(len) => (
                        413,
                        format!(
                            "Request too large: a body of {len} bytes exceeds the limit of {} \
                             bytes (GNAW_MCP_MAX_LINE_BYTES); it was not read",
                            settings.max_body_bytes
                        ),
                    ),
                    ReadError::Timeout => (
                        408,
                        format!(
                            "Request timeout: the request did not arrive within {} ms \
                             (GNAW_MCP_HEADER_TIMEOUT_MS)",
                            settings.header_timeout.as_millis()
                        ),
                    ),
                    ReadError::LengthRequired => (
                        411,
                        "Length required: send the body with Content-Length (chunked request \
                         bodies are not accepted)"
                            .to_string(),
                    ),
                    ReadError::Malformed(why) => (400, format!("Bad request: {why}")),
                    ReadError::Closed => return,
                };
                let mut audit = Audit::new(client.clone());
                audit.refuse(status, message.split(':').next().unwrap_or_default());
                audit.bytes = bound_error(status, message, ErrorKind::HttpBound)
                    .send(&mut stream, true)
                    .unwrap_or(0);
                audit.emit(&door.audit);
                return;
            }
        };
        let mut audit = Audit::new(client.clone());
        audit.from_request(&request, &settings.trusted_proxies);
        let keep = endpoint::handle(door, &request, &mut stream, &mut audit);
        audit.emit(&door.audit);
        match keep {
            Ok(true) => idle = settings.idle_timeout,
            Ok(false) | Err(_) => return,
        }
    }
}
