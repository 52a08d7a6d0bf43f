//! The MCP clients `gnaw-mcp setup` knows, in one table: for each, its name on the command line,
//! the file it reads, that file's format, where the servers map sits in it, and how it spells a
//! server's entry. The help text, the dispatch, the unknown-client error and docs/mcp.md's list
//! all come from [`CLIENTS`]; a fact about a client is written here and nowhere else.

/// Where a client's file lives: below `$HOME`, below `$XDG_CONFIG_HOME` (`$HOME/.config` when
/// unset), or below the workspace (`--workspace`, default the working directory).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    Home,
    XdgConfig,
    Workspace,
}

/// The file's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Json,
    Toml,
}

/// A constant field of an entry (`"type": "stdio"`, `"enabled": true`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fixed {
    Str(&'static str),
    Bool(bool),
}

/// How the program and its arguments are spelled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// `command` is the program, the named field its argument list (empty for gnaw-mcp).
    Split {
        command: &'static str,
        args: &'static str,
    },
    /// The named field is one list: the program, then its arguments.
    List(&'static str),
}

/// How a client spells one server's entry, in this order: the fixed fields, the command, the
/// environment (a map of strings under `env`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spelling {
    pub fixed: &'static [(&'static str, Fixed)],
    pub command: Command,
    pub env: &'static str,
}

/// One client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Client {
    /// Its name on the command line (`gnaw-mcp setup NAME`).
    pub name: &'static str,
    /// Its name for people.
    pub title: &'static str,
    pub base: Base,
    /// The file, below [`Client::base`].
    pub file: &'static str,
    pub format: Format,
    /// The keys, from the top of the file, of the map of servers by name.
    pub servers: &'static [&'static str],
    pub spelling: Spelling,
    /// Where the client documents this (the source of every fact in the row).
    pub docs: &'static str,
}

/// The `command` + `args` + `env` spelling most clients share.
const COMMAND_ARGS_ENV: Spelling = Spelling {
    fixed: &[],
    command: Command::Split {
        command: "command",
        args: "args",
    },
    env: "env",
};

