//! The navigation tools' driver: `read`, `grep`, `search` and `tree`, for the MCP tools of the
//! same names and the `gnaw read|grep|search|tree` subcommands, which print the same text.
//!
//! | module | job |
//! |---|---|
//! | [`session`] | one call's settings (as `extract` resolves them), path arguments proven inside the repo, the per-file step over many files |
//! | [`fit`] | the most items whose rendered answer, counted whole, fits the budget and the byte ceiling |
//! | [`read`] | lines of files by range, numbered, with the exact continuation |
//! | [`grep`] | matching lines of the text the model would be shown, grouped by file, with totals and the continuation |
//! | [`index`] | the search index: every kept file with its shown text and its term index, kept in the warm cache per file and rebuilt only for files that changed |
//! | [`related`] | the files most related to one file: imports both ways, names it defines that they use and the other way |
//! | [`search`] | the files ranked for a query (`extract --query`'s ranker), each with its score's parts and best regions as `path:START-END` |
//! | [`outline`] | each file's definitions (tree-sitter), nested, one line each, with the exact continuation |
//! | [`symbol`] | a name's definitions with their source and exact lines, then its uses; the closest names on a miss |
//! | [`tree`] | the directory tree with each entry's lines, bytes and exact tokens, biggest first |
//!
//! Every tool reads files only through the per-file step `extract` uses ([`crate::driver::file`]):
//! the same read stage, sensitive-file rule and secrets scan, the same warm cache. What a tool
//! searches, counts or shows is the scanned (by default redacted) text, never the raw file.

pub mod fit;
pub mod grep;
pub mod index;
pub mod outline;
pub mod read;
pub mod related;
pub mod search;
pub mod sections;
pub mod session;
pub mod symbol;
pub mod tree;

pub use session::{NavError, Request};

use crate::vocab::Encoding;

/// What every navigation answer holds: its text, fitted, with the text's exact token count, the
/// encoding it was counted in, and the budget it was fitted to. The front ends read these the
/// same way for every tool (the MCP side builds the shared part of each structured copy from
/// them).
pub trait Answer {
    fn text(&self) -> &str;
    fn into_text(self) -> String;
    fn tokens(&self) -> usize;
    fn encoding(&self) -> Encoding;
    fn budget(&self) -> Option<usize>;
}

/// [`Answer`] for answer structs with the fields `text`, `tokens`, `encoding` and `budget`.
macro_rules! navigation_answers {
    ($($answer:ty),+ $(,)?) => {$(
        impl $crate::driver::nav::Answer for $answer {
            fn text(&self) -> &str {
                &self.text
            }
            fn into_text(self) -> String {
                self.text
            }
            fn tokens(&self) -> usize {
                self.tokens
            }
            fn encoding(&self) -> $crate::vocab::Encoding {
                self.encoding
            }
            fn budget(&self) -> Option<usize> {
                self.budget
            }
        }
    )+};
}
pub(crate) use navigation_answers;

navigation_answers!(
    grep::GrepAnswer,
    outline::OutlineAnswer,
    read::ReadAnswer,
    related::RelatedAnswer,
    search::SearchAnswer,
    symbol::SymbolAnswer,
    tree::TreeAnswer,
);
