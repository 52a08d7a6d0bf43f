//! `gnaw-mcp setup CLIENT`, run as a user would: the built binary, a temporary `$HOME` and
//! workspace, real client files. For every client: the printed entry names this binary and the
//! root; `--write` creates a missing file, keeps every other server, top-level key and key order
//! (and, in TOML, comments), refuses a taken name without `--force` and leaves the file
//! byte-identical, replaces with `--force` keeping the old bytes in a new backup (`FILE.bak`,
//! then `FILE.bak.1` ...: never over an existing file), and refuses a malformed file naming it,
//! leaving it byte-identical. Every byte but the entry's is kept (numbers as written, JSONC
//! comments, layout). Hostile client files: links (at the file, at `.vscode`, dangling), FIFOs
//! (for the file and its backup), a directory, a huge file, control characters in names. The expected files and spellings here
//! are written from the clients' documentation, independently of the table in
//! `src/mcp/setup/clients.rs`.
//!
//! Run alone: `cargo test --test setup`.

#![allow(clippy::disallowed_methods)] // fixtures and probes use std::fs directly

mod common;

use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::process::{Run, run_within};
use serde_json::Value;

/// Where a client's file is rooted.
#[derive(Clone, Copy)]
enum Base {
    Home,
    Config,
    Workspace,
}

/// One client as its documentation describes it.
struct Expect {
    name: &'static str,
    base: Base,
    /// TOML when its name ends in `.toml`, JSON otherwise.
    file: &'static str,
    servers: &'static str,
    /// The command is a list (program first) rather than a string plus `args`.
    command_list: bool,
    env: &'static str,
    /// Fields the client requires besides command and environment.
    fixed: &'static [(&'static str, &'static str)],
}

impl Expect {
    /// A client whose servers are under `servers` in `base/file`: the command a string plus
    /// `args`, the environment under `env`, no other field required.
    const fn new(
        name: &'static str,
        base: Base,
        file: &'static str,
        servers: &'static str,
    ) -> Self {
        Expect {
            name,
            base,
            file,
            servers,
            command_list: false,
            env: "env",
            fixed: &[],
        }
    }

    /// As it is, and also requiring the fields `fixed`.
    const fn with(self, fixed: &'static [(&'static str, &'static str)]) -> Self {
        Expect { fixed, ..self }
    }

    /// As it is, but with the command a list and the environment under `env`.
    const fn command_list(self, env: &'static str) -> Self {
        Expect {
            command_list: true,
            env,
            ..self
        }
    }

    fn toml(&self) -> bool {
        self.file.ends_with(".toml")
    }
}

const STDIO: &[(&str, &str)] = &[("type", "\"stdio\"")];

const EXPECT: &[Expect] = &[
    Expect::new("claude-code", Base::Home, ".claude.json", "mcpServers").with(STDIO),
    Expect::new(
        "claude-desktop",
        Base::Config,
        "Claude/claude_desktop_config.json",
        "mcpServers",
    ),
    Expect::new("cursor", Base::Home, ".cursor/mcp.json", "mcpServers"),
    Expect::new("vscode", Base::Workspace, ".vscode/mcp.json", "servers").with(STDIO),
    Expect::new("codex", Base::Home, ".codex/config.toml", "mcp_servers"),
    Expect::new("gemini", Base::Home, ".gemini/settings.json", "mcpServers"),
    Expect::new("opencode", Base::Config, "opencode/opencode.json", "mcp")
        .command_list("environment")
        .with(&[("type", "\"local\""), ("enabled", "true")]),
    Expect::new("zed", Base::Config, "zed/settings.json", "context_servers"),
];

/// A temporary home and workspace (the working directory of every run).
struct Setup {
    _dir: tempfile::TempDir,
    home: PathBuf,
    work: PathBuf,
}

