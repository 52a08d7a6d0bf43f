//! How a path is shown to a person or a model: printable and unambiguous, whatever bytes it has.

use std::fmt::Write as _;

/// Escape a repo-relative path (raw bytes, `/`-separated) so it is printable and unambiguous:
/// `\` becomes `\\`; `\n`, `\r`, `\t` are written as such; every other control character and
/// every character [`is_invisible`] names (by Unicode property: format characters, spaces other
/// than the ASCII one, default-ignorable code points, bidi controls, variation selectors, tag
/// characters; blank-looking symbols; look-alikes of `/`, `\` and `.`) as `\u{XXXX}`; bytes
/// that are not UTF-8 as `\xNN`. Two different paths
/// never display the same, and none displays like another name.
pub fn display_path(bytes: &[u8]) -> String {
    // Printable ASCII other than `\` shows as itself (no control, invisible or look-alike
    // character is among it): most paths, copied without a look at each character's properties.
    if bytes
        .iter()
        .all(|&b| (b' '..=b'~').contains(&b) && b != b'\\')
        && let Ok(plain) = std::str::from_utf8(bytes)
    {
        return plain.to_owned();
    }
    escaped(bytes)
}

/// [`display_path`], character by character.
fn escaped(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                c if c.is_control() || is_invisible(c) => {
                    let _ = write!(out, "\\u{{{:x}}}", c as u32);
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

/// Characters that are invisible, change direction, look like a space or like nothing, or look
/// like a path separator or dot: anything that could make one path look like another. By
/// property, from one table ([`super::invisible`]: `Default_Ignorable_Code_Point`, `Cf`, `Zs`
/// but U+0020, `Zl`, `Zp`, `Bidi_Control`, `Variation_Selector`), then the blank-looking symbols
/// that have none of those properties, then the look-alikes of `/`, `\\` and `.`.
pub fn is_invisible(c: char) -> bool {
    super::invisible::props(c) != 0 || is_blank_looking(c) || is_confusable_punctuation(c)
}

/// Symbols drawn as an empty cell without being spaces or ignorable: U+2800 BRAILLE PATTERN
/// BLANK (a symbol, `So`), and the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0, which are
/// default-ignorable too, listed here so the rule does not depend on that).
fn is_blank_looking(c: char) -> bool {
    matches!(c as u32, 0x2800 | 0x115F | 0x1160 | 0x3164 | 0xFFA0)
}

/// Look-alikes of `/`, `\` and `.`, which could fake a directory boundary or a `..`.
fn is_confusable_punctuation(c: char) -> bool {
    matches!(
        c as u32,
        0x1735
            | 0x2024
            | 0x2025
            | 0x2044
            | 0x2215
            | 0x2216
            | 0x2571
            | 0x2572
            | 0x27CB
            | 0x27CD
            | 0x29F5
            | 0x29F8
            | 0x29F9
            | 0x2F03
            | 0x3033
            | 0xFE68
            | 0xFF0E
            | 0xFF0F
            | 0xFF3C
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_ascii_shows_as_the_full_rules_show_it() {
        for b in 0..=0x7fu8 {
            let name = [b'a', b, b'/', b];
            assert_eq!(display_path(&name), escaped(&name), "byte {b:#x}");
        }
        assert_eq!(display_path(b"src/a b/c-d.rs"), "src/a b/c-d.rs");
        assert_eq!(display_path(b""), "");
    }

    #[test]
    fn display_path_is_unambiguous() {
        assert_eq!(display_path(b"a/b.rs"), "a/b.rs");
        assert_eq!(display_path(b"a\nb"), "a\\nb");
        assert_eq!(display_path(b"a\\nb"), "a\\\\nb");
        assert_eq!(display_path(b"\xffx"), "\\xffx");
        assert_eq!(display_path("x\u{202e}y".as_bytes()), "x\\u{202e}y");
        assert_eq!(display_path(b"\x1b[31m"), "\\u{1b}[31m");
        // The twelve that passed unescaped before (issue 12): each one would let a file show as
        // `README.md`.
        for c in [
            '\u{E0100}',
            '\u{E01EF}',
            '\u{180B}',
            '\u{180F}',
            '\u{1D173}',
            '\u{1BCA0}',
            '\u{13430}',
            '\u{0600}',
            '\u{00A0}',
            '\u{3000}',
            '\u{2215}',
            '\u{2044}',
        ] {
            let name = format!("READ{c}ME.md");
            let shown = display_path(name.as_bytes());
            assert_eq!(shown, format!("READ\\u{{{:x}}}ME.md", c as u32));
            assert_ne!(shown, "README.md");
        }
        assert_eq!(display_path("caf\u{e9}".as_bytes()), "caf\u{e9}");
    }

    #[test]
    fn blank_looking_and_property_characters_are_escaped() {
        // U+2800 passed raw before issue 21: a name of braille blanks showed as empty.
        for c in [
            '\u{2800}',
            '\u{3164}',
            '\u{115F}',
            '\u{1160}',
            '\u{FFA0}',
            '\u{200B}',
            '\u{202E}',
            '\u{2066}',
            '\u{FE0F}',
            '\u{E0041}',
            '\u{00A0}',
            '\u{2029}',
            '\u{FEFF}',
            '\u{061C}',
        ] {
            let name = format!("a{c}b");
            assert_eq!(
                display_path(name.as_bytes()),
                format!("a\\u{{{:x}}}b", c as u32),
                "U+{:04X}",
                c as u32
            );
        }
        // Letters, marks and symbols that draw something stay as they are.
        for ok in ["\u{e9}", "\u{4e2d}", "\u{1F600}", "\u{2801}", "a b"] {
            assert_eq!(display_path(ok.as_bytes()), ok);
        }
    }
}
