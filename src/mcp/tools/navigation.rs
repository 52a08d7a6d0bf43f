//! What the navigation tools share (not a tool): the request built from a call's context and its
//! shared arguments (typed and described once in [`super::super::args`]), how a navigation
//! failure is answered, and how an answer is returned.

use super::super::args::{Budget, Exclude, Include, MaxChars, Repo};
use super::super::jsonrpc::RpcError;
use super::super::tool::{Fields, Outcome, Tool, ToolContext, parse_args, run_failure, tool_error};
use crate::driver::nav::{Answer, NavError, Request};
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

/// A navigation call ready to run: its request, and the most characters its answer may take.
pub struct Call<'a> {
    pub req: Request<'a>,
    /// Most characters of the answer, text and structured copy together.
    pub ceiling: usize,
}

/// The call on `repo` (required) with these globs, budget and `max_chars`: the repo is proven
/// under the root here, before anything else is done.
pub fn call_request<'a>(
    ctx: &ToolContext<'a>,
    repo: &Repo,
    include: Option<Include>,
    exclude: Option<Exclude>,
    budget: Option<Budget>,
    max_chars: Option<MaxChars>,
) -> Result<Call<'a>, Outcome> {
    let ceiling = ceiling(ctx, budget.is_some(), max_chars);
    let req = request(
        ctx,
        &repo.0,
        include.map(|g| g.0.0).unwrap_or_default(),
        exclude.map(|g| g.0.0).unwrap_or_default(),
        budget.map(|t| t.0.0),
    )?;
    Ok(Call { req, ceiling })
}

/// The most characters a call's answer may take: `max_chars` when given (0: the server's
/// response limit), the server's limit when the call sets only a budget (it asked for that
/// much), else the operator's default (`GNAW_MCP_DEFAULT_MAX_CHARS`, 50,000), so that an answer
/// to a call with no sizes fits every client inline.
pub fn ceiling(ctx: &ToolContext<'_>, budget_given: bool, max_chars: Option<MaxChars>) -> usize {
    let server = ctx.config.max_output_bytes;
    match max_chars.map(|m| m.0.0) {
        Some(0) => server,
        Some(n) => n.min(server),
        None if budget_given => server,
        None => ctx.config.default_max_chars.min(server),
    }
}

/// The fields every navigation answer's structured copy starts with, and their JSON types: the
/// exact tokens of its text, the encoding they were counted in, and the budget (0: none).
pub const COUNTED: Fields = &[
    ("answer_tokens", "integer"),
    ("encoding", "string"),
    ("budget", "integer"),
];

/// The structured copy of `a`: the [`COUNTED`] fields, then the tool's own `fields` (an object).
fn structured<A: Answer>(a: &A, fields: Value) -> Value {
    let mut out = Map::new();
    out.insert("answer_tokens".into(), a.tokens().into());
    out.insert("encoding".into(), a.encoding().name().into());
    out.insert("budget".into(), a.budget().unwrap_or(0).into());
    if let Value::Object(own) = fields {
        out.extend(own);
    }
    Value::Object(out)
}

/// How many times [`answer`] runs a call before it gives up fitting its ceiling.
const ANSWER_TRIES: usize = 6;

/// Run a navigation call and answer it within its ceiling, the one road every navigation tool
/// takes: `run` gives the structured copy and the text for the request's text limit. The text
/// is first allowed the whole ceiling; when the text and the structured copy the client is sent
/// together take more characters (or more bytes than the server's response limit), the text
/// limit is lowered in proportion and the call run again, so the continuation always names
/// exactly what was shown. A failure is answered as [`failure`] says.
pub fn answer<A: Answer>(
    tool: &dyn Tool,
    ctx: &ToolContext<'_>,
    call: Call<'_>,
    mut run: impl FnMut(&Request<'_>) -> Result<A, NavError>,
    fields: impl Fn(&A) -> Value,
) -> Result<Outcome, Outcome> {
    let Call { mut req, ceiling } = call;
    let server = ctx.config.max_output_bytes;
    // A call that set a budget and no smaller ceiling is held by its budget alone, as the CLI
    // is with the same budget (its text is then bounded by the tokens); the server's response
    // limit is checked on what comes back.
    let budgeted = req.overrides.budget.is_some_and(|b| b > 0);
    let mut limit = if budgeted && ceiling >= server {
        usize::MAX
    } else {
        ceiling.min(server / 2)
    };
    for _ in 0..ANSWER_TRIES {
        req.max_text_bytes = limit;
        let a = run(&req).map_err(|e| failure(tool, e))?;
        let structured = structured(&a, fields(&a));
        let text = a.into_text();
        let sent = result(ctx, text, structured);
        let Outcome::Done(value) = &sent else {
            return Ok(sent);
        };
        // What the client receives: the text and its structured copy, serialized.
        let wire = value.to_string();
        let (chars, bytes) = (wire.chars().count(), wire.len());
        if chars <= ceiling && bytes <= server {
            return Ok(sent);
        }
        // The text's share of what fits, with a little to spare, and at least one byte less.
        let text_len = value["content"][0]["text"]
            .as_str()
            .map_or(0, str::len)
            .min(server / 2);
        let share = |fits: usize, took: usize| {
            (text_len as u128 * fits as u128 * 95 / 100 / took.max(1) as u128) as usize
        };
        limit = share(ceiling, chars)
            .min(share(server, bytes))
            .min(text_len.saturating_sub(1));
    }
    Err(Outcome::Done(tool_error(format!(
        "{}: the answer did not fit {ceiling} characters with its structured copy; raise \
         max_chars (0 for the server's limit) or narrow the request",
        tool.name()
    ))))
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
