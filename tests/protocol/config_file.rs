//! `gnaw-mcp --config FILE`: the settings of a TOML file whose keys are the `GNAW_MCP_*`
//! variables' names lowercased without the prefix, through the spawned server. The file sets
//! the root and the tools; a variable that is set wins over the file; an unknown key or a bad
//! value stops the start with an error naming the file, the key and the nearest valid key;
//! `--print-config` shows what applies; the self-test child reads the same file.

#![allow(clippy::disallowed_methods)] // fixtures use std::fs directly

use crate::common;

use common::mcp_client::{Server, bin};
use serde_json::json;
use std::fs;
use std::process::Command;

/// A repository `repo/` with one file, and a config file beside it naming it relatively.
fn setup(config: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("repo")).unwrap();
    fs::write(dir.path().join("repo/a.rs"), "fn alpha() {}\n").unwrap();
    let file = dir.path().join("gnaw-mcp.toml");
    fs::write(&file, config).unwrap();
    (dir, file)
}

fn listed(server: &mut Server) -> Vec<String> {
    server.initialize("2025-11-25");
    let list = server.ok("tools/list", json!({}));
    let mut names: Vec<String> = list["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// `gnaw-mcp args` with only `env` (and PATH) set: (success, stdout, stderr).
fn run(args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let mut cmd = Command::new(bin());
    cmd.env_clear().args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_file_sets_the_root_and_the_tools() {
    let (_dir, file) = setup("root = \"repo\"\ntools = [\"read\", \"grep\"]\n");
    let file = file.to_str().unwrap();
    let mut server = Server::start_with(None, &["--config", file], &[]);
    assert_eq!(listed(&mut server), ["grep", "read"]);
    let read = server.call("read", json!({"repo": ".", "paths": ["a.rs"]}));
    assert!(read.to_string().contains("fn alpha"), "{read}");
}

#[test]
fn a_variable_that_is_set_wins_over_the_file() {
    let (_dir, file) = setup("root = \"repo\"\ntools = \"read\"\n");
    let file = file.to_str().unwrap();
    let mut server = Server::start_with(None, &["--config", file], &[("GNAW_MCP_TOOLS", "tree")]);
    assert_eq!(listed(&mut server), ["tree"]);
}

#[test]
fn an_unknown_key_names_the_file_and_the_nearest_key() {
    let (dir, file) = setup("root = \"repo\"\ndefault_max_char = 100\n");
    let (ok, _, err) = run(&["--config", file.to_str().unwrap()], &[]);
    assert!(!ok);
    assert!(err.contains(&dir.path().display().to_string()), "{err}");
    assert!(err.contains("unknown key `default_max_char`"), "{err}");
    assert!(err.contains("did you mean `default_max_chars`?"), "{err}");
    // A variable's own name as a key is pointed at its key.
    fs::write(&file, "GNAW_MCP_TOOLS = \"read\"\n").unwrap();
    let (ok, _, err) = run(&["--config", file.to_str().unwrap()], &[]);
    assert!(!ok && err.contains("so `tools`"), "{err}");
}

#[test]
fn bad_values_and_bad_toml_are_errors_naming_the_key_or_the_line() {
    for (text, expect) in [
        (
            "max_depth = 0\n",
            "`max_depth` must be a positive number of directory levels",
        ),
        (
            "max_depth = \"x\"\n",
            "`max_depth` must be a positive number",
        ),
        (
            "max_depth = true\n",
            "`max_depth` must be a number; got boolean",
        ),
        (
            "sandbox = \"loose\"\n",
            "`sandbox` must be strict, best-effort or off",
        ),
        ("tools = \"read, nosuch\"\n", "unknown tool \"nosuch\""),
        ("root = 3\n", "`root` must be a path or a list of paths"),
        ("a = [\n", "not valid TOML at line 1"),
    ] {
        let (_dir, file) = setup(text);
        let (ok, _, err) = run(&["--config", file.to_str().unwrap()], &[]);
        assert!(!ok, "{text}");
        assert!(err.contains(expect), "{text}: {err}");
    }
    let (ok, _, err) = run(&["--config", "/nonexistent/gnaw-mcp.toml"], &[]);
    assert!(
        !ok && err.contains("cannot open /nonexistent/gnaw-mcp.toml"),
        "{err}"
    );
}

/// `--config gnaw-mcp.toml`, a bare file name, is the file in the working directory (its
/// relative paths from there); a link or a FIFO named as the config is refused at once.
#[test]
fn a_bare_file_name_works_and_a_link_or_fifo_is_refused() {
    let (dir, _file) = setup("root = \"repo\"\n");
    let mut cmd = Command::new(bin());
    cmd.env_clear()
        .current_dir(dir.path())
        .args(["--config", "gnaw-mcp.toml", "--print-config"]);
    let out = cmd.output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    let root = fs::canonicalize(dir.path()).unwrap().join("repo");
    assert!(
        stdout.contains(&format!("root = \"{}\"", root.display()))
            || stdout.contains(&format!("root = \"{}\"", dir.path().join("repo").display())),
        "{stdout}"
    );
    std::os::unix::fs::symlink(dir.path().join("gnaw-mcp.toml"), dir.path().join("l.toml"))
        .unwrap();
    nix::unistd::mkfifo(&dir.path().join("f.toml"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    for (name, want) in [
        ("l.toml", "is a symbolic link"),
        ("f.toml", "is a FIFO, not a regular file"),
    ] {
        let mut cmd = Command::new(bin());
        cmd.env_clear()
            .current_dir(dir.path())
            .args(["--config", name, "--print-config"]);
        let run = crate::common::process::run_within(cmd, std::time::Duration::from_secs(60));
        assert!(!run.status.success(), "{name}");
        assert!(run.stderr.contains(want), "{name}: {}", run.stderr);
    }
}

#[test]
fn print_config_shows_every_setting_and_its_source_order() {
    let (dir, file) = setup("root = \"repo\"\nmax_depth = 9\ndefault_max_chars = 1234\n");
    let (ok, out, err) = run(
        &["--config", file.to_str().unwrap(), "--print-config"],
        &[("GNAW_MCP_MAX_DEPTH", "7")],
    );
    assert!(ok, "{err}");
    assert!(out.contains("max_depth = 7\n"), "{out}");
    assert!(out.contains("default_max_chars = 1234\n"), "{out}");
    let root = dir.path().join("repo");
    assert!(
        out.contains(&format!("root = \"{}\"", root.display())),
        "{out}"
    );
    // What it prints is itself a config file that means the same.
    let again = dir.path().join("again.toml");
    fs::write(&again, &out).unwrap();
    let (ok, out2, err) = run(
        &["--config", again.to_str().unwrap(), "--print-config"],
        &[],
    );
    assert!(ok, "{err}");
    assert_eq!(out, out2);
}

#[test]
fn the_self_test_child_reads_the_same_file() {
    // The file names the root; with no GNAW_MCP_ROOT, only a child that read the file too
    // can probe it, and every probe passes.
    let (_dir, file) = setup("root = \"repo\"\n");
    let (ok, out, err) = run(&["--config", file.to_str().unwrap(), "--self-test"], &[]);
    assert!(ok, "{out}\n{err}");
    assert!(out.contains(" 0 failed"), "{out}");
}
