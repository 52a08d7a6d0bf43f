//! Secrets in names (issue 12 #14), scanner side: `scan::scan_name` scans a path or a single
//! file or directory name with the content rules, redacts with the same `[REDACTED:<rule>]`
//! marker, and reports findings that never hold the secret. Fake tokens are built at test time
//! from split prefixes.

use crate::common::xorshift::{ALNUM, Rng};
use gnaw::scan::{self, Allow, Scanned, SecretsMode};

/// A fixed pseudo-random run of `n` base62 characters.
fn run(seed: u64, n: usize) -> String {
    Rng(seed | 1).from(ALNUM, n)
}

fn redact(path: &str) -> (String, Vec<scan::Finding>) {
    match scan::scan_name(path, SecretsMode::Redact, &Allow::default()) {
        Scanned::Redacted { text, findings } => (text, findings),
        other => panic!("{path:?} gave {other:?}"),
    }
}

#[test]
fn a_token_used_as_a_name_is_redacted_like_content() {
    let ghp = format!("{}{}", "gh", "p_") + &run(1, 36);
    let aws = format!("{}{}", "AK", "IA") + &run(2, 16).to_uppercase();
    let sk = format!("{}{}", "sk_", "live_") + &run(3, 30);
    let npm = format!("{}{}", "np", "m_") + &run(4, 36);
    let cases = [
        (ghp.clone(), "[REDACTED:github-token]".to_string()),
        (format!("{ghp}.txt"), "[REDACTED:github-token].txt".into()),
        (
            format!("notes/{ghp}"),
            "notes/[REDACTED:github-token]".into(),
        ),
        (
            format!("a/{ghp}/b.rs"),
            "a/[REDACTED:github-token]/b.rs".into(),
        ),
        (
            format!("keys/{aws}-backup.json"),
            "keys/[REDACTED:aws-access-key-id]-backup.json".into(),
        ),
        (
            format!("{sk}/{npm}.log"),
            "[REDACTED:stripe-live-key]/[REDACTED:npm-token].log".into(),
        ),
        (
            format!("conf/password={}9x", run(5, 18)),
            "conf/password=[REDACTED:generic-secret]".into(),
        ),
    ];
    for (path, want) in cases {
        let (shown, findings) = redact(&path);
        assert_eq!(shown, want, "{path}");
        // The same as scanning each component as content: same rules, same markers.
        let by_content: Vec<String> = path
            .split('/')
            .map(|c| {
                let s = scan::scan(c, "x", SecretsMode::Redact, &Allow::default());
                s.text().unwrap().to_string()
            })
            .collect();
        assert_eq!(by_content.join("/"), want, "{path}");
        for f in &findings {
            assert_eq!(f.line, 0);
            assert_eq!(f.path, want);
            assert_eq!(f.fingerprint, format!("{want}:{}:0", f.rule));
            let json = serde_json::to_string(f).unwrap();
            for secret in [&ghp, &aws, &sk, &npm] {
                assert!(!json.contains(secret.as_str()), "{json}");
            }
        }
    }
}

#[test]
fn ordinary_names_come_back_borrowed() {
    for path in [
        "src/main.rs",
        "tests/fixtures/password_reset.py",
        "docs/secrets.md",
        "node_modules/@octokit/auth-token/package.json",
        "parse-passwd/index.js",
        "tokenizer/token_stream.rs",
        "",
        "/",
        "a//b",
    ] {
        for mode in SecretsMode::ALL {
            match scan::scan_name(path, mode, &Allow::default()) {
                Scanned::Clean(p) => assert!(std::ptr::eq(p, path)),
                other => panic!("{path}: {other:?}"),
            }
        }
    }
}

#[test]
fn modes_and_allow_list() {
    let ghp = format!("{}{}", "gh", "o_") + &run(7, 36);
    let path = format!("cache/{ghp}.json");
    let shown = "cache/[REDACTED:github-token].json";
    let allow = Allow::default();
    assert_eq!(
        scan::scan_name(&path, SecretsMode::Off, &allow),
        Scanned::Clean(&path)
    );
    match scan::scan_name(&path, SecretsMode::Warn, &allow) {
        Scanned::Warned { text, findings } => {
            assert_eq!(text, path);
            assert_eq!(findings.len(), 1);
            assert_eq!(findings[0].path, shown, "findings never hold the secret");
        }
        other => panic!("{other:?}"),
    }
    match scan::scan_name(&path, SecretsMode::Block, &allow) {
        Scanned::Blocked { findings } => {
            assert_eq!(findings[0].fingerprint, format!("{shown}:github-token:0"))
        }
        other => panic!("{other:?}"),
    }
    let by_glob = Allow::new(["cache/**"], Vec::<String>::new()).unwrap();
    assert_eq!(
        scan::scan_name(&path, SecretsMode::Redact, &by_glob),
        Scanned::Clean(&path)
    );
    let by_print = Allow::new(Vec::<String>::new(), [format!("{shown}:github-token:0")]).unwrap();
    assert_eq!(
        scan::scan_name(&path, SecretsMode::Redact, &by_print),
        Scanned::Clean(&path)
    );
}

#[test]
fn a_secret_never_spans_a_separator() {
    // The halves of a token on either side of a `/` are not a token.
    let t = run(9, 36);
    let path = format!("{}{}{}/{}", "gh", "p_", &t[..18], &t[18..]);
    assert_eq!(
        scan::scan_name(&path, SecretsMode::Redact, &Allow::default()),
        Scanned::Clean(&path)
    );
}

/// In a name, `_` separates words: `backup_ghp_...` is a token after a word, where in content
/// `x_ghp_...` would be one identifier. Before the fix these names came back unchanged
/// (`Clean`), token and all.
#[test]
fn an_underscore_before_a_token_separates_it_in_names() {
    let ghp = format!("{}{}", "gh", "p_") + &run(11, 36);
    let aws = format!("{}{}", "AK", "IA") + &run(12, 16).to_uppercase();
    for (path, want) in [
        (
            format!("backup_{ghp}.txt"),
            "backup_[REDACTED:github-token].txt",
        ),
        (
            format!("dumps/old__{ghp}/x.rs"),
            "dumps/old__[REDACTED:github-token]/x.rs",
        ),
        (
            format!("creds_{aws}_2024.json"),
            "creds_[REDACTED:aws-access-key-id]_2024.json",
        ),
    ] {
        let (shown, findings) = redact(&path);
        assert_eq!(shown, want, "{path}");
        assert!(!findings.is_empty());
    }
}
