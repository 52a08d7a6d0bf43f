//! `gnaw`: the command-line front end. All of the work is in the library (`gnaw::cli`).

#![forbid(unsafe_code)]

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    // First, while single-threaded: parses run in confined worker processes, bounded in
    // memory and time by the kernel (src/stages/syntax/pool.rs).
    if let Err(e) = gnaw::stages::syntax::pool::start(gnaw::par::threads()) {
        log::warn!("parsing is off: the parse workers could not start ({e})");
    }
    std::process::exit(gnaw::cli::main_from(std::env::args_os().collect()));
}
