//! The secret scanner over one file's text, in every mode: the first byte picks the path the
//! text is scanned as (rules differ for `.env`, keys, configs), the rest is the text. Every
//! mode finds the same secrets; `warn` and `off` leave the text as it is; `redact` is a fixed
//! point (scanning its output again changes nothing, so no secret survives one pass), keeps
//! the text's line count, and `block` gives no text.

use gnaw::scan::{Allow, Scanned, scan};
use gnaw::vocab::SecretsMode;

const PATHS: [&str; 6] = [
    "src/main.rs",
    ".env",
    "config/settings.yaml",
    "keys/id_rsa",
    "notes.txt",
    "app/secrets.json",
];

pub fn check(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let path = PATHS[usize::from(which) % PATHS.len()];
    let text = String::from_utf8_lossy(rest);
    let allow = Allow::default();
    assert_eq!(
        scan(&text, path, SecretsMode::Off, &allow),
        Scanned::Clean(&text)
    );
    let warned = scan(&text, path, SecretsMode::Warn, &allow);
    assert_eq!(warned.text(), Some(&*text), "warn changed the text");
    let found = warned.findings().to_vec();
    let lines = text.lines().count().max(1);
    for f in &found {
        assert_eq!(f.path, path);
        assert!(
            1 <= f.line && f.line <= lines,
            "a finding on line {} of {lines}",
            f.line
        );
    }
    let blocked = scan(&text, path, SecretsMode::Block, &allow);
    assert_eq!(blocked.findings(), &found[..], "block found otherwise");
    assert_eq!(blocked.text().is_none(), !found.is_empty());
    let redacted = scan(&text, path, SecretsMode::Redact, &allow);
    assert_eq!(redacted.findings(), &found[..], "redact found otherwise");
    let shown = redacted.text().expect("redact keeps a text");
    assert_eq!(
        shown.matches('\n').count(),
        text.matches('\n').count(),
        "redaction changed the line count"
    );
    let again = scan(shown, path, SecretsMode::Redact, &allow);
    assert_eq!(
        again.text(),
        Some(shown),
        "a second redaction changed the text: a secret survived the first"
    );
}
