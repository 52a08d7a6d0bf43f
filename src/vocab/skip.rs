//! Why a path is left out of a run: the reason every stage reports in the same words.

/// One file that was left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Path relative to the repo, escaped for display.
    pub path: String,
    /// Why it was left out.
    pub reason: SkipReason,
}

/// Why a file was left out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkipReason {
    /// A NUL byte or mostly control bytes in the first 8 KiB.
    Binary,
    /// Larger than `max_file_size`.
    TooLarge {
        /// The size cap in effect, in bytes.
        limit: u64,
    },
    /// A FIFO, socket, device or anything else that is not a regular file or directory.
    NotRegular {
        /// What it is (`fifo`, `socket`, ...).
        kind: &'static str,
    },
    /// A symlink that is not followed (no `-L`), or whose target is not inside the repo.
    Symlink {
        /// Why it is not followed.
        detail: &'static str,
    },
    /// The file changed identity between the walk and the open (a swap race).
    Changed,
    /// A sensitive file (`.env`, private keys, credentials), left out by default.
    Sensitive {
        /// What kind of sensitive file it is.
        what: &'static str,
    },
    /// The scan stage blocked the file because it holds a secret.
    Secret,
    /// Multiply hard-linked file (possibly a link to a file outside the root).
    HardLinked,
    /// Opening or reading failed.
    Unreadable {
        /// The operating system's words.
        error: String,
    },
}

impl SkipReason {
    /// A stable machine-readable name, used as the key in JSON summaries.
    pub fn kind(&self) -> &'static str {
        match self {
            SkipReason::Binary => "binary",
            SkipReason::TooLarge { .. } => "too_large",
            SkipReason::NotRegular { .. } => "not_regular",
            SkipReason::Symlink { .. } => "symlink",
            SkipReason::Changed => "changed",
            SkipReason::Sensitive { .. } => "sensitive",
            SkipReason::Secret => "secret",
            SkipReason::HardLinked => "hard_linked",
            SkipReason::Unreadable { .. } => "unreadable",
        }
    }

    /// A human-readable explanation.
    pub fn describe(&self) -> String {
        match self {
            SkipReason::Binary => "binary content".into(),
            SkipReason::TooLarge { limit } => format!("larger than max_file_size ({limit} bytes)"),
            SkipReason::NotRegular { kind } => format!("not a regular file ({kind})"),
            SkipReason::Symlink { detail } => format!("symlink: {detail}"),
            SkipReason::Changed => "changed between walk and open".into(),
            SkipReason::Sensitive { what } => format!("sensitive file ({what})"),
            SkipReason::Secret => "contains a secret (secrets mode: block)".into(),
            SkipReason::HardLinked => "has more than one hard link".into(),
            SkipReason::Unreadable { error } => format!("unreadable: {error}"),
        }
    }
}
