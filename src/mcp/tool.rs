//! What a tool is: the [`Tool`] trait every tool implements, a tool declared as a value
//! ([`Declared`]), the [`ToolContext`] a call runs with, the [`Outcome`] it ends with, and the
//! typed-argument parsing every tool shares. A tool is one file in `tools/` plus one line in the
//! registry ([`super::tools`]).

use super::config::Config;
use super::containment::Containment;
use super::jsonrpc::RpcError;
use crate::cache::Cache;
use crate::spec::Observer;
use crate::vocab::ErrorKind;
use gnaw_sandbox::ContainedDir;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

/// Which fields the client's protocol revision knows about. Annotations arrived in
/// 2025-03-26; `title`, `outputSchema` and `structuredContent` in 2025-06-18.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    /// The revision knows tool annotations (2025-03-26 and later).
    pub annotations: bool,
    /// The revision knows `title`, `outputSchema` and `structuredContent` (2025-06-18 and later).
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

/// Clients known to hand the model only `structuredContent` when a result has both it and
/// `content` (Claude Code: anthropics/claude-code issues 45575, 54450, 59480, 79944), matched
/// exactly, ignoring case, against `clientInfo.name`. gnaw's structured copies hold an answer's
/// facts, not its text, so such a client is sent the text alone, as a revision without
/// `structuredContent` would be. `GNAW_MCP_STRUCTURED=on` sends the copy anyway.
pub const TEXT_ONLY_CLIENTS: &[&str] = &["claude-code"];

/// Whether the client called `name` is one of [`TEXT_ONLY_CLIENTS`].
pub fn drops_text(name: &str) -> bool {
    TEXT_ONLY_CLIENTS
        .iter()
        .any(|c| c.eq_ignore_ascii_case(name.trim()))
}

impl Shape {
    /// This shape for a client called `client` under the operator's `mode`: without the
    /// structured copy (and `outputSchema`) when the mode is off, or auto and the client
    /// would show the model nothing else.
    pub fn for_client(self, client: Option<&str>, mode: super::config::Structured) -> Shape {
        use super::config::Structured;
        let keep = match mode {
            Structured::On => true,
            Structured::Off => false,
            Structured::Auto => !client.is_some_and(drops_text),
        };
        Shape {
            structured: self.structured && keep,
            ..self
        }
    }
}

/// What a call runs with.
pub struct ToolContext<'a> {
    /// Turns a `repo` argument into a directory proven to lie under the root.
    pub containment: &'a dyn Containment,
    /// The warm cache, shared by every call (`None` when turned off).
    pub cache: Option<&'a Cache>,
    /// The limits and the operator's policy.
    pub config: &'a Config,
    /// Progress reports and cancellation.
    pub observer: &'a dyn Observer,
    /// What the client's protocol revision can receive.
    pub shape: Shape,
    /// The request's params as sent: its `_meta` (a 2026-07-28 request's client capabilities),
    /// and a retried 2026-07-28 request's `inputResponses` and `requestState`.
    pub params: &'a Map<String, Value>,
    /// Send a notification (method, params) to the client, through the exit gate, while the
    /// call runs (nothing once it is cancelled).
    pub notify: &'a (dyn Fn(&str, Value) + Sync),
}

impl ToolContext<'_> {
    /// Prove a `repo` argument, or the `-32602` answer that names why it was refused. An absent
    /// (or `null`) `repo` is the root when the server has one, and refused with the list of
    /// roots when it has several.
    pub fn contain(&self, repo: Option<&Value>) -> Result<ContainedDir, RpcError> {
        let proven = match repo {
            None | Some(Value::Null) => self.containment.contain_default(),
            Some(repo) => self.containment.contain(repo),
        };
        proven.map_err(|r| {
            if r.kind == ErrorKind::InvalidArguments {
                return bad_argument(r.message);
            }
            RpcError::invalid_params(format!("Invalid repo: {}", r.message))
                .with_data(json!({ "kind": r.kind, "message": r.message }))
        })
    }
}

/// How a call ended.
#[derive(Debug)]
pub enum Outcome {
    /// A `CallToolResult` body (possibly with `isError: true`).
    Done(Value),
    /// The request itself was wrong (bad arguments, a path outside the root): a JSON-RPC error.
    Rejected(RpcError),
    /// The client cancelled: send nothing.
    Cancelled,
}

/// A tool as `tools/list` shows it and `tools/call` runs it.
pub trait Tool: Sync {
    /// What a client is told about it, besides its schemas.
    fn about(&self) -> &About;
    /// The name clients call it by: lowercase ASCII, digits and `_`.
    fn name(&self) -> &'static str {
        self.about().name
    }
    /// A short human title.
    fn title(&self) -> &'static str {
        self.about().title
    }
    /// What it does and when a model should use it.
    fn description(&self) -> &'static str {
        self.about().description
    }
    /// One line for the server's `instructions`: when to reach for this tool.
    fn summary(&self) -> &'static str {
        self.about().summary
    }
    /// The JSON Schema of its arguments: an object with `additionalProperties: false`.
    fn input_schema(&self) -> Value;
    /// The JSON Schema of its `structuredContent`, when it returns one.
    fn output_schema(&self) -> Option<Value> {
        None
    }
    /// Behaviour hints. Every gnaw tool is read-only, idempotent and closed-world.
    fn annotations(&self) -> Value {
        // destructiveHint and idempotentHint mean something only when readOnlyHint is false
        // (the MCP schema says so), so they are not sent.
        json!({
            "readOnlyHint": true,
            "openWorldHint": false,
        })
    }
    /// The most characters an answer may have, for clients that keep larger results out of the
    /// model's context (Claude Code saves results over 50,000 characters to a file unless the
    /// tool declares more with `_meta["anthropic/maxResultSizeChars"]`, up to 500,000). The
    /// default covers an answer at the default budget of 20,000 tokens: source averages 3.5 to
    /// 4 characters a token, dense text up to about 8.
    fn max_result_chars(&self) -> usize {
        200_000
    }
    /// Check the arguments, prove every path in them, and run.
    fn call(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome;
}

