//! The one renderer of names ([`gnaw::stages::name::Namer`]) over arbitrary path bytes, in every
//! secrets mode. A shown name holds no control or invisible character, has exactly the raw
//! name's `/` separators, reads back to the raw bytes when nothing is redacted, and holds no
//! part a second rendering would redact; a redacted name is what globs see
//! ([`gnaw::stages::name::Namer::seen`]), and two raw names that show the same are kept or
//! dropped alike by any glob.

use gnaw::driver::call::paths::parse_display;
use gnaw::filter::Filter;
use gnaw::scan::Allow;
use gnaw::stages::name::Namer;
use gnaw::vocab::{SecretsMode, display::is_invisible};

const MODES: [SecretsMode; 4] = [
    SecretsMode::Off,
    SecretsMode::Warn,
    SecretsMode::Redact,
    SecretsMode::Block,
];

pub fn check(data: &[u8]) {
    let raw = &data[..data.len().min(4096)];
    let slashes = raw.iter().filter(|&&b| b == b'/').count();
    for mode in MODES {
        let namer = Namer::new(mode, Allow::default());
        let shown = namer.path(raw);
        let text = shown.as_str();
        for c in text.chars() {
            assert!(
                !c.is_control() && !is_invisible(c),
                "{mode:?}: U+{:04X} is shown raw in {text:?}",
                c as u32
            );
        }
        assert_eq!(
            text.matches('/').count(),
            slashes,
            "{mode:?}: the separators moved in {text:?}"
        );
        if shown.is_redacted() {
            assert!(mode >= SecretsMode::Redact);
            assert!(text.contains("[REDACTED:"), "{text:?}");
            assert_eq!(&*namer.seen(raw), text.as_bytes(), "globs see the raw name");
            let twice = namer.escaped(text.to_string());
            assert!(!twice.is_redacted(), "{text:?} is redacted again");
        } else {
            assert_eq!(
                parse_display(text),
                raw,
                "{mode:?}: {text:?} does not read back"
            );
            assert_eq!(&*namer.seen(raw), raw);
        }
        if mode <= SecretsMode::Warn {
            assert!(!shown.is_redacted());
        }
    }
    same_shown_same_glob(raw);
}

/// Put a GitHub-token-shaped secret made from the input's bytes into a name, twice with
/// different secret characters: if both show the same, every glob keeps both or neither.
fn same_shown_same_glob(raw: &[u8]) {
    let alnum = |b: u8| {
        const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
        A[usize::from(b) % A.len()]
    };
    let mut secret: Vec<u8> = raw.iter().take(36).map(|&b| alnum(b)).collect();
    while secret.len() < 36 {
        secret.push(alnum(secret.len() as u8 * 7 + 3));
    }
    let mut other = secret.clone();
    other[0] = if other[0] == b'Z' { b'Q' } else { b'Z' };
    let name = |s: &[u8]| [&b"keys/key_ghp_"[..], s, b".txt"].concat();
    let (a, b) = (name(&secret), name(&other));
    let namer = Namer::redacting();
    if namer.path(&a) != namer.path(&b) {
        return;
    }
    let globs = [
        "key_ghp_Z*".to_string(),
        format!("key_ghp_{}*", String::from_utf8_lossy(&secret[..4])),
        "*REDACTED*".to_string(),
        "keys/*".to_string(),
    ];
    for g in globs {
        let f = Filter::new(std::slice::from_ref(&g), &[])
            .expect("glob")
            .seeing(Namer::redacting());
        assert_eq!(
            f.keeps(&a),
            f.keeps(&b),
            "{g} tells apart two names that show the same"
        );
    }
}
