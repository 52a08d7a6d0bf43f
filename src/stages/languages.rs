//! The one table of languages: every language gnaw knows by a file's name, one row each, with
//! its name, its markdown fence tag, whether it is code, its extensions and file names, and,
//! for a language gnaw parses, the cargo feature that compiles its grammar in and the grammar's
//! constant in `gnaw-grammars`.
//!
//! Everything that asks what language a file is reads this table: the syntax stage's grammar
//! ([`Language::detect`]), the renderer's fence tag ([`Known::fence`]), the ranking's code and
//! auxiliary classes ([`Known::code`]). The grammar crate's lists (`grammars/Cargo.toml`,
//! `grammars/build/main.rs`, `grammars/src/lib.rs`) and the root `Cargo.toml`'s `lang-*`
//! features are held against it by `tests/declarations/languages.rs`.
//!
//! Adding a language: one row here (with a grammar: under `with_grammar`, and its family in
//! `stages/syntax/family.rs`, which the compiler asks for), and for a grammar the crate's
//! feature and its constant in `gnaw-grammars` (the test names what is missing).

/// Whether a language's files are a program's source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A program's source (or header): ranked as code, never as an auxiliary file.
    Code,
    /// Markup, data, configuration or a build file.
    Other,
}

/// One row of the table.
#[derive(Debug)]
pub struct Known {
    /// The language's name (for a language with a grammar, as the tools show it).
    pub name: &'static str,
    /// The markdown fence's tag for its files (empty: none).
    pub fence: &'static str,
    /// Whether its files are a program's source or markup, data and configuration.
    pub kind: Kind,
    /// The extensions (lowercase, without the dot) that mean it, in any case.
    pub extensions: &'static [&'static str],
    /// The file names that mean it whatever their extension.
    pub file_names: &'static [&'static str],
    /// Its grammar, when gnaw parses it.
    pub grammar: Option<Language>,
}

/// Defines [`Language`] (the rows with a grammar) and [`KNOWN`] (every row, those with a
/// grammar first, in [`Language::ALL`]'s order) from the table below.
macro_rules! languages {
    (
        with_grammar { $(
            $(#[$meta:meta])*
            $variant:ident = $name:literal, fence $fence:literal, feature $feature:literal,
            grammar $grammar:ident, extensions [$($ext:literal),*], files [$($file:literal),*];
        )+ }
        without_grammar { $(
            $tname:literal, fence $tfence:literal, $kind:ident,
            extensions [$($text:literal),*], files [$($tfile:literal),*];
        )+ }
    ) => {
        /// A language with a grammar.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Language {
            $(
                $(#[$meta])*
                #[doc = concat!("`", $name, "`: parsed by its grammar (feature `", $feature, "`).")]
                $variant,
            )+
        }

        impl Language {
            /// Every language with a grammar, in the table's order.
            pub const ALL: &'static [Language] = &[ $( Language::$variant ),+ ];

            /// The cargo feature that compiles this language's grammar in (README, "Building").
            pub fn feature(self) -> &'static str {
                match self { $( Language::$variant => $feature, )+ }
            }

            /// Whether this build holds the language's grammar (its cargo feature was on). Asks
            /// the features only: the grammar itself is not loaded (its tables are inflated on
            /// its first use, in the process that parses).
            pub fn compiled_in(self) -> bool {
                match self { $( Language::$variant => cfg!(feature = $feature), )+ }
            }

            /// The name of the grammar's constant in `gnaw-grammars` (`RUST`, `C_SHARP`).
            pub fn grammar_name(self) -> &'static str {
                match self { $( Language::$variant => stringify!($grammar), )+ }
            }

            /// The language's grammar, or `None` when its feature was off in this build. The
            /// first call for a language in a process inflates its parse tables
            /// (`gnaw-grammars`).
            pub fn grammar(self) -> Option<tree_sitter::Language> {
                match self {
                    $(
                        #[cfg(feature = $feature)]
                        Language::$variant => Some(gnaw_grammars::$grammar.into()),
                    )+
                    #[allow(unreachable_patterns)] // every arm above is compiled in by default
                    _ => None,
                }
            }
        }

        /// Every row: the languages with a grammar (in [`Language::ALL`]'s order), then the
        /// others.
        pub const KNOWN: &[Known] = &[
            $( Known {
                name: $name,
                fence: $fence,
                kind: Kind::Code,
                extensions: &[$($ext),*],
                file_names: &[$($file),*],
                grammar: Some(Language::$variant),
            }, )+
            $( Known {
                name: $tname,
                fence: $tfence,
                kind: Kind::$kind,
                extensions: &[$($text),*],
                file_names: &[$($tfile),*],
                grammar: None,
            }, )+
        ];
    };
}

