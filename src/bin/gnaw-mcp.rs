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
use std::sync::Arc;

use clap::Parser;
use gnaw::mcp;
use gnaw_sandbox::{RootError, Roots, RootsError, SandboxMode, confine};

const AFTER_HELP: &str = "\
Environment:
  GNAW_MCP_ROOT              directory the tools may read (default: the working directory),
                             or several separated by ':' (each confined the same way; a
                             tool's repo then starts with a root's name: its directory
                             name, made unique as name-2, ...)
  GNAW_MCP_SANDBOX           strict (default), best-effort or off
  GNAW_MCP_TOOLS             the tools offered, comma-separated: names to turn on (read,grep),
                             -name to turn one off (-changes,-log), or a preset: minimal
                             (read, grep, tree, search) or all (default). The root's
                             .gnawconfig `tools` list may narrow it, never widen it
  GNAW_MCP_MAX_LINE_BYTES    longest accepted request line (default 4194304)
  GNAW_MCP_MAX_OUTPUT_BYTES  largest prompt extract returns (default 4194304)
  GNAW_MCP_DEFAULT_BUDGET    token budget when neither the call nor .gnawconfig sets one
                             (default 20000; 0 for unlimited)
  GNAW_MCP_DEFAULT_MAX_CHARS most characters of an answer when the call sets neither budget
                             nor max_chars (default 50000; text and structured copy together)
  GNAW_MCP_STRUCTURED        auto (default), on or off: whether answers carry structuredContent
                             (and tools outputSchema) for revisions that have them; auto leaves
                             them out for a client that shows the model only that copy (a
                             legacy client whose clientInfo.name is claude-code)
  GNAW_MCP_SECRETS_FLOOR     weakest secrets mode a repo or call may choose: off (default),
                             warn, redact or block
  GNAW_MCP_MAX_FILE_SIZE     ceiling on a .gnawconfig's max_file_size, and the largest file
                             read takes by range (default 16MiB)
  GNAW_MCP_MAX_DEPTH         deepest directory level walked, below the repo (default 256)
  GNAW_MCP_REPO_MAY_WIDEN    .gnawconfig settings a repository may use to read more, comma-
                             separated (default none; all for every one):
                               allow_paths         secrets.allow_paths (unscanned files)
                               allow_fingerprints  secrets.allow_fingerprints
                               sensitive_include   include naming .env, keys, credentials
                               hidden              hidden = true
                               no_ignore           no_ignore = true
                               follow_links        follow_links = true
                               secrets             secrets = off or warn (weaker than redact)
                             Refused settings keep their defaults and are reported in
                             the tool result and on stderr
  GNAW_MCP_HARD_LINKS        skip (default) or read files with more than one hard link
  GNAW_MCP_CACHE_BYTES       memory kept between calls (warm cache, search indexes, idle
                             work), e.g. 256MiB (default); 0 turns the cache off
  GNAW_MCP_MAX_QUEUED_CALLS  most tools/call requests waiting for the worker (default 64)
  GNAW_MCP_MAX_QUEUED_BYTES  most bytes of waiting tools/call requests (default 67108864)
  RUST_LOG                   log filter; logs go to stderr (default: info)

