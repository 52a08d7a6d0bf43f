//! The `gnaw overview`, `read`, `grep`, `search`, `tree`, `outline`, `symbol`, `changes`, `log`
//! and `hotspots` subcommands: the navigation, code and git tools on the command line, printing exactly the
//! text the MCP tools of the same names answer (under the CLI's
//! policy: secrets are reported, not redacted, unless `--secrets redact` or `.gnawconfig` says
//! so). A first argument other than these names is a repository to extract, as always, so
//! `gnaw .` and `gnaw some/dir` are unchanged; a repository directory named like a subcommand is
//! extracted as `gnaw ./tree`.

use super::args::parse_secrets;
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
use crate::driver::nav::{NavError, Request};
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
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands: each one's own arguments are the driver's argument struct of the tool of
/// the same name (so a tool's arguments are declared once, for the MCP schema and the CLI),
/// flattened beside the repository and the flags every subcommand shares.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the repository at a glance within a budget (default 4000 tokens): languages, size,
    /// tests, docs, entry points, then its files by centrality with their most used definitions
    Overview {
        /// The repository
        repo: PathBuf,
        #[command(flatten)]
        args: OverviewArgs,
        #[command(flatten)]
        filter: Filter,
        #[command(flatten)]
        common: Common,
    },
    /// Print each file's definitions (tree-sitter), nested: START-END kind name: signature
    Outline {
        /// The repository
        repo: PathBuf,
        #[command(flatten)]
        args: OutlineArgs,
        #[command(flatten)]
        common: Common,
    },
    /// Print where NAME is defined (source, exact lines), then its uses; closest names on a miss
    Symbol {
        /// The repository
        repo: PathBuf,
        #[command(flatten)]
        args: SymbolArgs,
        #[command(flatten)]
        filter: Filter,
        #[command(flatten)]
        common: Common,
    },
    /// Print lines of files, numbered: PATH, PATH:START-END, PATH:START- or PATH:N (1-based)
    Read {
        /// The repository
        repo: PathBuf,
        #[command(flatten)]
        args: ReadArgs,
        #[command(flatten)]
        common: Common,
    },
    /// Print the lines matching a pattern (Rust regex syntax), grouped by file, with totals
    Grep {
        /// The repository
        repo: PathBuf,
        #[command(flatten)]
        args: GrepArgs,
        #[command(flatten)]
        filter: Filter,
        #[command(flatten)]
        common: Common,
    },
    /// Print the files ranked for a query (as extract --query ranks them), each with its score
    /// and the line ranges that match best
    Search {
        /// The repository
        repo: PathBuf,
        #[command(flatten)]
        args: SearchArgs,
        #[command(flatten)]
        filter: Filter,
        #[command(flatten)]
        common: Common,
    },
    /// Print the files most related to a file: what it imports and what imports it, who uses
    /// its names and whose names it uses
    Related {
        /// The repository
        repo: PathBuf,
        #[command(flatten)]
        args: RelatedArgs,
        #[command(flatten)]
        filter: Filter,
        #[command(flatten)]
        common: Common,
    },
    /// Print the directory tree with lines, bytes and exact tokens per entry, biggest first
    Tree {
        /// The repository
        repo: PathBuf,
        #[command(flatten)]
        args: TreeArgs,
        #[command(flatten)]
        filter: Filter,
        #[command(flatten)]
        common: Common,
    },
    /// Print the working tree's changes against BASE (default HEAD): the changed files, then
    /// the unified diff. Reads .git in-process; never runs git
    Changes {
        /// The repository
        repo: PathBuf,
        #[command(flatten)]
        args: ChangesArgs,
        #[command(flatten)]
        common: Common,
    },
    /// Print the history, newest first: each commit with the files it changed and line counts.
    /// Reads .git in-process; never runs git
    Log {
        /// The repository
        repo: PathBuf,
        #[command(flatten)]
        args: LogArgs,
        #[command(flatten)]
        common: Common,
    },
    /// Print the files ranked by recent churn: commits, lines, authors, last change, size and
    /// the files changed with them. Reads .git in-process; never runs git
    Hotspots {
        /// The repository
        repo: PathBuf,
        #[command(flatten)]
        args: HotspotsArgs,
        #[command(flatten)]
        common: Common,
    },
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

/// Whether `args` (the process's arguments, program name first) name a subcommand; any other
/// first argument is a repository. The names are [`Command`]'s, as clap spells them.
pub fn is_nav(args: &[std::ffi::OsString]) -> bool {
    use clap::CommandFactory;
    let Some(first) = args.get(1).and_then(|a| a.to_str()) else {
        return false;
    };
    NavArgs::command()
        .get_subcommands()
        .any(|c| c.get_name() == first)
}

/// Run a subcommand; returns the process exit code.
pub fn main_with(args: NavArgs) -> i32 {
    match run(args) {
        Ok(()) => 0,
        Err((code, msg)) => {
            eprintln!("gnaw: error: {msg}");
            code
        }
    }
}

fn run(args: NavArgs) -> Result<(), (i32, String)> {
    let (repo, common, filter) = match &args.command {
        Command::Read { repo, common, .. }
        | Command::Changes { repo, common, .. }
        | Command::Log { repo, common, .. }
        | Command::Hotspots { repo, common, .. }
        | Command::Outline { repo, common, .. } => (repo, common, None),
        Command::Grep {
            repo,
            common,
            filter,
            ..
        }
        | Command::Search {
            repo,
            common,
            filter,
            ..
        }
        | Command::Related {
            repo,
            common,
            filter,
            ..
        }
        | Command::Tree {
            repo,
            common,
            filter,
            ..
        }
        | Command::Symbol {
            repo,
            common,
            filter,
            ..
        }
        | Command::Overview {
            repo,
            common,
            filter,
            ..
        } => (repo, common, Some(filter)),
    };
    let root = Root::new(repo, true).map_err(|e| (2, super::repo_error(&e)))?;
    let req = Request {
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
    };
    let text = match args.command {
        Command::Overview { args, .. } => overview(&req, &args).map(|a| a.page.text),
        Command::Read { args, .. } => read(&req, &args.paths).map(|a| a.page.text),
        Command::Outline { args, .. } => outline(&req, &args.paths).map(|a| a.page.text),
        Command::Symbol { args, .. } => symbol(&req, &args).map(|a| a.page.text),
        Command::Grep { args, .. } => grep(&req, &args).map(|a| a.page.text),
        Command::Search { args, .. } => search(&req, &args).map(|a| a.page.text),
        Command::Related { args, .. } => related(&req, &args).map(|a| a.page.text),
        Command::Tree { args, .. } => tree(&req, &args).map(|a| a.page.text),
        Command::Changes { args, .. } => changes(&req, &args).map(|a| a.page.text),
        Command::Log { args, .. } => log(&req, &args).map(|a| a.page.text),
        Command::Hotspots { args, .. } => hotspots(&req, &args).map(|a| a.page.text),
    }
    .map_err(|e| match e {
        NavError::Argument { message, .. } => (2, message),
        NavError::Run(e) => (e.exit_code(), e.to_string()),
    })?;
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err((1, format!("cannot write to stdout: {e}"))),
    }
}
