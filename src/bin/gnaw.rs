//! `gnaw`: the command-line front end. All of the work is in the library (`gnaw::cli`).

#![forbid(unsafe_code)]

use clap::Parser;

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let args = gnaw::cli::Args::parse();
    std::process::exit(gnaw::cli::main_with(args));
}
