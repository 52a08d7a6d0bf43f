//! `gnaw --template FILE`: the prompt rendered through a Handlebars template, with the variables
//! code2prompt gives its templates, so a code2prompt template renders unchanged, plus gnaw's own.
//! The engine is the one code2prompt uses (the `handlebars` crate), set up as it does: no HTML
//! escaping, not strict (a variable the data lacks renders empty), and the output trimmed.
//!
//! The files are the ones the run keeps: the same filters, secrets handling (a redacted secret is
//! redacted here too) and budget. With a budget (or `--max-chars`), the rendered text is held to
//! it: the template's own text counts, so when the rendered prompt is over, the run is done again
//! with the budget lowered by what was over, until it fits (see [`render()`]).
//!
//! | variable | what |
//! |---|---|
//! | `absolute_code_path` | the repository's absolute path, escaped and redacted as every name is (see below) |
//! | `source_tree` | the tree of the files shown, as gnaw draws it |
//! | `files` | each file shown, in path order: `path`, `extension`, `code` (the text in a fenced block tagged with the extension, numbered with `--line-numbers`), `token_count` (the text's tokens), and gnaw's `text` (the text alone), `tokens` (its piece's tokens in gnaw's own format), `lossy`, `skeleton` |
//! | `no_codeblock` | false (code2prompt's flag; `code` is always fenced, `text` is not) |
//! | `git_diff`, `git_diff_branch`, `git_log_branch` | empty strings (code2prompt fills them only when asked; `gnaw changes` prints a diff) |
//! | `repo_name`, `encoding`, `file_count`, `files_tokens`, `budget`, `omitted` | gnaw's: the repository's name, the encoding, how many files, their `token_count`s summed, the budget (0 without), the files the budget left out (`path`, `tokens`) |
//! | anything given with `--var NAME=VALUE` | its value, as given (the user's own text, not a name) |
//!
//! Every name in the data (the paths, the tree, the repository's name and absolute path, the
//! omitted files) comes through the run's one renderer of names, in its secrets mode. What a
//! template may cost (its nesting, its partials' depth, its output) is bounded in `bounds.rs`.

mod bounds;

use super::split::Collected;
use crate::Extraction;
use crate::driver::assemble::Part;
use crate::spec::ExtractionSpec;
use crate::stages::{count, render};
use bounds::{GUARD, Guard, Hit, MAX_NESTING, MAX_PARTIAL_DEPTH, OUTPUT_FACTOR, OUTPUT_SLACK};
use gnaw_sandbox::user_file::{self, UserDir, UserFileError};
use handlebars::Handlebars;
use serde_json::{Value, json};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The most bytes a template file may have.
const MAX_TEMPLATE_BYTES: u64 = 1 << 20;

/// How many times a run is done again to bring the rendered prompt within its budget.
const MAX_REFITS: usize = 12;

/// A template, parsed and ready.
pub struct Template {
    hb: Handlebars<'static>,
    guard: Guard,
    shown: String,
    vars: Vec<(String, String)>,
}

