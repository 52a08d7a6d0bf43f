//! Build script of gnaw-grammars: every enabled tree-sitter grammar, compiled with its parse
//! tables stored deflated and inflated on first use (the crate doc says why and how).
//!
//! For each grammar (its upstream crate's sources, found by [`locate`]):
//! 1. `parser.c` is compiled as it is, unoptimized, one section per array, and [`tables`] reads
//!    from that object the bytes of every array that holds no address;
//! 2. [`rewrite`] turns `parser.c` into one whose tables are views into a zeroed (BSS) buffer,
//!    filled once by the language function from the deflated bytes ([`blob`]);
//! 3. the rewritten `parser.c` and the upstream `scanner.c` are compiled and linked.
//!
//! A grammar whose tables cannot be read (an object format other than ELF, an unexpected
//! `parser.c`) is compiled as it is, uncompressed, and the build says so in a warning.

// A build script reads sources and writes its outputs under OUT_DIR: none of it runs in gnaw.
#![allow(clippy::disallowed_methods)]

mod blob;
mod locate;
mod rewrite;
mod tables;

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One grammar: the cargo feature that turns it on, the upstream crate that ships its sources,
/// the directory of `parser.c` in that crate, the name its language function has there (and
/// the prefix of its external scanner's functions), and the C standard its crate compiles with.
struct Grammar {
    feature: &'static str,
    krate: &'static str,
    dir: &'static str,
    symbol: &'static str,
    std: Option<&'static str>,
}

const fn g(
    feature: &'static str,
    krate: &'static str,
    dir: &'static str,
    symbol: &'static str,
) -> Grammar {
    Grammar {
        feature,
        krate,
        dir,
        symbol,
        std: Some("c11"),
    }
}

/// Every grammar gnaw uses, in the order of `Language::ALL`.
const GRAMMARS: &[Grammar] = &[
    g("rust", "tree-sitter-rust", "src", "tree_sitter_rust"),
    g("python", "tree-sitter-python", "src", "tree_sitter_python"),
    g(
        "javascript",
        "tree-sitter-javascript",
        "src",
        "tree_sitter_javascript",
    ),
    g(
        "typescript",
        "tree-sitter-typescript",
        "typescript/src",
        "tree_sitter_typescript",
    ),
    g(
        "typescript",
        "tree-sitter-typescript",
        "tsx/src",
        "tree_sitter_tsx",
    ),
    g("go", "tree-sitter-go", "src", "tree_sitter_go"),
    g("java", "tree-sitter-java", "src", "tree_sitter_java"),
    g("c", "tree-sitter-c", "src", "tree_sitter_c"),
    g("cpp", "tree-sitter-cpp", "src", "tree_sitter_cpp"),
    g(
        "csharp",
        "tree-sitter-c-sharp",
        "src",
        "tree_sitter_c_sharp",
    ),
    g("ruby", "tree-sitter-ruby", "src", "tree_sitter_ruby"),
    g("php", "tree-sitter-php", "php/src", "tree_sitter_php"),
    g(
        "kotlin",
        "tree-sitter-kotlin-ng",
        "src",
        "tree_sitter_kotlin",
    ),
    g("swift", "tree-sitter-swift", "src", "tree_sitter_swift"),
    g("scala", "tree-sitter-scala", "src", "tree_sitter_scala"),
    g("lua", "tree-sitter-lua", "src", "tree_sitter_lua"),
    g("bash", "tree-sitter-bash", "src", "tree_sitter_bash"),
    // Its crate sets no standard (its sources are not strict C11).
    Grammar {
        feature: "elixir",
        krate: "tree-sitter-elixir",
        dir: "src",
        symbol: "tree_sitter_elixir",
        std: None,
    },
    g(
        "haskell",
        "tree-sitter-haskell",
        "src",
        "tree_sitter_haskell",
    ),
    g("zig", "tree-sitter-zig", "src", "tree_sitter_zig"),
];

/// The external scanner's functions, after the grammar's prefix.
const SCANNER_FUNCTIONS: [&str; 5] = ["create", "destroy", "scan", "serialize", "deserialize"];

/// What was built for one grammar, for `OUT_DIR/tables.rs`.
struct Built {
    symbol: &'static str,
    inflated: usize,
    stored: usize,
}

fn main() {
    println!("cargo:rerun-if-changed=build");
    println!("cargo:rerun-if-changed=csrc");
    if let Err(e) = run() {
        panic!("gnaw-grammars: {e}");
    }
}

