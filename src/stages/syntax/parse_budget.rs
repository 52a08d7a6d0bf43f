//! The parse budget of one call, and the memory of files that hit a parse bound.
//!
//! - A [`ParseBudget`] is made once per tool call (or CLI run) and shared by every file the call
//!   parses, on every thread: at most [`CALL_PARSE_TIME`] of parsing in all (the sum of the
//!   parses' CPU times, so that a machine busy with other work makes a call slower, never
//!   parse fewer files; the time waited for a parse that gave none, a worker that died or was
//!   given up) and [`CALL_PARSE_BYTES`] of input. Once spent, the remaining files are
//!   not parsed ([`super::Outline::Skipped`] with the reason), and the caller says so.
//! - [`remember`] and [`recall`] keep, by content hash and language, the files whose parse hit
//!   its own time or memory bound, so the next call skips them at once instead of paying again.
//!   The table is bounded ([`MAX_REMEMBERED`] entries, cleared when full).

use super::Language;
use crate::par::lock;
use rustc_hash::FxHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

/// Most parsing time one call may spend: the CPU time of its parses, summed.
pub const CALL_PARSE_TIME: Duration = Duration::from_secs(3);
/// Most input bytes one call may parse, summed over its files.
pub const CALL_PARSE_BYTES: u64 = 64 << 20;
/// Most files remembered as having hit a parse bound.
pub const MAX_REMEMBERED: usize = 65_536;

/// What one call may still spend on parsing. Shared by reference between the call's threads.
#[derive(Debug)]
pub struct ParseBudget {
    time_left_ns: AtomicU64,
    bytes_left: AtomicU64,
    spent: AtomicBool,
    time: Duration,
    bytes: u64,
    /// Files of this call that a grammar was meant to parse and did not, and the first reason.
    not_parsed: Mutex<(usize, Option<String>)>,
}

impl Default for ParseBudget {
    fn default() -> ParseBudget {
        ParseBudget::new(CALL_PARSE_TIME, CALL_PARSE_BYTES)
    }
}

impl ParseBudget {
    /// A budget of `time` of parsing and `bytes` of input.
    pub fn new(time: Duration, bytes: u64) -> ParseBudget {
        ParseBudget {
            time_left_ns: AtomicU64::new(u64::try_from(time.as_nanos()).unwrap_or(u64::MAX)),
            bytes_left: AtomicU64::new(bytes),
            spent: AtomicBool::new(false),
            time,
            bytes,
            not_parsed: Mutex::new((0, None)),
        }
    }

    /// Take `len` bytes for one parse; `None` (and the budget marked spent) when the bytes or
    /// the time are gone. On success, the time this parse may take at most.
    pub(super) fn take(&self, len: usize) -> Option<Duration> {
        let len = len as u64;
        let time_left = self.time_left_ns.load(Ordering::Relaxed);
        let took = self
            .bytes_left
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(len)
            });
        if time_left == 0 || took.is_err() {
            self.spent.store(true, Ordering::Relaxed);
            return None;
        }
        Some(Duration::from_nanos(time_left))
    }

    /// Charge `took` of parsing time.
    pub(super) fn charge(&self, took: Duration) {
        let took = u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
        let _ = self
            .time_left_ns
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                Some(left.saturating_sub(took))
            });
    }

    /// The parsing time charged so far.
    pub fn time_charged(&self) -> Duration {
        self.time.saturating_sub(Duration::from_nanos(
            self.time_left_ns.load(Ordering::Relaxed),
        ))
    }

    /// Whether some file of this call was not parsed because the budget was spent.
    pub fn was_spent(&self) -> bool {
        self.spent.load(Ordering::Relaxed)
    }

    /// Count a file of this call that was not parsed, for `reason`.
    pub(super) fn note_not_parsed(&self, reason: &str) {
        let mut seen = lock(&self.not_parsed);
        seen.0 += 1;
        if seen.1.is_none() {
            seen.1 = Some(reason.to_string());
        }
    }

    /// What an answer says of the files this call did not parse: how many, and the first
    /// reason (`None` when every file it tried parsed).
    pub fn not_parsed(&self) -> Option<String> {
        let seen = lock(&self.not_parsed);
        let reason = seen.1.as_deref()?;
        let n = seen.0;
        Some(format!(
            "{n} file{} not parsed ({}{reason})",
            if n == 1 { "" } else { "s" },
            if n == 1 { "" } else { "first: " },
        ))
    }

    /// Why a file was not parsed once the budget is spent.
    pub fn spent_reason(&self) -> String {
        format!(
            "this call's parse budget ({} ms of parsing, {} MiB of input, for all its files) is spent",
            self.time.as_millis(),
            self.bytes >> 20
        )
    }
}

/// A file's identity for [`remember`]: its language and a hash of its text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct ContentKey {
    lang: Language,
    len: usize,
    hash: u64,
}

impl ContentKey {
    pub(super) fn of(lang: Language, text: &str) -> ContentKey {
        let mut h = FxHasher::default();
        text.as_bytes().hash(&mut h);
        ContentKey {
            lang,
            len: text.len(),
            hash: h.finish(),
        }
    }
}

static REMEMBERED: Mutex<Option<HashMap<ContentKey, String>>> = Mutex::new(None);

/// Remember that the file `key` hit a parse bound, for `reason`.
pub(super) fn remember(key: ContentKey, reason: &str) {
    let mut table = lock(&REMEMBERED);
    let map = table.get_or_insert_with(HashMap::new);
    if map.len() >= MAX_REMEMBERED {
        map.clear();
    }
    map.insert(key, reason.to_string());
}

/// The bound the file `key` hit in an earlier call, if it did.
pub(super) fn recall(key: ContentKey) -> Option<String> {
    lock(&REMEMBERED)
        .as_ref()
        .and_then(|map| map.get(&key).cloned())
}
