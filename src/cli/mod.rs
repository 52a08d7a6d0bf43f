//! The `gnaw` command line: flags ([`args`]) into an [`ExtractionSpec`], the prompt onto stdout
//! or the `-o` file ([`output`]), and the summary onto stderr (`report`). Token counts and
//! skeletons are kept between runs in the user's cache directory ([`disk_cache`]).
//! `gnaw read|grep|tree` are the navigation subcommands ([`nav`]), `gnaw completions|man` print
//! the shell completions and man pages ([`meta`]); any other first argument is a repository.
//!
//! Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error.

pub mod args;
pub mod clipboard;
pub mod disk_cache;
pub mod meta;
pub mod nav;
pub mod output;
pub(crate) mod report;
pub(crate) mod split;
pub(crate) mod template;

pub use args::Args;
pub use report::{explain, summary};

use crate::cache::Cache;
use crate::driver::assemble::Part;
use crate::driver::summary::{Detail, Summary};
use crate::driver::{run_extraction, run_extraction_to};
use crate::spec::{ExtractionSpec, Mode, Policy};
use crate::stages::source;
use clipboard::Clipboard;
use gnaw_sandbox::{Root, RootError};
use report::Progress;
use std::io::{IsTerminal, Read, Write};
use template::Template;

/// What the run's in-memory cache of counts and skeletons may hold (the disk file's bound is
/// its own; an entry takes more in memory than on disk).
const MEMORY_CACHE_BYTES: usize = 1 << 30;

/// Keep this run's counts and skeletons in the disk cache, when there is one; a cache that
/// cannot be written is a warning (the run itself succeeded).
fn save_cache(args: &Args, disk: Option<&disk_cache::DiskCache>, cache: &Cache, mark: u64) {
    if let Some(disk) = disk
        && let Err(m) = disk.save(cache, mark)
        && !args.quiet
    {
        eprintln!(
            "gnaw: warning: {m}; this run's counts are not kept: make that directory writable \
             and remove what is in the way there (XDG_CACHE_HOME, else HOME, names it), or \
             pass --no-cache (or set GNAW_NO_CACHE=1) to run without the cache"
        );
    }
}

/// Parse the process's arguments (program name first) and run: a navigation subcommand when
/// the first argument names one, else an extraction. Returns the process exit code.
pub fn main_from(args: Vec<std::ffi::OsString>) -> i32 {
    use clap::{FromArgMatches, Parser};
    if nav::is_nav(&args) {
        nav::main_with(nav::NavArgs::parse_from(args))
    } else if meta::is_meta(&args) {
        meta::main_with(meta::MetaArgs::parse_from(args))
    } else {
        // Through the whole command, so that `--help` lists every subcommand.
        let matches = meta::command().get_matches_from(args);
        main_with(Args::from_arg_matches(&matches).unwrap_or_else(|e| e.exit()))
    }
}

/// Run the CLI; returns the process exit code.
pub fn main_with(args: Args) -> i32 {
    exit_code(run(&args))
}

/// The process exit code of a run: 0, or the error's code once its message is on stderr.
fn exit_code(result: Result<(), (i32, String)>) -> i32 {
    match result {
        Ok(()) => 0,
        Err((code, msg)) => {
            eprintln!("gnaw: error: {msg}");
            code
        }
    }
}

