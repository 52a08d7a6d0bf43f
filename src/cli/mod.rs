//! The `gnaw` command line: flags into an [`ExtractionSpec`], the result onto stdout or a file,
//! and a summary (files, tokens, every skipped file and why) onto stderr.
//!
//! Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error.

use crate::config::{Format, SecretsMode};
use crate::count::Encoding;
use crate::{
    Extraction, ExtractionSpec, Mode, Observer, Overrides, Policy, run_extraction,
    run_extraction_to,
};
use clap::{ArgAction, Parser};
use gnaw_sandbox::Root;
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Turn a repository into one LLM-ready prompt: a directory tree and every file's contents,
/// with an exact token count.
///
/// gnaw walks REPO honouring the .gitignore and .ignore files inside it (never any outside it),
/// leaves out hidden, binary, oversized and non-regular files, and renders the rest as markdown,
/// xml or json. A .gnawconfig TOML file at the repo root sets defaults; flags override it.
#[derive(Parser, Debug)]
#[command(name = "gnaw", version, max_term_width = 100)]
pub struct Args {
    /// The repository to extract
    #[arg(default_value = ".")]
    pub repo: PathBuf,

    /// Write the prompt to FILE instead of stdout
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Output format
    #[arg(long, value_name = "FORMAT", value_parser = parse_format)]
    pub format: Option<Format>,

    /// Tokenizer encoding: o200k_base (GPT-4o and later), cl100k_base, p50k_base, r50k_base
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

    /// Secrets handling: off, warn (default in the CLI), redact, block
    #[arg(long, value_name = "MODE", value_parser = parse_secrets)]
    pub secrets: Option<SecretsMode>,

    /// Fit the prompt into N tokens: whole files, best-ranked first; the rest are listed as
    /// omitted (0 means unlimited)
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,

    /// Rank files by relevance to this text (decides what a --budget keeps)
    #[arg(long, value_name = "TEXT")]
    pub query: Option<String>,

    /// Apply [profiles.NAME] from .gnawconfig
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,

    /// Explain the ranking: each file's score and its parts (on stderr, or in --json)
    #[arg(long)]
    pub explain: bool,

    /// Read the paths to extract from stdin, one per line (e.g. from git diff --name-only)
    #[arg(long)]
    pub stdin: bool,

    /// With --stdin: paths are separated by NUL bytes (e.g. from git ls-files -z)
    #[arg(short = '0', long = "null", requires = "stdin")]
    pub null: bool,
}

fn parse_format(s: &str) -> Result<Format, String> {
    Format::from_name(s).ok_or_else(|| format!("unknown format {s:?}; use markdown, xml or json"))
}

fn parse_encoding(s: &str) -> Result<Encoding, String> {
    Encoding::from_name(s).ok_or_else(|| {
        format!("unknown encoding {s:?}; use o200k_base, cl100k_base, p50k_base or r50k_base")
    })
}

fn parse_size(s: &str) -> Result<u64, String> {
    crate::config::parse_size(s)
        .ok_or_else(|| format!("invalid size {s:?}; use a byte count or e.g. 512KiB, 2MiB"))
}

fn parse_secrets(s: &str) -> Result<SecretsMode, String> {
    s.parse()
        .map_err(|_| format!("unknown secrets mode {s:?}; use off, warn, redact or block"))
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
            query: self.query.clone(),
            profile: self.profile.clone(),
        }
    }
}

/// Run the CLI; returns the process exit code.
pub fn main_with(args: Args) -> i32 {
    match run(&args) {
        Ok(()) => 0,
        Err((code, msg)) => {
            eprintln!("gnaw: error: {msg}");
            code
        }
    }
}

fn run(args: &Args) -> Result<(), (i32, String)> {
    let root = Root::new(&args.repo, true).map_err(|e| (2, e.to_string()))?;
    let paths = if args.stdin {
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut buf)
            .map_err(|e| (1, format!("cannot read paths from stdin: {e}")))?;
        Some(crate::source::split_list(&buf, args.null))
    } else {
        None
    };
    let progress = Progress::new(!args.quiet && std::io::stderr().is_terminal());
    let spec = ExtractionSpec {
        repo: root.as_dir(),
        overrides: args.overrides(),
        paths,
        mode: if args.no_count {
            Mode::RenderUncounted
        } else if args.estimate || (args.json && args.output.is_none()) {
            Mode::Estimate
        } else {
            Mode::Render
        },
        observer: Some(&progress),
        policy: Policy::cli(),
        cache: None,
    };
    // The prompt is streamed to its destination, never held whole in memory.
    let result = match &args.output {
        Some(path) => run_extraction_to(&spec, || std::fs::File::create(path)).map(|(ex, w)| {
            let w = w.map_err(|e| (1, format!("cannot write {}: {e}", path.display())));
            (ex, w)
        }),
        None if !args.json && !args.estimate => run_extraction_to(&spec, || {
            progress.clear();
            Ok(std::io::stdout().lock())
        })
        .map(|(ex, w)| (ex, stdout_written(w))),
        None => run_extraction(&spec).map(|ex| (ex, Ok(()))),
    };
    progress.clear();
    let (ex, written) = result.map_err(|e| (e.exit_code(), e.to_string()))?;
    written?;
    if args.json {
        let mut summary = ex.summary_json();
        if args.explain {
            summary["ranking"] = ex.ranking_json();
        }
        let text = serde_json::to_string_pretty(&summary).unwrap_or_default();
        write_stdout(format!("{text}\n").as_bytes())?;
    } else if args.estimate {
        write_stdout(format!("{} {}\n", ex.tokens, ex.encoding.name()).as_bytes())?;
    }
    if args.explain && !args.json {
        eprint!("{}", explain(&ex));
    }
    if !args.quiet {
        eprint!("{}", summary(&ex));
    }
    Ok(())
}

