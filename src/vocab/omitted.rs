//! The omitted section's view: what a budget left out, one line per file or collapsed
//! directory. The budget stage decides it and the render stage shows it.

/// One line of the omitted section: a file, or a directory standing for several files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OmittedLine {
    /// A file path, or a directory path ending in `/` (empty for "everything else").
    pub label: String,
    /// How many omitted files the line stands for.
    pub files: usize,
    /// Their tokens.
    pub tokens: usize,
}

/// What the omitted section shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OmittedView {
    /// Files the budget left out.
    pub files: usize,
    /// Their tokens.
    pub tokens: usize,
    /// The lines shown, largest first.
    pub lines: Vec<OmittedLine>,
}
