//! The summary of a run: one shape, serialized by `gnaw --json` and by gnaw-mcp's `estimate`.
//! Everything in it is bounded (the omitted files collapse by directory, the secret findings are
//! capped) so the server's answer fits its client whatever the repository; the CLI adds the
//! unbounded per-file lists a person or a script on the same machine may want, in fields of
//! their own that the server leaves out ([`Detail`]).

use super::extraction::Extraction;
use crate::stages::budget::view_at;
use crate::vocab::Finding;
use serde::Serialize;
use std::collections::BTreeMap;

/// Most lines in the collapsed omitted list.
pub const MAX_OMITTED_ENTRIES: usize = 40;
/// Most secret findings listed; the rest are counted.
pub const MAX_LISTED_FINDINGS: usize = 100;

/// How much a summary lists.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Bounded fields only: what gnaw-mcp answers.
    Bounded,
    /// Also every included, skipped and omitted file: the CLI's `--json`.
    Full,
}

/// What a run produced, without the prompt.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Exact token count of the prompt.
    pub tokens: usize,
    /// The name of the encoding the tokens were counted in.
    pub encoding: &'static str,
    /// The name of the prompt's format.
    pub format: &'static str,
    /// Files in the prompt, and their bytes as read.
    pub files: usize,
    /// The bytes of the files in the prompt, as read from disk.
    pub bytes: u64,
    /// Size of the prompt in bytes.
    pub output_bytes: usize,
    /// Files left out, by reason.
    pub skipped: BTreeMap<&'static str, u64>,
    /// The token budget the prompt was fitted to; 0 when unlimited (one JSON type, as the input).
    pub budget: usize,
    /// The budget left files out.
    pub trimmed: bool,
    /// Files shown as skeletons (`compress`), bodies elided.
    pub skeletons: usize,
    /// What the budget left out: totals and the largest entries.
    pub omitted: OmittedSummary,
    /// Secrets found in the files of the prompt (rule, path, line, fingerprint; never the secret),
    /// at most [`MAX_LISTED_FINDINGS`].
    pub secrets: Vec<Finding>,
    /// Findings not listed: beyond the cap, or in files that are not in the prompt (left out by
    /// the budget, or blocked). Only counted: what is not shown is not described.
    pub secrets_not_listed: usize,
    /// [`Detail::Full`] only: every file in the prompt. The server leaves it out, since a
    /// repository can have any number of files and its answers are bounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_list: Option<Vec<FileRow>>,
    /// [`Detail::Full`] only: every skipped file with its reason (the server gives the counts).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped_list: Option<Vec<SkippedRow>>,
    /// [`Detail::Full`] only: every file the budget left out (the server gives `omitted`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omitted_list: Option<Vec<OmittedRow>>,
}

/// What the budget left out: totals and the largest entries, collapsed by directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OmittedSummary {
    /// Files the budget left out.
    pub files: usize,
    /// Their tokens, as they would have been rendered.
    pub tokens: usize,
    /// Largest first: a file, or a directory (ending in `/`, `./` for everything) standing for
    /// the omitted files beneath it.
    pub entries: Vec<OmittedEntry>,
}

/// One line of the omitted list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OmittedEntry {
    /// The file, or a directory ending in `/` standing for the omitted files beneath it.
    pub path: String,
    /// How many omitted files it stands for.
    pub files: usize,
    /// Their tokens.
    pub tokens: usize,
}

/// A file in the prompt.
#[derive(Clone, Debug, Serialize)]
pub struct FileRow {
    /// Path relative to the root, escaped for display.
    pub path: String,
    /// Bytes read from disk.
    pub bytes: u64,
    /// Tokens of the file's rendered piece (header, contents and fence).
    pub tokens: usize,
    /// The file was not valid UTF-8 and was decoded lossily.
    pub lossy: bool,
    /// The file is shown as its skeleton (`compress`): bodies elided.
    pub skeleton: bool,
}

/// A skipped file.
#[derive(Clone, Debug, Serialize)]
pub struct SkippedRow {
    /// Path relative to the root, escaped for display.
    pub path: String,
    /// Why it was skipped (the reason's name, as in `skipped`).
    pub reason: &'static str,
    /// The reason in words, with its detail.
    pub detail: String,
}

