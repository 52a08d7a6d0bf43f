//! The warm cache's behaviour as its callers see it: what each store keeps and for how long,
//! one budget and one least-recently-used order across the stores, what lives and dies with a
//! file's entry, and the counters each store keeps.

use super::*;

fn key(ino: u64) -> FileKey {
    FileKey {
        dev: 1,
        ino,
        size: 10,
        mtime_ns: 5,
        ctime_ns: 5,
        max_file_size: 100,
        skip_hard_links: false,
    }
}

fn text(s: &str) -> ReadOutcome {
    Ok(Arc::new(Text::new(s.into(), s.len() as u64, false)))
}

#[test]
fn counts_are_remembered_by_exact_text() {
    let c = Cache::new(1 << 20);
    let n = c.count(Encoding::O200kBase, "hello world", || 2);
    assert_eq!(c.count(Encoding::O200kBase, "hello world", || 99), n);
    c.count(Encoding::O200kBase, "hello world!", || 3);
    c.count(Encoding::Cl100kBase, "hello world", || 2);
    let s = c.stats();
    assert_eq!((s.count_hits, s.count_misses), (1, 3));
}

#[test]
fn skeletons_are_kept_by_text_and_within_the_limit() {
    let c = Cache::new(8 * (ENTRY_OVERHEAD + 100));
    let id = skeleton_id(&"rust", "fn a() { 1 }");
    assert!(c.skeleton(id).is_none());
    c.put_skeleton(id, Some(Arc::from("fn a() { … }")));
    assert_eq!(c.skeleton(id), Some(Some(Arc::from("fn a() { … }"))));
    assert_ne!(skeleton_id(&"python", "fn a() { 1 }"), id);
    let none = skeleton_id(&"rust", "struct S;");
    c.put_skeleton(none, None);
    assert_eq!(c.skeleton(none), Some(None));
    for i in 0..50 {
        c.put_skeleton(
            skeleton_id(&"rust", &i.to_string()),
            Some(Arc::from("x".repeat(100))),
        );
    }
    assert!(c.stats().bytes <= 8 * (ENTRY_OVERHEAD + 100));
    let s = c.stats();
    assert_eq!((s.skeleton_hits, s.skeleton_misses), (2, 1));
}

#[test]
fn transient_outcomes_are_not_kept_and_lru_evicts() {
    let c = Cache::new(8 * (ENTRY_OVERHEAD + 100));
    c.put_file(key(1), &Err(SkipReason::Changed));
    assert!(c.file(&key(1)).is_none());
    for i in 0..50 {
        c.put_file(key(i), &text(&"x".repeat(100)));
        // Keep touching entry 0 so it stays recent.
        assert!(c.file(&key(0)).is_some(), "{i}");
    }
    assert!(c.file(&key(1)).is_none(), "old entries are evicted");
    assert!(c.stats().bytes <= 8 * (ENTRY_OVERHEAD + 100));
}

#[test]
fn persistent_entries_round_trip_and_tell_what_this_run_used() {
    let c = Cache::counts_only(1 << 20);
    c.put_file(key(1), &text("abc"));
    assert!(
        c.file(&key(1)).is_none(),
        "a counts-only cache keeps no text"
    );
    assert!(!c.keeps_files());
    let mark = c.import_persistent([
        Persistent::Count {
            encoding: Encoding::O200kBase,
            key: hash128("old"),
            tokens: 7,
        },
        Persistent::Count {
            encoding: Encoding::O200kBase,
            key: hash128("used"),
            tokens: 9,
        },
        Persistent::Skeleton {
            id: 42,
            skeleton: Some(Arc::from("fn a() { … }")),
        },
    ]);
    assert_eq!(
        c.count(Encoding::O200kBase, "used", || 99),
        9,
        "an imported count is a hit"
    );
    c.count(Encoding::Cl100kBase, "new", || 3);
    let mut out = c.export_persistent();
    out.sort_by_key(|(_, used)| *used);
    let used: Vec<bool> = out.iter().map(|(_, u)| *u > mark).collect();
    assert_eq!(used, [false, false, true, true]);
    assert!(
        out.iter()
            .any(|(e, _)| matches!(e, Persistent::Skeleton { id: 42, .. }))
    );
    assert!(out.iter().any(|(e, _)| *e
        == Persistent::Count {
            encoding: Encoding::Cl100kBase,
            key: hash128("new"),
            tokens: 3
        }));
}

/// A kind of derived item for these tests: its insertions show as `index_built`.
const WORDS: DerivedKind<Arc<str>> = DerivedKind::new("words", |c, s| {
    s.index_built += c.insertions;
    s.derived_hits += c.hits;
});

