//! Rust's definitions: functions, structs, unions, enums, traits, impls, modules, consts and
//! statics, type aliases and `macro_rules!`.

use super::{Def, field_text};
use crate::vocab::SymbolKind as K;
use tree_sitter::Node;

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let body = node.child_by_field_name("body");
    let kind = match node.kind() {
        "function_item" | "function_signature_item" => K::Function,
        "struct_item" | "union_item" => K::Class,
        "enum_item" => K::Enum,
        "trait_item" => K::Interface,
        "mod_item" => K::Module,
        "const_item" | "static_item" => K::Const,
        "type_item" => K::TypeAlias,
        "macro_definition" => K::Macro,
        "impl_item" => {
            let ty = field_text(node, "type", src)?;
            let name =
                field_text(node, "trait", src).map_or(ty.clone(), |tr| format!("{tr} for {ty}"));
            return Def::new(K::Impl, name, body);
        }
        _ => return None,
    };
    Def::new(kind, field_text(node, "name", src)?, body)
}
