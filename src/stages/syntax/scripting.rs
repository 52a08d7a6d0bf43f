//! Lua's and Bash's definitions: functions (Lua's `M.f` and `M:f` keep their table's name,
//! and a function bound with `local f = function` is one too).

use super::{Def, child_of_kind, field_text};
use crate::vocab::SymbolKind as K;
use tree_sitter::Node;

pub(super) fn classify_lua<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    match node.kind() {
        "function_declaration" => Def::named(K::Function, node, src),
        "assignment_statement" => {
            // `f = function (...) ... end`, `local f = function ...`
            let values = child_of_kind(node, &["expression_list"])?;
            let value = values
                .named_child(0)
                .filter(|v| v.kind() == "function_definition")?;
            let names = child_of_kind(node, &["variable_list"])?;
            let name = field_text(names, "name", src)?;
            Def::new(K::Function, name, value.child_by_field_name("body"))
        }
        _ => None,
    }
}

pub(super) fn classify_bash<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    match node.kind() {
        "function_definition" => Def::named(K::Function, node, src),
        _ => None,
    }
}
