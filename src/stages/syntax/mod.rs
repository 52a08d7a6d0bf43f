//! Syntax stage: find a source file's definitions with tree-sitter, within bounds, for `outline`,
//! `symbol`, `search` and skeleton extraction (`extract --compress`).
//!
//! - [`Language::detect`] names the grammar from the path's extension (or a few well-known file
//!   names; the table is [`crate::stages::languages`]); a file without one is
//!   [`Outline::Unsupported`], never an error: the caller shows its full text.
//! - The parse is bounded: at most [`MAX_PARSE_BYTES`] of input and [`MAX_PARSE_TIME`] of time
//!   (tree-sitter's progress callback stops it, and also asks the caller's cancellation), at most
//!   [`MAX_SYMBOLS`] definitions and [`MAX_SYMBOL_DEPTH`] levels of them. A file past a bound is
//!   [`Outline::Skipped`] with the reason.
//! - The tree is walked with a [`TreeCursor`], iteratively: nothing recurses on the input's
//!   nesting (a file of 100,000 nested brackets costs heap, not stack).
//! - Each language family's file says which node kinds are definitions, where their names and
//!   bodies are (`Def`), and `family.rs` names each language's family; the walk, doc comments,
//!   signatures and line ranges are shared here.
//! - [`skeleton`] keeps everything but the bodies of functions and methods, each replaced by a
//!   marker line naming the lines it stands for (`⋯ 41 lines (88–128)`).
//!
//! The text given is the one the caller may show (the scanned, redacted text), so a signature
//! or doc line can reveal nothing a `read` would not.

mod c_family;
mod comments;
mod family;
mod functional;
mod go;
mod jvm;
mod parse_budget;
pub mod pool;
mod python;
mod ruby_php;
mod rust;
mod scripting;
mod skeleton;
mod swift;
mod web;
mod zig;

pub use crate::stages::languages::Language;
use crate::vocab::symbol::MAX_SIGNATURE_CHARS;
use crate::vocab::{LineRange, Symbol, SymbolKind};
pub use comments::Comment;
use family::family;
pub use parse_budget::{CALL_PARSE_BYTES, CALL_PARSE_TIME, ParseBudget};
pub use skeleton::skeleton;
use std::cell::RefCell;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use tree_sitter::{Node, ParseOptions, ParseState, Parser, TreeCursor};

/// Largest input parsed, in bytes. Larger files are skipped with that reason (their full text
/// is what a skeleton shows). Twice the default `max_file_size`.
pub const MAX_PARSE_BYTES: usize = 2 << 20;
/// Longest a parse may take before it is stopped and the file skipped. tree-sitter parses
/// ordinary code at several MB/s, so only a hostile or pathological file comes near it.
pub const MAX_PARSE_TIME: Duration = Duration::from_secs(2);
/// Most definitions kept from one file.
pub const MAX_SYMBOLS: usize = 20_000;
/// Deepest nesting of definitions (a class in a class in a module ...).
pub const MAX_SYMBOL_DEPTH: usize = 64;
/// Longest name kept, in characters.
const MAX_NAME_CHARS: usize = 200;
/// Longest doc line kept, in characters.
const MAX_DOC_CHARS: usize = 200;

/// What the syntax stage found in one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outline {
    /// The file's definitions, nested, in source order.
    Parsed(Vec<Symbol>),
    /// No grammar for this file's language: show its full text.
    Unsupported,
    /// A bound was hit (size, time, definitions, nesting) or the call was cancelled; the reason
    /// says which. Show the full text.
    Skipped(String),
}

/// What one parse found: the definitions and, when asked for (the extras a `summary` or
/// `signatures` skeleton needs), the comments and the blocks of code outside function bodies.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Found {
    /// The definitions, in source order, nested ones as children.
    pub symbols: Vec<Symbol>,
    /// Comments, docstrings and doc attributes, in source order.
    pub comments: Vec<Comment>,
    /// The blocks of code that are no definition's body (a callback's, a closure's, a test's,
    /// a C function's that a macro names), outside function bodies; definitions inside one are
    /// found as usual.
    pub blocks: Vec<Block>,
    /// Short bodies and macro values a `signatures` skeleton may elide within their lines.
    #[serde(default)]
    pub inline: Vec<Inline>,
}

