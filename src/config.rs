//! `.gnawconfig` (skeleton).

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Markdown,
    Xml,
    Json,
}

pub use crate::scan::SecretsMode;
