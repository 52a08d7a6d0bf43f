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

impl Format {
    /// The name used in flags and `.gnawconfig`.
    pub fn name(self) -> &'static str {
        match self {
            Format::Markdown => "markdown",
            Format::Xml => "xml",
            Format::Json => "json",
        }
    }
}
