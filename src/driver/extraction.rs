//! What the pipeline hands back: the prompt (unless only an estimate was asked for), its exact
//! token count, per-file counts, and every skipped file with its reason.

use crate::gnawconfig::Widening;
use crate::stages::name::Namer;
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
    /// The encoding `tokens` were counted in.
    pub encoding: Encoding,
    /// The format the prompt was rendered in.
    pub format: Format,
    /// Files included in the prompt, sorted bytewise by path.
    pub files: Vec<FileEntry>,
    /// Files left out, sorted bytewise by path, each with its reason.
    pub skipped: Vec<Skipped>,
    /// Secrets found by the scan stage in the files of the prompt (never the secret itself).
    pub findings: Vec<Finding>,
    /// How many findings were in files that are not in the prompt (left out by the budget, or
    /// blocked): counted, not described.
    pub findings_left_out: usize,
    /// The token budget the prompt was fitted to, if any.
    pub budget: Option<usize>,
    /// The most characters the prompt was fitted to, if any (the budget was lowered to fit it
    /// when the prompt at the budget was longer).
    pub max_chars: Option<usize>,
    /// Files that were readable but left out to fit the budget, in path order.
    pub omitted: Vec<Omitted>,
    /// Every readable file's rank, best first, with the parts of its score.
    pub ranking: Vec<Ranked>,
    /// The settings of the repo's `.gnawconfig` that read more than the defaults, each
    /// honoured or refused by the surface's policy. Empty for a config that only narrows.
    pub widenings: Vec<Widening>,
    /// With `compress`: the files a grammar was meant to parse and did not (a parse bound, or
    /// the call's parse budget spent), shown whole; how many and the first reason.
    pub not_parsed: Option<String>,
    /// The run's renderer of names (its secrets mode and allow list): what a front-end that
    /// shows a name the run did not (a template's `absolute_code_path`) renders it with.
    pub namer: Namer,
}

/// A file left out to fit the budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Omitted {
    /// Path relative to the repo, escaped for display.
    pub path: String,
    /// Tokens its piece would have taken.
    pub tokens: usize,
}

/// A file's place in the ranking.
#[derive(Clone, Debug, PartialEq)]
pub struct Ranked {
    /// Path relative to the repo, escaped for display.
    pub path: String,
    /// Its score, and what it is made of.
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
    /// The file is shown as its skeleton (`compress`): bodies elided.
    pub skeleton: bool,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

impl Extraction {
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
                        .map(|(k, v)| (k.name().to_string(), json!(round3(*v))))
                        .collect();
                    json!({"path": r.path, "score": round3(r.score.total), "parts": parts})
                })
                .collect(),
        )
    }
}
