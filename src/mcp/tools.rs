//! The two tools, `extract` and `estimate`: their schemas as `tools/list` shows them, argument
//! checking, and running them through [`crate::run_extraction`].
//!
//! The `repo` argument reaches the pipeline only through a [`Containment`], which turns the
//! raw JSON value into a [`ContainedDir`] or a named rejection. There is no other path route.

use super::server::Config;
use crate::{Error, Extraction, ExtractionSpec, Mode, Observer, Overrides};
use gnaw_sandbox::{ContainedDir, Root};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

use super::jsonrpc::RpcError;

/// Why a `repo` argument was refused: a stable kind (`OutsideRoot`, `NotFound`, ...) and a
/// message that never repeats anything read from outside the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    pub kind: &'static str,
    pub message: String,
}

/// Turns an untrusted `repo` value into a directory proven to lie under the server's root.
/// gnaw-mcp implements it with [`RootContainment`]; tests may substitute their own.
pub trait Containment: Send + Sync {
    fn contain(&self, repo: &Value) -> Result<ContainedDir, Rejected>;
}

/// The sandbox's root as the server's containment (`gnaw_sandbox::Root::contain_json`): the only
/// route from a `repo` argument to a path the pipeline reads.
pub struct RootContainment(pub Root);

impl Containment for RootContainment {
    fn contain(&self, repo: &Value) -> Result<ContainedDir, Rejected> {
        self.0.contain_json(repo).map_err(|r| Rejected {
            kind: r.kind(),
            message: r.to_string(),
        })
    }
}

/// Which tool a call is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Extract,
    Estimate,
}

impl Tool {
    pub fn from_name(name: &str) -> Option<Tool> {
        match name {
            "extract" => Some(Tool::Extract),
            "estimate" => Some(Tool::Estimate),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Tool::Extract => "extract",
            Tool::Estimate => "estimate",
        }
    }
}

/// Which fields the client's protocol revision knows about. Annotations arrived in
/// 2025-03-26; `title`, `outputSchema` and `structuredContent` in 2025-06-18.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub annotations: bool,
    pub structured: bool,
}

impl Shape {
    /// Everything: the 2026-07-28 revision and the newest legacy ones.
    pub const FULL: Shape = Shape {
        annotations: true,
        structured: true,
    };

    /// The shape for a negotiated legacy revision (`YYYY-MM-DD` strings sort by date).
    pub fn for_version(version: &str) -> Shape {
        Shape {
            annotations: version >= "2025-03-26",
            structured: version >= "2025-06-18",
        }
    }
}

const REPO_DESCRIPTION: &str = "Path of the repository directory to read. A relative path \
resolves against the server's root directory (\".\" is the root itself); an absolute path must \
lie inside the root. Paths outside the root, missing paths and files are rejected.";

const INCLUDE_DESCRIPTION: &str = "Optional glob patterns, relative to the repository, of the \
files to include, e.g. [\"src/**/*.rs\", \"README.md\"]. Added to any include patterns in the \
repository's .gnawconfig. Omit to include every file that is not excluded.";

const EXCLUDE_DESCRIPTION: &str = "Optional glob patterns, relative to the repository, of files \
to leave out, e.g. [\"tests/**\", \"**/*.lock\", \"docs/**\"]. Added to the repository's \
.gnawconfig excludes and its .gitignore rules.";

const BUDGET_DESCRIPTION: &str = "Optional maximum size of the prompt in tokens. Whole files \
are kept, most relevant first (see `query`); the rest are listed in an \"omitted\" section with \
their token counts so you can ask for them with `include`. 0 means unlimited. When omitted, the \
repository's .gnawconfig budget or the server's default applies.";

const QUERY_DESCRIPTION: &str = "Optional text describing what you are looking for, e.g. \
\"where are HTTP retries configured\" or an identifier like \"parseConfig\". Files are ranked by \
relevance to it (BM25 over code-aware terms, boosted when it names a file, directory or \
symbol), which decides what a budget keeps. The prompt itself stays in path order.";

const PROFILE_DESCRIPTION: &str = "Optional name of a [profiles.NAME] table in the \
repository's .gnawconfig whose settings (include, exclude, budget, format, ...) apply to this call.";

const EXTRACT_DESCRIPTION: &str = "Read a local source repository and return it as one \
LLM-ready prompt: a directory tree followed by the contents of every included text file. \
Honours .gitignore and the repository's .gnawconfig; binary, oversized and sensitive files \
(.env, private keys, credentials) are left out. Read-only. On a large repository call \
`estimate` first and narrow the request with `include`/`exclude`; a prompt larger than the \
server's response limit is refused with advice on what to exclude, never cut short.";

const ESTIMATE_DESCRIPTION: &str = "Count exactly how many tokens `extract` would return for \
the same arguments, without returning the text. Reports tokens, the tokenizer encoding, the \
number of files and bytes included, the size of the prompt in bytes, and how many files were \
skipped for each reason. Fast and read-only: use it to choose `include`/`exclude` globs that \
fit your context before calling `extract`.";

