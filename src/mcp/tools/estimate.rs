//! `estimate`: the exact token count of the prompt `extract` would return for the same
//! arguments, with what is included, skipped and omitted, without the text.

use super::super::tool::{Outcome, Tool, ToolContext};
use super::extraction::{self, ESTIMATE_DESCRIPTION};
use crate::driver::extraction::Extraction;
use crate::driver::summary::{Detail, MAX_LISTED_FINDINGS, MAX_OMITTED_ENTRIES, Summary};
use crate::spec::Mode;
use serde_json::{Map, Value, json};

/// The `estimate` tool.
pub struct Estimate;

impl Tool for Estimate {
    fn name(&self) -> &'static str {
        "estimate"
    }
    fn title(&self) -> &'static str {
        "Estimate repository tokens"
    }
    fn description(&self) -> &'static str {
        ESTIMATE_DESCRIPTION
    }
    fn summary(&self) -> &'static str {
        "learn a repository's size in tokens before asking for its text"
    }
    fn input_schema(&self) -> Value {
        extraction::input_schema()
    }
    fn output_schema(&self) -> Option<Value> {
        Some(output_schema())
    }
    fn call(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome {
        match extraction::run(self, args, ctx, Mode::Estimate) {
            Ok(e) => Outcome::Done(result(&e, ctx.shape.structured, ctx.config.max_output_bytes / 2)),
            Err(outcome) => outcome,
        }
    }
}

fn count(description: &str) -> Value {
    json!({ "type": "integer", "minimum": 0, "description": description })
}

/// The schema of `estimate`'s `structuredContent`: the bounded [`Summary`]. Every property has
/// one JSON type (strict clients accept nothing else).
fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "tokens": count("Exact token count of the prompt extract would return."),
            "encoding": {
                "type": "string",
                "description": "The tiktoken encoding the tokens were counted in, e.g. o200k_base.",
            },
            "format": {
                "type": "string",
                "description": "The prompt's format: markdown, xml or json.",
            },
            "files": count("Number of files included in the prompt."),
            "bytes": count("Total bytes of the included files as served (a file with a redacted secret counts its redacted text)."),
            "output_bytes": count("Size of the prompt in bytes (UTF-8)."),
            "skipped": {
                "type": "object",
                "description": "Number of files left out, by reason (binary, too_large, sensitive, ...).",
                "additionalProperties": { "type": "integer", "minimum": 0 },
            },
            "budget": count("The token budget applied; 0 when unlimited."),
            "trimmed": {
                "type": "boolean",
                "description": "True when the budget left files out.",
            },
            "skeletons": count("Files shown as skeletons (compress), their bodies elided."),
            "omitted": {
                "type": "object",
                "description": "What the budget would leave out: totals, and the largest entries (files, or directories ending in / standing for the files beneath them), largest first. Ask for them with include.",
                "properties": {
                    "files": count("Number of files left out."),
                    "tokens": count("Tokens they would take."),
                    "entries": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "path": { "type": "string" },
                                "files": { "type": "integer", "minimum": 1 },
                                "tokens": { "type": "integer", "minimum": 0 },
                            },
                            "required": ["path", "files", "tokens"],
                        },
                    },
                },
                "required": ["files", "tokens", "entries"],
            },
            "secrets": {
                "type": "array",
                "description": "Secrets found in the files of the prompt (rule, path, line, fingerprint); the secret itself is never shown.",
                "items": {
                    "type": "object",
                    "properties": {
                        "rule": { "type": "string" },
                        "path": { "type": "string" },
                        "line": { "type": "integer", "minimum": 1 },
                        "fingerprint": { "type": "string" },
                    },
                    "required": ["rule", "path", "line", "fingerprint"],
                },
            },
            "secrets_not_listed": count("Findings not listed: beyond the list's cap, or in files that are not in the prompt."),
            "refused": extraction::refused_schema(),
        },
        "required": ["tokens", "encoding", "format", "files", "bytes", "output_bytes", "skipped", "budget", "trimmed", "omitted", "secrets", "secrets_not_listed"],
        "additionalProperties": false,
    })
}

/// The bounded summary, within `max_bytes` when serialized: the lists shrink until it fits.
pub fn summary(e: &Extraction, max_bytes: usize) -> Value {
    let (mut entries, mut findings) = (MAX_OMITTED_ENTRIES, MAX_LISTED_FINDINGS);
    loop {
        let mut value = Summary::with_limits(e, Detail::Bounded, entries, findings).to_json();
        if let Some(refused) = extraction::refused_json(e) {
            value["refused"] = refused;
        }
        if value.to_string().len() <= max_bytes || (entries <= 1 && findings == 0) {
            return value;
        }
        entries = (entries / 2).max(1);
        findings /= 2;
    }
}

fn result(e: &Extraction, structured: bool, max_bytes: usize) -> Value {
    let summary = summary(e, max_bytes);
    // Clients before 2025-06-18 only read `content`, so the text carries the same JSON.
    let mut result = json!({ "content": [{ "type": "text", "text": summary.to_string() }] });
    if structured {
        result["structuredContent"] = summary;
    }
    result
}
