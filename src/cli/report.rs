//! What the `gnaw` command tells a person on stderr: the summary of a run (totals, every skipped
//! file and why, every secret finding), the ranking table (`--explain`), and a progress line.

use crate::driver::extraction::Extraction;
use crate::spec::Observer;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The human summary for stderr: totals, then every skipped file with its reason, then every
/// secret finding (rule, path, line; never the secret).
pub fn summary(ex: &Extraction) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "gnaw: {} files, {} tokens ({}), {} bytes",
        ex.files.len(),
        ex.tokens,
        ex.encoding.name(),
        ex.output_bytes
    );
    let skeletons = ex.files.iter().filter(|f| f.skeleton).count();
    if skeletons > 0 {
        let _ = write!(s, ", {skeletons} as skeletons");
    }
    if let Some(b) = ex.budget {
        let _ = write!(s, ", budget {b}");
        if !ex.omitted.is_empty() {
            let t: usize = ex.omitted.iter().map(|o| o.tokens).sum();
            let _ = write!(
                s,
                " ({} files, {t} tokens omitted; ask for them with -i)",
                ex.omitted.len()
            );
        }
    }
    if ex.skipped.is_empty() {
        s.push('\n');
    } else {
        let mut kinds: Vec<(&str, usize)> = Vec::new();
        for k in ex.skipped.iter().map(|k| k.reason.kind()) {
            match kinds.iter_mut().find(|(n, _)| *n == k) {
                Some((_, c)) => *c += 1,
                None => kinds.push((k, 1)),
            }
        }
        let parts: Vec<String> = kinds.iter().map(|(k, c)| format!("{c} {k}")).collect();
        let _ = writeln!(s, "; {} skipped ({})", ex.skipped.len(), parts.join(", "));
        for sk in &ex.skipped {
            let _ = writeln!(s, "  skipped {}: {}", sk.path, sk.reason.describe());
        }
    }
    for f in &ex.findings {
        let _ = writeln!(s, "  secret {} at {}:{}", f.rule, f.path, f.line);
    }
    if ex.findings_left_out > 0 {
        let _ = writeln!(
            s,
            "  {} more secret finding(s) in files that are not in the prompt",
            ex.findings_left_out
        );
    }
    s
}

/// The ranking as a table: rank, score, path, and the score's parts.
pub fn explain(ex: &Extraction) -> String {
    let mut s = String::from("gnaw: ranking (best first)\n");
    for (n, r) in ex.ranking.iter().enumerate() {
        let parts = r.score.parts_shown(" ", |k, v| format!("{k}={v:.3}"));
        let _ = writeln!(
            s,
            "{:>5} {:>10.3}  {}  [{}]",
            n + 1,
            r.score.total,
            r.path,
            parts
        );
    }
    s
}

/// A one-line progress indicator on stderr, shown only on a terminal and only once a run has
/// taken more than half a second.
pub struct Progress {
    enabled: bool,
    start: Instant,
    last: Mutex<Option<Instant>>,
}

impl Progress {
    pub fn new(enabled: bool) -> Progress {
        Progress {
            enabled,
            start: Instant::now(),
            last: Mutex::new(None),
        }
    }

    pub fn clear(&self) {
        if self.enabled && self.last.lock().is_ok_and(|l| l.is_some()) {
            eprint!("\r\x1b[2K");
        }
    }
}

impl Observer for Progress {
    fn progress(&self, done: usize, total: usize) {
        if !self.enabled || self.start.elapsed() < Duration::from_millis(500) {
            return;
        }
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if last.is_some_and(|t| t.elapsed() < Duration::from_millis(100)) && done < total {
            return;
        }
        *last = Some(Instant::now());
        eprint!("\rgnaw: reading {done}/{total} files");
    }
}
