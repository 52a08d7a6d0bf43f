//! What `extract` and `estimate` share: their arguments (the same ones, so an estimate is of
//! exactly the prompt the same `extract` call returns), their schema, and the pipeline run.

use super::super::tool::{Outcome, Tool, ToolContext, arg, bad_argument, parse_args, run_failure};
use crate::driver::extraction::Extraction;
use crate::driver::run_extraction;
use crate::error::Error;
use crate::spec::{ExtractionSpec, Mode, Overrides};
use serde_json::{Map, Value, json};

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

const COMPRESS_DESCRIPTION: &str = "Optional; true to show source files as skeletons: imports, \
type and function signatures, declarations and doc comments, with each function body replaced \
by a line like \"⋯ 41 lines (88–128)\" that names the lines to read for it. With a budget, files \
are kept whole while they fit, then as skeletons, then omitted; the prompt marks which is which. \
Files in languages without a grammar stay whole.";

const PROFILE_DESCRIPTION: &str = "Optional name of a [profiles.NAME] table in the \
repository's .gnawconfig whose settings (include, exclude, budget, format, ...) apply to this call.";

pub const EXTRACT_DESCRIPTION: &str = "Read a local source repository and return it as one \
LLM-ready prompt: a directory tree followed by the contents of every included text file. \
Honours .gitignore and the repository's .gnawconfig; binary, oversized and sensitive files \
(.env, private keys, credentials) are left out. Read-only. On a large repository call \
`estimate` first and narrow the request with `include`/`exclude`; a prompt larger than the \
server's response limit is refused with advice on what to exclude, never cut short.";

pub const ESTIMATE_DESCRIPTION: &str = "Count exactly how many tokens `extract` would return for \
the same arguments, without returning the text. Reports tokens, the tokenizer encoding, the \
number of files and bytes included, the size of the prompt in bytes, and how many files were \
skipped for each reason. Fast and read-only: use it to choose `include`/`exclude` globs that \
fit your context before calling `extract`.";

const CHANGED_DESCRIPTION: &str = "Optional commit (a branch, tag or commit id; \"HEAD\" for uncommitted work) to take only the files changed against it: modified, added, renamed and untracked files of the working tree, read from .git without running git, then through the normal pipeline. E.g. \"main\" to review a branch's work.";

/// The arguments of `extract` and `estimate`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtractionArgs {
    repo: Option<Value>,
    #[serde(default)]
    include: Option<arg::Globs>,
    #[serde(default)]
    exclude: Option<arg::Globs>,
    #[serde(default)]
    budget: Option<arg::Tokens>,
    #[serde(default)]
    query: Option<arg::Text>,
    #[serde(default)]
    profile: Option<arg::Text>,
    #[serde(default)]
    changed: Option<arg::Text>,
    compress: Option<bool>,
}

/// The input schema of `extract` and `estimate`.
pub fn input_schema() -> Value {
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
            "changed": { "type": "string", "description": CHANGED_DESCRIPTION },
            "compress": { "type": "boolean", "description": COMPRESS_DESCRIPTION },
        },
        "required": ["repo"],
        "additionalProperties": false,
    })
}

