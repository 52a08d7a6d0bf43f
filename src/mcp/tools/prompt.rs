//! What `extract` and `estimate` share: their arguments (the same ones, so an estimate is of
//! exactly the prompt the same `extract` call returns), their schema, and the pipeline run.

use super::super::args::{Budget, CompressArg, Exclude, Include, MaxChars, Repo, Text};
use super::super::tool::{Outcome, Tool, ToolContext, run_failure};
use crate::driver::extraction::Extraction;
use crate::driver::run_extraction;
use crate::error::Error;
use crate::spec::{ExtractionSpec, Mode, Overrides};
use serde_json::{Value, json};

/// The `extract` tool's description, as `tools/list` gives it.
pub const EXTRACT_DESCRIPTION: &str = "The repository as one prompt: a tree, then every file, exact token count. Call `estimate` first when large.";

/// The `estimate` tool's description, as `tools/list` gives it.
pub const ESTIMATE_DESCRIPTION: &str = "The exact tokens and files `extract` would give for the same arguments, without the text, to choose globs.";

/// The arguments of `extract` and `estimate`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct ExtractionArgs {
    repo: Option<Repo>,
    include: Option<Include>,
    exclude: Option<Exclude>,
    budget: Option<Budget>,
    max_chars: Option<MaxChars>,
    /// Words or an identifier to rank files for the budget.
    query: Option<Text>,
    /// A [profiles.NAME] table of .gnawconfig to apply.
    profile: Option<Text>,
    /// Only files changed since this commit (HEAD: uncommitted).
    changed: Option<Text>,
    compress: Option<CompressArg>,
}

impl ExtractionArgs {
    /// Whether the call sets a budget.
    pub fn budget_given(&self) -> bool {
        self.budget.is_some()
    }
    /// The call's `max_chars`.
    pub fn max_chars(&self) -> Option<MaxChars> {
        self.max_chars
    }
}

/// Characters kept for the notes `extract` adds after the prompt (refused settings, skeletons,
/// what was left out), out of the answer's ceiling.
const NOTES_RESERVE: usize = 2_000;

/// Prove the repo and make the pipeline's run in `mode` for parsed arguments, with the call's
/// ceiling (`super::navigation::ceiling`). `Err` is the outcome to return as it is (a refused
/// repo, a failed or cancelled `changed`). When the ceiling is below the server's response
/// limit, the prompt is fitted to it, less room for the notes (the caller lowers it further
/// while the answer as sent is over); at the limit, a larger prompt is refused with advice.
pub fn prepare<'a>(
    tool: &dyn Tool,
    args: ExtractionArgs,
    ctx: &ToolContext<'a>,
    mode: Mode,
) -> Result<(ExtractionSpec<'a>, usize), Outcome> {
    let ceiling = super::navigation::ceiling(ctx, args.budget.is_some(), args.max_chars);
    let max_chars = (ceiling < ctx.config.max_output_bytes)
        .then(|| ceiling.saturating_sub(NOTES_RESERVE).max(1));
    let repo = ctx
        .contain(args.repo.as_ref().map(|r| &r.0))
        .map_err(Outcome::Rejected)?;
    let overrides = Overrides {
        include: args.include.map(|g| g.0.0).unwrap_or_default(),
        exclude: args.exclude.map(|g| g.0.0).unwrap_or_default(),
        budget: args.budget.map(|t| t.0.0),
        max_chars,
        // Counted as the client receives the prompt: a JSON string.
        max_chars_json: true,
        query: args.query.map(|t| t.0),
        profile: args.profile.map(|t| t.0),
        compress: args.compress.and_then(|c| c.0),
        paths_from_git: args.changed.is_some(),
        ..Default::default()
    };
    let paths = match args.changed {
        None => None,
        Some(base) => {
            let req = crate::driver::call::Request {
                repo: repo.clone(),
                overrides: overrides.clone(),
                policy: ctx.config.policy,
                cache: ctx.cache,
                observer: Some(ctx.observer),
                max_text_bytes: ctx.config.max_output_bytes / 2,
                count_answer: true,
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
    Ok((spec, ceiling))
}

/// Run the pipeline for `spec`. `Err` is the outcome to return as it is (a failed or cancelled
/// run).
pub fn execute(
    tool: &dyn Tool,
    spec: &ExtractionSpec<'_>,
    ctx: &ToolContext<'_>,
) -> Result<Extraction, Outcome> {
    let extraction = match run_extraction(spec) {
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
