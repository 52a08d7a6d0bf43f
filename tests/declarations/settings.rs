//! `docs/mcp.md`'s tables of settings agree with the one table of them
//! (`gnaw::mcp::operator::SETTINGS`): every setting has a row, every `GNAW_MCP_*` variable a row
//! names is a setting, and the default a row gives is the one `--help` and `--print-config` show.
//!
//! A row names its variable in a cell of its own (its default is then the row's last cell), or
//! as "`GNAW_MCP_X` (default)" (the bounds of the HTTP front door). A default is written as
//! the setting shows it, in backticks or not, and may be followed by words in parentheses;
//! `unset` for a setting that has none.

use super::read;
use gnaw::mcp::operator::{Operator, SETTINGS};
use std::collections::BTreeMap;

/// Every row of the doc's tables that names a setting: its variable, and the default it gives.
fn documented(doc: &str) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    for line in doc.lines().filter(|l| l.starts_with("| `GNAW_MCP_")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
        let var = cells[0].trim_matches('`').to_string();
        let default = cells.last().unwrap_or(&"").to_string();
        rows.push((var, default));
    }
    let inline = regex::Regex::new(r"\| `(GNAW_MCP_[A-Z_]+)` \(([^)]*)\)").unwrap();
    for c in inline.captures_iter(doc) {
        rows.push((c[1].to_string(), c[2].to_string()));
    }
    rows
}

/// Whether the cell `given` says `shown`: as it is, in backticks, or either followed by words
/// in parentheses; `unset` for `-`.
fn says(given: &str, shown: &str) -> bool {
    let shown = if shown == "-" { "unset" } else { shown };
    [shown.to_string(), format!("`{shown}`")]
        .iter()
        .any(|s| given == s || given.starts_with(&format!("{s} (")))
}

#[test]
fn the_docs_tables_give_every_setting_with_its_default() {
    let doc = read("docs/mcp.md");
    let rows = documented(&doc);
    let defaults = Operator::default();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (var, given) in &rows {
        let Some(setting) = SETTINGS.iter().find(|s| &s.var() == var) else {
            panic!("docs/mcp.md has a row for {var}, which is no setting");
        };
        let shown = setting.show(&defaults);
        assert!(
            says(given, &shown),
            "docs/mcp.md: {var}'s default is {given:?}; SETTINGS says {shown:?}"
        );
        *seen.entry(var.clone()).or_default() += 1;
    }
    for s in SETTINGS {
        assert!(
            seen.contains_key(&s.var()),
            "docs/mcp.md has no row for {} (default {})",
            s.var(),
            s.show(&defaults)
        );
    }
}

/// The reader sees both forms of row, and a wrong default is seen wrong.
#[test]
fn the_reader_reads_both_forms() {
    let doc = "| `GNAW_MCP_SANDBOX` | how | `strict` |\n\
               | body | `GNAW_MCP_MAX_LINE_BYTES` (4194304), from `Content-Length` | 413 |\n";
    let rows = documented(doc);
    assert_eq!(
        rows,
        [
            ("GNAW_MCP_SANDBOX".to_string(), "`strict`".to_string()),
            ("GNAW_MCP_MAX_LINE_BYTES".to_string(), "4194304".to_string()),
        ]
    );
    assert!(says("`64` (a note)", "64") && says("unset", "-"));
    assert!(!says("`640`", "64") && !says("64 MiB", "67108864"));
}
