//! The secrets scan takes time linear in its input for every rule, also on input built to hurt
//! it: for each rule, texts that target it (many BEGIN markers, markers inside armor headers,
//! long runs of the rule's alphabet after its prefix, a keyword repeated along one line, many
//! real-shaped matches and so many findings) are scanned at size N and 2N, and the time at 2N
//! must stay within 3x the time at N (linear is 2x; quadratic is 4x).
//!
//! Robust on a loaded 2-core machine: each size is timed several times, interleaved, and the
//! medians compared; a case that misses is measured again before it fails, and its ratio must
//! miss every time. Besides the ratio, 2N must scan within an absolute ceiling.
//!
//! `GNAW_LINEARITY_KIB` sets N (default 256: quadratic cases are already 4x there, and the
//! whole test stays under half a minute unoptimized; docs/secrets.md has figures at 1024),
//! `GNAW_LINEARITY_RULE` runs only the cases of one rule (`private-key`),
//! `GNAW_LINEARITY_VERBOSE=1` prints every case's figures.
//! Every fake secret is a fixed, obviously synthetic string split from its prefix.

use gnaw::scan::{self, Allow, SecretsMode, rules};
use std::time::{Duration, Instant};

/// One pathological input: the rule it targets, a name, and a piece that is repeated to size.
/// `head` is written once before the repetitions.
struct Case {
    rule: &'static str,
    name: &'static str,
    head: String,
    piece: String,
}

fn case(rule: &'static str, name: &'static str, head: &str, piece: &str) -> Case {
    Case {
        rule,
        name,
        head: head.to_string(),
        piece: piece.to_string(),
    }
}

/// The rule's prefix repeated along one line.
fn along(rule: &'static str, prefix: &str) -> Case {
    case(rule, "prefix along one line", "", prefix)
}

/// The prefix once, then `run` (the rule's alphabet) repeated without end.
fn endless(rule: &'static str, prefix: &str, run: &str) -> Case {
    case(rule, "prefix then an endless run", prefix, run)
}

/// `line`, a real-shaped match, on every line.
fn each_line(rule: &'static str, line: &str) -> Case {
    case(rule, "one a line", "", line)
}

