//! The tenants' workers as one fleet on one host: how many run, how much memory they hold,
//! which sleeps.
//!
//! - **The tenancy** ([`Tenancy`]): who may call and each tenant's [`Upstream`], as the tenants
//!   file says now. A request takes the current one when its head is authenticated and keeps it
//!   to its end; a reload replaces it whole ([`Fleet::replace`]), so a request never sees half
//!   of each.
//! - **Workers sleep when idle**: a worker with no request for
//!   `GNAW_MCP_WORKER_IDLE_SECS` is put to sleep by the monitor ([`Fleet::tick`]), and the
//!   tenant's next request starts a new one.
//! - **A bound on live workers** (`GNAW_MCP_MAX_WORKERS`): a tenant that needs a worker when the
//!   fleet runs the most it may first puts the least recently used idle worker of another
//!   tenant to sleep; with none idle it is refused (503, `Retry-After`) ([`Fleet::admit`]).
//!   Starts are serialized, so the bound holds exactly.
//! - **One memory budget** (`GNAW_MCP_FLEET_MEMORY`): each new worker's warm-cache bound is
//!   derived from it and the number of live workers ([`cache_share`]); a start that would pass
//!   it puts the least recently used idle worker to sleep first, or waits (503, `Retry-After`)
//!   when none is idle; and when the workers' resident memory (read by the spawners from
//!   `/proc`, every second) is over it, the least recently used idle workers are put to sleep
//!   until it is not.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use super::guard::Caller;
use super::request::Request;
use super::settings::Settings;
use super::tenants::Tenants;
use super::upstream::{Refusal, Upstream};
use crate::par::lock;
use gnaw_sandbox::spawner::Spawner;

/// Resident memory of a worker with its parse workers, before its cache holds much (measured:
/// a debug build on a small root, 40 MB after one call, 71 MB after one of every tool, each of
/// its four processes counted whole): what the fleet's budget keeps for each worker beside its
/// cache, and what a start is taken to add until the next measure.
pub const WORKER_BASE_BYTES: u64 = 48 << 20;

/// The least warm cache a worker is given, however many share the budget.
pub const MIN_CACHE_BYTES: u64 = 8 << 20;

/// A new worker is admitted while the fleet's memory (measured, plus what each start since adds)
/// is under this share of the budget, in percent; the rest is for the workers' growth until the
/// next measure, a second later.
pub const ADMIT_PERCENT: u64 = 75;

/// Past this share of the budget, in percent, idle workers are put to sleep, least recently used
/// first, until the fleet is under [`ADMIT_PERCENT`] again.
pub const TRIM_PERCENT: u64 = 85;

/// `percent` of `budget` bytes, rounded down (exact: 75% of 64 MiB is 48 MiB, a worker's base).
fn share_of(budget: u64, percent: u64) -> u64 {
    u64::try_from(u128::from(budget) * u128::from(percent) / 100).unwrap_or(u64::MAX)
}

/// Who may call, and each tenant's worker, as the tenants file says now.
pub struct Tenancy {
    /// `None` with `--unauthenticated-loopback`: every caller is the one tenant.
    pub tenants: Option<Tenants>,
    /// One per tenant, in the tenants' order.
    pub upstreams: Vec<Arc<Upstream>>,
    /// The spawner of this generation (a tenant kept from an earlier one keeps its own).
    pub spawner: Arc<Spawner>,
}

impl Tenancy {
    /// The tenant of `request`'s bearer token ([`super::guard::authenticate`]).
    pub fn authenticate(&self, request: &Request) -> Result<Arc<Upstream>, Caller> {
        match super::guard::authenticate(request, self.tenants.as_ref()) {
            Caller::Tenant(i) => self.upstreams.get(i).cloned().ok_or(Caller::Invalid),
            other => Err(other),
        }
    }
}

/// The fleet's counters, for `/metrics`.
#[derive(Debug, Default)]
pub struct FleetCounts {
    /// Workers put to sleep to keep the fleet under its memory budget.
    pub slept_for_memory: AtomicU64,
    /// Workers put to sleep to make room under the bound on live workers.
    pub slept_for_room: AtomicU64,
    /// Starts refused at the bound on live workers.
    pub refused: AtomicU64,
    /// The workers' resident memory at the last measure, in bytes.
    pub memory_bytes: AtomicU64,
    /// What a worker holds once it has served a call, at the last measure: as much as nine in
    /// ten workers hold at most, at least [`WORKER_BASE_BYTES`].
    pub worker_bytes: AtomicU64,
    /// The workers' memory at the last measure, each counted as at least
    /// [`FleetCounts::worker_bytes`].
    pub reserved_bytes: AtomicU64,
}

/// The fleet.
pub struct Fleet {
    current: RwLock<Arc<Tenancy>>,
    /// Held while a worker starts, so that the bound on live workers holds exactly.
    starting: Mutex<()>,
    idle: Duration,
    /// The operator's own cache bound: a worker's share of the budget never passes it.
    cache_bytes: u64,
    max_workers: usize,
    memory: Option<u64>,
    /// Workers started since the memory was last measured.
    started_since_measure: AtomicU64,
    pub counts: FleetCounts,
}