fn exe() -> PathBuf {
    fs::canonicalize(env!("CARGO_BIN_EXE_gnaw-mcp")).unwrap()
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let base = fs::canonicalize(dir.path()).unwrap();
        let (home, work) = (base.join("home"), base.join("work"));
        fs::create_dir(&home).unwrap();
        fs::create_dir(&work).unwrap();
        Setup {
            _dir: dir,
            home,
            work,
        }
    }

    fn file(&self, e: &Expect) -> PathBuf {
        match e.base {
            Base::Home => self.home.join(e.file),
            Base::Config => self.home.join(".config").join(e.file),
            Base::Workspace => self.work.join(e.file),
        }
    }

    fn run(&self, args: &[&str]) -> Run {
        let mut cmd = Command::new(exe());
        cmd.arg("setup")
            .args(args)
            .current_dir(&self.work)
            .env("HOME", &self.home)
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("GNAW_MCP_ROOT")
            .env_remove("GNAW_MCP_TOOLS");
        run_within(cmd, Duration::from_secs(60))
    }

    fn ok(&self, args: &[&str]) -> Run {
        let run = self.run(args);
        assert!(
            run.status.success(),
            "setup {args:?} failed: {}{}",
            run.stdout,
            run.stderr
        );
        run
    }

    fn fails(&self, args: &[&str]) -> Run {
        let run = self.run(args);
        assert!(
            !run.status.success(),
            "setup {args:?} should fail: {}",
            run.stdout
        );
        run
    }
}

/// The file as JSON (TOML converted), for reading fields back.
fn read_back(e: &Expect, path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap();
    if e.toml() {
        serde_json::to_value(toml::from_str::<toml::Table>(&text).unwrap()).unwrap()
    } else {
        serde_json::from_str(&text).unwrap()
    }
}

/// Check the entry `name` in `doc` runs this binary on `root`.
fn assert_entry(e: &Expect, doc: &Value, name: &str, root: &Path) {
    let entry = &doc[e.servers][name];
    assert!(entry.is_object(), "{}: no entry {name} in {doc}", e.name);
    let exe = exe().to_str().unwrap().to_owned();
    if e.command_list {
        assert_eq!(entry["command"], serde_json::json!([exe]), "{}", e.name);
    } else {
        assert_eq!(entry["command"], Value::String(exe), "{}", e.name);
    }
    assert_eq!(
        entry[e.env]["GNAW_MCP_ROOT"],
        Value::String(root.to_str().unwrap().to_owned()),
        "{}: {entry}",
        e.name
    );
    for (key, value) in e.fixed {
        assert_eq!(
            entry[*key],
            serde_json::from_str::<Value>(value).unwrap(),
            "{}: {entry}",
            e.name
        );
    }
}

/// A file with another server, other top-level keys and (in TOML) comments.
fn existing(e: &Expect) -> String {
    if e.toml() {
        format!(
            "# my settings\nmodel = \"o3\" # the model\n\n[{}.other]\ncommand = \"/bin/other\"\n\n\
             [profiles.fast]\nmodel = \"mini\"\n",
            e.servers
        )
    } else {
        format!(
            "{{\n  \"zzz\": 1,\n  \"{}\": {{\n    \"other\": {{\n      \"command\": \"/bin/other\"\n    }}\n  }},\n  \"aaa\": {{\n    \"keep\": [1, 2.5, null, 1.10, 12345678901234567890123]\n  }}\n}}\n",
            e.servers
        )
    }
}

