//! Exactness of `gnaw::count` against the reference, tiktoken-rs's `encode_ordinary`, in all four
//! encodings: fixed adversarial inputs, pseudo-random text, long runs without whitespace, and the
//! additivity rules (`is_safe_boundary`, `split_for_parallel`, `exact_units`) checked both
//! exhaustively on the characters around a cut and by property tests.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;

use common::xorshift;

use std::time::{Duration, Instant};

use gnaw::count::{
    self, Encoding, count_many, count_parallel, count_pieces, exact_units, is_safe_boundary,
    split_for_parallel,
};
use proptest::prelude::*;
use tiktoken_rs::CoreBPE;
use xorshift::Rng;

fn reference_bpe(enc: Encoding) -> &'static CoreBPE {
    match enc {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        Encoding::P50kBase => tiktoken_rs::p50k_base_singleton(),
        Encoding::R50kBase => tiktoken_rs::r50k_base_singleton(),
    }
}

fn reference(enc: Encoding, text: &str) -> usize {
    reference_bpe(enc).encode_ordinary(text).len()
}

#[track_caller]
fn assert_exact(text: &str) {
    for enc in Encoding::ALL {
        assert_eq!(
            count::count(enc, text),
            reference(enc, text),
            "{} miscounts {:?}",
            enc.name(),
            preview(text)
        );
    }
}

fn preview(text: &str) -> String {
    text.chars().take(80).collect()
}

/// Fragments chosen to hit every alternative of the four pre-tokenizer patterns and their edges.
const FRAGMENTS: &[&str] = &[
    " ",
    "  ",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    "\t",
    " \n",
    "\u{a0}",
    "\u{3000}",
    "\u{2028}",
    "\u{85}",
    "a",
    "B",
    "word",
    "Word",
    "WORD",
    "camelCase",
    "HTTPServer",
    "x1",
    "é",
    "e\u{301}",
    "\u{301}",
    "ǅ",
    "ʰ",
    "中文",
    "日本語",
    "한국어",
    "العربية",
    "😀",
    "👨‍👩‍👧",
    "🇫🇷",
    "1",
    "12",
    "123",
    "1234567",
    "٣",
    "Ⅻ",
    "½",
    "'",
    "'s",
    "'S",
    "'t",
    "'re",
    "'ve",
    "'m",
    "'ll",
    "'LL",
    "'d",
    "'x",
    "/",
    "//",
    "/*",
    "*/",
    ";",
    "{",
    "}",
    "(",
    ")",
    "\"",
    "`",
    "```",
    "<|endoftext|>",
    "<|fim_prefix|>",
    "<|",
    "|>",
    "=>",
    "->",
    "::",
    "#",
    "$",
    "\\",
    "\u{0}",
    "\u{7f}",
    "\u{feff}",
    "\u{200b}",
];

fn random_text(rng: &mut Rng, fragments: usize) -> String {
    (0..fragments)
        .map(|_| FRAGMENTS[rng.below(FRAGMENTS.len())])
        .collect()
}

#[test]
fn adversarial_inputs_count_exactly() {
    let long_digits = "9".repeat(10_001);
    let long_spaces = format!("x{}y", " ".repeat(5_000));
    let long_newlines = format!("x{}y", " \n".repeat(2_000));
    let tabs_then_end = format!("fn x() {{}}{}", "\t".repeat(300));
    let cases: Vec<&str> = vec![
        "",
        " ",
        "\n",
        "hello world",
        "<|endoftext|>",
        "text<|endoftext|>more <|endofprompt|> <|fim_prefix|>",
        "line one\r\nline two\r\n\r\n",
        "don't won't I'm we'll they'd you've we're IT'S DON'T",
        "naïve café résumé e\u{301}\u{301}\u{301} \u{301}x",
        "中文字符测试，标点。日本語のテキスト、한국어 텍스트",
        "emoji 😀😃😄 family 👨‍👩‍👧‍👦 flags 🇫🇷🇩🇪 skin 👍🏽",
        "mixed Ελληνικά русский עברית العربية हिन्दी ไทย",
        "    indented\n\tTabbed\n  \n\n\n   trailing   ",
        "a/b//c///d;\n//e\n/f",
        "x;\n//! doc\n",
        "1234567890 12 345 6789 0.5 1e10 0x1F ٣٤٥ Ⅻ ½",
        "\u{0}\u{1}\u{7f}\u{feff}\u{200b}\u{2028}\u{2029}\u{85}\u{a0}\u{3000}",
        &long_digits,
        &long_spaces,
        &long_newlines,
        &tabs_then_end,
        include_str!("../../src/stages/count.rs"),
        include_str!("../../Cargo.toml"),
    ];
    for case in cases {
        assert_exact(case);
    }
    // Special-token text is ordinary text: it takes several tokens, not one.
    for enc in Encoding::ALL {
        assert!(count::count(enc, "<|endoftext|>") > 1, "{}", enc.name());
    }
}

