//! Render stage: the prompt in markdown, xml or json, built as a sequence of pieces.
//!
//! The prompt is `preamble`, then one piece per file in bytewise path order, then `epilogue`.
//! Every piece ends with a non-whitespace character and one `\n`, and starts with `#`, `<`, `{`
//! or `]`: a junction [`crate::count::is_safe_boundary`] proves no tokenizer's pre-tokenizer can
//! join text across. So the token count of the whole prompt is exactly the sum of the pieces'
//! counts, and the pieces can be counted in parallel (and cached).
//!
//! File content can never break the structure: markdown fences are longer than any backtick
//! run in what they fence, xml is escaped, json goes through serde. Paths are shown through
//! `display_path`, which escapes every byte that could be ambiguous or invisible.
//! The exact layouts are documented in `docs/formats.md`.

use crate::stages::languages::fence_tag;
use crate::vocab::{Format, OmittedView};
use std::fmt::Write as _;

/// What shapes the rendered text.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RenderOptions {
    /// The prompt's format.
    pub format: Format,
    /// Number each line of a file's contents.
    pub line_numbers: bool,
    /// Show the directory tree before the files.
    pub tree: bool,
}

/// One file as the renderer sees it.
pub struct FileView<'a> {
    /// Display form of the repo-relative path (see `display_path`).
    pub path: &'a str,
    /// The file's text.
    pub text: &'a str,
    /// The file was not valid UTF-8 and was decoded lossily.
    pub lossy: bool,
    /// `text` is the file's skeleton (`extract --compress`): bodies elided, each replaced by a
    /// line naming the lines it stands for.
    pub skeleton: bool,
}

/// The note shown for a lossily decoded file.
pub const LOSSY_NOTE: &str = "not valid UTF-8; invalid bytes shown as U+FFFD";

/// The note shown for a file given as its skeleton (markdown `(skeleton)`, xml
/// `skeleton="true"`): its markers, `⋯ 41 lines (88–128)` (at `signatures` `⋯ 88–128`), say
/// themselves which lines each stands for, so the note, on every file, says no more.
pub const SKELETON_NOTE: &str = "skeleton";

/// Everything before the first file: the title, the tree of `paths` (display forms, sorted),
/// and, when a budget left files out, the omitted section.
pub fn preamble(
    opts: &RenderOptions,
    repo_name: &str,
    paths: &[&str],
    omitted: &OmittedView,
) -> String {
    preamble_parts(opts, repo_name, paths, omitted, &|| false)
        .map(|(text, _)| text)
        .unwrap_or_default()
}

