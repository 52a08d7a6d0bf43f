//! `gnaw completions SHELL` and `gnaw man [SUBCOMMAND]`: the shell completion scripts and the
//! roff man pages, generated from the same clap definitions that parse the command line
//! ([`crate::cli::args::Args`], [`crate::cli::nav::NavArgs`] and this file's own), so a flag
//! added there appears in both with nothing written twice. Like the navigation subcommands,
//! these names are taken only as the first argument; a repository directory named `man` or
//! `completions` is extracted as `gnaw ./man`.

use super::args::Args;
use super::nav::NavArgs;
use clap::{CommandFactory, Parser, Subcommand};

/// The names of these subcommands.
pub const COMMANDS: [&str; 2] = ["completions", "man"];

/// Generate shell completions or man pages.
#[derive(Parser, Debug)]
#[command(name = "gnaw", version, max_term_width = 100)]
pub struct MetaArgs {
    /// The subcommand and its arguments.
    #[command(subcommand)]
    pub(crate) command: Meta,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Meta {
    /// Print the completion script for SHELL on stdout (every flag and subcommand of gnaw).
    /// Install it with e.g. `gnaw completions bash > ~/.local/share/bash-completion/completions/gnaw`,
    /// `gnaw completions zsh > ~/.zfunc/_gnaw` or
    /// `gnaw completions fish > ~/.config/fish/completions/gnaw.fish`
    Completions {
        /// The shell [possible values: bash, zsh, fish, elvish, powershell]
        #[arg(value_name = "SHELL", value_parser = parse_shell)]
        shell: clap_complete::Shell,
    },
    /// Print a man page (roff) on stdout: gnaw(1), or gnaw-SUBCOMMAND(1). Read it with
    /// `gnaw man | man -l -`, or install it with `gnaw man > ~/.local/share/man/man1/gnaw.1`
    Man {
        /// The subcommand whose page to print (read, grep, search, ...); gnaw's own without
        #[arg(value_name = "SUBCOMMAND")]
        subcommand: Option<String>,
    },
}

fn parse_shell(s: &str) -> Result<clap_complete::Shell, String> {
    s.parse().map_err(|_| {
        format!(
            "unknown shell {s:?}; gnaw has completions for bash, zsh, fish, elvish and powershell"
        )
    })
}

/// Whether `args` (the process's arguments, program name first) name one of these subcommands.
pub fn is_meta(args: &[std::ffi::OsString]) -> bool {
    args.get(1)
        .and_then(|a| a.to_str())
        .is_some_and(|a| COMMANDS.contains(&a))
}

/// The whole `gnaw` command as one clap tree: the extraction's flags and positional repository,
/// with the navigation subcommands and these beside them. The extraction is parsed through it,
/// so that `gnaw --help` lists every subcommand (a subcommand is parsed by its own parser, see
/// [`crate::cli::main_from`]); the completions and man pages are drawn from it. `gnaw help` is
/// a repository named `help`, not a subcommand.
pub fn command() -> clap::Command {
    let mut cmd = Args::command()
        .disable_help_subcommand(true)
        .args_conflicts_with_subcommands(true);
    for (i, sub) in NavArgs::command()
        .get_subcommands()
        .chain(MetaArgs::command().get_subcommands())
        .enumerate()
    {
        cmd = cmd.subcommand(sub.clone().display_order(i));
    }
    cmd
}

/// Run a subcommand; returns the process exit code.
pub fn main_with(args: MetaArgs) -> i32 {
    super::exit_code(run(args))
}

fn run(args: MetaArgs) -> Result<(), (i32, String)> {
    let mut out = Vec::new();
    match args.command {
        Meta::Completions { shell } => {
            clap_complete::generate(shell, &mut command(), "gnaw", &mut out);
        }
        Meta::Man { subcommand: None } => {
            clap_mangen::Man::new(command())
                .render(&mut out)
                .map_err(|e| (1, format!("cannot render the man page: {e}")))?;
        }
        Meta::Man {
            subcommand: Some(name),
        } => {
            let cmd = command();
            let Some(sub) = cmd.find_subcommand(&name) else {
                let names: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
                return Err((
                    2,
                    format!(
                        "gnaw has no subcommand {name:?}; its pages are gnaw (`gnaw man`) and {}",
                        names.join(", ")
                    ),
                ));
            };
            let page = sub
                .clone()
                .name(format!("gnaw-{name}"))
                .bin_name(format!("gnaw {name}"))
                .version(cmd.get_version().unwrap_or_default().to_string());
            clap_mangen::Man::new(page)
                .render(&mut out)
                .map_err(|e| (1, format!("cannot render the man page: {e}")))?;
        }
    }
    super::nav::print(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_whole_command_is_valid() {
        command().debug_assert();
    }
}