#[test]
fn random_fragments_and_lossy_bytes_count_exactly() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for round in 0..150 {
        let text = random_text(&mut rng, 1 + round % 60);
        assert_exact(&text);
    }
    for len in [1, 7, 64, 500, 4_000] {
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        assert_exact(&String::from_utf8_lossy(&bytes));
        let ascii: Vec<u8> = (0..len).map(|_| (rng.next() % 128) as u8).collect();
        assert_exact(&String::from_utf8_lossy(&ascii));
    }
}

#[test]
fn long_runs_without_whitespace_count_exactly() {
    let mut rng = Rng(7);
    let letters: String = (0..200_000)
        .map(|_| (b'a' + rng.below(26) as u8) as char)
        .collect();
    let mixed_case: String = (0..50_000)
        .map(|_| (b"aAbBzZ"[rng.below(6)]) as char)
        .collect();
    let punct: String = (0..50_000)
        .map(|_| b"!#$%&()*+,-./:;<=>?@[]^_{|}~"[rng.below(28)] as char)
        .collect();
    for text in [
        "a".repeat(100_000),
        letters,
        mixed_case,
        punct,
        "7".repeat(50_000),
        "中".repeat(30_000),
    ] {
        assert_exact(&text);
    }
}

#[test]
fn four_megabyte_line_without_whitespace_is_linear() {
    let mut rng = Rng(11);
    let letters: String = (0..4 << 20)
        .map(|_| (b'a' + rng.below(26) as u8) as char)
        .collect();
    for text in ["a".repeat(4 << 20), letters] {
        for enc in Encoding::ALL {
            let start = Instant::now();
            let n = count::count(enc, &text);
            let took = start.elapsed();
            assert!(n > 0);
            // tiktoken-rs needs minutes here; a linear engine needs well under a second in
            // release. The bound leaves room for an unoptimized test crate on a busy machine.
            assert!(
                took < Duration::from_secs(10),
                "{} took {took:?} on 4 MiB",
                enc.name()
            );
        }
    }
}

/// Characters that exercise every branch of the rules: whitespace of several kinds, letters of
/// each case class, marks, digits, apostrophe, slash, other punctuation, non-ASCII.
const CUT_CHARS: &[char] = &[
    ' ', '\n', '\r', '\t', '\u{a0}', 'a', 'Z', 's', 'é', '\u{301}', '中', '7', '٣', '\'', '/', ';',
    '"', '`', '<', '😀', '\u{0}',
];

/// Exhaustive check of the rule on the three characters that decide it, inside several contexts:
/// every accepted cut is additive in every encoding.
#[test]
fn every_accepted_cut_is_additive() {
    let befores = ["", "x", " ", "\n", ";", "ab ", "1"];
    let afters = ["", "y", " ", "\n", "/", "s", "'s", "9"];
    let mut accepted = 0;
    for &c2 in CUT_CHARS {
        for &c1 in CUT_CHARS {
            for &x in CUT_CHARS {
                let a = format!("{c2}{c1}");
                let b = x.to_string();
                if !is_safe_boundary(&a, &b) {
                    continue;
                }
                accepted += 1;
                for (i, pre) in befores.iter().enumerate() {
                    let post = afters[i % afters.len()];
                    let post2 = afters[(i + 3) % afters.len()];
                    for post in [post, post2] {
                        let a = format!("{pre}{a}");
                        let b = format!("{b}{post}");
                        let whole = format!("{a}{b}");
                        for enc in Encoding::ALL {
                            assert_eq!(
                                reference(enc, &a) + reference(enc, &b),
                                reference(enc, &whole),
                                "{}: cut {a:?} | {b:?} accepted but not additive",
                                enc.name()
                            );
                        }
                    }
                }
            }
        }
    }
    // The rules must not be vacuous: they accept a real share of these triples.
    assert!(accepted > 500, "only {accepted} cuts accepted");
}