fn cases() -> Vec<Case> {
    let dash = "-".repeat(5);
    let begin = format!("{dash}BEGIN PRIVATE KEY{dash}");
    let rsa = format!("{dash}BEGIN RSA PRIVATE KEY{dash}");
    let b64 = "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVphYmNkZWZnaGlqa2xtbm9wcXJzdHV2";
    let alnum = "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF";
    let ghp = format!("{}{}", "gh", "p_");
    let akia = format!("{}{}", "AK", "IA");
    let xoxb = format!("{}{}", "xo", "xb-");
    let sk_live = format!("{}{}", "sk_", "live_");
    let sk_test = format!("{}{}", "sk_", "test_");
    let aiza = format!("{}{}", "AI", "za");
    let npm = format!("{}{}", "np", "m_");
    let pypi = format!("{}{}", "pypi-", "AgEIcHlwaS5vcmc");
    let openai = format!("{}{}", "T3Blbk", "FJ");
    let ant = format!("{}{}", "sk-ant-", "api03-");
    let glpat = format!("{}{}", "gl", "pat-");
    let hooks = format!("{}{}", "hooks.", "slack.com/services/");
    let jwt_head = "eyJhbGciOiJIUzI1NiJ9";
    vec![
        // private-key: the BEGIN marker scan and the armor header test.
        case(
            "private-key",
            "markers, one a line",
            "",
            &format!("{rsa}\n"),
        ),
        case("private-key", "markers, one line", "", &begin),
        case(
            "private-key",
            "markers, escaped newlines",
            "",
            &format!("{begin}\\n"),
        ),
        case(
            "private-key",
            "markers inside armor headers",
            &format!("{begin}\n"),
            &format!("Comment: {begin}\n"),
        ),
        case(
            "private-key",
            "one marker, endless body",
            &format!("{begin}\n"),
            &format!("{b64}\n"),
        ),
        case(
            "private-key",
            "many real-shaped blocks",
            "",
            &format!("{begin}\n{b64}\n{b64}\n{dash}END PRIVATE KEY{dash}\n"),
        ),
        case(
            "private-key",
            "markers then a header-like line each",
            "",
            &format!("{begin}\nProc-Type: 4,ENCRYPTED\n"),
        ),
        // aws-access-key-id
        along("aws-access-key-id", &akia),
        case(
            "aws-access-key-id",
            "one id a line",
            "",
            &format!("{akia}QWERTYUIOPASDFGH\n"),
        ),
        case(
            "aws-access-key-id",
            "ids along one line",
            "",
            &format!("{akia}QWERTYUIOPASDFGH "),
        ),
        // aws-secret-access-key
        case(
            "aws-secret-access-key",
            "key along one line",
            "",
            "aws_secret_access_key=",
        ),
        case(
            "aws-secret-access-key",
            "key then an endless value",
            "aws_secret_access_key=",
            alnum,
        ),
        each_line(
            "aws-secret-access-key",
            &format!("aws_secret_access_key={alnum}Xy9+/Qw3\n"),
        ),
        // github-token
        along("github-token", &ghp),
        endless("github-token", &ghp, alnum),
        each_line("github-token", &format!("{ghp}{alnum}Zz9q\n")),
        // gitlab-token
        along("gitlab-token", &glpat),
        case(
            "gitlab-token",
            "routing parts",
            &format!("{glpat}{alnum}"),
            ".a1",
        ),
        each_line("gitlab-token", &format!("{glpat}{alnum}\n")),
        // slack-token
        along("slack-token", &format!("{xoxb}1-")),
        case("slack-token", "prefix then digits", &xoxb, "1234567890"),
        each_line("slack-token", &format!("{xoxb}1234567890-{alnum}\n")),
        // slack-webhook
        along("slack-webhook", &hooks),
        case(
            "slack-webhook",
            "prefix then a run",
            &format!("{hooks}T"),
            "ABCDEFGH01",
        ),
        each_line(
            "slack-webhook",
            &format!("https://{hooks}T0123ABCD/B0123ABCD/{alnum}\n"),
        ),
        // stripe
        along("stripe-live-key", &sk_live),
        each_line("stripe-live-key", &format!("{sk_live}{alnum}\n")),
        along("stripe-test-key", &sk_test),
        endless("stripe-test-key", &sk_test, alnum),
        // google-api-key
        along("google-api-key", &aiza),
        endless("google-api-key", &aiza, alnum),
        each_line("google-api-key", &format!("{aiza}{alnum}Ab9\n")),
        // npm-token
        along("npm-token", &npm),
        each_line("npm-token", &format!("{npm}{alnum}Ab9z\n")),
        // pypi-token
        along("pypi-token", &pypi),
        endless("pypi-token", &pypi, alnum),
        // openai-api-key
        case("openai-api-key", "marker along one line", "", &openai),
        case(
            "openai-api-key",
            "prefix and marker along one line",
            "",
            &format!("sk-{}{openai}", &alnum[..16]),
        ),
        each_line(
            "openai-api-key",
            &format!("sk-proj-{alnum}{openai}{alnum}\n"),
        ),
        // anthropic-api-key
        along("anthropic-api-key", &ant),
        endless("anthropic-api-key", &ant, alnum),
        // azure-storage-key
        case("azure-storage-key", "key along one line", "", "AccountKey="),
        case(
            "azure-storage-key",
            "key then an endless run",
            "AccountKey=",
            b64,
        ),
        // jwt
        along("jwt", "eyJ"),
        case(
            "jwt",
            "header-shaped segments along one line",
            "",
            &format!("{jwt_head}.eyJ."),
        ),
        each_line("jwt", &format!("{jwt_head}.eyJzdWIiOiIxIn0.{alnum}\n")),
        endless("jwt", "eyJ", alnum),
        // authorization-header
        case(
            "authorization-header",
            "header along one line",
            "",
            "Authorization: Bearer ",
        ),
        case(
            "authorization-header",
            "header then an endless run",
            "Authorization: Bearer ",
            alnum,
        ),
        each_line(
            "authorization-header",
            &format!("Authorization: Bearer {alnum}\n"),
        ),
        // connection-string
        case(
            "connection-string",
            "scheme separator along one line",
            "",
            "://",
        ),
        case(
            "connection-string",
            "user and password, no host",
            "",
            "a://u:p",
        ),
        case(
            "connection-string",
            "password without an end",
            "postgres://user:",
            alnum,
        ),
        each_line(
            "connection-string",
            &format!("postgres://app:{}@db.internal/x\n", &alnum[..20]),
        ),
        // generic-secret: the three shapes.
        case("generic-secret", "keyword along one line", "", "password"),
        case(
            "generic-secret",
            "key and quote along one line",
            "",
            "password = \"",
        ),
        case(
            "generic-secret",
            "long key, no assignment",
            "",
            "a_b-c.d_password_",
        ),
        case(
            "generic-secret",
            "quoted assignments along one line",
            "",
            &format!("token = \"{}\" ", &alnum[..20]),
        ),
        case(
            "generic-secret",
            "one quoted assignment a line",
            "",
            &format!("api_key: \"{}\"\n", &alnum[..24]),
        ),
        case(
            "generic-secret",
            "one bare assignment a line",
            "",
            &format!("DB_PASSWORD={}\n", &alnum[..20]),
        ),
        case(
            "generic-secret",
            "bare value without an end",
            "SECRET=",
            alnum,
        ),
        case(
            "generic-secret",
            "parameters along one line",
            "",
            &format!("&token={}", &alnum[..16]),
        ),
        case(
            "generic-secret",
            "lockfile entries",
            "",
            "    \"@octokit/auth-token\": \"npm:^4.0.0\"\n    parse-passwd: \"npm:^1.0.0\"\n",
        ),
        case(
            "generic-secret",
            "every keyword on every line",
            "",
            "password secret token api_key access_key auth_key private_key credential pass pwd\n",
        ),
    ]
}

