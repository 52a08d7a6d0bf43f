//! What kind of file a path is (README or manifest, entry point, source, docs, test, example,
//! generated, lock), the default order that follows from it, whether it is prose or an
//! auxiliary file (neither code nor prose: build files, manifests, metadata, type stubs), and
//! the words by which a query asks for tests, docs or auxiliary files themselves.

use super::{Part, Score};
use crate::stages::languages::Known;

/// Query words that ask for documentation itself.
pub(super) const DOC_WORDS: &[&str] = &[
    "doc",
    "docs",
    "readme",
    "changelog",
    "changes",
    "history",
    "guide",
    "manual",
    "tutorial",
];

/// Whether a path is prose: docs (markdown, reStructuredText, text, HTML, man pages), a README
/// or a changelog, rather than code or a manifest.
pub(super) fn is_prose(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    name.starts_with("readme")
        || ["changelog", "changes", "history", "news"]
            .iter()
            .any(|p| name.starts_with(p))
        || matches!(ext, "md" | "rst" | "txt" | "adoc" | "html" | "htm" | "1")
        || class_of(path) == Class::Docs
}

/// Whether a path is an auxiliary file: neither code nor prose, but what builds, packages,
/// describes or licenses the code (`Makefile`, `pom.xml`, `*.csproj`, `package.json`,
/// `re.opam`, `PKG-INFO`, `LICENSE`, data and config files, `*.orig` leftovers), and type stubs
/// and interfaces that declare what other files define (`index.d.ts`, `*.pyi`, OCaml's `*.mli`
/// for its `*.ml`). Such files list many of the code's names without defining or explaining
/// them. A file without an extension whose name is lowercase is taken for a script (a shell
/// completion), not auxiliary.
pub(super) fn is_auxiliary(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    if is_prose(path) {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    // Declarations, and Ruby that packages (`x.gemspec`) or configures a server (`config.ru`).
    if [
        ".d.ts", ".d.cts", ".d.mts", ".pyi", ".mli", ".gemspec", ".ru",
    ]
    .iter()
    .any(|s| lower.ends_with(s))
    {
        return true;
    }
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => !is_code_ext(&ext.to_ascii_lowercase()),
        // `Makefile`, `LICENSE`, `PKG-INFO`, `.travis.yml`; not `wget` or `bash_completion`.
        _ => name.starts_with('.') || name.chars().next().is_some_and(|c| c.is_ascii_uppercase()),
    }
}

/// Whether a file extension (lowercase) is a programming language's source (or header)
/// extension: a row of the table of languages that is code.
fn is_code_ext(ext: &str) -> bool {
    Known::by_extension(ext.as_bytes()).is_some_and(Known::code)
}

/// C and C++ header extensions, and those of the sources that define what headers declare.
const HEADER_EXTENSIONS: &[&str] = &["h", "hh", "hpp", "hxx", "h++"];
const SOURCE_EXTENSIONS: &[&str] = &["c", "cc", "cpp", "cxx", "c++", "m", "mm"];

/// A C-family file's stem and whether it is a header (`src/ltable.h` → `("ltable", true)`,
/// `src/os.cc` → `("os", false)`); `None` for any other file.
pub(super) fn c_family(path: &str) -> Option<(&str, bool)> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let (stem, ext) = name.rsplit_once('.')?;
    let ext = ext.to_ascii_lowercase();
    let header = if HEADER_EXTENSIONS.contains(&ext.as_str()) {
        true
    } else if SOURCE_EXTENSIONS.contains(&ext.as_str()) {
        false
    } else {
        return None;
    };
    (!stem.is_empty()).then_some((stem, header))
}

/// Query words that ask for auxiliary files ([`is_auxiliary`]) themselves.
pub(super) const AUX_WORDS: &[&str] = &[
    "declaration",
    "declarations",
    "typings",
    "stub",
    "stubs",
    "manifest",
    "packaging",
    "license",
];

/// Query words that ask for tests or examples themselves.
pub(super) const TEST_WORDS: &[&str] = &[
    "test", "tests", "testing", "example", "examples", "bench", "benches", "fixture", "fixtures",
];