fn run(args: &Args) -> Result<(), (i32, String)> {
    // What can be refused before anything is read: a split without a file to name its parts
    // after, a host without a clipboard, a template that does not parse.
    if args.split_output.is_some() && args.output.is_none() {
        return Err((
            2,
            "--split-output writes numbered files named after -o's: add e.g. -o prompt.md (the \
             parts are then prompt.1.md, prompt.2.md, ...)"
                .into(),
        ));
    }
    let clipboard = if args.clipboard {
        Some(Clipboard::find().map_err(|m| (1, m))?)
    } else {
        None
    };
    let template = args
        .template
        .as_deref()
        .map(|p| Template::load(p, &args.vars))
        .transpose()
        .map_err(|m| (2, m))?;
    let root = Root::new(&args.repo, true).map_err(|e| (2, repo_error(&e)))?;
    let paths = if args.stdin {
        let mut buf = Vec::new();
        std::io::stdin()
            .lock()
            .read_to_end(&mut buf)
            .map_err(|e| (1, format!("cannot read paths from stdin: {e}")))?;
        Some(source::split_list(&buf, args.null))
    } else if let Some(base) = &args.changed {
        Some(changed(&root, args, base)?)
    } else {
        None
    };
    // The progress line is for a person watching a terminal: never with --json, whose reader
    // is a program.
    let progress = Progress::new(!args.quiet && !args.json && std::io::stderr().is_terminal());
    // The disk cache only serves counts and skeletons: nothing to load for a run that makes
    // neither.
    let disk = disk_cache::DiskCache::from_env(args.no_cache)
        .map_err(|m| (2, m))?
        .filter(|_| !args.no_count || args.compress.is_some());
    let cache = Cache::counts_only(MEMORY_CACHE_BYTES);
    let mark = disk.as_ref().map_or(0, |d| d.load(&cache));
    // The prompt laid out here rather than streamed: through a template, in parts, or to the
    // clipboard.
    let laid_out = template.is_some() || args.split_output.is_some() || clipboard.is_some();
    let mut spec = ExtractionSpec {
        repo: root.as_dir(),
        overrides: args.overrides(),
        paths,
        mode: if args.no_count {
            Mode::RenderUncounted
        } else if !laid_out && (args.estimate || (args.json && args.output.is_none())) {
            Mode::Estimate
        } else {
            Mode::Render
        },
        observer: Some(&progress),
        policy: Policy {
            max_depth: args
                .max_depth
                .map_or(crate::limits::DEFAULT_MAX_DEPTH, |d| d as usize),
            ..Policy::cli()
        },
        cache: disk.as_ref().map(|_| &cache),
    };
    // -o's directory is opened, and a link or a FIFO at its name refused, before the run; the
    // open itself (after the run, so a failed run creates nothing) refuses them again, whatever
    // changed meanwhile.
    let output = match &args.output {
        Some(path) => Some(output::OutputFile::new(path).map_err(|m| (2, m))?),
        None => None,
    };
    if laid_out {
        let result = lay_out(args, &mut spec, template.as_ref(), root.path());
        progress.clear();
        let (ex, prompt) = result?;
        save_cache(args, disk.as_ref(), &cache, mark);
        eprint!("{}", widening_warning(&ex));
        let mut notes = String::new();
        match prompt {
            Prompt::Parts(parts) => notes = write_parts(args, output.as_ref(), &parts)?,
            Prompt::Whole(text) => {
                if let Some(file) = &output {
                    write_file(file, &text)?;
                }
                if let Some(c) = &clipboard {
                    c.copy(&text).map_err(|m| (1, m))?;
                    notes = format!("gnaw: copied to the clipboard ({})\n", c.name());
                }
                if args.output.is_none() && clipboard.is_none() && !args.json && !args.estimate {
                    let mut out = std::io::stdout().lock();
                    let written = if out.is_terminal() {
                        output::TerminalSafe(&mut out).write_all(text.as_bytes())
                    } else {
                        out.write_all(text.as_bytes())
                    };
                    stdout_written(written.and_then(|()| out.flush()))?;
                }
            }
        }
        return report(args, &ex, &notes);
    }
    // The prompt is streamed to its destination, never held whole in memory.
    let result = match &output {
        Some(file) => {
            let refused = std::cell::RefCell::new(None);
            let run = run_extraction_to(&spec, || {
                file.open().map_err(|m| {
                    *refused.borrow_mut() = Some(m);
                    std::io::Error::other("refused")
                })
            });
            if let Some(m) = refused.take() {
                return Err((2, m));
            }
            run.map(|(ex, w)| {
                let w = w.map_err(|e| (1, format!("cannot write {}: {e}", file.shown())));
                (ex, w)
            })
        }
        None if !args.json && !args.estimate => run_extraction_to(&spec, || {
            progress.clear();
            let stdout = std::io::stdout().lock();
            // A terminal gets no raw control characters from the files (ESC, OSC, ...).
            Ok(if stdout.is_terminal() {
                Box::new(output::TerminalSafe(stdout)) as Box<dyn Write>
            } else {
                Box::new(stdout)
            })
        })
        .map(|(ex, w)| (ex, stdout_written(w))),
        None => run_extraction(&spec).map(|ex| (ex, Ok(()))),
    };
    progress.clear();
    let (ex, written) = result.map_err(|e| (e.exit_code(), e.to_string()))?;
    save_cache(args, disk.as_ref(), &cache, mark);
    // Even with -q: a cloned repository's config can make gnaw read more than its user expects.
    eprint!("{}", widening_warning(&ex));
    written?;
    report(args, &ex, "")
}