impl Template {
    /// Read and parse the template at `path` (the file the user named), through the one door to
    /// user files: never through a link (a repository's `prompt.hbs -> ~/.aws/credentials`
    /// would print that file into the prompt), never waiting on a FIFO, at most
    /// `MAX_TEMPLATE_BYTES`. A syntax error names the file, its line and column.
    pub fn load(path: &Path, vars: &[(String, String)]) -> Result<Template, String> {
        let shown = super::output::shown(path);
        let read = user_file::split(path)
            .and_then(|(dir, name)| UserDir::open(&dir)?.read(&name, MAX_TEMPLATE_BYTES));
        let bytes = match read {
            Ok(Some(file)) => file.bytes,
            Ok(None) => {
                return Err(format!(
                    "cannot read the template {shown}: there is no such file; check the path"
                ));
            }
            Err(UserFileError::TooLarge(_)) => {
                return Err(format!(
                    "the template {shown} is over {} MiB; a template is the prompt's frame, not \
                     its content",
                    MAX_TEMPLATE_BYTES >> 20
                ));
            }
            Err(e @ UserFileError::Link(_)) => {
                return Err(format!(
                    "the template {shown} {e}; give the path of the template file itself (gnaw \
                     reads no template through a link, which a repository could point at any \
                     file of yours)"
                ));
            }
            Err(e @ UserFileError::NotRegular(_)) => {
                return Err(format!(
                    "the template {shown} {e}; give the path of the template file itself"
                ));
            }
            Err(e) => return Err(format!("cannot read the template {shown}: it {e}")),
        };
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("the template {shown} is not UTF-8 text; save it as UTF-8"))?;
        Self::parse(&text, &shown, vars)
    }

    /// Parse `text`, named `shown` in messages.
    pub fn parse(text: &str, shown: &str, vars: &[(String, String)]) -> Result<Template, String> {
        // Before Handlebars parses it: its parse and its render recurse once per level.
        let nesting = bounds::nesting(text);
        if nesting > MAX_NESTING {
            return Err(format!(
                "the template {shown} nests blocks and subexpressions {nesting} deep, past the \
                 bound of {MAX_NESTING}; flatten it"
            ));
        }
        let mut hb = Handlebars::new();
        hb.register_escape_fn(handlebars::no_escape);
        hb.set_strict_mode(false);
        let syntax = |e: handlebars::TemplateError| {
            let at = match e.pos() {
                Some((l, c)) => format!(" at line {l}, column {c}"),
                None => String::new(),
            };
            format!(
                "the template {shown} is not valid Handlebars{at}: {}; fix it there (the syntax \
                 is code2prompt's: {{{{var}}}}, {{{{#each files}}}}...{{{{/each}}}}, \
                 {{{{#if x}}}}...{{{{/if}}}})",
                e.reason()
            )
        };
        hb.register_template_string("template", text)
            .map_err(syntax)?;
        // The body of the template, of its inline partials and of its partial blocks, each in
        // the guard that bounds partial depth and output (see `bounds`).
        let guard_block =
            handlebars::template::Template::compile(&format!("{{{{#{GUARD}}}}}{{{{/{GUARD}}}}}"))
                .map_err(syntax)?;
        let parsed = hb
            .get_template("template")
            .cloned()
            .ok_or_else(|| format!("the template {shown} did not register"))?;
        hb.register_template("template", bounds::guarded(parsed, &guard_block));
        let guard = Guard::default();
        hb.register_helper(GUARD, Box::new(guard.clone()));
        Ok(Template {
            hb,
            guard,
            shown: shown.to_string(),
            vars: vars.to_vec(),
        })
    }

    /// The prompt for one run's parts: the template rendered over their data, trimmed (as
    /// code2prompt does), with one newline at the end.
    pub fn render_parts(
        &self,
        c: &Collected,
        files: &[FileData],
        ex: &Extraction,
        absolute: &Path,
    ) -> Result<String, String> {
        let data = self.data(c, files, ex, absolute);
        let limit = given_bytes(&data)
            .saturating_mul(OUTPUT_FACTOR)
            .saturating_add(OUTPUT_SLACK);
        self.guard.start(limit);
        let mut out = Vec::new();
        let rendered = self.hb.render_to_write("template", &data, &mut out);
        let shown = &self.shown;
        match (rendered, self.guard.hit()) {
            (_, Some(Hit::PartialDepth)) => {
                return Err(format!(
                    "the template {shown} nests partials deeper than {MAX_PARTIAL_DEPTH}, the \
                     bound on partial depth (a partial that includes itself never ends); fix it \
                     there"
                ));
            }
            (_, Some(Hit::Output(limit))) => {
                return Err(format!(
                    "the template {shown} renders more than {limit} bytes, the bound on its \
                     output ({OUTPUT_FACTOR} times the text it is given, plus {} MiB); a \
                     template that repeats the files (an {{{{#each files}}}} inside another) \
                     grows with their square: fix it there",
                    OUTPUT_SLACK >> 20
                ));
            }
            (Err(e), None) => {
                let at = match (e.line_no, e.column_no) {
                    (Some(l), Some(c)) => format!(" at line {l}, column {c}"),
                    _ => String::new(),
                };
                return Err(format!(
                    "the template {shown} failed{at}: {}; fix it there",
                    e.reason()
                ));
            }
            (Ok(()), None) => {}
        }
        let text = String::from_utf8(out)
            .map_err(|_| format!("the template {shown} rendered text that is not UTF-8"))?;
        let trimmed = text.trim();
        Ok(if trimmed.is_empty() {
            String::new()
        } else {
            format!("{trimmed}\n")
        })
    }

    /// The data a template sees. Every name in it comes through the run's one renderer of
    /// names, in its secrets mode: the paths, the tree and the repository's name as the run
    /// made them, and the repository's absolute path here.
    fn data(&self, c: &Collected, files: &[FileData], ex: &Extraction, absolute: &Path) -> Value {
        let absolute = ex.namer.path(absolute.as_os_str().as_bytes()).into_string();
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        let tree = render::tree(&c.repo_name, &paths);
        let list: Vec<Value> = files
            .iter()
            .map(|f| {
                json!({
                    "path": f.path,
                    "extension": f.extension(),
                    "code": f.code,
                    "token_count": f.token_count,
                    "text": f.text,
                    "tokens": f.tokens,
                    "lossy": f.lossy,
                    "skeleton": f.skeleton,
                })
            })
            .collect();
        let mut data = json!({
            "absolute_code_path": absolute,
            "source_tree": tree,
            "files": list,
            "no_codeblock": false,
            "git_diff": "",
            "git_diff_branch": "",
            "git_log_branch": "",
            "repo_name": c.repo_name,
            "encoding": ex.encoding.name(),
            "file_count": files.len(),
            "files_tokens": files.iter().map(|f| f.token_count).sum::<usize>(),
            "budget": ex.budget.unwrap_or(0),
            "omitted": ex.omitted.iter().map(|o| json!({"path": o.path, "tokens": o.tokens})).collect::<Vec<_>>(),
        });
        for (name, value) in &self.vars {
            data[name] = Value::String(value.clone());
        }
        data
    }
}

