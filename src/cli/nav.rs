//! The navigation, code and git tools on the command line (`gnaw overview`, `read`, `grep`, ...:
//! [`SUBCOMMANDS`]), printing exactly the text the MCP tools of the same names answer (under the
//! CLI's policy: secrets are reported, not redacted, unless `--secrets redact` or `.gnawconfig`
//! says so). Each subcommand is one row of `subcommands!` below: its help, its name, its
//! arguments, whether it takes globs or parses source, and its run; the clap parser, the
//! dispatch, `gnaw --help`'s list and the parse workers' start (`bin/gnaw.rs`) all come from it.
//! A first argument other than these names is a repository to extract, as always, so `gnaw .`
//! and `gnaw some/dir` are unchanged; a repository directory named like a subcommand is
//! extracted as `gnaw ./tree`.

use super::args::parse_secrets;
use crate::driver::call::{NavError, Request};
use crate::driver::git::changes::{ChangesArgs, changes};
use crate::driver::git::hotspots::{HotspotsArgs, hotspots};
use crate::driver::git::log::{LogArgs, log};
use crate::driver::nav::grep::{GrepArgs, grep};
use crate::driver::nav::outline::{OutlineArgs, outline};
use crate::driver::nav::overview::{OverviewArgs, overview};
use crate::driver::nav::read::{ReadArgs, read};
use crate::driver::nav::related::{RelatedArgs, related};
use crate::driver::nav::search::{SearchArgs, search};
use crate::driver::nav::symbol::{SymbolArgs, symbol};
use crate::driver::nav::tree::{TreeArgs, tree};
use crate::spec::{Overrides, Policy};
use crate::vocab::SecretsMode;
use clap::{ArgAction, Args as ClapArgs, Parser, Subcommand};
use gnaw_sandbox::Root;
use std::io::Write;
use std::path::PathBuf;

/// Navigate a repository: read lines, search, or list the tree with token counts.
#[derive(Parser, Debug)]
#[command(name = "gnaw", version, max_term_width = 100)]
pub struct NavArgs {
    /// The subcommand and its arguments.
    #[command(subcommand)]
    pub command: Command,
}

/// What `gnaw` needs to know of a subcommand before parsing its arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Declared {
    /// The subcommand's name.
    pub name: &'static str,
    /// Whether it may parse source (else the parse workers are not started for it).
    pub parses: bool,
}

