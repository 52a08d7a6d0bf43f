//! The crate's shape, checked on every test run: every module of `src/` and `sandbox/src/` has a
//! layer, a module uses only modules of its own layer or below, and no module-level import
//! cycle exists in either crate (a parent re-exporting its children does not count). Also:
//! `unsafe` appears nowhere outside `sandbox/`, paths inside the crate are canonical (no
//! `crate::count` for `crate::stages::count`), so the check sees every edge, and no source file
//! of either crate is over [`MAX_FILE_LINES`] lines.
//!
//! Run alone: `cargo test --test layers`.

#![allow(clippy::disallowed_methods)] // reads the sources with std::fs

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Layer of each top-level module of `gnaw` (see the table in `src/lib.rs`).
const GNAW_LAYERS: &[(&str, u8)] = &[
    ("vocab", 0),
    ("error", 0),
    ("bounded", 0),
    ("limits", 0),
    ("par", 0),
    ("gnawconfig", 1),
    ("cache", 1),
    ("spec", 1),
    ("stages", 2),
    ("driver", 3),
    ("cli", 4),
    ("mcp", 4),
];

/// The most lines a file of `src/` or `sandbox/src/` holds: a longer one holds more than one
/// job, and is split by job.
const MAX_FILE_LINES: usize = 1_000;

type Module = Vec<String>;

/// Every module of a crate's source folder (`bin/` excluded): its path and its file.
fn modules(src: &Path) -> BTreeMap<Module, PathBuf> {
    fn walk(dir: &Path, src: &Path, out: &mut BTreeMap<Module, PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if path.file_name().unwrap() != "bin" {
                    walk(&path, src, out);
                }
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap().with_extension("");
            let mut parts: Module = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
                parts.pop();
            }
            out.insert(parts, path);
        }
    }
    let mut out = BTreeMap::new();
    walk(src, src, &mut out);
    out
}

/// The code without comments and string literals (doc links and messages are not imports).
fn code_of(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i += 2;
            while i < b.len() && !b[i..].starts_with(b"*/") {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || b[i + 1] == b'\\') {
            // a char literal such as '"' or '\n' (lifetimes have no closing quote)
            let end = b[i + 1..]
                .iter()
                .position(|&c| c == b'\'')
                .map_or(b.len(), |p| i + 2 + p);
            i = end;
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

/// Every `crate::a::b`, `super::x` and `self::x` path in the code, expanded against `use`
/// groups crudely: each path-like token counts on its own.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for start in ["crate::", "super::", "self::"] {
        let mut from = 0;
        while let Some(pos) = code[from..].find(start) {
            let at = from + pos;
            from = at + start.len();
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            if at > 1 && &code[at - 2..at] == "::" {
                continue;
            }
            let end = code[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                .map_or(code.len(), |e| at + e);
            let segs: Vec<String> = code[at..end]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            out.push(segs);
        }
    }
    out
}

/// Module edges of a crate: `from` uses `to`.
fn edges(mods: &BTreeMap<Module, PathBuf>) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (m, file) in mods {
        let text = fs::read_to_string(file).unwrap();
        let is_dir_mod = file.ends_with("mod.rs") || file.ends_with("lib.rs");
        let here: Module = if is_dir_mod {
            m.clone()
        } else {
            m[..m.len() - 1].to_vec()
        };
        let set = edges.entry(m.clone()).or_default();
        for segs in paths_in(&code_of(&text)) {
            let (mut base, mut rest) = match segs[0].as_str() {
                "crate" => (Vec::new(), segs[1..].to_vec()),
                "self" => (m.clone(), segs[1..].to_vec()),
                _ => (here.clone(), segs.clone()),
            };
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest.remove(0);
            }
            let mut full = base;
            full.extend(rest);
            // the longest module prefix
            let target = (1..=full.len())
                .rev()
                .map(|n| full[..n].to_vec())
                .find(|p| mods.contains_key(p));
            if let Some(t) = target
                && t != *m
                && !(m.starts_with(&t))
            {
                set.insert(t);
            }
        }
    }
    edges
}

/// Strongly connected components with more than one module that are not just a parent and its
/// children.
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    // Tarjan, iteratively deep enough for these small graphs.
    struct T<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        on: BTreeSet<Module>,
        next: usize,
        out: Vec<Vec<Module>>,
    }
    impl T<'_> {
        fn visit(&mut self, v: &Module) {
            self.index.insert(v.clone(), self.next);
            self.low.insert(v.clone(), self.next);
            self.next += 1;
            self.stack.push(v.clone());
            self.on.insert(v.clone());
            let ws: Vec<Module> = self.edges.get(v).into_iter().flatten().cloned().collect();
            for w in ws {
                if !self.index.contains_key(&w) {
                    self.visit(&w);
                    let l = self.low[v].min(self.low[&w]);
                    self.low.insert(v.clone(), l);
                } else if self.on.contains(&w) {
                    let l = self.low[v].min(self.index[&w]);
                    self.low.insert(v.clone(), l);
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = Vec::new();
                loop {
                    let w = self.stack.pop().unwrap();
                    self.on.remove(&w);
                    let done = w == *v;
                    comp.push(w);
                    if done {
                        break;
                    }
                }
                if comp.len() > 1 {
                    self.out.push(comp);
                }
            }
        }
    }
    let mut t = T {
        edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.out
        .into_iter()
        .filter(|comp| {
            let not_parent: Vec<&Module> = comp
                .iter()
                .filter(|x| !comp.iter().any(|y| y != *x && y.starts_with(x)))
                .collect();
            not_parent.len() > 1
        })
        .collect()
}

