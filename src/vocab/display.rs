//! How a path is shown to a person or a model: printable and unambiguous, whatever bytes it has.

use std::fmt::Write as _;

/// Escape a repo-relative path (raw bytes, `/`-separated) so it is printable and unambiguous:
/// `\` becomes `\\`; `\n`, `\r`, `\t` are written as such; every other control character,
/// every format character (Unicode category Cf: bidi controls, zero-width joiners, the BOM, tag
/// characters, Arabic number signs, musical and hieroglyph format controls), every space other
/// than the ASCII one (Zs), every default-ignorable code point (variation selectors, Hangul
/// fillers) and the look-alikes of `/`, `\` and `.` (the division and fraction slashes, the
/// fullwidth solidus, ...) as `\u{XXXX}`; bytes that are not UTF-8 as `\xNN`. Two different paths
/// never display the same, and none displays like another name.
pub fn display_path(bytes: &[u8]) -> String {
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

/// Characters that are invisible, change direction, look like a space, or look like a path
/// separator or dot: anything that could make one path look like another.
pub fn is_invisible(c: char) -> bool {
    is_format(c) || is_odd_space(c) || is_default_ignorable(c) || is_confusable_punctuation(c)
}

/// General category Cf (format), Unicode 15.1.
fn is_format(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x0600..=0x0605 | 0x061C | 0x06DD | 0x070F | 0x0890..=0x0891 | 0x08E2
        | 0x180E | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F
        | 0xFEFF | 0xFFF9..=0xFFFB | 0x110BD | 0x110CD | 0x13430..=0x1343F
        | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A | 0xE0001 | 0xE0020..=0xE007F)
}

/// General category Zs (space separator) except the ASCII space, and the line and paragraph
/// separators (Zl, Zp).
fn is_odd_space(c: char) -> bool {
    matches!(
        c as u32,
        0x00A0 | 0x1680 | 0x2000..=0x200A | 0x2028 | 0x2029 | 0x202F | 0x205F | 0x3000
    )
}

/// Default_Ignorable_Code_Point, Unicode 15.1: rendered as nothing by most fonts.
fn is_default_ignorable(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F..=0x1160 | 0x17B4..=0x17B5 | 0x180B..=0x180F
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
        | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFF8 | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0000..=0xE0FFF)
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
}
