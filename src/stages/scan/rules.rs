//! The secret rules: for each, the literal keywords that must appear on a line before its regex
//! runs, the regex (whose `s` group is the secret to redact), and a check on the captured value.
//! Formats come from the issuers' own documentation; docs/secrets.md explains each rule.

use super::shape::{
    base64url_decode, entropy, entropy_threshold, is_hash_or_uuid, is_identifier_words,
    is_placeholder, is_reference,
};
use regex::Captures;

/// A rule's public face: its id (used in `[REDACTED:<id>]` markers and findings) and what it
/// matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RuleInfo {
    /// The rule's id, as findings and `[REDACTED:<rule>]` markers name it.
    pub id: &'static str,
    /// What kind of secret it finds, in a few words.
    pub description: &'static str,
}

/// How a detector finds its secrets.
pub enum Kind {
    /// The detector's regex runs on each line holding one of its keywords; the `s` group is the
    /// secret, kept only if `check` accepts the match (given with the line it was found in).
    Line { check: fn(&Captures, &str) -> bool },
    /// A PEM / OpenSSH / PGP private key block, which spans lines (see `private_key_body`).
    PrivateKey,
}

/// One detector. Several detectors may share a rule id (the generic rule has three shapes).
pub struct Detector {
    pub rule: &'static str,
    /// Matched ASCII-case-insensitively; a line with none of them is never looked at.
    pub keywords: &'static [&'static str],
    pub kind: Kind,
    /// For `Line`, the regex; for `PrivateKey`, the BEGIN marker.
    pub pattern: String,
}

/// Every rule, in the order they are listed in docs and `--help`.
pub const RULES: &[RuleInfo] = &[
    RuleInfo {
        id: "private-key",
        description: "PEM, OpenSSH or PGP private key block (the body is redacted, the BEGIN/END lines kept)",
    },
    RuleInfo {
        id: "aws-access-key-id",
        description: "AWS access key id: AKIA/ASIA/ABIA/ACCA followed by 16 upper-case alphanumerics",
    },
    RuleInfo {
        id: "aws-secret-access-key",
        description: "AWS secret access key: 40 base64 characters assigned to an aws_secret_access_key-like key",
    },
    RuleInfo {
        id: "github-token",
        description: "GitHub token: ghp_/gho_/ghu_/ghs_/ghr_ + 36 base62, or github_pat_ + 82 characters",
    },
    RuleInfo {
        id: "gitlab-token",
        description: "GitLab token: glpat-/gloas-/gldt-/glrt-/glcbt-/glptt-/glft-/glimt-/glagent-/glsoat-/glffct- + 20 or more characters",
    },
    RuleInfo {
        id: "slack-token",
        description: "Slack token: xoxb-/xoxp-/xoxa-/xoxr-/xoxe-/xoxs-/xoxo- or xapp- app-level token",
    },
    RuleInfo {
        id: "slack-webhook",
        description: "Slack incoming webhook URL on hooks.slack.com (the path is redacted)",
    },
    RuleInfo {
        id: "stripe-live-key",
        description: "Stripe live secret or restricted key: sk_live_/rk_live_ + 24 or more base62",
    },
    RuleInfo {
        id: "stripe-test-key",
        description: "Stripe test-mode secret or restricted key: sk_test_/rk_test_ + 24 or more base62",
    },
    RuleInfo {
        id: "google-api-key",
        description: "Google API key: AIza + 35 characters of [0-9A-Za-z_-]",
    },
    RuleInfo {
        id: "npm-token",
        description: "npm access token: npm_ + 36 base62",
    },
    RuleInfo {
        id: "pypi-token",
        description: "PyPI API token: pypi- + a macaroon whose first bytes name pypi.org",
    },
    RuleInfo {
        id: "openai-api-key",
        description: "OpenAI API key: sk-... holding the T3BlbkFJ marker (base64 of \"OpenAI\")",
    },
    RuleInfo {
        id: "anthropic-api-key",
        description: "Anthropic API key: sk-ant-api03- or sk-ant-admin01- + 80 or more characters",
    },
    RuleInfo {
        id: "azure-storage-key",
        description: "Azure storage account key in a connection string: AccountKey= + 86 base64 + ==",
    },
    RuleInfo {
        id: "jwt",
        description: "JSON Web Token: three base64url segments whose header decodes to JSON with \"alg\"",
    },
    RuleInfo {
        id: "authorization-header",
        description: "Authorization: Bearer/Basic/Token credential with high entropy",
    },
    RuleInfo {
        id: "connection-string",
        description: "URL with a password: scheme://user:password@host (the password is redacted)",
    },
    RuleInfo {
        id: "generic-secret",
        description: "password/secret/token/api_key-like key assigned a high-entropy literal value",
    },
];

