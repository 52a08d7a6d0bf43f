//! Fuzz `.gnawconfig` parsing (`gnaw::gnawconfig::parse`) with any text and any profile name, then
//! compile what it yields the way a run does: the include and exclude globs, the secrets allow
//! list. Nothing may panic or overflow the stack; every error must say which key or which
//! pattern is at fault.
//!
//! The first line of the input, when it starts with `@`, names the profile to select.
#![no_main]
// libfuzzer-sys writes crash files with std::fs.
#![allow(clippy::disallowed_methods)]

use gnaw::gnawconfig::{Options, parse};
use gnaw::filter::{Filter, check_glob_list};
use gnaw::scan::Allow;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // The driver reads the file as UTF-8 and refuses anything else.
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (profile, text) = match text.strip_prefix('@') {
        Some(rest) => match rest.split_once('\n') {
            Some((name, body)) => (Some(name), body),
            None => (Some(rest), ""),
        },
        None => (None, text),
    };
    match parse(text, Options::default(), profile) {
        Ok(o) => {
            match Filter::new(&o.include, &o.exclude) {
                Ok(f) => {
                    let _ = f.keeps(b"src/main.rs");
                }
                Err(e) => assert_eq!(e.kind(), "InvalidGlob", "{e}"),
            }
            if check_glob_list(&o.secrets.allow_paths, "secrets.allow_paths").is_ok() {
                let _ = Allow::new(&o.secrets.allow_paths, o.secrets.allow_fingerprints.clone());
            }
        }
        Err(e) => assert!(!e.message.is_empty()),
    }
});
