//! A grammar's first use from many threads at once: the tables are filled exactly once
//! (pthread_once), and no thread sees them before they are whole. Its own test binary, so that
//! nothing else in the process has used the grammar first.

#![allow(clippy::disallowed_methods)] // reads the fixture it parses

use std::path::Path;
use std::sync::Barrier;
use tree_sitter::{Language, Parser};

#[test]
fn threads_racing_to_a_grammars_first_use_all_get_the_whole_grammar() {
    let sample = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/outline_fixtures/sample.cs"),
    )
    .unwrap();
    let expected = {
        let mut parser = Parser::new();
        parser
            .set_language(&Language::new(tree_sitter_c_sharp::LANGUAGE))
            .unwrap();
        parser.parse(&sample, None).unwrap().root_node().to_sexp()
    };
    let threads = 8;
    let barrier = Barrier::new(threads);
    let trees: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    barrier.wait();
                    let language = Language::new(gnaw_grammars::C_SHARP);
                    let mut parser = Parser::new();
                    parser.set_language(&language).unwrap();
                    parser.parse(&sample, None).unwrap().root_node().to_sexp()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(expected.contains("class_declaration"), "{expected}");
    for tree in trees {
        assert_eq!(tree, expected);
    }
}
