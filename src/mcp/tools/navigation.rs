//! What the navigation tools share (not a tool): the kind of value each one is ([`Navigation`]),
//! the request built from a call's context and its shared arguments (typed and described once in
//! [`super::super::args`]), how a navigation failure is answered, and how an answer is returned.

use super::super::args::{self, Filter, MaxChars, Shared};
use super::super::fit;
use super::super::jsonrpc::RpcError;
use super::super::tool::{About, Outcome, Tool, ToolContext};
use super::super::tool::{object_schema, parse_args, run_failure};
use crate::driver::call::{Answer, NavError, Request};
use crate::error::Error;
use crate::spec::Overrides;
use schemars::JsonSchema;
use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// A navigation tool, declared as a value: what it is, whether it also takes the
/// `include`/`exclude` globs, and one run of its driver for its own arguments `A` (the shared
/// `repo`, `budget` and `max_chars`, and the globs when it takes them, are added for it), whose
/// answer holds the facts `F` besides its text. `A` is most often the driver's own argument
/// struct (`GrepArgs`), read from the call's JSON as [`crate::driver::call::args`] says, and
/// `run` the driver's function itself. Every navigation tool takes the one road: its `repo`
/// proven, the operator's policy applied, the answer fitted to the call's ceiling, failures
/// mapped, the result built ([`answer`]). Its structured copy is its answer serialized, and its
/// output schema is made from an empty answer's, so the two cannot drift.
pub struct Navigation<A, F> {
    pub about: About,
    /// Whether it takes `include` and `exclude`.
    pub filtered: bool,
    /// One run of the driver for the request (the call may run it again with a smaller text
    /// limit to fit its ceiling).
    pub run: fn(&Request<'_>, &A) -> Result<Answer<F>, NavError>,
}

impl<A, F> Tool for Navigation<A, F>
where
    A: DeserializeOwned + JsonSchema,
    F: Serialize + Default,
{
    fn about(&self) -> &About {
        &self.about
    }
    fn input_schema(&self) -> Value {
        input_schema::<A>(self.filtered)
    }
    fn output_schema(&self) -> Option<Value> {
        let empty = structured(&Answer::<F>::default());
        let fields = empty.as_object().into_iter().flatten();
        Some(object_schema(
            fields.map(|(n, v)| (n.clone(), json_type(v))),
        ))
    }
    fn call(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome {
        let run = || {
            let Scoped {
                shared,
                filter,
                own,
            } = parse_args::<Scoped<A>>(self, args).map_err(Outcome::Rejected)?;
            let call = call_request(ctx, &shared, filter)?;
            answer(self, ctx, call, |req| (self.run)(req, &own))
        };
        run().unwrap_or_else(|early| early)
    }
}

/// A navigation call's arguments: the shared ones, the globs and the tool's own, from one JSON
/// object. Each part is read on its own, so a wrong argument is still refused by its name. (The
/// globs of a tool that takes none were refused as unknown arguments before.)
pub struct Scoped<A> {
    pub shared: Shared,
    pub filter: Filter,
    pub own: A,
}

/// The names of the arguments every navigation tool shares, and of the globs.
const SHARED: [&str; 3] = ["repo", "budget", "max_chars"];
const FILTER: [&str; 2] = ["include", "exclude"];

impl<'de, A: DeserializeOwned> Deserialize<'de> for Scoped<A> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scoped<A>, D::Error> {
        let mut own = Map::<String, Value>::deserialize(d)?;
        let mut take = |names: &[&str]| -> Value {
            let taken = names
                .iter()
                .filter_map(|n| own.remove(*n).map(|v| (n.to_string(), v)))
                .collect();
            Value::Object(taken)
        };
        let shared = take(&SHARED);
        let filter = take(&FILTER);
        Ok(Scoped {
            shared: part(shared)?,
            filter: part(filter)?,
            own: part(Value::Object(own))?,
        })
    }
}

/// One part of the arguments, with a wrong one named (`argument "x": ...`).
fn part<T: DeserializeOwned, E: serde::de::Error>(value: Value) -> Result<T, E> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let name = path
            .split(['.', '['])
            .next()
            .unwrap_or_default()
            .to_string();
        match name.as_str() {
            "" => E::custom(e.into_inner()),
            name => E::custom(format!("argument \"{name}\": {}", e.into_inner())),
        }
    })
}

