//! Swift's definitions: classes, structs, enums and extensions (one declaration kind, told
//! apart by its keyword; extensions as impls); protocols and their requirements; functions,
//! initializers and deinitializers; type aliases.

use super::{Def, field_text, text_of};
use crate::vocab::SymbolKind as K;
use tree_sitter::Node;

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let body = node.child_by_field_name("body");
    let kind = match node.kind() {
        "class_declaration" => {
            match node
                .child_by_field_name("declaration_kind")
                .map(|k| text_of(k, src))
                .as_deref()
            {
                Some("enum") => K::Enum,
                Some("extension") => K::Impl,
                _ => K::Class,
            }
        }
        "protocol_declaration" => K::Interface,
        "function_declaration" | "protocol_function_declaration" => K::Function,
        "init_declaration" => return Def::new(K::Function, "init".to_string(), body),
        "deinit_declaration" => return Def::new(K::Function, "deinit".to_string(), body),
        "typealias_declaration" => K::TypeAlias,
        _ => return None,
    };
    Def::new(kind, field_text(node, "name", src)?, body)
}
