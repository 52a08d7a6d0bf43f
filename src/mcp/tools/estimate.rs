//! `estimate`: the exact token count of the prompt `extract` would return for the same
//! arguments, with what is included, skipped and omitted, without the text.

use super::super::tool::{About, Declared, Outcome};
use super::extraction::{self, ESTIMATE_DESCRIPTION, ExtractionArgs};
use super::navigation;
use crate::driver::extraction::Extraction;
use crate::driver::summary::{Detail, MAX_LISTED_FINDINGS, MAX_OMITTED_ENTRIES, Summary};
use crate::spec::Mode;
use serde_json::{Value, json};

/// The `estimate` tool.
pub static ESTIMATE: Declared<ExtractionArgs> = Declared {
    about: About {
        name: "estimate",
        title: "Estimate tokens",
        description: ESTIMATE_DESCRIPTION,
        summary: "learn a repository's size in tokens before asking for its text",
    },
    output: Some(&[
        ("budget", "integer"),
        ("bytes", "integer"),
        ("encoding", "string"),
        ("files", "integer"),
        ("format", "string"),
        ("omitted", "object"),
        ("output_bytes", "integer"),
        ("refused", "array"),
        ("secrets", "array"),
        ("secrets_not_listed", "integer"),
        ("skeletons", "integer"),
        ("skipped", "object"),
        ("tokens", "integer"),
        ("trimmed", "boolean"),
    ]),
    run: |tool, args, ctx| {
        let ceiling = navigation::ceiling(ctx, args.budget_given(), args.max_chars());
        let e = extraction::run(tool, args, ctx, Mode::Estimate)?;
        // The summary is sent twice (text and structured copy) to clients that take both.
        let copies = if ctx.shape.structured { 2 } else { 1 };
        let room = (ceiling / copies).min(ctx.config.max_output_bytes / 2);
        Ok(Outcome::Done(result(&e, ctx.shape.structured, room)))
    },
};

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