#[test]
fn the_rules_reject_known_non_additive_cuts() {
    // Each of these is non-additive in at least one encoding; the rules must refuse them.
    let cuts = [
        ("x;\n", "//"),   // o200k: ";\n//" is one pre-token
        ("x\n\n", "y"),   // r50k/p50k: "\n\n" splits before y, but not at end of text
        ("x\n", "\n\ny"), // r50k/p50k: "\n\n\n" before y splits as "\n\n" + "\n"
        ("it", "'s"),     // o200k: the contraction joins the word: "it's" is one token
        ("ab", "cd"),     // one word
        ("10", "00"),     // r50k/p50k: "1000" is one token
    ];
    for (before, after) in cuts {
        assert!(!is_safe_boundary(before, after), "{before:?} | {after:?}");
        let whole = format!("{before}{after}");
        assert!(
            Encoding::ALL
                .iter()
                .any(|&e| reference(e, before) + reference(e, after) != reference(e, &whole)),
            "{before:?} | {after:?} is additive everywhere; pick a better example"
        );
    }
}

#[test]
fn split_for_parallel_is_exact_on_source_code() {
    let source = [
        include_str!("../../src/stages/count.rs"),
        include_str!("../../examples/tokenizer_bench.rs"),
        "x;\r\n//crlf\r\n",
    ]
    .concat();
    for target in [1, 100, 4_096] {
        let pieces = split_for_parallel(&source, target);
        assert_eq!(pieces.concat(), source);
        if target == 4_096 {
            assert!(pieces.len() > 3, "source code must have safe cut points");
        }
        for enc in Encoding::ALL {
            let sum: usize = pieces.iter().map(|p| count::count(enc, p)).sum();
            assert_eq!(
                sum,
                reference(enc, &source),
                "{} target {target}",
                enc.name()
            );
        }
    }
    for enc in Encoding::ALL {
        assert_eq!(count_parallel(enc, &source, 2), reference(enc, &source));
    }
}

#[test]
fn count_many_matches_count_in_order() {
    let mut rng = Rng(99);
    let texts: Vec<String> = (0..40).map(|i| random_text(&mut rng, i * 7)).collect();
    for enc in [Encoding::O200kBase, Encoding::R50kBase] {
        let expected: Vec<usize> = texts.iter().map(|t| reference(enc, t)).collect();
        assert_eq!(count_many(enc, &texts, 2), expected);
        assert_eq!(count_many(enc, &texts, 1), expected);
    }
    assert!(count_many(Encoding::O200kBase, &[] as &[&str], 4).is_empty());
}

/// A rendered-prompt-like sequence: headers, fences and file bodies with awkward starts and ends.
#[test]
fn pieces_of_a_rendered_prompt_sum_exactly() {
    let pieces = [
        "# Repository\n\n",
        "## src/main.rs\n\n```rust\n",
        "    indented first line\n}\n",
        "```\n\n",
        "## notes.txt\n\n```\n",
        "//! starts with slashes;\n",
        "\n```\n\n## empty\n\n```\n",
        "",
        "```\n",
        "no newline at end",
        "```\n",
        "crlf\r\n",
        " leading space",
    ];
    let whole = pieces.concat();
    for enc in Encoding::ALL {
        assert_eq!(
            count_pieces(enc, &pieces),
            reference(enc, &whole),
            "{}",
            enc.name()
        );
    }
}

fn fragment_text() -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(FRAGMENTS), 0..40)
        .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn count_equals_reference(text in fragment_text()) {
        for enc in Encoding::ALL {
            prop_assert_eq!(count::count(enc, &text), reference(enc, &text));
        }
    }

    #[test]
    fn every_safe_boundary_is_additive(text in fragment_text()) {
        for enc in Encoding::ALL {
            let whole = reference(enc, &text);
            for (i, _) in text.char_indices().skip(1) {
                let (a, b) = text.split_at(i);
                if is_safe_boundary(a, b) {
                    prop_assert_eq!(reference(enc, a) + reference(enc, b), whole,
                        "{}: {:?} | {:?}", enc.name(), a, b);
                }
            }
        }
    }

    #[test]
    fn split_for_parallel_sums_exactly(text in fragment_text(), target in 1usize..64) {
        let pieces = split_for_parallel(&text, target);
        prop_assert_eq!(pieces.concat(), text.clone());
        for enc in Encoding::ALL {
            let sum: usize = pieces.iter().map(|p| count::count(enc, p)).sum();
            prop_assert_eq!(sum, reference(enc, &text));
        }
    }

    #[test]
    fn exact_units_sum_exactly_for_any_cuts(
        text in fragment_text(),
        cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..8),
    ) {
        let mut points: Vec<usize> = cuts
            .iter()
            .map(|c| c.index(text.len() + 1))
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        points.sort_unstable();
        let mut pieces = Vec::new();
        let mut start = 0;
        for p in points {
            pieces.push(&text[start..p]);
            start = p;
        }
        pieces.push(&text[start..]);
        let units = exact_units(&pieces);
        prop_assert_eq!(units.concat(), text.clone());
        for enc in Encoding::ALL {
            prop_assert_eq!(count_pieces(enc, &pieces), reference(enc, &text));
        }
    }
}