/// [`preamble`], with the byte offsets where its parts meet: after the title and tree, after
/// the omitted section's header, after each omitted line. A caller that counts the parts one by
/// one (joined at unsafe junctions, see [`crate::count::exact_units`]) counts only what changed
/// between two preambles. `None` when `stop` returned true while the tree was drawn.
pub fn preamble_parts(
    opts: &RenderOptions,
    repo_name: &str,
    paths: &[&str],
    omitted: &OmittedView,
    stop: &dyn Fn() -> bool,
) -> Option<(String, Vec<usize>)> {
    let tree = if opts.tree {
        Some(tree_until(repo_name, paths, stop)?)
    } else {
        None
    };
    let mut out = String::new();
    let mut cuts = Vec::new();
    match opts.format {
        Format::Markdown => {
            let _ = writeln!(out, "# {}\n", md_inline(repo_name));
            if let Some(t) = &tree {
                let fence = fence_for(t, b'`');
                let _ = write!(out, "## Directory tree\n\n{fence}text\n{t}{fence}\n\n");
            }
            if omitted.files > 0 {
                cuts.push(out.len());
                let _ = write!(
                    out,
                    "## Omitted to fit the token budget\n\n{} files ({} tokens) are not shown. \
                     Ask for them by path with `include`.\n\n",
                    omitted.files, omitted.tokens
                );
                for l in &omitted.lines {
                    cuts.push(out.len());
                    let _ = match (l.label.as_str(), l.files) {
                        ("", _) => {
                            writeln!(out, "- everything: {} files, {} tokens", l.files, l.tokens)
                        }
                        (p, 1) if !p.ends_with('/') => {
                            writeln!(out, "- {} — {} tokens", md_inline(p), l.tokens)
                        }
                        (p, _) => writeln!(
                            out,
                            "- {} — {} files, {} tokens",
                            md_inline(p),
                            l.files,
                            l.tokens
                        ),
                    };
                }
                cuts.push(out.len());
                out.push('\n');
            }
            out.push_str("## Files\n");
        }
        Format::Xml => {
            let _ = writeln!(out, "<repository name=\"{}\">", xml_escape(repo_name, true));
            if let Some(t) = &tree {
                let _ = write!(out, "<tree>\n{}</tree>\n", xml_escape(t, false));
            }
            if omitted.files > 0 {
                cuts.push(out.len());
                let _ = writeln!(
                    out,
                    "<omitted files=\"{}\" tokens=\"{}\" hint=\"ask for these paths with include\">",
                    omitted.files, omitted.tokens
                );
                for l in &omitted.lines {
                    cuts.push(out.len());
                    let _ = writeln!(
                        out,
                        "<entry path=\"{}\" files=\"{}\" tokens=\"{}\"/>",
                        xml_escape(&l.label, true),
                        l.files,
                        l.tokens
                    );
                }
                cuts.push(out.len());
                out.push_str("</omitted>\n");
            }
        }
        Format::Json => {
            let _ = writeln!(out, "{{\"repository\":{},", json_str(repo_name));
            if let Some(t) = &tree {
                let _ = writeln!(out, "\"tree\":{},", json_str(t));
            }
            if omitted.files > 0 {
                cuts.push(out.len());
                let entries: Vec<serde_json::Value> = omitted
                    .lines
                    .iter()
                    .map(|l| serde_json::json!({"path": l.label, "files": l.files, "tokens": l.tokens}))
                    .collect();
                let v = serde_json::json!({
                    "files": omitted.files,
                    "tokens": omitted.tokens,
                    "hint": "ask for these paths with include",
                    "entries": entries,
                });
                let _ = writeln!(out, "\"omitted\":{v},");
            }
            out.push_str("\"files\":[\n");
        }
    }
    Some((out, cuts))
}

/// One file's piece. `last` matters only for json, where it decides the trailing comma.
pub fn file_piece(opts: &RenderOptions, file: &FileView<'_>, last: bool) -> String {
    let mut out = String::with_capacity(file.text.len() + file.path.len() + 64);
    push_file_piece(&mut out, opts, file, last);
    out
}

/// Append one file's piece to `out` (what [`file_piece`] returns, without a copy).
pub fn push_file_piece(out: &mut String, opts: &RenderOptions, file: &FileView<'_>, last: bool) {
    let numbered;
    let text = if opts.line_numbers {
        numbered = number_lines(file.text);
        numbered.as_str()
    } else {
        file.text
    };
    match opts.format {
        Format::Markdown => {
            let note = header_notes(file, |_, text| format!(" ({text})"));
            let _ = write!(out, "### {}{note}\n\n", md_inline(file.path));
            let fence = fence_for(text, b'`');
            let _ = writeln!(out, "{fence}{}", fence_tag(file.path));
            push_line_ended(out, text);
            let _ = writeln!(out, "{fence}");
        }
        Format::Xml => {
            let note = header_notes(file, |name, text| {
                let value = if text == name { "true" } else { text };
                format!(" {name}=\"{value}\"")
            });
            let _ = writeln!(out, "<file path=\"{}\"{note}>", xml_escape(file.path, true));
            push_line_ended(out, &xml_escape(text, false));
            out.push_str("</file>\n");
        }
        Format::Json => {
            let _ = write!(
                out,
                "{{\"path\":{},\"content\":{}",
                json_str(file.path),
                json_str(text)
            );
            if file.lossy {
                out.push_str(",\"lossy\":true");
            }
            if file.skeleton {
                out.push_str(",\"skeleton\":true");
            }
            out.push_str(if last { "}\n" } else { "},\n" });
        }
    }
}