/// What the run's output, laid out here, is.
enum Prompt {
    /// One text (a template's, or the prompt for the clipboard).
    Whole(String),
    /// `--split-output`'s parts.
    Parts(Vec<split::Laid>),
}

/// Run `spec` and lay its prompt out: through the template, in parts, or whole.
fn lay_out(
    args: &Args,
    spec: &mut ExtractionSpec<'_>,
    template: Option<&Template>,
    absolute: &std::path::Path,
) -> Result<(crate::Extraction, Prompt), (i32, String)> {
    if let Some(t) = template {
        let counting = spec.mode != Mode::RenderUncounted;
        let r = template::render(spec, t, counting, absolute)?;
        return Ok((r.ex, Prompt::Whole(r.text)));
    }
    let mut c = split::Collected::default();
    let ex = crate::driver::run_extraction_parts(spec, |part| match part {
        Part::Preamble { text, repo_name } => {
            c.preamble = text.to_string();
            c.repo_name = repo_name.to_string();
        }
        Part::File { path, piece, .. } => c.pieces.push((path.to_string(), piece.to_string())),
        Part::Epilogue(text) => c.epilogue = text.to_string(),
    })
    .map_err(|e| (e.exit_code(), e.to_string()))?;
    match args.split_output {
        Some(size) => {
            if matches!(size, args::SplitSize::Tokens(_)) && args.no_count {
                return Err((
                    2,
                    "--split-output in tokens needs token counts; drop --no-count, or give the \
                     size in bytes (e.g. 100KB)"
                        .into(),
                ));
            }
            let parts = split::lay_out(&c, ex.format, size, ex.encoding).map_err(|m| (1, m))?;
            Ok((ex, Prompt::Parts(parts)))
        }
        None => Ok((ex, Prompt::Whole(c.joined()))),
    }
}

/// Write `text` to the `-o` file (or one of its parts).
fn write_file(file: &output::OutputFile, text: &str) -> Result<(), (i32, String)> {
    let mut opened = file.open().map_err(|m| (2, m))?;
    opened
        .write_all(text.as_bytes())
        .and_then(|()| opened.flush())
        .map_err(|e| (1, format!("cannot write {}: {e}", file.shown())))
}

/// Write `--split-output`'s parts beside `-o`'s name; the summary's lines about them.
fn write_parts(
    args: &Args,
    output: Option<&output::OutputFile>,
    parts: &[split::Laid],
) -> Result<String, (i32, String)> {
    let Some(output) = output else {
        return Ok(String::new());
    };
    let unit = match args.split_output {
        Some(args::SplitSize::Tokens(_)) => "tokens",
        _ => "bytes",
    };
    // Every part's name is checked before the first is written: a link or a FIFO among them
    // stops the run with nothing written.
    let files: Vec<output::OutputFile> = (1..=parts.len()).map(|k| output.part(k)).collect();
    for file in &files {
        file.check().map_err(|m| (2, m))?;
    }
    let mut notes = format!("gnaw: wrote {} part(s):\n", parts.len());
    for (file, part) in files.iter().zip(parts) {
        write_file(file, &part.text)?;
        notes.push_str(&format!("  {} ({} {unit})\n", file.shown(), part.size));
        if let Some(what) = &part.oversized {
            notes.push_str(&format!(
                "  warning: {} is over the part size: {what} alone is larger, and a file is \
                 never split\n",
                file.shown()
            ));
        }
    }
    // A part left from an earlier, longer run would read as part of this one.
    let stale = output.part(parts.len() + 1);
    if stale.exists() {
        notes.push_str(&format!(
            "  warning: {} and any later parts are from an earlier run, not this one; delete \
             them\n",
            stale.shown()
        ));
    }
    Ok(notes)
}

