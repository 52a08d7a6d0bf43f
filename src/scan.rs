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
