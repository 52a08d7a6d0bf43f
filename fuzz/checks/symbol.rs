//! Symbol lookup over a one-file repository, end to end through the driver as the `symbol` tool
//! runs it (walk, read, redaction, parse in a worker, match, fit to the budget): the first byte
//! picks the language, the bytes up to the first newline are the name asked for (at most 64),
//! the rest is the file. The lookup answers (or refuses the name as an argument error), its
//! answer fits its budget, and a name it shows as defined is one the file's text holds.

use super::language;
use gnaw::driver::call::{NavError, Request};
use gnaw::driver::nav::symbol::{SymbolArgs, symbol};
use gnaw_sandbox::Root;

pub fn check(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let (_, ext) = language(which);
    let (name, text) = match rest.iter().position(|&b| b == b'\n') {
        Some(i) => (&rest[..i.min(64)], &rest[i + 1..]),
        None => (&rest[..rest.len().min(16)], rest),
    };
    let name = String::from_utf8_lossy(name);
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join(format!("f.{ext}")), text).expect("write");
    let root = Root::new(dir.path(), false).expect("root");
    let budget = 2_000;
    let req = Request::alone(root.as_dir(), budget, 50_000);
    let args = SymbolArgs {
        name: name.into_owned(),
        limit: Some(5),
    };
    match symbol(&req, &args) {
        Ok(answer) => {
            assert!(
                answer.page.tokens <= budget,
                "{} tokens over {budget}",
                answer.page.tokens
            );
            assert!(
                answer.page.text.len() <= 50_000,
                "{} bytes",
                answer.page.text.len()
            );
            assert!(answer.facts.shown <= 5);
            if let Some(reason) = answer
                .page
                .text
                .lines()
                .find(|l| l.contains("exited with code"))
            {
                super::assert_not_a_panic(reason);
            }
        }
        Err(NavError::Argument { .. }) => {}
        Err(NavError::Run(e)) => panic!("the lookup failed: {e}"),
    }
}
