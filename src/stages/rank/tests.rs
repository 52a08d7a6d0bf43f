//! The ranker's unit tests: scoring, query parsing, the classes of files and the learned
//! table's expansion, each on small in-memory repositories.

use super::*;

/// A document for each `(path, text)`.
fn files<'a>(files: &[(&'a str, &'a str)]) -> Vec<Doc<'a>> {
    files
        .iter()
        .map(|&(path, text)| Doc { path, text })
        .collect()
}

/// Each doc's index.
fn indexes_of(docs: &[Doc<'_>]) -> Vec<FileIndex> {
    docs.iter()
        .map(|d| FileIndex::build(d.path, d.text))
        .collect()
}

/// The docs as indexed files, with their `indexes`.
fn indexed_of<'a>(docs: &[Doc<'a>], indexes: &'a [FileIndex]) -> Vec<Indexed<'a>> {
    docs.iter()
        .zip(indexes)
        .map(|(d, index)| Indexed {
            path: d.path,
            index,
        })
        .collect()
}

fn ranked(docs: &[Doc<'_>], q: Option<&str>) -> Vec<(usize, Score)> {
    let q = q.map(|q| Query::parse(q).unwrap());
    rank(docs, q.as_ref(), &|_| None, &|| false).unwrap()
}

#[test]
fn queries_over_a_bound_are_errors_that_name_the_limit() {
    let long = "word ".repeat(MAX_QUERY_BYTES / 5 + 1);
    let e = Query::parse(&long).unwrap_err().to_string();
    assert!(e.contains(&format!("{} bytes", long.len())), "{e}");
    assert!(e.contains(&MAX_QUERY_BYTES.to_string()), "{e}");
    // Distinct terms: `ab`, `ac`, ... two letters each, under the byte bound.
    let many: Vec<String> = (0..MAX_QUERY_TERMS + 1)
        .map(|i| {
            format!(
                "q{}{}",
                (b'a' + (i / 26) as u8) as char,
                (b'a' + (i % 26) as u8) as char
            )
        })
        .collect();
    let many = many.join(" ");
    assert!(many.len() <= MAX_QUERY_BYTES);
    let e = Query::parse(&many).unwrap_err().to_string();
    assert!(e.contains("257 distinct terms"), "{e}");
    assert!(e.contains(&MAX_QUERY_TERMS.to_string()), "{e}");
    // At the bounds it is accepted.
    let at = Query::parse(&"x".repeat(MAX_QUERY_BYTES)).unwrap();
    assert_eq!(at.terms().len(), 1);
}

#[test]
fn query_terms_are_distinct_in_first_appearance_order() {
    assert_eq!(
        query_terms("parse the Config, parse_config and CONFIG"),
        vec!["pars", "config", "parseconfig"]
    );
}

#[test]
fn a_stop_word_written_as_a_name_is_searched_for() {
    // `From` alone is the trait, not the preposition; in a question it stays a stop word.
    assert_eq!(query_terms("From"), vec!["from"]);
    assert_eq!(query_terms("Self where"), vec!["self"]);
    assert_eq!(query_terms("Where DOES"), vec!["wher", "doe"]);
    // Stop words are known by their spelling, before stemming.
    assert!(query_terms("where does it").is_empty());
    assert_eq!(query_terms("convert From a string"), vec!["convert", "str"]);
    assert!(query_terms("from the").is_empty());
    let docs = files(&[
        (
            "convert.rs",
            "impl From<u8> for Byte { fn from(b: u8) -> Self { Byte(b) } }",
        ),
        ("other.rs", "fn unrelated() {}"),
    ]);
    let q = Query::parse("From").unwrap();
    let ranked = rank(&docs, Some(&q), &|_| None, &|| false).unwrap();
    assert_eq!(docs[ranked[0].0].path, "convert.rs");
}

#[test]
fn ranking_stops_when_asked() {
    let docs = files(&[("a.rs", "fn a() {}")]);
    let q = Query::parse("a").unwrap();
    assert!(rank(&docs, Some(&q), &|_| None, &|| true).is_none());
    assert!(rank(&docs, None, &|_| None, &|| true).is_none());
}

#[test]
fn identifiers_split_with_acronyms_whole() {
    assert_eq!(
        split_identifier("getHTTPResponse"),
        vec!["get", "HTTP", "Response"]
    );
    assert_eq!(
        split_identifier("snake_case_name"),
        vec!["snake", "case", "name"]
    );
    assert_eq!(split_identifier("XMLParser"), vec!["XML", "Parser"]);
    let mut terms = Vec::new();
    for_each_term("getHTTPResponse", |t| terms.push(t.to_string()));
    assert_eq!(terms, vec!["gethttprespons", "get", "http", "respons"]);
}

#[test]
fn default_order_puts_readme_first_and_locks_last() {
    let paths = [
        "Cargo.lock",
        "tests/it.rs",
        "src/util.rs",
        "README.md",
        "src/main.rs",
        "vendor/x/y.rs",
        "Cargo.toml",
    ];
    let docs: Vec<Doc> = paths.iter().map(|p| Doc { path: p, text: "x" }).collect();
    let order: Vec<&str> = ranked(&docs, None).iter().map(|(i, _)| paths[*i]).collect();
    assert_eq!(
        order,
        vec![
            "Cargo.toml",
            "README.md",
            "src/main.rs",
            "src/util.rs",
            "tests/it.rs",
            "vendor/x/y.rs",
            "Cargo.lock"
        ]
    );
}

#[test]
fn query_prefers_files_that_define_and_mention_it() {
    let docs = files(&[
        ("src/a.rs", "fn unrelated() {}"),
        (
            "src/http.rs",
            "pub fn get_http_response() -> Response { todo() }",
        ),
        ("src/b.rs", "let r = get_http_response(); // http response"),
    ]);
    let r = ranked(&docs, Some("getHTTPResponse"));
    assert_eq!(r[0].0, 1, "{r:?}");
    assert_eq!(r[1].0, 2);
    assert_eq!(r[2].0, 0);
    assert!(r[0].1.parts.iter().any(|p| p.0 == Part::DefinesSymbol));
}

#[test]
fn only_whole_query_words_name_files_and_symbols() {
    let docs = files(&[
        ("src/map.rs", "pub struct Map; fn get(&self) {}"),
        (
            "src/de.rs",
            "pub struct Deserializer; fn deserialize_map() { map }",
        ),
    ]);
    // `map` is only a part of `deserialize_map`: map.rs is not "named" by the query.
    let r = ranked(&docs, Some("Deserializer::deserialize_map"));
    assert_eq!(r[0].0, 1, "{r:?}");
    assert!(r[1].1.parts.iter().all(|p| p.0 != Part::NamesFile));
    // Asked for by its whole name, it is.
    let r = ranked(&docs, Some("map"));
    assert_eq!(r[0].0, 0, "{r:?}");
    assert!(r[0].1.parts.iter().any(|p| p.0 == Part::NamesFile));
}

/// Of two files of the same `text` at `paths` (`[less, plain]`), `less` ranks second for
/// `query` and its score has the part `part`; for `asking` (a query asking for such files)
/// no score has it.
fn counts_for_less_unless_asked(
    paths: [&str; 2],
    text: &str,
    query: &str,
    asking: &str,
    part: Part,
) {
    let docs = files(&[(paths[0], text), (paths[1], text)]);
    let r = ranked(&docs, Some(query));
    assert_eq!(r[0].0, 1, "{r:?}");
    assert!(r[1].1.parts.iter().any(|p| p.0 == part));
    let r = ranked(&docs, Some(asking));
    assert!(r.iter().all(|(_, s)| s.parts.iter().all(|p| p.0 != part)));
}

#[test]
fn tests_count_for_less_unless_asked_for() {
    counts_for_less_unless_asked(
        ["tests/header.rs", "src/header.rs"],
        "fn parse_header() { parse_header() }",
        "parse_header",
        "tests for parse_header",
        Part::SecondaryFile,
    );
}

#[test]
fn prose_counts_half_unless_docs_are_asked_for() {
    counts_for_less_unless_asked(
        ["docs/notes.md", "src/backoff.rs"],
        "the retry delay grows with each attempt",
        "retry delay",
        "retry delay docs",
        Part::DocsFile,
    );
}

#[test]
fn inflections_meet_and_names_ignore_dashes() {
    let terms = |text: &str| {
        let mut out = Vec::new();
        for_each_term(text, |t| out.push(t.to_string()));
        out
    };
    assert_eq!(
        terms("timers entries entry class status is"),
        vec!["timer", "entri", "entri", "class", "status", "is"]
    );
    // A question's verbs and nouns meet the code's names, whatever their ending.
    assert_eq!(
        terms("trace traced tracing parse parser parsing stopped stop called"),
        vec![
            "trac", "trac", "trac", "pars", "pars", "pars", "stop", "stop", "call"
        ]
    );
    assert_eq!(terms("scheduler scheduled schedules"), vec!["schedul"; 3]);
    let docs = files(&[
        ("lib/permessage-deflate.js", "module.exports = X;"),
        ("lib/other.js", "PerMessageDeflate PerMessageDeflate"),
    ]);
    let r = ranked(&docs, Some("PerMessageDeflate"));
    assert!(
        r.iter()
            .any(|(i, s)| *i == 0 && s.parts.iter().any(|p| p.0 == Part::NamesFile))
    );
}

#[test]
fn definitions_from_the_parser_rescore_the_best_files() {
    use crate::vocab::{LineRange, Symbol, SymbolKind};
    let sym = |name: &str, doc: Option<&str>| Symbol {
        kind: SymbolKind::Function,
        name: name.into(),
        signature: String::new(),
        lines: LineRange { start: 1, end: 1 },
        body: None,
        doc: doc.map(String::from),
        children: Vec::new(),
    };
    // A C definition has no keyword before its name: only the parser knows lvm.c defines it.
    let docs = files(&[
        ("src/ldo.c", "luaV_execute(L, ci); luaV_execute(L, ci);"),
        ("src/lvm.c", "void luaV_execute (lua_State *L) { }"),
    ]);
    let q = Query::parse("luaV_execute").unwrap();
    let outline = |i: usize| {
        (i == 1).then(|| Arc::new(SymbolFacts::of(&[sym("luaV_execute", Some("run the vm"))])))
    };
    let r = rank(&docs, Some(&q), &outline, &|| false).unwrap();
    assert_eq!(r[0].0, 1, "{r:?}");
    assert!(r[0].1.parts.iter().any(|p| p.0 == Part::DefinesSymbol));
    let without = rank(&docs, Some(&q), &|_| None, &|| false).unwrap();
    assert_eq!(without[0].0, 0, "{without:?}");
    // Deterministic: the same ranking every time.
    assert_eq!(r, rank(&docs, Some(&q), &outline, &|| false).unwrap());
}

#[test]
fn indexed_ranking_with_or_without_postings_is_the_texts_ranking_of_touched_files() {
    let docs = files(&[
        ("src/retry.rs", "pub fn retry_with_backoff() { backoff(); }"),
        (
            "src/parse/header.rs",
            "pub fn parse_header(x: u32) {}\n// header header",
        ),
        (
            "src/parse/mod.rs",
            "mod header; pub use header::parse_header;",
        ),
        (
            "tests/header_test.rs",
            "fn parse_header_works() { parse_header(1) }",
        ),
        (
            "README.md",
            "# Headers\n\nParsing headers, with retry and backoff.",
        ),
        ("src/a/a.rs", "fn unrelated() {}"),
        ("src/empty.rs", ""),
        (
            "src/backoff.rs",
            "//! The delay between attempts.\nfn retry_header() {}",
        ),
        ("Makefile", "retry:\n\tcargo run -- retry header"),
        (
            "index.d.ts",
            "export function parseHeader(): void; // retry",
        ),
    ]);
    let indexes = indexes_of(&docs);
    let indexed = indexed_of(&docs, &indexes);
    let refs: Vec<&FileIndex> = indexes.iter().collect();
    let postings = Postings::build(&refs, &|| false).unwrap();
    assert!(
        Postings::build(&refs, &|| true).is_none(),
        "a build stops when asked"
    );
    let matched = |w: Weighted| -> Vec<(usize, Score)> {
        w.0.into_iter().filter(|(_, s)| s.matched()).collect()
    };
    for q in [
        "parse header",
        "retry backoff",
        "a",
        "header test",
        "headers docs",
        "zzz nothing",
    ] {
        let Ok(query) = Query::parse(q) else { continue };
        if query.terms().is_empty() {
            continue;
        }
        let text = rank_weighted(&docs, Some(&query), &|_| None, &|| false).unwrap();
        let without = rank_indexed(&indexed, None, &query, &|_| None, &|_| {}, &|| false).unwrap();
        let with = rank_indexed(
            &indexed,
            Some(&postings),
            &query,
            &|_| None,
            &|_| {},
            &|| false,
        )
        .unwrap();
        assert_eq!(text.1, without.1, "{q}: term weights");
        assert_eq!(without.1, with.1, "{q}: term weights");
        let text = matched(text);
        assert_eq!(text, matched(without), "{q}");
        assert_eq!(text, matched(with), "{q}");
    }
    // Files indexed again, in place: the patched postings rank as postings built afresh,
    // and patching twice (a second edit) as well.
    let edits = [
        (1, "pub fn retry_header() {}\n// backoff backoff"),
        (3, "fn header_test() { retry() }"),
        (1, "pub fn parse_header_again() {}"),
    ];
    let mut texts: Vec<&str> = docs.iter().map(|d| d.text).collect();
    let mut patched = postings;
    for (at, text) in edits {
        texts[at] = text;
        let docs: Vec<Doc<'_>> = docs
            .iter()
            .zip(&texts)
            .map(|(d, &text)| Doc { path: d.path, text })
            .collect();
        let indexes = indexes_of(&docs);
        let indexed = indexed_of(&docs, &indexes);
        let refs: Vec<&FileIndex> = indexes.iter().collect();
        patched = patched.patched(&refs, &[at], &|| false).unwrap();
        let fresh = Postings::build(&refs, &|| false).unwrap();
        assert_eq!(patched.total_len(), fresh.total_len());
        for q in ["parse header", "retry backoff", "header test", "again"] {
            let query = Query::parse(q).unwrap();
            let rank = |p: &Postings| {
                let w =
                    rank_indexed(&indexed, Some(p), &query, &|_| None, &|_| {}, &|| false).unwrap();
                let idf = w.1.clone();
                (matched(w), idf)
            };
            assert_eq!(rank(&patched), rank(&fresh), "{q} after editing file {at}");
        }
    }
}

#[test]
fn a_file_that_defines_what_is_asked_for_ranks_above_one_that_uses_it() {
    // The same words, in a definition's name and in calls; the shorter file would win on
    // BM25 alone. The words in reverse order name nothing (no `defines_symbol`).
    let docs = files(&[
        ("src/a.rs", "fn run() { lifetime(); elide(); }"),
        ("src/b.rs", "fn elide_lifetime() {}\nfn run() {}"),
    ]);
    let r = ranked(&docs, Some("lifetime elide"));
    assert_eq!(docs[r[0].0].path, "src/b.rs", "{r:?}");
    assert!(r[0].1.parts.iter().all(|p| p.0 != Part::DefinesSymbol));
}

#[test]
fn auxiliary_files_count_for_less_unless_named_or_asked_for() {
    counts_for_less_unless_asked(
        ["index.d.ts", "src/header.ts"],
        "export function parseHeader(): void;",
        "parse header",
        "parse header declarations",
        Part::AuxiliaryFile,
    );
    // A manifest comes first by default; for a query it counts half, unless it is named.
    let text = "install: cp bin/tool /usr/local/bin";
    let docs = files(&[
        ("Makefile", text),
        ("install.sh", text),
        ("src/other.rs", "fn x() {}"),
        ("src/more.rs", "fn y() {}"),
    ]);
    let r = ranked(&docs, Some("install tool"));
    assert_eq!(docs[r[0].0].path, "install.sh", "{r:?}");
    assert!(r[1].1.parts.iter().any(|p| p.0 == Part::AuxiliaryFile));
    let r = ranked(&docs, Some("install tool makefile"));
    assert_eq!(docs[r[0].0].path, "Makefile", "{r:?}");
    assert!(
        r.iter()
            .all(|(_, s)| s.parts.iter().all(|p| p.0 != Part::AuxiliaryFile))
    );
    // Named by its stem alone, it still counts half; with its extension, it is named.
    let docs = files(&[
        ("Makefile.am", text),
        ("package.json", "{\"scripts\": {\"install\": \"tool\"}}"),
        ("install.sh", text),
    ]);
    let aux = |r: &[(usize, Score)], path: &str| {
        r.iter()
            .find(|(i, _)| docs[*i].path == path)
            .is_some_and(|(_, s)| s.parts.iter().any(|p| p.0 == Part::AuxiliaryFile))
    };
    let r = ranked(&docs, Some("install tool makefile package"));
    assert!(aux(&r, "Makefile.am") && aux(&r, "package.json"), "{r:?}");
    let r = ranked(&docs, Some("install tool Makefile.am package.json"));
    assert!(!aux(&r, "Makefile.am") && !aux(&r, "package.json"), "{r:?}");
}

#[test]
fn words_in_a_row_name_a_compound_file() {
    let docs = files(&[
        (
            "gson/JsonObject.java",
            "class JsonObject { JsonArray getAsJsonArray(String memberName); \
                   json array json array json array }",
        ),
        (
            "gson/JsonArray.java",
            "public final class JsonArray extends JsonElement { }",
        ),
        (
            "gson/JsonWriter.java",
            "class JsonWriter { void beginArray() {} }",
        ),
    ]);
    let r = ranked(&docs, Some("JSON array"));
    assert_eq!(docs[r[0].0].path, "gson/JsonArray.java", "{r:?}");
    assert!(r[0].1.parts.iter().any(|p| p.0 == Part::NamesFile));
    // Not in that order: no compound.
    let r = ranked(&docs, Some("array JSON"));
    assert!(
        r.iter()
            .all(|(_, s)| s.parts.iter().all(|p| p.0 != Part::NamesFile)),
        "{r:?}"
    );
}

#[test]
fn words_that_name_parts_of_a_file_name_boost_it_by_the_share_they_name() {
    let docs = files(&[
        ("src/GroupHandler.php", "class GroupHandler {}"),
        (
            "src/WhatFailureGroupHandler.php",
            "class WhatFailureGroupHandler {}",
        ),
        ("src/Logger.php", "class Logger {}"),
        ("src/map.rs", "fn get() {}"),
        ("src/de.rs", "fn deserialize_map() {}"),
    ]);
    let boost = |r: &[(usize, Score)], path: &str| {
        r.iter()
            .find(|(i, _)| docs[*i].path == path)
            .and_then(|(_, s)| s.parts.iter().find(|p| p.0 == Part::NamesFileParts))
            .map(|p| p.1)
    };
    // Any order, any inflection: all of `GroupHandler`'s parts, three of the four of
    // `WhatFailureGroupHandler`'s.
    let r = ranked(&docs, Some("handlers of a group tolerate failures"));
    assert_eq!(boost(&r, "src/GroupHandler.php"), Some(6.0), "{r:?}");
    assert_eq!(
        boost(&r, "src/WhatFailureGroupHandler.php"),
        Some(4.5),
        "{r:?}"
    );
    assert_eq!(boost(&r, "src/Logger.php"), None, "{r:?}");
    // A file the query names whole has the file's boost instead.
    let r = ranked(&docs, Some("group handler"));
    assert_eq!(boost(&r, "src/GroupHandler.php"), None, "{r:?}");
    // The parts of an identifier in the query name nothing on their own.
    let r = ranked(&docs, Some("deserialize_map"));
    assert_eq!(boost(&r, "src/map.rs"), None, "{r:?}");
}

#[test]
fn a_define_names_a_macro_as_a_definition_does() {
    // The macro's uses outnumber its definition; `#define` says which file defines it.
    let docs = files(&[
        (
            "src/lvm.c",
            "if (n >= LUAI_MAXCCALLS) error(L); /* LUAI_MAXCCALLS */ \
             check(L, LUAI_MAXCCALLS - n);",
        ),
        (
            "src/llimits.h",
            "/* limits */\n#define LUAI_MAXCCALLS\t200\n",
        ),
    ]);
    let r = ranked(&docs, Some("LUAI_MAXCCALLS"));
    assert_eq!(docs[r[0].0].path, "src/llimits.h", "{r:?}");
    assert!(r[0].1.parts.iter().any(|p| p.0 == Part::DefinesSymbol));
    assert_eq!(defined_names("#define SQ(x) ((x) * (x))"), ["sq"]);
    // `define` as a word of prose, or joined to another word, defines nothing.
    assert!(defined_names("we define the limit; x#define y; #defined z").is_empty());
}

#[test]
fn synonyms_bridge_vocabularies_at_a_lesser_weight() {
    let q = Query::parse("waiting for several futures").unwrap();
    assert!(q.terms().iter().any(|t| t == "select"), "{:?}", q.terms());
    let docs = files(&[
        (
            "src/select.rs",
            "/// Polls several branches and returns the first to complete.\n\
                   pub fn select() {}",
        ),
        ("src/other.rs", "pub fn unrelated() {}"),
    ]);
    let r = ranked(&docs, Some("waiting for several futures"));
    assert_eq!(r[0].0, 0, "{r:?}");
    // The query's own word outweighs its synonym.
    let docs = files(&[("src/a.rs", "select select"), ("src/b.rs", "wait wait")]);
    let r = ranked(&docs, Some("wait"));
    assert_eq!(r[0].0, 1, "{r:?}");
}

#[cfg(feature = "related-terms")]
#[test]
fn a_question_brings_related_terms_from_the_learned_table_at_a_small_weight() {
    let brought = |weight: f64| -> Vec<(String, f64)> {
        let q = Query::parse_relating("open a socket to the server", weight).unwrap();
        assert_eq!(q.terms.len(), q.words.len());
        let own = Query::parse_relating("open socket server", 0.0).unwrap();
        q.terms
            .iter()
            .zip(q.weights.iter().copied())
            .filter(|(t, _)| !own.terms.contains(t))
            .map(|(t, w)| (t.clone(), w))
            .collect()
    };
    let on = brought(0.15);
    assert!(!on.is_empty());
    assert!(on.iter().all(|(_, w)| *w > 0.0 && *w <= 0.15), "{on:?}");
    assert!(brought(0.0).is_empty());
    // A name or two is looked up as written: nothing is brought, whatever the weight.
    let short = |weight| {
        Query::parse_relating("socket server", weight)
            .unwrap()
            .terms
    };
    assert_eq!(short(0.15), short(0.0));
}
