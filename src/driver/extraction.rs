//! What the pipeline hands back: the prompt (unless only an estimate was asked for), its exact
//! token count, per-file counts, and every skipped file with its reason.

use crate::config::Widening;
use crate::stages::rank::Score;
use crate::vocab::{Encoding, Finding, Format, Skipped};
use serde_json::{Value, json};

/// The result of one [`crate::run_extraction`] call.
#[derive(Debug)]
pub struct Extraction {
    /// The rendered prompt; `None` when the spec asked for [`crate::spec::Mode::Estimate`].
    pub output: Option<String>,
    /// Exact token count of the rendered prompt in `encoding`.
    pub tokens: usize,
    /// Size of the rendered prompt in bytes.
    pub output_bytes: usize,
    pub encoding: Encoding,
    pub format: Format,
    /// Files included in the prompt, sorted bytewise by path.
    pub files: Vec<FileEntry>,
    /// Files left out, sorted bytewise by path, each with its reason.
    pub skipped: Vec<Skipped>,
    /// Secrets found by the scan stage (never the secret itself).
    pub findings: Vec<Finding>,
    /// The token budget the prompt was fitted to, if any.
    pub budget: Option<usize>,
    /// Files that were readable but left out to fit the budget, in path order.
    pub omitted: Vec<Omitted>,
    /// Every readable file's rank, best first, with the parts of its score.
    pub ranking: Vec<Ranked>,
    /// The settings of the repo's `.gnawconfig` that read more than the defaults, each
    /// honoured or refused by the surface's policy. Empty for a config that only narrows.
    pub widenings: Vec<Widening>,
}

/// A file left out to fit the budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Omitted {
    pub path: String,
    /// Tokens its piece would have taken.
    pub tokens: usize,
}

/// A file's place in the ranking.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked {
    pub path: String,
    pub score: Score,
}

/// One included file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEntry {
    /// Path relative to the repo, `/`-separated, escaped for display (see `render::display_path`).
    pub path: String,
    /// Bytes read from disk.
    pub bytes: u64,
    /// Tokens of this file's rendered piece (header, contents and fence).
    pub tokens: usize,
    /// The file was not valid UTF-8 and was decoded lossily (U+FFFD replacements).
    pub lossy: bool,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl Extraction {
    /// Machine-readable summary (everything but the prompt body).
    pub fn summary_json(&self) -> Value {
        let mut by_reason = serde_json::Map::new();
        for s in &self.skipped {
            let n = by_reason.entry(s.reason.kind()).or_insert(json!(0));
            *n = json!(n.as_u64().unwrap_or(0) + 1);
        }
        let mut summary = json!({
            "tokens": self.tokens,
            "encoding": self.encoding.name(),
            "format": self.format.name(),
            "files": self.files.len(),
            "bytes": self.files.iter().map(|f| f.bytes).sum::<u64>(),
            "output_bytes": self.output_bytes,
            "skipped_by_reason": by_reason,
            "file_list": self.files.iter().map(|f| json!({
                "path": f.path, "bytes": f.bytes, "tokens": f.tokens, "lossy": f.lossy,
            })).collect::<Vec<_>>(),
            "skipped": self.skipped.iter().map(|s| json!({
                "path": s.path, "reason": s.reason.kind(), "detail": s.reason.describe(),
            })).collect::<Vec<_>>(),
            "secrets": self.findings.iter().map(|f| serde_json::to_value(f).unwrap_or(Value::Null)).collect::<Vec<_>>(),
            "budget": self.budget,
            "trimmed": !self.omitted.is_empty(),
            "omitted": self.omitted.iter().map(|o| json!({"path": o.path, "tokens": o.tokens})).collect::<Vec<_>>(),
        });
        // Only when there is something to say, so a config that only narrows changes nothing.
        if !self.widenings.is_empty() {
            summary["repo_config_widens"] = self
                .widenings
                .iter()
                .map(|w| json!({"key": w.key, "what": w.what, "refused": w.refused}))
                .collect();
        }
        summary
    }

    /// The ranking with each file's score parts (`--explain`).
    pub fn ranking_json(&self) -> Value {
        Value::Array(
            self.ranking
                .iter()
                .map(|r| {
                    let parts: serde_json::Map<String, Value> = r
                        .score
                        .parts
                        .iter()
                        .map(|(k, v)| ((*k).to_string(), json!(round3(*v))))
                        .collect();
                    json!({"path": r.path, "score": round3(r.score.total), "parts": parts})
                })
                .collect(),
        )
    }
}
