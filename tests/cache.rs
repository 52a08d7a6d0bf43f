//! The warm cache: a second run on an unchanged repo reads and tokenizes nothing again, and any
//! touch, edit or rename is seen on the next call, with counts equal to a cold run's. Checked on
//! the library (with the cache's own counters) and through a real gnaw-mcp process.

mod mcp_client;

use gnaw::cache::Cache;
use gnaw::{ExtractionSpec, Mode, Overrides, Policy, run_extraction};
use gnaw_sandbox::Root;
use mcp_client::Server;
use serde_json::json;
use std::fs;
use std::path::Path;
use std::time::{Duration, SystemTime};

fn run(repo: &Path, cache: Option<&Cache>, mode: Mode) -> gnaw::Extraction {
    let root = Root::new(repo, false).unwrap();
    let spec = ExtractionSpec {
        repo: root.as_dir(),
        overrides: Overrides::default(),
        paths: None,
        mode,
        observer: None,
        policy: Policy::cli(),
        cache,
    };
    run_extraction(&spec).unwrap()
}

fn fixture() -> (tempfile::TempDir, std::path::PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().canonicalize().unwrap().join("r");
    fs::create_dir_all(repo.join("src")).unwrap();
    for i in 0..40 {
        fs::write(
            repo.join(format!("src/m{i}.rs")),
            format!("pub fn f{i}() -> u32 {{ {i} }}\n").repeat(20),
        )
        .unwrap();
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
    let root = tmp.path().canonicalize().unwrap();
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
