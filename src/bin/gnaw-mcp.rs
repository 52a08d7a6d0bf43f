//! gnaw-mcp: serve gnaw's extraction pipeline to AI agents as an MCP server over stdio,
//! confined with Landlock to `GNAW_MCP_ROOT` (one directory, or a `:`-separated list of them), with every capability dropped and a seccomp
//! allow-list installed (all three by `gnaw_sandbox::confine`).
//!
//! Order matters: read everything the process needs (environment, CPU count), resolve the
//! root, apply the sandbox while the process is still single-threaded, and only then start
//! the server (which spawns its worker threads; the filter lets plain threads through).
//!
//! `gnaw-mcp setup CLIENT` (`gnaw::mcp::setup`) registers the server with an MCP client: it is
//! dispatched first, before anything sandbox-related, and only writes that client's file.
//!
//! `--self-test` re-executes this binary with the hidden `--self-test-child` flag. That child is
//! not a switch that weakens the shipped server: it applies the same `confine()` to the same
//! root (it can only add restrictions), runs the probes of `gnaw_sandbox::selftest`, prints
//! their results and exits. It never reads stdin and never serves a request.

#![forbid(unsafe_code)]

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser};
use gnaw::mcp::stdio::Served;
use gnaw::mcp::{self, Operator};

/// The end of `--help`: every setting, from the one table (`gnaw::mcp::operator`).
fn after_help() -> String {
    format!(
        "{}\nThe MCP client starts gnaw-mcp and talks JSON-RPC over its stdin/stdout, or reaches \
         http://ADDR/mcp with --listen. See docs/mcp.md.",
        mcp::operator::help()
    )
}

