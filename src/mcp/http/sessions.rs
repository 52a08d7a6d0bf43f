//! Legacy sessions (2025-03-26 through 2025-11-25): `initialize` opens one, named by a random
//! `Mcp-Session-Id` (32 bytes from the OS), bound to the tenant whose token opened it. A
//! session id presented with another tenant's token is unknown (404), exactly as a made-up
//! one. A session unused for [`Settings::session_idle`] ends; each tenant holds at most
//! [`Settings::max_sessions_per_tenant`].
//!
//! A session keeps what the stdio server keeps per process: the negotiated revision and the
//! client's name; the front door passes them with each of the session's requests
//! ([`SESSION_META`]), since one worker serves all of a tenant's sessions.
//!
//! [`Settings::session_idle`]: super::settings::Settings::session_idle
//! [`Settings::max_sessions_per_tenant`]: super::settings::Settings::max_sessions_per_tenant

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::par::lock;

pub use crate::mcp::session_meta::SESSION_META;

/// One open session.
#[derive(Debug)]
pub struct Session {
    /// The key of the tenant that opened it ([`super::upstream::Upstream::key`]).
    pub tenant: u64,
    /// The revision `initialize` negotiated.
    pub version: String,
    /// `clientInfo.name`, if given.
    pub client: Option<String>,
    /// Whether a GET stream is open.
    pub streaming: AtomicBool,
    /// Set when the session ends (DELETE or expiry): its GET stream closes.
    pub ended: AtomicBool,
    /// The session's requests in flight: the client's id (as JSON text) -> the front door's,
    /// for `notifications/cancelled`.
    pub calls: Mutex<HashMap<String, String>>,
    last_used: Mutex<Instant>,
}

/// Every open session.
#[derive(Default)]
pub struct Sessions {
    map: Mutex<HashMap<String, Arc<Session>>>,
}

/// Why no session was opened.
#[derive(Debug)]
pub enum OpenError {
    /// The tenant holds the most sessions it may.
    Full { limit: usize },
    /// No random bytes.
    Random(String),
}

impl Sessions {
    /// Open a session for `tenant`; its id.
    pub fn open(
        &self,
        tenant: u64,
        version: String,
        client: Option<String>,
        limit: usize,
        idle: Duration,
    ) -> Result<String, OpenError> {
        let id = super::tenants::random_hex(32).map_err(OpenError::Random)?;
        let mut map = lock(&self.map);
        expire(&mut map, idle);
        if map.values().filter(|s| s.tenant == tenant).count() >= limit {
            return Err(OpenError::Full { limit });
        }
        map.insert(
            id.clone(),
            Arc::new(Session {
                tenant,
                version,
                client,
                streaming: AtomicBool::new(false),
                ended: AtomicBool::new(false),
                calls: Mutex::default(),
                last_used: Mutex::new(Instant::now()),
            }),
        );
        Ok(id)
    }

    /// The session `id` when `tenant` owns it and it has not expired.
    pub fn get(&self, id: &str, tenant: u64, idle: Duration) -> Option<Arc<Session>> {
        let mut map = lock(&self.map);
        expire(&mut map, idle);
        let session = map.get(id).filter(|s| s.tenant == tenant)?;
        *lock(&session.last_used) = Instant::now();
        Some(Arc::clone(session))
    }

    /// End session `id` if `tenant` owns it; whether it did.
    pub fn end(&self, id: &str, tenant: u64) -> bool {
        let mut map = lock(&self.map);
        match map.get(id) {
            Some(s) if s.tenant == tenant => {
                s.ended.store(true, Ordering::SeqCst);
                map.remove(id);
                true
            }
            _ => false,
        }
    }
}

impl Sessions {
    /// End every session of the tenants whose keys `gone` holds (removed or changed at a
    /// reload); how many.
    pub fn end_tenants(&self, gone: &[u64]) -> usize {
        let mut map = lock(&self.map);
        let before = map.len();
        map.retain(|_, s| {
            let keep = !gone.contains(&s.tenant);
            if !keep {
                s.ended.store(true, Ordering::SeqCst);
            }
            keep
        });
        before - map.len()
    }
}

fn expire(map: &mut HashMap<String, Arc<Session>>, idle: Duration) {
    map.retain(|_, s| {
        let keep = lock(&s.last_used).elapsed() < idle;
        if !keep {
            s.ended.store(true, Ordering::SeqCst);
        }
        keep
    });
}
