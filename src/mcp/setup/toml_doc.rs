//! TOML client files for `gnaw-mcp setup` (Codex's `config.toml`): parsed and edited with
//! toml_edit, which keeps every comment, every other table, every value as it was written
//! (`1_000`, `0xDEAD`, `1.10`, dates, literal and multi-line strings) and the file's layout;
//! only the one entry is added or replaced. toml_edit writes `\n` line ends: a file whose lines
//! all end in `\r\n` gets them back ([`render`]).

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

/// The document as written back: toml_edit's text, with `\r\n` line ends when every line of
/// `original` ended so (a file that mixes them keeps toml_edit's `\n`, which cannot change a
/// string: those keep their own line ends).
pub fn render(doc: &DocumentMut, original: &str) -> String {
    let mut text = doc.to_string();
    // toml_edit ends every line with a newline: a file whose last line had none keeps it so.
    if !original.ends_with('\n')
        && let Some(last) = original.rsplit('\n').next()
        && !last.is_empty()
        && text.ends_with(&format!("{last}\n"))
    {
        text.pop();
    }
    let crlf = original.contains("\r\n")
        && original
            .bytes()
            .enumerate()
            .all(|(i, b)| b != b'\n' || (i > 0 && original.as_bytes()[i - 1] == b'\r'));
    if !crlf {
        return text;
    }
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    let mut previous = '\0';
    for c in text.chars() {
        if c == '\n' && previous != '\r' {
            out.push('\r');
        }
        out.push(c);
        previous = c;
    }
    out
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

    /// Everything toml_edit can be handed, kept byte for byte around the entry: values as
    /// written, comments, blank lines, order, `\r\n` line ends, a missing final newline.
    #[test]
    fn every_byte_outside_the_entry_is_kept() {
        let body = "# top\nmodel  =  \"o3\"   # the model\nbig = 1_000_000\nhex = 0xDEAD_beef\n\
                    f = 1.10\ne = 1e3\ninf = +inf\nwhen = 1979-05-27T07:32:00-08:00\n\
                    lit = 'C:\\path'\nml = \"\"\"\nline\n\"\"\"\narr = [\n  1, # one\n  2,\n]\n\
                    inl = { a = 1, b = \"x\" }\n\n[mcp_servers.other]\ncommand = \"x\"\n\n\
                    [profiles.fast] # fast\nmodel = \"mini\"";
        let env = vec![("GNAW_MCP_ROOT".to_string(), "/r".to_string())];
        for text in [
            body.to_string(),
            format!("{body}\n"),
            format!("{body}\n").replace('\n', "\r\n"),
        ] {
            let mut doc = parse(&text).unwrap();
            let e = entry(codex(), "/bin/gnaw-mcp", &env);
            merge(&mut doc, &["mcp_servers"], "gnaw", e, false).unwrap();
            let out = render(&doc, &text);
            let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
            let added = format!(
                "[mcp_servers.gnaw]{nl}command = \"/bin/gnaw-mcp\"{nl}args = []{nl}\
                 env = {{ GNAW_MCP_ROOT = \"/r\" }}{nl}{nl}"
            );
            assert!(out.contains(&added), "{out:?}");
            assert_eq!(out.replacen(&added, "", 1), text);
        }
        // Replaced in the middle: only the entry's lines change.
        let text = "a = 0o17 # x\r\n\r\n[mcp_servers.gnaw]\r\ncommand = \"old\" # old\r\n\r\n[z]\r\nq = 1.50\r\n";
        let mut doc = parse(text).unwrap();
        let e = entry(codex(), "/new", &[]);
        merge(&mut doc, &["mcp_servers"], "gnaw", e, true).unwrap();
        assert_eq!(
            render(&doc, text),
            "a = 0o17 # x\r\n\r\n[mcp_servers.gnaw]\r\ncommand = \"/new\"\r\nargs = []\r\nenv = {}\r\n\r\n[z]\r\nq = 1.50\r\n"
        );
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
