//! `gnaw`: the command-line front end. All of the work is in the library (`gnaw::cli`).

#![forbid(unsafe_code)]

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    std::process::exit(gnaw::cli::main_from(std::env::args_os().collect()));
}
