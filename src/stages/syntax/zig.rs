//! Zig's definitions: functions, and `const Name = struct/enum/union { ... }` containers.

use super::{Def, child_of_kind, text_of};
use crate::vocab::SymbolKind as K;
use tree_sitter::Node;

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    match node.kind() {
        "function_declaration" => Def::named(K::Function, node, src),
        "variable_declaration" => {
            let container = child_of_kind(
                node,
                &[
                    "struct_declaration",
                    "enum_declaration",
                    "union_declaration",
                    "opaque_declaration",
                ],
            )?;
            let kind = if container.kind() == "enum_declaration" {
                K::Enum
            } else {
                K::Class
            };
            let name = child_of_kind(node, &["identifier"]).map(|n| text_of(n, src))?;
            Def::new(kind, name, Some(container))
        }
        _ => None,
    }
}
