//! What a package manifest declares as its entry points: the programs it builds and the roots of
//! the libraries it exports, as paths inside the repository, read from the manifest's text alone
//! (`overview`'s header, and the files its map puts first).
//!
//! - `Cargo.toml`: each `[[bin]]` (its `path`, else `src/bin/NAME.rs`), `[lib]`'s `path`, and
//!   the files Cargo finds without being told: `src/main.rs`, `src/lib.rs`, every file in
//!   `src/bin/`.
//! - `package.json`: `bin` (a path, or one per command), `main`, `module` and the paths of
//!   `exports`; a built path (`lib/`, `dist/`, `build/`) may stand for its source under `src/`
//!   (`./lib/index.js` for `src/index.ts`), which is looked for after it.
//! - `pyproject.toml`: `[project.scripts]` and `[tool.poetry.scripts]`, each `pkg.mod:func`
//!   looked for as `pkg/mod.py` or `pkg/mod/__init__.py`, at the top or under `src/`.
//!
//! Go's programs (`package main` with a `func main`) are found from their own text by the
//! caller. Nothing here touches the file system: every declared path comes with the places it
//! may be, best first, and the caller keeps the first it has. A manifest that does not parse
//! declares nothing; a declared path that leaves the manifest's directory is ignored.

use crate::vocab::display_path;
use serde_json::Value as Json;

/// The most entry points one manifest declares (the rest are ignored).
pub const MAX_DECLARED: usize = 64;
/// The longest role an answer shows, in characters (a name past it is cut, marked `…`).
pub const MAX_ROLE_CHARS: usize = 80;
/// How deep `exports` is read.
const MAX_EXPORTS_DEPTH: usize = 4;

/// One entry point a manifest declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    /// What declares it, as an answer says it: `bin rust-analyzer`, `lib`, `main`, `exports`,
    /// `script serve`. The names in it are the manifest's (the repository's) text, so it is
    /// escaped as a name is ([`display_path`]) and at most [`MAX_ROLE_CHARS`] long.
    pub role: String,
    /// Where it may be, repo-relative, best first: the first the repository has is it. A
    /// path ending in `/` stands for every file directly in that directory.
    pub paths: Vec<String>,
    /// A program (a binary, a command, a script), rather than a library's root.
    pub program: bool,
}

/// Whether the file at `path` is a manifest [`declared`] reads.
pub fn is_manifest(path: &str) -> bool {
    matches!(
        path.rsplit('/').next(),
        Some("Cargo.toml" | "package.json" | "pyproject.toml")
    )
}

/// The entry points the manifest at `path` (repo-relative) with the text `text` declares, at
/// most [`MAX_DECLARED`].
pub fn declared(path: &str, text: &str) -> Vec<Declared> {
    let dir = match path.rsplit_once('/') {
        Some((dir, _)) => format!("{dir}/"),
        None => String::new(),
    };
    let mut out = match path.rsplit('/').next() {
        Some("Cargo.toml") => cargo(&dir, text),
        Some("package.json") => package_json(&dir, text),
        Some("pyproject.toml") => pyproject(&dir, text),
        _ => Vec::new(),
    };
    out.retain(|d| !d.paths.is_empty());
    out.truncate(MAX_DECLARED);
    for d in &mut out {
        d.role = shown_role(&d.role);
    }
    out
}

/// A role as an answer may show it: invisible and control characters escaped, cut to
/// [`MAX_ROLE_CHARS`].
fn shown_role(role: &str) -> String {
    let mut shown = display_path(role.as_bytes());
    if let Some((at, _)) = shown.char_indices().nth(MAX_ROLE_CHARS) {
        shown.truncate(at);
        shown.push('…');
    }
    shown
}

/// `rel` (as a manifest writes it, relative to its directory) under `dir`, normalized; `None`
/// when it leaves the directory or is absolute.
fn under(dir: &str, rel: &str) -> Option<String> {
    if rel.starts_with('/') || rel.contains('\\') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => return None,
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| format!("{dir}{}", parts.join("/")))
}