/// Declares the subcommands, one row each: its doc comment (its help), its variant and name,
/// its arguments (the driver's argument struct of the tool of the same name, so a tool's
/// arguments are declared once, for the MCP schema and the CLI), `[filter]` when it takes
/// `--include`/`--exclude`, whether it parses source, and its run (the driver's function). From
/// it come [`Command`], [`SUBCOMMANDS`] and the dispatch.
macro_rules! subcommands {
    ( $(
        $(#[$doc:meta])*
        $variant:ident = $name:literal, $args:ty $([$filter:ident])?, parses $parses:literal,
            run $run:expr;
    )+ ) => {
        /// The subcommands: each one's own arguments flattened beside the repository and the
        /// flags every subcommand shares.
        #[derive(Subcommand, Debug)]
        pub enum Command {
            $(
                $(#[$doc])*
                #[command(name = $name)]
                $variant {
                    /// The repository
                    repo: PathBuf,
                    /// The subcommand's own arguments.
                    #[command(flatten)]
                    args: $args,
                    $(
                        /// The include and exclude globs.
                        #[command(flatten)]
                        $filter: Filter,
                    )?
                    /// The flags every subcommand shares.
                    #[command(flatten)]
                    common: Common,
                },
            )+
        }

        /// Every subcommand, in `--help`'s order.
        pub const SUBCOMMANDS: &[Declared] = &[ $( Declared {
            name: $name,
            parses: $parses,
        }, )+ ];

        /// Run `command` on the repository it names: the text its tool answers.
        fn dispatch(command: Command) -> Result<String, (i32, String)> {
            match command {
                $( Command::$variant { repo, args, common, $($filter,)? } => {
                    let filter: Option<&Filter> = None $(.or(Some(&$filter)))?;
                    let root = Root::new(&repo, true).map_err(|e| (2, super::repo_error(&e)))?;
                    let run: fn(&Request<'_>, &$args) -> Result<String, NavError> =
                        |req, args| ($run)(req, args).map(|answer| answer.page.text);
                    run(&request(&root, &common, filter), &args).map_err(nav_error)
                } )+
            }
        }
    };
}

subcommands! {
    /// Print the repository at a glance within a budget (default 4000 tokens): languages, size,
    /// tests, docs, entry points, then its files by centrality with their most used definitions
    Overview = "overview", OverviewArgs [filter], parses true, run overview;
    /// Print each file's definitions (tree-sitter), nested: START-END kind name: signature
    Outline = "outline", OutlineArgs, parses true, run |req, a: &OutlineArgs| outline(req, &a.paths);
    /// Print where NAME is defined (source, exact lines), then its uses; closest names on a miss
    Symbol = "symbol", SymbolArgs [filter], parses true, run symbol;
    /// Print lines of files, numbered: PATH, PATH:START-END, PATH:START- or PATH:N (1-based)
    Read = "read", ReadArgs, parses false, run |req, a: &ReadArgs| read(req, &a.paths);
    /// Print the lines matching a pattern (Rust regex syntax), grouped by file, with totals
    Grep = "grep", GrepArgs [filter], parses false, run grep;
    /// Print the files ranked for a query (as extract --query ranks them), each with the line
    /// ranges that match best (--explain: and its score's parts)
    Search = "search", SearchArgs [filter], parses true, run search;
    /// Print the files most related to a file (PATH, or PATH::NAME for one of its names): what
    /// it imports and what imports it, who uses its names and whose names it uses
    Related = "related", RelatedArgs [filter], parses true, run related;
    /// Print the directory tree with lines, bytes and exact tokens per entry, biggest first
    Tree = "tree", TreeArgs [filter], parses false, run tree;
    /// Print the working tree's changes against BASE (default HEAD): the changed files, then
    /// the unified diff. Reads .git in-process; never runs git
    Changes = "changes", ChangesArgs, parses false, run changes;
    /// Print the history, newest first: each commit with the files it changed and line counts.
    /// Reads .git in-process; never runs git
    Log = "log", LogArgs, parses false, run log;
    /// Print the files ranked by recent churn: commits, lines, authors, last change, size and
    /// the files changed with them. Reads .git in-process; never runs git
    Hotspots = "hotspots", HotspotsArgs, parses false, run hotspots;
}

/// Include and exclude globs.
#[derive(ClapArgs, Debug)]
pub struct Filter {
    /// Only consider paths matching these globs (repeatable, comma-separated)
    #[arg(long, value_name = "GLOB", value_delimiter = ',', action = ArgAction::Append)]
    pub include: Vec<String>,
    /// Leave out paths matching these globs (repeatable, comma-separated)
    #[arg(long, value_name = "GLOB", value_delimiter = ',', action = ArgAction::Append)]
    pub exclude: Vec<String>,
}

/// What every subcommand takes.
#[derive(ClapArgs, Debug)]
pub struct Common {
    /// Fit the answer into N tokens, with the continuation when cut (0 means unlimited)
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
    /// Fit the answer into N bytes as well, so at most N characters (0 means unlimited): the
    /// size gnaw-mcp holds an answer to when a call sets no budget
    #[arg(long, value_name = "N")]
    pub max_chars: Option<usize>,
    /// Secrets handling [possible values: off, warn, redact, block] [default: warn]
    #[arg(long, value_name = "MODE", value_parser = parse_secrets)]
    pub secrets: Option<SecretsMode>,
    /// Apply [profiles.NAME] from .gnawconfig
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
}

/// The subcommand called `name`.
pub fn find(name: &str) -> Option<&'static Declared> {
    SUBCOMMANDS.iter().find(|s| s.name == name)
}

/// Whether `args` (the process's arguments, program name first) name a subcommand; any other
/// first argument is a repository.
pub fn is_nav(args: &[std::ffi::OsString]) -> bool {
    args.get(1)
        .and_then(|a| a.to_str())
        .is_some_and(|a| find(a).is_some())
}

/// Run a subcommand; returns the process exit code.
pub fn main_with(args: NavArgs) -> i32 {
    super::exit_code(run(args))
}

/// The request a subcommand runs with: the repository, the shared flags and the globs.
fn request<'a>(root: &'a Root, common: &Common, filter: Option<&Filter>) -> Request<'a> {
    Request {
        repo: root.as_dir(),
        overrides: Overrides {
            include: filter.map(|f| f.include.clone()).unwrap_or_default(),
            exclude: filter.map(|f| f.exclude.clone()).unwrap_or_default(),
            budget: common.budget,
            secrets: common.secrets,
            profile: common.profile.clone(),
            ..Default::default()
        },
        policy: Policy::cli(),
        cache: None,
        observer: None,
        max_text_bytes: match common.max_chars {
            None | Some(0) => usize::MAX,
            Some(n) => n,
        },
        // The CLI prints the text only: an answer without a budget is not counted.
        count_answer: false,
    }
}

fn nav_error(e: NavError) -> (i32, String) {
    match e {
        NavError::Argument { message, .. } => (2, message),
        NavError::Run(e) => (e.exit_code(), e.to_string()),
    }
}

fn run(args: NavArgs) -> Result<(), (i32, String)> {
    print(dispatch(args.command)?.as_bytes())
}

/// Write a subcommand's whole answer to stdout; a reader that closed the pipe early (`| head`)
/// is no error.
pub(super) fn print(text: &[u8]) -> Result<(), (i32, String)> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err((1, format!("cannot write to stdout: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    /// The table and the parser agree: every subcommand clap knows is declared, by the name
    /// clap gives it, in the same order.
    #[test]
    fn the_declarations_are_the_parsers_subcommands() {
        let names: Vec<String> = NavArgs::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        let declared: Vec<&str> = SUBCOMMANDS.iter().map(|s| s.name).collect();
        assert_eq!(names, declared);
    }
}
