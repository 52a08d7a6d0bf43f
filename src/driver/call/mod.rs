//! What every navigation and git tool's call shares, whichever tool answers it: the request and
//! why it failed, the call's settings and its walk, its proven path arguments, its arguments as
//! a tool call's JSON gives them, and the answer, paged to fit its budget and byte ceiling.
//!
//! | module | job |
//! |---|---|
//! | `request` | one call as a driver receives it ([`Request`]), and why it gave no answer ([`NavError`]) |
//! | [`session`] | one call's settings (as `extract` resolves them), its walk, the per-file step over many files |
//! | [`paths`] | path arguments proven inside the repo, as gnaw shows paths (escapes, redacted names) |
//! | [`args`] | a call's arguments as a tool call's JSON gives them: the pieces and how each field is read |
//! | `paging` | an answer made of items (`paging::Paged`) and the one step every tool fits it with: the most items whose rendered answer, counted whole, fits the budget and the byte ceiling, or the one "too small" refusal |

pub mod args;
pub(crate) mod paging;
pub mod paths;
pub(crate) mod request;
pub mod session;

pub use paging::Page;
pub use request::{NavError, Request};

/// A tool's answer: its [`Page`] (the text, fitted, and its exact count) and its facts, what a
/// program reads instead of the text (`read`'s files and their ranges, `grep`'s totals, the
/// argument that continues a cut answer...). Serialized, the page's counted fields, then the
/// facts' own: the MCP tool's structured copy.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Answer<F> {
    /// The answer's text and its counted fields.
    #[serde(flatten)]
    pub page: Page,
    /// The tool's own facts, for its structured answer.
    #[serde(flatten)]
    pub facts: F,
}