/// Text a `signatures` skeleton may replace by its marker within the lines it shares with
/// what stays ([`Found::inline`]): a function's body that the line-based elision keeps
/// (`{ return x; }`, the one line between the braces, Python's `: return x`), a block of code's
/// of one line, a function-like C macro's replacement text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Inline {
    /// The bytes replaced: between a body's braces, after Python's `:`, after a macro's
    /// parameters.
    pub start: u32,
    /// The end of the bytes replaced (exclusive).
    pub end: u32,
    /// A block of code's, which may hold definitions (then it is kept); a function's body
    /// holds none that are found.
    pub block: bool,
}

/// A block of code a `summary` or `signatures` skeleton elides ([`Found::blocks`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Block {
    /// Its inner lines (after its opener's line, before its closer's), when two or more: what
    /// is elided of it around the definitions inside.
    pub inner: Option<LineRange>,
    /// Lines elided whole when no definition starts in them: for a callback, the whole call it
    /// closes (`describe("x", function () { … })`, `it "y" do … end`: the construct that starts
    /// on the block's first line and ends on its last); for a C macro, the lines after its
    /// name's.
    pub whole: Option<LineRange>,
}

/// A definition as a family's table sees it: its kind, its name, and the node holding its
/// body (the part a skeleton may elide, for functions and methods; members, for containers).
pub(crate) struct Def<'t> {
    pub kind: SymbolKind,
    pub name: String,
    pub body: Option<Node<'t>>,
}

impl<'t> Def<'t> {
    fn new(kind: SymbolKind, name: String, body: Option<Node<'t>>) -> Option<Def<'t>> {
        Some(Def { kind, name, body })
    }

    /// The usual shape: named by `node`'s `name` field, its body the `body` field.
    fn named(kind: SymbolKind, node: Node<'t>, src: &[u8]) -> Option<Def<'t>> {
        Def::new(
            kind,
            field_text(node, "name", src)?,
            node.child_by_field_name("body"),
        )
    }
}

/// The text of `node`'s field `field`, bounded.
fn field_text(node: Node, field: &str, src: &[u8]) -> Option<String> {
    node.child_by_field_name(field).map(|n| text_of(n, src))
}

/// The text of a node, at most [`MAX_NAME_CHARS`] characters, on one line.
fn text_of(node: Node, src: &[u8]) -> String {
    let bytes = src.get(node.byte_range()).unwrap_or_default();
    collapse(bytes, MAX_NAME_CHARS)
}

/// The first child of `node` whose kind is one of `kinds`.
fn child_of_kind<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .find(|c| kinds.contains(&c.kind()))
}

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
}

/// The definitions of the file at `path` (relative, `/`-separated) whose shown text is `text`,
/// with a budget of its own.
pub fn outline(path: &[u8], text: &str) -> Outline {
    outline_with(path, text, &ParseBudget::default(), &|| false)
}

/// [`outline`] within the call's `budget`, stopping (as [`Outline::Skipped`]) when `stop` says
/// the call was cancelled.
pub fn outline_with(
    path: &[u8],
    text: &str,
    budget: &ParseBudget,
    stop: &dyn Fn() -> bool,
) -> Outline {
    match Language::detect(path) {
        Some(lang) => outline_of(lang, text, budget, stop),
        None => Outline::Unsupported,
    }
}

/// The definitions of `text` read as `lang`, parsed within the call's `budget` (in a parse
/// worker once [`pool::start`] ran). A file that hit its own time or memory bound before is
/// skipped at once, with the reason it had.
pub fn outline_of(
    lang: Language,
    text: &str,
    budget: &ParseBudget,
    stop: &dyn Fn() -> bool,
) -> Outline {
    match found_of(lang, text, budget, false, stop) {
        Ok(found) => Outline::Parsed(found.symbols),
        Err(reason) => Outline::Skipped(reason),
    }
}

