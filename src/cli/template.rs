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
//! | `absolute_code_path` | the repository's absolute path |
//! | `source_tree` | the tree of the files shown, as gnaw draws it |
//! | `files` | each file shown, in path order: `path`, `extension`, `code` (the text in a fenced block tagged with the extension, numbered with `--line-numbers`), `token_count` (the text's tokens), and gnaw's `text` (the text alone), `tokens` (its piece's tokens in gnaw's own format), `lossy`, `skeleton` |
//! | `no_codeblock` | false (code2prompt's flag; `code` is always fenced, `text` is not) |
//! | `git_diff`, `git_diff_branch`, `git_log_branch` | empty strings (code2prompt fills them only when asked; `gnaw changes` prints a diff) |
//! | `repo_name`, `encoding`, `file_count`, `files_tokens`, `budget`, `omitted` | gnaw's: the repository's name, the encoding, how many files, their `token_count`s summed, the budget (0 without), the files the budget left out (`path`, `tokens`) |
//! | anything given with `--var NAME=VALUE` | its value |

use super::split::Collected;
use crate::Extraction;
use crate::driver::assemble::Part;
use crate::spec::ExtractionSpec;
use crate::stages::{count, render};
use handlebars::Handlebars;
use serde_json::{Value, json};
use std::io::Read;
use std::path::Path;

/// The most bytes a template file may have.
const MAX_TEMPLATE_BYTES: u64 = 1 << 20;

/// How many times a run is done again to bring the rendered prompt within its budget.
const MAX_REFITS: usize = 12;

/// A template, parsed and ready.
pub struct Template {
    hb: Handlebars<'static>,
    shown: String,
    vars: Vec<(String, String)>,
}

impl Template {
    /// Read and parse the template at `path` (the file the user named). A syntax error names the
    /// file, its line and column.
    pub fn load(path: &Path, vars: &[(String, String)]) -> Result<Template, String> {
        let shown = path.display().to_string();
        // The file the user named with --template: never a path from the repository.
        #[allow(clippy::disallowed_methods)]
        let file = std::fs::File::open(path)
            .map_err(|e| format!("cannot read the template {shown}: {e}; check the path"))?;
        let mut bytes = Vec::new();
        file.take(MAX_TEMPLATE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read the template {shown}: {e}"))?;
        if bytes.len() as u64 > MAX_TEMPLATE_BYTES {
            return Err(format!(
                "the template {shown} is over {} MiB; a template is the prompt's frame, not its \
                 content",
                MAX_TEMPLATE_BYTES >> 20
            ));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| format!("the template {shown} is not UTF-8 text; save it as UTF-8"))?;
        Self::parse(&text, &shown, vars)
    }

    /// Parse `text`, named `shown` in messages.
    pub fn parse(text: &str, shown: &str, vars: &[(String, String)]) -> Result<Template, String> {
        let mut hb = Handlebars::new();
        hb.register_escape_fn(handlebars::no_escape);
        hb.set_strict_mode(false);
        hb.register_template_string("template", text).map_err(|e| {
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
        })?;
        Ok(Template {
            hb,
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
        absolute: &str,
    ) -> Result<String, String> {
        let data = self.data(c, files, ex, absolute);
        let text = self.hb.render("template", &data).map_err(|e| {
            let at = match (e.line_no, e.column_no) {
                (Some(l), Some(c)) => format!(" at line {l}, column {c}"),
                _ => String::new(),
            };
            format!(
                "the template {} failed{at}: {}; fix it there",
                self.shown,
                e.reason()
            )
        })?;
        let trimmed = text.trim();
        Ok(if trimmed.is_empty() {
            String::new()
        } else {
            format!("{trimmed}\n")
        })
    }

    fn data(&self, c: &Collected, files: &[FileData], ex: &Extraction, absolute: &str) -> Value {
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
    absolute: &str,
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