/// A file the budget left out.
#[derive(Clone, Debug, Serialize)]
pub struct OmittedRow {
    /// Path relative to the root, escaped for display.
    pub path: String,
    /// The tokens it would have taken.
    pub tokens: usize,
}

/// Each of `items` as a row, when the detail is full.
fn rows<T, R>(full: bool, items: &[T], row: impl Fn(&T) -> R) -> Option<Vec<R>> {
    full.then(|| items.iter().map(row).collect())
}

/// The omitted files collapsed by directory, as deep as fits in `max` lines, largest first.
pub fn collapse_omitted(ex: &Extraction, max: usize) -> OmittedSummary {
    let paths: Vec<&str> = ex.omitted.iter().map(|o| o.path.as_str()).collect();
    let tokens: Vec<usize> = ex.omitted.iter().map(|o| o.tokens).collect();
    let all: Vec<usize> = (0..paths.len()).collect();
    let deepest = paths
        .iter()
        .map(|p| p.matches('/').count())
        .max()
        .unwrap_or(0);
    let mut view = view_at(&all, &paths, &tokens, None);
    let mut depth = deepest;
    while view.lines.len() > max.max(1) {
        view = view_at(&all, &paths, &tokens, Some(depth));
        if depth == 0 {
            break;
        }
        depth -= 1;
    }
    let mut entries: Vec<OmittedEntry> = view
        .lines
        .into_iter()
        .map(|l| OmittedEntry {
            path: if l.label.is_empty() {
                "./".into()
            } else {
                l.label
            },
            files: l.files,
            tokens: l.tokens,
        })
        .collect();
    entries.sort_by(|a, b| b.tokens.cmp(&a.tokens).then_with(|| a.path.cmp(&b.path)));
    OmittedSummary {
        files: view.files,
        tokens: view.tokens,
        entries,
    }
}

impl Summary {
    /// The summary of `ex`, listing at most `max_entries` omitted lines and `max_findings`
    /// findings.
    pub fn with_limits(
        ex: &Extraction,
        detail: Detail,
        max_entries: usize,
        max_findings: usize,
    ) -> Summary {
        let mut skipped: BTreeMap<&'static str, u64> = BTreeMap::new();
        for s in &ex.skipped {
            *skipped.entry(s.reason.kind()).or_insert(0) += 1;
        }
        let listed: Vec<Finding> = ex.findings.iter().take(max_findings).cloned().collect();
        let full = detail == Detail::Full;
        Summary {
            tokens: ex.tokens,
            encoding: ex.encoding.name(),
            format: ex.format.name(),
            files: ex.files.len(),
            bytes: ex.files.iter().map(|f| f.bytes).sum(),
            output_bytes: ex.output_bytes,
            skipped,
            budget: ex.budget.unwrap_or(0),
            trimmed: !ex.omitted.is_empty(),
            skeletons: ex.files.iter().filter(|f| f.skeleton).count(),
            omitted: collapse_omitted(ex, max_entries),
            secrets_not_listed: ex.findings.len() - listed.len() + ex.findings_left_out,
            secrets: listed,
            file_list: rows(full, &ex.files, |f| FileRow {
                path: f.path.clone(),
                bytes: f.bytes,
                tokens: f.tokens,
                lossy: f.lossy,
                skeleton: f.skeleton,
            }),
            skipped_list: rows(full, &ex.skipped, |s| SkippedRow {
                path: s.path.clone(),
                reason: s.reason.kind(),
                detail: s.reason.describe(),
            }),
            omitted_list: rows(full, &ex.omitted, |o| OmittedRow {
                path: o.path.clone(),
                tokens: o.tokens,
            }),
        }
    }

    /// The summary of `ex` with the default limits.
    pub fn new(ex: &Extraction, detail: Detail) -> Summary {
        Summary::with_limits(ex, detail, MAX_OMITTED_ENTRIES, MAX_LISTED_FINDINGS)
    }

    /// As JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}
