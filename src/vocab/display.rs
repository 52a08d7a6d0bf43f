//! How a path is shown to a person or a model: printable and unambiguous, whatever bytes it has;
//! how a message's text is kept free of invisible characters ([`display_text`]); and how an
//! error quotes an input it was given ([`excerpt`]): escaped, short, never a word cut in two.

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
            push_escaped(&mut out, c);
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

/// One character as [`display_path`] shows it.
fn push_escaped(out: &mut String, c: char) {
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

/// A message's text as it may be shown: line breaks and tabs kept (a message may have several
/// lines), every other control character and every character [`is_invisible`] names written as
/// `\u{XXXX}`, so nothing in it is hidden or reordered on screen. Text without any such
/// character is returned as it is, unallocated.
pub fn display_text(text: &str) -> std::borrow::Cow<'_, str> {
    let hidden = |c: char| (c.is_control() && c != '\n' && c != '\t') || is_invisible(c);
    if text
        .bytes()
        .all(|b| (b' '..=b'~').contains(&b) || b == b'\n' || b == b'\t')
        || !text.chars().any(hidden)
    {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        if hidden(c) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// How many characters `text` takes written as a JSON string's contents, as an MCP client
/// receives it: `"` and `\\` and the control characters JSON names (`\n`, `\r`, `\t`, `\b`,
/// `\f`) take two, every other control character below U+0020 six (`\u001b`), everything
/// else one. Escaping is per character, so the width of a text is the sum of its parts'.
pub fn json_chars(text: &str) -> usize {
    text.chars()
        .map(|c| match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if (c as u32) < 0x20 => 6,
            _ => 1,
        })
        .sum()
}

/// Most characters of an input an error quotes ([`excerpt`]).
pub const EXCERPT_CHARS: usize = 120;

/// An input as an error quotes it (a `.gnawconfig` key or value, a glob, a profile's name, a
/// path): escaped as [`display_path`] escapes a name, and at most [`EXCERPT_CHARS`] characters
/// of it. A longer input is cut before the word the limit falls in (a word: letters, digits and
/// `_-+/=.`, the characters tokens are made of), so no secret is ever quoted in part where the
/// secret scan could no longer recognize it, and the excerpt says how long the input was. Only
/// the quoted part is read: quoting a value of 750,000 characters costs its first few hundred
/// and one count.
pub fn excerpt(input: &str) -> String {
    let mut out = String::new();
    let mut shown = 0;
    let mut cut = false;
    for c in input.chars() {
        let before = out.len();
        push_escaped(&mut out, c);
        if out.len() - before + shown > EXCERPT_CHARS {
            out.truncate(before);
            cut = true;
            break;
        }
        shown += out.len() - before;
    }
    if !cut {
        return out;
    }
    let is_word = |c: char| c.is_alphanumeric() || "_-+/=.".contains(c);
    while out.chars().next_back().is_some_and(is_word) {
        out.pop();
    }
    let _ = write!(out, "… ({} characters in all)", input.chars().count());
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
    fn an_excerpt_is_short_escaped_and_never_cuts_a_word() {
        assert_eq!(excerpt("src/**"), "src/**");
        assert_eq!(excerpt("a\u{202e}b"), "a\\u{202e}b");
        let token = format!("{}{}", "gh", "p_u8Zq3LmN7pX2vR9tK4wY6bJ1cH5dF0gS8aQe");
        // The limit falls inside the token: the token is left out whole.
        let long = format!("{} {token} {}", "x".repeat(100), "y".repeat(750_000));
        let shown = excerpt(&long);
        assert!(!shown.contains("ghp_"), "{shown}");
        assert!(shown.chars().count() < EXCERPT_CHARS + 40, "{shown}");
        assert!(shown.ends_with("(750142 characters in all)"), "{shown}");
        // One long word: nothing of it is quoted.
        let shown = excerpt(&"k".repeat(10_000));
        assert_eq!(shown, "… (10000 characters in all)");
    }

    #[test]
    fn json_chars_is_the_length_serde_json_writes() {
        for text in [
            "plain",
            "q\"b\\n\nt\tr\r\u{8}\u{c}\u{1}\u{1f}\u{7f}/é中",
            "",
        ] {
            let sent = serde_json::to_string(text).unwrap();
            assert_eq!(json_chars(text), sent.chars().count() - 2, "{text:?}");
        }
    }

    #[test]
    fn text_keeps_its_lines_and_shows_what_is_hidden() {
        assert!(matches!(
            display_text("two\nlines\tand tabs"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(display_text("a\u{202e}b\rc"), "a\\u{202e}b\\u{d}c");
        assert_eq!(display_text("caf\u{e9} \\ ok"), "caf\u{e9} \\ ok");
    }

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