/// `text` without the member `"name": {...}` a merge added and the comma put before it.
fn without_entry(text: &str, name: &str) -> String {
    let key = text.find(&format!("\"{name}\": {{")).expect("the entry");
    let comma = text[..key].rfind(',').expect("a comma before the entry");
    let open = key + text[key..].find('{').unwrap();
    let mut depth = 0;
    let mut close = open;
    for (i, c) in text[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = open + i;
                    break;
                }
            }
            _ => {}
        }
    }
    format!("{}{}", &text[..comma], &text[close + 1..])
}

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn print_mode_shows_the_file_binary_and_root_and_writes_nothing() {
    for e in EXPECT {
        let s = Setup::new();
        let run = s.ok(&[e.name]);
        let file = s.file(e);
        assert!(
            run.stdout.contains(file.to_str().unwrap()),
            "{}: {}",
            e.name,
            run.stdout
        );
        assert!(
            run.stdout.contains(exe().to_str().unwrap()),
            "{}",
            run.stdout
        );
        assert!(
            run.stdout
                .contains(&format!("{:?}", s.work.to_str().unwrap()))
                || run.stdout.contains(s.work.to_str().unwrap()),
            "{}",
            run.stdout
        );
        assert!(run.stdout.contains(e.servers), "{}", run.stdout);
        assert!(
            !file.exists(),
            "{}: print mode wrote {}",
            e.name,
            file.display()
        );
    }
}

#[test]
fn print_mode_spells_the_entry_as_the_client_reads_it() {
    // The printed entry is itself a valid document holding the entry the client expects.
    for e in EXPECT {
        let s = Setup::new();
        let run = s.ok(&[e.name, "--tools", "minimal", "--env", "RUST_LOG=debug"]);
        let start = run.stdout.find(if e.toml() { "[" } else { "{" }).unwrap();
        let end = run.stdout.find("\nTo add it").unwrap();
        let body = &run.stdout[start..end];
        let doc: Value = if e.toml() {
            serde_json::to_value(toml::from_str::<toml::Table>(body).unwrap()).unwrap()
        } else {
            serde_json::from_str(body).unwrap()
        };
        assert_entry(e, &doc, "gnaw", &s.work);
        let env = &doc[e.servers]["gnaw"][e.env];
        assert_eq!(env["GNAW_MCP_TOOLS"], "minimal", "{}", e.name);
        assert_eq!(env["RUST_LOG"], "debug", "{}", e.name);
    }
}

