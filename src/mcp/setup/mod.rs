//! `gnaw-mcp setup CLIENT`: register gnaw-mcp with an MCP client in one command. Without
//! `--write` it prints the client's file and the exact entry to put there; with `--write` it
//! merges the entry into that file, keeping every other byte of it (entries, comments, numbers
//! as written, layout).
//!
//! This is a front-end concern and runs only from the command line, before anything sandboxed:
//! it neither starts the sandbox nor reads `GNAW_MCP_ROOT`; the roots it writes come from
//! `--root` (default: the working directory). It is the one place gnaw-mcp writes a file, and
//! every such write is in `files.rs`. The clients and their formats are one table, `clients`.

pub(crate) mod clients;
mod files;
mod json;
mod toml_doc;

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::builder::{PossibleValue, PossibleValuesParser};

use self::clients::{Base, Client, Command, Fixed, Format};
use self::json::Json;
use super::operator;
use super::selection::{self, ToolSet};

/// The environment variable the roots go in.
const ROOT_ENV: &str = "GNAW_MCP_ROOT";

/// What merging did to the servers map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The server was not in the client's file: it was added.
    Added,
    /// The client's file already had an entry of that name: its value was replaced.
    Replaced,
}

/// `gnaw-mcp setup`'s arguments.
#[derive(clap::Args, Debug, Clone)]
pub struct SetupArgs {
    /// The MCP client to register gnaw-mcp with.
    #[arg(value_name = "CLIENT", value_parser = client_names())]
    pub client: String,
    /// Merge the entry into the client's file (created if missing; the old one kept as a new
    /// backup, FILE.bak or FILE.bak.N) instead of printing it.
    #[arg(long)]
    pub write: bool,
    /// With --write: replace an entry of the same name.
    #[arg(long, requires = "write")]
    pub force: bool,
    /// The server's name in the client's file.
    #[arg(long, value_name = "NAME", default_value = "gnaw")]
    pub name: String,
    /// A directory the tools may read (GNAW_MCP_ROOT); repeat for several. Default: the working
    /// directory (for vscode, the workspace).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// The tools offered (GNAW_MCP_TOOLS), e.g. minimal or -changes,-log. Default: every tool.
    #[arg(long, value_name = "SEL")]
    pub tools: Option<String>,
    /// Another setting for the server, KEY=VALUE; KEY is a GNAW_MCP_* variable or RUST_LOG.
    /// Repeat for several.
    #[arg(long = "env", value_name = "KEY=VALUE")]
    pub env: Vec<String>,
    /// vscode only: the workspace whose .vscode/mcp.json to use. Default: the working directory.
    #[arg(long, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
}

/// CLIENT's accepted values, with each client's file as its help, from the table.
fn client_names() -> PossibleValuesParser {
    PossibleValuesParser::new(
        clients::CLIENTS
            .iter()
            .map(|c| PossibleValue::new(c.name).help(format!("{}: {}", c.title, c.shown_file()))),
    )
}

/// Where the client's file is, from the environment and `--workspace`.
fn client_file(client: &Client, workspace: Option<&Path>) -> Result<files::ClientFile, String> {
    let home = || match std::env::var_os("HOME") {
        Some(h) if Path::new(&h).is_absolute() => Ok(PathBuf::from(h)),
        _ => Err(format!(
            "HOME is not set to an absolute path, so {}'s file cannot be found; set HOME to \
             your home directory",
            client.title
        )),
    };
    let base = match client.base {
        Base::Home => home()?,
        Base::XdgConfig => match std::env::var_os("XDG_CONFIG_HOME") {
            Some(x) if Path::new(&x).is_absolute() => PathBuf::from(x),
            _ => home()?.join(".config"),
        },
        Base::Workspace => match workspace {
            Some(dir) => dir.to_path_buf(),
            None => files::canonical_dir(Path::new("."))
                .map_err(|e| format!("cannot use the working directory as the workspace: {e}"))?,
        },
    };
    Ok(files::ClientFile::new(
        base,
        client.file,
        client.base == Base::Workspace,
    ))
}

