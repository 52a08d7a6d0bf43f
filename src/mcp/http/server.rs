//! The connection loop: accept, bound connections, then one plain thread per connection reading
//! requests under the front door's bounds (`super::request`) and answering each
//! ([`super::endpoint`]), keep-alive until the client closes, goes idle, breaks a bound or is
//! refused. Each bound, when hit, is answered with its HTTP status and a JSON-RPC error naming
//! the variable that sets it, and audited.
//!
//! Nothing unauthenticated costs more than a header: a request's head is read and
//! authenticated first ([`super::endpoint::admit`]); its body is read only for a known tenant,
//! and a refused request (400, 401, 403, 404) closes its connection, its body unread.
//!
//! Connections are counted per client, and a client is an address block ([`ClientBlock`]: all
//! of loopback is one, an IPv4 address, an IPv6 /64), so that one host cannot pass for many.
//! A connection that has not yet authenticated counts, besides, against two smaller
//! allowances (per client and in all); when a new connection would pass one of them, or the
//! total, the oldest connection that has waited a second without authenticating is closed to
//! make room (a client sends its request at once: one that waits holds a place), so that
//! connections without a token can hold neither a tenant's allowance nor the server's. When
//! none has waited that long, the smaller allowances yield to the newcomer, and only the
//! client's bound (429) and the total (503) refuse it.

use std::collections::BTreeMap;
use std::io;
use std::net::{IpAddr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::FrontDoor;
use super::audit::Audit;
use super::endpoint::{self, Admitted};
use super::request::{self, ReadError};
use super::response::{Response, rpc_error};
use super::settings::Settings;
use crate::mcp::jsonrpc;
use crate::par::lock;
use crate::vocab::ErrorKind;

/// Stack of a connection thread: it parses JSON and waits; the work runs in the workers.
const CONNECTION_STACK: usize = 512 << 10;
/// A client that does not read its answer for this long is cut off.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// A client as the connection bounds count it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ClientBlock {
    /// Every loopback address (`127.0.0.0/8`, `::1`): one host.
    Loopback,
    /// One IPv4 address.
    V4([u8; 4]),
    /// One IPv6 /64, the smallest block a host is usually given.
    V6([u8; 8]),
}

/// The block `ip` belongs to (an IPv4-mapped IPv6 address is its IPv4 address).
pub fn client_block(ip: IpAddr) -> ClientBlock {
    let ip = ip.to_canonical();
    if ip.is_loopback() {
        return ClientBlock::Loopback;
    }
    match ip {
        IpAddr::V4(v4) => ClientBlock::V4(v4.octets()),
        IpAddr::V6(v6) => {
            let mut prefix = [0u8; 8];
            prefix.copy_from_slice(&v6.octets()[..8]);
            ClientBlock::V6(prefix)
        }
    }
}

/// One open connection.
struct Conn {
    /// Its client, or `None` for a trusted proxy's connection (the proxy bounds its clients).
    block: Option<ClientBlock>,
    /// The peer, for the audit line of a connection closed to make room.
    peer: String,
    /// The connection, kept until it authenticates, so that it can be closed to make room.
    unauthenticated: Option<TcpStream>,
    /// When it was accepted.
    since: Instant,
}

/// Every open connection, oldest first.
struct Open {
    next: u64,
    conns: BTreeMap<u64, Conn>,
    /// How long a connection may wait to authenticate before it can be closed to make room:
    /// a client sends its request at once, so only one that waits this long is taken for one
    /// that holds a place.
    grace: Duration,
}

impl Default for Open {
    fn default() -> Open {
        Open {
            next: 0,
            conns: BTreeMap::new(),
            grace: UNAUTHENTICATED_GRACE,
        }
    }
}

/// See [`Open::grace`].
const UNAUTHENTICATED_GRACE: Duration = Duration::from_secs(1);

impl Open {
    fn count(&self, pick: impl Fn(&Conn) -> bool) -> usize {
        self.conns.values().filter(|c| pick(c)).count()
    }

    /// Close the oldest connection that `pick` takes and that has waited the grace period
    /// without authenticating; its peer, if one was closed.
    fn close_oldest(&mut self, pick: impl Fn(&Conn) -> bool) -> Option<String> {
        let id = *self
            .conns
            .iter()
            .find(|(_, c)| {
                c.unauthenticated.is_some() && c.since.elapsed() >= self.grace && pick(c)
            })?
            .0;
        let conn = self.conns.remove(&id)?;
        if let Some(stream) = conn.unauthenticated {
            let _ = stream.shutdown(Shutdown::Both);
        }
        Some(conn.peer)
    }

