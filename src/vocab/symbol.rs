//! A definition found in a source file by the syntax stage ([`crate::stages::syntax`]): its kind,
//! name, signature line, exact 1-based line range, the first line of its doc comment, and the
//! definitions nested in it. The `outline` and `symbol` tools show it, `search` ranks with it
//! and skeleton extraction keeps what it names.

use std::fmt;

/// What a definition is, across languages.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum SymbolKind {
    /// A free function (also a closure or arrow function bound to a name).
    Function,
    /// A function defined inside a class, impl, trait or interface.
    Method,
    /// A struct, class, record, union or object.
    Class,
    /// An enum.
    Enum,
    /// A trait, interface or protocol.
    Interface,
    /// A Rust `impl` block (or a Swift extension).
    Impl,
    /// A module or namespace.
    Module,
    /// A constant or static.
    Const,
    /// A type alias.
    TypeAlias,
    /// A macro.
    Macro,
}

impl SymbolKind {
    /// The kind's name as the tools show it.
    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Class => "class",
            SymbolKind::Enum => "enum",
            SymbolKind::Interface => "interface",
            SymbolKind::Impl => "impl",
            SymbolKind::Module => "module",
            SymbolKind::Const => "const",
            SymbolKind::TypeAlias => "type",
            SymbolKind::Macro => "macro",
        }
    }

    /// Whether definitions nested in this one are its members (a function in it is a method).
    pub fn is_container(self) -> bool {
        matches!(
            self,
            SymbolKind::Class | SymbolKind::Interface | SymbolKind::Impl | SymbolKind::Enum
        )
    }

    /// Whether this kind has a body of code that a skeleton may elide.
    pub fn is_callable(self) -> bool {
        matches!(self, SymbolKind::Function | SymbolKind::Method)
    }
}

impl fmt::Display for SymbolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An inclusive range of 1-based line numbers.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct LineRange {
    /// The first line, 1-based.
    pub start: u32,
    /// The last line, inclusive.
    pub end: u32,
}

impl LineRange {
    /// How many lines the range covers.
    pub fn len(self) -> u32 {
        self.end + 1 - self.start
    }

    /// Never true: a range covers at least one line.
    pub fn is_empty(self) -> bool {
        false
    }
}

impl fmt::Display for LineRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.start, self.end)
    }
}

/// One definition and the definitions nested in it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Symbol {
    /// What kind of definition it is.
    pub kind: SymbolKind,
    /// As written (`Foo::bar` for a C++ method defined outside its class); may be empty for an
    /// anonymous definition (a Rust `impl` is named by its type, `Trait for Type`).
    pub name: String,
    /// The declaration up to its body, whitespace collapsed to single spaces, at most
    /// [`MAX_SIGNATURE_CHARS`] characters (cut with `…`).
    pub signature: String,
    /// The definition's lines, 1-based and inclusive (attributes and doc comments before it
    /// are not part of it).
    pub lines: LineRange,
    /// The lines of its body that a skeleton may elide (for functions and methods), if any.
    pub body: Option<LineRange>,
    /// The first non-empty line of its doc comment (or docstring), markers stripped.
    pub doc: Option<String>,
    /// The definitions nested in it, in source order.
    pub children: Vec<Symbol>,
}

/// Longest signature kept, in characters.
pub const MAX_SIGNATURE_CHARS: usize = 200;

impl Symbol {
    /// Every symbol of `symbols` and their descendants, depth first, each with its parent
    /// (`None` at the top). Iterative: no recursion on nesting depth.
    pub fn walk(symbols: &[Symbol]) -> Vec<(Option<&Symbol>, &Symbol)> {
        let mut out = Vec::new();
        let mut stack: Vec<(Option<&Symbol>, &Symbol)> =
            symbols.iter().rev().map(|s| (None, s)).collect();
        while let Some((parent, s)) = stack.pop() {
            out.push((parent, s));
            stack.extend(s.children.iter().rev().map(|c| (Some(s), c)));
        }
        out
    }
}
