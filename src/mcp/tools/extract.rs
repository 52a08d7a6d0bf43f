//! `extract`: the repository as one prompt, fitted to the budget, refused with advice (never
//! cut short) when it is larger than the server's response limit.

use super::super::fit;
use super::super::tool::{About, Declared, Outcome, tool_error};
use super::prompt::{self, EXTRACT_DESCRIPTION, ExtractionArgs};
use crate::driver::extraction::Extraction;
use crate::spec::Mode;
use crate::vocab::{Compress, ErrorKind};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// The `extract` tool.
pub static EXTRACT: Declared<ExtractionArgs> = Declared {
    about: About {
        name: "extract",
        title: "Extract",
        description: EXTRACT_DESCRIPTION,
        summary: "get the text, narrowed with include/exclude globs and fitted to a token budget",
    },
    output: None,
    run: |tool, args, ctx| {
        let (mut spec, ceiling) = prompt::prepare(tool, args, ctx, Mode::Render)?;
        let server = ctx.config.max_output_bytes;
        let first = spec.overrides.max_chars.unwrap_or(usize::MAX);
        // Fitted as sent: a prompt of quotes and backslashes takes more characters encoded.
        fit::to_ceiling(tool.name(), ceiling, server, first, fit::chars, |limit| {
            spec.overrides.max_chars = (limit != usize::MAX).then_some(limit.max(1));
            let e = prompt::execute(tool, &spec, ctx)?;
            Ok(Outcome::Done(result(e, server, spec.overrides.compress)))
        })
    },
};

fn result(e: Extraction, max_output_bytes: usize, level: Option<Compress>) -> Value {
    let Some(output) = e.output.as_deref() else {
        return tool_error("extract failed: the pipeline returned no prompt".into());
    };
    // The prompt as sent: a JSON string, its quotes, backslashes and controls escaped.
    let sent = serde_json::to_string(output).map_or(usize::MAX, |s| s.len());
    if sent > max_output_bytes {
        let mut r = tool_error(too_large_message(&e, sent, max_output_bytes));
        r["_meta"] = json!({ "gnaw/errorKind": ErrorKind::OutputTooLarge });
        return r;
    }
    let mut content = vec![json!({ "type": "text", "text": output })];
    if let Some(note) = prompt::refused_note(&e) {
        content.push(json!({ "type": "text", "text": note }));
    }
    if let Some(note) = &e.not_parsed {
        content.push(json!({ "type": "text", "text": format!(
            "compress: {note}; those files are shown whole, as text."
        )}));
    }
    let skeletons = e.files.iter().filter(|f| f.skeleton).count();
    if skeletons > 0 {
        let comments = match level.unwrap_or_default() {
            Compress::Docs => "",
            Compress::Summary => {
                " Doc comments are cut to their first sentence; other comments are left out."
            }
            Compress::Signatures => " Comments are left out.",
        };
        content.push(json!({ "type": "text", "text": format!(
            "{skeletons} files are shown as skeletons (marked so in their headings): their \
             function bodies are elided, each replaced by a line naming the lines it stands for; \
             read those lines with `read` (\"path:START-END\").{comments}"
        )}));
    }
    if !e.omitted.is_empty() {
        let tokens: usize = e.omitted.iter().map(|o| o.tokens).sum();
        let fitted = match e.max_chars {
            Some(c) => format!(
                "a budget of {} tokens and {c} characters",
                e.budget.unwrap_or(0)
            ),
            None => format!("a budget of {} tokens", e.budget.unwrap_or(0)),
        };
        content.push(json!({ "type": "text", "text": format!(
            "Trimmed to fit {fitted}: {} files ({tokens} tokens) were left out and are listed in \
             the prompt's omitted section. Ask for them with `include`, pass a `query` to change \
             which files are kept, or raise `budget` or `max_chars` (0 means unlimited).",
            e.omitted.len()
        )}));
    }
    json!({ "content": content })
}

/// Tell the agent the prompt is too big, and where the bulk of it is, so it can narrow the
/// request with `include`/`exclude`.
fn too_large_message(e: &Extraction, size: usize, max: usize) -> String {
    let mut by_top: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for f in &e.files {
        let top = match f.path.split_once('/') {
            Some((dir, _)) => dir,
            None => f.path.as_str(),
        };
        let entry = by_top.entry(top).or_insert((0, 0));
        entry.0 += f.tokens;
        entry.1 += 1;
    }
    let mut tops: Vec<_> = by_top.into_iter().collect();
    tops.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
    let mut largest: Vec<_> = e.files.iter().collect();
    largest.sort_by(|a, b| b.tokens.cmp(&a.tokens).then(a.path.cmp(&b.path)));

    let mut msg = format!(
        "The prompt is {size} bytes as sent ({} tokens, {} files), over this server's response limit \
         of {max} bytes (GNAW_MCP_MAX_OUTPUT_BYTES), so nothing was returned. Call extract \
         again with a narrower request: `include` globs for only the parts you need (e.g. \
         [\"src/**\"]) and/or `exclude` globs for bulky parts (e.g. [\"tests/**\", \
         \"**/*.json\"]). Use estimate to check the size first.",
        e.tokens,
        e.files.len()
    );
    msg.push_str("\nLargest top-level entries by tokens:");
    for (name, (tokens, files)) in tops.iter().take(8) {
        msg.push_str(&format!("\n  {name}: {tokens} tokens in {files} files"));
    }
    msg.push_str("\nLargest files:");
    for f in largest.iter().take(8) {
        msg.push_str(&format!("\n  {}: {} tokens", f.path, f.tokens));
    }
    msg
}
