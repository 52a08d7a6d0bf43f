//! `estimate`: the exact token count of the prompt `extract` would return for the same
//! arguments, with what is included, skipped and omitted, without the text.

use super::super::tool::{Outcome, Tool, ToolContext};
use super::extraction::{self, ESTIMATE_DESCRIPTION};
use crate::driver::extraction::Extraction;
use crate::spec::Mode;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

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
            Ok(e) => Outcome::Done(result(&e, ctx.shape.structured)),
            Err(outcome) => outcome,
        }
    }
}

fn count(description: &str) -> Value {
    json!({ "type": "integer", "minimum": 0, "description": description })
}

/// The schema of `estimate`'s `structuredContent`.
fn output_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "tokens": count("Exact token count of the prompt extract would return."),
            "encoding": {
                "type": "string",
                "description": "The tiktoken encoding the tokens were counted in, e.g. o200k_base.",
            },
            "files": count("Number of files included in the prompt."),
            "bytes": count("Total bytes of the included files as read from disk."),
            "output_bytes": count("Size of the prompt in bytes (UTF-8)."),
            "skipped": {
                "type": "object",
                "description": "Number of files left out, by reason (binary, too_large, sensitive, ...).",
                "additionalProperties": { "type": "integer", "minimum": 0 },
            },
            "budget": {
                "type": ["integer", "null"],
                "minimum": 0,
                "description": "The token budget applied, or null when unlimited.",
            },
            "trimmed": {
                "type": "boolean",
                "description": "True when the budget left files out.",
            },
            "omitted": {
                "type": "array",
                "description": "Files the budget would leave out, with the tokens each would take. Ask for them with include.",
                "items": {
                    "type": "object",
                    "properties": {
                        "path": { "type": "string" },
                        "tokens": { "type": "integer", "minimum": 0 },
                    },
                    "required": ["path", "tokens"],
                },
            },
            "secrets": {
                "type": "array",
                "description": "Secrets found (rule, path, line, fingerprint); the secret itself is never shown.",
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
            "refused": extraction::refused_schema(),
        },
        "required": ["tokens", "encoding", "files", "bytes", "output_bytes", "skipped", "budget", "trimmed", "omitted", "secrets"],
        "additionalProperties": false,
    })
}

/// `estimate`'s structured summary.
pub fn summary(e: &Extraction) -> Value {
    let mut skipped: BTreeMap<&str, u64> = BTreeMap::new();
    for s in &e.skipped {
        *skipped.entry(s.reason.kind()).or_insert(0) += 1;
    }
    let mut summary = json!({
        "tokens": e.tokens,
        "encoding": e.encoding.name(),
        "files": e.files.len(),
        "bytes": e.files.iter().map(|f| f.bytes).sum::<u64>(),
        "output_bytes": e.output_bytes,
        "skipped": skipped,
        "budget": e.budget,
        "trimmed": !e.omitted.is_empty(),
        "omitted": e.omitted.iter().map(|o| json!({"path": o.path, "tokens": o.tokens})).collect::<Vec<_>>(),
        "secrets": e.findings.iter().map(|f| serde_json::to_value(f).unwrap_or(Value::Null)).collect::<Vec<_>>(),
    });
    if let Some(refused) = extraction::refused_json(e) {
        summary["refused"] = refused;
    }
    summary
}

fn result(e: &Extraction, structured: bool) -> Value {
    let summary = summary(e);
    // Clients before 2025-06-18 only read `content`, so the text carries the same JSON.
    let mut result = json!({ "content": [{ "type": "text", "text": summary.to_string() }] });
    if structured {
        result["structuredContent"] = summary;
    }
    result
}
