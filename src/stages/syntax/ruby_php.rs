//! Ruby's and PHP's definitions: classes, modules and namespaces, interfaces and traits, enums,
//! methods (Ruby's `def self.name` as `self.name`), functions and PHP's class constants.

use super::{Def, field_text, text_of};
use crate::vocab::SymbolKind as K;
use tree_sitter::Node;

pub(super) fn classify_ruby<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let body = node.child_by_field_name("body");
    match node.kind() {
        "class" | "singleton_class" => {
            let name = field_text(node, "name", src)
                .or_else(|| field_text(node, "value", src).map(|v| format!("<< {v}")))?;
            Def::new(K::Class, name, body)
        }
        "module" => Def::new(K::Module, field_text(node, "name", src)?, body),
        "method" => Def::new(K::Function, field_text(node, "name", src)?, body),
        "singleton_method" => {
            let name = field_text(node, "name", src)?;
            let object = field_text(node, "object", src).unwrap_or_default();
            Def::new(K::Function, format!("{object}.{name}"), body)
        }
        _ => None,
    }
}

pub(super) fn classify_php<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let body = node.child_by_field_name("body");
    let kind = match node.kind() {
        "class_declaration" => K::Class,
        "interface_declaration" | "trait_declaration" => K::Interface,
        "enum_declaration" => K::Enum,
        "function_definition" | "method_declaration" => K::Function,
        "namespace_definition" => {
            let name = field_text(node, "name", src).unwrap_or_default();
            return Def::new(K::Module, name, body);
        }
        "const_element" => {
            let name = node.named_child(0).map(|n| text_of(n, src))?;
            return Def::new(K::Const, name, None);
        }
        _ => return None,
    };
    Def::new(kind, field_text(node, "name", src)?, body)
}