/// What [`outline_of`] parses: the definitions of `text` read as `lang` and, with `extras`, its
/// comments and blocks of code; `Err` with the reason the parse was skipped or stopped.
pub fn found_of(
    lang: Language,
    text: &str,
    budget: &ParseBudget,
    extras: bool,
    stop: &dyn Fn() -> bool,
) -> Result<Found, String> {
    let found = 'parse: {
        if text.len() > MAX_PARSE_BYTES {
            break 'parse Err(format!(
                "{} bytes, over the {} MiB parse bound",
                text.len(),
                MAX_PARSE_BYTES >> 20
            ));
        }
        if !lang.compiled_in() {
            break 'parse Err(not_compiled_in(lang));
        }
        let key = parse_budget::ContentKey::of(lang, text);
        if let Some(reason) = parse_budget::recall(key) {
            break 'parse Err(format!(
                "{reason} (remembered by content; not parsed again)"
            ));
        }
        let Some(left) = budget.take(text.len()) else {
            break 'parse Err(budget.spent_reason());
        };
        let limit = left.min(MAX_PARSE_TIME);
        let started = Instant::now();
        let (outcome, cpu) = pool::parse(lang, text, limit, extras, stop);
        // The parse's CPU time, so that other work on the machine does not spend the budget; the
        // time waited where the parse gave none (a worker that died or was given up).
        budget.charge(cpu.unwrap_or_else(|| started.elapsed()));
        let (reason, own_bound) = match outcome {
            Outcome::Parsed(found) => break 'parse Ok(found),
            Outcome::Cancelled => ("cancelled".to_string(), false),
            Outcome::Time if limit < MAX_PARSE_TIME => (budget.spent_reason(), false),
            Outcome::Time => (
                format!(
                    "parsing took over {} ms, the parse time bound",
                    MAX_PARSE_TIME.as_millis()
                ),
                true,
            ),
            Outcome::Bound(reason) => (reason, true),
            Outcome::Died { signal, code } => (died_reason(signal, code), true),
            Outcome::Failed(reason) => (reason, false),
        };
        if own_bound {
            parse_budget::remember(key, &reason);
        }
        Err(reason)
    };
    if let Err(reason) = &found {
        budget.note_not_parsed(reason);
    }
    found
}

/// Why a file of a language whose grammar this build left out is not parsed.
fn not_compiled_in(lang: Language) -> String {
    format!(
        "this build has no {} grammar (cargo feature {})",
        lang.as_str(),
        lang.feature()
    )
}

/// Why a parse whose worker died was stopped.
fn died_reason(signal: u8, code: u8) -> String {
    let mib = pool::WORKER_MEMORY >> 20;
    match i32::from(signal) {
        0 => format!("the parser exited with code {code}"),
        libc::SIGABRT => format!("the parser ran out of its {mib} MiB memory bound (or aborted)"),
        libc::SIGSEGV | libc::SIGBUS => {
            format!(
                "the parser faulted (signal {signal}: its stack, or its {mib} MiB memory bound)"
            )
        }
        libc::SIGXCPU | libc::SIGALRM => "the parser ran past its time bound".to_string(),
        _ => format!("the parser was stopped by signal {signal}"),
    }
}

/// What one parse gave, in the process that ran it: sent from a parse worker as JSON.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) enum Outcome {
    /// The file's definitions (and extras, when asked for).
    Parsed(Found),
    /// The caller cancelled.
    Cancelled,
    /// The parse ran past the time it was given.
    Time,
    /// A bound of the file's own (definitions, nesting), with the reason.
    Bound(String),
    /// The worker died: by this signal (0 for an exit), with this exit code.
    Died { signal: u8, code: u8 },
    /// Something else went wrong, with the reason.
    Failed(String),
}