languages! {
    with_grammar {
        Rust = "rust", fence "rust", feature "lang-rust", grammar RUST,
            extensions ["rs"], files [];
        Python = "python", fence "python", feature "lang-python", grammar PYTHON,
            extensions ["py", "pyi", "pyw"], files [];
        JavaScript = "javascript", fence "javascript", feature "lang-javascript",
            grammar JAVASCRIPT, extensions ["js", "mjs", "cjs", "jsx"], files [];
        TypeScript = "typescript", fence "typescript", feature "lang-typescript",
            grammar TYPESCRIPT, extensions ["ts", "mts", "cts"], files [];
        Tsx = "tsx", fence "tsx", feature "lang-typescript", grammar TSX,
            extensions ["tsx"], files [];
        Go = "go", fence "go", feature "lang-go", grammar GO,
            extensions ["go"], files [];
        Java = "java", fence "java", feature "lang-java", grammar JAVA,
            extensions ["java"], files [];
        /// `.h` is read as C: a C++ header parses as C with errors, and its definitions are
        /// still found.
        C = "c", fence "c", feature "lang-c", grammar C,
            extensions ["c", "h"], files [];
        Cpp = "cpp", fence "cpp", feature "lang-cpp", grammar CPP,
            extensions ["cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "ipp", "tpp", "inl"],
            files [];
        CSharp = "csharp", fence "csharp", feature "lang-csharp", grammar C_SHARP,
            extensions ["cs"], files [];
        Ruby = "ruby", fence "ruby", feature "lang-ruby", grammar RUBY,
            extensions ["rb", "rake", "gemspec", "ru"],
            files ["Rakefile", "Gemfile", "Guardfile", "Vagrantfile"];
        Php = "php", fence "php", feature "lang-php", grammar PHP,
            extensions ["php", "phtml"], files [];
        Kotlin = "kotlin", fence "kotlin", feature "lang-kotlin", grammar KOTLIN,
            extensions ["kt", "kts"], files [];
        Swift = "swift", fence "swift", feature "lang-swift", grammar SWIFT,
            extensions ["swift"], files [];
        Scala = "scala", fence "scala", feature "lang-scala", grammar SCALA,
            extensions ["scala", "sc"], files [];
        Lua = "lua", fence "lua", feature "lang-lua", grammar LUA,
            extensions ["lua"], files [];
        Bash = "bash", fence "bash", feature "lang-bash", grammar BASH,
            extensions ["sh", "bash"], files [".bashrc", ".bash_profile", ".profile", "PKGBUILD"];
        Elixir = "elixir", fence "elixir", feature "lang-elixir", grammar ELIXIR,
            extensions ["ex", "exs"], files [];
        Haskell = "haskell", fence "haskell", feature "lang-haskell", grammar HASKELL,
            extensions ["hs"], files [];
        Zig = "zig", fence "zig", feature "lang-zig", grammar ZIG,
            extensions ["zig"], files [];
    }

    without_grammar {
        "objective-c", fence "objectivec", Code, extensions ["m", "mm"], files [];
        "groovy", fence "groovy", Code, extensions ["groovy"], files [];
        "fsharp", fence "fsharp", Code, extensions ["fs"], files [];
        "vbnet", fence "vbnet", Code, extensions ["vb"], files [];
        "erlang", fence "erlang", Code, extensions ["erl", "hrl", "yrl", "xrl"], files [];
        "literate-haskell", fence "lhs", Code, extensions ["lhs"], files [];
        "ocaml", fence "ocaml", Code, extensions ["ml", "mli", "mll", "mly"], files [];
        "zsh", fence "bash", Code, extensions ["zsh"], files [];
        "fish", fence "fish", Code, extensions ["fish"], files [];
        "perl", fence "perl", Code, extensions ["pl", "pm", "t"], files [];
        "vue", fence "vue", Code, extensions ["vue"], files [];
        "svelte", fence "svelte", Code, extensions ["svelte"], files [];
        "dart", fence "dart", Code, extensions ["dart"], files [];
        "julia", fence "julia", Code, extensions ["jl"], files [];
        "r", fence "r", Code, extensions ["r"], files [];
        "clojure", fence "clojure", Code, extensions ["clj", "cljs"], files [];
        "emacs-lisp", fence "elisp", Code, extensions ["el"], files [];
        "common-lisp", fence "lisp", Code, extensions ["lisp"], files [];
        "scheme", fence "scheme", Code, extensions ["scm"], files [];
        "nim", fence "nim", Code, extensions ["nim"], files [];
        "crystal", fence "crystal", Code, extensions ["cr"], files [];
        "d", fence "d", Code, extensions ["d"], files [];
        // `.v` is Verilog's, V's and Coq's: code, with no tag that fits all three.
        "verilog", fence "", Code, extensions ["v"], files [];
        "systemverilog", fence "systemverilog", Code, extensions ["sv"], files [];
        "vhdl", fence "vhdl", Code, extensions ["vhd"], files [];
        "fortran", fence "fortran", Code, extensions ["f90"], files [];
        "assembly", fence "asm", Code, extensions ["asm", "s"], files [];
        "sql", fence "sql", Code, extensions ["sql"], files [];
        "powershell", fence "powershell", Code, extensions ["ps1"], files [];
        "batch", fence "bat", Code, extensions ["bat"], files [];
        "tcl", fence "tcl", Code, extensions ["tcl"], files [];
        "elm", fence "elm", Code, extensions ["elm"], files [];
        "purescript", fence "purescript", Code, extensions ["purs"], files [];
        "solidity", fence "solidity", Code, extensions ["sol"], files [];
        "protobuf", fence "protobuf", Code, extensions ["proto"], files [];
        // A template of code (`bash_completion.sh.in`, `configure.in`): ranked as code, in no
        // one language.
        "template", fence "", Code, extensions ["in"], files [];
        "markdown", fence "markdown", Other, extensions ["md", "markdown"], files [];
        "toml", fence "toml", Other, extensions ["toml"], files [];
        "json", fence "json", Other, extensions ["json"], files [];
        "yaml", fence "yaml", Other, extensions ["yaml", "yml"], files [];
        "html", fence "html", Other, extensions ["html", "htm"], files [];
        "css", fence "css", Other, extensions ["css"], files [];
        "xml", fence "xml", Other, extensions ["xml"], files [];
        "dockerfile", fence "dockerfile", Other, extensions [], files ["Dockerfile"];
        "makefile", fence "makefile", Other, extensions [], files ["Makefile", "GNUmakefile"];
    }
}

/// Longest extension in the table, in bytes: a longer one names no language.
pub const MAX_EXTENSION_BYTES: usize = {
    let mut max = 0;
    let mut i = 0;
    while i < KNOWN.len() {
        let mut j = 0;
        while j < KNOWN[i].extensions.len() {
            if KNOWN[i].extensions[j].len() > max {
                max = KNOWN[i].extensions[j].len();
            }
            j += 1;
        }
        i += 1;
    }
    max
};

impl Known {
    /// The row of a file, from its name ([`Known::file_names`]) or its extension
    /// ([`Known::extensions`], any case); `None` when the table does not know it.
    pub fn of(path: &[u8]) -> Option<&'static Known> {
        let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
        if let Some(known) = KNOWN
            .iter()
            .find(|k| k.file_names.iter().any(|f| f.as_bytes() == name))
        {
            return Some(known);
        }
        let dot = name.iter().rposition(|&b| b == b'.')?;
        if dot == 0 {
            return None;
        }
        Known::by_extension(&name[dot + 1..])
    }

    /// The row of an extension (without the dot, any case).
    pub fn by_extension(ext: &[u8]) -> Option<&'static Known> {
        if ext.len() > MAX_EXTENSION_BYTES {
            return None;
        }
        KNOWN.iter().find(|k| {
            k.extensions
                .iter()
                .any(|e| e.as_bytes().eq_ignore_ascii_case(ext))
        })
    }

    /// Whether its files are a program's source.
    pub fn code(&self) -> bool {
        self.kind == Kind::Code
    }
}