fn cargo(dir: &str, text: &str) -> Vec<Declared> {
    let Ok(doc) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let name = doc
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str());
    let mut out = Vec::new();
    for bin in doc
        .get("bin")
        .and_then(|b| b.as_array())
        .into_iter()
        .flatten()
    {
        let bin_name = bin.get("name").and_then(|n| n.as_str());
        let paths = match (bin.get("path").and_then(|p| p.as_str()), bin_name) {
            (Some(p), _) => under(dir, p).into_iter().collect(),
            (None, Some(n)) => [format!("src/bin/{n}.rs"), format!("src/bin/{n}/main.rs")]
                .iter()
                .filter_map(|p| under(dir, p))
                .collect(),
            (None, None) => Vec::new(),
        };
        out.push(Declared {
            role: format!("bin {}", bin_name.or(name).unwrap_or(""))
                .trim()
                .to_string(),
            paths,
            program: true,
        });
    }
    if doc.get("package").is_some() {
        let lib = doc
            .get("lib")
            .and_then(|l| l.get("path"))
            .and_then(|p| p.as_str())
            .unwrap_or("src/lib.rs");
        out.push(Declared {
            role: "lib".into(),
            paths: under(dir, lib).into_iter().collect(),
            program: false,
        });
        let autobins = doc
            .get("package")
            .and_then(|p| p.get("autobins"))
            .and_then(|a| a.as_bool());
        if autobins != Some(false) {
            out.push(Declared {
                role: format!("bin {}", name.unwrap_or("")).trim().to_string(),
                paths: under(dir, "src/main.rs").into_iter().collect(),
                program: true,
            });
            out.push(Declared {
                role: "bin".into(),
                paths: vec![format!("{dir}src/bin/")],
                program: true,
            });
        }
    }
    out
}

fn package_json(dir: &str, text: &str) -> Vec<Declared> {
    let Ok(doc) = serde_json::from_str::<Json>(text) else {
        return Vec::new();
    };
    let name = doc.get("name").and_then(Json::as_str).unwrap_or("");
    let mut out = Vec::new();
    let mut push = |role: String, rel: &str, program: bool| {
        if let Some(p) = under(dir, rel) {
            out.push(Declared {
                role,
                paths: with_source(&p),
                program,
            });
        }
    };
    match doc.get("bin") {
        Some(Json::String(p)) => push(format!("bin {name}").trim().to_string(), p, true),
        Some(Json::Object(bins)) => {
            for (command, p) in bins {
                if let Some(p) = p.as_str() {
                    push(format!("bin {command}"), p, true);
                }
            }
        }
        _ => {}
    }
    for key in ["main", "module"] {
        if let Some(p) = doc.get(key).and_then(Json::as_str) {
            push(key.to_string(), p, false);
        }
    }
    let mut exported = Vec::new();
    if let Some(e) = doc.get("exports") {
        exports(e, 0, &mut exported);
    }
    for p in exported {
        push("exports".into(), &p, false);
    }
    // One entry per place: `main` and `exports` often name the same file.
    let mut seen = std::collections::HashSet::new();
    out.retain(|d| seen.insert(d.paths[0].clone()));
    out
}