/// Key names for the generic rule: ends in one of these words. `pass` alone must start the key
/// or follow a separator, so `bypass` and `compass` don't count.
const GENERIC_KEY: &str = r"(?P<key>[a-z0-9_.\-]*?(?:password|passwd|pwd|secret|token|api[_.\-]?key|access[_.\-]?key|auth[_.\-]?key|private[_.\-]?key|credentials?)|(?:[a-z0-9_.\-]*[_.\-])?pass)";

const GENERIC_KEYWORDS: &[&str] = &[
    "pass",
    "pwd",
    "secret",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "api.key",
    "accesskey",
    "access_key",
    "access-key",
    "authkey",
    "auth_key",
    "auth-key",
    "privatekey",
    "private_key",
    "private-key",
    "credential",
];

/// Builds the detector table, most specific first: where two detectors claim overlapping text,
/// the earlier one wins. Compiled once per process.
pub fn detectors() -> Vec<Detector> {
    let quoted = format!(
        r#"(?i)(?-u:\b){GENERIC_KEY}["'`]?\]?(?:\s*:\s*&(?:'static\s+)?str|\s*:\s*string|\s+string)?\s*(?::=|=>|==?|:)\s*[a-z]?["'`](?P<s>[^"'`\s\\]{{8,256}})["'`]"#
    );
    let bare = format!(
        r#"(?i)^\s*(?:export\s+|-\s+|set\s+)?["']?(?-u:\b){GENERIC_KEY}["']?\s*[=:]\s*(?P<s>[^\s"'`,;(){{}}\[\]<>]{{8,256}})\s*(?:[#;].*)?$"#
    );
    let param = r#"(?i)[?&;](?:password|passwd|pwd|pass|secret|token|api_?key|access_?token|client_?secret)=(?P<s>[^\s&;#'"`<>()\[\]]{8,256})"#;

    let line = |rule, keywords, pattern: &'static str, check| Detector {
        rule,
        keywords,
        kind: Kind::Line { check },
        pattern: pattern.to_string(),
    };
    let mut v = vec![
        Detector {
            rule: "private-key",
            keywords: &["-----begin"],
            kind: Kind::PrivateKey,
            pattern: PRIVATE_KEY_BEGIN.to_string(),
        },
        line(
            "aws-access-key-id",
            &["akia", "asia", "abia", "acca"],
            r"(?-u:\b)(?P<s>(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})(?-u:\b)",
            not_aws_example,
        ),
        line(
            "aws-secret-access-key",
            &["secret"],
            r#"(?i)(?:aws_?secret_?access_?key|aws_?secret_?key|aws_?secret|secret_?access_?key)["'`]?\s*(?::=|=>|=|:)\s*["'`]?(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
            aws_secret,
        ),
        line(
            "github-token",
            &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
            r"(?-u:\b)(?P<s>gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{82,240})(?-u:\b)",
            always,
        ),
        line(
            "gitlab-token",
            &[
                "glpat-", "gloas-", "gldt-", "glrt-", "glcbt-", "glptt-", "glft-", "glimt-",
                "glagent-", "glsoat-", "glffct-",
            ],
            r"(?-u:\b)(?P<s>gl(?:pat|oas|dt|rt|cbt|ptt|ft|imt|agent|soat|ffct)-[0-9A-Za-z_\-]{20,}(?:\.[0-9A-Za-z_\-]+)*)",
            always,
        ),
        line(
            "slack-token",
            &[
                "xoxa-", "xoxb-", "xoxe-", "xoxo-", "xoxp-", "xoxr-", "xoxs-", "xapp-",
            ],
            r"(?-u:\b)(?P<s>xox[abeoprs]-[0-9]+-[0-9A-Za-z\-]{8,}|xapp-[0-9]+-[A-Z0-9]+-[0-9]+-[0-9a-z]{16,})",
            always,
        ),
        line(
            "slack-webhook",
            &["hooks.slack.com"],
            r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>T[A-Z0-9]{6,}/[A-Z0-9]{6,}/[A-Za-z0-9_/\-]{16,})",
            always,
        ),
        line(
            "stripe-live-key",
            &["sk_live_", "rk_live_"],
            r"(?-u:\b)(?P<s>[sr]k_live_[0-9A-Za-z]{24,247})(?-u:\b)",
            always,
        ),
        line(
            "stripe-test-key",
            &["sk_test_", "rk_test_"],
            r"(?-u:\b)(?P<s>[sr]k_test_[0-9A-Za-z]{24,247})(?-u:\b)",
            always,
        ),
        line(
            "google-api-key",
            &["aiza"],
            r"(?P<s>AIza[0-9A-Za-z_\-]{35})(?:[^0-9A-Za-z_\-]|$)",
            always,
        ),
        line(
            "npm-token",
            &["npm_"],
            r"(?-u:\b)(?P<s>npm_[A-Za-z0-9]{36})(?-u:\b)",
            always,
        ),
        line(
            "pypi-token",
            &["pypi-ageichlwas5vcmc"],
            r"(?P<s>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_\-]{50,})",
            always,
        ),
        line(
            "openai-api-key",
            &["t3blbkfj"],
            r"(?-u:\b)(?P<s>sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{16,}T3BlbkFJ[A-Za-z0-9_\-]{16,})",
            always,
        ),
        line(
            "anthropic-api-key",
            &["sk-ant-"],
            r"(?-u:\b)(?P<s>sk-ant-(?:api03|admin01)-[A-Za-z0-9_\-]{80,})",
            always,
        ),
        line(
            "azure-storage-key",
            &["accountkey"],
            r"(?i)AccountKey\s*=\s*(?P<s>[A-Za-z0-9+/]{86}==)",
            always,
        ),
        line(
            "jwt",
            &["eyj"],
            r"(?-u:\b)(?P<s>(?P<h>eyJ[A-Za-z0-9_\-]{8,})\.(?P<p>eyJ[A-Za-z0-9_\-]*)\.[A-Za-z0-9_\-]*)",
            jwt,
        ),
        line(
            "authorization-header",
            &["authorization"],
            r#"(?i)authorization["']?\s*[:=]\s*["']?(?:bearer|basic|token)\s+(?P<s>[A-Za-z0-9._~+/\-]{16,}=*)"#,
            high_entropy,
        ),
        line(
            "connection-string",
            &["://"],
            r#"(?i)(?-u:\b)[a-z][a-z0-9+.\-]{1,30}://(?P<user>[^\s:@/?#'"`<>]*):(?P<s>[^\s:@/?#'"`<>]+)@(?P<host>[^\s/?#'"`<>:@]+)"#,
            url_password,
        ),
    ];
    let generic = |pattern: String, check| Detector {
        rule: "generic-secret",
        keywords: GENERIC_KEYWORDS,
        kind: Kind::Line { check },
        pattern,
    };
    v.push(generic(quoted, generic_quoted));
    v.push(generic(bare, generic_bare));
    v.push(generic(param.to_string(), generic_param));
    v
}

