//! The warm cache: a second run on an unchanged repo reads and tokenizes nothing again, and any
//! touch, edit or rename is seen on the next call, with counts equal to a cold run's. Checked on
//! the library (with the cache's own counters) and through a real gnaw-mcp process.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

use crate::common;
use common::fixture::Tree;

use common::mcp_client;

use gnaw::cache::Cache;
use gnaw::count::Encoding;
use gnaw::gnawconfig::{Format, SecretsMode};
use gnaw::{ExtractionSpec, Mode, Overrides, Policy, run_extraction};
use gnaw_sandbox::Root;
use mcp_client::Server;
use serde_json::json;
use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

fn run(repo: &Path, cache: Option<&Cache>, mode: Mode) -> gnaw::Extraction {
    run_with(repo, cache, mode, Overrides::default())
}

fn run_with(
    repo: &Path,
    cache: Option<&Cache>,
    mode: Mode,
    overrides: Overrides,
) -> gnaw::Extraction {
    let root = Root::new(repo, false).unwrap();
    let spec = ExtractionSpec {
        repo: root.as_dir(),
        overrides,
        paths: None,
        mode,
        observer: None,
        policy: Policy::cli(),
        cache,
    };
    run_extraction(&spec).unwrap()
}

fn fixture() -> (Tree, std::path::PathBuf) {
    let tmp = Tree::new("r");
    let repo = tmp.repo.clone();
    for i in 0..40 {
        let source = format!("pub fn f{i}() -> u32 {{ {i} }}\n").repeat(20);
        tmp.write(&format!("src/m{i}.rs"), source);
    }
    fs::write(repo.join("README.md"), "# r\n").unwrap();
    fs::write(repo.join("blob.bin"), b"\0\x01\x02binary").unwrap();
    // Files changed in the last two seconds are never cached (a write in the same timestamp
    // tick could go unseen); let these settle.
    std::thread::sleep(Duration::from_millis(2100));
    (tmp, repo)
}

#[test]
fn unchanged_repo_is_neither_read_nor_tokenized_again() {
    let (_tmp, repo) = fixture();
    let cache = Cache::new(64 << 20);
    let cold = run(&repo, Some(&cache), Mode::Estimate);
    let after_cold = cache.stats();
    assert!(after_cold.count_misses > 0 && after_cold.file_misses > 0);
    let warm = run(&repo, Some(&cache), Mode::Estimate);
    let after_warm = cache.stats();
    assert_eq!(warm.tokens, cold.tokens);
    assert_eq!(
        after_warm.file_misses, after_cold.file_misses,
        "no file was read again"
    );
    assert_eq!(
        after_warm.count_misses, after_cold.count_misses,
        "nothing was tokenized again"
    );
    assert!(after_warm.file_hits >= 42);
    // Rendering from the cache gives the cold bytes.
    let cold_text = run(&repo, None, Mode::Render).output.unwrap();
    assert_eq!(
        run(&repo, Some(&cache), Mode::Render).output.unwrap(),
        cold_text
    );
}

#[test]
fn touch_edit_and_rename_are_seen_on_the_next_call() {
    let (_tmp, repo) = fixture();
    let cache = Cache::new(64 << 20);
    run(&repo, Some(&cache), Mode::Estimate);
    let check = |what: &str| {
        let warm = run(&repo, Some(&cache), Mode::Render);
        let cold = run(&repo, None, Mode::Render);
        assert_eq!(warm.tokens, cold.tokens, "{what}");
        assert_eq!(warm.output, cold.output, "{what}");
        assert_eq!(warm.files, cold.files, "{what}");
        warm
    };

    // Touch: new mtime, same bytes: read again, counts from the count cache.
    let f = fs::File::options()
        .write(true)
        .open(repo.join("src/m1.rs"))
        .unwrap();
    f.set_modified(SystemTime::now() + Duration::from_secs(5))
        .unwrap();
    drop(f);
    let before = cache.stats();
    check("touch");
    let after = cache.stats();
    assert!(
        after.file_misses > before.file_misses,
        "the touched file was read again"
    );

    // Edit in place, keeping the size: the content is new, so is the count.
    let p = repo.join("src/m2.rs");
    let old = fs::read_to_string(&p).unwrap();
    let edited = old.replacen("f2", "g2", 1);
    assert_eq!(edited.len(), old.len());
    fs::write(&p, &edited).unwrap();
    let e = check("edit");
    assert!(e.output.unwrap().contains("g2()"));

    // Rename: the path is part of the rendered piece.
    fs::rename(repo.join("src/m3.rs"), repo.join("src/renamed.rs")).unwrap();
    let e = check("rename");
    assert!(e.files.iter().any(|f| f.path == "src/renamed.rs"));
    assert!(!e.files.iter().any(|f| f.path == "src/m3.rs"));

    // A binary file that becomes text is picked up.
    fs::write(repo.join("blob.bin"), "now text\n").unwrap();
    let e = check("binary to text");
    assert!(e.files.iter().any(|f| f.path == "blob.bin"));
}

