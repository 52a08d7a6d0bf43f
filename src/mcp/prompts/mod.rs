//! gnaw-mcp's prompts, each one file, offered only when the tools they run are
//! ([`super::definition::Definition::gnaw`]): `review` (the working changes and the files
//! related to them, fitted to a budget) and `explain` (the repository's overview map). What they
//! share: their common arguments, read and completed once here, and running a tool for them.

use super::jsonrpc::RpcError;
use super::prompt::{Argument, Prompt, messages};
use super::resource::Completion;
use super::tool::{Outcome, Tool, ToolContext};
use serde_json::{Map, Value, json};

pub(crate) mod explain;
pub(crate) mod review;

/// Every prompt, in `prompts/list` order.
pub static PROMPTS: &[&dyn Prompt] = &[&review::REVIEW, &explain::EXPLAIN];

/// The texts of a prompt's messages for its arguments, or what ends it early.
pub type Texts = fn(&Map<String, Value>, &ToolContext<'_>) -> Result<Vec<String>, Outcome>;

/// One of gnaw-mcp's prompts, as a row: what `prompts/list` shows, the tools it needs, and the
/// two functions that make it (its texts, and the completions of its own arguments).
pub struct GnawPrompt {
    /// The name clients get it by.
    pub name: &'static str,
    /// A short human title (also the messages' description).
    pub title: &'static str,
    /// What it is for, in a sentence.
    pub description: &'static str,
    /// Its arguments: [`REPO`], its own, [`BUDGET`].
    pub arguments: &'static [Argument],
    /// The tools it runs: it is offered only when they all are.
    pub needs: &'static [&'static str],
    /// The texts of its messages for `args`, or what ends it early (a refusal, a failed run).
    pub texts: Texts,
    /// Completions of its own arguments (`argument`, as typed so far); `None` for the shared
    /// ones ([`complete_shared`]).
    pub complete: fn(&str, &str) -> Option<Completion>,
}

impl Prompt for GnawPrompt {
    fn name(&self) -> &'static str {
        self.name
    }
    fn title(&self) -> &'static str {
        self.title
    }
    fn description(&self) -> &'static str {
        self.description
    }
    fn arguments(&self) -> &'static [Argument] {
        self.arguments
    }
    fn needs(&self) -> &'static [&'static str] {
        self.needs
    }
    fn get(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome {
        (self.texts)(args, ctx).map_or_else(
            |early| early,
            |texts| Outcome::Done(messages(self.title, &texts)),
        )
    }
    fn complete(
        &self,
        argument: &str,
        typed: &str,
        _context: &Map<String, Value>,
        ctx: &ToolContext<'_>,
    ) -> Result<Completion, RpcError> {
        Ok((self.complete)(argument, typed)
            .unwrap_or_else(|| complete_shared(argument, typed, ctx)))
    }
}

/// The `repo` argument every prompt takes.
pub const REPO: Argument = Argument {
    name: "repo",
    description: crate::mcp::args::REPO_DESCRIPTION,
    required: false,
};

/// The `budget` argument every prompt takes.
pub const BUDGET: Argument = Argument {
    name: "budget",
    description: "Most tokens of repository text in the prompt (default 10000).",
    required: false,
};

/// The budget when none is given.
const DEFAULT_BUDGET: u64 = 10_000;
/// Budgets offered as completions.
const BUDGETS: [&str; 4] = ["4000", "10000", "20000", "40000"];

/// The `budget` argument as a number of tokens, or the refusal.
pub fn budget(args: &Map<String, Value>) -> Result<u64, RpcError> {
    match args.get("budget").and_then(Value::as_str) {
        None | Some("") => Ok(DEFAULT_BUDGET),
        Some(b) => b
            .trim()
            .parse::<u64>()
            .ok()
            .filter(|b| *b > 0)
            .ok_or_else(|| {
                super::tool::bad_argument(
                    "argument \"budget\" must be a positive whole number of tokens, e.g. \"10000\""
                        .into(),
                )
            }),
    }
}

/// Completions of the arguments every prompt shares: `repo` (the roots' names when there are
/// several) and `budget`.
pub fn complete_shared(argument: &str, typed: &str, ctx: &ToolContext<'_>) -> Completion {
    match argument {
        "repo" => {
            let roots: Vec<String> = ctx
                .containment
                .roots()
                .iter()
                .filter_map(|r| r.as_str().map(str::to_string))
                .collect();
            Completion::filtered(roots.iter().map(String::as_str), typed)
        }
        "budget" => Completion::filtered(BUDGETS, typed),
        _ => Completion::default(),
    }
}

/// The call arguments for a tool run by a prompt: `repo` when given, and `extra`.
pub fn tool_args(args: &Map<String, Value>, extra: Value) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(repo) = args
        .get("repo")
        .filter(|r| r.as_str().is_some_and(|s| !s.is_empty()))
    {
        out.insert("repo".into(), repo.clone());
    }
    if let Value::Object(extra) = extra {
        out.extend(extra);
    }
    out
}

/// The text and structured copy `tool` answers with for `args`; a refusal or a failed run ends
/// the prompt with it (a failure as a `-32603`, with the tool's reason).
pub fn run(
    tool: &dyn Tool,
    args: Map<String, Value>,
    ctx: &ToolContext<'_>,
) -> Result<(String, Value), Outcome> {
    // The structured copy is read here, whatever the client takes.
    let ctx = ToolContext {
        shape: super::tool::Shape::FULL,
        ..*ctx
    };
    match tool.call(&args, &ctx) {
        Outcome::Done(result) => {
            let text = result["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if result["isError"] == true {
                return Err(Outcome::Rejected(
                    RpcError::new(super::jsonrpc::INTERNAL_ERROR, text.clone()).with_data(json!({
                        "kind": result["_meta"]["gnaw/errorKind"],
                        "message": text,
                    })),
                ));
            }
            Ok((text, result["structuredContent"].clone()))
        }
        other => Err(other),
    }
}
