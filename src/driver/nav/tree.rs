//! `tree`: the directory tree of the repository (or of one directory in it) with, for every
//! entry, its lines, bytes and exact tokens: for a file, the tokens `extract` would spend on it
//! (its rendered piece, as `Extraction.files[].tokens`); for a directory, the sums.
//!
//! Files are walked and read exactly as `extract` walks and reads them (ignore files, hidden
//! files, include/exclude, the per-file step with `extract`'s own settings, so the warm cache's
//! pieces are shared both ways). Files `extract` leaves out are counted by reason, not listed.
//!
//! The answer is bounded by the budget and the byte ceiling: entries are revealed biggest first
//! (the largest entry not yet shown, then its children, and so on, down to `depth`), and what
//! is not shown is summed up per directory as `… N more entries`. When anything is hidden the
//! answer names the directories to expand, as `path` arguments.

use super::read::line_count;
use crate::driver::call::Answer;
use crate::driver::call::paging::{self, Limits, Paged};
use crate::driver::call::paths::{prove, quote, repo_root};
use crate::driver::call::request::{NavError, Request};
use crate::driver::call::session::Session;
use crate::vocab::ErrorKind;
use crate::vocab::display_path;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::fmt::Write as _;

/// Directories named as ways to expand a cut tree.
pub const MAX_EXPAND_HINTS: usize = 5;

/// What to list: a `tree` call's arguments, as the CLI gives them and as a tool call's JSON is
/// read ([`crate::driver::call::args`]; the `tree` tool's input schema is derived from them).
#[derive(Clone, Debug, Default, serde::Deserialize, schemars::JsonSchema, clap::Args)]
pub struct TreeArgs {
    /// Directory inside the repository (default: all of it).
    #[serde(default, deserialize_with = "crate::driver::call::args::some_path")]
    pub path: Option<String>,
    /// Levels below path; 1 for its own entries (default: what fits).
    #[arg(long, value_name = "N")]
    #[serde(default, deserialize_with = "crate::driver::call::args::some_count")]
    pub depth: Option<usize>,
}

/// One entry as shown.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Entry {
    /// Path relative to the repo, as gnaw shows paths.
    pub path: String,
    /// Said as its `type`: `dir` or `file`.
    #[serde(rename = "type", serialize_with = "dir_or_file")]
    pub is_dir: bool,
    /// Levels below the listed directory (1 for its own entries).
    pub depth: usize,
    /// Files in it (1 for a file).
    pub files: u64,
    /// Lines of text in it.
    pub lines: u64,
    /// Bytes in it.
    pub bytes: u64,
    /// Tokens in it.
    pub tokens: u64,
    /// A directory's entries not shown, and their tokens.
    pub hidden_entries: usize,
    /// The tokens of the entries not shown.
    pub hidden_tokens: u64,
}

/// What `tree` found.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct TreeFacts {
    /// The listed directory, as gnaw shows paths (`.` for the repo).
    pub root: Entry,
    /// Files left out by `extract`'s rules, by reason.
    pub not_included: BTreeMap<&'static str, usize>,
    /// Shown entries, in the order of the text.
    pub entries: Vec<Entry>,
    /// Directories to expand next (`path` arguments), biggest hidden part first; never the
    /// listed directory itself (asking for it again gives the same answer), but its biggest
    /// hidden subdirectory.
    pub expand: Vec<String>,
    /// Whether every entry is shown (none hidden by the budget, the ceiling or the depth).
    pub complete: bool,
}

/// What `tree` answers.
pub type TreeAnswer = Answer<TreeFacts>;

fn dir_or_file<S: serde::Serializer>(is_dir: &bool, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(if *is_dir { "dir" } else { "file" })
}

struct Node {
    name: String,
    path: String,
    is_dir: bool,
    depth: usize,
    children: Vec<usize>,
    files: u64,
    lines: u64,
    bytes: u64,
    tokens: u64,
}

