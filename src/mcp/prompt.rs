//! What a prompt is: the [`Prompt`] trait a server definition's prompts implement (gnaw-mcp's
//! are in `super::prompts`): its definition for `prompts/list`, its messages for
//! `prompts/get` (run on the call worker, as a tool call is, since they may read the
//! repository), and completions for its arguments.

use super::jsonrpc::RpcError;
use super::resource::Completion;
use super::tool::{Outcome, ToolContext};
use serde_json::{Map, Value, json};

/// One argument of a prompt.
pub struct Argument {
    /// The argument's name.
    pub name: &'static str,
    /// What it is for, in a sentence.
    pub description: &'static str,
    /// Whether `prompts/get` needs it.
    pub required: bool,
}

/// A prompt as `prompts/list` shows it and `prompts/get` runs it.
pub trait Prompt: Sync {
    /// The name clients get it by.
    fn name(&self) -> &'static str;
    /// A short human title.
    fn title(&self) -> &'static str;
    /// What it is for, in a sentence.
    fn description(&self) -> &'static str;
    /// Its arguments.
    fn arguments(&self) -> &'static [Argument];
    /// The tools it runs: it is offered only when they all are.
    fn needs(&self) -> &'static [&'static str] {
        &[]
    }
    /// A `GetPromptResult` (`messages`) for `args`, or the refusal.
    fn get(&self, args: &Map<String, Value>, ctx: &ToolContext<'_>) -> Outcome;
    /// Values for `argument` as typed so far, given the arguments already chosen (`context`).
    fn complete(
        &self,
        _argument: &str,
        _typed: &str,
        _context: &Map<String, Value>,
        _ctx: &ToolContext<'_>,
    ) -> Result<Completion, RpcError> {
        Ok(Completion::default())
    }
}

/// The definition of `prompt`, for `prompts/list`.
pub fn definition(prompt: &dyn Prompt) -> Value {
    let arguments: Vec<Value> = prompt
        .arguments()
        .iter()
        .map(|a| json!({ "name": a.name, "description": a.description, "required": a.required }))
        .collect();
    json!({
        "name": prompt.name(),
        "title": prompt.title(),
        "description": prompt.description(),
        "arguments": arguments,
    })
}

/// The arguments of a `prompts/get`: strings by name (the MCP schema's), each one `prompt`
/// takes, every required one given; else the `-32602` that names what is wrong.
pub fn arguments(
    prompt: &dyn Prompt,
    params: &Map<String, Value>,
) -> Result<Map<String, Value>, RpcError> {
    let args = match params.get("arguments") {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(a)) => a.clone(),
        Some(_) => {
            return Err(super::tool::bad_argument(
                "\"arguments\" must be an object of strings".into(),
            ));
        }
    };
    let known = prompt.arguments();
    let names: Vec<&str> = known.iter().map(|a| a.name).collect();
    for (name, value) in &args {
        if !names.contains(&name.as_str()) {
            let shown: String = name.chars().take(64).collect();
            return Err(super::tool::bad_argument(format!(
                "unknown argument \"{shown}\"; {} takes {}",
                prompt.name(),
                if names.is_empty() {
                    "no arguments".to_string()
                } else {
                    names.join(", ")
                }
            )));
        }
        if !value.is_string() {
            return Err(super::tool::bad_argument(format!(
                "argument \"{name}\" must be a string"
            )));
        }
    }
    if let Some(missing) = known
        .iter()
        .find(|a| a.required && !args.contains_key(a.name))
    {
        return Err(super::tool::bad_argument(format!(
            "argument \"{}\" is required: {}",
            missing.name, missing.description
        )));
    }
    Ok(args)
}

/// A `GetPromptResult` of one user message per text, with `description`.
pub fn messages(description: &str, texts: &[String]) -> Value {
    let messages: Vec<Value> = texts
        .iter()
        .map(|t| json!({ "role": "user", "content": { "type": "text", "text": t } }))
        .collect();
    json!({ "description": description, "messages": messages })
}
