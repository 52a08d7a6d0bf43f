//! What the navigation tools share (not a tool): the shared arguments' descriptions (`repo`,
//! `include`, `exclude`, `budget`: written once, for every tool, `extract` and `estimate`
//! too), the request built from a call's context, and how a navigation failure is answered.

use super::super::jsonrpc::RpcError;
use super::super::tool::{Outcome, Tool, ToolContext, arg, bad_argument, parse_args, run_failure};
use crate::driver::nav::{NavError, Request};
use crate::error::Error;
use crate::spec::Overrides;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

pub const REPO_DESCRIPTION: &str = "Repository directory, relative to the server's root.";

pub const BUDGET_DESCRIPTION: &str = "Most tokens in the answer, counted exactly; 0 for no limit.";

pub const INCLUDE_DESCRIPTION: &str = "Globs of the files to consider, e.g. [\"src/**/*.rs\"].";

pub const EXCLUDE_DESCRIPTION: &str = "Globs of the files to leave out, e.g. [\"tests/**\"].";

/// The `repo` argument, required.
pub fn repo_arg(repo: Option<&Value>) -> Result<&Value, Outcome> {
    repo.ok_or_else(|| {
        Outcome::Rejected(bad_argument(
            "argument \"repo\" is required: the path of the repository".into(),
        ))
    })
}

/// A path argument inside the repo (`what` names it): a string, decoded and proven by the
/// driver (a string that is no usable path is `InvalidPath` there); any other JSON type is a
/// wrongly typed argument, `InvalidArguments`, like every argument but `repo`.
pub fn path_arg(what: &str, value: &Value) -> Result<String, Outcome> {
    match value {
        Value::String(s) => Ok(s.clone()),
        other => {
            let got = match other {
                Value::Null => "null",
                Value::Bool(_) => "a boolean",
                Value::Number(_) => "a number",
                Value::Array(_) => "an array",
                Value::Object(_) => "an object",
                Value::String(_) => "a string",
            };
            Err(Outcome::Rejected(bad_argument(format!(
                "argument \"{what}\": expected a string path inside the repository, got {got}"
            ))))
        }
    }
}

/// A tool's call written with `?`: `body` gives the outcome, or the one that ends it early.
pub fn outcome(body: impl FnOnce() -> Result<Outcome, Outcome>) -> Outcome {
    body().unwrap_or_else(|early| early)
}

/// The call's typed arguments, or the `-32602` answer naming what is wrong with them.
pub fn args<T: DeserializeOwned>(tool: &dyn Tool, args: &Map<String, Value>) -> Result<T, Outcome> {
    parse_args(tool, args).map_err(Outcome::Rejected)
}

/// The request for a call on `repo` (required) with these globs and budget: the repo is proven
/// under the root here, before anything else is done.
pub fn call_request<'a>(
    ctx: &ToolContext<'a>,
    repo: Option<&Value>,
    include: Option<arg::Globs>,
    exclude: Option<arg::Globs>,
    budget: Option<arg::Tokens>,
) -> Result<Request<'a>, Outcome> {
    request(
        ctx,
        repo_arg(repo)?,
        include.map(|g| g.0).unwrap_or_default(),
        exclude.map(|g| g.0).unwrap_or_default(),
        budget.map(|t| t.0),
    )
}

/// The request for a call on the proven-to-be-given `repo` with these globs and budget.
pub fn request<'a>(
    ctx: &ToolContext<'a>,
    repo: &Value,
    include: Vec<String>,
    exclude: Vec<String>,
    budget: Option<usize>,
) -> Result<Request<'a>, Outcome> {
    let repo = ctx.contain(repo).map_err(Outcome::Rejected)?;
    Ok(Request {
        repo,
        overrides: Overrides {
            include,
            exclude,
            budget,
            ..Default::default()
        },
        policy: ctx.config.policy,
        cache: ctx.cache,
        observer: Some(ctx.observer),
        // The text and its structured copy together stay within the server's response limit.
        max_text_bytes: ctx.config.max_output_bytes / 2,
    })
}

/// How a navigation failure is answered: a refused argument is `-32602` with its kind, a
/// cancelled call gets no answer, any other failure is reported to the model.
pub fn failure(tool: &dyn Tool, e: NavError) -> Outcome {
    match e {
        NavError::Argument { kind, message } => Outcome::Rejected(
            RpcError::invalid_params(message.clone())
                .with_data(json!({ "kind": kind, "message": message })),
        ),
        NavError::Run(Error::Cancelled) => Outcome::Cancelled,
        NavError::Run(e) => Outcome::Done(run_failure(tool.name(), &e)),
    }
}

/// The result: the text for the model and, for clients that take it, the structured copy.
pub fn result(ctx: &ToolContext<'_>, text: String, structured: Value) -> Outcome {
    if ctx.observer.cancelled() {
        return Outcome::Cancelled;
    }
    let mut result = json!({ "content": [{ "type": "text", "text": text }] });
    if ctx.shape.structured {
        result["structuredContent"] = structured;
    }
    Outcome::Done(result)
}

/// A JSON Schema integer property (a negative value is refused when the call's arguments are
/// read, with the argument's name).
pub fn integer(description: &str) -> Value {
    json!({ "type": "integer", "description": description })
}

/// A JSON Schema string property.
pub fn string(description: &str) -> Value {
    json!({ "type": "string", "description": description })
}