impl Fleet {
    /// The fleet of `tenancy`'s workers under `settings`; `cache_bytes`, the operator's
    /// `GNAW_MCP_CACHE_BYTES`, bounds each worker's share of the memory budget.
    pub fn new(tenancy: Tenancy, settings: &Settings, cache_bytes: u64) -> Fleet {
        Fleet {
            cache_bytes,
            current: RwLock::new(Arc::new(tenancy)),
            starting: Mutex::new(()),
            idle: settings.worker_idle,
            max_workers: settings.max_workers,
            memory: settings.fleet_memory,
            started_since_measure: AtomicU64::new(0),
            counts: FleetCounts::default(),
        }
    }

    /// The tenancy now.
    pub fn tenancy(&self) -> Arc<Tenancy> {
        Arc::clone(&self.current.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Replace the tenancy (a reload); the old one.
    pub fn replace(&self, next: Tenancy) -> Arc<Tenancy> {
        let mut current = self.current.write().unwrap_or_else(|p| p.into_inner());
        std::mem::replace(&mut *current, Arc::new(next))
    }

    /// Workers running now, and tenants whose worker sleeps (or never started).
    pub fn workers(&self) -> (usize, usize) {
        let tenancy = self.tenancy();
        let live = tenancy
            .upstreams
            .iter()
            .filter(|u| u.running() != Some(false))
            .count();
        (live, tenancy.upstreams.len() - live)
    }

    /// Start `asking`'s worker with `start` (given its cache bound), if the fleet may run one
    /// more: at the bound on live workers, the least recently used idle worker of another
    /// tenant is put to sleep first; with none idle, refused.
    pub fn admit(
        &self,
        asking: &Upstream,
        start: &mut dyn FnMut(Option<u64>) -> Result<(), Refusal>,
    ) -> Result<(), Refusal> {
        let _one_at_a_time = lock(&self.starting);
        let tenancy = self.tenancy();
        // The asking tenant's lock is held by its caller: it counts as not running.
        let others = || {
            tenancy
                .upstreams
                .iter()
                .filter(|u| !std::ptr::eq(u.as_ref(), asking))
        };
        let live = others().filter(|u| u.running() != Some(false)).count();
        if live >= self.max_workers {
            let made_room = self.sleep_least_recent(others(), 1) == 1;
            if !made_room {
                self.counts.refused.fetch_add(1, Ordering::Relaxed);
                return Err(Refusal::Workers {
                    max: self.max_workers,
                });
            }
            self.counts.slept_for_room.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(budget) = self.memory {
            // The workers' memory as last measured (each at least as large as nine in ten
            // workers, which a young worker grows to), and what each start since adds (as
            // much): past ADMIT_PERCENT of the budget, an idle worker sleeps first; with none
            // idle, the start waits.
            let each = self
                .counts
                .worker_bytes
                .load(Ordering::Relaxed)
                .max(WORKER_BASE_BYTES);
            let projected = self.counts.reserved_bytes.load(Ordering::Relaxed)
                + (self.started_since_measure.load(Ordering::Relaxed) + 1) * each;
            if projected > share_of(budget, ADMIT_PERCENT) {
                if self.sleep_least_recent(others(), 1) == 0 {
                    self.counts.refused.fetch_add(1, Ordering::Relaxed);
                    return Err(Refusal::Memory { budget });
                }
                self.counts.slept_for_memory.fetch_add(1, Ordering::Relaxed);
                log::info!(
                    "an idle worker was put to sleep to keep the fleet under \
                     GNAW_MCP_FLEET_MEMORY ({} MiB) before tenant {} starts one",
                    budget >> 20,
                    asking.name()
                );
            }
        }
        let live_after = (live + 1).min(self.max_workers);
        start(
            self.memory
                .map(|m| cache_share(m, live_after).min(self.cache_bytes)),
        )?;
        self.started_since_measure.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Put to sleep, least recently used first, up to `n` idle workers of `upstreams`; how
    /// many were.
    fn sleep_least_recent<'a>(
        &self,
        upstreams: impl Iterator<Item = &'a Arc<Upstream>>,
        n: usize,
    ) -> usize {
        let mut idle: Vec<&Arc<Upstream>> = upstreams
            .filter(|u| u.running() == Some(true) && u.in_flight() == 0)
            .collect();
        idle.sort_by_key(|u| u.last_used());
        idle.iter()
            .filter_map(|u| u.sleep_if_idle(Duration::ZERO))
            .take(n)
            .count()
    }

    /// One pass of the monitor: put to sleep every worker idle for the idle time; then, with a
    /// memory budget, measure the workers and put the least recently used idle ones to sleep
    /// while their sum is over it.
    pub fn tick(&self) {
        let tenancy = self.tenancy();
        for upstream in &tenancy.upstreams {
            upstream.sleep_if_idle(self.idle);
        }
        // Every worker's resident memory (those on their way out too), from the spawners of
        // this tenancy's upstreams.
        let mut spawners: Vec<&Arc<Spawner>> = Vec::new();
        for upstream in &tenancy.upstreams {
            if !spawners.iter().any(|s| Arc::ptr_eq(s, upstream.spawner())) {
                spawners.push(upstream.spawner());
            }
        }
        let measured: Vec<(u32, u64)> = spawners.iter().flat_map(|s| s.usage()).collect();
        let mut total: u64 = measured.iter().map(|(_, rss)| rss).sum();
        self.counts.memory_bytes.store(total, Ordering::Relaxed);
        // What a worker holds once it has served a call (nine in ten measured hold no more; at
        // least its base), and what the fleet holds counting each worker as at least that
        // much: a worker measured young grows to it.
        let mut sizes: Vec<u64> = measured.iter().map(|(_, rss)| *rss).collect();
        sizes.sort_unstable();
        let each = sizes
            .get(sizes.len() * 9 / 10)
            .copied()
            .unwrap_or(0)
            .max(WORKER_BASE_BYTES);
        self.counts.worker_bytes.store(each, Ordering::Relaxed);
        self.counts.reserved_bytes.store(
            sizes.iter().map(|b| (*b).max(each)).sum(),
            Ordering::Relaxed,
        );
        self.started_since_measure.store(0, Ordering::Relaxed);
        let Some(budget) = self.memory else { return };
        if total <= share_of(budget, TRIM_PERCENT) {
            return;
        }
        // Past TRIM_PERCENT, down to ADMIT_PERCENT, so that the workers' growth until the next
        // measure stays under the budget.
        let target = share_of(budget, ADMIT_PERCENT);
        let mut idle: Vec<&Arc<Upstream>> = tenancy
            .upstreams
            .iter()
            .filter(|u| u.running() == Some(true) && u.in_flight() == 0)
            .collect();
        idle.sort_by_key(|u| u.last_used());
        for upstream in idle {
            if total <= target {
                break;
            }
            let Some(pid) = upstream.pid() else { continue };
            if upstream.sleep_if_idle(Duration::ZERO).is_some() {
                self.counts.slept_for_memory.fetch_add(1, Ordering::Relaxed);
                let freed = measured
                    .iter()
                    .find(|(p, _)| *p == pid)
                    .map_or(0, |(_, rss)| *rss);
                total = total.saturating_sub(freed);
                log::info!(
                    "tenant {}: worker put to sleep to keep the fleet under \
                     GNAW_MCP_FLEET_MEMORY ({} MiB)",
                    upstream.name(),
                    budget >> 20
                );
            }
        }
    }
}

/// A new worker's warm-cache bound when `live` workers share `budget` bytes: its share, less
/// what a worker holds besides its cache, never under [`MIN_CACHE_BYTES`].
pub fn cache_share(budget: u64, live: usize) -> u64 {
    (budget / live.max(1) as u64)
        .saturating_sub(WORKER_BASE_BYTES)
        .max(MIN_CACHE_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_of_the_budget_is_exact() {
        assert_eq!(share_of(64 << 20, ADMIT_PERCENT), 48 << 20);
        assert_eq!(share_of(u64::MAX, 100), u64::MAX);
        assert_eq!(share_of(100, TRIM_PERCENT), TRIM_PERCENT);
    }

    #[test]
    fn a_workers_cache_is_its_share_less_its_base() {
        assert_eq!(cache_share(1 << 30, 1), (1 << 30) - WORKER_BASE_BYTES);
        assert_eq!(cache_share(1 << 30, 4), (256 << 20) - WORKER_BASE_BYTES);
        assert_eq!(cache_share(1 << 30, 1000), MIN_CACHE_BYTES);
        assert_eq!(cache_share(0, 0), MIN_CACHE_BYTES);
    }

    /// The thresholds are written here once; the operator's guide and the security document
    /// state them, and this holds both to the constants.
    #[test]
    fn the_docs_state_the_memory_thresholds_the_fleet_uses() {
        let (admit, trim) = (ADMIT_PERCENT, TRIM_PERCENT);
        let guide = include_str!("../../../docs/mcp.md");
        assert!(
            guide.contains(&format!("the sum is under {admit}% of the budget"))
                && guide.contains(&format!("once it is over {trim}%"))
                && guide.contains(&format!("until it is under {admit}%")),
            "docs/mcp.md's fleet section must state {admit}% and {trim}%"
        );
        let security = include_str!("../../../SECURITY.md");
        let (a, t) = (admit as f64 / 100.0, trim as f64 / 100.0);
        assert!(
            security.contains(&format!("under {a}·F")) && security.contains(&format!("over {t}·F")),
            "SECURITY.md's whole-service formula must use {a}·F and {t}·F"
        );
        assert!(admit < trim && trim < 100);
    }
}
