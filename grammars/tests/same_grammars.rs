//! Every grammar of this crate is its upstream crate's grammar: the same symbols, fields and
//! states, the same parse table (every state's entries and the state each leads to), and the
//! same tree, node by node with each node's parse state, for a real
//! sample of the language (`tests/outline_fixtures/` of the workspace; gnaw's own sources too,
//! for Rust). Upstream's tables are static arrays read in place; ours were inflated on first
//! use in this process, so this proves the stored bytes, their layout and the fill.

#![allow(clippy::disallowed_methods)] // reads the fixtures and sources it parses

use std::path::{Path, PathBuf};
use tree_sitter::{Language, Node, Parser};
use tree_sitter_language::LanguageFn;

/// One grammar: its name, ours, upstream's, and the samples to parse.
struct Case {
    name: &'static str,
    ours: LanguageFn,
    upstream: LanguageFn,
    samples: Vec<PathBuf>,
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/outline_fixtures")
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    macro_rules! case {
        ($feature:literal, $name:literal, $ours:ident, $upstream:expr, $sample:literal) => {
            #[cfg(feature = $feature)]
            cases.push(Case {
                name: $name,
                ours: gnaw_grammars::$ours,
                upstream: $upstream,
                samples: vec![fixtures().join($sample)],
            });
        };
    }
    case!(
        "rust",
        "rust",
        RUST,
        tree_sitter_rust::LANGUAGE,
        "sample.rs"
    );
    case!(
        "python",
        "python",
        PYTHON,
        tree_sitter_python::LANGUAGE,
        "sample.py"
    );
    case!(
        "javascript",
        "javascript",
        JAVASCRIPT,
        tree_sitter_javascript::LANGUAGE,
        "sample.js"
    );
    case!(
        "typescript",
        "typescript",
        TYPESCRIPT,
        tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        "sample.ts"
    );
    case!(
        "typescript",
        "tsx",
        TSX,
        tree_sitter_typescript::LANGUAGE_TSX,
        "sample.tsx"
    );
    case!("go", "go", GO, tree_sitter_go::LANGUAGE, "sample.go");
    case!(
        "java",
        "java",
        JAVA,
        tree_sitter_java::LANGUAGE,
        "sample.java"
    );
    case!("c", "c", C, tree_sitter_c::LANGUAGE, "sample.c");
    case!("cpp", "cpp", CPP, tree_sitter_cpp::LANGUAGE, "sample.cpp");
    case!(
        "csharp",
        "c_sharp",
        C_SHARP,
        tree_sitter_c_sharp::LANGUAGE,
        "sample.cs"
    );
    case!(
        "ruby",
        "ruby",
        RUBY,
        tree_sitter_ruby::LANGUAGE,
        "sample.rb"
    );
    case!(
        "php",
        "php",
        PHP,
        tree_sitter_php::LANGUAGE_PHP,
        "sample.php"
    );
    case!(
        "kotlin",
        "kotlin",
        KOTLIN,
        tree_sitter_kotlin_ng::LANGUAGE,
        "sample.kt"
    );
    case!(
        "swift",
        "swift",
        SWIFT,
        tree_sitter_swift::LANGUAGE,
        "sample.swift"
    );
    case!(
        "scala",
        "scala",
        SCALA,
        tree_sitter_scala::LANGUAGE,
        "sample.scala"
    );
    case!("lua", "lua", LUA, tree_sitter_lua::LANGUAGE, "sample.lua");
    case!(
        "bash",
        "bash",
        BASH,
        tree_sitter_bash::LANGUAGE,
        "sample.sh"
    );
    case!(
        "elixir",
        "elixir",
        ELIXIR,
        tree_sitter_elixir::LANGUAGE,
        "sample.ex"
    );
    case!(
        "haskell",
        "haskell",
        HASKELL,
        tree_sitter_haskell::LANGUAGE,
        "sample.hs"
    );
    case!("zig", "zig", ZIG, tree_sitter_zig::LANGUAGE, "sample.zig");
    if let Some(rust) = cases.iter_mut().find(|c| c.name == "rust") {
        rust.samples.extend(rust_sources(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../src"),
        ));
    }
    cases
}