With --listen (HTTP; see docs/mcp.md, section HTTP):
  GNAW_MCP_LISTEN            the address, as --listen
  GNAW_MCP_TENANTS           the tenants file: [tenants.NAME] with token_sha256, roots, and
                             optionally tools and secrets_floor (--mint-token NAME makes one)
  GNAW_MCP_MAX_HEADER_BYTES  largest request head (default 16384); the body's bound is
                             GNAW_MCP_MAX_LINE_BYTES
  GNAW_MCP_HEADER_TIMEOUT_MS time to send a request once begun (default 10000)
  GNAW_MCP_IDLE_TIMEOUT_MS   an idle keep-alive connection is closed after (default 60000)
  GNAW_MCP_MAX_CONNECTIONS_PER_CLIENT  open connections per client address (default 64)
  GNAW_MCP_MAX_CONNECTIONS   open connections in all (default 512)
  GNAW_MCP_MAX_SESSIONS_PER_TENANT     open legacy sessions per tenant (default 32)
  GNAW_MCP_SESSION_IDLE_SECS a session unused this long ends (default 3600)
  GNAW_MCP_MAX_CALLS_PER_TENANT        requests waiting or running per tenant (default 64)
  GNAW_MCP_ALLOWED_ORIGINS   browser origins allowed besides loopback ones, comma-separated
  GNAW_MCP_PUBLIC_URL        the URL clients use, behind a proxy (for the 401's metadata)

The MCP client starts gnaw-mcp and talks JSON-RPC over its stdin/stdout, or reaches
http://ADDR/mcp with --listen. See docs/mcp.md.";

/// Serve gnaw's tools (extract, estimate, tree, grep, search, read, changes, log, outline,
/// symbol) over MCP (JSON-RPC on stdio).
#[derive(Parser)]
#[command(
    name = "gnaw-mcp",
    version,
    about,
    after_help = AFTER_HELP,
    args_conflicts_with_subcommands = true
)]
struct Args {
    /// With no command, serve MCP on stdio (or HTTP with --listen).
    #[command(subcommand)]
    command: Option<Action>,
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

/// `GNAW_MCP_SANDBOX`, or the default (strict).
fn sandbox_mode() -> Result<SandboxMode, String> {
    match std::env::var("GNAW_MCP_SANDBOX") {
        Ok(raw) => raw
            .parse::<SandboxMode>()
            .map_err(|e| format!("GNAW_MCP_SANDBOX: {e}")),
        Err(std::env::VarError::NotPresent) => Ok(SandboxMode::default()),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err("GNAW_MCP_SANDBOX must be strict, best-effort or off".into())
        }
    }
}

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(1))
}

