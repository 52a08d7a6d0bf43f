//! gnaw's tree-sitter grammars, the same as their upstream crates' but with the parse tables
//! stored deflated: each grammar's tables are inflated into zeroed memory the first time its
//! language is asked for, once per process.
//!
//! Why: the tables (parse table, small parse table, actions, lex modes, symbol metadata, maps,
//! character sets) are static arrays of each generated `parser.c`, about 35 MB for the 20
//! grammars gnaw reads, and they deflate 12-fold. The build script (`build/`) compiles each
//! upstream `parser.c` once to read those arrays' bytes from the object, rewrites the file so
//! that each array is a view into one zeroed buffer (BSS, which costs no bytes in the file),
//! and links the rewritten parser with the deflated bytes; the language function fills the
//! buffer on its first call (`csrc/gnaw_fill.h`). Arrays that hold addresses (names, the
//! language struct) and the lexer code are unchanged. The sources come from the upstream
//! crates, found through `cargo metadata` (they are this crate's dev-dependencies, and
//! `tests/same_grammars.rs` compares every grammar with them).
//!
//! Each grammar is behind its own cargo feature (all on by default). The exported constants are
//! what the upstream crates export, [`LanguageFn`]s: `tree_sitter::Language::new(RUST)` (or
//! `RUST.into()`) calls the language function, which inflates on the first call.

// The only unsafe code is in `grammar!` below, allowed there alone.
#![deny(unsafe_code)]

/// The type of each grammar's constant, as the upstream crates export it.
pub use tree_sitter_language::LanguageFn;

// The inflate the C side calls (`LIBZ_RS_SYS_v0_6_x_uncompress`): linked through this crate.
extern crate libz_rs_sys;

/// What one grammar stores and inflates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tables {
    /// The grammar's name (`rust`, `tsx`, `c_sharp`, ...).
    pub grammar: &'static str,
    /// Bytes of tables the first use fills (zeroed memory until then). 0 when the grammar was
    /// built uncompressed (the build warned why).
    pub inflated: usize,
    /// Bytes the binary stores for them, deflated.
    pub stored: usize,
}

/// The grammars of this build, with their tables' sizes.
pub const TABLES: &[Tables] = include!(concat!(env!("OUT_DIR"), "/tables.rs"));

/// Bytes of zeroed memory all the grammars of this build reserve for their tables (each
/// grammar's part is touched only when it is first used).
pub const fn inflated_bytes() -> usize {
    let mut total = 0;
    let mut i = 0;
    while i < TABLES.len() {
        total += TABLES[i].inflated;
        i += 1;
    }
    total
}

/// A grammar's `LanguageFn`, from the language function the build script compiled (renamed
/// `gnaw_tree_sitter_x`, so it never meets the upstream crate's in a link).
macro_rules! grammar {
    ($(#[$doc:meta])* $feature:literal, $name:ident, $symbol:ident) => {
        $(#[$doc])*
        #[cfg(feature = $feature)]
        #[allow(unsafe_code)]
        pub const $name: LanguageFn = {
            // SAFETY: declares the function the build script compiled from the grammar's
            // generated parser.c; it takes nothing and returns a pointer to its static
            // TSLanguage (after filling its tables, once), as the upstream crates' does.
            unsafe extern "C" {
                fn $symbol() -> *const ();
            }
            // SAFETY: `$symbol` is a tree-sitter language function, what `from_raw` asks for
            // (the upstream crates make their LANGUAGE the same way).
            unsafe { LanguageFn::from_raw($symbol) }
        };
    };
}

grammar!(
    /// Rust (tree-sitter-rust).
    "rust", RUST, gnaw_tree_sitter_rust
);
grammar!(
    /// Python (tree-sitter-python).
    "python", PYTHON, gnaw_tree_sitter_python
);
grammar!(
    /// JavaScript (tree-sitter-javascript).
    "javascript", JAVASCRIPT, gnaw_tree_sitter_javascript
);
grammar!(
    /// TypeScript (tree-sitter-typescript's `typescript`).
    "typescript", TYPESCRIPT, gnaw_tree_sitter_typescript
);
grammar!(
    /// TSX (tree-sitter-typescript's `tsx`).
    "typescript", TSX, gnaw_tree_sitter_tsx
);
grammar!(
    /// Go (tree-sitter-go).
    "go", GO, gnaw_tree_sitter_go
);
grammar!(
    /// Java (tree-sitter-java).
    "java", JAVA, gnaw_tree_sitter_java
);
grammar!(
    /// C (tree-sitter-c).
    "c", C, gnaw_tree_sitter_c
);
grammar!(
    /// C++ (tree-sitter-cpp).
    "cpp", CPP, gnaw_tree_sitter_cpp
);
grammar!(
    /// C# (tree-sitter-c-sharp).
    "csharp", C_SHARP, gnaw_tree_sitter_c_sharp
);
grammar!(
    /// Ruby (tree-sitter-ruby).
    "ruby", RUBY, gnaw_tree_sitter_ruby
);
grammar!(
    /// PHP with its HTML around it (tree-sitter-php's `php`).
    "php", PHP, gnaw_tree_sitter_php
);
grammar!(
    /// Kotlin (tree-sitter-kotlin-ng).
    "kotlin", KOTLIN, gnaw_tree_sitter_kotlin
);
grammar!(
    /// Swift (tree-sitter-swift).
    "swift", SWIFT, gnaw_tree_sitter_swift
);
grammar!(
    /// Scala (tree-sitter-scala).
    "scala", SCALA, gnaw_tree_sitter_scala
);
grammar!(
    /// Lua (tree-sitter-lua).
    "lua", LUA, gnaw_tree_sitter_lua
);
grammar!(
    /// Bash (tree-sitter-bash).
    "bash", BASH, gnaw_tree_sitter_bash
);
grammar!(
    /// Elixir (tree-sitter-elixir).
    "elixir", ELIXIR, gnaw_tree_sitter_elixir
);
grammar!(
    /// Haskell (tree-sitter-haskell).
    "haskell", HASKELL, gnaw_tree_sitter_haskell
);
grammar!(
    /// Zig (tree-sitter-zig).
    "zig", ZIG, gnaw_tree_sitter_zig
);
