//! Shape tests for candidate secret values: Shannon entropy, the hash and UUID lookalikes that
//! must never be flagged, placeholders and variable references, and a small base64url decoder
//! for checking JWT headers.

use regex::Regex;
use std::sync::OnceLock;

/// Shannon entropy of `s` in bits per byte.
pub fn entropy(s: &str) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let mut counts = [0u32; 256];
    for &b in s.as_bytes() {
        counts[usize::from(b)] += 1;
    }
    let len = s.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / len;
            -p * p.log2()
        })
        .sum()
}

/// The entropy a generic value must reach: 85% of the most a string of its length can have,
/// capped at 3.5 bits. Random base62 strings of 12+ characters clear it; words and repeats don't.
pub fn entropy_threshold(len: usize) -> f64 {
    (0.85 * (len as f64).log2()).min(3.5)
}

/// True if `s` looks like a digest or an identifier rather than a credential: hex of a hash
/// length (MD5, SHA-1, SHA-224, SHA-256, SHA-384, SHA-512), a UUID, a Subresource Integrity value
/// (`sha512-...`) or a prefixed digest (`sha256:...`).
pub fn is_hash_or_uuid(s: &str) -> bool {
    let s = s.trim_matches(|c| c == '{' || c == '}');
    let is_hex = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_hexdigit());
    if is_hex(s) && matches!(s.len(), 32 | 40 | 56 | 64 | 96 | 128) {
        return true;
    }
    if is_uuid(s) {
        return true;
    }
    let lower = s.to_ascii_lowercase();
    for algo in [
        "sha1", "sha224", "sha256", "sha384", "sha512", "md5", "blake2b", "blake3",
    ] {
        if let Some(rest) = lower.strip_prefix(algo)
            && (rest.starts_with('-') || rest.starts_with(':') || rest.starts_with('='))
        {
            return true;
        }
    }
    false
}

/// True for the 8-4-4-4-12 hex form of a UUID.
fn is_uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// Words that mark a value as a stand-in, a description or a test fixture rather than a secret.
const PLACEHOLDER_WORDS: &[&str] = &[
    "changeme",
    "change_me",
    "change-me",
    "example",
    "placeholder",
    "your_",
    "your-",
    "yourpass",
    "xxxx",
    "****",
    "....",
    "dummy",
    "redacted",
    "sample",
    "fake",
    "replace",
    "insert",
    "todo",
    "password",
    "passwd",
    "pass",
    "foo",
    "secret",
    "token",
    "test",
    "process.env",
    "environ",
    "getenv",
];

/// The protocols a package manager writes before a dependency's descriptor: yarn berry
/// (`npm:^4.0.0`, `workspace:^`, `patch:...`, `portal:`, `link:`, `exec:`), pnpm (`catalog:`,
/// `jsr:`), npm and yarn v1 (`file:`, `github:`, `git+ssh:`...).
const DEPENDENCY_PROTOCOLS: &[&str] = &[
    "npm:",
    "workspace:",
    "patch:",
    "portal:",
    "link:",
    "exec:",
    "file:",
    "catalog:",
    "jsr:",
    "github:",
    "gitlab:",
    "bitbucket:",
    "git:",
    "git+ssh:",
    "git+https:",
    "git+http:",
    "git+file:",
];

/// True if `value` refers to something published rather than holding a credential: a URL
/// (`https://registry.yarnpkg.com/...`; a password inside one is the `connection-string`
/// rule's) unless a part of it looks like a token (see [`url_carries_token`]), a dependency
/// descriptor behind a package manager's protocol (`npm:^4.0.0`,
/// `workspace:^1.0.0`, `npm:@scope/name@^2`), a package pinned to a version (`name@1.2.3`,
/// `@scope/name@npm:1.2.3`), or a version or version range (see [`is_version_spec`]).
pub fn is_reference(value: &str) -> bool {
    if value.contains("://") {
        return !url_carries_token(value);
    }
    if DEPENDENCY_PROTOCOLS.iter().any(|p| {
        value
            .get(..p.len())
            .is_some_and(|head| head.eq_ignore_ascii_case(p))
    }) {
        return true;
    }
    if let Some((name, version)) = value.rsplit_once('@')
        && is_package_name(name)
    {
        return is_version_spec(version) || is_reference(version);
    }
    is_version_spec(value)
}

