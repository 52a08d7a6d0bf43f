//! JavaScript's, TypeScript's and TSX's definitions: functions (and arrow functions or function
//! expressions bound to a name), classes, methods, interfaces, type aliases, enums and
//! namespaces.

use super::{Def, field_text};
use crate::vocab::SymbolKind as K;
use tree_sitter::Node;

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let body = node.child_by_field_name("body");
    let kind = match node.kind() {
        "function_declaration"
        | "generator_function_declaration"
        | "function_signature"
        | "method_definition"
        | "method_signature"
        | "abstract_method_signature" => K::Function,
        "class_declaration" | "abstract_class_declaration" | "class" => K::Class,
        "interface_declaration" => K::Interface,
        "type_alias_declaration" => K::TypeAlias,
        "enum_declaration" => K::Enum,
        "internal_module" | "module" => K::Module,
        "variable_declarator" | "public_field_definition" => {
            // `const f = (a) => { ... }`, `f = function () { ... }`
            let value = node.child_by_field_name("value")?;
            if !matches!(
                value.kind(),
                "arrow_function" | "function_expression" | "function" | "generator_function"
            ) {
                return None;
            }
            let name =
                field_text(node, "name", src).or_else(|| field_text(node, "property", src))?;
            return Def::new(K::Function, name, value.child_by_field_name("body"));
        }
        // `app.get = function (...) { ... }`, `exports.f = () => { ... }`, and
        // `{ key: function () { ... } }`: a function bound to a property.
        "assignment_expression" | "pair" => {
            let (left, right) = if node.kind() == "pair" {
                ("key", "value")
            } else {
                ("left", "right")
            };
            let value = node.child_by_field_name(right)?;
            if !matches!(
                value.kind(),
                "arrow_function" | "function_expression" | "function" | "generator_function"
            ) {
                return None;
            }
            let name = field_text(node, left, src)?;
            return Def::new(K::Function, name, value.child_by_field_name("body"));
        }
        _ => return None,
    };
    Def::new(kind, field_text(node, "name", src)?, body)
}

/// Whether `node` is an arrow function's body in parentheses (`(props) => (<div>…</div>)`): a
/// block of code as [`super::Found::blocks`] means it. `parent` is the node holding it.
pub(super) fn expression_body(node: Node, parent: Option<Node>) -> bool {
    node.kind() == "parenthesized_expression"
        && parent.is_some_and(|p| p.kind() == "arrow_function")
}
