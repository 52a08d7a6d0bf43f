//! The embedded BPE tables (`data/bpe/`, src/stages/count/tables.rs) are the reference ones:
//! every encoding's decoded tables equal, field by field, what the `bpe` crate's
//! `from_dictionary` builds now from tiktoken-rs's vocabulary, and count like tiktoken-rs.
//!
//! The ignored test `write_tables` is how the files are made:
//! `cargo test --release --test count -- --ignored write_tables`.

#![allow(clippy::disallowed_methods)] // writes the data files with std::fs on request

use bpe_openai::byte_pair_encoding::BytePairEncoding;
use gnaw::count::{self, Encoding, tables};
use tiktoken_rs::CoreBPE;

/// The hash factor `bpe-openai` builds its tables with; collision-free on all four vocabularies
/// (`from_dictionary` asserts that).
const HASH_FACTOR: u64 = 17846336922010275747;

/// Rank of `<|endoftext|>` in r50k and p50k: a special token inside the ordinary ranks.
const GPT2_ENDOFTEXT: u32 = 50256;

fn tiktoken(encoding: Encoding) -> &'static CoreBPE {
    match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        Encoding::P50kBase => tiktoken_rs::p50k_base_singleton(),
        Encoding::R50kBase => tiktoken_rs::r50k_base_singleton(),
    }
}

/// tiktoken-rs's ordinary vocabulary of `encoding`, in rank order (the special tokens follow a
/// gap in o200k and cl100k; in r50k and p50k `<|endoftext|>` sits at 50256 and is left out).
fn vocabulary(encoding: Encoding) -> Vec<Vec<u8>> {
    let reference = tiktoken(encoding);
    let gpt2 = matches!(encoding, Encoding::P50kBase | Encoding::R50kBase);
    let mut tokens = Vec::new();
    for rank in 0u32.. {
        if gpt2 && rank == GPT2_ENDOFTEXT {
            continue;
        }
        match reference.decode_bytes(&[rank]) {
            Ok(bytes) => tokens.push(bytes),
            Err(_) => break,
        }
    }
    tokens
}

fn reference_tables(encoding: Encoding) -> BytePairEncoding {
    BytePairEncoding::from_dictionary(vocabulary(encoding), Some(HASH_FACTOR))
}

#[test]
fn every_encoding_decodes_to_the_reference_tables() {
    for e in Encoding::ALL {
        let loaded = tables::load(e).unwrap_or_else(|err| panic!("{}: {err}", e.name()));
        let reference = reference_tables(e);
        assert_eq!(
            loaded.num_tokens(),
            reference.num_tokens(),
            "{}: vocabulary size",
            e.name()
        );
        assert_eq!(
            tables::counting_difference(&loaded, &reference),
            None,
            "{}: decoded tables differ from from_dictionary's",
            e.name()
        );
        // Every token of the vocabulary is one token, alone and after a space-free prefix.
        for id in (0..loaded.num_tokens() as u32).step_by(97) {
            let bytes = loaded.token_bytes(id);
            assert_eq!(loaded.count(bytes), 1, "{}: token {id}", e.name());
        }
    }
}

/// The engine on the embedded tables counts like tiktoken-rs on text that exercises merges:
/// code, prose, long runs without whitespace, non-ASCII.
#[test]
fn counts_on_embedded_tables_match_tiktoken() {
    let text = concat!(
        "fn main() {\n    let väluе = \"naïve café 日本語のテキスト\";\n",
        "    println!(\"{value:?}\"); // comment with emoji 🦀🦀\n}\n",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
        "ThisIsAVeryLongIdentifierWithoutAnyWhitespaceAtAll_and_snake_case_too\n",
        "    \t\r\n  12345678901234567890 +-*/%^&|~!=<>?:;.,'\"`@#$\\\n",
    );
    for e in Encoding::ALL {
        assert_eq!(
            count::count(e, text),
            tiktoken(e).encode_ordinary(text).len(),
            "{}",
            e.name()
        );
    }
}

/// Writes `data/bpe/<encoding>.bpe` for every encoding (run on request, see the module docs).
#[test]
#[ignore]
fn write_tables() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bpe");
    std::fs::create_dir_all(&dir).unwrap();
    for e in Encoding::ALL {
        let file = tables::encode(&reference_tables(e)).unwrap();
        let path = dir.join(format!("{}.bpe", e.name()));
        std::fs::write(&path, &file).unwrap();
        eprintln!("{}: {} bytes", path.display(), file.len());
    }
}