/// List `req`'s repository.
pub fn tree(req: &Request<'_>, args: &TreeArgs) -> Result<TreeAnswer, NavError> {
    if args.depth == Some(0) {
        return Err(NavError::invalid(
            "depth is 0; give 1 or more levels, or leave it out for no limit",
        ));
    }
    let prefix = match &args.path {
        None => Vec::new(),
        Some(p) => {
            let root = repo_root(req)?;
            let proven = prove(&root, "path", p)?;
            if !proven.is_dir() {
                return Err(NavError::argument(
                    ErrorKind::NotADirectory,
                    format!(
                        "path {} is a file, not a directory; read it with read",
                        quote(p)
                    ),
                ));
            }
            proven.rel
        }
    };
    let session = Session::open(req)?;
    let under = |rel: &[u8]| {
        prefix.is_empty()
            || rel.len() > prefix.len() && rel.starts_with(&prefix) && rel[prefix.len()] == b'/'
    };
    // Only the listed directory's subtree is walked (and read); its ancestors are listed for
    // their ignore files. Entries the walk reports above it are not this answer's.
    let mut sourced = session.walk_under(&prefix)?;
    sourced.candidates.retain(|c| under(&c.rel));
    let fo = session.file_options(true, None);
    let ctx = session.context(&fo)?;
    let measured = session.each_file(&ctx, &sourced.candidates, |_, (r, _)| {
        r.map(|body| (line_count(&body.text), body.bytes, body.tokens as u64))
            .map_err(|reason| reason.kind())
    })?;
    let mut not_included: BTreeMap<&'static str, usize> = BTreeMap::new();
    for s in sourced
        .skipped
        .iter()
        .filter(|s| prefix.is_empty() || s.path.starts_with(&format!("{}/", display_path(&prefix))))
    {
        *not_included.entry(s.reason.kind()).or_default() += 1;
    }
    let root_path = if prefix.is_empty() {
        ".".to_string()
    } else {
        ctx.namer().path(&prefix).into_string()
    };
    let mut nodes = vec![Node {
        name: root_path.clone(),
        path: root_path,
        is_dir: true,
        depth: 0,
        children: Vec::new(),
        files: 0,
        lines: 0,
        bytes: 0,
        tokens: 0,
    }];
    let mut dirs: HashMap<Vec<u8>, usize> = HashMap::new();
    for (c, m) in sourced.candidates.iter().zip(measured) {
        let (lines, bytes, tokens) = match m {
            Ok(m) => m,
            Err(kind) => {
                *not_included.entry(kind).or_default() += 1;
                continue;
            }
        };
        let rest = if prefix.is_empty() {
            &c.rel[..]
        } else {
            &c.rel[prefix.len() + 1..]
        };
        let parts: Vec<&[u8]> = rest.split(|&b| b == b'/').collect();
        let mut at = 0;
        let mut seen = prefix.clone();
        for (i, part) in parts.iter().enumerate() {
            let node = &mut nodes[at];
            node.files += 1;
            node.lines += lines;
            node.bytes += bytes;
            node.tokens += tokens;
            if !seen.is_empty() {
                seen.push(b'/');
            }
            seen.extend_from_slice(part);
            let is_file = i + 1 == parts.len();
            let next = match dirs.get(&seen) {
                Some(&n) if !is_file => n,
                _ => {
                    let n = nodes.len();
                    // Shown as every answer shows it: a secret in the name redacted. Shown
                    // paths have the raw path's components, so the last is the entry's name.
                    let path = ctx.namer().path(&seen).into_string();
                    let name = path.rsplit('/').next().unwrap_or_default().to_string();
                    nodes.push(Node {
                        name,
                        path,
                        is_dir: !is_file,
                        depth: i + 1,
                        children: Vec::new(),
                        files: 0,
                        lines: 0,
                        bytes: 0,
                        tokens: 0,
                    });
                    nodes[at].children.push(n);
                    if !is_file {
                        dirs.insert(seen.clone(), n);
                    }
                    n
                }
            };
            at = next;
        }
        let leaf = &mut nodes[at];
        leaf.files = 1;
        leaf.lines = lines;
        leaf.bytes = bytes;
        leaf.tokens = tokens;
    }
    // Biggest first; ties by name.
    let order: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            let mut c = n.children.clone();
            c.sort_by(|&a, &b| {
                nodes[b]
                    .tokens
                    .cmp(&nodes[a].tokens)
                    .then(nodes[b].bytes.cmp(&nodes[a].bytes))
                    .then(nodes[a].name.cmp(&nodes[b].name))
            });
            c
        })
        .collect();
    for (n, c) in order.into_iter().enumerate() {
        nodes[n].children = c;
    }
    // The order entries are revealed in: the biggest entry not yet shown whose directory is.
    let max_depth = args.depth.unwrap_or(usize::MAX);
    let mut items = Vec::new();
    // Ordered by tokens, then by the entry's place among its siblings, then by node id.
    let mut heap: BinaryHeap<(u64, Reverse<(usize, usize)>)> = BinaryHeap::new();
    let reveal = |heap: &mut BinaryHeap<(u64, Reverse<(usize, usize)>)>, n: usize| {
        if nodes[n].depth < max_depth {
            for (rank, &c) in nodes[n].children.iter().enumerate() {
                heap.push((nodes[c].tokens, Reverse((rank, c))));
            }
        }
    };
    reveal(&mut heap, 0);
    while let Some((_, Reverse((_, n)))) = heap.pop() {
        items.push(n);
        if nodes[n].is_dir {
            reveal(&mut heap, n);
        }
    }
    let (encoding, limits) = (session.encoding(), session.limits());
    let budget = limits.budget;
    let count = session.counter();
    let r = Render {
        nodes: &nodes,
        items: &items,
        not_included: &not_included,
        limits,
        count: &count,
    };
    let fitted = paging::fit(&r, limits, &count)?;
    let shown = r.shown(fitted.k);
    let mut entries = Vec::new();
    r.walk(0, &shown, &mut |n, hidden| {
        if n != 0 {
            entries.push(r.entry(n, hidden));
        }
    });
    let root = r.entry(0, r.hidden(0, &shown));
    let next = r.next(fitted.k);
    let complete = next.is_none();
    let expand = next.unwrap_or_default();
    Ok(Answer {
        page: fitted.page(encoding, budget),
        facts: TreeFacts {
            root,
            not_included: not_included.clone(),
            entries,
            expand,
            complete,
        },
    })
}