/// The input schema of a navigation tool whose own arguments are `A`: the shared arguments, its
/// own, and the globs when it is `filtered`; required, `repo` and then its own required ones.
fn input_schema<A: JsonSchema>(filtered: bool) -> Value {
    let mut parts = vec![args::input_schema::<Shared>(), args::input_schema::<A>()];
    if filtered {
        parts.push(args::input_schema::<Filter>());
    }
    let mut props = Map::new();
    let mut required = Vec::new();
    for mut part in parts {
        if let Some(Value::Object(p)) = part.get_mut("properties").map(Value::take) {
            props.extend(p);
        }
        if let Some(Value::Array(r)) = part.get_mut("required").map(Value::take) {
            required.extend(r);
        }
    }
    let mut schema = json!({ "type": "object", "properties": props });
    if !required.is_empty() {
        schema["required"] = Value::Array(required);
    }
    schema["additionalProperties"] = false.into();
    schema
}

/// The JSON Schema type of a value.
fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A navigation call ready to run: its request, and the most characters its answer may take.
pub struct Call<'a> {
    pub req: Request<'a>,
    /// Most characters of the answer, text and structured copy together.
    pub ceiling: usize,
}

/// The call with these shared arguments and globs: the repo is proven under the root here,
/// before anything else is done.
pub fn call_request<'a>(
    ctx: &ToolContext<'a>,
    shared: &Shared,
    filter: Filter,
) -> Result<Call<'a>, Outcome> {
    let ceiling = ceiling(ctx, shared.budget.is_some(), shared.max_chars);
    let req = request(
        ctx,
        shared.repo.as_ref().map(|r| &r.0),
        filter.include.map(|g| g.0.0).unwrap_or_default(),
        filter.exclude.map(|g| g.0.0).unwrap_or_default(),
        shared.budget.map(|t| t.0.0),
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

/// The structured copy of an answer: its page's counted fields and its facts, serialized (an
/// object: every key is a string, so serializing cannot fail).
fn structured<F: Serialize>(a: &Answer<F>) -> Value {
    serde_json::to_value(a).unwrap_or_default()
}

/// Run a navigation call and answer it within its ceiling, the one road every navigation tool
/// takes: `run` gives the answer (its text and its facts) for the request's text limit, and
/// [`fit::to_ceiling`] runs it again with a lower limit while the text and the structured copy
/// the client is sent together take more characters (or more bytes than the server's response
/// limit), so the continuation always names exactly what was shown. A failure is answered as
/// [`failure`] says.
pub fn answer<F: Serialize>(
    tool: &dyn Tool,
    ctx: &ToolContext<'_>,
    call: Call<'_>,
    mut run: impl FnMut(&Request<'_>) -> Result<Answer<F>, NavError>,
) -> Result<Outcome, Outcome> {
    let Call { mut req, ceiling } = call;
    let server = ctx.config.max_output_bytes;
    // A call that set a budget and no smaller ceiling is held by its budget alone, as the CLI
    // is with the same budget (its text is then bounded by the tokens); the server's response
    // limit is checked on what comes back.
    let budgeted = req.overrides.budget.is_some_and(|b| b > 0);
    let first = if budgeted && ceiling >= server {
        usize::MAX
    } else {
        ceiling.min(server / 2)
    };
    fit::to_ceiling(tool.name(), ceiling, server, first, fit::bytes, |limit| {
        req.max_text_bytes = limit;
        let a = run(&req).map_err(|e| failure(tool, e))?;
        let structured = structured(&a);
        Ok(result(ctx, a.page.text, structured))
    })
}

/// The request for a call on the proven-to-be-given `repo` (absent: the one root) with these
/// globs and budget.
pub fn request<'a>(
    ctx: &ToolContext<'a>,
    repo: Option<&Value>,
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
        count_answer: true,
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