#[test]
fn write_creates_a_missing_file_and_its_directories() {
    for e in EXPECT {
        let s = Setup::new();
        let run = s.ok(&[e.name, "--write"]);
        let file = s.file(e);
        assert!(file.is_file(), "{}: {}", e.name, run.stdout);
        assert_entry(e, &read_back(e, &file), "gnaw", &s.work);
        assert!(!Path::new(&format!("{}.bak", file.display())).exists());
        // Nothing else is left in the directory (no temporary file).
        let names: Vec<_> = fs::read_dir(file.parent().unwrap())
            .unwrap()
            .map(|d| d.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{}: {names:?}", e.name);
    }
}

#[test]
fn write_keeps_every_other_entry_key_order_and_comment() {
    for e in EXPECT {
        let s = Setup::new();
        let file = s.file(e);
        let before = existing(e);
        write(&file, &before);
        let root = s.home.clone();
        s.ok(&[e.name, "--write", "--root", root.to_str().unwrap()]);
        let after = fs::read_to_string(&file).unwrap();
        let doc = read_back(e, &file);
        assert_entry(e, &doc, "gnaw", &root);
        assert_eq!(
            doc[e.servers]["other"]["command"], "/bin/other",
            "{}",
            e.name
        );
        if e.toml() {
            // Every line kept, in order (the new table goes beside the other server).
            let mut lines = after.lines();
            for line in before.lines() {
                assert!(lines.any(|l| l == line), "{line:?} lost or moved: {after}");
            }
            assert!(after.contains("# my settings\n") && after.contains("# the model"));
            assert_eq!(doc["profiles"]["fast"]["model"], "mini");
        } else {
            assert_eq!(doc["zzz"], 1);
            // Every byte of the file but the entry's is kept: numbers as written, layout.
            assert_eq!(without_entry(&after, "gnaw"), before, "{}", e.name);
            // Keys stay in the file's order, the new server after the old one.
            let at = |k: &str| after.find(k).unwrap_or_else(|| panic!("{k} in {after}"));
            assert!(at("\"zzz\"") < at(&format!("\"{}\"", e.servers)), "{after}");
            assert!(at("\"other\"") < at("\"gnaw\""), "{after}");
            assert!(at("\"gnaw\"") < at("\"aaa\""), "{after}");
        }
    }
}

#[test]
fn a_taken_name_is_refused_without_force_and_the_file_is_untouched() {
    for e in EXPECT {
        let s = Setup::new();
        let file = s.file(e);
        s.ok(&[e.name, "--write"]);
        let before = fs::read(&file).unwrap();
        let run = s.fails(&[e.name, "--write", "--root", s.home.to_str().unwrap()]);
        assert!(
            run.stderr.contains(file.to_str().unwrap()) && run.stderr.contains("--force"),
            "{}: {}",
            e.name,
            run.stderr
        );
        assert_eq!(fs::read(&file).unwrap(), before, "{}", e.name);
        assert!(!Path::new(&format!("{}.bak", file.display())).exists());
        // Another name is added beside it.
        s.ok(&[
            e.name,
            "--write",
            "--name",
            "gnaw-home",
            "--root",
            s.home.to_str().unwrap(),
        ]);
        let doc = read_back(e, &file);
        assert_entry(e, &doc, "gnaw", &s.work);
        assert_entry(e, &doc, "gnaw-home", &s.home);
    }
}

#[test]
fn force_replaces_and_keeps_the_old_bytes_in_a_backup() {
    for e in EXPECT {
        let s = Setup::new();
        let file = s.file(e);
        write(&file, &existing(e));
        s.ok(&[e.name, "--write"]);
        let before = fs::read(&file).unwrap();
        let run = s.ok(&[
            e.name,
            "--write",
            "--force",
            "--root",
            s.home.to_str().unwrap(),
        ]);
        // The first write kept the file it found as FILE.bak; this one keeps its own beside it.
        let first = PathBuf::from(format!("{}.bak", file.display()));
        assert_eq!(
            fs::read_to_string(&first).unwrap(),
            existing(e),
            "{}",
            e.name
        );
        let backup = PathBuf::from(format!("{}.bak.1", file.display()));
        assert_eq!(fs::read(&backup).unwrap(), before, "{}", e.name);
        assert!(
            run.stdout.contains(backup.to_str().unwrap()),
            "{}",
            run.stdout
        );
        let doc = read_back(e, &file);
        assert_entry(e, &doc, "gnaw", &s.home);
        assert_eq!(doc[e.servers]["other"]["command"], "/bin/other");
    }
}

#[test]
fn a_malformed_file_is_named_and_left_untouched() {
    for e in EXPECT {
        let s = Setup::new();
        let file = s.file(e);
        let broken = if e.toml() {
            "model = \"o3\"\n[mcp_servers.other\ncommand = 1\n"
        } else {
            "{\n  \"mcpServers\": {\n    \"other\": { \"command\": \"x\" },,\n  }\n}\n"
        };
        write(&file, broken);
        let run = s.fails(&[e.name, "--write"]);
        assert!(
            run.stderr.contains(file.to_str().unwrap()),
            "{}: {}",
            e.name,
            run.stderr
        );
        assert!(run.stderr.contains("line"), "{}: {}", e.name, run.stderr);
        assert!(run.stderr.contains("Nothing was changed"), "{}", run.stderr);
        assert_eq!(fs::read_to_string(&file).unwrap(), broken, "{}", e.name);
        assert!(!Path::new(&format!("{}.bak", file.display())).exists());
    }
}

#[test]
fn json_with_comments_numbers_and_trailing_commas_keeps_every_byte() {
    let s = Setup::new();
    let file = s.work.join(".vscode/mcp.json");
    let text = "{\n  // my servers\n  \"n\": 12345678901234567890123,\n  \"f\": 1.10,\n  \
                \"servers\": {\n    \"old\": {\"command\": \"x\"}, // keep\n  },\n}\n";
    write(&file, text);
    s.ok(&["vscode", "--write"]);
    let q = |p: &Path| serde_json::to_string(p.to_str().unwrap()).unwrap();
    let want = format!(
        "{{\n  // my servers\n  \"n\": 12345678901234567890123,\n  \"f\": 1.10,\n  \
         \"servers\": {{\n    \"old\": {{\"command\": \"x\"}}, // keep\n    \"gnaw\": {{\n      \
         \"type\": \"stdio\",\n      \"command\": {},\n      \"args\": [],\n      \"env\": {{\n        \
         \"GNAW_MCP_ROOT\": {}\n      }}\n    }},\n  }},\n}}\n",
        q(&exe()),
        q(&s.work)
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), want);
    assert_eq!(
        fs::read_to_string(s.work.join(".vscode/mcp.json.bak")).unwrap(),
        text
    );
}