/// `--listen`: the HTTP front door (`gnaw::mcp::http::launch`).
fn listen_http(listen: String, args: &Args) -> ExitCode {
    let config = match mcp::Config::from_env() {
        Ok(config) => config,
        Err(e) => return fail(e),
    };
    let mode = match sandbox_mode() {
        Ok(mode) => mode,
        Err(e) => return fail(e),
    };
    let local_roots = match std::env::var_os("GNAW_MCP_ROOT") {
        Some(raw) if !raw.is_empty() => std::env::split_paths(&raw).collect(),
        _ => std::env::current_dir().into_iter().collect(),
    };
    let launch = mcp::http::launch::Launch {
        listen,
        tenants_file: std::env::var_os("GNAW_MCP_TENANTS")
            .filter(|t| !t.is_empty())
            .map(PathBuf::from),
        unauthenticated_loopback: args.unauthenticated_loopback,
        allow_non_loopback: args.allow_non_loopback,
        mode,
        config,
        local_roots,
    };
    match mcp::http::launch::run(launch) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"))
        .target(env_logger::Target::Stderr)
        .init();
    let args = Args::parse();
    // Before anything sandbox-related: setup reads no GNAW_MCP_* setting and confines nothing.
    if let Some(Action::Setup(setup)) = &args.command {
        return match mcp::setup::run(setup, &mut io::stdout().lock()) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(format!("setup: {e}")),
        };
    }
    if args.self_test_child {
        // Still single-threaded: nothing has started a thread yet.
        return match sandbox_mode() {
            Ok(mode) => exit_code(gnaw_sandbox::selftest::child(mode)),
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
    let listen = args.listen.clone().or_else(|| {
        std::env::var("GNAW_MCP_LISTEN")
            .ok()
            .filter(|l| !l.is_empty())
    });
    if let Some(listen) = listen {
        return listen_http(listen, &args);
    }

    // Read before confining: after Landlock, the cgroup CPU quota is out of reach. The
    // pipeline keeps the value for every later run.
    let cpus = gnaw::par::threads();
    let config = match mcp::Config::from_env() {
        Ok(config) => config,
        Err(e) => return fail(e),
    };
    let tools = match mcp::ToolSet::from_env() {
        Ok(tools) => tools,
        Err(e) => return fail(e),
    };
    let mode = match sandbox_mode() {
        Ok(mode) => mode,
        Err(e) => return fail(e),
    };
    let root_paths: Vec<PathBuf> = match std::env::var_os("GNAW_MCP_ROOT") {
        Some(raw) if !raw.is_empty() => std::env::split_paths(&raw)
            .filter(|p| !p.as_os_str().is_empty())
            .collect(),
        _ => match std::env::current_dir() {
            Ok(dir) => vec![dir],
            Err(e) => {
                return fail(format!(
                    "cannot read the working directory ({e}); set GNAW_MCP_ROOT to the directory to serve"
                ));
            }
        },
    };
    let roots = match Roots::new(&root_paths, args.allow_filesystem_root) {
        Ok(roots) => roots,
        Err(e @ RootsError::Root(RootError::FilesystemRoot(_))) => {
            return fail(format!(
                "GNAW_MCP_ROOT: {e} (pass --allow-filesystem-root to do so)"
            ));
        }
        Err(e) => return fail(format!("GNAW_MCP_ROOT: {e}")),
    };

    if args.self_test {
        // The parent stays unconfined (it prepares targets outside the root); the child it
        // re-executes enters the sandbox exactly as the server would.
        let exe = match std::env::current_exe() {
            Ok(exe) => exe,
            Err(e) => return fail(format!("--self-test cannot find its own executable: {e}")),
        };
        let mut out = io::stdout().lock();
        return match gnaw_sandbox::selftest::run(
            &exe,
            &["--self-test-child"],
            &roots,
            mode,
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

    // Still single-threaded and not yet under seccomp (which forbids creating processes): fork
    // the parse workers, which confine themselves further (no file access at all).
    if let Err(e) = gnaw::stages::syntax::pool::start(cpus) {
        log::error!(
            "parsing is off: the parse workers could not start ({e}); files are shown as text"
        );
    }
    let status = match confine(&roots, mode) {
        Ok(status) => status,
        Err(e) => return fail(e),
    };
    let mut status_json = status.to_json();
    if args.sandbox_status {
        // Whether the parse workers answer, under the sandbox just applied.
        let workers = gnaw::stages::syntax::pool::probe();
        status_json["parse_workers"] = serde_json::to_value(workers).unwrap_or_default();
        println!("{status_json}");
        return ExitCode::SUCCESS;
    }
    log::info!("sandbox: {status_json}");
    if mode == SandboxMode::Off {
        log::warn!(
            "GNAW_MCP_SANDBOX=off: NO Landlock ruleset, NO seccomp filter, capabilities KEPT. \
             Only userspace containment and per-open openat2 stand between a request and the \
             rest of the filesystem. Use this only to debug; unset GNAW_MCP_SANDBOX for the \
             default (strict)."
        );
    } else if !status.fully_enforced() {
        log::warn!("the sandbox is not fully enforced (mode {mode}); see the status above");
    }
    let served: Vec<String> = if roots.len() == 1 {
        vec![roots.first().path().display().to_string()]
    } else {
        roots
            .iter()
            .map(|r| format!("{} as {:?}", r.root().path().display(), r.name()))
            .collect()
    };
    log::info!(
        "serving {} with {cpus} CPUs; max line {} bytes, max output {} bytes",
        served.join(", "),
        config.max_line_bytes,
        config.max_output_bytes
    );

    let containment = Arc::new(roots);
    let tools = tools.narrowed_by_root(containment.as_ref(), config.policy);
    log::info!("tools offered: {}", tools.names().join(", "));
    match mcp::serve(io::stdin().lock(), io::stdout(), config, containment, tools) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            log::error!("reading stdin failed: {e}");
            ExitCode::from(1)
        }
    }
}
