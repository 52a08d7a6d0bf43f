//! What an operator's tools ask of the service: `/healthz` (no token; says only whether the
//! front door and its spawner answer, so a load balancer can ask while every worker sleeps) and
//! `/metrics`, the Prometheus text format (version 0.0.4), behind its own token
//! (`GNAW_MCP_METRICS_TOKEN_SHA256`) or, without one, for loopback peers only (never through a
//! trusted proxy).
//!
//! Every number comes from the audit records ([`Metrics::record`], one per request) and the
//! fleet's own counters: requests by tenant, tool and status; latency histograms by tenant;
//! workers running and sleeping; worker starts, sleeps and deaths by tenant; bounds hit by
//! name; the fleet's resident memory. Labels hold only the operator's tenant names, the
//! server's own tool names (`other` for any name a client made up), HTTP statuses and bound
//! names: never a path, a repository's name, a query, a token or anything a client wrote.

use std::collections::BTreeMap;
use std::fmt::{Display, Write as _};
use std::sync::Mutex;
use std::sync::atomic::Ordering;

use super::FrontDoor;
use super::audit::Audit;
use crate::par::lock;

/// Upper bounds of the latency histograms' buckets, in seconds.
const BUCKETS: [f64; 12] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// One tenant's latency histogram.
#[derive(Clone, Debug, Default)]
struct Histogram {
    /// Requests at or under each bucket's bound (not cumulative here; summed when written).
    buckets: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

/// The counters `/metrics` serves.
#[derive(Default)]
pub struct Metrics {
    /// (tenant, tool, status) -> requests.
    requests: Mutex<BTreeMap<(String, &'static str, u16), u64>>,
    latency: Mutex<BTreeMap<String, Histogram>>,
    bounds: Mutex<BTreeMap<&'static str, u64>>,
}

/// A tool's name as a label: the server's own name for it, or `other` (`none` for a request
/// that calls no tool).
fn tool_label(tool: Option<&str>) -> &'static str {
    match tool {
        None => "none",
        Some(name) => crate::mcp::tools::find(name).map_or("other", |t| t.name()),
    }
}

impl Metrics {
    /// Count one request, from its audit record.
    pub fn record(&self, audit: &Audit) {
        let tenant = audit.tenant.clone().unwrap_or_else(|| "-".into());
        let tool = tool_label(audit.tool.as_deref());
        *lock(&self.requests)
            .entry((tenant.clone(), tool, audit.status))
            .or_default() += 1;
        if audit.tenant.is_some() {
            let secs = audit.elapsed().as_secs_f64();
            let mut latency = lock(&self.latency);
            let h = latency.entry(tenant).or_default();
            if let Some(i) = BUCKETS.iter().position(|b| secs <= *b) {
                h.buckets[i] += 1;
            }
            h.count += 1;
            h.sum += secs;
        }
        if let Some(bound) = audit.bound {
            *lock(&self.bounds).entry(bound).or_default() += 1;
        }
    }