/// The BEGIN line of a private key block. The body is found by [`private_key_body`].
pub const PRIVATE_KEY_BEGIN: &str = r"-----BEGIN (?:(?:RSA|EC|DSA|ENCRYPTED|OPENSSH|SSH2 ENCRYPTED|ANY) )?PRIVATE KEY(?: BLOCK)?-----|-----BEGIN PGP PRIVATE KEY BLOCK-----";

/// Given the text right after a BEGIN marker, returns the byte range of the key body: the run of
/// base64, armor headers (`Proc-Type: ...`) and line breaks (real or `\n`-escaped, as in JSON)
/// that follows, trimmed of surrounding whitespace. None unless it holds 64 or more base64
/// characters, so code that merely mentions the marker is left alone.
///
/// Linear: each byte is read once (the armor header test looks only at the current line), and
/// the run read never holds another marker (a marker's dashes end it, and a line holding
/// `-----` is no armor header), so the runs after successive markers do not overlap.
pub fn private_key_body(after: &str) -> Option<(usize, usize)> {
    let b = after.as_bytes();
    let mut i = 0;
    let mut first = None;
    let mut last = 0;
    let mut b64 = 0usize;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        if line_start && let Some(n) = armor_header_len(&b[i..]) {
            first.get_or_insert(i);
            i += n;
            last = i;
            continue;
        }
        line_start = false;
        match c {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'+' | b'/' | b'=' => {
                first.get_or_insert(i);
                b64 += 1;
                i += 1;
                last = i;
            }
            b'\n' => {
                i += 1;
                line_start = true;
            }
            b'\r' | b' ' | b'\t' => i += 1,
            b'\\' if matches!(b.get(i + 1), Some(b'n' | b'r')) => {
                i += 2;
                line_start = true;
            }
            _ => break,
        }
    }
    (b64 >= 64).then(|| (first.unwrap_or(0), last))
}