/// gnaw's own Rust sources, as more Rust to parse.
fn rust_sources(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().map(Result::unwrap) {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    assert!(
        files.len() > 50,
        "{} Rust files under {}",
        files.len(),
        dir.display()
    );
    files
}

#[test]
fn every_grammar_is_its_upstream_grammar() {
    let cases = cases();
    assert_eq!(cases.len(), 20, "all grammars are on by default");
    for case in &cases {
        let ours = Language::new(case.ours);
        let upstream = Language::new(case.upstream);
        same_language(case.name, &ours, &upstream);
        for sample in &case.samples {
            let text = std::fs::read(sample).unwrap();
            let (a, b) = (parse(&ours, &text), parse(&upstream, &text));
            assert!(
                a.root_node().child_count() > 0,
                "{}: {} parsed to nothing",
                case.name,
                sample.display()
            );
            assert_eq!(
                a.root_node().to_sexp(),
                b.root_node().to_sexp(),
                "{}: {}",
                case.name,
                sample.display()
            );
            same_nodes(case.name, a.root_node(), b.root_node());
        }
    }
}

fn parse(language: &Language, text: &[u8]) -> tree_sitter::Tree {
    let mut parser = Parser::new();
    parser.set_language(language).unwrap();
    parser.parse(text, None).unwrap()
}

/// Symbols, fields, states and the whole parse table.
fn same_language(name: &str, a: &Language, b: &Language) {
    assert_eq!(a.name(), b.name(), "{name}");
    assert_eq!(a.abi_version(), b.abi_version(), "{name}");
    assert_eq!(a.node_kind_count(), b.node_kind_count(), "{name}");
    assert_eq!(a.parse_state_count(), b.parse_state_count(), "{name}");
    assert_eq!(a.field_count(), b.field_count(), "{name}");
    assert_eq!(a.supertypes(), b.supertypes(), "{name}");
    let symbols = u16::try_from(a.node_kind_count()).unwrap();
    for id in 0..symbols {
        assert_eq!(
            a.node_kind_for_id(id),
            b.node_kind_for_id(id),
            "{name}: kind {id}"
        );
        assert_eq!(
            a.node_kind_is_named(id),
            b.node_kind_is_named(id),
            "{name}: kind {id}"
        );
        assert_eq!(
            a.node_kind_is_visible(id),
            b.node_kind_is_visible(id),
            "{name}: kind {id}"
        );
        assert_eq!(
            a.subtypes_for_supertype(id),
            b.subtypes_for_supertype(id),
            "{name}: kind {id}"
        );
    }
    for id in 0..=u16::try_from(a.field_count()).unwrap() {
        assert_eq!(
            a.field_name_for_id(id),
            b.field_name_for_id(id),
            "{name}: field {id}"
        );
    }
    // Each state's row of the parse table: the symbols with an entry (terminals with actions,
    // non-terminals with a goto) and, for each, the state it leads to. (Not every id up to
    // node_kind_count: ids past the symbols are aliases, and a dense row has no entry for them.)
    let states = u16::try_from(a.parse_state_count()).unwrap();
    let mut entries = 0usize;
    for state in 0..states {
        let row = |l: &Language| {
            l.lookahead_iterator(state).map(|it| {
                it.map(|symbol| (symbol, l.next_state(state, symbol)))
                    .collect::<Vec<_>>()
            })
        };
        let (ra, rb) = (row(a), row(b));
        assert_eq!(ra, rb, "{name}: state {state}");
        entries += ra.map_or(0, |r| r.len());
    }
    assert!(
        entries > usize::from(states),
        "{name}: {entries} entries in {states} states"
    );
}

/// Every node of both trees, in order: kind, extent, flags and parse state.
fn same_nodes(name: &str, a: Node, b: Node) {
    let (mut ca, mut cb) = (a.walk(), b.walk());
    loop {
        let (na, nb) = (ca.node(), cb.node());
        let view = |n: Node| {
            (
                n.kind_id(),
                n.byte_range(),
                n.is_named(),
                n.is_missing(),
                n.is_extra(),
                n.has_error(),
                n.parse_state(),
                n.next_parse_state(),
            )
        };
        assert_eq!(view(na), view(nb), "{name}: node {na:?}");
        assert_eq!(ca.field_name(), cb.field_name(), "{name}: node {na:?}");
        let down = ca.goto_first_child();
        assert_eq!(down, cb.goto_first_child(), "{name}: node {na:?}");
        if down {
            continue;
        }
        loop {
            let next = ca.goto_next_sibling();
            assert_eq!(next, cb.goto_next_sibling(), "{name}: node {na:?}");
            if next {
                break;
            }
            let up = ca.goto_parent();
            assert_eq!(up, cb.goto_parent(), "{name}: node {na:?}");
            if !up {
                return;
            }
        }
    }
}
