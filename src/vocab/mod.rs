//! The shared vocabulary: the types every stage, the driver and both front ends speak. It sits at
//! the bottom of the crate and imports nothing else from it.
//!
//! | module | what |
//! |---|---|
//! | `modes` | the named modes: [`Format`], [`Encoding`], [`SecretsMode`], [`Compress`] (one parse rule) |
//! | [`file`](mod@file) | a walked [`Candidate`] and its [`EntryKind`]; the [`Text`] read from it |
//! | `skip` | [`Skipped`] and its [`SkipReason`] |
//! | [`finding`] | a secret [`Finding`] (never the secret) |
//! | [`omitted`] | the [`OmittedView`] a budget leaves |
//! | [`display`] | [`display_path`]: how any path is escaped (the renderer that also redacts is `stages::name`) |
//! | [`error_kind`] | [`ErrorKind`]: every stable name a failure is known by |
//! | [`invisible`] | the table of characters escaped by Unicode property |
//! | [`symbol`] | a [`Symbol`] found by the syntax stage: kind, name, signature, lines, doc |

pub mod display;
pub mod error_kind;
pub mod file;
pub mod finding;
pub mod invisible;
pub(crate) mod modes;
pub mod omitted;
pub(crate) mod skip;
pub mod symbol;

pub use display::{display_path, display_text, excerpt, json_chars};
pub use error_kind::ErrorKind;
pub use file::{Candidate, EntryKind, Text};
pub use finding::Finding;
pub use modes::{Compress, Encoding, Format, SecretsMode, UnknownName};
pub use omitted::{OmittedLine, OmittedView};
pub use skip::{SkipReason, Skipped};
pub use symbol::{LineRange, Symbol, SymbolKind};