/// `head` then `piece` repeated until the text reaches `size` bytes.
fn build(c: &Case, size: usize) -> String {
    let mut t = String::with_capacity(size + c.piece.len());
    t.push_str(&c.head);
    while t.len() < size {
        t.push_str(&c.piece);
    }
    t
}

fn time_scan(text: &str) -> Duration {
    let start = Instant::now();
    let scanned = scan::scan(text, "big.txt", SecretsMode::Redact, &Allow::default());
    let elapsed = start.elapsed();
    std::hint::black_box(scanned);
    elapsed
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Medians of `runs` interleaved timings at N and 2N.
fn measure(c: &Case, n: usize, runs: usize) -> (Duration, Duration) {
    let (small, large) = (build(c, n), build(c, 2 * n));
    let (mut ts, mut tl) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        ts.push(time_scan(&small));
        tl.push(time_scan(&large));
    }
    (median(ts), median(tl))
}

/// Linear is 2x; quadratic is 4x. The slack absorbs timer noise on cases that take a few ms.
const MAX_RATIO: f64 = 3.0;
const SLACK: Duration = Duration::from_millis(15);
/// An unoptimized test build scans 2 MiB of the worst case here in well under a second.
const CEILING_PER_MIB: Duration = Duration::from_secs(4);

fn within(t1: Duration, t2: Duration, n: usize) -> bool {
    let ceiling = CEILING_PER_MIB.mul_f64(2.0 * n as f64 / f64::from(1 << 20));
    t2.as_secs_f64() <= MAX_RATIO * t1.as_secs_f64() + SLACK.as_secs_f64() && t2 <= ceiling
}

#[test]
fn every_rule_scans_in_linear_time() {
    let _g = crate::serial();
    let kib: usize = std::env::var("GNAW_LINEARITY_KIB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let only = std::env::var("GNAW_LINEARITY_RULE").ok();
    let verbose = std::env::var_os("GNAW_LINEARITY_VERBOSE").is_some();
    let n = kib << 10;
    // Compile the engine outside the timings.
    let _ = scan::scan(
        "password = \"x\"",
        "warm",
        SecretsMode::Warn,
        &Allow::default(),
    );

    let all = cases();
    for rule in rules() {
        assert!(
            all.iter().any(|c| c.rule == rule.id),
            "no linearity case targets rule {}",
            rule.id
        );
    }
    let mut failures = Vec::new();
    for c in all
        .iter()
        .filter(|c| only.as_deref().is_none_or(|r| r == c.rule))
    {
        let mut attempts = Vec::new();
        let mut ok = false;
        for _ in 0..3 {
            let (t1, t2) = measure(c, n, 3);
            attempts.push((t1, t2));
            if within(t1, t2, n) {
                ok = true;
                break;
            }
        }
        let figures = attempts
            .iter()
            .map(|(a, b)| {
                format!(
                    "{:.1} ms -> {:.1} ms ({:.2}x)",
                    a.as_secs_f64() * 1e3,
                    b.as_secs_f64() * 1e3,
                    b.as_secs_f64() / a.as_secs_f64().max(1e-9)
                )
            })
            .collect::<Vec<_>>()
            .join("; ");
        if verbose || !ok {
            println!(
                "{} / {}: {kib} KiB -> {} KiB: {figures}",
                c.rule,
                c.name,
                2 * kib
            );
        }
        if !ok {
            failures.push(format!("{} / {}: {figures}", c.rule, c.name));
        }
    }
    assert!(
        failures.is_empty(),
        "superlinear scan time (limit {MAX_RATIO}x + {SLACK:?}, and at most {CEILING_PER_MIB:?} \
         per MiB at the larger size):\n{}",
        failures.join("\n")
    );
}
