//! Unit tests of the syntax stage: detection, bounds on hostile input, doc lines, signatures,
//! body ranges and skeletons. The per-language outlines are asserted in `tests/navigation/outline.rs`.

use super::*;

fn parsed(path: &str, text: &str) -> Vec<Symbol> {
    match outline(path.as_bytes(), text) {
        Outline::Parsed(s) => s,
        other => panic!("{path}: {other:?}"),
    }
}

#[test]
fn detects_languages_by_extension_and_name() {
    assert_eq!(Language::detect(b"src/a.rs"), Some(Language::Rust));
    assert_eq!(Language::detect(b"A.PY"), Some(Language::Python));
    assert_eq!(Language::detect(b"x/y.tsx"), Some(Language::Tsx));
    assert_eq!(Language::detect(b"x/y.d.ts"), Some(Language::TypeScript));
    assert_eq!(Language::detect(b"lib/Rakefile"), Some(Language::Ruby));
    assert_eq!(Language::detect(b"inc/a.hpp"), Some(Language::Cpp));
    assert_eq!(Language::detect(b"README.md"), None);
    assert_eq!(Language::detect(b".rs"), None);
    assert_eq!(Language::detect(b"noext"), None);
    assert_eq!(Language::detect(b"a.verylongextension"), None);
    assert_eq!(Language::detect(b""), None);
    // Every grammar this build holds loads into this core (all of them by default).
    for &lang in Language::ALL {
        assert_eq!(lang.compiled_in(), lang.grammar().is_some(), "{lang:?}");
        if let Some(grammar) = lang.grammar() {
            let mut p = Parser::new();
            p.set_language(&grammar).unwrap();
        }
    }
}

/// A file of a language whose grammar this build leaves out (its cargo feature off) is shown as
/// plain text, skipped with a reason that names the feature; a language compiled in parses. The
/// default build checks the second half, a build with fewer `lang-*` features the first.
#[test]
fn a_language_compiled_out_is_skipped_naming_its_feature() {
    let files = [
        "a.rs", "a.py", "a.js", "a.ts", "a.tsx", "a.go", "A.java", "a.c", "a.cpp", "a.cs", "a.rb",
        "a.php", "a.kt", "a.swift", "a.scala", "a.lua", "a.sh", "a.ex", "a.hs", "a.zig",
    ];
    for (&lang, file) in Language::ALL.iter().zip(files) {
        assert_eq!(Language::detect(file.as_bytes()), Some(lang), "{file}");
        assert!(lang.feature().starts_with("lang-"));
        let got = outline(file.as_bytes(), "x\n");
        if lang.compiled_in() {
            assert!(matches!(got, Outline::Parsed(_)), "{file}: {got:?}");
        } else {
            let reason = format!(
                "this build has no {} grammar (cargo feature {})",
                lang.as_str(),
                lang.feature()
            );
            assert_eq!(got, Outline::Skipped(reason), "{file}");
        }
    }
}

#[test]
fn a_file_without_a_grammar_is_unsupported_not_an_error() {
    assert_eq!(outline(b"notes.txt", "fn main() {}"), Outline::Unsupported);
}

