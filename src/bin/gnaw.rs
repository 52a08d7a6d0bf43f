//! `gnaw`: the command-line front end. All of the work is in the library (`gnaw::cli`).

#![forbid(unsafe_code)]

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // First, while single-threaded: parses run in confined worker processes, bounded in
    // memory and time by the kernel (src/stages/syntax/pool.rs). A subcommand that parses
    // nothing does without them (forking and confining them is most of its startup).
    if let Some(cmd) = parses_nothing(&args) {
        gnaw::stages::syntax::pool::not_started(&format!("`gnaw {cmd}` parses nothing"));
    } else if let Err(e) = gnaw::stages::syntax::pool::start(gnaw::par::threads()) {
        log::warn!("parsing is off: the parse workers could not start ({e})");
    }
    std::process::exit(gnaw::cli::main_from(args));
}

/// The subcommand named by `args`, when it is one that never parses source (as its declaration
/// says: `gnaw::cli::nav::SUBCOMMANDS`, and `completions` and `man`).
fn parses_nothing(args: &[std::ffi::OsString]) -> Option<&str> {
    let cmd = args.get(1)?.to_str()?;
    let parses = match gnaw::cli::nav::find(cmd) {
        Some(declared) => declared.parses,
        None => !gnaw::cli::meta::COMMANDS.contains(&cmd),
    };
    (!parses).then_some(cmd)
}