/// Another kind, of the same item type.
const LINES: DerivedKind<Arc<str>> = DerivedKind::new("lines", |c, s| s.derived_hits += c.hits);

fn piece() -> Piece {
    Piece {
        outcome: Ok(PieceInfo {
            redacted: false,
            tokens: 3,
            len: 10,
        }),
        findings: Vec::new(),
    }
}

#[test]
fn one_budget_and_one_lru_order_across_the_stores() {
    let limit = 8 * (ENTRY_OVERHEAD + 100);
    let c = Cache::new(limit);
    c.put_file(key(1), &text(&"x".repeat(100)));
    c.count(Encoding::O200kBase, "old", || 1);
    c.put_repo_item::<u32>(5, Arc::new(5), 100);
    for i in 0..30 {
        c.put_skeleton(i, Some(Arc::from("y".repeat(100))));
        assert!(c.file(&key(1)).is_some(), "kept by its use: {i}");
        assert!(c.stats().bytes <= limit, "{i}: {:?}", c.stats());
    }
    assert!(
        c.repo_item::<u32>(5).is_none(),
        "the least recently used go, whichever store holds them"
    );
    assert_eq!(
        c.count(Encoding::O200kBase, "old", || 2),
        2,
        "counted again"
    );
    assert!(c.skeleton(0).is_none());
    assert!(c.skeleton(29).is_some());
    let s = c.stats();
    assert_eq!(s.store("files").evictions, 0);
    assert_eq!(s.store("counts").evictions, 1);
    assert_eq!(s.store("repository items").evictions, 1);
    assert!(s.store("skeletons").evictions >= 20, "{s:?}");
    assert_eq!(
        s.bytes,
        (ENTRY_OVERHEAD + 100) * (s.entries - 1) + ENTRY_OVERHEAD,
        "the kept entries' bytes: the file's, the skeletons', the new count's ({s:?})"
    );
}

#[test]
fn a_files_pieces_and_derived_items_cost_its_entry_and_go_with_it() {
    let c = Cache::new(8 * (ENTRY_OVERHEAD + 100));
    c.put_file(key(1), &text(&"x".repeat(100)));
    let alone = c.stats().bytes;
    c.put_piece(&key(1), 7, "a.rs", piece());
    c.put_derived(&WORDS, &key(1), 7, "a.rs", Arc::from("w"), 10);
    let with = alone + piece_cost("a.rs", &piece()) + ENTRY_OVERHEAD + "a.rs".len() + 10;
    assert_eq!(c.stats().bytes, with);
    assert_eq!(c.stats().entries, 1, "they are not entries of their own");
    assert!(matches!(c.piece(&key(1), 7, "a.rs"), Some(Ok(_))));
    assert_eq!(c.derived(&WORDS, &key(1), 7, "a.rs").as_deref(), Some("w"));
    assert!(c.piece(&key(1), 8, "a.rs").is_none(), "other options");
    assert!(
        c.derived(&WORDS, &key(1), 7, "b.rs").is_none(),
        "another path"
    );

    // Nothing is kept on a file that is not.
    c.put_piece(&key(2), 7, "b.rs", piece());
    c.put_derived(&WORDS, &key(2), 7, "b.rs", Arc::from("w"), 10);
    assert_eq!(c.stats().bytes, with);

    // Evicted with their file: newer entries fill the budget, and the file is not used.
    for i in 0..20 {
        c.put_skeleton(i, Some(Arc::from("y".repeat(100))));
    }
    assert!(c.file(&key(1)).is_none(), "evicted");
    c.put_file(key(1), &text(&"x".repeat(100)));
    assert!(c.piece(&key(1), 7, "a.rs").is_none(), "gone with the entry");
    assert!(c.derived(&WORDS, &key(1), 7, "a.rs").is_none());

    // Replaced with their file.
    c.put_piece(&key(1), 7, "a.rs", piece());
    c.put_derived(&WORDS, &key(1), 7, "a.rs", Arc::from("w"), 10);
    c.put_file(key(1), &text(&"x".repeat(100)));
    assert!(
        c.piece(&key(1), 7, "a.rs").is_none(),
        "gone with the old entry"
    );
    assert!(c.derived(&WORDS, &key(1), 7, "a.rs").is_none());
}

