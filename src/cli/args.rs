//! The `gnaw` command's flags: one table (the [`Args`] struct, parsed by clap), and what they
//! override in `.gnawconfig` ([`Args::overrides`]). Every enumerated flag lists its values in
//! `--help`, taken from the same names the parser accepts.

use crate::spec::Overrides;
use crate::vocab::{Compress, Encoding, Format, SecretsMode};
use clap::{ArgAction, Parser, ValueHint};
use std::path::PathBuf;

/// Turn a repository into one LLM-ready prompt: a directory tree and every file's contents,
/// with an exact token count.
///
/// gnaw walks REPO honouring the .gitignore and .ignore files inside it (never any outside it),
/// leaves out hidden, binary, oversized and non-regular files, and renders the rest as markdown,
/// xml or json. A .gnawconfig TOML file at the repo root sets defaults; flags override it.
#[derive(Parser, Debug)]
#[command(
    name = "gnaw",
    version,
    max_term_width = 100,
    after_help = "The commands navigate a repository instead (the text gnaw-mcp's tools answer): \
                  gnaw COMMAND --help for each; shell completions and man pages: gnaw completions \
                  SHELL, gnaw man [COMMAND]. To extract a directory named like a command, write \
                  ./tree."
)]
pub struct Args {
    /// The repository to extract
    #[arg(default_value = ".", value_hint = ValueHint::DirPath)]
    pub repo: PathBuf,

    /// Write the prompt to FILE instead of stdout
    #[arg(short, long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub output: Option<PathBuf>,

    /// With -o: write the prompt as numbered files (prompt.1.md, prompt.2.md, ...), each at most
    /// SIZE (bytes, e.g. 100KB, 2MB, or tokens, e.g. 20000tokens); a file is never split, unless
    /// it alone is larger. Each part says which part it is
    #[arg(long, value_name = "SIZE", value_parser = parse_split_size,
          conflicts_with_all = ["template", "clipboard", "estimate"])]
    pub split_output: Option<SplitSize>,

    /// Copy the prompt to the clipboard (wl-copy, xclip, xsel or pbcopy) instead of printing it;
    /// with -o, write the file and copy it too
    #[arg(short = 'c', long, conflicts_with = "estimate")]
    pub clipboard: bool,

    /// Render the prompt through this Handlebars template (code2prompt's variables:
    /// absolute_code_path, source_tree, files with path, extension, code and token_count, ...;
    /// see README). The file set is the one the budget keeps; the count is the rendered text's
    #[arg(short = 't', long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub template: Option<PathBuf>,

    /// A variable for --template: NAME=VALUE, as {{NAME}} (repeatable)
    #[arg(long = "var", value_name = "NAME=VALUE", requires = "template",
          value_parser = parse_var, action = ArgAction::Append)]
    pub vars: Vec<(String, String)>,

    /// Output format [possible values: markdown (or md), xml, json] [default: markdown]
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    pub format: Option<Format>,

    /// Tokenizer encoding [possible values: o200k_base (GPT-4o and later), cl100k_base,
    /// p50k_base, r50k_base] [default: o200k_base]
    #[arg(long, value_name = "ENCODING", value_parser = parse_encoding)]
    pub encoding: Option<Encoding>,

    /// Only include paths matching these globs (repeatable, comma-separated; added to .gnawconfig's)
    #[arg(short, long, value_name = "GLOB", value_delimiter = ',', action = ArgAction::Append)]
    pub include: Vec<String>,

    /// Leave out paths matching these globs (repeatable, comma-separated; wins over --include)
    #[arg(short, long, value_name = "GLOB", value_delimiter = ',', action = ArgAction::Append)]
    pub exclude: Vec<String>,

    /// Print only the token count and encoding
    #[arg(long)]
    pub estimate: bool,

    /// Do not count tokens (fastest; the reported count is 0; incompatible with --budget)
    #[arg(long, conflicts_with_all = ["estimate", "budget"])]
    pub no_count: bool,

    /// Print a machine-readable JSON summary on stdout (the prompt goes only to --output)
    #[arg(long)]
    pub json: bool,

    /// Silence the summary on stderr
    #[arg(short, long)]
    pub quiet: bool,

    /// Include hidden files and directories
    #[arg(long, overrides_with = "no_hidden")]
    pub hidden: bool,
    /// Leave out hidden files and directories (the default; overrides .gnawconfig)
    #[arg(long, overrides_with = "hidden")]
    pub no_hidden: bool,

    /// Do not honour .gitignore, .ignore or .git/info/exclude
    #[arg(long, overrides_with = "ignore_files")]
    pub no_ignore: bool,
    /// Honour ignore files (the default; overrides .gnawconfig)
    #[arg(long, overrides_with = "no_ignore")]
    pub ignore_files: bool,

    /// Follow symlinks whose target stays inside the repository
    #[arg(short = 'L', long)]
    pub follow: bool,

    /// Skip files larger than this (bytes, or e.g. 512KiB, 2MiB) [default: 1MiB]
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_file_size: Option<u64>,

    /// Walk at most this many directory levels below the repository; deeper directories are
    /// reported as skipped [default: 256]
    #[arg(long, value_name = "LEVELS", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_depth: Option<u32>,

    /// Prefix every line of every file with its line number
    #[arg(long, overrides_with = "no_line_numbers")]
    pub line_numbers: bool,
    /// Do not number lines (overrides .gnawconfig)
    #[arg(long, overrides_with = "line_numbers")]
    pub no_line_numbers: bool,

    /// Leave out the directory tree
    #[arg(long, overrides_with = "tree")]
    pub no_tree: bool,
    /// Show the directory tree (the default; overrides .gnawconfig)
    #[arg(long, overrides_with = "no_tree")]
    pub tree: bool,

    /// Secrets handling [possible values: off, warn, redact, block] [default: warn]
    #[arg(long, value_name = "MODE", value_parser = parse_secrets)]
    pub secrets: Option<SecretsMode>,

    /// Fit the prompt into N tokens: whole files, best-ranked first; the rest are listed as
    /// omitted (0 means unlimited)
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,

    /// Fit the prompt into N characters as well: the budget is lowered until it fits (0 means
    /// unlimited)
    #[arg(long, value_name = "N", conflicts_with = "no_count")]
    pub max_chars: Option<usize>,

    /// Count --max-chars as the prompt written as a JSON string (quotes, backslashes and line
    /// breaks escaped), as gnaw-mcp's clients receive it: the CLI run equal to an extract call
    #[arg(long, requires = "max_chars")]
    pub max_chars_json: bool,

    /// Rank files by relevance to this text (decides what a --budget keeps)
    #[arg(long, value_name = "TEXT")]
    pub query: Option<String>,

    /// Show files as skeletons: imports, signatures and declarations, with function bodies
    /// elided as "⋯ N lines (A–B)"; with --budget, files stay whole while they fit, then become
    /// skeletons, then are omitted. LEVEL [possible values: docs (comments kept; the default),
    /// summary (doc comments cut to their first sentence, other comments dropped), signatures
    /// (no comments)]
    #[arg(long, value_name = "LEVEL", num_args = 0..=1, require_equals = true,
          default_missing_value = "docs", value_parser = parse_compress)]
    pub compress: Option<Compress>,

    /// Apply [profiles.NAME] from .gnawconfig
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,

    /// Explain the ranking: each file's score and its parts (on stderr, or in --json)
    #[arg(long)]
    pub explain: bool,

    /// Read the paths to extract from stdin, one per line (e.g. from git diff --name-only)
    #[arg(long)]
    pub stdin: bool,

    /// Extract only the files changed against BASE (default HEAD): modified, added, renamed
    /// and untracked files, read from .git in-process (git is never run)
    #[arg(long, value_name = "BASE", num_args = 0..=1, default_missing_value = "HEAD",
          conflicts_with = "stdin")]
    pub changed: Option<String>,

    /// Do not use the disk cache of token counts and skeletons ($XDG_CACHE_HOME/gnaw, else
    /// ~/.cache/gnaw): nothing is read from it or written to it. GNAW_NO_CACHE=1 does the same
    #[arg(long)]
    pub no_cache: bool,

    /// With --stdin: paths are separated by NUL bytes (e.g. from git ls-files -z)
    #[arg(short = '0', long = "null", requires = "stdin")]
    pub null: bool,
}

