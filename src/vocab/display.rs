//! How a path is shown to a person or a model: printable and unambiguous, whatever bytes it has.

use std::fmt::Write as _;

/// Escape a repo-relative path (raw bytes, `/`-separated) so it is printable and unambiguous:
/// `\` becomes `\\`; `\n`, `\r`, `\t` are written as such; other control and invisible
/// formatting characters (bidi overrides, zero-width, BOM) as `\u{XXXX}`; bytes that are not
/// UTF-8 as `\xNN`. Two different paths never display the same.
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

/// Invisible or direction-changing characters that could make a path look like another one.
fn is_invisible(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180E
        | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
        | 0xFEFF | 0xFFA0 | 0xFFF9..=0xFFFB | 0xE0000..=0xE007F)
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
        assert_eq!(display_path("caf\u{e9}".as_bytes()), "caf\u{e9}");
    }
}