/// The longest armor header name looked for (`Proc-Type`, `DEK-Info`, `Version`, `Comment`,
/// `Hash`, `Charset`, `MessageID`: all far shorter).
const ARMOR_NAME_MAX: usize = 24;

/// Length of an RFC 1421 / RFC 4880 armor header line (`Proc-Type: 4,ENCRYPTED`,
/// `Version: ...`) starting at the beginning of `s`, including its line break. Only the current
/// line is read: the `: ` must come within the first `ARMOR_NAME_MAX + 2` bytes, after a name
/// of letters and `-`, and the line's end is the header's end. A line holding `-----` is no
/// header (`tls-key: -----BEGIN PRIVATE KEY-----MIIE...` is a key of its own).
fn armor_header_len(s: &[u8]) -> Option<usize> {
    let head = &s[..s.len().min(ARMOR_NAME_MAX + 2)];
    let colon = head
        .iter()
        .position(|&c| !(c.is_ascii_alphabetic() || c == b'-'))?;
    if colon == 0 || !head[colon..].starts_with(b": ") {
        return None;
    }
    let end = memchr::memchr(b'\n', &s[colon..]).map_or(s.len(), |n| colon + n + 1);
    memchr::memmem::find(&s[..end], b"-----")
        .is_none()
        .then_some(end)
}

fn secret<'h>(c: &Captures<'h>) -> &'h str {
    c.name("s").map_or("", |m| m.as_str())
}

fn always(_: &Captures, _: &str) -> bool {
    true
}

/// AWS documents `AKIAIOSFODNN7EXAMPLE` and `wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`, and
/// test suites vary them (`AKIAIOSFODNN7EXAMPLF`): an id or key holding `EXAMPL` is not a
/// secret. Random base32 holds those six letters once in about 10^8 keys.
fn not_aws_example(c: &Captures, _line: &str) -> bool {
    !secret(c).contains("EXAMPL")
}

fn aws_secret(c: &Captures, _line: &str) -> bool {
    let s = secret(c);
    !s.contains("EXAMPL") && !is_hash_or_uuid(s) && entropy(s) >= 4.0
}

fn high_entropy(c: &Captures, _line: &str) -> bool {
    let s = secret(c);
    !is_placeholder(s) && !is_hash_or_uuid(s) && entropy(s) >= entropy_threshold(s.len())
}

/// A JWT's header must decode to a JSON object with an `alg` member, and its payload to a JSON
/// object; base64url text that merely starts with `eyJ` does not count.
fn jwt(c: &Captures, _line: &str) -> bool {
    let json = |name| {
        c.name(name)
            .and_then(|m| base64url_decode(m.as_str()))
            .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
    };
    let header_ok = json("h").is_some_and(|h| h.get("alg").is_some_and(|a| a.is_string()));
    header_ok && json("p").is_some_and(|p| p.is_object())
}

/// The password of `scheme://user:password@host`, held to nearly the generic rule's bar: 8 or
/// more characters, not a placeholder, and the entropy bar capped at 3 bits (a hex password is a
/// password, not a hash). Also not when it repeats the user name, is GitHub's fixed `x-oauth-basic` (the token
/// is then the user name), or the host is a name reserved for documentation (RFC 2606:
/// `example.com`, `*.example`, `*.test`, `*.invalid`). URL parsers' test vectors
/// (`moz://foo:bar@servo`, `javascript://:bowser@x`) fall below the bar.
fn url_password(c: &Captures, _line: &str) -> bool {
    let s = secret(c);
    let user = c.name("user").map_or("", |m| m.as_str());
    let host = c
        .name("host")
        .map_or(String::new(), |m| m.as_str().to_ascii_lowercase());
    let lower = s.to_ascii_lowercase();
    let trivial = ["changeme", "x-oauth-basic"];
    let doc_host = ["example.com", "example.org", "example.net", "example"]
        .iter()
        .any(|d| host == *d || host.ends_with(&format!(".{d}")))
        || [".test", ".invalid"].iter().any(|t| host.ends_with(t));
    !(is_placeholder(s) || trivial.contains(&lower.as_str()) || s == user || doc_host)
        && s.chars().count() >= 8
        && entropy(s) >= entropy_threshold(s.len()).min(URL_PASSWORD_ENTROPY)
}

