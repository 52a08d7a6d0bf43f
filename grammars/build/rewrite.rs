//! Rewriting a generated `parser.c` so that its tables cost no bytes in the binary.
//!
//! Each top-level `static const T name[dims] = { ... };` whose bytes the object gave (no
//! addresses in it) loses its initializer and becomes a view into one zeroed, aligned buffer of
//! the grammar (`gnaw_tables`, in BSS):
//!
//! ```c
//! #define ts_parse_table (*(const uint16_t (*)[LARGE_STATE_COUNT][SYMBOL_COUNT])(gnaw_tables + 0))
//! _Static_assert(sizeof(ts_parse_table) == 2226208, "ts_parse_table");
//! ```
//!
//! Every use of the name (the language struct's `&ts_parse_table[0][0]`, the lexer's character
//! sets) reads the same type at the same place as before, and the compiler checks each size.
//! The language function fills the buffer once, from the deflated bytes, before it returns the
//! language. Anything else in the file is left as it was.

use super::blob;
use std::collections::HashMap;
use std::fmt::Write as _;

/// Alignment of each table in the buffer (and of the buffer): more than any tree-sitter table
/// type needs.
const ALIGN: usize = 16;

/// One table of the buffer.
pub struct Table {
    name: String,
    ty: String,
    dims: String,
    offset: usize,
    size: usize,
}

/// Where each table goes in the buffer, in the order of the file.
pub struct Layout {
    tables: Vec<Table>,
    total: usize,
}

/// The declaration on `line`, if it opens a top-level constant array: its type, name and
/// dimensions (`uint16_t`, `ts_parse_table`, `[LARGE_STATE_COUNT][SYMBOL_COUNT]`).
fn declaration(line: &str) -> Option<(&str, &str, &str)> {
    let rest = line.strip_prefix("static const ")?.strip_suffix(" = {")?;
    let open = rest.find('[')?;
    let (head, dims) = rest.split_at(open);
    let (ty, name) = head.rsplit_once(' ')?;
    let ident = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b' ')
    };
    if !ident(ty) || !ident(name) || name.contains(' ') || !dims.ends_with(']') {
        return None;
    }
    Some((ty, name, dims))
}

impl Layout {
    /// The tables of `source` that `arrays` (from the object) holds, laid out one after the
    /// other.
    pub fn of(source: &str, arrays: &HashMap<String, Vec<u8>>) -> Result<Layout, String> {
        let mut tables = Vec::new();
        let mut total = 0;
        for line in source.lines() {
            let Some((ty, name, dims)) = declaration(line) else {
                continue;
            };
            let Some(bytes) = arrays.get(name) else {
                continue;
            };
            tables.push(Table {
                name: name.to_string(),
                ty: ty.to_string(),
                dims: dims.to_string(),
                offset: total,
                size: bytes.len(),
            });
            total = (total + bytes.len()).div_ceil(ALIGN) * ALIGN;
        }
        if tables.is_empty() {
            return Err("no table of parser.c was found in its object".to_string());
        }
        Ok(Layout { tables, total })
    }

    /// The buffer as the language function fills it: each table's bytes at its offset, zeros
    /// between.
    pub fn bytes(&self, arrays: &HashMap<String, Vec<u8>>) -> Vec<u8> {
        let mut raw = vec![0u8; self.total];
        for t in &self.tables {
            raw[t.offset..t.offset + t.size].copy_from_slice(&arrays[&t.name]);
        }
        raw
    }
}

/// `source` with the tables of `layout` turned into views of the buffer, the deflated bytes
/// `stored` and the fill added before the language function, and `prelude` (the renames) at
/// the top.
pub fn rewrite(
    source: &str,
    layout: &Layout,
    stored: &[u8],
    prelude: &str,
) -> Result<String, String> {
    let by_name: HashMap<&str, &Table> =
        layout.tables.iter().map(|t| (t.name.as_str(), t)).collect();
    let mut out = String::with_capacity(source.len() / 4 + stored.len() * 3);
    out.push_str(prelude);
    out.push_str("#include \"gnaw_fill.h\"\n");
    let mut rewritten = 0;
    let mut entry_points = 0;
    let mut buffer_declared = false;
    let mut lines = source.lines();
    while let Some(line) = lines.next() {
        if let Some(table) = declaration(line).and_then(|(_, name, _)| by_name.get(name)) {
            if !buffer_declared {
                let _ = writeln!(
                    out,
                    "static _Alignas({ALIGN}) unsigned char gnaw_tables[{}];",
                    layout.total
                );
                buffer_declared = true;
            }
            view(&mut out, table);
            rewritten += 1;
            // Drop the initializer, through its closing line.
            if !lines.by_ref().any(|l| l == "};") {
                return Err(format!("the initializer of {} never closes", table.name));
            }
            continue;
        }
        if line.starts_with("TS_PUBLIC const TSLanguage *") && line.ends_with("(void) {") {
            let _ = writeln!(
                out,
                "static const unsigned char gnaw_blob[] =\n{};",
                blob::c_string(stored)
            );
            out.push_str(
                "static void gnaw_fill(void) {\n  \
                 gnaw_inflate(gnaw_tables, sizeof gnaw_tables, gnaw_blob, sizeof gnaw_blob - 1);\n}\n",
            );
            out.push_str(line);
            out.push_str("\n  GNAW_ONCE(gnaw_fill);\n");
            entry_points += 1;
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    if rewritten != layout.tables.len() {
        return Err(format!(
            "{rewritten} of {} tables rewritten",
            layout.tables.len()
        ));
    }
    if entry_points != 1 {
        return Err(format!("{entry_points} language functions found, not 1"));
    }
    Ok(out)
}

/// The `#define` that makes `table` a view of the buffer, and the check of its size.
fn view(out: &mut String, t: &Table) {
    let dims = match t.dims.strip_prefix("[]") {
        // An unsized first dimension: its length is the object's size over the element's.
        Some(rest) => format!("[{} / sizeof({}{rest})]{rest}", t.size, t.ty),
        None => t.dims.clone(),
    };
    let _ = writeln!(
        out,
        "#define {name} (*(const {ty} (*){dims})(gnaw_tables + {offset}))",
        name = t.name,
        ty = t.ty,
        offset = t.offset
    );
    let _ = writeln!(
        out,
        "_Static_assert(sizeof({name}) == {size}, \"{name}\");",
        name = t.name,
        size = t.size
    );
}