/// The notes of a file's header (decoded lossily, shown as a skeleton), each as `note` writes
/// it from its name and text.
fn header_notes(file: &FileView<'_>, note: impl Fn(&str, &str) -> String) -> String {
    [
        (file.lossy, "note", LOSSY_NOTE),
        (file.skeleton, "skeleton", SKELETON_NOTE),
    ]
    .into_iter()
    .filter(|&(on, ..)| on)
    .map(|(_, name, text)| note(name, text))
    .collect()
}

/// Append `text`, with a newline after it unless it is empty or ends with one.
fn push_line_ended(out: &mut String, text: &str) {
    out.push_str(text);
    if !text.is_empty() && !text.ends_with('\n') {
        out.push('\n');
    }
}

/// Everything after the last file.
pub fn epilogue(opts: &RenderOptions) -> String {
    match opts.format {
        Format::Markdown => String::new(),
        Format::Xml => "</repository>\n".into(),
        Format::Json => "]}\n".into(),
    }
}

/// The directory tree of `paths` (sorted, `/`-separated display paths) under `root_name`.
pub fn tree(root_name: &str, paths: &[&str]) -> String {
    tree_until(root_name, paths, &|| false).unwrap_or_default()
}

/// Indentation under a directory that has more entries below, and under its last entry.
const BAR: &str = "│   ";
const SPACE: &str = "    ";
/// The connector before an entry, and before the last entry of a directory (equal lengths).
const TEE: &str = "├── ";
const ELBOW: &str = "└── ";

/// The tree's directories and files: node 0 is the root; each node's children by name. Nodes
/// live in one vector, so neither building nor dropping recurses, however deep the paths go.
struct Nodes<'a> {
    children: Vec<std::collections::BTreeMap<&'a [u8], usize>>,
}

