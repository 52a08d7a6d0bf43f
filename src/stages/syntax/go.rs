//! Go's definitions: functions, methods (named `Receiver.Method`), type declarations (struct,
//! interface, other types and aliases) and constants.

use super::{Def, field_text, text_of};
use crate::vocab::SymbolKind as K;
use tree_sitter::Node;

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let body = node.child_by_field_name("body");
    match node.kind() {
        "function_declaration" => Def::new(K::Function, field_text(node, "name", src)?, body),
        "method_declaration" => {
            let name = field_text(node, "name", src)?;
            let receiver = node
                .child_by_field_name("receiver")
                .and_then(|r| receiver_type(r, src));
            let name = match receiver {
                Some(r) => format!("{r}.{name}"),
                None => name,
            };
            Def::new(K::Method, name, body)
        }
        "type_spec" | "type_alias" => {
            let ty = node.child_by_field_name("type");
            let kind = match ty.map(|t| t.kind()) {
                _ if node.kind() == "type_alias" => K::TypeAlias,
                Some("struct_type") => K::Class,
                Some("interface_type") => K::Interface,
                _ => K::TypeAlias,
            };
            // No body: the signature is the spec's first line (`S struct`).
            Def::new(kind, field_text(node, "name", src)?, None)
        }
        "const_spec" => Def::new(K::Const, field_text(node, "name", src)?, None),
        _ => None,
    }
}

/// The receiver's type name, without `*` or type parameters.
fn receiver_type(params: Node, src: &[u8]) -> Option<String> {
    let decl = params.named_child(0)?;
    let mut ty = decl.child_by_field_name("type")?;
    let mut steps = 0;
    while steps < 8 {
        steps += 1;
        match ty.kind() {
            "pointer_type" | "parenthesized_type" => ty = ty.named_child(0)?,
            "generic_type" => ty = ty.child_by_field_name("type")?,
            _ => break,
        }
    }
    Some(text_of(ty, src))
}