fn input_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "repo": { "type": "string", "description": REPO_DESCRIPTION },
            "include": {
                "type": "array",
                "items": { "type": "string" },
                "description": INCLUDE_DESCRIPTION,
            },
            "exclude": {
                "type": "array",
                "items": { "type": "string" },
                "description": EXCLUDE_DESCRIPTION,
            },
            "budget": { "type": "integer", "minimum": 0, "description": BUDGET_DESCRIPTION },
            "query": { "type": "string", "description": QUERY_DESCRIPTION },
            "profile": { "type": "string", "description": PROFILE_DESCRIPTION },
        },
        "required": ["repo"],
        "additionalProperties": false,
    })
}

fn count(description: &str) -> Value {
    json!({ "type": "integer", "minimum": 0, "description": description })
}

/// The schema of `estimate`'s `structuredContent`.
fn estimate_output_schema() -> Value {
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
        },
        "required": ["tokens", "encoding", "files", "bytes", "output_bytes", "skipped", "budget", "trimmed", "omitted", "secrets"],
        "additionalProperties": false,
    })
}

/// The tool definitions for `tools/list`, in a fixed order.
pub fn definitions(shape: Shape) -> Vec<Value> {
    [
        (Tool::Extract, "Extract repository", EXTRACT_DESCRIPTION),
        (
            Tool::Estimate,
            "Estimate repository tokens",
            ESTIMATE_DESCRIPTION,
        ),
    ]
    .into_iter()
    .map(|(tool, title, description)| {
        let mut def = json!({
            "name": tool.name(),
            "description": description,
            "inputSchema": input_schema(),
        });
        if shape.structured {
            def["title"] = json!(title);
            if tool == Tool::Estimate {
                def["outputSchema"] = estimate_output_schema();
            }
        }
        if shape.annotations {
            def["annotations"] = json!({
                "title": title,
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": false,
            });
        }
        def
    })
    .collect()
}

/// A checked tool call, ready for the worker.
pub struct Call {
    pub tool: Tool,
    pub repo: ContainedDir,
    pub overrides: Overrides,
}

fn bad_argument(message: String) -> RpcError {
    RpcError::invalid_params(message.clone())
        .with_data(json!({ "kind": "InvalidArguments", "message": message }))
}

fn string_list(args: &Map<String, Value>, key: &str) -> Result<Vec<String>, RpcError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) if !s.contains('\0') => Ok(s.clone()),
                _ => Err(bad_argument(format!(
                    "argument \"{key}\" must be an array of glob strings"
                ))),
            })
            .collect(),
        Some(_) => Err(bad_argument(format!(
            "argument \"{key}\" must be an array of glob strings, e.g. [\"src/**\"]"
        ))),
    }
}

/// Check a `tools/call`'s `name` and `arguments` and contain its `repo`. Every failure is a
/// JSON-RPC invalid-params error: an unknown tool, an unknown or mistyped argument, or a repo
/// the containment refused (whose `data` is `{kind, message}`).
pub fn prepare(
    params: &Map<String, Value>,
    containment: &dyn Containment,
) -> Result<Call, RpcError> {
    let tool = match params.get("name") {
        Some(Value::String(name)) => Tool::from_name(name).ok_or_else(|| {
            RpcError::invalid_params("Unknown tool; this server has the tools extract and estimate")
        })?,
        _ => {
            return Err(RpcError::invalid_params(
                "\"name\" must be a tool name string",
            ));
        }
    };
    let empty = Map::new();
    let args = match params.get("arguments") {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(args)) => args,
        Some(_) => return Err(bad_argument("\"arguments\" must be an object".into())),
    };
    if let Some(unknown) = args.keys().find(|k| {
        !matches!(
            k.as_str(),
            "repo" | "include" | "exclude" | "budget" | "query" | "profile"
        )
    }) {
        let shown: String = unknown.chars().take(64).collect();
        return Err(bad_argument(format!(
            "unknown argument \"{shown}\"; {} takes repo, include, exclude, budget, query and profile",
            tool.name()
        )));
    }
    let include = string_list(args, "include")?;
    let exclude = string_list(args, "exclude")?;
    let budget = match args.get("budget") {
        None | Some(Value::Null) => None,
        Some(v) => Some(v.as_u64().map(|n| n as usize).ok_or_else(|| {
            bad_argument(
                "argument \"budget\" must be a non-negative integer number of tokens (0 for unlimited)"
                    .into(),
            )
        })?),
    };
    let text_arg = |key: &str| -> Result<Option<String>, RpcError> {
        match args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) if !s.contains('\0') => Ok(Some(s.clone())),
            Some(_) => Err(bad_argument(format!("argument \"{key}\" must be a string"))),
        }
    };
    let query = text_arg("query")?;
    let profile = text_arg("profile")?;
    let repo_value = args.get("repo").ok_or_else(|| {
        bad_argument("argument \"repo\" is required: the path of the repository to read".into())
    })?;
    let repo = containment.contain(repo_value).map_err(|r| {
        RpcError::invalid_params(format!("Invalid repo: {}", r.message))
            .with_data(json!({ "kind": r.kind, "message": r.message }))
    })?;
    Ok(Call {
        tool,
        repo,
        overrides: Overrides {
            include,
            exclude,
            budget,
            query,
            profile,
            ..Default::default()
        },
    })
}