/// The default order's score: a class weight, less a little for depth and size.
pub fn prior(path: &str, len: usize) -> Score {
    let class = class_of(path);
    let class_score = 100.0 * (9 - class as u8) as f64;
    let depth = path.matches('/').count() as f64;
    let size = (len as f64 + 1.0).log2();
    Score {
        total: class_score - depth - size / 4.0,
        parts: vec![
            (Part::Class, class_score),
            (Part::Depth, -depth),
            (Part::Size, -size / 4.0),
        ],
    }
}

/// How useful a kind of file usually is to a reader, best first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Class {
    /// A README or a package manifest.
    ReadmeOrManifest = 0,
    /// A declared entry point (`main.rs`, `lib.rs`, `__main__.py`, ...).
    EntryPoint = 1,
    /// Source code.
    Source = 2,
    /// Documentation.
    Docs = 3,
    /// None of the others (configuration, data, ...).
    Other = 4,
    /// A test.
    Test = 5,
    /// An example.
    Example = 6,
    /// Generated code.
    Generated = 7,
    /// A lock file.
    Lock = 8,
}

/// A directory whose name says it holds tests beside what they test: `lib_test`,
/// `Newtonsoft.Json.Tests`, `unit-tests`.
fn is_test_dir(lower: &str) -> bool {
    ["_test", "_tests", ".test", ".tests", "-test", "-tests"]
        .iter()
        .any(|s| lower.ends_with(s))
}

/// A file named, in PascalCase, after what it tests: `JsonConvertTest.cs`, `ParserTests.java`,
/// `RouterSpec.scala` (not `latest.rs` or `Contest.java`: the suffix must start a word).
fn pascal_test(name: &str) -> bool {
    let stem = name.split('.').next().unwrap_or(name);
    ["Tests", "Test", "Spec"].iter().any(|s| {
        stem.strip_suffix(s)
            .and_then(|before| before.chars().last())
            .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
    })
}

/// What a file that was not written as this repository's code is, as a word: `vendored` (a
/// copy of another project's), `generated` (built or minified output) or `fixture` (test data
/// and snapshots); `None` for a file written here. Its file name and its directories (from
/// the innermost), lowercase.
fn made_elsewhere(name: &str, dirs: &[&str]) -> Option<&'static str> {
    let in_dir = |names: &[&str]| dirs.iter().any(|d| names.contains(d));
    if in_dir(&["vendor", "third_party", "third-party", "node_modules"]) {
        Some("vendored")
    } else if in_dir(&["dist", "generated"])
        || name.contains(".min.")
        || name.contains("_generated")
        || name.contains(".generated.")
        || name.ends_with(".pb.go")
        || name.ends_with("_pb2.py")
    {
        Some("generated")
    } else if in_dir(&[
        "fixtures",
        "fixture",
        "testdata",
        "test-data",
        "snapshots",
        "__snapshots__",
    ]) {
        Some("fixture")
    } else {
        None
    }
}

/// The word that marks a secondary file (a test, an example, a fixture, vendored or generated
/// code, a lock file) in an answer, where the ranker counts it down; `None` for the others.
pub fn secondary_word(path: &str) -> Option<&'static str> {
    match class_of(path) {
        Class::Test => Some("test"),
        Class::Example => Some("example"),
        Class::Lock => Some("lock file"),
        Class::Generated => {
            let lower = path.to_ascii_lowercase();
            let name = lower.rsplit('/').next().unwrap_or(&lower);
            let dirs: Vec<&str> = lower.split('/').rev().skip(1).collect();
            made_elsewhere(name, &dirs)
        }
        _ => None,
    }
}