/// True if a part of the URL between `/ ? & = # ;` looks like a random token rather than a
/// name: 20 or more of `[A-Za-z0-9_-]` with upper case, lower case and digits, and not a hash
/// (`https://hooks.example/api/webhooks/123/<token>`). Host names, package file names
/// (`auth-token-4.0.0.tgz`) and commit hashes do not.
pub fn url_carries_token(url: &str) -> bool {
    url.split(['/', '?', '&', '=', '#', ';']).any(|part| {
        part.len() >= 20
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            && part.bytes().any(|b| b.is_ascii_uppercase())
            && part.bytes().any(|b| b.is_ascii_lowercase())
            && part.bytes().any(|b| b.is_ascii_digit())
            && !is_hash_or_uuid(part)
    })
}

/// An npm, PyPI or crates.io style package name, optionally scoped: `parse-passwd`,
/// `@octokit/auth-token`, `zope.interface`.
fn is_package_name(s: &str) -> bool {
    let bare = s
        .strip_prefix('@')
        .and_then(|t| t.split_once('/'))
        .map_or(Some(s), |(scope, name)| {
            (!scope.is_empty() && is_name_part(scope)).then_some(name)
        });
    bare.is_some_and(|n| !n.is_empty() && is_name_part(n))
}

fn is_name_part(s: &str) -> bool {
    s.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

/// True if `value` is a version or a version range as manifests and lockfiles write them:
/// `1.2.3`, `^4.0.0`, `~1.0`, `>=1.2.3`, `1.x`, `2.0.0-rc.1+build.5`, `0.0.0-20240101-abcdef`,
/// `>=2.0,<3` (PEP 440), `^1.0.0||^2.0.0`. An operator or at least `major.minor` is required, so
/// a bare run of digits does not count. Suffixes (pre-release, build, local version) are
/// identifiers separated by `.`, `-`, `+` or `_`: letters and digits, and if longer than 12,
/// hex digits only.
pub fn is_version_spec(value: &str) -> bool {
    !value.is_empty()
        && value
            .split("||")
            .flat_map(|part| part.split(','))
            .all(is_one_version)
}

fn is_one_version(part: &str) -> bool {
    let ops = part
        .bytes()
        .take_while(|b| matches!(b, b'^' | b'~' | b'<' | b'>' | b'=' | b'!' | b'v'))
        .count();
    let rest = &part.as_bytes()[ops..];
    let digits = |s: &[u8]| s.iter().take_while(|b| b.is_ascii_digit()).count();
    let major = digits(rest);
    if major == 0 {
        return false;
    }
    let mut i = major;
    let mut dots = 0;
    while i + 1 < rest.len() && rest[i] == b'.' {
        let n = match rest[i + 1] {
            b'x' | b'X' | b'*' => 1,
            _ => digits(&rest[i + 1..]),
        };
        if n == 0 {
            break;
        }
        dots += 1;
        i += 1 + n;
    }
    // Pre-release, build and local parts: short identifiers (`rc.1`, `post1`, `cu118`), or long
    // ones of hex digits only (dates, commit hashes: `0.0.0-20240101120000-abcdef123456`). A
    // long mixed run after `1.2.` is not a version but something hiding behind one.
    (ops > 0 || dots > 0)
        && rest[i..]
            .split(|b| matches!(b, b'.' | b'-' | b'+' | b'_'))
            .all(|id| {
                id.iter().all(u8::is_ascii_alphanumeric)
                    && (id.len() <= 12 || id.iter().all(u8::is_ascii_hexdigit))
            })
}

/// True if `value` is a placeholder, template or variable reference: `${VAR}`, `$VAR`, `{{ x }}`,
/// `<password>`, `%(x)s`, `changeme`, `xxxx`, a file path (`PWD=/home/me`), a run of one
/// character, and so on.
pub fn is_placeholder(value: &str) -> bool {
    let v = value.trim();
    if v.is_empty() {
        return true;
    }
    if v.starts_with('$')
        || v.starts_with('%')
        || v.starts_with('/')
        || v.starts_with("~/")
        || v.starts_with("./")
        || v.starts_with("../")
        || v.starts_with('<') && v.ends_with('>')
        || v.contains('{') && v.contains('}')
        || v.contains("%s")
        || v.contains("%(")
    {
        return true;
    }
    let first = v.as_bytes()[0];
    if v.bytes().all(|b| b == first) {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    PLACEHOLDER_WORDS.iter().any(|w| lower.contains(w))
}

/// True for a digit-free value made of identifier words, like `_RSAPrivateKey`,
/// `module.ClassName` or `access_token_type`: a type name or a field name, not a secret.
/// Random letters almost never split into such words.
pub fn is_identifier_words(s: &str) -> bool {
    static WORDS: OnceLock<Regex> = OnceLock::new();
    let re = WORDS.get_or_init(|| {
        // A constant pattern, covered by the tests below.
        Regex::new(r"^_*(?:(?:[A-Z]{0,4}[a-z]{2,}|[A-Z]{2,6})[_.\-]?)+$").expect("pattern compiles")
    });
    !s.bytes().any(|b| b.is_ascii_digit()) && re.is_match(s)
}

/// Decodes unpadded or padded base64url (also accepting the standard `+` and `/`). Returns None
/// on any character outside the alphabet.
pub fn base64url_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for b in s.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entropy_of_repeats_and_distinct_bytes() {
        assert_eq!(entropy("aaaa"), 0.0);
        assert!((entropy("abcd") - 2.0).abs() < 1e-9);
        assert!((entropy("abcdefgh") - 3.0).abs() < 1e-9);
    }

    #[test]
    fn hash_shapes() {
        assert!(is_hash_or_uuid(&"a1".repeat(20)));
        assert!(is_hash_or_uuid(&"0f".repeat(32)));
        assert!(is_hash_or_uuid("123e4567-e89b-12d3-a456-426614174000"));
        assert!(is_hash_or_uuid("{123E4567-E89B-12D3-A456-426614174000}"));
        assert!(is_hash_or_uuid("sha512-AbCdEf0123456789+/=="));
        assert!(!is_hash_or_uuid(&"a1".repeat(19)));
        assert!(!is_hash_or_uuid("Zk3q9XvB2mLp7RtY"));
    }

    #[test]
    fn placeholders() {
        for p in [
            "${DB_PASSWORD}",
            "$TOKEN",
            "{{ .Values.x }}",
            "<password>",
            "changeme",
            "xxxxxxxx",
        ] {
            assert!(is_placeholder(p), "{p}");
        }
        assert!(!is_placeholder("Zk3q9XvB2mLp7RtY"));
    }

    #[test]
    fn versions_and_references() {
        for v in [
            "npm:^4.0.0",
            "npm:^1.0.0",
            "^4.0.0",
            "~1.2.3",
            ">=1.2.3",
            "1.2.3",
            "1.x",
            "v2.0.0-rc.1+build.5",
            "0.0.0-20240101120000-abcdef123456",
            ">=2.0,<3",
            "^1.0.0||^2.0.0",
            "1.0.0.post1",
            "workspace:^",
            "patch:foo@npm%3A1.0.0#~/.yarn/patches/foo.patch",
            "npm:@scope/name@^2.0.0",
            "@octokit/auth-token@npm:4.0.0",
            "parse-passwd@1.0.0",
            "https://registry.yarnpkg.com/x/-/x-1.0.0.tgz",
            "git+ssh://git@github.com/o/r.git",
        ] {
            assert!(is_reference(v), "{v}");
        }
        for s in [
            "Zk3q9XvB2mLp7RtY",
            "hunter2!x",
            "12345678",
            "1a2b3c4d5e6f",
            "4xK9-qLm2",
            "user@Zk3q9XvB2mLp7RtY",
            "@x@1.0",
            "v1.2.Zk3q9XvB2mLp7RtYwq",
            "https://hooks.example.net/api/webhooks/1234/aZ09bY18cX27dW36eV45fU54",
        ] {
            assert!(!is_reference(s), "{s}");
        }
    }

    #[test]
    fn identifier_words() {
        for w in [
            "_DSAPrivateKey",
            "_EllipticCurvePrivateKey",
            "module.ClassName",
            "access_token_type",
            "HTTPBasicAuth",
        ] {
            assert!(is_identifier_words(w), "{w}");
        }
        for s in [
            "qfiBGkBPHDGix",
            "Zk3q9XvB2mLp7RtY",
            "aBcDeFgHiJkLmN",
            "xKqzWvPtRmYn",
        ] {
            assert!(!is_identifier_words(s), "{s}");
        }
    }

    #[test]
    fn base64url() {
        assert_eq!(
            base64url_decode("eyJhbGciOiJIUzI1NiJ9").as_deref(),
            Some(&b"{\"alg\":\"HS256\"}"[..])
        );
        assert_eq!(base64url_decode("aGk").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64url_decode("a.b"), None);
    }
}