/// Serve gnaw's tools (extract, estimate, tree, grep, search, read, changes, log, outline,
/// symbol) over MCP (JSON-RPC on stdio).
#[derive(Parser)]
#[command(
    name = "gnaw-mcp",
    version,
    about,
    args_conflicts_with_subcommands = true
)]
struct Args {
    /// With no command, serve MCP on stdio (or HTTP with --listen).
    #[command(subcommand)]
    command: Option<Action>,
    /// Read settings from FILE (TOML): the keys are the GNAW_MCP_* variables' names lowercased
    /// without the prefix (root, tools, default_max_chars, ...; listed below). A variable that
    /// is set wins over the file.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Print every setting's value (from the environment, --config and the defaults) as a
    /// config file, then exit.
    #[arg(long, conflicts_with_all = ["self_test", "sandbox_status"])]
    print_config: bool,
    /// Print the sandbox status as JSON after applying it, then exit.
    #[arg(long)]
    sandbox_status: bool,
    /// Allow GNAW_MCP_ROOT to be `/` (confinement to `/` confines nothing).
    #[arg(long)]
    allow_filesystem_root: bool,
    /// Prove that this host enforces the sandbox: a child process enters the identical sandbox
    /// on GNAW_MCP_ROOT and tries to read outside it, write inside it, execute, connect, signal,
    /// trace, and use what Landlock does not cover (UDP, raw sockets, io_uring, namespaces,
    /// bpf, ...); its capabilities are checked too. Prints one line per probe and
    /// `N passed, N failed` (or --format json|junit); exits 1 on any unexpected result,
    /// including a host without Landlock.
    #[arg(long, conflicts_with = "sandbox_status")]
    self_test: bool,
    /// With --self-test: write the report as text (default), json (the totals and every probe
    /// with its layer, expectation and result) or junit (JUnit XML for a CI job). Exit codes:
    /// 0 every check passed, 1 a check failed, 2 the self-test could not run.
    #[arg(
        long,
        value_name = "FORMAT",
        requires = "self_test",
        default_value = "text"
    )]
    format: gnaw_sandbox::report::Format,
    /// Internal: the sandboxed half of --self-test (set only by the self-test parent). It only
    /// adds restrictions to its own process and runs the probes; it never serves a request.
    #[arg(long, hide = true)]
    self_test_child: bool,
    /// Serve MCP over Streamable HTTP on ADDR (e.g. 127.0.0.1:8752; also GNAW_MCP_LISTEN) at
    /// /mcp, to the tenants of GNAW_MCP_TENANTS, each in its own confined worker process,
    /// instead of stdio. See docs/mcp.md, "HTTP".
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// With --listen and no tenants file: serve GNAW_MCP_ROOT to anyone on this host, without
    /// a token (loopback addresses only).
    #[arg(long)]
    unauthenticated_loopback: bool,
    /// With --listen: allow an address other than loopback (behind a TLS-terminating proxy).
    #[arg(long)]
    allow_non_loopback: bool,
    /// Print a fresh bearer token for tenant NAME (once) and the tenants-file lines to add,
    /// then exit.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["listen", "self_test", "sandbox_status"])]
    mint_token: Option<String>,
    /// Internal: in a tenant's worker, the descriptors of the roots GNAW_MCP_ROOT lists, opened
    /// and proven by `--listen` before its spawner started this process (set only by that
    /// spawner). The roots are adopted, never resolved again by path.
    #[arg(
        long = "root-fds",
        hide = true,
        value_delimiter = ',',
        value_name = "FD"
    )]
    root_fds: Vec<i32>,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Register gnaw-mcp with an MCP client: print the entry for the client's config file, or
    /// merge it in with --write (the old file kept as FILE.bak). Run from a terminal; the
    /// server itself never writes a file.
    Setup(mcp::setup::SetupArgs),
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("gnaw-mcp: {message}");
    ExitCode::from(2)
}

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// `--listen`: the HTTP front door (`gnaw::mcp::http::launch`).
fn listen_http(listen: String, args: &Args, operator: Operator) -> ExitCode {
    let launch = mcp::http::launch::Launch {
        listen,
        unauthenticated_loopback: args.unauthenticated_loopback,
        allow_non_loopback: args.allow_non_loopback,
        operator,
    };
    match mcp::http::launch::run(launch) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

/// The arguments, with `--help` ending in the table of settings.
fn parse_args() -> Args {
    let matches = Args::command().after_help(after_help()).get_matches();
    Args::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"))
        .target(env_logger::Target::Stderr)
        .init();
    let args = parse_args();
    // Before anything sandbox-related: setup reads no GNAW_MCP_* setting and confines nothing.
    if let Some(Action::Setup(setup)) = &args.command {
        return match mcp::setup::run(setup, &mut io::stdout().lock()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(format!("setup: {e}")),
        };
    }
    if args.self_test_child {
        // Still single-threaded: nothing has started a thread yet.
        return match Operator::from_process(args.config.as_deref()) {
            Ok(operator) => exit_code(gnaw_sandbox::selftest::child(operator.sandbox)),
            Err(e) => fail(e),
        };
    }

    if let Some(name) = &args.mint_token {
        return match mcp::http::tenants::mint(name) {
            Ok((_, text)) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => fail(e),
        };
    }
    let operator = match Operator::from_process(args.config.as_deref()) {
        Ok(operator) => operator,
        Err(e) => return fail(e),
    };
    if args.print_config {
        print!("{}", operator.to_toml());
        return ExitCode::SUCCESS;
    }
    if let Some(listen) = args.listen.clone().or_else(|| operator.listen.clone()) {
        return listen_http(listen, &args, operator);
    }

    let roots = match mcp::stdio::roots(&operator, args.allow_filesystem_root, &args.root_fds) {
        Ok(roots) => roots,
        Err(e) => return fail(e),
    };

    if args.self_test {
        // The parent stays unconfined (it prepares targets outside the root); the child it
        // re-executes enters the sandbox exactly as the server would.
        let exe = match std::env::current_exe() {
            Ok(exe) => exe,
            Err(e) => return fail(format!("--self-test cannot find its own executable: {e}")),
        };
        let mut out = io::stdout().lock();
        // The child reads the same settings: the same file, when there is one.
        let mut child_args = vec![std::ffi::OsString::from("--self-test-child")];
        if let Some(file) = &args.config {
            child_args.push("--config".into());
            child_args.push(file.into());
        }
        return match gnaw_sandbox::selftest::run(
            &exe,
            &child_args,
            &roots,
            operator.sandbox,
            args.format,
            &mut out,
        ) {
            Ok(summary) if summary.failed == 0 => ExitCode::SUCCESS,
            Ok(_) => ExitCode::from(1),
            Err(e) => fail(format!(
                "--self-test could not run its sandboxed child: {e}"
            )),
        };
    }

    match mcp::stdio::serve(operator, roots, args.sandbox_status) {
        Ok(Served::Done | Served::StatusPrinted) => ExitCode::SUCCESS,
        Ok(Served::InputFailed) => ExitCode::from(1),
        Err(e) => fail(e),
    }
}
