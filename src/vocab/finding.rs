//! A secret the scan found, named by rule, path and line: never the secret itself.

/// One secret found. Never holds the secret itself.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Finding {
    /// The rule id, as listed by `rules`.
    pub rule: &'static str,
    /// The file's path relative to the repo, as given to `scan`.
    pub path: String,
    /// 1-based line of the original text where the secret starts.
    pub line: usize,
    /// `path:rule:line`; put it in the allow list to accept this finding.
    pub fingerprint: String,
}

impl Finding {
    /// A finding of `rule` in `path` at 1-based `line`.
    pub fn new(rule: &'static str, path: &str, line: usize) -> Finding {
        Finding {
            rule,
            path: path.to_string(),
            line,
            fingerprint: format!("{path}:{rule}:{line}"),
        }
    }
}