/// The environment the entry sets: `GNAW_MCP_ROOT`, `GNAW_MCP_TOOLS` when given, then `--env`
/// in order.
fn environment(args: &SetupArgs, default_root: &Path) -> Result<Vec<(String, String)>, String> {
    let roots = if args.roots.is_empty() {
        vec![default_root.to_path_buf()]
    } else {
        args.roots
            .iter()
            .map(|r| files::canonical_dir(r).map_err(|e| format!("--root {e}")))
            .collect::<Result<_, _>>()?
    };
    let mut shown = Vec::new();
    for root in &roots {
        let text = root
            .to_str()
            .ok_or_else(|| format!("--root {}: the path is not UTF-8", root.display()))?;
        if text.contains(':') {
            return Err(format!(
                "--root {text}: a path with ':' cannot be listed in {ROOT_ENV} (':' separates \
                 roots); use a link to it without ':'"
            ));
        }
        if root == Path::new("/") {
            return Err(
                "--root /: confinement to the filesystem root confines nothing, and \
                        gnaw-mcp refuses it; choose the directory the agent should read"
                    .into(),
            );
        }
        shown.push(text.to_owned());
    }
    let mut env = vec![(ROOT_ENV.to_owned(), shown.join(":"))];
    if let Some(tools) = &args.tools {
        ToolSet::parse(tools).map_err(|e| format!("--tools ({}): {e}", selection::ENV))?;
        env.push((selection::ENV.to_owned(), tools.trim().to_owned()));
    }
    for pair in &args.env {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(format!("--env {pair:?}: write it as KEY=VALUE"));
        };
        if !((key.starts_with("GNAW_MCP_") && key.len() > "GNAW_MCP_".len()) || key == "RUST_LOG") {
            return Err(format!(
                "--env {key}: only gnaw-mcp's own settings (GNAW_MCP_*, see gnaw-mcp --help) and \
                 RUST_LOG may be set here"
            ));
        }
        if key == ROOT_ENV {
            return Err(format!(
                "--env {ROOT_ENV}: use --root DIR (once per directory)"
            ));
        }
        if key == selection::ENV {
            return Err(format!("--env {key}: use --tools {value}"));
        }
        if env.iter().any(|(k, _)| k == key) {
            return Err(format!("--env {key}: given twice"));
        }
        env.push((key.to_owned(), value.to_owned()));
    }
    // Every GNAW_MCP_* setting is one of gnaw-mcp's, with a value it accepts: checked by the
    // same table the server reads them with, so the client never starts a server that refuses.
    for (key, _) in env.iter().filter(|(k, _)| k.starts_with(operator::PREFIX)) {
        if operator::by_var(key).is_none() {
            let vars: Vec<String> = operator::SETTINGS.iter().map(|s| s.var()).collect();
            let names: Vec<&str> = vars.iter().map(String::as_str).collect();
            let near = crate::vocab::modes::nearest(key, &names).unwrap_or_default();
            return Err(format!(
                "--env {key}: not a gnaw-mcp setting; did you mean {near}? (gnaw-mcp --help \
                 lists them)"
            ));
        }
    }
    let given = |name: &str| {
        env.iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| std::ffi::OsString::from(v))
    };
    operator::Operator::load(None, given).map_err(|e| format!("--env {e}"))?;
    Ok(env)
}

/// The entry in the client's JSON spelling.
fn json_entry(client: &Client, command: &str, env: &[(String, String)]) -> Json {
    let spelling = &client.spelling;
    let mut fields: Vec<(String, Json)> = spelling
        .fixed
        .iter()
        .map(|(key, fixed)| {
            let value = match fixed {
                Fixed::Str(s) => Json::String((*s).to_owned()),
                Fixed::Bool(b) => Json::Bool(*b),
            };
            ((*key).to_owned(), value)
        })
        .collect();
    match spelling.command {
        Command::Split { command: c, args } => {
            fields.push((c.to_owned(), Json::String(command.to_owned())));
            fields.push((args.to_owned(), Json::Array(Vec::new())));
        }
        Command::List(c) => fields.push((
            c.to_owned(),
            Json::Array(vec![Json::String(command.to_owned())]),
        )),
    }
    let vars = env
        .iter()
        .map(|(k, v)| (k.clone(), Json::String(v.clone())))
        .collect();
    fields.push((spelling.env.to_owned(), Json::Object(vars)));
    Json::Object(fields)
}

