//! Fuzz every way a glob reaches gnaw: `include`/`exclude` (the filter), the secrets allow list
//! (`secrets.allow_paths`) and ignore-file lines (`.gitignore`, `.ignore`), each input line
//! being one pattern. Nothing may panic or overflow the stack, and the limits of
//! `gnaw::limits` must be the only thing standing between a pattern and globset: every pattern
//! they accept is compiled here on a thread with a 256 KiB stack, an eighth of the smallest
//! stack gnaw runs globs on, so a pattern that slipped past the nesting check (globset needs
//! roughly 300 to 500 bytes of stack a level) would crash this target.
//!
//! The first byte picks the source; the rest is the text, one pattern a line.

use gnaw::filter::Filter;
use gnaw::limits::{check_glob, check_globs};
use gnaw::scan::Allow;
use gnaw::source::{WalkOptions, walk};
use gnaw_sandbox::Root;
use std::sync::Arc;

/// Paths to match each compiled set against.
const PATHS: &[&[u8]] = &[
    b"a",
    b"src/main.rs",
    b"a/b/c/d.txt",
    b"{a,b}/[x]",
    b".hidden/x",
];

fn on_small_stack(f: impl FnOnce() + Send) {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn_scoped(s, f)
            .expect("spawn")
            .join()
            .expect("no panic");
    });
}

pub fn check(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    match which % 3 {
        // include / exclude: refused as a whole when any pattern is past a limit.
        0 => on_small_stack(|| {
            let (inc, exc) = lines.split_at(lines.len() / 2);
            match Filter::new(inc, exc) {
                Ok(f) => {
                    assert!(check_globs(inc).is_ok() && check_globs(exc).is_ok());
                    for p in PATHS {
                        let _ = (f.keeps(p), f.prunes_dir(p));
                    }
                }
                Err(e) => assert_eq!(e.kind(), "InvalidGlob", "{e}"),
            }
        }),
        // The allow list drops a pattern past a limit (the driver reports it first).
        1 => on_small_stack(|| {
            if let Ok(allow) = Allow::new(&lines, Vec::<String>::new()) {
                let _ = allow.allows_path("src/main.rs");
            }
        }),
        // Ignore-file lines, through the real walk of a one-file repo: a line past a limit is
        // skipped and reported, the others are honoured.
        _ => {
            let dir = tempfile::tempdir().expect("tempdir");
            std::fs::write(dir.path().join(".gitignore"), rest).expect("write");
            std::fs::write(dir.path().join("a.txt"), "a").expect("write");
            let root = Root::new(dir.path(), false).expect("root");
            let beneath = root.as_dir().open().expect("open");
            let filter = Arc::new(Filter::new(&[], &[]).expect("filter"));
            on_small_stack(|| {
                let sourced = walk(
                    &beneath,
                    &WalkOptions {
                        max_depth: 4,
                        ..WalkOptions::whole(&filter, 1)
                    },
                )
                .expect("no fd exhaustion here");
                let bad = lines
                    .iter()
                    .any(|l| !l.starts_with('#') && !l.trim().is_empty() && check_glob(l).is_err());
                if bad {
                    assert!(
                        sourced.skipped.iter().any(|s| s.path == ".gitignore"),
                        "a line past a limit was not reported"
                    );
                }
            });
        }
    }
}