#[test]
fn an_unknown_client_is_refused_with_every_valid_name() {
    let s = Setup::new();
    let run = s.fails(&["notepad"]);
    for e in EXPECT {
        assert!(
            run.stderr.contains(e.name),
            "{} missing: {}",
            e.name,
            run.stderr
        );
    }
    // And the help lists them too.
    let help = s.ok(&["--help"]);
    for e in EXPECT {
        assert!(help.stdout.contains(e.name), "{}", help.stdout);
    }
}

#[test]
fn only_gnaw_mcp_settings_pass_through_env() {
    let s = Setup::new();
    for (args, says) in [
        (["--env", "PATH=/tmp"], "GNAW_MCP_"),
        (["--env", "GNAW_MCP_ROOT=/tmp"], "--root"),
        (["--tools", "nonsense"], "GNAW_MCP_TOOLS"),
        // A setting gnaw-mcp does not have, or a value it refuses, is refused here, by the
        // same table the server reads its settings with.
        (
            ["--env", "GNAW_MCP_MAX_DEPT=3"],
            "did you mean GNAW_MCP_MAX_DEPTH",
        ),
        (["--env", "GNAW_MCP_MAX_DEPTH=deep"], "positive number"),
    ] {
        let run = s.fails(&["cursor", args[0], args[1]]);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
    }
    let entry = s.ok(&["cursor", "--env", "GNAW_MCP_SANDBOX=strict"]).stdout;
    assert!(
        entry.contains("\"GNAW_MCP_SANDBOX\": \"strict\""),
        "{entry}"
    );
}

#[test]
fn several_roots_are_joined_canonical() {
    let s = Setup::new();
    let link = s.work.join("via-link");
    std::os::unix::fs::symlink(&s.home, &link).unwrap();
    let run = s.ok(&["codex", "--root", ".", "--root", "via-link"]);
    let joined = format!("{}:{}", s.work.display(), s.home.display());
    assert!(run.stdout.contains(&joined), "{}", run.stdout);
    let run = s.fails(&["codex", "--root", "missing"]);
    assert!(run.stderr.contains("missing"), "{}", run.stderr);
}

#[test]
fn xdg_config_home_is_honoured() {
    let s = Setup::new();
    let xdg = s.work.join("xdg");
    let mut cmd = Command::new(exe());
    cmd.args(["setup", "opencode", "--write"])
        .current_dir(&s.work)
        .env("HOME", &s.home)
        .env("XDG_CONFIG_HOME", &xdg);
    let run = run_within(cmd, Duration::from_secs(60));
    assert!(run.status.success(), "{}", run.stderr);
    assert!(xdg.join("opencode/opencode.json").is_file());
}

#[test]
fn setup_ignores_the_servers_own_settings() {
    // It confines nothing and reads no GNAW_MCP_ROOT: a nonsense root or sandbox mode in the
    // environment changes nothing.
    let s = Setup::new();
    let mut cmd = Command::new(exe());
    cmd.args(["setup", "cursor"])
        .current_dir(&s.work)
        .env("HOME", &s.home)
        .env("GNAW_MCP_ROOT", "/nonexistent")
        .env("GNAW_MCP_SANDBOX", "nonsense");
    let run = run_within(cmd, Duration::from_secs(60));
    assert!(run.status.success(), "{}", run.stderr);
    assert!(run.stdout.contains(s.work.to_str().unwrap()));
    assert!(!run.stdout.contains("/nonexistent"));
}