fn show(m: &Module) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn no_module_import_cycle_in_either_crate() {
    for src in ["src", "sandbox/src"] {
        let mods = modules(&root().join(src));
        assert!(mods.len() > 3, "{src}: found only {} modules", mods.len());
        let found = cycles(&edges(&mods));
        let shown: Vec<String> = found
            .iter()
            .map(|c| c.iter().map(show).collect::<Vec<_>>().join(", "))
            .collect();
        assert!(shown.is_empty(), "{src}: import cycles: {shown:#?}");
    }
}

#[test]
fn nothing_imports_upward() {
    let mods = modules(&root().join("src"));
    let layer = |m: &Module| -> Option<u8> {
        let top = m.first()?;
        GNAW_LAYERS
            .iter()
            .find(|(name, _)| name == top)
            .map(|&(_, l)| l)
    };
    for m in mods.keys().filter(|m| !m.is_empty()) {
        assert!(
            layer(m).is_some(),
            "module {} has no layer: add it to GNAW_LAYERS and to the table in src/lib.rs",
            show(m)
        );
    }
    let mut upward = Vec::new();
    for (from, tos) in edges(&mods) {
        let Some(lf) = layer(&from) else { continue };
        for to in tos {
            if let Some(lt) = layer(&to)
                && lt > lf
            {
                upward.push(format!(
                    "{} (layer {lf}) uses {} (layer {lt})",
                    show(&from),
                    show(&to)
                ));
            }
        }
    }
    assert!(upward.is_empty(), "imports upward: {upward:#?}");
}

#[test]
fn paths_inside_the_crate_are_canonical() {
    // `crate::X` must name a real top-level module (or an item of lib.rs), so that the checks
    // above see the real edge instead of a re-export.
    let mods = modules(&root().join("src"));
    let tops: BTreeSet<&str> = mods
        .keys()
        .filter_map(|m| m.first().map(String::as_str))
        .collect();
    let mut bad = Vec::new();
    for (m, file) in &mods {
        for segs in paths_in(&code_of(&fs::read_to_string(file).unwrap())) {
            if segs[0] == "crate"
                && let Some(first) = segs.get(1)
                && first.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && !tops.contains(first.as_str())
            {
                bad.push(format!("{}: {}", show(m), segs.join("::")));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "re-exported paths used inside the crate: {bad:#?}"
    );
}

#[test]
fn the_layer_check_sees_a_cycle_and_an_upward_import() {
    // The checks themselves, on a made-up crate: they must not pass vacuously.
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    fs::create_dir_all(src.join("stages")).unwrap();
    fs::write(src.join("lib.rs"), "pub mod vocab; pub mod stages;").unwrap();
    fs::write(src.join("vocab.rs"), "use crate::stages::read::X;").unwrap();
    fs::write(src.join("stages/mod.rs"), "pub mod read;").unwrap();
    fs::write(
        src.join("stages/read.rs"),
        "use crate::vocab::Y; // crate::nothing\nfn f() { let s = \"crate::bogus\"; }",
    )
    .unwrap();
    let mods = modules(src);
    let e = edges(&mods);
    assert_eq!(cycles(&e).len(), 1, "{e:?}");
    let read = vec!["stages".to_string(), "read".to_string()];
    assert_eq!(
        e[&read].len(),
        1,
        "comments and strings are not edges: {e:?}"
    );
}

#[test]
fn unsafe_only_in_the_sandbox_crate() {
    // The compiler enforces it too (`#![forbid(unsafe_code)]` in src/lib.rs and in each
    // binary); this names any file that tries.
    let mut files = Vec::new();
    fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                collect(&p, out);
            } else if p.extension().is_some_and(|e| e == "rs") {
                out.push(p);
            }
        }
    }
    collect(&root().join("src"), &mut files);
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| {
            let code = code_of(&fs::read_to_string(f).unwrap());
            code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| w == "unsafe")
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "unsafe outside sandbox/: {offenders:?}"
    );
    let lib = fs::read_to_string(root().join("src/lib.rs")).unwrap();
    assert!(lib.contains("#![forbid(unsafe_code)]"));
}

#[test]
fn no_source_file_is_over_the_line_bound() {
    let mut over = Vec::new();
    for src in ["src", "sandbox/src"] {
        let dir = root().join(src);
        for file in modules(&dir).values().chain(
            fs::read_dir(dir.join("bin"))
                .into_iter()
                .flatten()
                .map(|e| e.unwrap().path())
                .collect::<Vec<_>>()
                .iter(),
        ) {
            let lines = fs::read_to_string(file).unwrap().lines().count();
            if lines > MAX_FILE_LINES {
                over.push(format!("{} ({lines} lines)", file.display()));
            }
        }
    }
    assert!(
        over.is_empty(),
        "split these by job (at most {MAX_FILE_LINES} lines a file): {over:#?}"
    );
}
