//! What each parser-facing fuzz target checks, as plain functions of the input bytes: shared by
//! the cargo-fuzz targets (`fuzz/fuzz_targets/`) and by `tests/fuzz_corpus.rs`, which runs them
//! over the checked-in corpus (`fuzz/seeds/TARGET/`) and every past finding
//! (`fuzz/regressions/TARGET/`) on every `cargo test`. A check panics when an invariant breaks;
//! returning means the input was handled.
//!
//! The parsing targets (outline, symbol, compress) expect the parse workers to be running
//! ([`start_parse_workers`], called while the process is still single-threaded), as in both
//! binaries: a hostile grammar then exhausts a worker, never the fuzzing process.

// The checks build small repositories on disk with std::fs.
#![allow(clippy::disallowed_methods, dead_code)]

pub mod compress;
pub mod errors;
pub mod globs;
pub mod names;
pub mod outline;
pub mod secrets;
pub mod symbol;

use gnaw::stages::syntax::Language;

/// One file extension per language, in [`Language::ALL`]'s order.
pub const EXTENSIONS: [&str; 20] = [
    "rs", "py", "js", "ts", "tsx", "go", "java", "c", "cpp", "cs", "rb", "php", "kt", "swift",
    "scala", "lua", "sh", "ex", "hs", "zig",
];

/// The language a selector byte picks, and its file extension.
pub fn language(selector: u8) -> (Language, &'static str) {
    let i = usize::from(selector) % EXTENSIONS.len();
    let ext = EXTENSIONS[i];
    let lang =
        Language::detect(format!("f.{ext}").as_bytes()).expect("every extension has a grammar");
    (lang, ext)
}

/// Start one parse worker, as the binaries do. Call while single-threaded.
pub fn start_parse_workers() {
    gnaw::stages::syntax::pool::start(1).expect("the parse workers start");
}

/// A reason for a file not being parsed must name a bound, never a worker's panic.
pub fn assert_not_a_panic(reason: &str) {
    assert!(
        !reason.starts_with("the parser exited with code"),
        "a parse worker exited (a panic in the parser or the outline walk): {reason}"
    );
}

/// The number of lines `text` shows (a last line without a newline counts).
pub fn lines_of(text: &str) -> u32 {
    let n = text.lines().count();
    u32::try_from(n.max(1)).unwrap_or(u32::MAX)
}
