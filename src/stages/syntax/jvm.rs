//! The JVM and .NET class-based languages' definitions: Java, C#, Kotlin and Scala (classes,
//! structs, records and objects; interfaces and traits; enums; methods and constructors;
//! namespaces; type aliases).

use super::{Def, child_of_kind, field_text};
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
