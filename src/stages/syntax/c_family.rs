//! C's and C++'s definitions: functions (and prototypes), structs, classes, unions, enums,
//! typedefs and `using` aliases, namespaces and macros. A C++ method defined outside its class
//! keeps its qualified name (`Type::method`).

use super::{Def, Inline, field_text, last_row, line, text_of};
use crate::vocab::{LineRange, SymbolKind as K};
use tree_sitter::Node;

pub(super) fn classify<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let body = node.child_by_field_name("body");
    match node.kind() {
        "function_definition" => {
            let name = function_name(node, src)?;
            let kind = if name.contains("::") {
                K::Method
            } else {
                K::Function
            };
            Def::new(kind, name, body)
        }
        // A prototype (`int f(int);`) or a method declared in a class body.
        "declaration" | "field_declaration" => {
            let name = function_name(node, src)?;
            Def::new(K::Function, name, None)
        }
        "struct_specifier" | "class_specifier" | "union_specifier" => {
            body?;
            Def::new(K::Class, field_text(node, "name", src)?, body)
        }
        "enum_specifier" => {
            body?;
            Def::new(K::Enum, field_text(node, "name", src)?, body)
        }
        "namespace_definition" => {
            let name = field_text(node, "name", src).unwrap_or_default();
            Def::new(K::Module, name, body)
        }
        "type_definition" => {
            let name = node
                .children_by_field_name("declarator", &mut node.walk())
                .last()
                .map(|d| text_of(d, src))?;
            Def::new(K::TypeAlias, name, None)
        }
        "alias_declaration" => Def::new(K::TypeAlias, field_text(node, "name", src)?, None),
        "preproc_def" | "preproc_function_def" => {
            Def::new(K::Macro, field_text(node, "name", src)?, None)
        }
        _ => None,
    }
}

/// The name in a function's declarator, through pointers, references and the like; `None`
/// when the declarator is not a function's.
fn function_name(node: Node, src: &[u8]) -> Option<String> {
    let mut d = node.child_by_field_name("declarator")?;
    let mut steps = 0;
    while d.kind() != "function_declarator" {
        steps += 1;
        if steps > 16 {
            return None;
        }
        // A reference declarator (`T& f()`) holds its declarator without a field name.
        d = d.child_by_field_name("declarator").or_else(|| {
            d.named_child(u32::try_from(d.named_child_count()).ok()?.checked_sub(1)?)
        })?;
    }
    let name = d.child_by_field_name("declarator")?;
    if !matches!(
        name.kind(),
        "identifier"
            | "field_identifier"
            | "qualified_identifier"
            | "destructor_name"
            | "operator_name"
            | "template_function"
            | "template_method"
    ) {
        return None;
    }
    Some(text_of(name, src))
}

/// A macro's lines after its name's (`#define F(x) \` and what it continues to), which a
/// `summary` or `signatures` skeleton elides; `None` for another node or a macro of one line.
pub(super) fn macro_value(node: Node) -> Option<LineRange> {
    if !matches!(node.kind(), "preproc_def" | "preproc_function_def") {
        return None;
    }
    let value = node.child_by_field_name("value")?;
    let (first, last) = (node.start_position().row, last_row(value));
    (last > first).then(|| LineRange {
        start: line(first + 1),
        end: line(last),
    })
}

/// A function-like macro's replacement text (`#define SQ(x) ((x) * (x))`, continuation lines
/// and all), which a `signatures` skeleton elides after its parameters; `None` for another
/// node or a macro without one.
pub(super) fn macro_inline(node: Node, src: &[u8]) -> Option<Inline> {
    if node.kind() != "preproc_function_def" {
        return None;
    }
    let params = node.child_by_field_name("parameters")?;
    node.child_by_field_name("value")?;
    // To the node's last word: a continuation after the value (`\` before a blank line) too.
    let text = node.utf8_text(src).ok()?;
    let end = node.start_byte() + text.trim_end().len();
    Some(Inline {
        start: u32::try_from(params.end_byte()).ok()?,
        end: u32::try_from(end).ok()?,
        block: false,
    })
}