struct Render<'a> {
    nodes: &'a [Node],
    items: &'a [usize],
    not_included: &'a BTreeMap<&'static str, usize>,
    limits: Limits,
    count: &'a dyn Fn(&str) -> usize,
}

impl Render<'_> {
    fn shown(&self, k: usize) -> Vec<bool> {
        let mut shown = vec![false; self.nodes.len()];
        shown[0] = true;
        for &n in &self.items[..k] {
            shown[n] = true;
        }
        shown
    }

    /// A directory's children not shown: how many, and their tokens.
    fn hidden(&self, n: usize, shown: &[bool]) -> (usize, u64, u64) {
        let node = &self.nodes[n];
        let mut h = (0, 0, 0);
        for &c in &node.children {
            if !shown[c] {
                h.0 += 1;
                h.1 += self.nodes[c].files;
                h.2 += self.nodes[c].tokens;
            }
        }
        h
    }

    fn entry(&self, n: usize, hidden: (usize, u64, u64)) -> Entry {
        let node = &self.nodes[n];
        Entry {
            path: node.path.clone(),
            is_dir: node.is_dir,
            depth: node.depth,
            files: node.files,
            lines: node.lines,
            bytes: node.bytes,
            tokens: node.tokens,
            hidden_entries: hidden.0,
            hidden_tokens: hidden.2,
        }
    }

    /// Visit shown nodes in the order of the text, with what each hides.
    fn walk(&self, n: usize, shown: &[bool], f: &mut dyn FnMut(usize, (usize, u64, u64))) {
        f(n, self.hidden(n, shown));
        for &c in &self.nodes[n].children {
            if shown[c] {
                self.walk(c, shown, f);
            }
        }
    }

    /// One entry's line after `lead` (the tree drawing).
    fn line(&self, n: usize, lead: &str) -> String {
        let node = &self.nodes[n];
        if node.is_dir {
            format!(
                "{lead}{}/ ({} files, {} lines, {} bytes, {} tokens)\n",
                node.name, node.files, node.lines, node.bytes, node.tokens
            )
        } else {
            format!(
                "{lead}{} ({} lines, {} bytes, {} tokens)\n",
                node.name, node.lines, node.bytes, node.tokens
            )
        }
    }

    fn draw(&self, n: usize, indent: &str, shown: &[bool], out: &mut String) {
        let kids: Vec<usize> = self.nodes[n]
            .children
            .iter()
            .copied()
            .filter(|&c| shown[c])
            .collect();
        let (hidden, files, tokens) = self.hidden(n, shown);
        let lines = kids.len() + usize::from(hidden > 0);
        for (i, &c) in kids.iter().enumerate() {
            let last = i + 1 == lines;
            out.push_str(&self.line(
                c,
                &format!("{indent}{}", if last { "└── " } else { "├── " }),
            ));
            if self.nodes[c].is_dir {
                self.draw(
                    c,
                    &format!("{indent}{}", if last { "    " } else { "│   " }),
                    shown,
                    out,
                );
            }
        }
        if hidden > 0 {
            let _ = writeln!(
                out,
                "{indent}└── … {hidden} {}{}: {files} {}, {tokens} tokens",
                if kids.is_empty() { "" } else { "more " },
                if hidden == 1 { "entry" } else { "entries" },
                if files == 1 { "file" } else { "files" },
            );
        }
    }

    /// Whether a shown directory has entries hidden.
    fn cut(&self, shown: &[bool]) -> bool {
        (0..self.nodes.len()).any(|n| shown[n] && self.hidden(n, shown).0 > 0)
    }

    /// The directories to expand, biggest hidden part first: each shown directory with entries
    /// hidden, and, for the listed directory itself (node 0: asking for it again would give the
    /// same answer), its biggest hidden subdirectory (one, so that the hint costs what naming
    /// the listed directory did).
    fn expand(&self, shown: &[bool]) -> Vec<String> {
        let root = &self.nodes[0];
        let mut dirs: Vec<(u64, usize)> = (1..self.nodes.len())
            .filter(|&n| shown[n] && self.nodes[n].is_dir)
            .filter_map(|n| {
                let (h, _, t) = self.hidden(n, shown);
                (h > 0).then_some((t, n))
            })
            .chain(
                root.children
                    .iter()
                    .filter(|&&c| !shown[c] && self.nodes[c].is_dir)
                    .map(|&c| (self.nodes[c].tokens, c))
                    .max_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1))),
            )
            .collect();
        dirs.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        dirs.iter()
            .map(|&(_, n)| self.nodes[n].path.clone())
            .collect()
    }
}