/// `text` (the file's, or empty for a new one) with the entry merged in.
fn merged(
    client: &Client,
    text: &str,
    name: &str,
    command: &str,
    env: &[(String, String)],
    force: bool,
) -> Result<(String, Outcome), String> {
    match client.format {
        Format::Json => {
            let entry = json_entry(client, command, env);
            json::merge(text, client.servers, name, &entry, force)
        }
        Format::Toml => {
            let mut doc = toml_doc::parse(text)?;
            let entry = toml_doc::entry(&client.spelling, command, env);
            let outcome = toml_doc::merge(&mut doc, client.servers, name, entry, force)?;
            Ok((toml_doc::render(&doc, text), outcome))
        }
    }
}

/// Run `gnaw-mcp setup`, printing to `out`. The error is a sentence for the person at the
/// terminal: what went wrong, and what to do.
pub fn run(args: &SetupArgs, out: &mut dyn Write) -> Result<(), String> {
    let client = clients::by_name(&args.client).ok_or_else(|| {
        format!(
            "unknown client {:?}; choose one of: {}",
            args.client,
            clients::names().collect::<Vec<_>>().join(", ")
        )
    })?;
    if args.name.is_empty()
        || args.name.len() > 64
        || !args
            .name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(format!(
            "--name {:?}: use 1 to 64 letters, digits, '-' or '_'",
            args.name
        ));
    }
    let workspace = match (&args.workspace, client.base) {
        (Some(dir), Base::Workspace) => {
            Some(files::canonical_dir(dir).map_err(|e| format!("--workspace {e}"))?)
        }
        (Some(_), _) => {
            return Err(format!(
                "--workspace is for clients whose file is in the workspace (vscode); {}'s \
                 file is {}",
                client.name,
                client_file(client, None)?.shown()
            ));
        }
        (None, _) => None,
    };
    let file = client_file(client, workspace.as_deref())?;
    let default_root = match client.base {
        // VS Code's file is WORKSPACE/.vscode/mcp.json: serve that workspace.
        Base::Workspace => file.base().to_path_buf(),
        _ => files::canonical_dir(Path::new(".")).map_err(|e| {
            format!("cannot use the working directory as the root ({e}); pass --root DIR")
        })?,
    };
    let env = environment(args, &default_root)?;
    let exe = files::own_executable()?;
    let command = exe
        .to_str()
        .ok_or_else(|| format!("gnaw-mcp's path {} is not UTF-8", exe.display()))?;
    let io = |e: std::io::Error| format!("cannot write to stdout: {e}");

    if !args.write {
        let (entry, _) = merged(client, "", &args.name, command, &env, false)?;
        writeln!(
            out,
            "{} ({}) reads {}\n(format: {}).\nThe entry, under {}:\n",
            client.title,
            client.docs,
            file.shown(),
            match client.format {
                Format::Json => "JSON",
                Format::Toml => "TOML",
            },
            client.servers.join(".")
        )
        .map_err(io)?;
        write!(out, "{entry}").map_err(io)?;
        writeln!(
            out,
            "\nTo add it, keeping everything else in the file: gnaw-mcp setup {} --write \
             (with the same options)",
            client.name
        )
        .map_err(io)?;
        return Ok(());
    }

    let read = file.read()?;
    let shown = file.shown();
    let text = match &read.previous {
        Some(old) => std::str::from_utf8(&old.bytes)
            .map_err(|e| format!("{shown} is not UTF-8 text ({e}); nothing was changed"))?,
        None => "",
    };
    let (new_text, outcome) = merged(client, text, &args.name, command, &env, args.force)
        .map_err(|e| format!("{shown}: {e}. Nothing was changed."))?;
    let existed = read.previous.is_some();
    let backup = file.replace(read, new_text.as_bytes())?;
    let verb = match (outcome, existed) {
        (Outcome::Replaced, _) => "replaced the entry",
        (Outcome::Added, true) => "added the entry",
        (Outcome::Added, false) => "created the file with the entry",
    };
    writeln!(
        out,
        "{shown}: {verb} {:?} for {} (gnaw-mcp at {}, {ROOT_ENV}={}).",
        args.name, client.title, command, env[0].1
    )
    .map_err(io)?;
    if let Some(backup) = backup {
        writeln!(out, "The previous file is kept as {backup}.").map_err(io)?;
    }
    writeln!(out, "Restart {} to use it.", client.title).map_err(io)?;
    Ok(())
}