#[test]
fn the_cache_stays_within_its_bound() {
    let (_tmp, repo) = fixture();
    let cache = Cache::new(16 << 10);
    let cold = run(&repo, None, Mode::Estimate);
    for _ in 0..3 {
        assert_eq!(run(&repo, Some(&cache), Mode::Estimate).tokens, cold.tokens);
        assert!(cache.stats().bytes <= 16 << 10, "{:?}", cache.stats());
    }
}

#[test]
fn server_estimates_follow_edits() {
    let (tmp, repo) = fixture();
    let root = tmp.base.clone();
    let mut s = Server::start(&root, &[("GNAW_MCP_DEFAULT_BUDGET", "0")]);
    s.initialize("2025-06-18");
    let tokens = |s: &mut Server| {
        let r = s.call("estimate", json!({"repo": "r"}));
        r["result"]["structuredContent"]["tokens"].as_u64().unwrap()
    };
    let cli = |repo: &Path| -> u64 {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_gnaw"))
            .args([
                repo.to_str().unwrap(),
                "--estimate",
                "-q",
                "--secrets",
                "redact",
            ])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout)
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    let first = tokens(&mut s);
    assert_eq!(first, cli(&repo));
    assert_eq!(tokens(&mut s), first);
    fs::write(repo.join("src/m5.rs"), "pub fn changed() {}\n").unwrap();
    let after = tokens(&mut s);
    assert_ne!(after, first);
    assert_eq!(after, cli(&repo));
    fs::remove_file(repo.join("src/m6.rs")).unwrap();
    assert_eq!(tokens(&mut s), cli(&repo));
    let (_, stderr) = s.finish();
    assert!(
        stderr.contains("cache CacheStats"),
        "the server logs cache stats"
    );
}

/// A fake GitHub token, assembled so no real-looking key sits in this file.
fn fake_token() -> String {
    format!("{}{}", "gh", "p_") + &"aZ3kQ9mX2pL7vB4nR8tY1wE6uI5oP0sD".repeat(2)[..36]
}

/// Everything a warm run reports must equal a cold run's with the same options.
fn assert_same(warm: &gnaw::Extraction, cold: &gnaw::Extraction, what: &str) {
    assert_eq!(warm.tokens, cold.tokens, "{what}: tokens");
    assert_eq!(warm.output, cold.output, "{what}: output");
    assert_eq!(warm.output_bytes, cold.output_bytes, "{what}: output bytes");
    assert_eq!(warm.files, cold.files, "{what}: files");
    assert_eq!(warm.skipped, cold.skipped, "{what}: skipped");
    assert_eq!(warm.findings, cold.findings, "{what}: findings");
}

/// `src/conf.rs`, holding a fake token the scan finds.
fn write_token(repo: &Path) {
    let line = format!("pub const TOKEN: &str = \"{}\";\n", fake_token());
    fs::write(repo.join("src/conf.rs"), line).unwrap();
}

