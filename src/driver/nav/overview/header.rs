//! The header's facts, whatever the call asks: languages by share of the text, where tests and
//! docs live, the entry points the manifests declare; kept beside the index with each outlined
//! file's definitions as the map shows them.

use super::order::definitions;
use super::{Definition, EntryPoint, Header, MAX_MANIFESTS, Place, Share};
use crate::driver::nav::repo_index::{Centrality, IndexedFile, Outlines};
use crate::par::lock;
use crate::stages::manifest;
use crate::stages::rank::graph::name_term;
use crate::stages::rank::{Class, class_of};
use crate::stages::syntax::Language;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};

/// What `overview` knows of `files` whatever the call asks: each file's class, the header but
/// for what depends on the ranking, the declared entry points.
pub(super) fn facts_of(files: &[IndexedFile]) -> Facts {
    let classes: Vec<Class> = files.iter().map(|f| class_of(&f.path)).collect();
    let mut languages: HashMap<String, (usize, usize)> = HashMap::new();
    let mut tests: Vec<String> = Vec::new();
    let mut docs: Vec<String> = Vec::new();
    let mut text_bytes = 0;
    for (f, class) in files.iter().zip(&classes) {
        let bytes = f.body.text.len();
        text_bytes += bytes;
        let one = languages.entry(language_of(&f.path)).or_default();
        one.0 += 1;
        one.1 += bytes;
        match class {
            Class::Test => tests.push(place_of(&f.path, is_test_dir)),
            Class::Docs => docs.push(place_of(&f.path, |d| {
                matches!(d, "docs" | "doc" | "documentation")
            })),
            _ => {}
        }
    }
    let mut languages: Vec<Share> = languages
        .into_iter()
        .map(|(language, (files, bytes))| Share {
            language,
            files,
            bytes,
        })
        .collect();
    languages.sort_by(|a, b| b.bytes.cmp(&a.bytes).then(a.language.cmp(&b.language)));
    let header = Header {
        files: files.len(),
        text_bytes,
        not_searched: BTreeMap::new(),
        languages,
        test_files: tests.len(),
        tests: places(tests),
        doc_files: docs.len(),
        docs: places(docs),
        entry_points: Vec::new(),
        links: 0,
        links_cut: 0,
        around: Vec::new(),
    };
    let entry_points = entry_points(files, &classes);
    Facts {
        classes,
        header,
        entry_points,
        definitions: Mutex::new(HashMap::new()),
    }
}

/// What `overview` knows of a repository whatever the call asks (kept beside its index).
pub(super) struct Facts {
    /// Each file's class.
    pub(super) classes: Vec<Class>,
    /// The header but what depends on the ranking (its entry points are in `entry_points`).
    pub(super) header: Header,
    /// The declared entry points, each at its file (programs weighed, libraries not yet).
    pub(super) entry_points: Vec<(usize, EntryPoint)>,
    /// Each outlined file's definitions as the map shows them, by its position in the index
    /// (at most [`MAX_KEPT_DEFINITIONS`] files).
    pub(super) definitions: Mutex<HashMap<usize, Arc<Vec<Definition>>>>,
}

/// The most files whose definitions the kept facts hold, and what each is reckoned to take.
pub(super) const MAX_KEPT_DEFINITIONS: usize = 2048;
pub(super) const KEPT_DEFINITIONS_BYTES: usize = 1024;

impl Facts {
    /// The definitions of file `i` as the map shows them: kept ones, else made from its
    /// outline (and kept when it has one; at most [`MAX_KEPT_DEFINITIONS`] files).
    pub(super) fn definitions(
        &self,
        i: usize,
        outlines: &Outlines<'_>,
        central: &Centrality,
    ) -> Arc<Vec<Definition>> {
        if let Some(found) = lock(&self.definitions).get(&i) {
            return Arc::clone(found);
        }
        let symbols = outlines.get(i);
        let made = Arc::new(definitions(symbols.as_deref(), central));
        let mut kept = lock(&self.definitions);
        if symbols.is_some() && kept.len() < MAX_KEPT_DEFINITIONS {
            kept.insert(i, Arc::clone(&made));
        }
        made
    }