#[test]
fn a_linked_client_file_is_refused_and_permissions_are_kept() {
    use std::os::unix::fs::PermissionsExt;
    let s = Setup::new();
    let real = s.home.join("dotfiles/cursor.json");
    write(&real, "{\"mcpServers\": {}}\n");
    let link = s.home.join(".cursor/mcp.json");
    fs::create_dir_all(link.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let run = s.fails(&["cursor", "--write"]);
    assert!(
        run.stderr.contains("is a symbolic link (to ") && run.stderr.contains("without --write"),
        "{}",
        run.stderr
    );
    assert!(fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(fs::read_to_string(&real).unwrap(), "{\"mcpServers\": {}}\n");
    assert!(!s.home.join("dotfiles/cursor.json.bak").exists());
    assert!(!s.home.join(".cursor/mcp.json.bak").exists());
    // A file of its own keeps its permissions, and so does its backup.
    fs::remove_file(&link).unwrap();
    write(&link, "{\"mcpServers\": {}}\n");
    fs::set_permissions(&link, fs::Permissions::from_mode(0o640)).unwrap();
    s.ok(&["cursor", "--write"]);
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&link), 0o640);
    assert_eq!(mode(&s.home.join(".cursor/mcp.json.bak")), 0o640);
    // A new file is its owner's alone (clients may add tokens to it later).
    s.ok(&["gemini", "--write"]);
    assert_eq!(mode(&s.home.join(".gemini/settings.json")), 0o600);
}

/// A workspace is the repository's: a `.vscode/mcp.json` committed as a link (to a JSON file of
/// the user's, dangling towards `authorized_keys`), or `.vscode` itself as a link, is never
/// followed; nothing outside the workspace is written, created or backed up.
#[test]
fn no_link_in_the_workspace_is_followed_at_any_level() {
    let s = Setup::new();
    let outside = s.home.join("outside");
    let victim = outside.join("victim.json");
    let victim_text = "{\"mine\": 12345678901234567890123}\n";
    write(&victim, victim_text);
    let vscode = s.work.join(".vscode");
    let cases: [(&str, &dyn Fn()); 4] = [
        ("the file, to a file of the user's", &|| {
            fs::create_dir_all(&vscode).unwrap();
            std::os::unix::fs::symlink(&victim, vscode.join("mcp.json")).unwrap();
        }),
        ("the file, dangling", &|| {
            fs::create_dir_all(&vscode).unwrap();
            std::os::unix::fs::symlink(outside.join("authorized_keys"), vscode.join("mcp.json"))
                .unwrap();
        }),
        (".vscode, to a directory of the user's", &|| {
            std::os::unix::fs::symlink(&outside, &vscode).unwrap()
        }),
        (".vscode, dangling", &|| {
            std::os::unix::fs::symlink(outside.join("made"), &vscode).unwrap()
        }),
    ];
    for (what, make) in cases {
        let _ = fs::remove_file(vscode.join("mcp.json"));
        let _ = fs::remove_file(&vscode);
        let _ = fs::remove_dir(&vscode);
        make();
        let run = s.fails(&["vscode", "--write"]);
        assert!(
            run.stderr.contains("is a symbolic link"),
            "{what}: {}",
            run.stderr
        );
        assert!(run.stderr.contains("repository"), "{what}: {}", run.stderr);
        assert_eq!(fs::read_to_string(&victim).unwrap(), victim_text, "{what}");
        let mut names: Vec<_> = fs::read_dir(&outside)
            .unwrap()
            .map(|d| d.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["victim.json"],
            "{what}: written outside the workspace"
        );
    }
}

