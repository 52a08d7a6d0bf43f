//! A server definition: everything a server built on this protocol layer offers, apart from the
//! protocol itself: its tools (and why a known tool is off), its resources, its prompts, its
//! instructions and its name. [`super::dispatch`] serves any definition the same way; gnaw-mcp's
//! is [`Definition::gnaw`], and the conformance suite's fixture server
//! (`examples/conformance_fixture.rs`) is another over the same dispatcher.

use std::sync::Arc;

use serde_json::{Value, json};

use super::containment::Containment;
use super::prompt::Prompt;
use super::resource::Resources;
use super::selection::ToolSet;
use super::tool::Tool;

/// Why a known tool is refused: the message for a tool that is off, `None` for a name no tool
/// has.
pub type OffMessage = Box<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// What a server offers.
pub struct Definition {
    /// `serverInfo.name`.
    pub name: &'static str,
    /// The tools offered, in `tools/list` order.
    pub tools: Vec<&'static dyn Tool>,
    /// Why a tool that is not offered is refused.
    pub off: OffMessage,
    /// Its resources, when it has any.
    pub resources: Option<Arc<dyn Resources>>,
    /// Its prompts, in `prompts/list` order.
    pub prompts: Vec<&'static dyn Prompt>,
    /// What `initialize` and `server/discover` tell the model.
    pub instructions: String,
}

impl Definition {
    /// gnaw-mcp: the tools of `offered`, the roots' files as resources, and the prompts whose
    /// tools are all offered.
    pub fn gnaw(offered: ToolSet, containment: &dyn Containment) -> Definition {
        let tools = offered.tools();
        let mut instructions = super::tools::instructions(&tools);
        if let Some(roots) = containment.describe() {
            instructions.push(' ');
            instructions.push_str(&roots);
        }
        let prompts = super::prompts::PROMPTS
            .iter()
            .copied()
            .filter(|p| p.needs().iter().all(|t| offered.contains(t)))
            .collect();
        Definition {
            name: "gnaw-mcp",
            tools,
            off: Box::new(move |name| super::tools::find(name).map(|_| offered.off_message(name))),
            resources: Some(Arc::new(super::files::Files::new(containment))),
            prompts,
            instructions,
        }
    }

    /// The tool called `name`, when it is offered.
    pub fn tool(&self, name: &str) -> Option<&'static dyn Tool> {
        self.tools.iter().copied().find(|t| t.name() == name)
    }

    /// The prompt called `name`.
    pub fn prompt(&self, name: &str) -> Option<&'static dyn Prompt> {
        self.prompts.iter().copied().find(|p| p.name() == name)
    }

    /// The capabilities it declares.
    pub fn capabilities(&self) -> Value {
        let mut caps = json!({ "tools": {} });
        if self.resources.is_some() {
            caps["resources"] = json!({});
        }
        if !self.prompts.is_empty() {
            caps["prompts"] = json!({});
        }
        if self.resources.is_some() || !self.prompts.is_empty() {
            caps["completions"] = json!({});
        }
        caps
    }

    /// The methods it answers besides the protocol's own, for the error that names them.
    pub fn methods(&self) -> Vec<&'static str> {
        let mut methods = vec!["tools/list", "tools/call"];
        if self.resources.is_some() {
            methods.extend([
                "resources/list",
                "resources/templates/list",
                "resources/read",
            ]);
        }
        if !self.prompts.is_empty() {
            methods.extend(["prompts/list", "prompts/get"]);
        }
        if self.resources.is_some() || !self.prompts.is_empty() {
            methods.push("completion/complete");
        }
        methods
    }
}
