//! What `--help` lists comes from the declarations: `gnaw --help` names every subcommand
//! (`gnaw::cli::nav::SUBCOMMANDS`, and `completions` and `man`), and `gnaw-mcp --help` opens by
//! saying it is an MCP server and names every tool of the registry (`gnaw::mcp::tools::TOOLS`).

use std::process::Command;

fn help(bin: &str) -> String {
    let out = Command::new(bin)
        .arg("--help")
        .output()
        .expect("run --help");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn gnaw_help_lists_every_subcommand() {
    let text = help(env!("CARGO_BIN_EXE_gnaw"));
    let commands = text
        .split("\nCommands:\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .unwrap_or_else(|| panic!("no Commands: section in\n{text}"));
    let listed: Vec<&str> = commands
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let mut declared: Vec<&str> = gnaw::cli::nav::SUBCOMMANDS.iter().map(|s| s.name).collect();
    declared.extend(gnaw::cli::meta::COMMANDS);
    assert_eq!(listed, declared, "{text}");
    assert!(declared.contains(&"related") && declared.contains(&"hotspots"));
}

#[test]
fn gnaw_mcp_help_opens_by_saying_what_it_is() {
    let text = help(env!("CARGO_BIN_EXE_gnaw-mcp"));
    let first = text.split("\n\n").next().unwrap_or_default();
    assert!(first.starts_with("gnaw-mcp: an MCP server"), "{first}");
    // The tools, in parentheses: every one, and only tools (besides the words between them).
    let inside = first
        .split_once('(')
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(inside, _)| inside)
        .unwrap_or_default();
    let words: Vec<&str> = inside
        .split(|c: char| c == ',' || c == ';' || c.is_whitespace())
        .filter(|w| !w.is_empty())
        .filter(|w| !["and", "when", "GNAW_MCP_TOOLS", "turns", "them", "on"].contains(w))
        .collect();
    let mut names: Vec<&str> = gnaw::mcp::tools::TOOLS.iter().map(|t| t.name()).collect();
    let mut shown = words.clone();
    names.sort_unstable();
    shown.sort_unstable();
    assert_eq!(shown, names, "{first}");
}