/// The entropy bar for URL passwords stops at 3 bits per character instead of 3.5: a random
/// hex password (4 bits at most, often under 3.5 over 32 characters) is still a password.
const URL_PASSWORD_ENTROPY: f64 = 3.0;

/// What every generic value must pass, quoted or bare: the key is a name of its own, and the
/// value is neither a reference (URL, version, package) nor a placeholder, hash or UUID, and
/// clears the entropy bar.
fn generic_value(c: &Captures, line: &str) -> bool {
    // The entropy bar rejects most candidates: it goes first.
    high_entropy(c, line)
        && key_stands_alone(c, line)
        && !is_reference(secret(c))
        && !value_restates_key(c)
}

/// A value that spells its own key is a name, not a secret: `X_AMZ_CREDENTIAL: &str =
/// "X-Amz-Credential"`, `PASSWORD_FIELD = "password_field"`. Compared without case and
/// without `_`, `-`, `.`.
fn value_restates_key(c: &Captures) -> bool {
    fn norm(t: &str) -> impl Iterator<Item = u8> + '_ {
        t.bytes()
            .filter(|b| !matches!(b, b'_' | b'-' | b'.'))
            .map(|b| b.to_ascii_lowercase())
    }
    c.name("key")
        .is_some_and(|k| norm(k.as_str()).eq(norm(secret(c))))
}

/// How far back from a URL parameter its URL is looked for.
const MAX_URL_LOOKBACK: usize = 512;

/// A URL parameter (`?token=...`): as a quoted value, and not in the query of an image URL
/// (`.../graph/badge.svg?token=...`): badge tokens are made to be embedded in public pages,
/// and an image is fetched without credentials.
fn generic_param(c: &Captures, line: &str) -> bool {
    let start = c.get(0).map_or(0, |m| m.start());
    // Look back at most a URL's worth: on one long line of parameters, looking back to the start
    // of the line for every candidate is quadratic. A longer URL is not recognised as an image,
    // so its parameters stay findings.
    let mut from = start.saturating_sub(MAX_URL_LOOKBACK);
    while !line.is_char_boundary(from) {
        from += 1;
    }
    let before = &line.as_bytes()[from..start];
    // The URL this parameter belongs to: back to the nearest delimiter, then its path up to `?`.
    let url_start = before
        .iter()
        .rposition(|&ch| ch.is_ascii_whitespace() || b"\"'`(<[".contains(&ch))
        .map_or(0, |i| i + 1);
    let url = &before[url_start..];
    let path = &url[..url.iter().position(|&ch| ch == b'?').unwrap_or(url.len())];
    let image = [".svg", ".png", ".gif", ".jpg", ".jpeg", ".webp"]
        .iter()
        .any(|x| {
            path.len() >= x.len() && path[path.len() - x.len()..].eq_ignore_ascii_case(x.as_bytes())
        });
    !image && generic_quoted(c, line)
}

/// The key must not be the tail of a path or of a scoped package name: in
/// `"@octokit/auth-token": "npm:^4.0.0"` the key the regex sees is `auth-token`, right after a
/// `/`. Shapes without a `key` group (URL parameters) pass.
fn key_stands_alone(c: &Captures, line: &str) -> bool {
    c.name("key")
        .is_none_or(|k| k.start() == 0 || line.as_bytes()[k.start() - 1] != b'/')
}

/// Quoted values must not be identifier words either: `private_key: "_RSAPrivateKey"` is a
/// Python type annotation.
fn generic_quoted(c: &Captures, line: &str) -> bool {
    generic_value(c, line) && !is_identifier_words(secret(c))
}

/// Unquoted values also must not look like code: they need a letter and a digit, must not be
/// a word followed by digits (`TokenStream2`).
fn generic_bare(c: &Captures, line: &str) -> bool {
    let s = secret(c);
    let has_letter = s.bytes().any(|b| b.is_ascii_alphabetic());
    let has_digit = s.bytes().any(|b| b.is_ascii_digit());
    let word_then_digits = s
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .bytes()
        .all(|b| b.is_ascii_alphabetic() || b == b'_');
    has_letter && has_digit && !word_then_digits && generic_value(c, line)
}
