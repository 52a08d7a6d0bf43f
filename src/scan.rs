//! Scan stage: secrets (skeleton; the rule set lands next).

/// What the scan stage does with secrets it finds. Ordered from weakest to strongest, so an
/// operator's floor can be enforced with `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SecretsMode {
    Off,
    Warn,
    Redact,
    Block,
}

/// A secret found by the scan stage (skeleton).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub rule: &'static str,
    pub path: String,
    pub line: usize,
    pub fingerprint: String,
}

impl Finding {
    /// JSON form (never holds the secret).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({"rule": self.rule, "path": self.path, "line": self.line, "fingerprint": self.fingerprint})
    }
}

impl std::str::FromStr for SecretsMode {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "off" => Ok(SecretsMode::Off),
            "warn" => Ok(SecretsMode::Warn),
            "redact" => Ok(SecretsMode::Redact),
            "block" => Ok(SecretsMode::Block),
            _ => Err(()),
        }
    }
}