    /// The metrics in the Prometheus text format.
    pub fn render(&self, door: &FrontDoor) -> String {
        let mut out = String::new();
        let text = &mut out;
        samples(text, UP, &[("", &1)]);

        let name = family(text, REQUESTS);
        for ((tenant, tool, status), n) in lock(&self.requests).iter() {
            let _ = writeln!(
                *text,
                "{name}{{tenant=\"{tenant}\",tool=\"{tool}\",status=\"{status}\"}} {n}"
            );
        }

        let name = family(text, DURATION);
        for (tenant, h) in lock(&self.latency).iter() {
            let mut cumulative = 0;
            for (bound, n) in BUCKETS.iter().zip(h.buckets) {
                cumulative += n;
                let _ = writeln!(
                    text,
                    "{name}_bucket{{tenant=\"{tenant}\",le=\"{bound}\"}} {cumulative}"
                );
            }
            let _ = writeln!(
                *text,
                "{name}_bucket{{tenant=\"{tenant}\",le=\"+Inf\"}} {}",
                h.count
            );
            let _ = writeln!(*text, "{name}_sum{{tenant=\"{tenant}\"}} {}", h.sum);
            let _ = writeln!(*text, "{name}_count{{tenant=\"{tenant}\"}} {}", h.count);
        }

        let (running, sleeping) = door.fleet.workers();
        let workers: [(&str, &dyn Display); 2] = [
            ("state=\"running\"", &running),
            ("state=\"sleeping\"", &sleeping),
        ];
        samples(text, WORKERS, &workers);

        let tenancy = door.fleet.tenancy();
        for (pick, counted) in [STARTS, SLEEPS, DEATHS].into_iter().enumerate() {
            let name = family(text, counted);
            for upstream in &tenancy.upstreams {
                let c = &upstream.counts;
                let n = [&c.started, &c.slept, &c.died][pick].load(Ordering::Relaxed);
                let _ = writeln!(*text, "{name}{{tenant=\"{}\"}} {n}", upstream.name());
            }
        }

        let name = family(text, BOUNDS);
        for (bound, n) in lock(&self.bounds).iter() {
            let _ = writeln!(*text, "{name}{{bound=\"{bound}\"}} {n}");
        }

        let counts = &door.fleet.counts;
        let memory = counts.memory_bytes.load(Ordering::Relaxed);
        samples(text, MEMORY, &[("", &memory)]);
        if let Some(budget) = door.settings.fleet_memory {
            samples(text, MEMORY_BUDGET, &[("", &budget)]);
        }
        let (for_memory, for_room) = (&counts.slept_for_memory, &counts.slept_for_room);
        let sleeps: [(&str, &dyn Display); 2] = [
            ("why=\"memory\"", &for_memory.load(Ordering::Relaxed)),
            ("why=\"room\"", &for_room.load(Ordering::Relaxed)),
        ];
        samples(text, FLEET_SLEEPS, &sleeps);
        out
    }
}

/// A family's name, type and help text.
type Family = (&'static str, &'static str, &'static str);

const UP: Family = ("gnaw_mcp_up", "gauge", "1 while the front door serves.");
const REQUESTS: Family = (
    "gnaw_mcp_requests_total",
    "counter",
    "HTTP requests answered, by tenant (- before one is known), tool and status.",
);
const DURATION: Family = (
    "gnaw_mcp_request_duration_seconds",
    "histogram",
    "Time from a request's head to its answer's last byte, by tenant.",
);
const WORKERS: Family = (
    "gnaw_mcp_workers",
    "gauge",
    "Tenants' workers running, and tenants whose worker sleeps (or never started).",
);
/// The tenants' worker counters, in the order of their counts (started, slept, died).
const STARTS: Family = (
    "gnaw_mcp_worker_starts_total",
    "counter",
    "Workers started, by tenant.",
);
const SLEEPS: Family = (
    "gnaw_mcp_worker_sleeps_total",
    "counter",
    "Workers put to sleep (idle, or to make room or memory), by tenant.",
);
const DEATHS: Family = (
    "gnaw_mcp_worker_deaths_total",
    "counter",
    "Workers that ended without being put to sleep (died, killed), by tenant.",
);
const BOUNDS: Family = (
    "gnaw_mcp_bounds_hit_total",
    "counter",
    "Requests and connections refused or closed at a bound, by the setting that sets it.",
);
const MEMORY: Family = (
    "gnaw_mcp_fleet_memory_bytes",
    "gauge",
    "The workers' resident memory at the last measure (every second).",
);
const MEMORY_BUDGET: Family = (
    "gnaw_mcp_fleet_memory_budget_bytes",
    "gauge",
    "GNAW_MCP_FLEET_MEMORY.",
);
const FLEET_SLEEPS: Family = (
    "gnaw_mcp_fleet_sleeps_total",
    "counter",
    "Workers put to sleep by the fleet, by why: to keep under the memory budget, or to make \
     room under GNAW_MCP_MAX_WORKERS.",
);

/// Write a family whose samples are all known at once: its `# HELP` and `# TYPE` lines, then a
/// line for each sample, `(labels, value)`, labels as written between the braces (`""`: none).
fn samples(out: &mut String, f: Family, rows: &[(&str, &dyn Display)]) {
    let name = family(out, f);
    for (labels, value) in rows {
        let _ = if labels.is_empty() {
            writeln!(out, "{name} {value}")
        } else {
            writeln!(out, "{name}{{{labels}}} {value}")
        };
    }
}

/// Write a family's `# HELP` and `# TYPE` lines; its name.
fn family(out: &mut String, (name, kind, help): Family) -> &'static str {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
    name
}
