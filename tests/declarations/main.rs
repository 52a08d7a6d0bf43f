//! Each fact is declared once, and every list of it elsewhere agrees with the declaration or is
//! drawn from it: the languages ([`languages`]: `Cargo.toml`'s features, the README's groups,
//! the grammar crate's lists), the subcommands and tools that `--help` lists ([`help`]), and
//! the operator's settings that `docs/mcp.md` tabulates ([`settings`]). A row added to one list
//! and not the other fails here, naming the list.
//!
//! Run alone: `cargo test --test declarations`.

#![allow(clippy::disallowed_methods)] // reads the manifests, sources and docs as text

mod help;
mod languages;
mod settings;

/// A file of the workspace, as text.
pub fn read(rel: &str) -> String {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
