//! What the navigation tools share (not a tool): the request built from a call's context and its
//! shared arguments (typed and described once in [`super::super::args`]), how a navigation
//! failure is answered, and how an answer is returned.

use super::super::args::{Budget, Exclude, Include, Repo};
use super::super::jsonrpc::RpcError;
use super::super::tool::{Outcome, Tool, ToolContext, parse_args, run_failure};
use crate::driver::nav::{NavError, Request};
use crate::error::Error;
use crate::spec::Overrides;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

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
    repo: &Repo,
    include: Option<Include>,
    exclude: Option<Exclude>,
    budget: Option<Budget>,
) -> Result<Request<'a>, Outcome> {
    request(
        ctx,
        &repo.0,
        include.map(|g| g.0.0).unwrap_or_default(),
        exclude.map(|g| g.0.0).unwrap_or_default(),
        budget.map(|t| t.0.0),
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
