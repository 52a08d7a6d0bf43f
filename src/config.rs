//! `.gnawconfig` (skeleton).

/// Output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Markdown,
    Xml,
    Json,
}

/// What the scan stage does with secrets it finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SecretsMode {
    Off,
    Warn,
    Redact,
    Block,
}
