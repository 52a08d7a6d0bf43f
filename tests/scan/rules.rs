//! Rule-by-rule tests of the secrets scanner through its public API. Every fake secret is
//! generated here at test time from a seeded generator and split prefixes, so no real-looking
//! key is ever committed.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use gnaw::scan::{self, Allow, Finding, Scanned, SecretsMode, rules, sensitive_file};
use std::collections::BTreeSet;

/// splitmix64: small, seeded, good enough to make random-looking tokens.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn from(&mut self, alphabet: &str, n: usize) -> String {
        let a = alphabet.as_bytes();
        (0..n)
            .map(|_| char::from(a[(self.next() % a.len() as u64) as usize]))
            .collect()
    }
    fn alnum(&mut self, n: usize) -> String {
        self.from(ALNUM, n)
    }
}

const UPPER: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const B64URL: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const HEX: &str = "0123456789abcdef";
const DIGITS: &str = "0123456789";

fn b64url(bytes: &[u8]) -> String {
    let a = B64URL.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n =
            chunk.iter().fold(0u32, |acc, &b| acc << 8 | u32::from(b)) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            out.push(char::from(a[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// One secret to find: the rule, the line holding it, and the secret substring itself.
struct Case {
    rule: &'static str,
    line: String,
    secret: String,
}

fn case(rule: &'static str, line: String, secret: String) -> Case {
    assert!(line.contains(&secret), "{rule}: secret not in line");
    Case { rule, line, secret }
}

fn single_line_cases(r: &mut Rng) -> Vec<Case> {
    let mut v = Vec::new();
    let aws_id = format!("{}{}", "AK", "IA") + &r.from(&(UPPER.to_string() + "234567"), 16);
    v.push(case(
        "aws-access-key-id",
        format!("aws_access_key_id = {aws_id}"),
        aws_id,
    ));
    let sts_id = format!("{}{}", "AS", "IA") + &r.from(UPPER, 16);
    v.push(case(
        "aws-access-key-id",
        format!("  \"AccessKeyId\": \"{sts_id}\","),
        sts_id,
    ));
    let aws_secret = r.from(B64, 40);
    v.push(case(
        "aws-secret-access-key",
        format!("aws_secret_access_key = {aws_secret}"),
        aws_secret,
    ));
    let aws_secret = r.from(B64, 40);
    v.push(case(
        "aws-secret-access-key",
        format!("export AWS_SECRET_ACCESS_KEY=\"{aws_secret}\""),
        aws_secret,
    ));
    for p in ["p", "o", "u", "s", "r"] {
        let t = format!("{}{}_", "gh", p) + &r.alnum(36);
        v.push(case("github-token", format!("let token = \"{t}\";"), t));
    }
    let pat = format!("{}{}", "github_", "pat_") + &r.alnum(22) + "_" + &r.alnum(59);
    v.push(case("github-token", format!("GH_AUTH={pat} # ci"), pat));
    for p in ["pat", "dt", "rt", "cbt", "ptt"] {
        let t = format!("{}{}-", "gl", p) + &r.from(&(ALNUM.to_string() + "_-"), 20);
        v.push(case("gitlab-token", format!("gitlab: {t}"), t));
    }
    let bot = format!("{}{}-", "xo", "xb")
        + &[r.from(DIGITS, 12), r.from(DIGITS, 13), r.alnum(24)].join("-");
    v.push(case("slack-token", format!("SLACK_BOT_TOKEN={bot}"), bot));
    let user = format!("{}{}-", "xo", "xp")
        + &[12, 12, 13].map(|n| r.from(DIGITS, n)).join("-")
        + "-"
        + &r.from(HEX, 32);
    v.push(case("slack-token", format!("client.token('{user}')"), user));
    let app = format!("{}{}-1-", "xa", "pp")
        + "A0"
        + &[r.from(UPPER, 9), r.from(DIGITS, 13), r.from(HEX, 64)].join("-");
    v.push(case("slack-token", format!("app_token: {app}"), app));
    let hook_path = format!(
        "T{}/B{}/{}",
        r.from(UPPER, 8),
        r.from(UPPER, 10),
        r.alnum(24)
    );
    v.push(case(
        "slack-webhook",
        format!(
            "url = \"https://{}.slack.com/services/{hook_path}\"",
            "hooks"
        ),
        hook_path,
    ));
    let live = format!("{}{}_", "sk_", "live") + &r.alnum(24);
    v.push(case(
        "stripe-live-key",
        format!("Stripe.api_key = '{live}'"),
        live,
    ));
    let rlive = format!("{}{}_", "rk_", "live") + &r.alnum(99);
    v.push(case("stripe-live-key", format!("key: {rlive}"), rlive));
    let test = format!("{}{}_", "sk_", "test") + &r.alnum(24);
    v.push(case("stripe-test-key", format!("STRIPE={test}"), test));
    let google = format!("{}{}", "AI", "za") + &r.from(&(ALNUM.to_string() + "_-"), 35);
    v.push(case(
        "google-api-key",
        format!("<key>{google}</key>"),
        google,
    ));
    let npm = format!("{}{}", "np", "m_") + &r.alnum(36);
    v.push(case(
        "npm-token",
        format!("//registry.npmjs.org/:_authToken={npm}"),
        npm,
    ));
    let pypi = format!("{}{}", "pypi-", "AgEIcHlwaS5vcmc") + &r.from(B64URL, 120);
    v.push(case("pypi-token", format!("password = {pypi}"), pypi));
    let openai = format!("{}{}", "sk-", "proj-") + &r.alnum(40) + "T3Blbk" + "FJ" + &r.alnum(40);
    v.push(case(
        "openai-api-key",
        format!("OPENAI_API_KEY=\"{openai}\""),
        openai,
    ));
    let anthropic = format!("{}{}", "sk-ant-", "api03-") + &r.from(B64URL, 93) + "AA";
    v.push(case(
        "anthropic-api-key",
        format!("key = \"{anthropic}\""),
        anthropic,
    ));
    let azure = r.from(B64, 86) + "==";
    v.push(case(
        "azure-storage-key",
        format!("DefaultEndpointsProtocol=https;AccountName=acct1;AccountKey={azure};EndpointSuffix=core.windows.net"),
        azure,
    ));
    let jwt = format!(
        "{}.{}.{}",
        b64url(br#"{"alg":"HS256","typ":"JWT"}"#),
        b64url(format!(r#"{{"sub":"{}","iat":1700000000}}"#, r.alnum(12)).as_bytes()),
        r.from(B64URL, 43)
    );
    v.push(case("jwt", format!("Cookie: session={jwt}; Path=/"), jwt));
    let bearer = r.from(B64URL, 48);
    v.push(case(
        "authorization-header",
        format!("curl -H \"Authorization: Bearer {bearer}\" https://api.example.com"),
        bearer,
    ));
    for scheme in [
        "postgres",
        "postgresql",
        "mysql",
        "mongodb+srv",
        "redis",
        "amqp",
    ] {
        let pw = r.alnum(18);
        v.push(case(
            "connection-string",
            format!("DATABASE_URL={scheme}://app_user:{pw}@db.internal:5432/app"),
            pw,
        ));
    }
    let pw = r.alnum(10);
    v.push(case(
        "connection-string",
        format!("url: \"redis://:{pw}@cache:6379/0\""),
        pw,
    ));
    // Generic assignments, in the styles of many languages and config formats.
    let generic = [
        ("password = \"{}\"", 16),
        ("DB_PASSWORD={}", 20),
        ("  db_pass: {}", 14),
        ("\"client_secret\": \"{}\",", 32),
        ("api_key: '{}'", 24),
        ("apiKey := \"{}\"", 24),
        ("const API_KEY: &str = \"{}\";", 24),
        ("$config['secret'] = '{}';", 24),
        ("export ACCESS_TOKEN={}", 28),
        ("    private_key => \"{}\",", 30),
        ("if (password == \"{}\") {{", 12),
        ("jdbc:sqlserver://db;user=sa;password={};encrypt=true", 16),
        ("auth_token={} # rotated monthly", 22),
    ];
    for (template, n) in generic {
        let mut value = r.alnum(n - 2);
        value.push(char::from(b'0' + (r.next() % 10) as u8));
        value.push('x');
        v.push(case(
            "generic-secret",
            template.replace("{}", &value),
            value,
        ));
    }
    // A hex password is a password, not a hash.
    let pw = r.from(HEX, 32);
    v.push(case(
        "connection-string",
        format!("REDIS_URL=rediss://default:{pw}@cache.internal:6380"),
        pw,
    ));
    v
}

fn pem_body(r: &mut Rng, lines: usize) -> String {
    (0..lines)
        .map(|_| r.from(B64, 64) + "\n")
        .collect::<String>()
        + &r.from(B64, 20)
        + "==\n"
}

/// (whole text, the span that must become one marker, 1-based line where that span starts).
/// Armor headers (`Proc-Type`, `Version`) are part of the redacted body.
fn private_key_cases(r: &mut Rng) -> Vec<(String, String, usize)> {
    let mut v = Vec::new();
    let dash = "-".repeat(5);
    for kind in ["RSA ", "EC ", "DSA ", "", "ENCRYPTED ", "OPENSSH "] {
        let body = pem_body(r, 8);
        let text = format!(
            "# deploy key\n{dash}BEGIN {kind}PRIVATE KEY{dash}\n{body}{dash}END {kind}PRIVATE KEY{dash}\nafter\n"
        );
        v.push((text, body.trim_end().to_string(), 3));
    }
    // Legacy encrypted PEM with RFC 1421 headers: the headers go too.
    let body = pem_body(r, 6);
    let headers = format!(
        "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,{}\n\n",
        r.from(HEX, 32).to_uppercase()
    );
    let text = format!(
        "{dash}BEGIN RSA PRIVATE KEY{dash}\n{headers}{body}{dash}END RSA PRIVATE KEY{dash}\n"
    );
    v.push((text, format!("{headers}{}", body.trim_end()), 2));
    // PGP armor with a Version header and a checksum line.
    let body = pem_body(r, 10);
    let checksum = format!("={}", r.from(B64, 4));
    let text = format!(
        "{dash}BEGIN PGP PRIVATE KEY BLOCK{dash}\nVersion: GnuPG v2\n\n{body}{checksum}\n{dash}END PGP PRIVATE KEY BLOCK{dash}\n"
    );
    v.push((text, format!("Version: GnuPG v2\n\n{body}{checksum}"), 2));
    // A service-account JSON: the key sits on one line with escaped newlines.
    let body: String = (0..6).map(|_| r.from(B64, 64) + "\\n").collect();
    let text = format!(
        "{{\n  \"type\": \"service_account\",\n  \"private_key\": \"{dash}BEGIN PRIVATE KEY{dash}\\n{body}{dash}END PRIVATE KEY{dash}\\n\",\n  \"client_email\": \"x@y.iam.gserviceaccount.com\"\n}}\n"
    );
    let body = body.trim_end_matches("\\n").to_string();
    v.push((text, body, 3));
    v
}

/// Each finding's rule and line.
fn rule_lines(findings: &[Finding]) -> Vec<(&'static str, usize)> {
    findings.iter().map(|f| (f.rule, f.line)).collect()
}

fn warn(text: &str, path: &str) -> Vec<Finding> {
    match scan::scan(text, path, SecretsMode::Warn, &Allow::default()) {
        Scanned::Clean(_) => Vec::new(),
        Scanned::Warned { text: t, findings } => {
            assert_eq!(t, text, "warn must not change the text");
            findings
        }
        other => panic!("warn mode gave {other:?}"),
    }
}

fn redact(text: &str, path: &str) -> (String, Vec<Finding>) {
    match scan::scan(text, path, SecretsMode::Redact, &Allow::default()) {
        Scanned::Redacted { text, findings } => (text, findings),
        other => panic!("redact mode gave {other:?} for {text:?}"),
    }
}

#[test]
fn every_single_line_rule_detects_redacts_and_reports_the_line() {
    let mut r = Rng(7);
    for c in single_line_cases(&mut r) {
        let text = format!("first line\n\nfn main() {{}}\n{}\nlast line\n", c.line);
        let findings = warn(&text, "src/app.cfg");
        assert_eq!(
            findings,
            vec![Finding {
                rule: c.rule,
                path: "src/app.cfg".into(),
                line: 4,
                fingerprint: format!("src/app.cfg:{}:4", c.rule),
            }],
            "line {:?}",
            c.line
        );
        let (redacted, findings) = redact(&text, "src/app.cfg");
        assert_eq!(findings.len(), 1);
        assert!(
            !redacted.contains(&c.secret),
            "{}: secret left in {redacted:?}",
            c.rule
        );
        let expected = text.replace(&c.secret, &format!("[REDACTED:{}]", c.rule));
        assert_eq!(redacted, expected, "only the secret is replaced");
        assert!(matches!(
            scan::scan(&text, "a", SecretsMode::Block, &Allow::default()),
            Scanned::Blocked { findings } if findings.len() == 1 && findings[0].rule == c.rule
        ));
    }
}

#[test]
fn private_key_blocks_lose_their_body_and_keep_their_markers() {
    let mut r = Rng(11);
    for (text, body, line) in private_key_cases(&mut r) {
        let findings = warn(&text, "k.txt");
        assert_eq!(findings.len(), 1, "{text}");
        assert_eq!((findings[0].rule, findings[0].line), ("private-key", line));
        let (redacted, _) = redact(&text, "k.txt");
        assert!(!redacted.contains(&body), "{redacted}");
        for l in body.lines().filter(|l| l.len() > 8 && !l.contains(':')) {
            assert!(!redacted.contains(l.trim()), "body line left: {redacted}");
        }
        assert_eq!(redacted, text.replacen(&body, "[REDACTED:private-key]", 1));
        assert!(redacted.contains("PRIVATE KEY"), "markers kept: {redacted}");
    }
}

#[test]
fn every_rule_has_a_test_case() {
    let mut r = Rng(1);
    let mut tested: BTreeSet<&str> = single_line_cases(&mut r).iter().map(|c| c.rule).collect();
    tested.insert("private-key");
    let listed: BTreeSet<&str> = rules().iter().map(|r| r.id).collect();
    assert_eq!(tested, listed);
    assert!(rules().iter().all(|r| !r.description.is_empty()));
}

#[test]
fn many_secrets_in_one_file_each_get_a_finding_on_the_right_line() {
    let mut r = Rng(3);
    let cases = single_line_cases(&mut r);
    let text: String = cases
        .iter()
        .map(|c| format!("{}\nfiller\n", c.line))
        .collect();
    let findings = warn(&text, "all.txt");
    let got: Vec<(usize, &str)> = findings.iter().map(|f| (f.line, f.rule)).collect();
    let want: Vec<(usize, &str)> = cases
        .iter()
        .enumerate()
        .map(|(i, c)| (2 * i + 1, c.rule))
        .collect();
    assert_eq!(got, want);
    let (redacted, _) = redact(&text, "all.txt");
    for c in &cases {
        assert!(!redacted.contains(&c.secret), "{}", c.rule);
    }
    assert_eq!(redacted.lines().count(), text.lines().count());
}

#[test]
fn lookalikes_are_left_alone() {
    let mut r = Rng(5);
    let hex = |r: &mut Rng, n| r.from(HEX, n);
    let uuid = format!(
        "{}-{}-{}-{}-{}",
        hex(&mut r, 8),
        hex(&mut r, 4),
        hex(&mut r, 4),
        hex(&mut r, 4),
        hex(&mut r, 12)
    );
    let lines = vec![
        format!("token = \"{}\"", hex(&mut r, 40)),
        format!("secret: {}", hex(&mut r, 64)),
        format!("api_key = '{}'", hex(&mut r, 32)),
        format!("token: \"{uuid}\""),
        format!("password = \"{}\"", uuid.to_uppercase()),
        format!("\"integrity\": \"sha512-{}==\",", r.from(B64, 86)),
        format!("token = \"sha512-{}==\"", r.from(B64, 86)),
        format!("secret = \"sha256:{}\"", hex(&mut r, 64)),
        format!("commit {}", hex(&mut r, 40)),
        "password = get_password()".into(),
        "let token = tokens.next();".into(),
        "    token: TokenStream2,".into(),
        "token: TokenStream2".into(),
        "let secret_key: [u8; 32] = rng.gen();".into(),
        "    backend: \"Backend\", private_key: \"_DSAPrivateKey\", data: bytes".into(),
        "access_token_kind = \"AccessTokenKind\"".into(),
        "password = \"changeme\"".into(),
        "password: ${DB_PASSWORD}".into(),
        "DB_PASSWORD=$DB_PASSWORD".into(),
        "password = \"<password>\"".into(),
        "api_key: \"xxxxxxxxxxxxxxxxxxxxxxxx\"".into(),
        "secret = \"YWFhYWFhYWFhYWFhYWFhYQ==\"".into(),
        "token = \"AAAAAAAAAAAAAAAAAAAAAAAA\"".into(),
        "password = os.environ[\"DB_PASSWORD\"]".into(),
        "token = \"{{ .Values.token }}\"".into(),
        "password: \"your-password-here\"".into(),
        "bypass = \"a8f3Kq9zLm2x\"".into(),
        "tokenizer = \"cl100k_base\"".into(),
        "max_tokens = 4096".into(),
        "postgres://user:password@localhost/db".into(),
        "postgres://postgres:postgres@localhost:5432/db".into(),
        "mysql://root:${MYSQL_PASSWORD}@db/app".into(),
        "new URL('https://abc:k8Jq2mZx@sub.example.com:8080/p')".into(),
        "cvs://:pserver:anoncvs@sources.example.org:/cvs/src".into(),
        "ftp://:pserver:anoncvs@sources.redhat.com:/cvs/src".into(),
        "    \"OLDPWD\": \"/home/nodeuser/project/node/src\",".into(),
        "PWD=/home/me/work2/src".into(),
        "see https://example.com:8080/path and git@github.com:org/repo.git".into(),
        format!("aws_access_key_id = {}{}", "AKIAIOSFODNN7", "EXAMPLE"),
        format!("aws_secret_access_key = {}", hex(&mut r, 40)),
        format!(
            "{}{}",
            "-----BEGIN PRIVATE KEY-----", " is the header we look for"
        ),
        format!(
            "const HEADER: &str = \"{}\";",
            "-----BEGIN RSA PRIVATE KEY-----"
        ),
        format!("eyJ{}.eyJ{}.{}", r.alnum(20), r.alnum(20), r.alnum(20)),
        "Authorization: Bearer ${TOKEN}".into(),
        format!("{}{}", "pk_live_", r.alnum(24)),
        format!("let secret = \"this is not {}\";", "a secret"),
    ];
    for line in lines {
        let text = format!("x\n{line}\ny\n");
        assert_eq!(warn(&text, "f.rs"), Vec::new(), "flagged: {line}");
    }
}

#[test]
fn clean_text_comes_back_borrowed() {
    let text = "fn main() {\n    println!(\"hello\");\n}\n";
    for mode in SecretsMode::ALL {
        match scan::scan(text, "main.rs", mode, &Allow::default()) {
            Scanned::Clean(t) => assert!(std::ptr::eq(t, text)),
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn modes_off_warn_redact_block() {
    let mut r = Rng(9);
    let t = format!("{}{}_", "gh", "p") + &r.alnum(36);
    let text = format!("a\nGITHUB_TOKEN={t}\n");
    let allow = Allow::default();
    assert_eq!(
        scan::scan(&text, "p", SecretsMode::Off, &allow),
        Scanned::Clean(&text)
    );
    let warned = scan::scan(&text, "p", SecretsMode::Warn, &allow);
    assert_eq!(warned.text(), Some(text.as_str()));
    assert_eq!(warned.findings().len(), 1);
    let redacted = scan::scan(&text, "p", SecretsMode::Redact, &allow);
    assert_eq!(
        redacted.text(),
        Some("a\nGITHUB_TOKEN=[REDACTED:github-token]\n")
    );
    let blocked = scan::scan(&text, "p", SecretsMode::Block, &allow);
    assert_eq!(blocked.text(), None);
    assert_eq!(blocked.findings()[0].fingerprint, "p:github-token:2");
}

#[test]
fn mode_names_parse_and_order() {
    for m in SecretsMode::ALL {
        assert_eq!(m.name().parse::<SecretsMode>(), Ok(m));
        assert_eq!(m.to_string(), m.name());
    }
    assert_eq!(" Redact ".parse::<SecretsMode>(), Ok(SecretsMode::Redact));
    let err = "loud".parse::<SecretsMode>().unwrap_err();
    assert!(err.contains("loud") && err.contains("redact"), "{err}");
    assert!(SecretsMode::Off < SecretsMode::Warn && SecretsMode::Warn < SecretsMode::Redact);
    assert_eq!(
        SecretsMode::Warn.max(SecretsMode::Redact),
        SecretsMode::Redact
    );
    assert_eq!(
        serde_json::to_string(&SecretsMode::Block).ok().as_deref(),
        Some("\"block\"")
    );
}

#[test]
fn allow_list_by_path_and_by_fingerprint() {
    let mut r = Rng(13);
    let a = format!("{}{}_", "sk_", "live") + &r.alnum(30);
    let b = format!("{}{}", "np", "m_") + &r.alnum(36);
    let text = format!("one = \"{a}\"\ntwo = \"{b}\"\n");

    let by_path = Allow::new(["tests/fixtures/**"], Vec::<String>::new()).unwrap();
    assert_eq!(
        scan::scan(
            &text,
            "tests/fixtures/deep/keys.txt",
            SecretsMode::Block,
            &by_path
        ),
        Scanned::Clean(&text)
    );
    assert!(matches!(
        scan::scan(&text, "src/keys.txt", SecretsMode::Block, &by_path),
        Scanned::Blocked { .. }
    ));
    let star = Allow::new(["fixtures/*.txt"], Vec::<String>::new()).unwrap();
    assert!(star.allows_path("fixtures/a.txt") && !star.allows_path("fixtures/x/a.txt"));

    let one = Allow::new(Vec::<String>::new(), ["src/k.txt:stripe-live-key:1"]).unwrap();
    match scan::scan(&text, "src/k.txt", SecretsMode::Redact, &one) {
        Scanned::Redacted {
            text: out,
            findings,
        } => {
            assert!(out.contains(&a), "allowed finding is not redacted");
            assert!(!out.contains(&b));
            assert_eq!(findings.len(), 1);
            assert_eq!(findings[0].rule, "npm-token");
        }
        other => panic!("{other:?}"),
    }
    let both = Allow::new(
        Vec::<String>::new(),
        ["src/k.txt:stripe-live-key:1", "src/k.txt:npm-token:2"],
    )
    .unwrap();
    assert_eq!(
        scan::scan(&text, "src/k.txt", SecretsMode::Block, &both),
        Scanned::Clean(&text)
    );

    let err = Allow::new(["src/[oops"], Vec::<String>::new())
        .unwrap_err()
        .to_string();
    assert!(err.contains("src/[oops"), "{err}");
}

#[test]
fn findings_serialize_without_the_secret() {
    let mut r = Rng(17);
    let t = format!("{}{}-", "gl", "pat") + &r.alnum(20);
    let text = format!("x = \"{t}\"\n");
    let findings = warn(&text, "ci.yml");
    let json = serde_json::to_string(&findings).unwrap();
    assert!(!json.contains(&t));
    assert_eq!(
        json,
        r#"[{"rule":"gitlab-token","path":"ci.yml","line":1,"fingerprint":"ci.yml:gitlab-token:1"}]"#
    );
}

#[test]
fn crlf_and_unterminated_last_line() {
    let mut r = Rng(19);
    let pw = r.alnum(15) + "7";
    let text = format!("a\r\nDB_PASSWORD={pw}\r\nb\r\nsecret: \"{pw}\"");
    let (redacted, findings) = redact(&text, "x.env");
    assert_eq!(
        findings.iter().map(|f| f.line).collect::<Vec<_>>(),
        vec![2, 4]
    );
    assert_eq!(
        redacted,
        "a\r\nDB_PASSWORD=[REDACTED:generic-secret]\r\nb\r\nsecret: \"[REDACTED:generic-secret]\""
    );
}

#[test]
fn sensitive_files() {
    let s = |p: &str| sensitive_file(p, None);
    let c = |p: &str, body: &str| sensitive_file(p, Some(body.as_bytes()));
    assert_eq!(s(".env"), Some("dotenv file"));
    assert_eq!(s("app/.env.local"), Some("dotenv file"));
    assert_eq!(s(".env.production"), Some("dotenv file"));
    assert_eq!(
        s(".env.example"),
        None,
        "templates are scanned, not dropped"
    );
    assert_eq!(s("config/.env.sample"), None);
    assert_eq!(s("env.rs"), None);
    assert_eq!(s(".environment"), None);
    assert!(s("certs/server.pem").is_some());
    assert!(s("tls/server.KEY").is_some());
    assert!(s("keyboard.rs").is_none());
    assert!(s("home/.ssh/id_rsa").is_some());
    assert!(
        s("id_rsa.pub").is_some(),
        "id_rsa* includes the public half"
    );
    let sensitive = "id_ed25519 id_ed25519_sk.pub secrets.kdbx cert.p12 .git-credentials \
        home/.aws/credentials .config/gcloud/application_default_credentials.json \
        .config/gcloud/credentials.db .azure/msal_token_cache.json";
    for p in sensitive.split_whitespace() {
        assert!(s(p).is_some(), "{p} is sensitive");
    }
    for p in [".aws/config", "credentials", ".azure/config"] {
        assert!(s(p).is_none(), "{p} is not sensitive");
    }

    let token = format!("{}{}", "np", "m_") + &Rng(23).alnum(36);
    assert_eq!(
        c(
            ".npmrc",
            &format!("//registry.npmjs.org/:_authToken={token}\n")
        ),
        Some("credentials in .npmrc")
    );
    assert_eq!(
        c(".npmrc", "_auth = dXNlcjpwYXNz\n"),
        Some("credentials in .npmrc")
    );
    assert_eq!(
        c(".npmrc", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n"),
        None
    );
    assert_eq!(
        c(
            ".npmrc",
            "registry=https://registry.npmjs.org/\nsave-exact=true\n"
        ),
        None
    );
    assert_eq!(s(".npmrc"), None, "needs the content");
    assert_eq!(
        c(
            ".pypirc",
            "[pypi]\nusername = __token__\npassword = abc123\n"
        ),
        Some("credentials in .pypirc")
    );
    assert_eq!(c(".pypirc", "[distutils]\nindex-servers = pypi\n"), None);
    assert_eq!(
        c(
            ".netrc",
            "machine api.example.com login me password hunter2\n"
        ),
        Some("credentials in .netrc")
    );
    assert_eq!(
        c(".netrc", "machine a\n  login me\n  password s3cret\n"),
        Some("credentials in .netrc")
    );
    assert_eq!(c(".netrc", "machine a login me\n"), None);
    assert_eq!(
        c(
            "keys/deploy-sa.json",
            "{\"type\": \"service_account\", \"private_key\": \"...\"}"
        ),
        Some("Google service account key")
    );
    assert_eq!(c("package.json", "{\"name\": \"x\"}"), None);
    assert!(
        c(
            ".docker/config.json",
            "{\"auths\":{\"r\":{\"auth\":\"dTpw\"}}}"
        )
        .is_some()
    );
    assert!(
        c(
            ".kube/config",
            "users:\n- name: a\n  user:\n    token: abc\n"
        )
        .is_some()
    );
}

#[test]
fn every_rule_is_documented() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/secrets.md"))
        .expect("docs/secrets.md exists");
    for rule in rules() {
        assert!(
            doc.contains(&format!("| `{}` |", rule.id)),
            "{} missing from docs/secrets.md",
            rule.id
        );
    }
}

/// Fragments that make keyword-dense, quote-heavy, multi-byte text for the property test.
const FRAGMENTS: &[&str] = &[
    "password",
    "token",
    "secret",
    "API_KEY",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END",
    "=",
    ": ",
    "\"",
    "'",
    "\n",
    "\r\n",
    " ",
    "://",
    "@",
    ":",
    "eyJ",
    ".",
    "AKIA",
    "ghp_",
    "xoxb-",
    "é",
    "日本",
    "\\n",
    "Proc-Type: ",
    "AccountKey=",
    "Authorization: Bearer ",
    "$",
    "{",
    "}",
];

proptest::proptest! {
    #[test]
    fn scanning_any_text_is_consistent(
        picks in proptest::collection::vec((0..FRAGMENTS.len(), 0u64..u64::MAX, 0usize..40), 0..60)
    ) {
        let mut text = String::new();
        for (i, seed, n) in picks {
            text.push_str(FRAGMENTS[i]);
            let mut r = Rng(seed);
            text.push_str(&r.from(B64, n));
        }
        let allow = Allow::default();
        let warned = scan::scan(&text, "p", SecretsMode::Warn, &allow);
        let redacted = scan::scan(&text, "p", SecretsMode::Redact, &allow);
        proptest::prop_assert_eq!(warned.findings(), redacted.findings());
        let lines: Vec<usize> = warned.findings().iter().map(|f| f.line).collect();
        proptest::prop_assert!(lines.windows(2).all(|w| w[0] <= w[1]));
        proptest::prop_assert!(lines.iter().all(|&l| l >= 1 && l <= text.lines().count().max(1)));
        // Redacting is a fixed point: a second pass finds nothing new.
        if let Some(out) = redacted.text() && out != text {
            let again = scan::scan(out, "p", SecretsMode::Redact, &allow);
            proptest::prop_assert_eq!(again.findings(), &[][..], "{:?}", out);
        }
    }
}

/// Found by the property test above: a private key's body runs on through `AccountKey=...`
/// and the first `Authorization`, so the header match that begins there is refused (its value
/// is the word `password`) and used to hide the second header, which a scan of the redacted
/// text then found. The search now goes on where the key's body ends.
#[test]
fn a_refused_match_inside_redacted_text_hides_nothing_after_it() {
    let text = "-----BEGIN RSA PRIVATE KEY-----v0Psbqh8DmJ27vZrVGksXNqMp7AQAccountKey=v0Psbqh8DmJ2\
                Authorization: Bearer passwordAuthorization: Bearer v0PAuthorization: Bearer ";
    let allow = Allow::default();
    let redacted = scan::scan(text, "p", SecretsMode::Redact, &allow);
    let rules: Vec<&str> = redacted.findings().iter().map(|f| f.rule).collect();
    assert_eq!(rules, ["private-key", "authorization-header"]);
    let out = redacted.text().expect("redacted");
    assert!(!out.contains("v0PAuthorization"), "{out}");
    let again = scan::scan(out, "p", SecretsMode::Redact, &allow);
    assert_eq!(again.findings(), &[][..], "{out}");
    let warned = scan::scan(text, "p", SecretsMode::Warn, &allow);
    assert_eq!(warned.findings(), redacted.findings());
}

/// Also found by the property test: the header's value runs on into a GitHub token and holds
/// the word `password`, so it was refused as a placeholder; redacting the token removed the
/// word, and a scan of the redacted text accepted the value. A refused value that runs into
/// claimed text is now judged as the redacted text will show it.
#[test]
fn a_value_refused_for_a_word_the_redaction_removes_is_a_secret() {
    let text = "Authorization: Bearer eyJVOvgDGQKcfDZyR7SRvpUbYUlA0G8ZxQeErU+\
                ghp_SqrYCpasswordoNmQc6m0qYoODmymzHe74ew";
    let allow = Allow::default();
    let redacted = scan::scan(text, "p", SecretsMode::Redact, &allow);
    let out = redacted.text().expect("redacted");
    assert!(!out.contains("eyJVOvgDGQ"), "{out}");
    let again = scan::scan(out, "p", SecretsMode::Redact, &allow);
    assert_eq!(again.findings(), &[][..], "{out}");
}

#[test]
fn short_varied_literal_password_is_flagged() {
    let findings = warn("db:\n  password: \"hunter2!x\"\n", "c.yml");
    assert_eq!(rule_lines(&findings), vec![("generic-secret", 2)]);
}

/// Issue 13: lines from real lockfiles and CI configs, exactly as the package managers and
/// projects write them. Keys that hold a keyword only as part of a package name
/// (`@octokit/auth-token`, `parse-passwd`, `jsonwebtoken`) and values that are versions, version
/// ranges, dependency descriptors, URLs, hashes or `${{ secrets.X }}` references are no secrets.
#[test]
fn lockfile_and_ci_lines_are_not_secrets() {
    let lines = [
        // yarn berry (babel's yarn.lock, the issue's two lines)
        "    \"@octokit/auth-token\": \"npm:^4.0.0\"",
        "    parse-passwd: \"npm:^1.0.0\"",
        "    jsonwebtoken: \"npm:^9.0.0\"",
        "    jsonwebtoken: \"npm:9.0.2\"",
        "  resolution: \"@octokit/auth-token@npm:4.0.0\"",
        "\"@octokit/auth-token@npm:^4.0.0\":",
        "    \"@babel/helper-plugin-utils\": \"workspace:^\"",
        "    \"@octokit/auth-token\": \"patch:@octokit/auth-token@npm%3A4.0.0#~/.yarn/patches/x.patch\"",
        "    csrf-token: \"npm:@scope/csrf-token@^2.1.0\"",
        // yarn v1
        "\"@octokit/auth-token@^4.0.0\":",
        "  resolved \"https://registry.yarnpkg.com/@octokit/auth-token/-/auth-token-4.0.0.tgz#9bbb4e6c0e8ce9b2f1c09beb2d8bfb9c8dd1e4b7\"",
        "    parse-passwd \"^1.0.0\"",
        // npm package-lock.json
        "    \"node_modules/@octokit/auth-token\": {",
        "      \"resolved\": \"https://registry.npmjs.org/@octokit/auth-token/-/auth-token-4.0.0.tgz\",",
        "        \"@octokit/auth-token\": \"^4.0.0-beta.1\",",
        "        \"jsonwebtoken\": \">=8.5.1 || ^9.0.0\",",
        "        \"passport-oauth2-client-password\": \"~0.1.2\",",
        // pnpm-lock.yaml
        "  '@octokit/auth-token@4.0.0':",
        "      '@octokit/auth-token': 4.0.0",
        "      parse-passwd: 1.0.0",
        "      jsonwebtoken: 9.0.2(supports-color@8.1.1)",
        "        specifier: ^9.0.2",
        // Cargo.lock
        "name = \"password-hash\"",
        "checksum = \"346f04948ba92c43e8469c1ee6736c7563d71012b17d40745260fe106aac2166\"",
        " \"password-hash 0.5.0\",",
        // poetry.lock and pyproject.toml
        "pyjwt-token = \">=2.4.0,<3.0.0\"",
        "django-secret = \"==5.1.3\"",
        "keyring-token = \"~=25.5\"",
        // go.sum and go.mod
        "github.com/golang-jwt/jwt/v4 v4.4.3 h1:Hxl6lhQFj4AnOX6MLrsCb/+7tCj7DxP7VA+2rDIq5AU=",
        "\tgolang.org/x/oauth2 v0.3.0 // indirect",
        // GitHub Actions
        "          password: ${{ secrets.PYPI_API_TOKEN }}",
        "          token: ${{ secrets.CODECOV_TOKEN }}",
        "      CARGO_REGISTRY_TOKEN: ${{ secrets.CARGO_REGISTRY_TOKEN }}",
        "          github-token: ${{ github.token }}",
        "      id-token: write",
        "        uses: rust-lang/crates-io-auth-action@v1.0.1",
        "          api-key: ${{ steps.auth.outputs.token }}",
        // Real lines of the benchmark corpora (scripts/bench.sh): a header name restating its
        // key (aws-sigv4), AWS's example key varied by a test, Codecov badge tokens, URL parser
        // test vectors (url, reqwest).
        "    pub(crate) const X_AMZ_CREDENTIAL: &str = \"X-Amz-Credential\";",
        "            \"AKIAIOSFODNN7EXAMPLF\",",
        "[coverage-image]: https://codecov.io/gh/RustCrypto/hybrid-array/graph/badge.svg?token=Z92NHFQ70G",
        "[![Codecov](https://codecov.io/gh/vorner/arc-swap/branch/master/graph/badge.svg?token=3KA3R2D9fV)](https://codecov.io/gh/vorner/arc-swap)",
        "                \"href\": \"javascript://:bowser@x/\",",
        "    let mut base: Url = \"moz://foo:bar@servo/baz\".parse().unwrap();",
        "        (\"ftp://😅:🙂@🙂.com\", \"ftp://🙂.com\"),",
        "    \"input\": \"http://&a:foo(b]c@d:2/\",",
        "    \"password\": \"foo(b%5Dc\",",
        "    \"input\": \"http://%25DOMAIN:foobar@foodomain.com/\",",
        "    \"input\": \"https://user:pass[\\u007F@foo/bar\",",
        "    \"password\": \"pass%5B%7F\",",
        "                        Proxy::http(\"http://ldap%5Cgremlin:pass%3Bword@127.0.0.1:8080\").unwrap();",
        "    oauth_url = f\"https://{token}:x-oauth-basic@github.com/{SLUG}.git\"",
        // GitLab CI
        "    - docker login -u \"$CI_REGISTRY_USER\" -p \"$CI_REGISTRY_PASSWORD\" $CI_REGISTRY",
        "    TWINE_PASSWORD: ${PYPI_TOKEN}",
        "    - echo \"//${CI_SERVER_HOST}/api/v4/projects/${CI_PROJECT_ID}/packages/npm/:_authToken=${CI_JOB_TOKEN}\">.npmrc",
        "    - cargo publish --token $CRATES_IO_TOKEN",
    ];
    for line in lines {
        let text = format!("x\n{line}\ny\n");
        assert_eq!(warn(&text, "yarn.lock"), Vec::new(), "flagged: {line}");
    }
}

/// What the precision fixes of issue 13 must not let through: a keyword key, also hyphenated like
/// a package name, still flags a random value; a URL whose path carries a token is still a
/// secret; a key after `.` or `@` (a field or an instance variable) is still a key.
#[test]
fn secrets_beside_lockfile_shapes_are_still_found() {
    let mut r = Rng(29);
    let v = r.alnum(22) + "7q";
    let hook = format!("https://chat.internal/api/webhooks/1234/{}", r.alnum(40));
    let cases = [
        (format!("    auth-token: \"{v}\""), v.clone()),
        (format!("    parse-passwd: \"{v}\""), v.clone()),
        (format!("    \"auth_token\": \"{v}\","), v.clone()),
        (format!("webhook_token = \"{hook}\""), hook.clone()),
        (format!("  @api_token = '{v}'"), v.clone()),
        (format!("this.token = \"{v}\";"), v.clone()),
        (format!("NPM_TOKEN={v}"), v.clone()),
        (format!("    registry-password: {v}"), v.clone()),
        (format!("token: \"v1.2.{v}\""), format!("v1.2.{v}")),
        (format!("see https://api.internal/v1?token={v})"), v.clone()),
        (
            format!("img src=\"https://ci.internal/b.svg\" a=b?token={v}"),
            v.clone(),
        ),
    ];
    for (line, secret) in cases {
        let text = format!("x\n{line}\n");
        assert_eq!(warn(&text, "c.yml").len(), 1, "missed: {line}");
        let (redacted, findings) = redact(&text, "c.yml");
        assert_eq!(rule_lines(&findings), vec![("generic-secret", 2)], "{line}");
        assert!(!redacted.contains(&secret), "{redacted}");
    }
}

/// A line shaped like an armor header (`name: value`) that holds a whole one-line key is a key
/// of its own, also right after a BEGIN line that has no body: the BEGIN line's block does not
/// swallow it as a header.
#[test]
fn one_line_key_after_a_bare_marker_line() {
    let mut r = Rng(31);
    let dash = "-".repeat(5);
    let body = r.from(B64, 200);
    let text = format!(
        "{dash}BEGIN PRIVATE KEY{dash}\ntls-key: {dash}BEGIN PRIVATE KEY{dash}{body}{dash}END PRIVATE KEY{dash}\n"
    );
    let (redacted, findings) = redact(&text, "values.yaml");
    assert_eq!(rule_lines(&findings), vec![("private-key", 2)]);
    assert_eq!(redacted, text.replace(&body, "[REDACTED:private-key]"));
}