fn run() -> Result<(), String> {
    let out = PathBuf::from(env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let enabled: Vec<&Grammar> = GRAMMARS
        .iter()
        .filter(|g| env::var_os(format!("CARGO_FEATURE_{}", g.feature.to_uppercase())).is_some())
        .collect();
    if enabled.is_empty() {
        return write_summary(&out, &[]);
    }
    let mut names: Vec<&str> = enabled.iter().map(|g| g.krate).collect();
    names.dedup();
    let crates = locate::crate_dirs(&manifest_dir.join("Cargo.toml"), &names)?;
    let sources: Vec<PathBuf> = enabled
        .iter()
        .map(|g| crates[g.krate].join(g.dir))
        .collect();
    for dir in &sources {
        for file in ["parser.c", "scanner.c", "tree_sitter"] {
            println!("cargo:rerun-if-changed={}", dir.join(file).display());
        }
    }

    let started = std::time::Instant::now();
    let objects = first_pass(&enabled, &sources, &out)?;
    eprintln!("first pass: {:?}", started.elapsed());
    let csrc = manifest_dir.join("csrc");
    let mut built = Vec::with_capacity(enabled.len());
    let mut files: Vec<(&Grammar, PathBuf, PathBuf)> = Vec::new();
    for ((grammar, dir), (object, scanner_object)) in enabled.iter().zip(&sources).zip(&objects) {
        let work = out.join(grammar.symbol);
        fs::create_dir_all(&work).map_err(|e| format!("{}: {e}", work.display()))?;
        let (parser, inflated, stored) = match compressed_parser(grammar, dir, object, &work) {
            Ok(done) => done,
            Err(why) => {
                println!(
                    "cargo:warning=gnaw-grammars: {} is built uncompressed: {why}",
                    grammar.symbol
                );
                (as_it_is(grammar, dir, &work)?, 0, 0)
            }
        };
        files.push((grammar, dir.clone(), parser));
        if let Some(object) = scanner_object {
            let object = fs::read(object).map_err(|e| e.to_string())?;
            // Unreadable (not ELF): only the five functions are renamed, which is all a
            // build without the upstream crates beside it needs.
            let globals = tables::defined_globals(&object).unwrap_or_default();
            files.push((
                grammar,
                dir.clone(),
                scanner(grammar, dir, &work, &globals)?,
            ));
        }
        built.push(Built {
            symbol: grammar.symbol,
            inflated,
            stored,
        });
    }
    // The first pass's objects were only read (tens of MB): not kept.
    let _ = fs::remove_dir_all(out.join("first"));
    eprintln!("tables read, rewritten, deflated: {:?}", started.elapsed());
    second_pass(files, &csrc, &out)?;
    eprintln!("second pass: {:?}", started.elapsed());
    write_summary(&out, &built)
}

/// Compile every grammar's `parser.c` as it is, unoptimized and one section per array, to
/// read its tables from, and its `scanner.c`, to read the global names it defines; the objects,
/// in the order of `grammars`.
fn first_pass(
    grammars: &[&Grammar],
    dirs: &[PathBuf],
    out: &Path,
) -> Result<Vec<(PathBuf, Option<PathBuf>)>, String> {
    let mut jobs = Vec::new();
    for (grammar, dir) in grammars.iter().zip(dirs) {
        let mut build = base_build(grammar.std);
        build
            .opt_level(0)
            .debug(false)
            .include(dir)
            .flag("-fdata-sections")
            .out_dir(out.join("first"));
        jobs.push((build.clone(), dir.join("parser.c")));
        if dir.join("scanner.c").exists() {
            jobs.push((build, dir.join("scanner.c")));
        }
    }
    let mut objects = compile_all(jobs)?.into_iter();
    let mut pairs = Vec::with_capacity(grammars.len());
    for dir in dirs {
        let parser = objects.next().ok_or("a first-pass object is missing")?;
        let scanner = if dir.join("scanner.c").exists() {
            Some(objects.next().ok_or("a first-pass object is missing")?)
        } else {
            None
        };
        pairs.push((parser, scanner));
    }
    Ok(pairs)
}

/// Compile each `(settings, file)` to an object, a few at a time (cargo's `NUM_JOBS`, the
/// largest files first); the objects, in the order of `jobs`.
fn compile_all(jobs: Vec<(cc::Build, PathBuf)>) -> Result<Vec<PathBuf>, String> {
    let workers = env::var("NUM_JOBS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(1)
        .clamp(1, 8);
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    let size = |i: &usize| fs::metadata(&jobs[*i].1).map(|m| m.len()).unwrap_or(0);
    order.sort_by_key(|i| std::cmp::Reverse(size(i)));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Result<PathBuf, String>>>> = Mutex::new(vec![None; jobs.len()]);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let (build, file) = &jobs[i];
                    let mut build = build.clone();
                    let got = build
                        .file(file)
                        .try_compile_intermediates()
                        .map_err(|e| format!("{}: {e}", file.display()))
                        .and_then(|mut o| o.pop().ok_or_else(|| "no object".to_string()));
                    results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(got);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err("a compile did not run".to_string())))
        .collect()
}

/// The rewritten `parser.c` of one grammar, with how many bytes of tables it inflates and how
/// many it stores.
fn compressed_parser(
    grammar: &Grammar,
    dir: &Path,
    object: &Path,
    work: &Path,
) -> Result<(PathBuf, usize, usize), String> {
    let source = fs::read_to_string(dir.join("parser.c")).map_err(|e| e.to_string())?;
    let object = fs::read(object).map_err(|e| e.to_string())?;
    let arrays = tables::read(&object)?;
    let layout = rewrite::Layout::of(&source, &arrays)?;
    let raw = layout.bytes(&arrays);
    let deflated = blob::deflate(&raw)?;
    let text = rewrite::rewrite(&source, &layout, &deflated, &renames(grammar))?;
    copy_headers(dir, work)?;
    let path = work.join("parser.c");
    fs::write(&path, text).map_err(|e| e.to_string())?;
    Ok((path, raw.len(), deflated.len()))
}