/// The top-level fields of a structured answer and their JSON types, in order.
pub type Fields = &'static [(&'static str, &'static str)];

/// What a client is told about a tool, besides its schemas.
pub struct About {
    /// The name clients call it by: lowercase ASCII, digits and `_`.
    pub name: &'static str,
    /// A short human title.
    pub title: &'static str,
    /// What it does and when a model should prefer it, in one or two sentences.
    pub description: &'static str,
    /// One line for the server's `instructions`: when to reach for this tool.
    pub summary: &'static str,
}

/// A tool declared as a value: what it is ([`About`]); its argument type `A`, whose derived
/// schema is the input schema and whose deserialization is what a call accepts; the names and
/// types of its structured answer; and one function from typed arguments to an outcome. The
/// arguments are parsed (unknown, missing and mistyped ones refused by name) before `run` sees
/// them. The navigation tools are values of their own kind,
/// `super::tools::navigation::Navigation`, which takes one road for all of them.
pub struct Declared<A> {
    /// The tool's name, title, description and summary line.
    pub about: About,
    /// The top-level fields of `structuredContent` and their JSON types, when it sends one.
    pub output: Option<Fields>,
    /// Run with parsed arguments; `Err` is an outcome that ends the call early (a refused
    /// `repo`, a failed run), returned as it is.
    pub run: fn(&dyn Tool, A, &ToolContext<'_>) -> Result<Outcome, Outcome>,
}

impl<A: DeserializeOwned + schemars::JsonSchema> Tool for Declared<A> {
    fn about(&self) -> &About {
        &self.about
    }
    fn input_schema(&self) -> Value {
        super::args::input_schema::<A>()
    }
    fn output_schema(&self) -> Option<Value> {
        self.output
            .map(|fields| object_schema(fields.iter().map(|(name, ty)| ((*name).to_string(), *ty))))
    }
    fn call(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome {
        match parse_args::<A>(self, args) {
            Ok(args) => (self.run)(self, args, ctx).unwrap_or_else(|early| early),
            Err(e) => Outcome::Rejected(e),
        }
    }
}

/// An object schema whose properties are these names with these JSON types, in order.
pub fn object_schema<'a>(fields: impl IntoIterator<Item = (String, &'a str)>) -> Value {
    let props: Map<String, Value> = fields
        .into_iter()
        .map(|(name, ty)| (name, json!({ "type": ty })))
        .collect();
    json!({ "type": "object", "properties": props })
}

/// `-32602` for a bad argument, with `data.kind: "InvalidArguments"`.
pub fn bad_argument(message: String) -> RpcError {
    RpcError::invalid_params(message.clone())
        .with_data(json!({ "kind": ErrorKind::InvalidArguments, "message": message }))
}

/// Parse a call's arguments into the tool's typed struct. An argument the schema does not list
/// is refused by name with the list of valid ones; a mistyped one is refused by name with what
/// was expected.
pub fn parse_args<T: DeserializeOwned>(
    tool: &dyn Tool,
    args: &Map<String, Value>,
) -> Result<T, RpcError> {
    let schema = tool.input_schema();
    // Required arguments first, then the rest by name.
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut known = required.clone();
    if let Some(props) = schema["properties"].as_object() {
        known.extend(
            props
                .keys()
                .map(String::as_str)
                .filter(|k| !required.contains(k)),
        );
    }
    if let Some(unknown) = args.keys().find(|k| !known.contains(&k.as_str())) {
        let shown: String = unknown.chars().take(64).collect();
        return Err(bad_argument(format!(
            "unknown argument \"{shown}\"; {} takes {}",
            tool.name(),
            list(&known)
        )));
    }
    // A required argument that is missing (or null) is named with what it is.
    if let Some(missing) = required
        .iter()
        .find(|name| args.get(**name).is_none_or(Value::is_null))
    {
        let what = schema["properties"][*missing]["description"]
            .as_str()
            .unwrap_or("see the tool's input schema");
        return Err(bad_argument(format!(
            "argument \"{missing}\" is required: {}",
            lower_first(what.trim_end_matches('.'))
        )));
    }
    let value = Value::Object(args.clone());
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let message = match path.as_str() {
            // A part read on its own already names its argument.
            "." | "" if inner.to_string().starts_with("argument \"") => inner.to_string(),
            "." | "" => format!("invalid arguments for {}: {inner}", tool.name()),
            p => {
                let name = p.split(['.', '[']).next().unwrap_or(p);
                format!("argument \"{name}\": {inner}")
            }
        };
        bad_argument(message)
    })
}

/// `text` with its first letter in lower case, for a description quoted inside a sentence.
fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// `a, b and c`.
fn list(names: &[&str]) -> String {
    match names {
        [] => "no arguments".into(),
        [one] => (*one).into(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// A `CallToolResult` that reports a failure to the model (`isError: true`).
pub fn tool_error(text: String) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": true })
}

/// The failed run of tool `name`, reported to the model with its reason, and to programs with
/// the error's kind in `_meta["gnaw/errorKind"]` (`InvalidConfig`, `LimitExceeded`, ...).
pub fn run_failure(name: &str, e: &crate::error::Error) -> Value {
    let mut result = tool_error(format!("{name} failed: {e}"));
    result["_meta"] = json!({ "gnaw/errorKind": e.kind() });
    result
}