impl<'a> Nodes<'a> {
    fn new(paths: &[&'a str]) -> Nodes<'a> {
        let mut children = vec![std::collections::BTreeMap::new()];
        for p in paths {
            let mut node = 0;
            for part in p.as_bytes().split(|&b| b == b'/') {
                let next = children.len();
                let id = *children[node].entry(part).or_insert(next);
                if id == next {
                    children.push(std::collections::BTreeMap::new());
                }
                node = id;
            }
        }
        Nodes { children }
    }

    /// Visit every entry in drawing order: `f(depth, name, is_last, is_dir)`, where `is_last`
    /// is whether each enclosing level's entry is its directory's last (outermost first, the
    /// entry itself last). Iterative: depth costs no stack. Stops early, returning false, when
    /// `f` does.
    fn visit(&self, mut f: impl FnMut(&[bool], &'a [u8], bool) -> bool) -> bool {
        let mut stack = vec![self.children[0].iter().peekable()];
        let mut lasts: Vec<bool> = Vec::new();
        while let Some(level) = stack.last_mut() {
            let Some((name, &child)) = level.next() else {
                stack.pop();
                continue;
            };
            let last = level.peek().is_none();
            lasts.truncate(stack.len() - 1);
            lasts.push(last);
            let is_dir = !self.children[child].is_empty();
            if !f(&lasts, name, is_dir) {
                return false;
            }
            if is_dir {
                stack.push(self.children[child].iter().peekable());
            }
        }
        true
    }
}

/// [`tree`], or `None` when `stop` returned true (it is asked once per line).
pub fn tree_until(root_name: &str, paths: &[&str], stop: &dyn Fn() -> bool) -> Option<String> {
    let nodes = Nodes::new(paths);
    let mut out = format!("{root_name}/\n");
    // The indentation of the current line, kept between lines: `depth` units deep.
    let mut prefix = String::new();
    let mut units: Vec<usize> = Vec::new();
    let finished = nodes.visit(|lasts, name, is_dir| {
        if stop() {
            return false;
        }
        let depth = lasts.len() - 1;
        if units.len() > depth {
            prefix.truncate(units[depth]);
            units.truncate(depth);
        }
        while units.len() < depth {
            units.push(prefix.len());
            prefix.push_str(if lasts[units.len() - 1] { SPACE } else { BAR });
        }
        let last = lasts[depth];
        out.push_str(&prefix);
        out.push_str(if last { ELBOW } else { TEE });
        out.push_str(&String::from_utf8_lossy(name));
        if is_dir {
            out.push('/');
        }
        out.push('\n');
        true
    });
    finished.then_some(out)
}

/// The length in bytes of [`tree`]`(root_name, paths)`, without drawing it: linear in the
/// paths' length, where the tree itself grows with the square of their depth.
pub fn tree_len(root_name: &str, paths: &[&str]) -> usize {
    let nodes = Nodes::new(paths);
    let mut len = root_name.len() + 2;
    // Bytes of indentation at each depth so far.
    let mut indent: Vec<usize> = vec![0];
    nodes.visit(|lasts, name, is_dir| {
        let depth = lasts.len() - 1;
        indent.truncate(depth + 1);
        while indent.len() <= depth {
            let k = indent.len() - 1;
            let unit = if lasts[k] { SPACE.len() } else { BAR.len() };
            indent.push(indent[k] + unit);
        }
        // Paths are `&str`, so each name is UTF-8 and is drawn as it is.
        len += indent[depth] + TEE.len() + name.len() + usize::from(is_dir) + 1;
        true
    });
    len
}

/// A fence of `ch` longer than any run of `ch` in `text`, and at least three long.
pub fn fence_for(text: &str, ch: u8) -> String {
    let len = (longest_run(text.as_bytes(), ch) + 1).max(3);
    String::from_utf8(vec![ch; len]).unwrap_or_default()
}

/// The longest run of the ASCII byte `b` in `bytes` (found with `memchr`: this runs over every
/// file's whole text).
fn longest_run(bytes: &[u8], b: u8) -> usize {
    let (mut longest, mut run) = (0, 0);
    let mut next_expected = None;
    for i in memchr::memchr_iter(b, bytes) {
        run = if next_expected == Some(i) { run + 1 } else { 1 };
        next_expected = Some(i + 1);
        longest = longest.max(run);
    }
    longest
}

/// A markdown inline code span holding `s` literally, whatever backticks it contains.
fn md_inline(s: &str) -> String {
    let longest = longest_run(s.as_bytes(), b'`');
    let ticks: String = std::iter::repeat_n('`', longest + 1).collect();
    let pad = if s.starts_with('`') || s.ends_with('`') || s.is_empty() {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{s}{pad}{ticks}")
}

/// Escape text for xml content or attributes. Characters xml 1.0 cannot carry at all (most C0
/// controls) become U+FFFD; `\r` is kept as a character reference so parsers do not fold it.
fn xml_escape(s: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 16);
    // Copy runs of bytes that need nothing; stop only at ASCII specials and at the lead byte
    // 0xEF of U+FFFE / U+FFFF.
    let bytes = s.as_bytes();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !(b < 0x20 || matches!(b, b'&' | b'<' | b'>' | b'"' | 0xEF)) {
            i += 1;
            continue;
        }
        // `i` is at a char boundary: every byte that stops the scan is ASCII or a lead byte.
        out.push_str(&s[copied..i]);
        let c = s[i..].chars().next().unwrap_or('\u{FFFD}');
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\r' => out.push_str("&#13;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\t' | '\n' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
        i += c.len_utf8();
        copied = i;
    }
    out.push_str(&s[copied..]);
    out
}

fn json_str(s: &str) -> String {
    // Serializing a string cannot fail.
    serde_json::to_string(s).unwrap_or_default()
}

/// Prefix every line with its right-aligned number and ` | `.
pub fn number_lines(text: &str) -> String {
    let lines = text.split_inclusive('\n').count().max(1);
    let width = lines.to_string().len();
    let mut out = String::with_capacity(text.len() + lines * (width + 3));
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let _ = write!(out, "{:>width$} | {line}", i + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outgrow_backticks() {
        assert_eq!(fence_for("no ticks", b'`'), "```");
        assert_eq!(fence_for("a ```` b", b'`'), "`````");
        assert_eq!(fence_for("`` x ` y ```", b'`'), "````");
        assert_eq!(fence_for("````", b'`'), "`````");
        assert_eq!(md_inline("a`b"), "``a`b``");
        assert_eq!(md_inline("`a"), "`` `a ``");
    }

    #[test]
    fn xml_escape_handles_every_special_and_leaves_the_rest() {
        let text = "a<b>&\"c\"\r\n\t\u{1}\u{FFFE}\u{FFFF}\u{FFFD}\u{F000}caf\u{e9} \u{1F600}";
        assert_eq!(
            xml_escape(text, false),
            "a&lt;b&gt;&amp;\"c\"&#13;\n\t\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}\u{F000}caf\u{e9} \u{1F600}"
        );
        assert_eq!(xml_escape("p\"\n\t", true), "p&quot;&#10;&#9;");
        assert_eq!(xml_escape("", false), "");
        assert_eq!(xml_escape("plain", false), "plain");
    }

    #[test]
    fn tree_shape() {
        let t = tree("r", &["a/b.rs", "a/c/d.rs", "e.md"]);
        assert_eq!(
            t,
            "r/\n├── a/\n│   ├── b.rs\n│   └── c/\n│       └── d.rs\n└── e.md\n"
        );
    }

    #[test]
    fn tree_len_is_the_drawn_length_and_depth_costs_no_stack() {
        let cases: [&[&str]; 4] = [
            &[],
            &["a/b.rs", "a/c/d.rs", "e.md"],
            &["x/y/z/1", "x/y/z/2", "x/y/3", "x/4", "w/é/ü.txt", "zz"],
            &["a/b/c/d/e/f", "a/b/c/d/g", "a/h", "b"],
        ];
        for paths in cases {
            assert_eq!(
                tree_len("root", paths),
                tree("root", paths).len(),
                "{paths:?}"
            );
        }
        // Thousands of levels: no recursion anywhere (a recursive walk or drop would overflow
        // the 2 MiB stack of a test thread long before this).
        let deep = format!("{}f.txt", "d/".repeat(20_000));
        let t = tree("r", &[deep.as_str()]);
        assert_eq!(t.len(), tree_len("r", &[deep.as_str()]));
        assert!(t.ends_with("└── f.txt\n"));
        assert!(tree_until("r", &[deep.as_str()], &|| true).is_none());
    }

    #[test]
    fn preamble_parts_join_to_the_preamble() {
        let view = OmittedView {
            files: 2,
            tokens: 30,
            lines: vec![
                crate::vocab::OmittedLine {
                    label: "a/".into(),
                    files: 1,
                    tokens: 10,
                },
                crate::vocab::OmittedLine {
                    label: "b.rs".into(),
                    files: 1,
                    tokens: 20,
                },
            ],
        };
        for format in [Format::Markdown, Format::Xml, Format::Json] {
            let opts = RenderOptions {
                format,
                line_numbers: false,
                tree: true,
            };
            let (text, cuts) = preamble_parts(&opts, "r", &["x.rs"], &view, &|| false).unwrap();
            assert_eq!(text, preamble(&opts, "r", &["x.rs"], &view));
            assert!(cuts.windows(2).all(|w| w[0] < w[1]) && cuts.iter().all(|&c| c < text.len()));
        }
    }

    #[test]
    fn line_numbers_align() {
        let t = number_lines(&"x\n".repeat(10));
        assert!(t.starts_with(" 1 | x\n"));
        assert!(t.ends_with("10 | x\n"));
    }
}