/// The code paths of a package.json `exports` value (types, `package.json` itself left out).
fn exports(v: &Json, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_EXPORTS_DEPTH || out.len() >= MAX_DECLARED {
        return;
    }
    match v {
        Json::String(p) => {
            let code = [".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".jsx", ".tsx"]
                .iter()
                .any(|e| p.ends_with(e));
            if code && !p.ends_with(".d.ts") && !p.contains('*') && !out.contains(p) {
                out.push(p.clone());
            }
        }
        Json::Object(map) => {
            for (key, v) in map {
                if key != "types" {
                    exports(v, depth + 1, out);
                }
            }
        }
        Json::Array(items) => {
            for v in items {
                exports(v, depth + 1, out);
            }
        }
        _ => {}
    }
}

/// `p`, then where its source may be when it is a built file: `pkg/lib/a/index.js` →
/// `pkg/src/a/index.ts`, `.tsx`, `.mts`, `.js`, ...
fn with_source(p: &str) -> Vec<String> {
    let mut out = vec![p.to_string()];
    for built in ["lib/", "dist/", "build/"] {
        let (before, rest) = match p.find(built) {
            Some(at) if at == 0 || p.as_bytes()[at - 1] == b'/' => {
                (&p[..at], &p[at + built.len()..])
            }
            _ => continue,
        };
        let stem = rest.rsplit_once('.').map_or(rest, |(s, _)| s);
        for ext in ["ts", "tsx", "mts", "cts", "js", "mjs", "cjs", "jsx"] {
            out.push(format!("{before}src/{stem}.{ext}"));
        }
        break;
    }
    out
}

fn pyproject(dir: &str, text: &str) -> Vec<Declared> {
    let Ok(doc) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let tables = [
        doc.get("project").and_then(|p| p.get("scripts")),
        doc.get("tool")
            .and_then(|t| t.get("poetry"))
            .and_then(|p| p.get("scripts")),
    ];
    let mut out = Vec::new();
    for (script, target) in tables
        .into_iter()
        .flatten()
        .filter_map(|t| t.as_table())
        .flatten()
    {
        let Some(target) = target.as_str() else {
            continue;
        };
        let module = target.split(':').next().unwrap_or(target).trim();
        if module.is_empty()
            || !module
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            continue;
        }
        let rel = module.replace('.', "/");
        let paths = [
            format!("{rel}.py"),
            format!("{rel}/__init__.py"),
            format!("src/{rel}.py"),
            format!("src/{rel}/__init__.py"),
        ]
        .iter()
        .filter_map(|p| under(dir, p))
        .collect();
        out.push(Declared {
            role: format!("script {script}"),
            paths,
            program: true,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A name a manifest writes reaches the answer escaped and bounded.
    #[test]
    fn roles_are_escaped_and_bounded() {
        let long = "n".repeat(500);
        let text = format!(
            "{{\"name\": \"x\", \"bin\": {{\"a\\u202eb\\u001b[31m\": \"cli.js\", \"{long}\": \"cli2.js\"}}}}"
        );
        let d = declared("package.json", &text);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(!d[0].role.contains('\u{202e}') && !d[0].role.contains('\u{1b}'));
        assert!(d[0].role.starts_with("bin a\\"), "{}", d[0].role);
        assert_eq!(d[1].role.chars().count(), MAX_ROLE_CHARS + 1);
        assert!(d[1].role.ends_with('…'));
    }

    fn roles_and_first_paths(d: &[Declared]) -> Vec<(String, String, bool)> {
        d.iter()
            .map(|d| (d.role.clone(), d.paths[0].clone(), d.program))
            .collect()
    }

    #[test]
    fn cargo_declares_bins_and_the_lib_and_implies_the_rest() {
        let text = "[package]\nname = \"ra\"\n\n[lib]\ndoctest = false\n\n[[bin]]\nname = \"rust-analyzer\"\npath = \"src/bin/main.rs\"\n";
        let d = declared("crates/ra/Cargo.toml", text);
        assert_eq!(
            roles_and_first_paths(&d),
            [
                (
                    "bin rust-analyzer".into(),
                    "crates/ra/src/bin/main.rs".into(),
                    true
                ),
                ("lib".into(), "crates/ra/src/lib.rs".into(), false),
                ("bin ra".into(), "crates/ra/src/main.rs".into(), true),
                ("bin".into(), "crates/ra/src/bin/".into(), true),
            ]
        );
        // A virtual workspace declares nothing; a broken manifest neither.
        assert!(declared("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n").is_empty());
        assert!(declared("Cargo.toml", "[package\n").is_empty());
        // A path out of the manifest's directory is ignored.
        let d = declared(
            "a/Cargo.toml",
            "[[bin]]\nname = \"x\"\npath = \"../../etc/x.rs\"\n",
        );
        assert!(d.is_empty(), "{d:?}");
    }

    #[test]
    fn package_json_declares_bins_main_and_exports_with_their_sources() {
        let text = r#"{"name": "@babel/core", "main": "./lib/index.js",
            "bin": {"babel": "./bin/babel.js"},
            "exports": {".": {"types": "./lib/index.d.ts", "default": "./lib/index.js"},
                        "./package.json": "./package.json", "./parse": "./lib/parse.mjs"}}"#;
        let d = declared("packages/babel-core/package.json", text);
        assert_eq!(
            roles_and_first_paths(&d),
            [
                (
                    "bin babel".into(),
                    "packages/babel-core/bin/babel.js".into(),
                    true
                ),
                (
                    "main".into(),
                    "packages/babel-core/lib/index.js".into(),
                    false
                ),
                (
                    "exports".into(),
                    "packages/babel-core/lib/parse.mjs".into(),
                    false
                ),
            ]
        );
        assert_eq!(d[1].paths[1], "packages/babel-core/src/index.ts");
        assert!(declared("package.json", "not json").is_empty());
    }

    #[test]
    fn pyproject_scripts_name_modules() {
        let text = "[project]\nname = \"x\"\n[project.scripts]\nserve = \"app.cli:main\"\nbad = \"../x:y\"\n";
        let d = declared("pyproject.toml", text);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].role, "script serve");
        assert_eq!(
            d[0].paths,
            [
                "app/cli.py",
                "app/cli/__init__.py",
                "src/app/cli.py",
                "src/app/cli/__init__.py"
            ]
        );
        assert!(is_manifest("a/pyproject.toml") && !is_manifest("a/setup.cfg"));
    }
}