    /// Count a new connection from `block`, closing the oldest unauthenticated ones it must
    /// (their peers are returned, for the audit), or refuse it.
    fn admit(
        &mut self,
        block: Option<ClientBlock>,
        peer: String,
        stream: TcpStream,
        settings: &Settings,
    ) -> Result<(u64, Vec<String>), Response> {
        let mut closed = Vec::new();
        let mine = |c: &Conn| block.is_some() && c.block == block;
        if self.conns.len() >= settings.max_connections {
            match self.close_oldest(|_| true) {
                Some(peer) => closed.push(peer),
                None => {
                    return Err(bound_error(
                        503,
                        format!(
                            "Server busy: {} connections are open, the most this server keeps \
                             (GNAW_MCP_MAX_CONNECTIONS); retry later",
                            self.conns.len()
                        ),
                    ));
                }
            }
        }
        if block.is_some() {
            let theirs = self.count(mine);
            if theirs >= settings.max_connections_per_client {
                match self.close_oldest(mine) {
                    Some(peer) => closed.push(peer),
                    None => {
                        return Err(bound_error(
                            429,
                            format!(
                                "Too many connections: {theirs} are open from this client, the \
                                 most one client may (GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT; all \
                                 of loopback is one client, and an IPv6 /64); reuse a \
                                 connection or close one"
                            ),
                        ));
                    }
                }
            }
            if self.count(|c| mine(c) && c.unauthenticated.is_some())
                >= settings.max_unauthenticated_per_client
            {
                closed.extend(self.close_oldest(mine));
            }
        }
        if self.count(|c| c.unauthenticated.is_some()) >= settings.max_unauthenticated_connections {
            closed.extend(self.close_oldest(|_| true));
        }
        let id = self.next;
        self.next += 1;
        self.conns.insert(
            id,
            Conn {
                block,
                peer,
                unauthenticated: Some(stream),
                since: Instant::now(),
            },
        );
        Ok((id, closed))
    }
}

/// A connection's place in [`Open`], released when its thread ends.
struct Slot {
    open: Arc<Mutex<Open>>,
    id: u64,
}

impl Slot {
    /// The connection authenticated: it no longer counts against the unauthenticated
    /// allowances, and is never closed to make room.
    fn authenticated(&self) {
        if let Some(conn) = lock(&self.open).conns.get_mut(&self.id) {
            conn.unauthenticated = None;
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        lock(&self.open).conns.remove(&self.id);
    }
}

/// A bound's refusal: its status, and a JSON-RPC error naming the variable that sets it.
fn bound_error(status: u16, message: String) -> Response {
    let (code, kind) = match status {
        429 | 503 => (jsonrpc::BUSY, ErrorKind::Busy),
        _ => (jsonrpc::INVALID_REQUEST, ErrorKind::HttpBound),
    };
    rpc_error(status, &Value::Null, code, message, kind)
}

/// Serve until the listener fails.
pub fn run(listener: TcpListener, door: Arc<FrontDoor>) -> io::Result<()> {
    let open: Arc<Mutex<Open>> = Arc::default();
    // The fleet's monitor: idle workers to sleep, the memory budget kept, every second.
    {
        let door = Arc::clone(&door);
        std::thread::Builder::new()
            .name("gnaw-mcp-fleet".into())
            .stack_size(CONNECTION_STACK)
            .spawn(move || {
                loop {
                    std::thread::sleep(Duration::from_secs(1));
                    door.fleet.tick();
                }
            })?;
    }
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
        let ip = peer.ip().to_canonical();
        // A trusted proxy carries many clients on its connections; it bounds them itself.
        let block = (!settings.trusted_proxies.contains(&ip)).then(|| client_block(ip));
        // A second handle, to close the connection if it must make room before it
        // authenticates; without one (out of descriptors) it is not taken at all.
        let handle = match stream.try_clone() {
            Ok(handle) => handle,
            Err(e) => {
                log::warn!("a connection was closed at once: no descriptor for it ({e})");
                continue;
            }
        };
        let admitted = lock(&open).admit(block, peer.to_string(), handle, settings);
        let id = match admitted {
            Ok((id, closed)) => {
                for peer in closed {
                    let mut audit = Audit::new(peer);
                    audit.refuse_at(
                        0,
                        "max_unauthenticated_connections",
                        "closed unauthenticated to make room for a new connection",
                    );
                    door.finish(&audit);
                }
                id
            }
            Err(response) => {
                let mut audit = Audit::new(peer.to_string());
                let bound = if response.status == 429 {
                    "max_connections_per_client"
                } else {
                    "max_connections"
                };
                audit.refuse_at(response.status, bound, "connection bound");
                let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
                audit.bytes = response.send(&mut stream, true).unwrap_or(0);
                door.finish(&audit);
                continue;
            }
        };
        let slot = Slot {
            open: Arc::clone(&open),
            id,
        };
        let door = Arc::clone(&door);
        let spawned = std::thread::Builder::new()
            .name("gnaw-mcp-http".into())
            .stack_size(CONNECTION_STACK)
            .spawn(move || connection(&door, stream, peer, &slot));
        if let Err(e) = spawned {
            log::warn!("no thread for a connection: {e}");
        }
    }
}

