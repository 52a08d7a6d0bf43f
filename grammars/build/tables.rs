//! The tables of a compiled `parser.c`: every data symbol of its object that holds no address
//! (no relocation falls inside it), with the bytes the compiler laid out for it. Only those can
//! be stored as plain bytes and copied back at run time; arrays of pointers (symbol and field
//! names) stay as they are. Also the global names an object defines (a scanner's, to rename).

use object::{Object, ObjectSection, ObjectSymbol, SectionKind, SymbolKind};
use std::collections::HashMap;

/// Name to bytes, for every address-free data symbol of the ELF object `data`.
pub fn read(data: &[u8]) -> Result<HashMap<String, Vec<u8>>, String> {
    let file = object::File::parse(data).map_err(|e| format!("reading the object: {e}"))?;
    if file.format() != object::BinaryFormat::Elf {
        return Err(format!(
            "{:?} objects are not read (ELF only)",
            file.format()
        ));
    }
    let mut tables = HashMap::new();
    for symbol in file.symbols() {
        if symbol.kind() != SymbolKind::Data || symbol.size() == 0 {
            continue;
        }
        let Some(index) = symbol.section_index() else {
            continue;
        };
        let section = file.section_by_index(index).map_err(|e| e.to_string())?;
        let start = symbol.address() - section.address();
        let end = start + symbol.size();
        let bytes = match section.kind() {
            SectionKind::ReadOnlyData | SectionKind::Data => {
                let all = section.data().map_err(|e| e.to_string())?;
                let range = usize::try_from(start).map_err(|e| e.to_string())?
                    ..usize::try_from(end).map_err(|e| e.to_string())?;
                all.get(range)
                    .ok_or("a symbol runs past its section")?
                    .to_vec()
            }
            SectionKind::UninitializedData => {
                vec![0; usize::try_from(symbol.size()).map_err(|e| e.to_string())?]
            }
            _ => continue,
        };
        let holds_address = section
            .relocations()
            .any(|(offset, _)| offset >= start && offset < end);
        if holds_address {
            continue;
        }
        let name = symbol.name().map_err(|e| e.to_string())?;
        tables.insert(name.to_string(), bytes);
    }
    Ok(tables)
}

/// The global names the object `data` defines (functions and data), sorted.
pub fn defined_globals(data: &[u8]) -> Result<Vec<String>, String> {
    let file = object::File::parse(data).map_err(|e| format!("reading the object: {e}"))?;
    let mut names = Vec::new();
    for symbol in file.symbols() {
        if symbol.is_global() && symbol.is_definition() {
            names.push(symbol.name().map_err(|e| e.to_string())?.to_string());
        }
    }
    names.sort();
    names.dedup();
    Ok(names)
}