#[test]
fn a_lookup_through_a_file_keeps_it_recent() {
    let c = Cache::new(8 * (ENTRY_OVERHEAD + 100));
    for ino in [1, 2] {
        c.put_file(key(ino), &text(&"x".repeat(100)));
        c.put_piece(&key(ino), 7, "a.rs", piece());
        c.put_derived(&WORDS, &key(ino), 7, "a.rs", Arc::from("w"), 0);
    }
    for i in 0..20 {
        c.put_skeleton(i, Some(Arc::from("y".repeat(100))));
        assert!(c.piece(&key(1), 7, "a.rs").is_some(), "{i}");
        assert!(c.derived(&WORDS, &key(2), 7, "a.rs").is_some(), "{i}");
    }
    assert!(c.file(&key(1)).is_some() && c.file(&key(2)).is_some());
}

#[test]
fn derived_items_are_typed_by_kind_and_share_one_cap_per_file() {
    let c = Cache::new(1 << 20);
    c.put_file(key(1), &text("abc"));
    c.put_derived(&LINES, &key(1), 0, "a", Arc::from("line"), 0);
    for context in 0..MAX_DERIVED as u128 - 1 {
        c.put_derived(&WORDS, &key(1), context, "a", Arc::from("word"), 0);
    }
    assert_eq!(c.derived(&LINES, &key(1), 0, "a").as_deref(), Some("line"));
    assert_eq!(c.derived(&WORDS, &key(1), 0, "a").as_deref(), Some("word"));
    let full = c.stats().bytes;
    // Replacing an item keeps the count (and the cost); one more drops the oldest, of any kind.
    c.put_derived(&WORDS, &key(1), 0, "a", Arc::from("word"), 0);
    assert_eq!(c.stats().bytes, full);
    assert!(c.derived(&LINES, &key(1), 0, "a").is_some());
    c.put_derived(&WORDS, &key(1), 99, "a", Arc::from("word"), 0);
    assert!(
        c.derived(&LINES, &key(1), 0, "a").is_none(),
        "the oldest went"
    );
    assert_eq!(c.stats().bytes, full, "one in, one out");
    let s = c.stats();
    assert_eq!(s.store("lines").evictions, 1, "counted as its own kind's");
    assert_eq!(s.store("words").evictions, 0);

    // Repository items of two types under one key are two items.
    c.put_repo_item::<u32>(1, Arc::new(7), 0);
    c.put_repo_item::<String>(1, Arc::new("seven".into()), 0);
    assert_eq!(c.repo_item::<u32>(1).as_deref(), Some(&7));
    c.remove_repo_item::<u32>(1);
    assert!(c.repo_item::<u32>(1).is_none());
    assert_eq!(
        c.repo_item::<String>(1).as_deref().map(String::as_str),
        Some("seven")
    );
}

#[test]
fn each_store_keeps_its_own_counters_and_the_stats_are_made_of_them() {
    let c = Cache::new(1 << 20);
    assert!(c.file(&key(1)).is_none());
    c.put_file(key(1), &text("abc"));
    assert!(c.file(&key(1)).is_some());
    assert!(c.piece(&key(1), 1, "a").is_none());
    c.put_piece(&key(1), 1, "a", piece());
    assert!(
        c.piece(&key(1), 1, "a").is_some(),
        "a hit of the piece and of its file"
    );
    assert!(c.derived(&WORDS, &key(1), 1, "a").is_none());
    c.put_derived(&WORDS, &key(1), 1, "a", Arc::from("w"), 0);
    c.put_derived(&WORDS, &key(9), 1, "a", Arc::from("w"), 0);
    assert!(c.derived(&WORDS, &key(1), 1, "a").is_some());
    c.put_derived(&LINES, &key(1), 1, "a", Arc::from("l"), 0);
    assert!(c.repo_item::<u32>(3).is_none());
    c.put_repo_item::<u32>(3, Arc::new(3), 0);
    assert!(c.repo_item::<u32>(3).is_some());

    let s = c.stats();
    let names: Vec<&str> = s.stores.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "files",
            "counts",
            "skeletons",
            "repository items",
            "pieces",
            "words",
            "lines"
        ]
    );
    let counted = |hits, misses, insertions| Counters {
        hits,
        misses,
        insertions,
        evictions: 0,
    };
    assert_eq!(s.store("files"), counted(2, 1, 1));
    assert_eq!(s.store("pieces"), counted(1, 1, 1));
    assert_eq!(
        s.store("words"),
        counted(1, 1, 2),
        "offered twice, kept once"
    );
    assert_eq!(s.store("lines"), counted(0, 0, 1));
    assert_eq!(s.store("repository items"), counted(1, 1, 1));
    assert_eq!((s.file_hits, s.file_misses), (2, 1));
    assert_eq!((s.piece_hits, s.piece_misses), (1, 1));
    assert_eq!((s.index_built, s.derived_hits, s.repo_hits), (2, 1, 1));
    assert_eq!(s.entries, 2);
}
