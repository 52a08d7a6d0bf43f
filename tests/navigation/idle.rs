//! What a search leaves for gnaw-mcp's idle time: the outlines of its index's files. On the
//! library, the work left stops at once when a call waits, parses every outline when let run,
//! and a later search with other words then parses none and answers exactly as a search
//! without a cache; once a kept index is known outlined, no more work is left. Through the real
//! server, the worker does the work between calls with no call asked of it.

use crate::common;
use common::fixture::Tree;
use common::mcp_client::{self, Server};
use gnaw::cache::Cache;
use gnaw::driver::call::Request;
use gnaw::driver::nav::search::{self, SearchAnswer, SearchArgs};
use gnaw::spec::{IdleWork, Observer};
use gnaw_sandbox::Root;
use serde_json::json;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Keeps the work a call leaves.
#[derive(Default)]
struct Leaves(Mutex<Vec<IdleWork>>);

impl Observer for Leaves {
    fn leave(&self, work: IdleWork) {
        self.0.lock().unwrap().push(work);
    }
}

impl Leaves {
    fn take(&self) -> Vec<IdleWork> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

fn search(tree: &Tree, cache: Option<&Cache>, leaves: &Leaves, query: &str) -> SearchAnswer {
    let root = Root::new(&tree.repo, false).unwrap();
    let req = Request {
        cache,
        observer: Some(leaves),
        ..Request::alone(root.as_dir(), 0, usize::MAX)
    };
    let args = SearchArgs {
        query: query.into(),
        limit: Some(50),
        ..Default::default()
    };
    search::search(&req, &args).unwrap()
}

/// 24 Rust files, 8 Python files and 4 text files, each defining (or naming) its own words
/// and sharing `common_step`, settled so that the index is kept.
fn repo() -> Tree {
    let t = Tree::new("repo");
    for i in 0..24 {
        t.write(
            &format!("src/m{i}.rs"),
            format!(
                "/// Module {i}.\npub struct Alpha{i} {{ x: u32 }}\n\nimpl Alpha{i} {{\n    pub fn \
                 common_step(&self) -> u32 {{ self.x + {i} }}\n    pub fn beta_{i}(&self) {{}}\n}}\n"
            ),
        );
    }
    for i in 0..8 {
        t.write(
            &format!("py/p{i}.py"),
            format!("def common_step():\n    return {i}\n\nclass Gamma{i}:\n    pass\n"),
        );
    }
    for i in 0..4 {
        t.write(
            &format!("notes/n{i}.txt"),
            format!("common step notes {i}\n"),
        );
    }
    // Files changed in the last two seconds are never kept.
    std::thread::sleep(Duration::from_millis(2100));
    t
}

#[test]
fn idle_work_parses_the_outlines_a_later_search_wants() {
    let t = repo();
    let cache = Cache::new(256 << 20);
    let leaves = Leaves::default();
    search(&t, Some(&cache), &leaves, "common step");
    let by_the_call = cache.stats().outlines_built;
    assert!(by_the_call > 0, "the call parses its best files' outlines");
    let mut left = leaves.take();
    assert_eq!(left.len(), 1, "one piece of work per index");
    let work = &mut left[0];

    // A call waiting stops it before anything is parsed.
    assert!(
        !(work.slice)(&cache, &|| true),
        "not done while a call waits"
    );
    assert_eq!(cache.stats().outlines_built, by_the_call);

    // Let run, it parses every file's outline the call did not (a file with no grammar counts:
    // its "none" is kept too).
    let started = Instant::now();
    while !(work.slice)(&cache, &|| false) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "idle work ends"
        );
    }
    assert_eq!(
        cache.stats().outlines_built,
        36,
        "every file's outline, each once"
    );

    // A later search with other words parses nothing, and answers as a cold search.
    let warm = search(&t, Some(&cache), &leaves, "alpha7 beta_3 gamma2");
    assert_eq!(
        cache.stats().outlines_built,
        36,
        "the later call parsed nothing"
    );
    let cold = search(&t, None, &Leaves::default(), "alpha7 beta_3 gamma2");
    assert_eq!(warm.page.text, cold.page.text);
    assert!(warm.facts.hits.len() >= 3, "{}", warm.page.text);

    // That call (on the kept index) left one more look; once it saw every outline kept, the
    // kept index is known outlined and calls leave nothing more.
    for mut work in leaves.take() {
        while !(work.slice)(&cache, &|| false) {}
    }
    assert_eq!(cache.stats().outlines_built, 36);
    search(&t, Some(&cache), &leaves, "alpha3");
    assert!(
        leaves.take().is_empty(),
        "no work left for an outlined index"
    );
}

#[test]
fn the_server_parses_outlines_between_calls() {
    let t = repo();
    let mut s = Server::start(&t.base, &[("RUST_LOG", "info")]);
    s.initialize("2025-11-25");
    let first = s.call("search", json!({"repo": "repo", "query": "common step"}));
    assert!(first["result"]["isError"] != json!(true), "{first}");
    // No call is made: the worker does the work on its own.
    let started = Instant::now();
    let line = loop {
        let stderr = s.stderr();
        if let Some(line) = stderr
            .lines()
            .find(|l| l.contains("idle: outlines of 36 files ready"))
        {
            break line.to_string();
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no idle work logged: {stderr}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let parsed_idle: u64 = line
        .split(", ")
        .nth(1)
        .and_then(|p| p.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count in {line}"));
    let after_first = mcp_client::cache_stat(&s.stderr(), "outlines_built");
    assert_eq!(after_first + parsed_idle, 36, "{line}");
    // The next search with other words parses nothing more.
    let second = s.call("search", json!({"repo": "repo", "query": "alpha7 gamma2"}));
    assert!(second["result"]["isError"] != json!(true), "{second}");
    std::thread::sleep(Duration::from_millis(150));
    let stderr = s.stderr();
    assert_eq!(mcp_client::cache_stat(&stderr, "outlines_built"), 36);
    s.finish_ok();
}