/// The bytes of text in a template's data: its strings summed (the files' text and code, paths,
/// tree, variables).
fn given_bytes(data: &Value) -> u64 {
    let mut total = 0u64;
    let mut stack = vec![data];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => total += s.len() as u64,
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            _ => total += 8,
        }
    }
    total
}

/// One file as the template sees it.
pub struct FileData {
    pub path: String,
    pub text: String,
    pub code: String,
    pub token_count: usize,
    pub tokens: usize,
    pub lossy: bool,
    pub skeleton: bool,
}

impl FileData {
    /// `path`'s extension, as code2prompt gives it (empty without one).
    fn extension(&self) -> &str {
        let name = self.path.rsplit('/').next().unwrap_or(&self.path);
        match name.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() => ext,
            _ => "",
        }
    }

    fn new(path: &str, text: &str, numbered: bool) -> FileData {
        let mut f = FileData {
            path: path.to_string(),
            text: text.to_string(),
            code: String::new(),
            token_count: 0,
            tokens: 0,
            lossy: false,
            skeleton: false,
        };
        let shown = if numbered {
            render::number_lines(text)
        } else {
            text.to_string()
        };
        let fence = render::fence_for(&shown, b'`');
        let shown = shown.strip_suffix('\n').unwrap_or(&shown);
        f.code = format!("{fence}{}\n{shown}\n{fence}", f.extension());
        f
    }
}

/// What [`render()`] hands back: the run (its counts made the rendered text's) and the prompt.
pub struct Rendered {
    pub ex: Extraction,
    pub text: String,
}

/// Run `spec` and render its files through `template`; with a budget or a character ceiling,
/// run again with the budget lowered until the rendered text is within both. `counting` says
/// whether the run counts tokens (`--no-count`: the count reported is 0); `absolute` is the
/// repository's absolute path.
pub fn render(
    spec: &mut ExtractionSpec<'_>,
    template: &Template,
    counting: bool,
    absolute: &Path,
) -> Result<Rendered, (i32, String)> {
    // The limits as asked, for the summary (a refit lowers the ones the run uses).
    let mut asked = None;
    for _ in 0..MAX_REFITS {
        let mut c = Collected::default();
        let mut files = Vec::new();
        let ex = crate::driver::run_extraction_parts(spec, |part| match part {
            Part::Preamble { text, repo_name } => {
                c.preamble = text.to_string();
                c.repo_name = repo_name.to_string();
            }
            Part::File {
                path,
                text,
                lossy,
                skeleton,
                numbered,
                tokens,
                ..
            } => {
                let mut f = FileData::new(path, text, numbered);
                f.tokens = tokens;
                f.lossy = lossy;
                f.skeleton = skeleton;
                files.push(f);
            }
            Part::Epilogue(_) => {}
        })
        .map_err(|e| (e.exit_code(), e.to_string()))?;
        let (budget, max_chars) = *asked.get_or_insert((ex.budget, ex.max_chars));
        // Each file's text counted in the run's encoding, known once the run is done.
        if counting {
            for f in &mut files {
                f.token_count = count::count(ex.encoding, &f.text);
            }
        }
        let text = template
            .render_parts(&c, &files, &ex, absolute)
            .map_err(|m| (2, m))?;
        let tokens = if counting {
            count::count(ex.encoding, &text)
        } else {
            0
        };
        let chars = text.chars().count();
        let over_budget = ex
            .budget
            .filter(|&b| b > 0 && tokens > b)
            .map(|b| tokens - b);
        let over_chars = ex.max_chars.filter(|&m| chars > m).map(|m| chars - m);
        if over_budget.is_none() && over_chars.is_none() {
            let mut ex = ex;
            ex.budget = budget;
            ex.max_chars = max_chars;
            ex.tokens = tokens;
            ex.output_bytes = text.len();
            return Ok(Rendered { ex, text });
        }
        // Lower what was over by as much as it was over, and run again.
        let files_tokens: usize = ex.files.iter().map(|f| f.tokens).sum();
        if files_tokens == 0 {
            let (what, limit) = match (over_budget, ex.budget, ex.max_chars) {
                (Some(_), Some(b), _) => ("tokens", b),
                (_, _, Some(m)) => ("characters", m),
                _ => ("tokens", 0),
            };
            return Err((
                1,
                format!(
                    "the template {} alone renders to more than {limit} {what}, with no file in \
                     it; raise the budget (--budget, --max-chars) or shorten the template",
                    template.shown
                ),
            ));
        }
        if let (Some(over), Some(b)) = (over_budget, ex.budget) {
            spec.overrides.budget = Some(b.saturating_sub(over).max(1));
        }
        if let (Some(over), Some(m)) = (over_chars, ex.max_chars) {
            spec.overrides.max_chars = Some(m.saturating_sub(over).max(1));
        }
    }
    Err((
        1,
        format!(
            "the template {} could not be fitted to the budget in {MAX_REFITS} runs; raise the \
             budget or shorten the template",
            template.shown
        ),
    ))
}