    /// About what it takes in memory, in bytes (its definitions reckoned full).
    pub(super) fn bytes(&self) -> usize {
        let strings = |v: &[Place]| v.iter().map(|p| p.path.len() + 32).sum::<usize>();
        self.classes.len()
            + self.classes.len().min(MAX_KEPT_DEFINITIONS) * KEPT_DEFINITIONS_BYTES
            + strings(&self.header.tests)
            + strings(&self.header.docs)
            + self.header.languages.len() * 64
            + self
                .entry_points
                .iter()
                .map(|(_, e)| e.path.len() + e.role.len() + e.manifest.len() + 64)
                .sum::<usize>()
    }

    /// The header of a call ranking the files by `scores`: the entry points ordered (programs
    /// by their package's share of the code, library roots by their scores).
    pub(super) fn header(&self, central: &Centrality, scores: &[f64]) -> Header {
        let mut entry_points: Vec<EntryPoint> = self
            .entry_points
            .iter()
            .map(|(i, e)| EntryPoint {
                weight: if e.program { e.weight } else { scores[*i] },
                ..e.clone()
            })
            .collect();
        entry_points.sort_by(|a, b| {
            b.program
                .cmp(&a.program)
                .then(b.weight.total_cmp(&a.weight))
                .then(a.path.cmp(&b.path))
        });
        Header {
            entry_points,
            links: central.graph.link_count(),
            links_cut: central.graph.bounds().files,
            ..self.header.clone()
        }
    }
}