/// A FIFO as the client file is refused at once; a FIFO, a link or the user's own file at
/// `FILE.bak` is left alone, and the backup takes the next free number.
#[test]
fn a_fifo_never_blocks_and_a_backup_never_overwrites_a_file() {
    let s = Setup::new();
    let file = s.home.join(".cursor/mcp.json");
    fs::create_dir_all(file.parent().unwrap()).unwrap();
    nix::unistd::mkfifo(&file, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let run = s.fails(&["cursor", "--write"]);
    assert!(
        run.stderr.contains("is a FIFO, not a regular file"),
        "{}",
        run.stderr
    );
    assert!(run.elapsed < Duration::from_secs(20), "{:?}", run.elapsed);
    fs::remove_file(&file).unwrap();

    let bak = |n: &str| s.home.join(format!(".cursor/mcp.json.bak{n}"));
    write(&file, "{\"mcpServers\": {}}\n");
    write(&bak(""), "the user's own backup\n");
    nix::unistd::mkfifo(&bak(".1"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    std::os::unix::fs::symlink(s.home.join("victim"), bak(".2")).unwrap();
    let before = fs::read(&file).unwrap();
    let run = s.ok(&["cursor", "--write"]);
    assert!(run.elapsed < Duration::from_secs(20), "{:?}", run.elapsed);
    assert!(run.stdout.contains("mcp.json.bak.3"), "{}", run.stdout);
    assert_eq!(fs::read(bak(".3")).unwrap(), before);
    assert_eq!(
        fs::read_to_string(bak("")).unwrap(),
        "the user's own backup\n"
    );
    assert!(
        fs::symlink_metadata(bak(".1"))
            .unwrap()
            .file_type()
            .is_fifo()
    );
    assert!(fs::symlink_metadata(bak(".2")).unwrap().is_symlink());
    assert!(!s.home.join("victim").exists());
    // The next write keeps this one too.
    let before = fs::read(&file).unwrap();
    s.ok(&["cursor", "--write", "--force"]);
    assert_eq!(fs::read(bak(".4")).unwrap(), before);
    assert_eq!(fs::read(bak(".3")).unwrap(), b"{\"mcpServers\": {}}\n");
}

/// A directory where the file should be, a huge file, a file that is not UTF-8: refused,
/// named, left as they are.
#[test]
fn what_is_not_a_client_file_is_refused_and_left_alone() {
    let s = Setup::new();
    let file = s.home.join(".cursor/mcp.json");
    fs::create_dir_all(&file).unwrap();
    let run = s.fails(&["cursor", "--write"]);
    assert!(
        run.stderr.contains("is a directory, not a regular file"),
        "{}",
        run.stderr
    );
    assert!(file.is_dir());
    fs::remove_dir(&file).unwrap();
    let huge = fs::File::create(&file).unwrap();
    huge.set_len((64 << 20) + 1).unwrap();
    drop(huge);
    let run = s.fails(&["cursor", "--write"]);
    assert!(
        run.stderr.contains("is larger than 67108864 bytes"),
        "{}",
        run.stderr
    );
    assert_eq!(fs::metadata(&file).unwrap().len(), (64 << 20) + 1);
    fs::write(&file, b"{\"a\": \"\xff\"}").unwrap();
    let run = s.fails(&["cursor", "--write"]);
    assert!(run.stderr.contains("not UTF-8"), "{}", run.stderr);
    let names: Vec<_> = fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|d| d.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

/// Names with control characters reach a message escaped, never raw.
#[test]
fn a_workspace_named_with_control_characters_is_shown_escaped() {
    let s = Setup::new();
    let ws = s.work.join("ws\x1b]0;title\x07");
    fs::create_dir_all(&ws).unwrap();
    std::os::unix::fs::symlink("/nonexistent", ws.join(".vscode")).unwrap();
    let run = s.fails(&["vscode", "--write", "--workspace", ws.to_str().unwrap()]);
    assert!(
        !run.stderr.contains('\x1b') && !run.stderr.contains('\x07'),
        "{:?}",
        run.stderr
    );
    assert!(
        run.stderr.contains("ws\\u{1b}]0;title\\u{7}"),
        "{:?}",
        run.stderr
    );
}