/// Classify a path by its name and directories.
pub fn class_of(path: &str) -> Class {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    let dirs: Vec<&str> = lower.split('/').rev().skip(1).collect();
    let in_dir = |names: &[&str]| dirs.iter().any(|d| names.contains(d));
    const LOCKS: &[&str] = &[
        "cargo.lock",
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "gemfile.lock",
        "go.sum",
        "composer.lock",
        "pipfile.lock",
        "uv.lock",
        "flake.lock",
        "bun.lockb",
        "npm-shrinkwrap.json",
    ];
    const MANIFESTS: &[&str] = &[
        "cargo.toml",
        "package.json",
        "pyproject.toml",
        "setup.py",
        "setup.cfg",
        "go.mod",
        "pom.xml",
        "build.gradle",
        "build.gradle.kts",
        "gemfile",
        "composer.json",
        "cmakelists.txt",
        "makefile",
        "meson.build",
        "build.zig",
        "mix.exs",
        "dockerfile",
    ];
    const ENTRY_STEMS: &[&str] = &[
        "main", "lib", "index", "app", "cli", "__main__", "mod", "server",
    ];
    if LOCKS.contains(&name) || name.ends_with(".lock") {
        return Class::Lock;
    }
    if made_elsewhere(name, &dirs).is_some() {
        return Class::Generated;
    }
    if name.starts_with("readme") || (dirs.len() <= 1 && MANIFESTS.contains(&name)) {
        return Class::ReadmeOrManifest;
    }
    if in_dir(&["tests", "test", "__tests__", "spec", "specs", "t"])
        || dirs.iter().any(|d| is_test_dir(d))
        || pascal_test(path.rsplit('/').next().unwrap_or(path))
        || name.starts_with("test_")
        || name.contains("_test.")
        || name.contains(".test.")
        || name.contains(".spec.")
        || name.contains("_spec.")
    {
        return Class::Test;
    }
    if in_dir(&[
        "examples",
        "example",
        "benches",
        "bench",
        "benchmarks",
        "samples",
        "demo",
    ]) {
        return Class::Example;
    }
    let (stem, ext) = name.rsplit_once('.').unwrap_or((name, ""));
    let code = is_code_ext(ext);
    if code && (ENTRY_STEMS.contains(&stem) || in_dir(&["bin", "cmd"])) {
        return Class::EntryPoint;
    }
    if code {
        return Class::Source;
    }
    if matches!(ext, "md" | "rst" | "txt" | "adoc") || in_dir(&["docs", "doc"]) {
        return Class::Docs;
    }
    Class::Other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_beside_their_code_are_tests_in_every_naming() {
        for path in [
            "Src/Newtonsoft.Json.Tests/Linq/LinqToJsonTest.cs",
            "Src/Json/JsonConvertTest.cs",
            "src/ParserTests.java",
            "src/RouterSpec.scala",
            "lib_test/old/unison.ml",
            "pkg/unit-tests/a.js",
            "tests/it.rs",
            "src/a_test.go",
            "t/mojo/reactor_ev.t",
        ] {
            assert_eq!(class_of(path), Class::Test, "{path}");
        }
        for path in [
            "src/latest.rs",
            "src/Contest.java",
            "src/attest.rs",
            "lib/testing.ml",
        ] {
            assert_ne!(class_of(path), Class::Test, "{path}");
        }
    }

    #[test]
    fn auxiliary_files_are_neither_code_nor_prose() {
        for path in [
            "Makefile",
            "pom.xml",
            "Src/Newtonsoft.Json/Newtonsoft.Json.csproj",
            "re.opam",
            "PKG-INFO",
            "LICENSE",
            "index.d.ts",
            "typings/click.pyi",
            "lib/core.mli",
            "lib/x.js.orig",
        ] {
            assert!(is_auxiliary(path), "{path}");
        }
        for path in [
            "src/lib.rs",
            "lib/Mojo/Util.pm",
            "lib/elixir/src/elixir_erl.erl",
            "lib/core.ml",
            "completions/wget",
            "bash_completion",
            "README.md",
            "docs/guide.rst",
        ] {
            assert!(!is_auxiliary(path), "{path}");
        }
    }

    #[test]
    fn secondary_files_are_marked_by_what_they_are() {
        for (path, word) in [
            ("tests/it.rs", Some("test")),
            ("Src/Json/JsonConvertTest.cs", Some("test")),
            ("examples/demo.rs", Some("example")),
            ("benches/parse.rs", Some("example")),
            ("tests/fixtures/one.json", Some("fixture")),
            ("src/__snapshots__/a.snap", Some("fixture")),
            ("vendor/lib/x.c", Some("vendored")),
            ("web/node_modules/a/index.js", Some("vendored")),
            ("dist/app.min.js", Some("generated")),
            ("api/v1/service.pb.go", Some("generated")),
            ("Cargo.lock", Some("lock file")),
            ("src/lib.rs", None),
            ("README.md", None),
            ("docs/guide.md", None),
            ("Makefile", None),
        ] {
            assert_eq!(secondary_word(path), word, "{path}");
            // A word for exactly the files the ranker counts down as secondary.
            assert_eq!(word.is_some(), class_of(path) >= Class::Test, "{path}");
        }
    }
}
