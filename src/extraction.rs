//! What the pipeline hands back: the prompt (unless only an estimate was asked for), its exact
//! token count, per-file counts, and every skipped file with its reason.

use crate::config::Format;
use crate::count::Encoding;
use crate::scan::Finding;
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
    pub score: crate::rank::Score,
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

/// One file that was left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub path: String,
    pub reason: SkipReason,
}

/// Why a file was left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// A NUL byte or mostly control bytes in the first 8 KiB.
    Binary,
    /// Larger than `max_file_size`.
    TooLarge { limit: u64 },
    /// A FIFO, socket, device or anything else that is not a regular file or directory.
    NotRegular { kind: &'static str },
    /// A symlink that is not followed (no `-L`), or whose target is not inside the repo.
    Symlink { detail: &'static str },
    /// The file changed identity between the walk and the open (a swap race).
    Changed,
    /// A sensitive file (`.env`, private keys, credentials), left out by default.
    Sensitive { what: &'static str },
    /// The scan stage blocked the file because it holds a secret.
    Secret,
    /// Multiply hard-linked file (possibly a link to a file outside the root).
    HardLinked,
    /// Opening or reading failed.
    Unreadable { error: String },
}

impl SkipReason {
    /// A stable machine-readable name, used as the key in JSON summaries.
    pub fn kind(&self) -> &'static str {
        match self {
            SkipReason::Binary => "binary",
            SkipReason::TooLarge { .. } => "too_large",
            SkipReason::NotRegular { .. } => "not_regular",
            SkipReason::Symlink { .. } => "symlink",
            SkipReason::Changed => "changed",
            SkipReason::Sensitive { .. } => "sensitive",
            SkipReason::Secret => "secret",
            SkipReason::HardLinked => "hard_linked",
            SkipReason::Unreadable { .. } => "unreadable",
        }
    }

    /// A human-readable explanation.
    pub fn describe(&self) -> String {
        match self {
            SkipReason::Binary => "binary content".into(),
            SkipReason::TooLarge { limit } => format!("larger than max_file_size ({limit} bytes)"),
            SkipReason::NotRegular { kind } => format!("not a regular file ({kind})"),
            SkipReason::Symlink { detail } => format!("symlink: {detail}"),
            SkipReason::Changed => "changed between walk and open".into(),
            SkipReason::Sensitive { what } => format!("sensitive file ({what})"),
            SkipReason::Secret => "contains a secret (secrets mode: block)".into(),
            SkipReason::HardLinked => "has more than one hard link".into(),
            SkipReason::Unreadable { error } => format!("unreadable: {error}"),
        }
    }
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
        json!({
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
        })
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