#[test]
fn warm_pieces_follow_every_option_that_shapes_them() {
    let (_tmp, repo) = fixture();
    write_token(&repo);
    // A second name for the same inode: a piece is per path, not per file.
    fs::hard_link(repo.join("src/m1.rs"), repo.join("src/hard.rs")).unwrap();
    std::thread::sleep(Duration::from_millis(2100));
    let o = |format, encoding, line_numbers, secrets| Overrides {
        format: Some(format),
        encoding: Some(encoding),
        line_numbers: Some(line_numbers),
        secrets: Some(secrets),
        ..Overrides::default()
    };
    // Each set differs from the one before in one option, so a piece reused across options
    // would show up as a wrong count or a wrong text.
    let sets = [
        o(
            Format::Markdown,
            Encoding::O200kBase,
            false,
            SecretsMode::Warn,
        ),
        o(Format::Xml, Encoding::O200kBase, false, SecretsMode::Warn),
        o(Format::Json, Encoding::O200kBase, false, SecretsMode::Warn),
        o(Format::Json, Encoding::Cl100kBase, false, SecretsMode::Warn),
        o(Format::Json, Encoding::Cl100kBase, true, SecretsMode::Warn),
        o(
            Format::Json,
            Encoding::Cl100kBase,
            true,
            SecretsMode::Redact,
        ),
        o(
            Format::Markdown,
            Encoding::Cl100kBase,
            true,
            SecretsMode::Redact,
        ),
        o(
            Format::Markdown,
            Encoding::O200kBase,
            true,
            SecretsMode::Redact,
        ),
        o(
            Format::Markdown,
            Encoding::O200kBase,
            false,
            SecretsMode::Redact,
        ),
        o(
            Format::Markdown,
            Encoding::O200kBase,
            false,
            SecretsMode::Block,
        ),
        o(
            Format::Markdown,
            Encoding::O200kBase,
            false,
            SecretsMode::Off,
        ),
    ];
    let cache = Cache::new(64 << 20);
    let cold: Vec<_> = sets
        .iter()
        .map(|s| run_with(&repo, None, Mode::Render, s.clone()))
        .collect();
    let mut distinct: Vec<usize> = cold.iter().map(|c| c.tokens).collect();
    distinct.sort_unstable();
    distinct.dedup();
    assert!(distinct.len() >= 8, "the option sets give different counts");
    for pass in 0..2 {
        let before = cache.stats();
        for (s, cold) in sets.iter().zip(&cold) {
            let what = format!("pass {pass}, {s:?}");
            let warm = run_with(&repo, Some(&cache), Mode::Render, s.clone());
            assert_same(&warm, cold, &what);
            let est = run_with(&repo, Some(&cache), Mode::Estimate, s.clone());
            assert_eq!(est.tokens, cold.tokens, "{what}: estimate");
            assert_eq!(
                est.output_bytes, cold.output_bytes,
                "{what}: estimate bytes"
            );
            let out = warm.output.as_deref().unwrap();
            let secret_shown = out.contains(&fake_token());
            let hidden = matches!(s.secrets, Some(SecretsMode::Redact | SecretsMode::Block));
            assert_eq!(secret_shown, !hidden, "{what}: secret shown");
        }
        let after = cache.stats();
        if pass == 1 {
            assert_eq!(after.piece_misses, before.piece_misses, "all pieces warm");
            assert_eq!(after.file_misses, before.file_misses, "nothing read again");
            assert_eq!(after.count_misses, before.count_misses, "nothing tokenized");
            assert!(after.piece_hits >= before.piece_hits + 2 * 11 * 42);
        }
    }
}

#[test]
fn allow_list_and_config_changes_are_seen_by_warm_calls() {
    let (_tmp, repo) = fixture();
    write_token(&repo);
    std::thread::sleep(Duration::from_millis(2100));
    let redact = || Overrides {
        secrets: Some(SecretsMode::Redact),
        ..Overrides::default()
    };
    let cache = Cache::new(64 << 20);
    let check = |what: &str, shown: bool| {
        let warm = run_with(&repo, Some(&cache), Mode::Render, redact());
        let cold = run_with(&repo, None, Mode::Render, redact());
        assert_same(&warm, &cold, what);
        assert_eq!(
            warm.output.unwrap().contains(&fake_token()),
            shown,
            "{what}"
        );
    };
    check("redacted", false);
    check("redacted, warm", false);
    fs::write(
        repo.join(".gnawconfig"),
        "[secrets]\nallow_paths = [\"src/conf.rs\"]\n",
    )
    .unwrap();
    check("allowed by path", true);
    fs::remove_file(repo.join(".gnawconfig")).unwrap();
    let found = run_with(&repo, None, Mode::Estimate, redact()).findings;
    assert_eq!(found.len(), 1, "{found:?}");
    fs::write(
        repo.join(".gnawconfig"),
        format!(
            "[secrets]\nallow_fingerprints = [\"{}\"]\n",
            found[0].fingerprint
        ),
    )
    .unwrap();
    check("allowed by fingerprint", true);
    fs::remove_file(repo.join(".gnawconfig")).unwrap();
    check("allow list gone", false);
}

#[test]
fn editing_a_file_changes_the_warm_count() {
    let (_tmp, repo) = fixture();
    let cache = Cache::new(64 << 20);
    let first = run(&repo, Some(&cache), Mode::Estimate);
    assert_eq!(
        run(&repo, Some(&cache), Mode::Estimate).tokens,
        first.tokens
    );
    let p = repo.join("src/m7.rs");
    let mut text = fs::read_to_string(&p).unwrap();
    text.push_str("pub fn added_later(x: u64) -> u64 { x * 3 + 1 }\n");
    fs::write(&p, &text).unwrap();
    let before = cache.stats();
    let edited = run(&repo, Some(&cache), Mode::Estimate);
    assert!(edited.tokens > first.tokens, "the new line is counted");
    assert_eq!(edited.tokens, run(&repo, None, Mode::Estimate).tokens);
    let after = cache.stats();
    assert!(
        after.piece_misses > before.piece_misses,
        "the edited file missed"
    );
    assert!(
        after.count_misses > before.count_misses,
        "and was tokenized"
    );
    // Racy: the edit is under two seconds old, so it is not cached yet and is read every time.
    let again = run(&repo, Some(&cache), Mode::Estimate);
    assert_eq!(again.tokens, edited.tokens);
    assert!(
        cache.stats().file_misses > after.file_misses,
        "racy file read again"
    );
}