fn parse_format(s: &str) -> Result<Format, String> {
    s.parse()
}

fn parse_compress(s: &str) -> Result<Compress, String> {
    s.parse()
}

fn parse_encoding(s: &str) -> Result<Encoding, String> {
    s.parse()
}

fn parse_size(s: &str) -> Result<u64, String> {
    crate::gnawconfig::parse_size(s)
        .ok_or_else(|| format!("invalid size {s:?}; use a byte count or e.g. 512KiB, 2MiB"))
}

/// How big each part of `--split-output` may be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SplitSize {
    /// At most this many bytes per part.
    Bytes(u64),
    /// At most this many tokens per part.
    Tokens(usize),
}

fn parse_split_size(s: &str) -> Result<SplitSize, String> {
    let t = s.trim();
    let size = match t.strip_suffix("tokens").or_else(|| t.strip_suffix("token")) {
        Some(n) => n.trim().parse().ok().map(SplitSize::Tokens),
        None => crate::gnawconfig::parse_size(t).map(SplitSize::Bytes),
    };
    match size {
        Some(SplitSize::Bytes(0) | SplitSize::Tokens(0)) => {
            Err("a part must be allowed more than 0; give e.g. 100KB or 20000tokens".into())
        }
        Some(size) => Ok(size),
        None => Err(format!(
            "invalid size {s:?}; use bytes (e.g. 100KB, 2MB, 65536) or tokens (e.g. 20000tokens)"
        )),
    }
}

fn parse_var(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((name, value))
            if !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit()) =>
        {
            Ok((name.to_string(), value.to_string()))
        }
        _ => Err(format!(
            "invalid variable {s:?}; write NAME=VALUE, NAME made of letters, digits and _"
        )),
    }
}

pub(super) fn parse_secrets(s: &str) -> Result<SecretsMode, String> {
    s.parse()
}

/// Pair `--x` / `--no-x` into an override: `None` leaves `.gnawconfig` in charge.
fn tri(yes: bool, no: bool) -> Option<bool> {
    match (yes, no) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

impl Args {
    /// The overrides these flags make on top of `.gnawconfig`.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            include: self
                .include
                .iter()
                .filter(|s| !s.is_empty())
                .cloned()
                .collect(),
            exclude: self
                .exclude
                .iter()
                .filter(|s| !s.is_empty())
                .cloned()
                .collect(),
            format: self.format,
            encoding: self.encoding,
            line_numbers: tri(self.line_numbers, self.no_line_numbers),
            hidden: tri(self.hidden, self.no_hidden),
            no_ignore: tri(self.no_ignore, self.ignore_files),
            follow_links: self.follow.then_some(true),
            max_file_size: self.max_file_size,
            tree: tri(self.tree, self.no_tree),
            secrets: self.secrets,
            budget: self.budget,
            max_chars: self.max_chars,
            max_chars_json: self.max_chars_json,
            query: self.query.clone(),
            compress: self.compress,
            profile: self.profile.clone(),
            // git's list of changed files (--stdin, if also given, is the caller's list).
            paths_from_git: self.changed.is_some() && !self.stdin,
        }
    }
}