/// A file's language: its grammar's name, else its extension, else `other`.
pub(super) fn language_of(path: &str) -> String {
    if let Some(l) = Language::detect(path.as_bytes()) {
        return l.as_str().to_string();
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    match name.rsplit_once('.') {
        Some((stem, ext))
            if !stem.is_empty() && ext.len() <= 8 && ext.chars().all(char::is_alphanumeric) =>
        {
            ext.to_ascii_lowercase()
        }
        _ => "other".into(),
    }
}

/// A directory whose name says it holds tests.
pub(super) fn is_test_dir(d: &str) -> bool {
    matches!(d, "tests" | "test" | "__tests__" | "spec" | "specs" | "t")
        || ["_test", "_tests", ".test", ".tests", "-test", "-tests"]
            .iter()
            .any(|s| d.ends_with(s))
}

/// Where a file lives, as the header groups it: its path up to the first directory `marks`
/// names (lowercased), else its directory (`.` at the top).
pub(super) fn place_of(path: &str, marks: impl Fn(&str) -> bool) -> String {
    let dirs: Vec<&str> = path.split('/').collect();
    let dirs = &dirs[..dirs.len() - 1];
    let upto = dirs
        .iter()
        .position(|d| marks(&d.to_ascii_lowercase()))
        .map_or(dirs.len(), |i| i + 1);
    match upto {
        0 => ".".into(),
        n => dirs[..n].join("/"),
    }
}

/// The places of some files (one entry a file), most files first: places alike but for their
/// second directory (`crates/hir/tests`, `crates/ide/tests`) are one (`crates/*/tests`).
pub(super) fn places(each: Vec<String>) -> Vec<Place> {
    let mut by: BTreeMap<String, usize> = BTreeMap::new();
    for p in each {
        *by.entry(p).or_default() += 1;
    }
    let shape = |p: &str| -> Option<String> {
        let parts: Vec<&str> = p.split('/').collect();
        (parts.len() >= 3).then(|| {
            let mut s = parts.clone();
            s[1] = "*";
            s.join("/")
        })
    };
    let mut alike: HashMap<String, usize> = HashMap::new();
    for p in by.keys() {
        if let Some(s) = shape(p) {
            *alike.entry(s).or_default() += 1;
        }
    }
    let mut grouped: BTreeMap<String, usize> = BTreeMap::new();
    for (p, n) in by {
        let key = match shape(&p) {
            Some(s) if alike[&s] > 1 => s,
            _ => p,
        };
        *grouped.entry(key).or_default() += n;
    }
    let mut out: Vec<Place> = grouped
        .into_iter()
        .map(|(path, files)| Place { path, files })
        .collect();
    out.sort_by(|a, b| b.files.cmp(&a.files).then(a.path.cmp(&b.path)));
    out
}

/// The entry points the manifests among `files` (of `classes`) declare, and Go's `main`
/// packages, each at its file; a program weighed by its package's share of the code.
pub(super) fn entry_points(files: &[IndexedFile], classes: &[Class]) -> Vec<(usize, EntryPoint)> {
    let at: BTreeMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect();
    let mut found: Vec<(usize, EntryPoint)> = Vec::new();
    let mut seen: HashSet<usize> = HashSet::new();
    let mut push = |i: usize, role: String, manifest: &str, program: bool| {
        if seen.insert(i) {
            found.push((
                i,
                EntryPoint {
                    path: files[i].path.clone(),
                    role,
                    manifest: manifest.to_string(),
                    program,
                    weight: 0.0,
                },
            ));
        }
    };
    let manifests = files
        .iter()
        .zip(classes)
        .filter(|(f, c)| manifest::is_manifest(&f.path) && **c != Class::Generated)
        .map(|(f, _)| f)
        .take(MAX_MANIFESTS);
    for f in manifests {
        for d in manifest::declared(&f.path, &f.body.text) {
            for p in &d.paths {
                if let Some(dir) = p.strip_suffix('/') {
                    // Every code file directly in `dir`.
                    let inside = at
                        .range(p.as_str()..)
                        .take_while(|(q, _)| q.starts_with(p.as_str()))
                        .filter(|(q, _)| !q[dir.len() + 1..].contains('/'))
                        .filter(|(q, _)| Language::detect(q.as_bytes()).is_some());
                    for (_, &i) in inside {
                        push(i, d.role.clone(), &f.path, d.program);
                    }
                } else if let Some(&i) = at.get(p.as_str()) {
                    push(i, d.role.clone(), &f.path, d.program);
                    break;
                }
            }
        }
    }
    // Go: a `main` package's file defining `main`.
    let main = name_term("main");
    for (i, f) in files.iter().enumerate() {
        if f.path.ends_with(".go")
            && main.is_some_and(|h| f.index.defines_term(h))
            && (f.body.text.starts_with("package main") || f.body.text.contains("\npackage main"))
        {
            push(i, "main package".into(), "", true);
        }
    }
    // A program weighs its package's share of the code (what it runs: the source files under
    // its manifest's directory, its own directory's for Go).
    let code = |k: usize| matches!(classes[k], Class::Source | Class::EntryPoint);
    let total = (0..files.len())
        .filter(|&k| code(k))
        .map(|k| files[k].body.text.len())
        .sum::<usize>()
        .max(1) as f64;
    let mut mass: HashMap<String, f64> = HashMap::new();
    for (_, e) in found.iter_mut().filter(|(_, e)| e.program) {
        let from = if e.manifest.is_empty() {
            &e.path
        } else {
            &e.manifest
        };
        let dir = from.rsplit_once('/').map_or("", |(d, _)| d);
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        e.weight = *mass.entry(prefix.clone()).or_insert_with(|| {
            let bytes: usize = at
                .range(prefix.as_str()..)
                .take_while(|(p, _)| p.starts_with(prefix.as_str()))
                .filter(|(_, k)| code(**k))
                .map(|(_, &k)| files[k].body.text.len())
                .sum();
            bytes as f64 / total
        });
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn places_group_alike_directories() {
        let each = [
            "crates/hir/tests",
            "crates/hir/tests",
            "crates/ide/tests",
            "tests",
            "src/a_tests",
        ]
        .map(String::from)
        .to_vec();
        let p = places(each);
        assert_eq!(
            p,
            [
                Place {
                    path: "crates/*/tests".into(),
                    files: 3
                },
                Place {
                    path: "src/a_tests".into(),
                    files: 1
                },
                Place {
                    path: "tests".into(),
                    files: 1
                },
            ]
        );
        assert_eq!(
            place_of("crates/hir/tests/a/b.rs", is_test_dir),
            "crates/hir/tests"
        );
        assert_eq!(place_of("src/x_test.go", is_test_dir), "src");
        assert_eq!(place_of("x_test.go", is_test_dir), ".");
    }

    #[test]
    fn languages_are_named_by_grammar_or_extension() {
        assert_eq!(language_of("src/a.rs"), "rust");
        assert_eq!(language_of("docs/A.MD"), "md");
        assert_eq!(language_of("Makefile"), "other");
        assert_eq!(language_of(".gitignore"), "other");
    }
}
