//! The CLI as the tests run it (the built `gnaw`, stdin closed, no user config), and the
//! reference token count its output is checked against: tiktoken-rs, independent of gnaw's own
//! counter.

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// `gnaw ARGS`, with stdin closed and no user configuration.
pub fn gnaw(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gnaw"))
        .args(args)
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::null())
        .output()
        .expect("run gnaw")
}

/// `gnaw REPO ARGS`, with stdin closed and no user configuration.
pub fn gnaw_on(repo: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gnaw"))
        .arg(repo)
        .args(args)
        .env_remove("XDG_CONFIG_HOME")
        .stdin(Stdio::null())
        .output()
        .expect("run gnaw")
}

/// The standard output of a run that must have succeeded.
pub fn ok_stdout(out: Output) -> String {
    assert!(
        out.status.success(),
        "gnaw failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("gnaw's output is UTF-8")
}

/// The reference token count (o200k_base, by tiktoken-rs).
pub fn reference_count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

/// `gnaw REPO ARGS` with `stdin` (closed when `None`), no user configuration, and `$HOME` set to
/// `home` when given (so no ignore file of the user's is read).
pub fn gnaw_stdin(repo: &Path, args: &[&str], stdin: Option<&[u8]>, home: Option<&Path>) -> Output {
    use std::io::Write;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gnaw"));
    cmd.arg(repo).args(args).env_remove("XDG_CONFIG_HOME");
    if let Some(home) = home {
        cmd.env("HOME", home);
    }
    let mut child = cmd
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run gnaw");
    if let Some(input) = stdin {
        child.stdin.take().unwrap().write_all(input).unwrap();
    }
    child.wait_with_output().unwrap()
}
