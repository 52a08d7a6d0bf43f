//! Each language's family: the function that says which of its grammar's nodes are definitions
//! (one file per family of languages), and the node kinds of its blocks of code outside
//! definitions (closures, callbacks, test bodies) that a `summary` or `signatures` skeleton
//! elides. The languages themselves (names, extensions, grammars) are the table of
//! [`crate::stages::languages`]; this match has an arm for each of its rows with a grammar, so
//! a new row does not compile until its family is named here.

use super::{
    Def, c_family, functional, go, jvm, python, ruby_php, rust, scripting, swift, web, zig,
};
use crate::stages::languages::Language;
use tree_sitter::Node;

/// A family's classifier: whether a node is a definition, with its kind, name and body.
type Classify = for<'t> fn(Node<'t>, &[u8]) -> Option<Def<'t>>;

/// What the walk asks of a language's family.
pub(super) struct Family {
    pub classify: Classify,
    /// The node kinds of its blocks of code (see [`super::Found::blocks`]).
    pub blocks: &'static [&'static str],
}

/// The family of `lang`.
pub(super) fn family(lang: Language) -> Family {
    let (classify, blocks): (Classify, _) = match lang {
        Language::Rust => (rust::classify, &["block"][..]),
        Language::Python => (python::classify, &[][..]),
        Language::JavaScript | Language::TypeScript | Language::Tsx => {
            (web::classify, &["statement_block"][..])
        }
        Language::Go => (go::classify, &["block"][..]),
        Language::Java => (jvm::classify_java, &["block"][..]),
        Language::C | Language::Cpp => (c_family::classify, &["compound_statement"][..]),
        Language::CSharp => (jvm::classify_csharp, &["block"][..]),
        Language::Ruby => (ruby_php::classify_ruby, &["do_block", "block"][..]),
        Language::Php => (ruby_php::classify_php, &["compound_statement"][..]),
        Language::Kotlin => (jvm::classify_kotlin, &["block", "lambda_literal"][..]),
        Language::Swift => (swift::classify, &["lambda_literal"][..]),
        Language::Scala => (jvm::classify_scala, &["block", "indented_block"][..]),
        Language::Lua => (scripting::classify_lua, &["block"][..]),
        Language::Bash => (scripting::classify_bash, &[][..]),
        Language::Elixir => (
            functional::classify_elixir,
            &["do_block", "anonymous_function"][..],
        ),
        Language::Haskell => (functional::classify_haskell, &[][..]),
        Language::Zig => (zig::classify, &["block"][..]),
    };
    Family { classify, blocks }
}