/// How a call ended.
#[derive(Debug)]
pub enum Outcome {
    /// A `CallToolResult` body (possibly with `isError: true`).
    Done(Value),
    /// The client cancelled: send nothing.
    Cancelled,
}

fn tool_error(text: String) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": true })
}

/// Run a checked call through the pipeline.
pub fn run(
    call: Call,
    observer: &dyn Observer,
    shape: Shape,
    config: &Config,
    cache: Option<&crate::cache::Cache>,
) -> Outcome {
    let mode = match call.tool {
        Tool::Extract => Mode::Render,
        Tool::Estimate => Mode::Estimate,
    };
    let spec = ExtractionSpec {
        repo: call.repo,
        overrides: call.overrides,
        paths: None,
        mode,
        observer: Some(observer),
        policy: config.policy,
        cache,
    };
    let extraction = match crate::run_extraction(&spec) {
        Ok(e) => e,
        Err(Error::Cancelled) => return Outcome::Cancelled,
        Err(e) => return Outcome::Done(tool_error(format!("{} failed: {e}", call.tool.name()))),
    };
    if observer.cancelled() {
        return Outcome::Cancelled;
    }
    Outcome::Done(match call.tool {
        Tool::Estimate => estimate_result(&extraction, shape),
        Tool::Extract => extract_result(extraction, config.max_output_bytes),
    })
}

/// `estimate`'s structured summary.
pub fn estimate_summary(e: &Extraction) -> Value {
    let mut skipped: BTreeMap<&str, u64> = BTreeMap::new();
    for s in &e.skipped {
        *skipped.entry(s.reason.kind()).or_insert(0) += 1;
    }
    json!({
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
    })
}

fn estimate_result(e: &Extraction, shape: Shape) -> Value {
    let summary = estimate_summary(e);
    // Clients before 2025-06-18 only read `content`, so the text carries the same JSON.
    let mut result = json!({ "content": [{ "type": "text", "text": summary.to_string() }] });
    if shape.structured {
        result["structuredContent"] = summary;
    }
    result
}

fn extract_result(e: Extraction, max_output_bytes: usize) -> Value {
    let Some(output) = e.output.as_deref() else {
        return tool_error("extract failed: the pipeline returned no prompt".into());
    };
    if output.len() > max_output_bytes {
        return tool_error(too_large_message(&e, output.len(), max_output_bytes));
    }
    let mut content = vec![json!({ "type": "text", "text": output })];
    if !e.omitted.is_empty() {
        let tokens: usize = e.omitted.iter().map(|o| o.tokens).sum();
        content.push(json!({ "type": "text", "text": format!(
            "Trimmed to fit a budget of {} tokens: {} files ({tokens} tokens) were left out and are \
             listed in the prompt's omitted section. Ask for them with `include`, pass a `query` \
             to change which files are kept, or raise `budget` (0 means unlimited).",
            e.budget.unwrap_or(0),
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
        "The prompt is {size} bytes ({} tokens, {} files), over this server's response limit \
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_follow_the_rules() {
        for shape in [Shape::FULL, Shape::for_version("2024-11-05")] {
            let defs = definitions(shape);
            assert_eq!(defs.len(), 2);
            for def in &defs {
                let name = def["name"].as_str().unwrap();
                assert!(
                    name.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
                );
                let schema = &def["inputSchema"];
                assert_eq!(schema["type"], "object");
                assert_eq!(schema["additionalProperties"], false);
                for key in ["oneOf", "anyOf", "allOf", "$ref"] {
                    assert!(schema.get(key).is_none());
                }
                for (_, prop) in schema["properties"].as_object().unwrap() {
                    assert!(prop["type"].is_string());
                    assert!(prop["description"].as_str().unwrap().len() > 40);
                }
            }
        }
    }

    #[test]
    fn shapes_follow_the_negotiated_revision() {
        let old = definitions(Shape::for_version("2024-11-05"));
        assert!(old.iter().all(|d| d.get("annotations").is_none()));
        let mid = definitions(Shape::for_version("2025-03-26"));
        assert!(mid.iter().all(|d| d["annotations"]["readOnlyHint"] == true));
        assert!(mid.iter().all(|d| d.get("outputSchema").is_none()));
        let new = definitions(Shape::for_version("2025-11-25"));
        assert_eq!(new[1]["outputSchema"]["type"], "object");
        assert_eq!(new, definitions(Shape::FULL));
    }
}
