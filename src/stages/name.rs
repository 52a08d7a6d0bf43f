//! The one renderer of names: every file name, directory name and string from `.git` (author,
//! e-mail, ref name) reaches an answer as a [`ShownName`], which only [`Namer`] makes: the bytes
//! escaped ([`crate::vocab::display_path`]: control bytes, invisible characters by Unicode
//! property, bytes that are not UTF-8), then scanned with the secret rules
//! ([`scan::scan_name`]) and, in `redact` and `block` modes, every secret replaced by the same
//! `[REDACTED:<rule>]` marker content gets. A tool that holds a `ShownName` cannot hold the raw
//! name by mistake; the driver's tools and the stages that name paths (the walk's skipped list,
//! the filter) all go through here.
//!
//! Escaping never writes `/`, and a redaction marker holds none, so a shown path has the same
//! components as the raw one, in the same places: the shown name of a directory is a prefix of
//! the shown names of everything under it.
//!
//! A name the model sees redacted is what its globs are matched against ([`Namer::seen`]): a
//! glob can only test what the answer shows, so comparing the answers to two globs tells
//! nothing about a redacted span.

use crate::stages::scan::{self, Allow, Scanned};
use crate::vocab::{Finding, SecretsMode, display_path};
use std::borrow::Cow;

/// Renders names under one secrets mode and allow list.
#[derive(Clone, Debug)]
pub struct Namer {
    mode: SecretsMode,
    allow: Allow,
}

/// What became of a name's secrets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// Nothing found (or the mode is off, or the path is allowed).
    Clean,
    /// `warn`: shown as it is, with findings.
    Warned,
    /// `redact`: every secret replaced.
    Redacted,
    /// `block`: the entry is to be left out; the text is the redacted form.
    Blocked,
}

/// A name as an answer may show it: escaped, and redacted under the mode in force. Made only by
/// [`Namer`]. In `block` mode a name holding a secret is marked [`ShownName::is_blocked`] and
/// its text is the redacted form (never the secret), for the findings that name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShownName {
    text: String,
    state: State,
    findings: Vec<Finding>,
}

impl ShownName {
    /// The name as shown.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The name as shown, owned.
    pub fn into_string(self) -> String {
        self.text
    }

    /// Whether a secret in it was replaced (in `redact` or `block` mode).
    pub fn is_redacted(&self) -> bool {
        matches!(self.state, State::Redacted | State::Blocked)
    }

    /// Whether `block` mode leaves the entry out.
    pub fn is_blocked(&self) -> bool {
        self.state == State::Blocked
    }

    /// The secrets found in the name (never the secret; the path they give is redacted).
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The name and its findings.
    pub fn into_parts(self) -> (String, Vec<Finding>) {
        (self.text, self.findings)
    }
}

impl std::fmt::Display for ShownName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl Namer {
    /// A renderer for `mode`, accepting what `allow` accepts.
    pub fn new(mode: SecretsMode, allow: Allow) -> Namer {
        Namer { mode, allow }
    }

    /// A renderer that redacts every secret and accepts none: what a name looks like to anyone
    /// kept from its secrets. Matching a given name against it finds the entry a redacted
    /// answer named.
    pub fn redacting() -> Namer {
        Namer::new(SecretsMode::Redact, Allow::default())
    }

    /// The mode it renders under.
    pub fn mode(&self) -> SecretsMode {
        self.mode
    }

    /// A repo-relative path or a single name, raw bytes, `/`-separated.
    pub fn path(&self, raw: &[u8]) -> ShownName {
        self.escaped(display_path(raw))
    }

    /// A name already escaped by [`display_path`] (the walk's skipped list holds such names).
    pub fn escaped(&self, display: String) -> ShownName {
        let (state, findings, text) = match scan::scan_name(&display, self.mode, &self.allow) {
            Scanned::Clean(_) => (State::Clean, Vec::new(), None),
            Scanned::Warned { findings, .. } => (State::Warned, findings, None),
            Scanned::Redacted { text, findings } => (State::Redacted, findings, Some(text)),
            Scanned::Blocked { findings } => {
                // The findings name the path with every secret replaced.
                let text = findings.first().map(|f| f.path.clone());
                (State::Blocked, findings, text)
            }
        };
        ShownName {
            text: text.unwrap_or(display),
            state,
            findings,
        }
    }

    /// A one-line string read from `.git` (an author's or committer's name or e-mail, a ref
    /// name, a submodule URL): escaped like a path and scanned like one. In `block` mode the
    /// redacted form is shown (such a string is not an entry to leave out).
    pub fn git_string(&self, s: &str) -> String {
        self.path(s.as_bytes()).into_string()
    }

    /// What a glob sees of the path `raw`: the raw bytes when the model sees them as they are
    /// (escaping only spells bytes), or the shown form when a secret in it is redacted.
    pub fn seen<'a>(&self, raw: &'a [u8]) -> Cow<'a, [u8]> {
        if self.mode <= SecretsMode::Warn {
            return Cow::Borrowed(raw);
        }
        let shown = self.path(raw);
        if shown.is_redacted() {
            Cow::Owned(shown.into_string().into_bytes())
        } else {
            Cow::Borrowed(raw)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token() -> String {
        format!("{}{}", "gh", "p_") + "u8Zq3LmN7pX2vR9tK4wY6bJ1cH5dF0gS8aQe"
    }

    #[test]
    fn a_name_is_escaped_then_redacted() {
        let n = Namer::redacting();
        let raw = format!("d_{}/a\u{2800}\n.rs", token());
        let shown = n.path(raw.as_bytes());
        assert_eq!(shown.as_str(), "d_[REDACTED:github-token]/a\\u{2800}\\n.rs");
        assert!(shown.is_redacted() && !shown.is_blocked());
        assert_eq!(shown.findings().len(), 1);
        assert!(!shown.findings()[0].path.contains(&token()));
        // Same components in the same places.
        assert_eq!(
            shown.as_str().matches('/').count(),
            raw.matches('/').count()
        );
    }

    #[test]
    fn modes() {
        let raw = format!("k_{}", token());
        let warn = Namer::new(SecretsMode::Warn, Allow::default()).path(raw.as_bytes());
        assert_eq!(warn.as_str(), raw);
        assert_eq!(warn.findings().len(), 1);
        let block = Namer::new(SecretsMode::Block, Allow::default()).path(raw.as_bytes());
        assert!(block.is_blocked());
        assert_eq!(block.as_str(), "k_[REDACTED:github-token]");
        let off = Namer::new(SecretsMode::Off, Allow::default()).path(raw.as_bytes());
        assert_eq!(off.as_str(), raw);
        assert!(off.findings().is_empty());
    }

    #[test]
    fn globs_see_the_shown_name() {
        let raw = format!("key_{}", token());
        let n = Namer::redacting();
        assert_eq!(&*n.seen(raw.as_bytes()), b"key_[REDACTED:github-token]");
        assert_eq!(&*n.seen(b"plain\n.rs"), b"plain\n.rs");
        let warn = Namer::new(SecretsMode::Warn, Allow::default());
        assert_eq!(&*warn.seen(raw.as_bytes()), raw.as_bytes());
    }
}