/// Every client, in the order help and docs list them.
pub const CLIENTS: &[Client] = &[
    // User scope: the top-level `mcpServers` of ~/.claude.json, what `claude mcp add -s user`
    // writes (with "type": "stdio"). https://code.claude.com/docs/en/mcp
    Client {
        name: "claude-code",
        title: "Claude Code",
        base: Base::Home,
        file: ".claude.json",
        format: Format::Json,
        servers: &["mcpServers"],
        spelling: Spelling {
            fixed: &[("type", Fixed::Str("stdio"))],
            ..COMMAND_ARGS_ENV
        },
        docs: "https://code.claude.com/docs/en/mcp",
    },
    // Anthropic documents macOS and Windows; on Linux (community builds, Electron's appData)
    // the file is $XDG_CONFIG_HOME/Claude/. https://modelcontextprotocol.io/quickstart/user
    Client {
        name: "claude-desktop",
        title: "Claude Desktop",
        base: Base::XdgConfig,
        file: "Claude/claude_desktop_config.json",
        format: Format::Json,
        servers: &["mcpServers"],
        spelling: COMMAND_ARGS_ENV,
        docs: "https://modelcontextprotocol.io/quickstart/user",
    },
    // Global: ~/.cursor/mcp.json (a project may have .cursor/mcp.json). https://cursor.com/docs/mcp
    Client {
        name: "cursor",
        title: "Cursor",
        base: Base::Home,
        file: ".cursor/mcp.json",
        format: Format::Json,
        servers: &["mcpServers"],
        spelling: COMMAND_ARGS_ENV,
        docs: "https://cursor.com/docs/mcp",
    },
    // The workspace's .vscode/mcp.json: top-level `servers`, "type": "stdio" required.
    // https://code.visualstudio.com/docs/copilot/reference/mcp-configuration
    Client {
        name: "vscode",
        title: "VS Code",
        base: Base::Workspace,
        file: ".vscode/mcp.json",
        format: Format::Json,
        servers: &["servers"],
        spelling: Spelling {
            fixed: &[("type", Fixed::Str("stdio"))],
            ..COMMAND_ARGS_ENV
        },
        docs: "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration",
    },
    // [mcp_servers.NAME] with command, args, env in ~/.codex/config.toml.
    // https://developers.openai.com/codex/mcp
    Client {
        name: "codex",
        title: "Codex CLI",
        base: Base::Home,
        file: ".codex/config.toml",
        format: Format::Toml,
        servers: &["mcp_servers"],
        spelling: COMMAND_ARGS_ENV,
        docs: "https://developers.openai.com/codex/mcp",
    },
    // User settings: `mcpServers` in ~/.gemini/settings.json.
    // https://geminicli.com/docs/tools/mcp-server/
    Client {
        name: "gemini",
        title: "Gemini CLI",
        base: Base::Home,
        file: ".gemini/settings.json",
        format: Format::Json,
        servers: &["mcpServers"],
        spelling: COMMAND_ARGS_ENV,
        docs: "https://geminicli.com/docs/tools/mcp-server/",
    },
    // Global config: `mcp.NAME` = {type: "local", command: [program, args...], environment,
    // enabled} in ~/.config/opencode/opencode.json. https://opencode.ai/docs/mcp-servers/
    Client {
        name: "opencode",
        title: "OpenCode",
        base: Base::XdgConfig,
        file: "opencode/opencode.json",
        format: Format::Json,
        servers: &["mcp"],
        spelling: Spelling {
            fixed: &[
                ("type", Fixed::Str("local")),
                ("enabled", Fixed::Bool(true)),
            ],
            command: Command::List("command"),
            env: "environment",
        },
        docs: "https://opencode.ai/docs/mcp-servers/",
    },
    // User settings: `context_servers` in ~/.config/zed/settings.json (often with comments,
    // which setup --write keeps). https://zed.dev/docs/ai/mcp
    Client {
        name: "zed",
        title: "Zed",
        base: Base::XdgConfig,
        file: "zed/settings.json",
        format: Format::Json,
        servers: &["context_servers"],
        spelling: COMMAND_ARGS_ENV,
        docs: "https://zed.dev/docs/ai/mcp",
    },
];

impl Client {
    /// The file as help and docs show it: `~/.claude.json`, `~/.config/zed/settings.json`
    /// (`$XDG_CONFIG_HOME` when set), `WORKSPACE/.vscode/mcp.json`.
    pub fn shown_file(&self) -> String {
        let base = match self.base {
            Base::Home => "~/",
            Base::XdgConfig => "~/.config/",
            Base::Workspace => "WORKSPACE/",
        };
        format!("{base}{}", self.file)
    }
}

/// The client named `name` on the command line.
pub fn by_name(name: &str) -> Option<&'static Client> {
    CLIENTS.iter().find(|c| c.name == name)
}

/// Every client's command-line name, in table order.
pub fn names() -> impl Iterator<Item = &'static str> {
    CLIENTS.iter().map(|c| c.name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/mcp.md lists the clients in the table's order, with the table's files and keys.
    #[test]
    fn the_docs_list_is_the_table() {
        let docs = include_str!("../../../docs/mcp.md");
        let rows: Vec<&str> = docs
            .lines()
            .filter(|l| l.starts_with("| `") && l.contains("gnaw-mcp setup "))
            .collect();
        let expected: Vec<String> = CLIENTS
            .iter()
            .map(|c| {
                format!(
                    "| `gnaw-mcp setup {}` | {} | `{}` | `{}` |",
                    c.name,
                    c.title,
                    c.shown_file(),
                    c.servers.join(".")
                )
            })
            .collect();
        assert_eq!(rows.len(), expected.len(), "{rows:#?}");
        for (row, want) in rows.iter().zip(&expected) {
            assert!(
                row.starts_with(want.as_str()),
                "docs/mcp.md: {row}\nwanted: {want}"
            );
        }
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = names().collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CLIENTS.len());
    }
}
