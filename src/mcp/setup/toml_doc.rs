//! TOML client files for `gnaw-mcp setup` (Codex's `config.toml`): parsed and edited with
//! toml_edit, which keeps every comment, every other table and the file's layout; only the one
//! entry is added or replaced.

use toml_edit::{Array, DocumentMut, InlineTable, Item, Table, Value};

use super::Outcome;
use super::clients::{Command, Fixed, Spelling};

/// Parse a client's file. The error says what is wrong, at which line and column.
pub fn parse(text: &str) -> Result<DocumentMut, String> {
    text.parse::<DocumentMut>().map_err(|e| {
        format!(
            "it is not valid TOML: {}; fix it or move it aside, then run again",
            e.to_string().trim_end()
        )
    })
}

/// The entry as a table: the fixed fields, the command, the environment (an inline table, as
/// the client's docs spell it).
pub fn entry(spelling: &Spelling, command: &str, env: &[(String, String)]) -> Table {
    let mut table = Table::new();
    for (key, fixed) in spelling.fixed {
        let v = match fixed {
            Fixed::Str(s) => Value::from(*s),
            Fixed::Bool(b) => Value::from(*b),
        };
        table.insert(key, Item::Value(v));
    }
    match spelling.command {
        Command::Split { command: c, args } => {
            table.insert(c, Item::Value(Value::from(command)));
            table.insert(args, Item::Value(Value::Array(Array::new())));
        }
        Command::List(c) => {
            let mut list = Array::new();
            list.push(command);
            table.insert(c, Item::Value(Value::Array(list)));
        }
    }
    let mut vars = InlineTable::new();
    for (key, value) in env {
        vars.insert(key, Value::from(value.as_str()));
    }
    table.insert(spelling.env, Item::Value(Value::InlineTable(vars)));
    table
}

/// Put `entry` at `servers` (a key path) under `name` in `doc`, creating the tables on the way
/// (implicit, so the file shows `[mcp_servers.NAME]` alone). An entry of that name is replaced
/// only with `force`.
pub fn merge(
    doc: &mut DocumentMut,
    servers: &[&str],
    name: &str,
    entry: Table,
    force: bool,
) -> Result<Outcome, String> {
    let shown = servers.join(".");
    let mut item: &mut Item = doc.as_item_mut();
    for key in servers {
        let Some(table) = item.as_table_like_mut() else {
            return Err(format!("a key on the way to [{shown}] is not a table"));
        };
        item = table.entry(key).or_insert_with(|| {
            let mut t = Table::new();
            t.set_implicit(true);
            Item::Table(t)
        });
    }
    let inline = item.is_inline_table();
    let Some(table) = item.as_table_like_mut() else {
        return Err(format!("{shown} is not a table of servers"));
    };
    let outcome = if table.contains_key(name) {
        if !force {
            return Err(format!(
                "it already has a server named {name:?} ([{shown}.{name}]); pass --force to \
                 replace it (the old file is kept as a backup), or --name to add another"
            ));
        }
        Outcome::Replaced
    } else {
        Outcome::Added
    };
    let value = if inline {
        Item::Value(Value::InlineTable(entry.into_inline_table()))
    } else {
        Item::Table(entry)
    };
    table.insert(name, value);
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::setup::clients;

    fn codex() -> &'static Spelling {
        &clients::by_name("codex").unwrap().spelling
    }

    #[test]
    fn comments_and_other_tables_are_kept() {
        let text = "# mine\nmodel = \"o3\" # the model\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        let mut doc = parse(text).unwrap();
        let env = vec![("GNAW_MCP_ROOT".to_string(), "/r".to_string())];
        let e = entry(codex(), "/bin/gnaw-mcp", &env);
        assert_eq!(
            merge(&mut doc, &["mcp_servers"], "gnaw", e, false),
            Ok(Outcome::Added)
        );
        let out = doc.to_string();
        assert!(out.starts_with(text), "{out}");
        assert!(out.contains("[mcp_servers.gnaw]\ncommand = \"/bin/gnaw-mcp\"\nargs = []\nenv = { GNAW_MCP_ROOT = \"/r\" }\n"), "{out}");
    }

    #[test]
    fn a_taken_name_is_refused_unless_forced() {
        let mut doc = parse("[mcp_servers.gnaw]\ncommand = \"old\"\n").unwrap();
        let e = || entry(codex(), "/new", &[]);
        assert!(merge(&mut doc, &["mcp_servers"], "gnaw", e(), false).is_err());
        assert_eq!(
            merge(&mut doc, &["mcp_servers"], "gnaw", e(), true),
            Ok(Outcome::Replaced)
        );
        assert!(doc.to_string().contains("\"/new\""));
        assert!(!doc.to_string().contains("old"));
    }
}