/// Parse `text` as `lang` in this thread, for at most `limit`; with `extras`, find its
/// comments and blocks of code too.
pub(crate) fn parse_here(
    lang: Language,
    text: &str,
    limit: Duration,
    extras: bool,
    stop: &dyn Fn() -> bool,
) -> Outcome {
    let started = Instant::now();
    let bytes = text.as_bytes();
    let tree = PARSER.with(|cell| {
        let mut parser = cell.borrow_mut();
        parser.reset();
        let Some(grammar) = lang.grammar() else {
            return Err(Outcome::Failed(not_compiled_in(lang)));
        };
        if parser.set_language(&grammar).is_err() {
            return Err(Outcome::Failed(
                "its grammar does not load in this tree-sitter version".to_string(),
            ));
        }
        let mut progress = |_: &ParseState| {
            if stop() || started.elapsed() > limit {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = ParseOptions::new().progress_callback(&mut progress);
        let tree = parser.parse_with_options(
            &mut |i, _| bytes.get(i..).unwrap_or_default(),
            None,
            Some(options),
        );
        if tree.is_none() {
            // A stopped parse resumes on the next call unless the parser is reset.
            parser.reset();
        }
        tree.ok_or_else(|| {
            if stop() {
                Outcome::Cancelled
            } else {
                Outcome::Time
            }
        })
    });
    let tree = match tree {
        Ok(tree) => tree,
        Err(outcome) => return outcome,
    };
    let mut found = Found::default();
    match collect(
        lang,
        &mut tree.walk(),
        bytes,
        extras.then_some(&mut found),
        stop,
    ) {
        Ok(symbols) => Outcome::Parsed(Found { symbols, ..found }),
        Err(reason) if reason == "cancelled" => Outcome::Cancelled,
        Err(reason) => Outcome::Bound(reason),
    }
}

/// An open definition during the walk, and the cursor depth of its node.
struct Open {
    symbol: Symbol,
    depth: usize,
}

/// Walk the tree once, iteratively, building the nested definitions; with `extras`, also
/// the comments ([`comments`]) and blocks of code outside function bodies.
fn collect(
    lang: Language,
    cursor: &mut TreeCursor,
    src: &[u8],
    mut extras: Option<&mut Found>,
    stop: &dyn Fn() -> bool,
) -> Result<Vec<Symbol>, String> {
    let mut top = Vec::new();
    let mut open: Vec<Open> = Vec::new();
    // The nodes holding the cursor's, root first: a node's parent read here, not asked of
    // tree-sitter (which finds it from the root down, so nesting would cost its square).
    let mut ancestors: Vec<Node> = Vec::new();
    let mut depth = 0usize;
    let mut count = 0usize;
    let mut visited = 0usize;
    loop {
        visited += 1;
        if visited.is_multiple_of(4096) && stop() {
            return Err("cancelled".to_string());
        }
        let node = cursor.node();
        let mut descend = true;
        if let Some(found) = extras.as_deref_mut()
            && node.is_named()
        {
            if let Some(c) = comments::comment_of(lang, node, src) {
                found.comments.push(c);
                descend = false;
            } else if comments::is_anchor(node) {
                comments::mark_doc(&mut found.comments, node, &ancestors, src);
            } else if (family(lang).blocks.contains(&node.kind())
                || web::expression_body(node, ancestors.last().copied()))
                // Not the body of a definition (a namespace's, a module's).
                && ancestors.last().is_none_or(|p| (family(lang).classify)(*p, src).is_none())
            {
                let block = Block {
                    inner: elidable(node, None, src),
                    whole: call_lines(lang, node, &ancestors, src),
                };
                if block.inner.is_none() {
                    found.inline.extend(inline_of(lang, None, node, true, src));
                }
                if block.inner.is_some() || block.whole.is_some() {
                    found.blocks.push(block);
                }
            } else if let Some(lines) = c_family::macro_value(node) {
                found.blocks.push(Block {
                    inner: None,
                    whole: Some(lines),
                });
            }
            found.inline.extend(c_family::macro_inline(node, src));
        }
        if descend
            && node.is_named()
            && let Some(def) = (family(lang).classify)(node, src)
        {
            count += 1;
            if count > MAX_SYMBOLS {
                return Err(format!("more than {MAX_SYMBOLS} definitions"));
            }
            if open.len() >= MAX_SYMBOL_DEPTH {
                return Err(format!(
                    "definitions nest more than {MAX_SYMBOL_DEPTH} deep"
                ));
            }
            let in_container = open.last().is_some_and(|o| o.symbol.kind.is_container());
            let kind = match def.kind {
                SymbolKind::Function if in_container => SymbolKind::Method,
                k => k,
            };
            descend = !kind.is_callable();
            if let Some(found) = extras.as_deref_mut() {
                comments::mark_doc(&mut found.comments, node, &ancestors, src);
                // A function's docstring, inside the body the walk does not enter.
                if let Some(d) = def.body.filter(|_| lang == Language::Python && !descend) {
                    found
                        .comments
                        .extend(python::docstring_node(d).map(|n| comments::Comment {
                            start: u32::try_from(n.start_byte()).unwrap_or(u32::MAX),
                            end: u32::try_from(n.end_byte()).unwrap_or(u32::MAX),
                            doc: true,
                        }));
                }
            }
            let body = def.body;
            let symbol = symbol_of(lang, node, &ancestors, kind, def, src);
            if let (Some(found), Some(b)) = (extras.as_deref_mut(), body)
                && kind.is_callable()
                && symbol.body.is_none()
            {
                found
                    .inline
                    .extend(inline_of(lang, Some(node), b, false, src));
            }
            open.push(Open { symbol, depth });
        }
        if descend && cursor.goto_first_child() {
            ancestors.push(node);
            depth += 1;
            continue;
        }
        loop {
            if open.last().is_some_and(|o| o.depth == depth) {
                let done = open.pop().map(|o| o.symbol);
                match (open.last_mut(), done) {
                    (Some(parent), Some(s)) => parent.symbol.children.push(s),
                    (None, Some(s)) => top.push(s),
                    _ => {}
                }
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return Ok(top);
            }
            ancestors.pop();
            depth -= 1;
        }
    }
}

/// The last line a node covers (a node ending at a line's start ends on the line before).
fn last_row(node: Node) -> usize {
    let (start, end) = (node.start_position(), node.end_position());
    if end.column == 0 && end.row > start.row {
        end.row - 1
    } else {
        end.row
    }
}

fn line(row: usize) -> u32 {
    u32::try_from(row + 1).unwrap_or(u32::MAX)
}

/// The symbol of definition `node`, whose holders are `ancestors` (root first).
fn symbol_of(
    lang: Language,
    node: Node,
    ancestors: &[Node],
    kind: SymbolKind,
    def: Def,
    src: &[u8],
) -> Symbol {
    let lines = LineRange {
        start: line(node.start_position().row),
        end: line(last_row(node)),
    };
    let first_line_only = matches!(
        lang,
        Language::Ruby | Language::Elixir | Language::Lua | Language::Bash
    );
    // Python: up to the `:` that opens the body (a comment may follow it).
    let colon = (lang == Language::Python)
        .then(|| child_of_kind(node, &[":"]).map(|c| c.start_byte()))
        .flatten();
    let sig_end = match def.body {
        _ if colon.is_some() => colon.unwrap_or_default(),
        Some(b) if b.start_byte() > node.start_byte() && !first_line_only => b.start_byte(),
        _ => {
            // No body: the declaration's first line.
            let s = &src[node.start_byte()..node.end_byte().min(src.len())];
            node.start_byte() + s.iter().position(|&b| b == b'\n').unwrap_or(s.len())
        }
    };
    let raw = src.get(node.start_byte()..sig_end).unwrap_or_default();
    let mut signature = collapse(raw, MAX_SIGNATURE_CHARS);
    trim_opener(&mut signature);
    let docstring = if lang == Language::Python {
        def.body.and_then(|b| python::docstring(b, src))
    } else {
        None
    };
    let doc = match &docstring {
        Some((text, _)) => Some(text.clone()),
        None => doc_before(node, ancestors, src),
    };
    let body = if kind.is_callable() {
        def.body
            .and_then(|b| elidable(b, docstring.as_ref().map(|(_, n)| last_row(*n)), src))
    } else {
        None
    };
    let mut name = def.name;
    if name.chars().count() > MAX_NAME_CHARS {
        name = name.chars().take(MAX_NAME_CHARS).collect();
    }
    Symbol {
        kind,
        name,
        signature,
        lines,
        body,
        doc,
        children: Vec::new(),
    }
}

/// The text of `body` a `signatures` skeleton may elide within its lines ([`Inline`]): between
/// its braces, or for Python after the `:` of the definition `def`; `None` for another shape
/// (an expression body, `= x`, `=> x`).
fn inline_of(
    lang: Language,
    def: Option<Node>,
    body: Node,
    block: bool,
    src: &[u8],
) -> Option<Inline> {
    let text = src.get(body.byte_range())?;
    let trimmed = trim_ascii_end(text);
    let (start, end) = if text.starts_with(b"{") && trimmed.len() >= 2 && trimmed.ends_with(b"}") {
        (body.start_byte() + 1, body.start_byte() + trimmed.len() - 1)
    } else if lang == Language::Python {
        let colon = child_of_kind(def?, &[":"])?;
        (colon.end_byte(), body.start_byte() + trimmed.len())
    } else {
        return None;
    };
    Some(Inline {
        start: u32::try_from(start).ok()?,
        end: u32::try_from(end).ok()?,
        block,
    })
}

/// Drop a trailing body opener (`{`, `:`, `=`, `do`, `where`, `=>`) from a signature.
fn trim_opener(sig: &mut String) {
    loop {
        let t = sig.trim_end();
        let cut = ["{", ":", "=>", "=", ";", " do", " where", " then", "->"]
            .iter()
            .find(|o| {
                t.ends_with(*o) && !t.ends_with("::") && !t.ends_with("==") && !t.ends_with(">=")
            })
            .map(|o| t.len() - o.len());
        let new_len = cut.unwrap_or(t.len());
        let changed = new_len != sig.len();
        sig.truncate(new_len);
        if !changed || cut.is_none() {
            let t = sig.trim_end().len();
            sig.truncate(t);
            return;
        }
    }
}

/// The body lines a skeleton may elide: from the first line after the body's opener (or after
/// a docstring) to the line before its closer; `None` when that is fewer than two lines.
fn elidable(body: Node, docstring_end_row: Option<usize>, src: &[u8]) -> Option<LineRange> {
    let start_row = body.start_position().row;
    let text = src.get(body.byte_range()).unwrap_or_default();
    // The row of its last word: a body may end past blank lines and the next line's indent
    // (Scala's indented bodies), which are not its lines.
    // Counted back from the node's end over the whitespace after the word, not over the whole
    // body (blocks nest: each would read its holders' text again).
    let trailing = &text[trim_ascii_end(text).len()..];
    let end_row = body
        .end_position()
        .row
        .saturating_sub(trailing.iter().filter(|&&b| b == b'\n').count())
        .max(start_row);
    // The body starts on a line of its own (Python, Ruby) or after an opener on the line. Read
    // back from the body only to the first word: a file of one long line is not read again for
    // each body.
    let own_line = src[..body.start_byte().min(src.len())]
        .iter()
        .rev()
        .take_while(|&&b| b != b'\n')
        .all(|b| b.is_ascii_whitespace());
    let opens = text
        .first()
        .is_some_and(|b| matches!(b, b'{' | b'(' | b'['));
    let mut first = if own_line && !opens {
        start_row
    } else {
        start_row + 1
    };
    if let Some(row) = docstring_end_row {
        first = first.max(row + 1);
    }
    let trimmed = trim_ascii_end(text);
    let closes = trimmed.ends_with(b"}")
        || trimmed.ends_with(b"end")
        || trimmed.ends_with(b")")
        || trimmed.ends_with(b"]");
    let last = if closes && end_row > start_row {
        // Keep the closer's line only when it holds nothing but the closer.
        let close_line_start = src[..body.start_byte() + trimmed.len()]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let before = &src[close_line_start..body.start_byte() + trimmed.len() - 1];
        if before.iter().all(|b| b.is_ascii_whitespace()) || trimmed.ends_with(b"end") {
            end_row - 1
        } else {
            end_row
        }
    } else {
        end_row
    };
    if last < first + 1 {
        return None;
    }
    Some(LineRange {
        start: line(first),
        end: line(last),
    })
}

/// When the block of code `node` is a callback, the lines of the whole call it closes: the
/// construct that starts on the block's first line and ends on its last, through a call, and is
/// no definition ([`Block::whole`]).
fn call_lines(lang: Language, node: Node, ancestors: &[Node], src: &[u8]) -> Option<LineRange> {
    let (first, last) = (node.start_position().row, last_row(node));
    let mut called = false;
    for (k, &p) in ancestors.iter().enumerate().rev() {
        // Not past the root, a definition or a declaration (`const x = f(() => { … })` keeps
        // its name).
        let declares = [
            "declarat",
            "assignment",
            "pair",
            "field",
            "property",
            "export",
        ]
        .iter()
        .any(|k| p.kind().contains(k));
        if k == 0
            || declares
            || p.start_position().row != first
            || last_row(p) != last
            || (family(lang).classify)(p, src).is_some()
        {
            break;
        }
        called |= p.kind().contains("call") || p.kind().contains("invocation");
    }
    (called && last > first).then(|| LineRange {
        start: line(first),
        end: line(last),
    })
}

fn trim_ascii_end(b: &[u8]) -> &[u8] {
    let n = b
        .iter()
        .rposition(|c| !c.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    &b[..n]
}

/// Node kinds that wrap a definition and hold its doc comment before them.
const WRAPPERS: &[&str] = &[
    "decorated_definition",
    "export_statement",
    "template_declaration",
    "ambient_declaration",
];

/// Node kinds that may stand between a doc comment and its definition.
const BETWEEN: &[&str] = &[
    "attribute_item",
    "attribute",
    "attribute_list",
    "decorator",
    "annotation",
    "marker_annotation",
    "modifiers",
    // Haskell: a function's type signature stands between its haddock and its equations.
    "signature",
];

/// The first line of the comment block right before `node` (attributes and decorators may
/// stand between; a blank line may not).
fn doc_before(node: Node, ancestors: &[Node], src: &[u8]) -> Option<String> {
    let (first, anchor) = doc_block(node, ancestors, src)?;
    // From the earliest comment to the definition, the first line with words in it.
    let end = anchor.start_byte();
    let text = src.get(first.start_byte()..end).unwrap_or_default();
    for raw in text.split(|&b| b == b'\n').take(64) {
        let cleaned = clean_comment_line(raw);
        if !cleaned.is_empty() {
            return Some(collapse(cleaned, MAX_DOC_CHARS));
        }
    }
    None
}

/// The comment block right before `node` (attributes and decorators may stand between; a blank
/// line may not): its earliest comment, and the node it stands before (`node`, or the wrapper
/// holding it, such as an `export`); `ancestors` hold `node`, root first.
fn doc_block<'t>(
    node: Node<'t>,
    ancestors: &[Node<'t>],
    src: &[u8],
) -> Option<(Node<'t>, Node<'t>)> {
    let mut anchor = node;
    for &parent in ancestors.iter().rev() {
        if WRAPPERS.contains(&parent.kind()) {
            anchor = parent;
        } else {
            break;
        }
    }
    let mut next_start = anchor.start_position().row;
    let mut earliest: Option<Node> = None;
    let mut prev = anchor.prev_sibling();
    let mut steps = 0;
    while let Some(p) = prev {
        steps += 1;
        if steps > 256 || last_row(p) + 1 < next_start {
            break;
        }
        let is_doc = p.kind().contains("comment")
            || p.kind() == "haddock"
            || (p.kind() == "unary_operator"
                && src
                    .get(p.byte_range())
                    .is_some_and(|t| t.starts_with(b"@doc")));
        if is_doc {
            earliest = Some(p);
        } else if !BETWEEN.contains(&p.kind()) {
            break;
        }
        next_start = p.start_position().row;
        prev = p.prev_sibling();
    }
    Some((earliest?, anchor))
}

/// A comment line without its markers.
fn clean_comment_line(raw: &[u8]) -> &[u8] {
    let mut s = raw.trim_ascii();
    for marker in [
        &b"@doc"[..],
        b"///",
        b"//!",
        b"//",
        b"/**",
        b"/*!",
        b"/*",
        b"*/",
        b"#!",
        b"#",
        b"--",
        b";;",
        b"*",
    ] {
        if let Some(rest) = s.strip_prefix(marker) {
            s = rest;
            break;
        }
    }
    if let Some(rest) = s.strip_suffix(b"*/") {
        s = rest;
    }
    // Elixir's `@doc """`, Haskell's `-- |`.
    let s = s.trim_ascii();
    let s = s.strip_prefix(b"|").unwrap_or(s);
    let quotes = |b: &u8| *b == b'"' || *b == b'\'';
    let lead = s.iter().take_while(|b| quotes(b)).count();
    let s = &s[lead..];
    let trail = s.iter().rev().take_while(|b| quotes(b)).count();
    let s = s[..s.len() - trail].trim_ascii();
    // A line of only decoration (`****`, `----`) says nothing.
    if s.iter().all(|b| !b.is_ascii_alphanumeric()) {
        return &[];
    }
    s
}

/// `bytes` as one line: whitespace runs to one space, at most `max` characters (cut with `…`).
fn collapse(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(max * 8)]);
    let mut out = String::new();
    let mut chars = 0;
    let mut space = false;
    for c in text.trim().chars() {
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space {
            out.push(' ');
            chars += 1;
            space = false;
        }
        if chars >= max {
            out.push('…');
            return out;
        }
        out.push(c);
        chars += 1;
    }
    out
}

#[cfg(test)]
mod tests;