#[test]
fn a_file_over_the_size_bound_is_skipped_with_the_reason() {
    // One line of 4 MiB.
    let text = "a".repeat(4 << 20);
    match outline(b"big.rs", &text) {
        Outline::Skipped(reason) => assert!(reason.contains("parse bound"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn one_long_line_under_the_bound_parses_within_the_time_bound() {
    // 1.5 MiB on one line: a call with 100,000 arguments.
    let mut text = String::from("fn f() { g(");
    while text.len() < 1_500_000 {
        text.push_str("a, ");
    }
    text.push_str("); }\n");
    let started = Instant::now();
    let out = outline(b"long.rs", &text);
    assert!(started.elapsed() < MAX_PARSE_TIME + Duration::from_secs(1));
    match out {
        Outline::Parsed(s) => assert_eq!(s[0].name, "f"),
        Outline::Skipped(reason) => assert!(reason.contains("time bound"), "{reason}"),
        Outline::Unsupported => panic!("unsupported"),
    }
}

#[test]
fn deep_nesting_costs_no_stack() {
    // 200,000 nested brackets, on a thread with a small stack: the walk is iterative.
    let text = format!("x = {}{}\n", "[".repeat(200_000), "]".repeat(200_000));
    let handle = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || outline(b"deep.py", &text))
        .unwrap();
    match handle.join().unwrap() {
        Outline::Parsed(s) => assert!(s.is_empty()),
        Outline::Skipped(reason) => assert!(reason.contains("bound"), "{reason}"),
        Outline::Unsupported => panic!("unsupported"),
    }
}

#[test]
fn definitions_nested_past_the_depth_bound_are_skipped_with_the_reason() {
    let mut text = String::new();
    for i in 0..100 {
        text.push_str(&" ".repeat(i * 2));
        text.push_str(&format!("class C{i}:\n"));
    }
    text.push_str(&" ".repeat(200));
    text.push_str("pass\n");
    match outline(b"nest.py", &text) {
        Outline::Skipped(reason) => assert!(reason.contains("nest more than 64"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_cancelled_parse_is_skipped_and_the_next_parse_starts_afresh() {
    let text = "fn a() {}\n".repeat(50_000);
    match outline_with(b"a.rs", &text, &ParseBudget::default(), &|| true) {
        Outline::Skipped(reason) => assert_eq!(reason, "cancelled"),
        other => panic!("{other:?}"),
    }
    let s = parsed("b.rs", "fn b() {}\n");
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].name, "b");
}

/// A parse is charged its own CPU time, not the time it took on a busy machine: with three
/// spinning threads per core competing with it, the parse's wall time is several times its CPU
/// time, and the budget is charged well under the wall time.
#[test]
fn a_parse_is_charged_its_cpu_time_not_the_machine_s_load() {
    let text =
        "fn a(x: u32) -> u32 { let y = x + 1; if y > 2 { y * 3 } else { y } }\n".repeat(1_000);
    let spinners = 3 * std::thread::available_parallelism().map_or(2, usize::from);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let spinning = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..spinners {
            s.spawn(|| {
                spinning.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            });
        }
        // The parse starts once every spinner runs, so the whole of it is among them.
        while spinning.load(std::sync::atomic::Ordering::Relaxed) < spinners {
            std::thread::yield_now();
        }
        let budget = ParseBudget::new(Duration::from_secs(600), 1 << 30);
        let started = Instant::now();
        let parsed = outline_with(b"busy.rs", &text, &budget, &|| false);
        let wall = started.elapsed();
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(matches!(parsed, Outline::Parsed(_)), "{parsed:?}");
        let charged = budget.time_charged();
        assert!(charged > Duration::ZERO);
        assert!(
            charged.as_secs_f64() < 0.75 * wall.as_secs_f64(),
            "charged {charged:?} for a parse that took {wall:?} among {spinners} busy threads"
        );
    });
}

#[test]
fn signatures_docs_and_body_ranges() {
    let text = "\
/// Adds.
///
/// More.
#[inline]
pub fn add(
    a: u32,
    b: u32,
) -> u32 {
    let c = a + b;
    c
}
";
    let s = parsed("x.rs", text);
    assert_eq!(s.len(), 1);
    let f = &s[0];
    assert_eq!(f.kind, SymbolKind::Function);
    assert_eq!(f.signature, "pub fn add( a: u32, b: u32, ) -> u32");
    assert_eq!(f.doc.as_deref(), Some("Adds."));
    assert_eq!(f.lines, LineRange { start: 5, end: 11 });
    assert_eq!(f.body, Some(LineRange { start: 9, end: 10 }));
}

#[test]
fn a_blank_line_separates_a_comment_from_the_definition() {
    let s = parsed("x.go", "package p\n\n// Not a doc.\n\nfunc F() {}\n");
    assert_eq!(s[0].doc, None);
}

#[test]
fn python_docstrings_stay_in_the_skeleton() {
    let text = "\
class A:
    \"\"\"An A.\"\"\"

    def m(self):
        \"\"\"Does m.

        Details.
        \"\"\"
        x = 1
        y = 2
        return x + y
";
    let s = parsed("a.py", text);
    let m = &s[0].children[0];
    assert_eq!(m.kind, SymbolKind::Method);
    assert_eq!(m.doc.as_deref(), Some("Does m."));
    assert_eq!(m.body, Some(LineRange { start: 9, end: 11 }));
    let found = Found {
        symbols: s.clone(),
        ..Found::default()
    };
    let skel = skeleton(text, &found, crate::vocab::Compress::Docs);
    assert!(
        skel.ends_with("        \"\"\"\n        ⋯ 3 lines (9–11)\n"),
        "{skel}"
    );
}

#[test]
fn the_skeleton_keeps_everything_but_bodies() {
    let text = "\
use std::io;

/// A thing.
pub struct Thing {
    a: u32,
}

impl Thing {
    /// New.
    pub fn new() -> Thing {
        let a = 1;
        let b = 2;
        Thing { a: a + b }
    }

    fn short(&self) -> u32 { self.a }
}
";
    let s = parsed("t.rs", text);
    let found = Found {
        symbols: s.clone(),
        ..Found::default()
    };
    let skel = skeleton(text, &found, crate::vocab::Compress::Docs);
    assert_eq!(
        skel,
        "\
use std::io;

/// A thing.
pub struct Thing {
    a: u32,
}

impl Thing {
    /// New.
    pub fn new() -> Thing {
        ⋯ 3 lines (11–13)
    }

    fn short(&self) -> u32 { self.a }
}
"
    );
}

#[test]
fn names_signatures_and_docs_are_bounded() {
    let long = "x".repeat(5000);
    let text = format!("/// {long}\nfn {long}(a: u32) {{}}\n");
    let s = parsed("l.rs", &text);
    assert_eq!(s[0].name.chars().count(), MAX_NAME_CHARS);
    assert!(s[0].signature.chars().count() <= MAX_SIGNATURE_CHARS + 1);
    assert!(s[0].doc.as_ref().unwrap().chars().count() <= MAX_DOC_CHARS + 1);
}

#[test]
fn broken_code_still_outlines_what_parses() {
    let s = parsed("b.rs", "fn ok() {}\nfn broken( {\nstruct S {}\n");
    assert!(s.iter().any(|s| s.name == "ok"));
}