/// The upstream `parser.c`, renamed but otherwise as it is.
fn as_it_is(grammar: &Grammar, dir: &Path, work: &Path) -> Result<PathBuf, String> {
    let path = work.join("parser_as_is.c");
    wrapper(renames(grammar), &dir.join("parser.c"), &path)?;
    Ok(path)
}

/// The upstream `scanner.c`, with its functions renamed like the language function, and every
/// other global name it defines (some scanners leave tables and helpers global) given this
/// grammar's prefix too.
fn scanner(
    grammar: &Grammar,
    dir: &Path,
    work: &Path,
    globals: &[String],
) -> Result<PathBuf, String> {
    let mut text = renames(grammar);
    for name in globals {
        let renamed = name == grammar.symbol
            || SCANNER_FUNCTIONS
                .iter()
                .any(|f| *name == format!("{}_external_scanner_{f}", grammar.symbol));
        if !renamed {
            let _ = writeln!(text, "#define {name} gnaw_{}_{name}", grammar.symbol);
        }
    }
    let path = work.join("scanner.c");
    wrapper(text, &dir.join("scanner.c"), &path)?;
    Ok(path)
}

/// Write to `path` a C file of `defines` that includes `source`, whose own relative includes
/// still resolve from its directory.
fn wrapper(mut defines: String, source: &Path, path: &Path) -> Result<(), String> {
    let _ = writeln!(defines, "#include \"{}\"", source.display());
    fs::write(path, defines).map_err(|e| format!("{}: {e}", path.display()))
}

/// `#define`s giving the grammar's exported functions names of their own
/// (`gnaw_tree_sitter_rust`, ...), so that they never meet the upstream crate's in one link
/// (the tests link both).
fn renames(grammar: &Grammar) -> String {
    let mut text = String::new();
    let _ = writeln!(text, "#define {0} gnaw_{0}", grammar.symbol);
    for f in SCANNER_FUNCTIONS {
        let _ = writeln!(
            text,
            "#define {0}_external_scanner_{f} gnaw_{0}_external_scanner_{f}",
            grammar.symbol
        );
    }
    text
}

/// Copy the grammar's `tree_sitter/` headers beside its rewritten `parser.c`, whose
/// `#include "tree_sitter/parser.h"` then finds its own grammar's version of them.
fn copy_headers(dir: &Path, work: &Path) -> Result<(), String> {
    let from = dir.join("tree_sitter");
    let to = work.join("tree_sitter");
    fs::create_dir_all(&to).map_err(|e| e.to_string())?;
    for entry in fs::read_dir(&from).map_err(|e| format!("{}: {e}", from.display()))? {
        let entry = entry.map_err(|e| e.to_string())?;
        fs::copy(entry.path(), to.join(entry.file_name())).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Compile the rewritten parsers and the scanners (each with its grammar's `src/` on the
/// include path, as its crate does: the shared scanner headers of TypeScript and PHP look
/// there) into this crate's static library.
fn second_pass(
    files: Vec<(&Grammar, PathBuf, PathBuf)>,
    csrc: &Path,
    out: &Path,
) -> Result<(), String> {
    let jobs = files
        .into_iter()
        .map(|(grammar, dir, file)| {
            let mut build = base_build(grammar.std);
            build.include(csrc).include(dir).out_dir(out.join("second"));
            // The tables are read through pointers of their own types into a byte buffer.
            // (Not flag_if_supported: its probe file is shared by the threads of compile_all.)
            if !build.get_compiler().is_like_msvc() {
                build.flag("-fno-strict-aliasing");
            }
            (build, file)
        })
        .collect();
    let objects = compile_all(jobs)?;
    let mut lib = cc::Build::new();
    for object in objects {
        lib.object(object);
    }
    lib.try_compile("gnaw-grammars").map_err(|e| e.to_string())
}

/// The compiler settings both passes share: the upstream crates' own (C standard, warnings
/// off: the generated code is not ours to fix).
fn base_build(std: Option<&str>) -> cc::Build {
    let mut build = cc::Build::new();
    if let Some(std) = std {
        build.std(std);
    }
    build
        .warnings(false)
        .extra_warnings(false)
        .cargo_warnings(false);
    build
}

/// `OUT_DIR/tables.rs`: what each grammar inflates and stores, for the crate's [`TABLES`].
fn write_summary(out: &Path, built: &[Built]) -> Result<(), String> {
    let mut text = String::from("&[\n");
    for b in built {
        let name = b.symbol.trim_start_matches("tree_sitter_");
        let _ = writeln!(
            text,
            "    Tables {{ grammar: {name:?}, inflated: {}, stored: {} }},",
            b.inflated, b.stored
        );
    }
    text.push_str("]\n");
    fs::write(out.join("tables.rs"), text).map_err(|e| e.to_string())
}