/// A streamed prompt (`run_extraction_to`, what the CLI writes) is byte for byte the prompt
/// `run_extraction` keeps, its reported count is the reference count of those bytes, a run that
/// fails opens no writer, and a failing writer is reported.
#[test]
fn streamed_prompt_is_the_kept_prompt_and_counts_exactly() {
    use gnaw::gnawconfig::Format;
    use gnaw::{ExtractionSpec, Mode, Overrides, Policy, run_extraction, run_extraction_to};

    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().canonicalize().unwrap();
    std::fs::create_dir_all(repo.join("src")).unwrap();
    let mut rng = Rng(0x5717_ea11);
    for i in 0..12 {
        let text = random_text(&mut rng, 30 + 10 * i);
        std::fs::write(repo.join(format!("src/f{i}.txt")), text).unwrap();
    }
    std::fs::write(repo.join("src/lossy.txt"), b"caf\xe9 au lait\n").unwrap();
    let root = gnaw_sandbox::Root::new(&repo, false).unwrap();
    for format in [Format::Markdown, Format::Xml, Format::Json] {
        let spec = |mode, budget| ExtractionSpec {
            repo: root.as_dir(),
            overrides: Overrides {
                format: Some(format),
                budget,
                ..Overrides::default()
            },
            paths: None,
            mode,
            observer: None,
            policy: Policy::cli(),
            cache: None,
        };
        let kept = run_extraction(&spec(Mode::Render, None)).unwrap();
        let mut streamed = Vec::new();
        let (ex, written) = run_extraction_to(&spec(Mode::Render, None), || {
            Ok(std::io::Cursor::new(&mut streamed))
        })
        .unwrap();
        written.unwrap();
        assert!(ex.output.is_none(), "{format:?}: not kept");
        let streamed = String::from_utf8(streamed).unwrap();
        assert_eq!(Some(&streamed), kept.output.as_ref(), "{format:?}");
        assert_eq!(ex.output_bytes, streamed.len(), "{format:?}");
        assert_eq!(ex.tokens, kept.tokens, "{format:?}");
        assert_eq!(
            ex.tokens,
            reference(Encoding::O200kBase, &streamed),
            "{format:?}"
        );
        // An estimate reports the size the prompt would have.
        let est = run_extraction(&spec(Mode::Estimate, None)).unwrap();
        assert_eq!(est.output_bytes, streamed.len(), "{format:?}");

        // A budget no prompt fits: the run fails before anything is opened.
        let failed = run_extraction_to(
            &spec(Mode::Render, Some(1)),
            || -> std::io::Result<Vec<u8>> { panic!("opened a writer for a failed run") },
        );
        assert!(failed.is_err(), "{format:?}");

        // A writer that fails is reported, not ignored.
        struct Full;
        impl std::io::Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let (_, written) = run_extraction_to(&spec(Mode::Render, None), || Ok(Full)).unwrap();
        assert!(written.is_err(), "{format:?}");
    }
}

/// Every file of this repository (sources, tests, docs, scripts), counted on several threads at
/// once in every encoding: the per-thread memo and pre-token splitter must agree with
/// tiktoken-rs on real text of many kinds, whatever pre-tokens each thread met before.
#[test]
fn every_file_of_this_repository_counts_exactly() {
    fn collect(dir: &std::path::Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<_> = entries.filter_map(Result::ok).map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.is_dir() {
                collect(&p, out);
            } else if let Ok(bytes) = std::fs::read(&p) {
                out.push(String::from_utf8_lossy(&bytes).into_owned());
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts = Vec::new();
    for dir in ["src", "tests", "docs", "scripts", "sandbox/src", "examples"] {
        collect(&root.join(dir), &mut texts);
    }
    assert!(texts.len() > 40, "expected the repository's files");
    for enc in Encoding::ALL {
        let fast = count_many(enc, &texts, 3);
        for (text, n) in texts.iter().zip(fast) {
            assert_eq!(n, reference(enc, text), "{} {}", enc.name(), preview(text));
        }
    }
}
