//! `estimate`: the exact token count of the prompt `extract` would return for the same
//! arguments, with what is included, skipped and omitted, without the text.

use super::super::fit;
use super::super::tool::{About, Declared, Outcome};
use super::prompt::{self, ESTIMATE_DESCRIPTION, ExtractionArgs};
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
        let (spec, ceiling) = prompt::prepare(tool, args, ctx, Mode::Estimate)?;
        let e = prompt::execute(tool, &spec, ctx)?;
        let server = ctx.config.max_output_bytes;
        Ok(Outcome::Done(result(
            &e,
            ctx.shape.structured,
            ceiling,
            server,
        )))
    },
};

/// The bounded summary with at most `entries` omitted entries and `findings` findings.
fn summary(e: &Extraction, entries: usize, findings: usize) -> Value {
    let mut value = Summary::with_limits(e, Detail::Bounded, entries, findings).to_json();
    if let Some(refused) = prompt::refused_json(e) {
        value["refused"] = refused;
    }
    value
}

/// The answer: the summary as text and, for clients that take it, as the structured copy; its
/// lists shrink until the answer as sent fits `ceiling` characters and `server` bytes.
fn result(e: &Extraction, structured: bool, ceiling: usize, server: usize) -> Value {
    let (mut entries, mut findings) = (MAX_OMITTED_ENTRIES, MAX_LISTED_FINDINGS);
    loop {
        let summary = summary(e, entries, findings);
        // Clients before 2025-06-18 only read `content`, so the text carries the same JSON.
        let mut result = json!({ "content": [{ "type": "text", "text": summary.to_string() }] });
        if structured {
            result["structuredContent"] = summary;
        }
        let (chars, bytes) = fit::sent(&result);
        if chars <= ceiling && bytes <= server {
            return result;
        }
        if entries <= 1 && findings == 0 {
            return fit::too_small("estimate", ceiling);
        }
        entries = (entries / 2).max(1);
        findings /= 2;
    }
}