impl Language {
    /// The language of a file, from its name or its extension (any case); `None` when no
    /// grammar is known for it.
    pub fn detect(path: &[u8]) -> Option<Language> {
        Known::of(path)?.grammar
    }

    /// Its row of the table.
    pub fn known(self) -> &'static Known {
        &KNOWN[self as usize]
    }

    /// The language's name as the tools show it.
    pub fn as_str(self) -> &'static str {
        self.known().name
    }

    /// The extensions (lowercase, without the dot) read as this language.
    pub fn extensions(self) -> &'static [&'static str] {
        self.known().extensions
    }

    /// The file names read as this language whatever their extension.
    pub fn file_names(self) -> &'static [&'static str] {
        self.known().file_names
    }
}

/// The markdown fence's tag for a file (empty when the table has none for it).
pub fn fence_tag(path: &str) -> &'static str {
    Known::of(path.as_bytes()).map_or("", |k| k.fence)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// Every extension and file name means one row, extensions are lowercase, the languages
    /// with a grammar come first in [`Language::ALL`]'s order, and every row is found by each of
    /// its names.
    #[test]
    fn the_table_is_consistent() {
        for (i, &lang) in Language::ALL.iter().enumerate() {
            assert_eq!(KNOWN[i].grammar, Some(lang));
        }
        assert!(
            KNOWN[Language::ALL.len()..]
                .iter()
                .all(|k| k.grammar.is_none())
        );
        let mut seen = HashMap::new();
        for known in KNOWN {
            assert!(
                known.grammar.is_none() || known.code(),
                "{}: a grammar is code",
                known.name
            );
            for ext in known.extensions {
                assert_eq!(*ext, ext.to_ascii_lowercase());
                assert_eq!(seen.insert(*ext, known.name), None, "{ext} twice");
                let lower = format!("d/x.{ext}");
                let upper = format!("X.{}", ext.to_ascii_uppercase());
                for path in [lower, upper] {
                    assert_eq!(Known::of(path.as_bytes()).map(|k| k.name), Some(known.name));
                    assert_eq!(Language::detect(path.as_bytes()), known.grammar);
                }
            }
            for name in known.file_names {
                assert_eq!(seen.insert(*name, known.name), None, "{name} twice");
                let path = format!("d/{name}");
                assert_eq!(Known::of(path.as_bytes()).map(|k| k.name), Some(known.name));
            }
        }
        let names: std::collections::HashSet<_> = KNOWN.iter().map(|k| k.name).collect();
        assert_eq!(names.len(), KNOWN.len(), "a name twice");
    }

    #[test]
    fn detection_by_name_and_extension() {
        for (path, tag) in [
            ("src/main.rs", "rust"),
            ("a/b/Makefile", "makefile"),
            ("Makefile.am", ""),
            ("x.ZSH", "bash"),
            ("notes.txt", ""),
            (".rs", ""),
            ("a.verylongextension", ""),
            ("", ""),
        ] {
            assert_eq!(fence_tag(path), tag, "{path}");
        }
        assert!(Known::by_extension(b"pm").is_some_and(Known::code));
        assert!(!Known::by_extension(b"json").is_some_and(Known::code));
        assert_eq!(MAX_EXTENSION_BYTES, "markdown".len());
    }
}