/// Parse the arguments, prove the repo and run the pipeline in `mode`. `Err` is the outcome to
/// return as it is (rejected arguments, a failed or cancelled run).
pub fn run(
    tool: &dyn Tool,
    args: &Map<String, Value>,
    ctx: &ToolContext<'_>,
    mode: Mode,
) -> Result<Extraction, Outcome> {
    let args: ExtractionArgs = parse_args(tool, args).map_err(Outcome::Rejected)?;
    let repo = args.repo.as_ref().ok_or_else(|| {
        Outcome::Rejected(bad_argument(
            "argument \"repo\" is required: the path of the repository to read".into(),
        ))
    })?;
    let repo = ctx.contain(repo).map_err(Outcome::Rejected)?;
    let overrides = Overrides {
        include: args.include.map(|g| g.0).unwrap_or_default(),
        exclude: args.exclude.map(|g| g.0).unwrap_or_default(),
        budget: args.budget.map(|t| t.0),
        query: args.query.map(|t| t.0),
        profile: args.profile.map(|t| t.0),
        compress: args.compress.unwrap_or(false),
        paths_from_git: args.changed.is_some(),
        ..Default::default()
    };
    let paths = match args.changed {
        None => None,
        Some(base) => {
            let req = crate::driver::nav::Request {
                repo: repo.clone(),
                overrides: overrides.clone(),
                policy: ctx.config.policy,
                cache: ctx.cache,
                observer: Some(ctx.observer),
                max_text_bytes: ctx.config.max_output_bytes / 2,
            };
            match crate::driver::git::changes::changed_paths(&req, Some(&base.0)) {
                Ok(p) => Some(p),
                Err(e) => return Err(super::navigation::failure(tool, e)),
            }
        }
    };
    let spec = ExtractionSpec {
        repo,
        overrides,
        paths,
        mode,
        observer: Some(ctx.observer),
        policy: ctx.config.policy,
        cache: ctx.cache,
    };
    let extraction = match run_extraction(&spec) {
        Ok(e) => e,
        Err(Error::Cancelled) => return Err(Outcome::Cancelled),
        Err(e) => {
            return Err(Outcome::Done(run_failure(tool.name(), &e)));
        }
    };
    if ctx.observer.cancelled() {
        return Err(Outcome::Cancelled);
    }
    for w in extraction.widenings.iter().filter(|w| w.refused) {
        log::warn!(
            "{}: repo {}: .gnawconfig key `{}` refused ({}); to let repositories use it, set {}",
            tool.name(),
            spec.repo.path().display(),
            w.key,
            w.what,
            w.operator_setting()
        );
    }
    Ok(extraction)
}

/// The settings of the repo's config this server refused, for `estimate`'s `refused`; `None`
/// when there are none (the result is then as it always was).
pub fn refused_json(e: &Extraction) -> Option<Value> {
    let refused: Vec<Value> = e
        .widenings
        .iter()
        .filter(|w| w.refused)
        .map(|w| {
            json!({
                "key": w.key,
                "what": w.what,
                "operator_setting": w.operator_setting(),
            })
        })
        .collect();
    (!refused.is_empty()).then_some(Value::Array(refused))
}

/// The note `extract` adds after the prompt when settings of the repo's config were refused.
pub fn refused_note(e: &Extraction) -> Option<String> {
    let refused: Vec<String> = e
        .widenings
        .iter()
        .filter(|w| w.refused)
        .map(|w| format!("`{}` ({})", w.key, w.what))
        .collect();
    if refused.is_empty() {
        return None;
    }
    Some(format!(
        "Not applied: this repository's .gnawconfig asks to read more than this server lets a \
         repository choose, so these settings were refused and their defaults kept: {}. The \
         prompt above is what the server's policy allows; no tool argument changes that. The \
         server's operator can allow them with GNAW_MCP_REPO_MAY_WIDEN (or \
         GNAW_MCP_MAX_FILE_SIZE for max_file_size).",
        refused.join("; ")
    ))
}

/// The schema of `refused` in `estimate`'s output.
pub fn refused_schema() -> Value {
    json!({
        "type": "array",
        "description": "Present only when the repository's .gnawconfig asked to read more than \
            this server lets a repository choose (secrets allow lists, sensitive includes, \
            hidden, no_ignore, follow_links, a max_file_size above the ceiling): each refused \
            key, what it would have done, and the operator's setting that would allow it.",
        "items": {
            "type": "object",
            "properties": {
                "key": { "type": "string" },
                "what": { "type": "string" },
                "operator_setting": { "type": "string" },
            },
            "required": ["key", "what", "operator_setting"],
        },
    })
}
