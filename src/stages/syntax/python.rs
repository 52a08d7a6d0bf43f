//! Python's definitions: functions (methods inside classes), classes, and module-level
//! constants (an assignment to an all-caps name). A function's or class's docstring is its doc.

use super::{Def, MAX_DOC_CHARS, clean_comment_line, collapse, field_text};
use crate::vocab::SymbolKind as K;
use tree_sitter::Node;

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let body = node.child_by_field_name("body");
    match node.kind() {
        "function_definition" => Def::new(K::Function, field_text(node, "name", src)?, body),
        "class_definition" => Def::new(K::Class, field_text(node, "name", src)?, body),
        "assignment" => {
            // Only `NAME = ...` as a statement of a module or class body.
            let stmt = node
                .parent()
                .filter(|p| p.kind() == "expression_statement")?;
            let scope = stmt.parent()?;
            if !matches!(scope.kind(), "module" | "block") {
                return None;
            }
            let left = node.child_by_field_name("left")?;
            if left.kind() != "identifier" {
                return None;
            }
            let name = field_text(node, "left", src)?;
            let constant = name.bytes().any(|b| b.is_ascii_uppercase())
                && name
                    .bytes()
                    .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
            constant.then_some(Def {
                kind: K::Const,
                name,
                body: None,
            })
        }
        "type_alias_statement" => {
            let left = node.child_by_field_name("left")?;
            Def::new(K::TypeAlias, super::text_of(left, src), None)
        }
        _ => None,
    }
}

/// The statement of the docstring that opens `body`, if it has one.
pub(super) fn docstring_node(body: Node) -> Option<Node> {
    body.named_child(0).filter(|first| {
        first.kind() == "expression_statement" && super::comments::is_docstring(*first)
    })
}

/// The first line of the docstring that opens `body`, and the statement holding it.
pub(super) fn docstring<'t>(body: Node<'t>, src: &[u8]) -> Option<(String, Node<'t>)> {
    let first = docstring_node(body)?;
    let string = first.named_child(0).filter(|s| s.kind() == "string")?;
    let text = src.get(string.byte_range())?;
    let inner = text
        .iter()
        .position(|b| *b == b'"' || *b == b'\'')
        .map_or(text, |i| &text[i..]);
    let inner = inner.trim_ascii_start();
    let quote_len = inner
        .iter()
        .take_while(|b| **b == b'"' || **b == b'\'')
        .count();
    let inner = &inner[quote_len.min(inner.len())..];
    let line = inner
        .split(|&b| b == b'\n')
        .take(64)
        .map(|l| {
            let l = l.trim_ascii();
            let quotes = l
                .iter()
                .rev()
                .take_while(|b| **b == b'"' || **b == b'\'')
                .count();
            clean_comment_line(&l[..l.len() - quotes])
        })
        .find(|l| !l.is_empty())?;
    Some((collapse(line, MAX_DOC_CHARS), first))
}
