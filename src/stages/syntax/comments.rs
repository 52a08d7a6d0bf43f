//! Comments as a skeleton's levels see them ([`Compress`](crate::vocab::Compress)): found in the
//! definitions' walk when a `summary` or `signatures` skeleton asks for them, each with its
//! bytes and whether it documents something.
//!
//! A comment is a doc comment when it is one by its syntax (`///`, `//!`, `/**`, `/*!`,
//! Haskell's `-- |` and `-- ^`, Lua's `--- `), when it stands right before a definition (the
//! block `outline` takes a definition's doc from, found the same way, or the block before the
//! construct that starts on the definition's line and holds it, such as Go's `type`), or before
//! Go's `package` clause or a `var` declaration. Python docstrings and Elixir's `@doc`,
//! `@moduledoc` and `@typedoc` are doc comments too.

use super::{Language, doc_block};
use tree_sitter::Node;

/// A comment, docstring or doc attribute: its bytes in the text, and whether it documents
/// something (kept, cut to its first sentence, at `summary`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Comment {
    /// Byte offset of its start in the text.
    pub start: u32,
    /// Byte offset of its end in the text (exclusive).
    pub end: u32,
    /// It documents something (a doc comment, docstring or doc attribute).
    pub doc: bool,
}

/// Node kinds whose comment block documents what follows, though they are not definitions:
/// Go's package clause (its package doc) and its `var` declarations.
const DOC_ANCHORS: &[&str] = &["package_clause", "var_declaration"];

/// Elixir's attributes that document: `@doc`, `@moduledoc`, `@typedoc`.
const DOC_ATTRIBUTES: &[&[u8]] = &[b"doc", b"moduledoc", b"typedoc"];

/// The comment of `node`'s bytes, without the line break some grammars end a line comment
/// with.
fn span(node: Node, src: &[u8], doc: bool) -> Comment {
    let at = |b: usize| u32::try_from(b).unwrap_or(u32::MAX);
    let text = src.get(node.byte_range()).unwrap_or_default();
    let end = node.start_byte() + text.trim_ascii_end().len();
    Comment {
        start: at(node.start_byte()),
        end: at(end),
        doc,
    }
}

/// The comment `node` is (a comment, an Elixir doc attribute, a Python docstring), if any.
pub(super) fn comment_of(lang: Language, node: Node, src: &[u8]) -> Option<Comment> {
    let text = src.get(node.byte_range()).unwrap_or_default();
    let kind = node.kind();
    if kind.contains("comment") || kind == "haddock" {
        return Some(span(node, src, kind == "haddock" || doc_syntax(text)));
    }
    match lang {
        Language::Elixir if kind == "unary_operator" => {
            let name = text.strip_prefix(b"@")?;
            let end = name
                .iter()
                .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
                .unwrap_or(name.len());
            DOC_ATTRIBUTES
                .contains(&&name[..end])
                .then(|| span(node, src, true))
        }
        Language::Python if kind == "expression_statement" => {
            // The first statement of a module or a class body (comments may come before it).
            let mut first = node
                .parent()
                .is_some_and(|p| matches!(p.kind(), "module" | "block"));
            let mut prev = node.prev_named_sibling();
            while let Some(p) = prev.filter(|_| first) {
                first = p.kind() == "comment";
                prev = p.prev_named_sibling();
            }
            (first && is_docstring(node)).then(|| span(node, src, true))
        }
        _ => None,
    }
}

/// Whether the statement `node` is a lone string (a docstring where it opens a body).
pub(super) fn is_docstring(node: Node) -> bool {
    node.named_child_count() == 1
        && node
            .named_child(0)
            .is_some_and(|s| matches!(s.kind(), "string" | "concatenated_string"))
}

/// Whether a comment's text marks it a doc comment by its syntax alone.
fn doc_syntax(text: &[u8]) -> bool {
    let marked = |m: &[u8], not: &[u8]| text.starts_with(m) && !text.starts_with(not);
    marked(b"///", b"////")
        || text.starts_with(b"//!")
        || (marked(b"/**", b"/**/") && !text.starts_with(b"/***"))
        || text.starts_with(b"/*!")
        || text.starts_with(b"-- |")
        || text.starts_with(b"-- ^")
        || text.starts_with(b"{-|")
        || text.starts_with(b"--- ")
}

/// Whether `node` is one of the [`DOC_ANCHORS`].
pub(super) fn is_anchor(node: Node) -> bool {
    DOC_ANCHORS.contains(&node.kind())
}

/// Mark as doc comments those of `found` (in source order) in the block that documents `node`:
/// the block right before it or, when there is none, before the construct that starts on its
/// line and holds it (`type` of Go's `type T struct`, `const` of `const f = () => …`).
/// `ancestors` hold `node`, root first.
pub(super) fn mark_doc(found: &mut [Comment], node: Node, ancestors: &[Node], src: &[u8]) {
    let (mut at, mut holders) = (node, ancestors);
    let (first, anchor) = loop {
        if let Some(block) = doc_block(at, holders, src) {
            break block;
        }
        match holders.split_last() {
            // Not the root.
            Some((&p, rest))
                if !rest.is_empty() && p.start_position().row == at.start_position().row =>
            {
                (at, holders) = (p, rest);
            }
            _ => return,
        }
    };
    let (from, to) = (first.start_byte(), anchor.start_byte());
    // The comments of the block, found by their order: a definition reads its own, not every
    // comment after it.
    let at = found.partition_point(|c| (c.end as usize) <= from);
    for c in found[at..].iter_mut() {
        let start = c.start as usize;
        if start >= to {
            break;
        }
        // Not a comment after code on its line (`x = 1; // note`), which says nothing of what
        // follows. Read back to the line's start or its first word, not further.
        let own_line = src[..start.min(src.len())]
            .iter()
            .rev()
            .take_while(|&&b| b != b'\n')
            .all(|b| b.is_ascii_whitespace());
        if own_line {
            c.doc = true;
        }
    }
}