/// The refusal of a request that could not be read, or `None` to close quietly.
fn unread(e: ReadError, settings: &Settings) -> Option<Response> {
    let (status, message) = match e {
        ReadError::Closed => return None,
        ReadError::HeadTooLarge => (
            431,
            format!(
                "Request head too large: more than {} bytes of request line and headers \
                 (GNAW_MCP_MAX_HEADER_BYTES)",
                settings.max_header_bytes
            ),
        ),
        ReadError::BodyTooLarge(len) => (
            413,
            format!(
                "Request too large: a body of {len} bytes exceeds the limit of {} bytes \
                 (GNAW_MCP_MAX_LINE_BYTES); it was not read",
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
            "Length required: send the body with Content-Length (chunked request bodies are \
             not accepted)"
                .to_string(),
        ),
        ReadError::Malformed(why) => (400, format!("Bad request: {why}")),
    };
    Some(bound_error(status, message))
}

/// Send a refusal of a request that could not be read, audit it; the connection then closes.
fn refuse_unread(door: &FrontDoor, stream: &mut TcpStream, client: &str, e: ReadError) {
    let Some(response) = unread(e, &door.settings) else {
        return;
    };
    let mut audit = Audit::new(client.to_string());
    let why = String::from_utf8_lossy(&response.body).into_owned();
    let why = why
        .split("\"message\":\"")
        .nth(1)
        .and_then(|m| m.split(':').next())
        .unwrap_or("unreadable request")
        .to_string();
    audit.refuse(response.status, why);
    audit.bound = match response.status {
        431 => Some("max_header_bytes"),
        413 => Some("max_line_bytes"),
        408 => Some("header_timeout_ms"),
        _ => None,
    };
    audit.bytes = response.send(stream, true).unwrap_or(0);
    door.finish(&audit);
}

/// Serve one connection's requests.
fn connection(door: &FrontDoor, mut stream: TcpStream, peer: SocketAddr, slot: &Slot) {
    // The peer as accept() gave it (a trusted proxy's own address, not its client's; the
    // confined front door may not ask the socket again).
    let peer_ip = peer.ip().to_canonical();
    let client = peer.to_string();
    let settings = &door.settings;
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let mut buf = Vec::new();
    let mut idle = settings.header_timeout;
    loop {
        let mut request = match request::read_head(&mut stream, &mut buf, settings, idle) {
            Ok(request) => request,
            Err(e) => return refuse_unread(door, &mut stream, &client, e),
        };
        let mut audit = Audit::new(client.clone());
        audit.from_request(&request, &settings.trusted_proxies);
        let tenant = match endpoint::admit(door, &request, &mut audit, peer_ip) {
            Admitted::Tenant(tenant) => tenant,
            Admitted::Answer(response) => {
                // Public answers (the metadata document) keep the connection when nothing
                // of the request is left unread.
                let close = request.wants_close() || request.body_unread();
                audit.bytes = response.send(&mut stream, close).unwrap_or(0);
                door.finish(&audit);
                if close {
                    return;
                }
                idle = settings.idle_timeout;
                continue;
            }
            Admitted::Refused(response) => {
                // Refused on its head: the body is never read, and the connection closes.
                audit.bytes = response.send(&mut stream, true).unwrap_or(0);
                door.finish(&audit);
                return;
            }
        };
        slot.authenticated();
        if let Err(e) = request::read_body(&mut stream, &mut buf, &mut request, settings) {
            door.finish(&audit);
            return refuse_unread(door, &mut stream, &client, e);
        }
        let keep = endpoint::handle(door, tenant, &request, &mut stream, &mut audit);
        door.finish(&audit);
        match keep {
            Ok(true) => idle = settings.idle_timeout,
            Ok(false) | Err(_) => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_are_address_blocks() {
        let b = |s: &str| client_block(s.parse().unwrap());
        assert_eq!(b("127.0.0.1"), ClientBlock::Loopback);
        assert_eq!(b("127.0.0.9"), ClientBlock::Loopback);
        assert_eq!(b("::1"), ClientBlock::Loopback);
        assert_eq!(b("::ffff:127.0.0.2"), ClientBlock::Loopback);
        assert_eq!(b("192.0.2.1"), b("::ffff:192.0.2.1"));
        assert_ne!(b("192.0.2.1"), b("192.0.2.2"));
        assert_eq!(b("2001:db8:1:2::1"), b("2001:db8:1:2:ffff::9"));
        assert_ne!(b("2001:db8:1:2::1"), b("2001:db8:1:3::1"));
    }

    #[test]
    fn the_oldest_unauthenticated_connection_makes_room_and_authenticated_ones_never_do() {
        let settings = Settings {
            max_connections: 4,
            max_connections_per_client: 3,
            max_unauthenticated_per_client: 2,
            max_unauthenticated_connections: 3,
            ..Settings::default()
        };
        let lo = Some(ClientBlock::Loopback);
        let other = Some(ClientBlock::V4([192, 0, 2, 1]));
        // A new connection is unauthenticated (it holds its stream until it authenticates).
        let new = |open: &mut Open, block, peer: &str| {
            open.admit(block, peer.into(), dummy_stream(), &settings)
        };
        let open_now = || Open {
            grace: Duration::ZERO,
            ..Open::default()
        };
        // Two unauthenticated from loopback fill its allowance; a third closes the oldest.
        let mut open = open_now();
        new(&mut open, lo, "a").unwrap();
        new(&mut open, lo, "b").unwrap();
        let (_, closed) = new(&mut open, lo, "c").unwrap();
        assert_eq!(closed, ["a"]);
        // The total of unauthenticated ones is bounded across clients too.
        let (_, closed) = new(&mut open, other, "d").unwrap();
        assert!(closed.is_empty(), "{closed:?}");
        let (_, closed) = new(&mut open, other, "e").unwrap();
        assert_eq!(closed, ["b"], "the oldest of all");
        // A client at its bound whose connections have not authenticated: the oldest makes
        // room.
        let roomy = Settings {
            max_unauthenticated_per_client: 32,
            ..settings.clone()
        };
        let mut open = open_now();
        for p in ["p", "q", "r"] {
            open.admit(lo, p.into(), dummy_stream(), &roomy).unwrap();
        }
        let (_, closed) = open.admit(lo, "s".into(), dummy_stream(), &roomy).unwrap();
        assert_eq!(closed, ["p"]);
        // Authenticated connections are never closed: three authenticated from loopback, and
        // a fourth is refused (429).
        let mut open = open_now();
        for p in ["x", "y", "z"] {
            let (id, _) = new(&mut open, lo, p).unwrap();
            open.conns.get_mut(&id).unwrap().unauthenticated = None;
        }
        assert_eq!(new(&mut open, lo, "w").unwrap_err().status, 429);
        // Another client is admitted until the total is reached, then refused (503) once no
        // unauthenticated connection is left to close.
        let (id, _) = new(&mut open, other, "o").unwrap();
        open.conns.get_mut(&id).unwrap().unauthenticated = None;
        assert_eq!(new(&mut open, other, "p").unwrap_err().status, 503);
    }

    #[test]
    fn a_connection_that_just_arrived_is_never_closed_to_make_room() {
        let settings = Settings {
            max_unauthenticated_per_client: 1,
            ..Settings::default()
        };
        let mut open = Open::default();
        let lo = Some(ClientBlock::Loopback);
        for p in ["a", "b", "c"] {
            let (_, closed) = open.admit(lo, p.into(), dummy_stream(), &settings).unwrap();
            assert!(closed.is_empty(), "{p}: {closed:?}");
        }
        // Past the grace period, the oldest makes room.
        for conn in open.conns.values_mut() {
            conn.since -= UNAUTHENTICATED_GRACE;
        }
        let (_, closed) = open
            .admit(lo, "d".into(), dummy_stream(), &settings)
            .unwrap();
        assert_eq!(closed, ["a"]);
    }

    /// A connected stream to nowhere in particular: a listener on an ephemeral loopback port.
    fn dummy_stream() -> TcpStream {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        TcpStream::connect(listener.local_addr().unwrap()).unwrap()
    }
}
