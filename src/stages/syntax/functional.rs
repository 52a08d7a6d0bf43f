//! Elixir's and Haskell's definitions. Elixir's are calls (`defmodule`, `def`, `defp`,
//! `defmacro`, `defprotocol`, `defimpl`); Haskell's are functions and bindings, data types,
//! newtypes, type synonyms, classes (their method signatures) and instances.

use super::{Def, child_of_kind, field_text, text_of};
use crate::vocab::SymbolKind as K;
use tree_sitter::Node;

pub(super) fn classify_elixir<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    if node.kind() != "call" {
        return None;
    }
    let target = node.child_by_field_name("target")?;
    if target.kind() != "identifier" {
        return None;
    }
    let kind = match src.get(target.byte_range())? {
        b"defmodule" => K::Module,
        b"defprotocol" => K::Interface,
        b"defimpl" => K::Impl,
        b"def" | b"defp" | b"defguard" | b"defguardp" | b"defdelegate" => K::Function,
        b"defmacro" | b"defmacrop" => K::Macro,
        _ => return None,
    };
    let args = child_of_kind(node, &["arguments"])?;
    let mut head = args.named_child(0)?;
    // `def f(a) when guard`: the call is the operator's left side.
    if head.kind() == "binary_operator" {
        head = head.child_by_field_name("left")?;
    }
    let name = match head.kind() {
        "call" => field_text(head, "target", src)?,
        _ => text_of(head, src),
    };
    Def::new(kind, name, child_of_kind(node, &["do_block"]))
}

pub(super) fn classify_haskell<'t>(node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
    let kind = match node.kind() {
        "function" | "bind" => {
            // Only top-level and instance bindings, not `where`/`let` locals.
            let parent = node.parent()?;
            if !matches!(parent.kind(), "declarations" | "instance_declarations") {
                return None;
            }
            K::Function
        }
        "signature" => {
            if node.parent()?.kind() != "class_declarations" {
                return None;
            }
            K::Function
        }
        "data_type" | "newtype" => K::Class,
        "type_synonym" | "type_family" => K::TypeAlias,
        "class" => K::Interface,
        "instance" => {
            let name = field_text(node, "name", src)?;
            let name =
                field_text(node, "patterns", src).map_or(name.clone(), |p| format!("{name} {p}"));
            return Def::new(K::Impl, name, node.child_by_field_name("declarations"));
        }
        _ => return None,
    };
    let body = node
        .child_by_field_name("match")
        .or_else(|| node.child_by_field_name("declarations"));
    Def::new(kind, field_text(node, "name", src)?, body)
}
