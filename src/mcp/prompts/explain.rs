//! `explain`: "explain this repository": the `overview` tool's map of the repository (its
//! languages, where tests and docs live, entry points, central files and their key
//! definitions), optionally around a focus, with the request to explain it.

use super::super::jsonrpc::RpcError;
use super::super::prompt::{Argument, Prompt, messages};
use super::super::resource::Completion;
use super::super::tool::{Outcome, ToolContext};
use super::super::tools::overview::OVERVIEW;
use super::{BUDGET, REPO, budget, complete_shared, run, tool_args};
use serde_json::{Map, Value, json};

/// The `explain` prompt.
pub struct Explain;

pub static EXPLAIN: Explain = Explain;

const ARGUMENTS: &[Argument] = &[
    REPO,
    Argument {
        name: "focus",
        description: "Words or an identifier to center the map on (optional).",
        required: false,
    },
    BUDGET,
];

impl Prompt for Explain {
    fn name(&self) -> &'static str {
        "explain"
    }
    fn title(&self) -> &'static str {
        "Explain this repository"
    }
    fn description(&self) -> &'static str {
        "The repository's overview map (central files and key definitions), to explain it."
    }
    fn arguments(&self) -> &'static [Argument] {
        ARGUMENTS
    }
    fn needs(&self) -> &'static [&'static str] {
        &["overview"]
    }

    fn get(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome {
        let go = || -> Result<Value, Outcome> {
            let budget = budget(args).map_err(Outcome::Rejected)?;
            let mut extra = json!({ "budget": budget });
            let focus = args
                .get("focus")
                .and_then(Value::as_str)
                .filter(|f| !f.is_empty());
            if let Some(focus) = focus {
                extra["query"] = json!(focus);
            }
            let (map, _) = run(&OVERVIEW, tool_args(args, extra), ctx)?;
            let around = focus.map_or(String::new(), |f| format!(", especially around {f:?}"));
            let text = format!(
                "Explain this repository to me{around}: what it is for, how it is laid out, its \
                 main parts and how they fit together, and where to start reading. Its overview \
                 map:\n\n{map}"
            );
            Ok(messages(self.title(), &[text]))
        };
        go().map_or_else(|early| early, Outcome::Done)
    }

    fn complete(
        &self,
        argument: &str,
        typed: &str,
        _context: &Map<String, Value>,
        ctx: &ToolContext<'_>,
    ) -> Result<Completion, RpcError> {
        Ok(complete_shared(argument, typed, ctx))
    }
}