impl Paged for Render<'_> {
    /// The directories to expand, biggest hidden part first, when entries are hidden.
    type Next = Option<Vec<String>>;

    fn items(&self) -> usize {
        self.items.len()
    }

    fn cost(&self, i: usize) -> (usize, usize) {
        let line = self.line(self.items[i], "│   ├── ");
        ((self.count)(&line) + 2, line.len() + 12)
    }

    /// The answer showing the first `k` entries revealed.
    fn render(&self, k: usize) -> String {
        let shown = self.shown(k);
        let root = &self.nodes[0];
        let mut out = format!(
            "tree {}: {} files, {} lines, {} bytes, {} tokens (each file's tokens are what extract \
             spends on it)",
            root.path, root.files, root.lines, root.bytes, root.tokens
        );
        if !self.not_included.is_empty() {
            let _ = write!(out, "; not included: {}", paging::tally(self.not_included));
        }
        out.push_str("\n\n");
        out.push_str(&self.line(0, ""));
        self.draw(0, "", &shown, &mut out);
        if let Some(expand) = self.next(k) {
            let why = paging::why(k < self.items.len(), &self.limits, || {
                "depth reached".into()
            });
            let args: Vec<String> = expand
                .iter()
                .take(MAX_EXPAND_HINTS)
                .map(|p| serde_json::json!({ "path": p }).to_string())
                .collect();
            if args.is_empty() {
                // Only files of the listed directory are hidden: naming it again would answer
                // the same, so the ways on are a filter or a larger budget.
                let _ = write!(
                    out,
                    "\n--- {why}; biggest entries first. Narrow with include/exclude, or give a \
                     larger budget.\n"
                );
            } else {
                let _ = write!(
                    out,
                    "\n--- {why}; biggest entries first. Expand a directory with {}, or narrow \
                     with include/exclude.\n",
                    args.join(" or ")
                );
            }
        }
        out
    }

    /// The directories to expand ([`Render::expand`]) when a shown directory has entries
    /// hidden; `None` when nothing is.
    fn next(&self, k: usize) -> Option<Vec<String>> {
        let shown = self.shown(k);
        self.cut(&shown).then(|| self.expand(&shown))
    }
}
