//! The named modes a user picks by name (`--format`, `--encoding`, `--secrets`, `--compress`,
//! `.gnawconfig`): one macro gives each its list, its canonical name, `Display` and `FromStr`, so
//! every mode parses by the same rule: ASCII-case-insensitive, surrounding spaces ignored, with a
//! few documented aliases (`md`, `o200k`).

use std::fmt;

/// A name that is not one of a mode's names: says what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownName {
    /// What kind of name it was meant to be (`format`, `encoding`, `secrets mode`).
    pub what: &'static str,
    /// What was given (at most 64 characters of it).
    pub got: String,
    /// The valid names, canonical first.
    pub valid: &'static [&'static str],
}

impl fmt::Display for UnknownName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} {:?}; use one of {}",
            self.what,
            self.got,
            self.valid.join(", ")
        )
    }
}

impl std::error::Error for UnknownName {}

/// The name of `valid` nearest to `got` by edit distance, the first of equals (for "did you
/// mean" hints); `None` only when `valid` is empty.
pub fn nearest<'a>(got: &str, valid: &[&'a str]) -> Option<&'a str> {
    valid.iter().copied().min_by_key(|v| edit_distance(got, v))
}

/// Levenshtein distance over chars; names are short, so the quadratic table is fine.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Defines a mode enum: `name = "canonical" | "alias"...` per variant.
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident as $what:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal $(| $alias:literal)* ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: [$name; [$( $text ),+].len()] = [ $( $name::$variant ),+ ];
            /// The canonical names, in declaration order.
            pub const NAMES: &'static [&'static str] = &[ $( $text ),+ ];

            /// The canonical name, as written in flags and `.gnawconfig`.
            pub fn name(self) -> &'static str {
                match self { $( $name::$variant => $text, )+ }
            }

            /// Parse a name or an alias: ASCII-case-insensitive, surrounding spaces ignored.
            pub fn from_name(name: &str) -> Option<$name> {
                let name = name.trim();
                $(
                    if name.eq_ignore_ascii_case($text) $(|| name.eq_ignore_ascii_case($alias))* {
                        return Some($name::$variant);
                    }
                )+
                None
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl $name {
            /// Parse like [`Self::from_name`], or say what was expected.
            pub fn parse_name(s: &str) -> Result<$name, $crate::vocab::modes::UnknownName> {
                $name::from_name(s).ok_or_else(|| $crate::vocab::modes::UnknownName {
                    what: $what,
                    got: s.chars().take(64).collect(),
                    valid: $name::NAMES,
                })
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;

            /// Like [`Self::parse_name`], with the error as its message.
            fn from_str(s: &str) -> Result<$name, String> {
                $name::parse_name(s).map_err(|e| e.to_string())
            }
        }
    };
}

named_enum! {
    /// Output format.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Hash)]
    pub enum Format as "format" {
        /// Markdown: each file in a fenced code block under its path.
        #[default]
        Markdown = "markdown" | "md",
        /// XML: each file in a `<file path="...">` element.
        Xml = "xml",
        /// JSON: one object holding the tree and the files.
        Json = "json",
    }
}

named_enum! {
    /// A tiktoken encoding.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
    pub enum Encoding as "encoding" {
        /// OpenAI's `o200k_base` (GPT-4o and later).
        #[default]
        O200kBase = "o200k_base" | "o200k",
        /// OpenAI's `cl100k_base` (GPT-4, GPT-3.5).
        Cl100kBase = "cl100k_base" | "cl100k",
        /// OpenAI's `p50k_base` (Codex, text-davinci-002/003).
        P50kBase = "p50k_base" | "p50k",
        /// OpenAI's `r50k_base` (GPT-3).
        R50kBase = "r50k_base" | "r50k",
    }
}

impl Encoding {
    /// Position in [`Encoding::ALL`], for per-encoding tables.
    pub fn index(self) -> usize {
        self as usize
    }
}

named_enum! {
    /// What the scan stage does with secrets it finds. Ordered from weakest to strongest, so an
    /// operator's floor can be enforced with `max`.
    #[derive(
        Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default,
        serde::Serialize, serde::Deserialize,
    )]
    #[serde(rename_all = "lowercase")]
    pub enum SecretsMode as "secrets mode" {
        /// Don't scan.
        Off = "off",
        /// Report findings, leave the text as it is.
        #[default]
        Warn = "warn",
        /// Replace each secret with `[REDACTED:<rule>]` and report it.
        Redact = "redact",
        /// Drop the whole file and report its findings.
        Block = "block",
    }
}

named_enum! {
    /// How much of a source file a skeleton keeps (`--compress=LEVEL`, MCP `compress`). Every
    /// level keeps each definition's signature, the imports and the declarations, and replaces
    /// each function body of two lines or more by a marker naming the lines it stands for.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
    pub enum Compress as "compress level" {
        /// Every comment kept as written (`--compress` alone, MCP `compress: true`).
        #[default]
        Docs = "docs",
        /// Each doc comment cut to its first sentence; other comments dropped.
        Summary = "summary",
        /// No comments (a shebang and compiler directives aside).
        Signatures = "signatures",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_parse_rule_for_every_mode() {
        assert_eq!("XML".parse::<Format>(), Ok(Format::Xml));
        assert_eq!(" md ".parse::<Format>(), Ok(Format::Markdown));
        assert_eq!("O200K".parse::<Encoding>(), Ok(Encoding::O200kBase));
        assert_eq!("Redact".parse::<SecretsMode>(), Ok(SecretsMode::Redact));
        let err = "html".parse::<Format>().unwrap_err();
        assert_eq!(
            err,
            "unknown format \"html\"; use one of markdown, xml, json"
        );
        for m in SecretsMode::ALL {
            assert_eq!(m.to_string().parse::<SecretsMode>(), Ok(m));
        }
        assert!(SecretsMode::Off < SecretsMode::Warn && SecretsMode::Redact < SecretsMode::Block);
        assert_eq!(
            "none".parse::<Compress>().unwrap_err(),
            "unknown compress level \"none\"; use one of docs, summary, signatures"
        );
    }
}