/// What the CLI says after a run: the JSON summary or the estimate on stdout, the ranking, the
/// summary and `notes` (what was written where) on stderr.
fn report(args: &Args, ex: &crate::Extraction, notes: &str) -> Result<(), (i32, String)> {
    if args.json {
        let mut summary = Summary::new(ex, Detail::Full).to_json();
        // Only when there is something to say, so a config that only narrows changes nothing.
        if !ex.widenings.is_empty() {
            summary["repo_config_widens"] = ex
                .widenings
                .iter()
                .map(|w| serde_json::json!({"key": w.key, "what": w.what, "refused": w.refused}))
                .collect();
        }
        if args.explain {
            summary["ranking"] = ex.ranking_json();
        }
        let text = serde_json::to_string_pretty(&summary).unwrap_or_default();
        write_stdout(format!("{text}\n").as_bytes())?;
    } else if args.estimate {
        write_stdout(format!("{} {}\n", ex.tokens, ex.encoding.name()).as_bytes())?;
    }
    if args.explain && !args.json {
        eprint!("{}", explain(ex));
    }
    if !args.quiet {
        eprint!("{}", summary(ex));
        if let Some(note) = &ex.not_parsed {
            eprintln!("gnaw: --compress: {note}; those files are shown whole");
        }
        eprint!("{notes}");
    }
    Ok(())
}

/// The warning for the settings of the repo's `.gnawconfig` that read more than the defaults
/// (empty when there are none). The CLI honours them: the user runs gnaw on their own repos.
fn widening_warning(ex: &crate::Extraction) -> String {
    let honoured: Vec<_> = ex.widenings.iter().filter(|w| !w.refused).collect();
    if honoured.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "gnaw: warning: this repository's .gnawconfig makes gnaw read more than it would by \
         default:\n",
    );
    for w in honoured {
        s.push_str(&format!("  `{}`: {}\n", w.key, w.what));
    }
    s.push_str(
        "  These are honoured here (gnaw-mcp refuses them unless its operator allows them). If \
         you did not write them, e.g. in a cloned repository, remove them from .gnawconfig \
         before sending the output anywhere; flags such as --no-hidden and --ignore-files \
         override them for one run, and a setting you want can be passed as a flag instead \
         (--hidden, --no-ignore, -L), which does not warn.\n",
    );
    s
}

/// The files changed against `base` (`--changed`), read from `.git` in-process.
fn changed(root: &Root, args: &Args, base: &str) -> Result<Vec<Vec<u8>>, (i32, String)> {
    let req = crate::driver::call::Request {
        repo: root.as_dir(),
        overrides: args.overrides(),
        policy: Policy::cli(),
        cache: None,
        observer: None,
        max_text_bytes: usize::MAX,
        count_answer: false,
    };
    crate::driver::git::changes::changed_paths(&req, Some(base)).map_err(|e| match e {
        crate::driver::call::NavError::Argument { message, .. } => {
            (2, format!("--changed: {message}"))
        }
        crate::driver::call::NavError::Run(e) => (e.exit_code(), format!("--changed: {e}")),
    })
}

/// The repository argument's problem, in the CLI's words (the server speaks of its root).
fn repo_error(e: &RootError) -> String {
    match e {
        RootError::NotFound(p) => format!(
            "repository {} does not exist; pass the path of an existing directory",
            p.display()
        ),
        RootError::NotADirectory(p) => format!(
            "repository {} is not a directory; pass the repository's directory, or list files \
             with --stdin",
            p.display()
        ),
        RootError::FilesystemRoot(p) => format!(
            "repository {} is the filesystem root; pass a project directory",
            p.display()
        ),
        RootError::Io(p, e) => format!(
            "cannot use {} as the repository: {e}; check that it exists and is readable",
            p.display()
        ),
        RootError::Changed(p, why) => format!(
            "repository {} changed while it was being opened ({why}); try again",
            p.display()
        ),
    }
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
