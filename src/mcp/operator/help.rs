//! The settings' part of `gnaw-mcp --help`, from [`SETTINGS`] with their defaults.

use super::{Group, Operator, SETTINGS};
use crate::spec::Widen;

/// The "Environment" part of `--help`, from [`SETTINGS`] with their defaults.
pub fn help() -> String {
    let defaults = Operator::default();
    let mut out = String::new();
    let mut group = None;
    for setting in SETTINGS {
        if group != Some(setting.group) {
            group = Some(setting.group);
            out.push_str(match setting.group {
                Group::Server => {
                    "Settings: environment variables, or in a --config file the same names\n\
                     lowercased without GNAW_MCP_ (a variable that is set wins over the file):\n"
                }
                Group::Http => "\nWith --listen (HTTP; see docs/mcp.md, section HTTP):\n",
            });
        }
        let mut text = setting.help.to_string();
        if setting.key == "repo_may_widen" {
            for w in Widen::GRANTABLE {
                text.push_str(&format!(" {}: {};", w.name(), w.effect()));
            }
            text.pop();
        }
        match setting.show(&defaults).as_str() {
            "-" => text.push_str(" (default: unset)"),
            shown => text.push_str(&format!(" (default: {shown})")),
        }
        out.push_str(&wrapped(&setting.var(), &text));
    }
    out.push_str(&wrapped(
        "RUST_LOG",
        "log filter; logs go to stderr (default: info)",
    ));
    out
}

/// `name` in a column, then `text` wrapped at 100 columns beside it.
fn wrapped(name: &str, text: &str) -> String {
    const INDENT: usize = 38;
    const WIDTH: usize = 100;
    let mut out = format!("  {name}");
    let mut col = out.len();
    if col + 1 >= INDENT {
        out.push('\n');
        col = 0;
    }
    out.push_str(&" ".repeat(INDENT - col));
    col = INDENT;
    for word in text.split_whitespace() {
        if col > INDENT && col + 1 + word.len() > WIDTH {
            out.push('\n');
            out.push_str(&" ".repeat(INDENT));
            col = INDENT;
        } else if col > INDENT {
            out.push(' ');
            col += 1;
        }
        out.push_str(word);
        col += word.len();
    }
    out.push('\n');
    out
}