fn write_stdout(bytes: &[u8]) -> Result<(), (i32, String)> {
    let mut out = std::io::stdout().lock();
    stdout_written(out.write_all(bytes).and_then(|()| out.flush()))
}

fn stdout_written(written: std::io::Result<()>) -> Result<(), (i32, String)> {
    match written {
        Ok(()) => Ok(()),
        // A closed pipe (`gnaw | head`) is the reader's choice, not a failure.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err((1, format!("cannot write to stdout: {e}"))),
    }
}

/// The human summary for stderr: totals, then every skipped file with its reason, then every
/// secret finding (rule, path, line; never the secret).
pub fn summary(ex: &Extraction) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = write!(
        s,
        "gnaw: {} files, {} tokens ({}), {} bytes",
        ex.files.len(),
        ex.tokens,
        ex.encoding.name(),
        ex.output_bytes
    );
    if let Some(b) = ex.budget {
        let _ = write!(s, ", budget {b}");
        if !ex.omitted.is_empty() {
            let t: usize = ex.omitted.iter().map(|o| o.tokens).sum();
            let _ = write!(
                s,
                " ({} files, {t} tokens omitted; ask for them with -i)",
                ex.omitted.len()
            );
        }
    }
    if ex.skipped.is_empty() {
        s.push('\n');
    } else {
        let mut kinds: Vec<(&str, usize)> = Vec::new();
        for k in ex.skipped.iter().map(|k| k.reason.kind()) {
            match kinds.iter_mut().find(|(n, _)| *n == k) {
                Some((_, c)) => *c += 1,
                None => kinds.push((k, 1)),
            }
        }
        let parts: Vec<String> = kinds.iter().map(|(k, c)| format!("{c} {k}")).collect();
        let _ = writeln!(s, "; {} skipped ({})", ex.skipped.len(), parts.join(", "));
        for sk in &ex.skipped {
            let _ = writeln!(s, "  skipped {}: {}", sk.path, sk.reason.describe());
        }
    }
    for f in &ex.findings {
        let _ = writeln!(s, "  secret {} at {}:{}", f.rule, f.path, f.line);
    }
    s
}

/// The ranking as a table: rank, score, path, and the score's parts.
pub fn explain(ex: &Extraction) -> String {
    use std::fmt::Write as _;
    let mut s = String::from("gnaw: ranking (best first)\n");
    for (n, r) in ex.ranking.iter().enumerate() {
        let parts: Vec<String> = r
            .score
            .parts
            .iter()
            .map(|(k, v)| format!("{k}={v:.3}"))
            .collect();
        let _ = writeln!(
            s,
            "{:>5} {:>10.3}  {}  [{}]",
            n + 1,
            r.score.total,
            r.path,
            parts.join(" ")
        );
    }
    s
}

/// A one-line progress indicator on stderr, shown only on a terminal and only once a run has
/// taken more than half a second.
struct Progress {
    enabled: bool,
    start: Instant,
    last: Mutex<Option<Instant>>,
}

impl Progress {
    fn new(enabled: bool) -> Progress {
        Progress {
            enabled,
            start: Instant::now(),
            last: Mutex::new(None),
        }
    }

    fn clear(&self) {
        if self.enabled && self.last.lock().is_ok_and(|l| l.is_some()) {
            eprint!("\r\x1b[2K");
        }
    }
}

impl Observer for Progress {
    fn progress(&self, done: usize, total: usize) {
        if !self.enabled || self.start.elapsed() < Duration::from_millis(500) {
            return;
        }
        let Ok(mut last) = self.last.lock() else {
            return;
        };
        if last.is_some_and(|t| t.elapsed() < Duration::from_millis(100)) && done < total {
            return;
        }
        *last = Some(Instant::now());
        eprint!("\rgnaw: reading {done}/{total} files");
    }
}
