//! The class-based languages' definitions: Java, C#, Kotlin, Scala and Swift (classes, structs,
//! records and objects; interfaces, traits and protocols; enums; methods and constructors;
//! namespaces; type aliases; Swift's extensions as impls).

use super::{Def, child_of_kind, field_text, text_of};
use crate::vocab::SymbolKind as K;
use tree_sitter::Node;

pub(super) fn classify_java<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let kind = match node.kind() {
        "class_declaration" | "record_declaration" => K::Class,
        "interface_declaration" | "annotation_type_declaration" => K::Interface,
        "enum_declaration" => K::Enum,
        "method_declaration" | "constructor_declaration" | "compact_constructor_declaration" => {
            K::Function
        }
        _ => return None,
    };
    Def::named(kind, node, src)
}

pub(super) fn classify_csharp<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let kind = match node.kind() {
        "class_declaration" | "struct_declaration" | "record_declaration" => K::Class,
        "interface_declaration" => K::Interface,
        "enum_declaration" => K::Enum,
        "namespace_declaration" | "file_scoped_namespace_declaration" => K::Module,
        "method_declaration"
        | "constructor_declaration"
        | "destructor_declaration"
        | "operator_declaration"
        | "local_function_statement" => K::Function,
        "delegate_declaration" => K::TypeAlias,
        _ => return None,
    };
    let name = field_text(node, "name", src).unwrap_or_else(|| "operator".to_string());
    Def::new(kind, name, node.child_by_field_name("body"))
}

pub(super) fn classify_kotlin<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    match node.kind() {
        "class_declaration" => {
            let body = child_of_kind(node, &["class_body", "enum_class_body"]);
            let kind = if child_of_kind(node, &["interface"]).is_some() {
                K::Interface
            } else if body.is_some_and(|b| b.kind() == "enum_class_body") {
                K::Enum
            } else {
                K::Class
            };
            Def::new(kind, field_text(node, "name", src)?, body)
        }
        "object_declaration" | "companion_object" => {
            let name = field_text(node, "name", src).unwrap_or_else(|| "companion".to_string());
            Def::new(K::Class, name, child_of_kind(node, &["class_body"]))
        }
        "function_declaration" | "secondary_constructor" => {
            let name = field_text(node, "name", src).unwrap_or_else(|| "constructor".to_string());
            let body = child_of_kind(node, &["function_body", "block"]);
            Def::new(K::Function, name, body)
        }
        "type_alias" => {
            let name = field_text(node, "type", src).or_else(|| field_text(node, "name", src))?;
            Def::new(K::TypeAlias, name, None)
        }
        _ => None,
    }
}

pub(super) fn classify_scala<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let kind = match node.kind() {
        "class_definition" | "object_definition" => K::Class,
        "trait_definition" => K::Interface,
        "enum_definition" => K::Enum,
        "function_definition" | "function_declaration" => K::Function,
        "type_definition" => K::TypeAlias,
        "package_object" => K::Module,
        _ => return None,
    };
    Def::named(kind, node, src)
}

pub(super) fn classify_swift<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
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
