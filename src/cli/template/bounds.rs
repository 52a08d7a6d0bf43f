//! The bounds of a `--template`: how deeply its text nests, how deeply its partials include
//! one another while it renders, and how many bytes it may render. Each is reported by name
//! when hit, as an error that says what to change; none can abort gnaw (a partial that
//! includes itself overflowed the stack before these bounds).
//!
//! - **Nesting** ([`MAX_NESTING`]): blocks (`{{#if}}`, `{{#each}}`, partial blocks, inline
//!   partials) and subexpressions, counted in the text before Handlebars parses it, since both
//!   its parse and its render recurse once per level.
//! - **Partial depth** ([`MAX_PARTIAL_DEPTH`]) and **output** ([`OUTPUT_FACTOR`] times the
//!   text the template is given, plus [`OUTPUT_SLACK`]): once parsed, the body of the template,
//!   of every inline partial and of every partial block is wrapped in the guard helper
//!   ([`GUARD`]). Entering it is one level of partial depth; every byte rendered inside it,
//!   including a partial block's text that Handlebars renders aside before placing it, is
//!   counted against the output bound as it is written.

use std::io;
use std::sync::Arc;
use std::sync::Mutex;

use handlebars::template::{Template, TemplateElement};
use handlebars::{
    Context, Handlebars, Helper, HelperDef, HelperResult, Output, RenderContext, RenderErrorReason,
    Renderable,
};

/// How deeply blocks and subexpressions may nest in a template's text.
pub const MAX_NESTING: usize = 64;

/// How deeply partials (and partial blocks) may include one another while a template renders.
pub const MAX_PARTIAL_DEPTH: usize = 16;

/// A template may render this many times the bytes of the text it is given (the files' text
/// and code, paths, tree, variables) ...
pub const OUTPUT_FACTOR: u64 = 4;

/// ... plus this much.
pub const OUTPUT_SLACK: u64 = 16 << 20;

/// The guard helper's name (a name no code2prompt template uses).
pub const GUARD: &str = "gnaw_guard";

/// Which bound a render hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hit {
    PartialDepth,
    Output(u64),
}

/// What one render has used, shared by the guard's levels.
#[derive(Debug, Default)]
struct Used {
    /// Guard levels entered and not left (1 is the template's own body).
    depth: usize,
    written: u64,
    limit: u64,
    hit: Option<Hit>,
}

/// The guard helper: one level of partial depth, and the count of bytes written inside it.
#[derive(Clone, Default)]
pub struct Guard {
    used: Arc<Mutex<Used>>,
}

impl Guard {
    /// Start a render that may write `limit` bytes.
    pub fn start(&self, limit: u64) {
        *self.lock() = Used {
            limit,
            ..Used::default()
        };
    }

    /// The bound the last render hit, if any.
    pub fn hit(&self) -> Option<Hit> {
        self.lock().hit
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Used> {
        self.used.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl HelperDef for Guard {
    fn call<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        r: &'reg Handlebars<'reg>,
        ctx: &'rc Context,
        rc: &mut RenderContext<'reg, 'rc>,
        out: &mut dyn Output,
    ) -> HelperResult {
        let level = {
            let mut used = self.lock();
            // The template's own body is level 1: each level past it is a partial.
            if used.depth > MAX_PARTIAL_DEPTH {
                used.hit = Some(Hit::PartialDepth);
                return Err(RenderErrorReason::Other(format!(
                    "partials nest deeper than {MAX_PARTIAL_DEPTH}"
                ))
                .into());
            }
            used.depth += 1;
            used.depth
        };
        let mut counted = Counted {
            out,
            guard: self,
            level,
        };
        let result = match h.template() {
            Some(t) => t.render(r, ctx, rc, &mut counted),
            None => Ok(()),
        };
        self.lock().depth -= 1;
        result
    }
}

/// The output inside one guard level: counts what is written at this level (a deeper level
/// counts its own), and refuses past the render's limit.
struct Counted<'a> {
    out: &'a mut dyn Output,
    guard: &'a Guard,
    level: usize,
}

impl Output for Counted<'_> {
    fn write(&mut self, seg: &str) -> Result<(), io::Error> {
        {
            let mut used = self.guard.lock();
            if used.depth == self.level {
                used.written += seg.len() as u64;
                if used.written > used.limit {
                    used.hit = Some(Hit::Output(used.limit));
                    return Err(io::Error::other("the template's output bound"));
                }
            }
        }
        self.out.write(seg)
    }
}

/// How deeply blocks and subexpressions nest in `text`, as Handlebars will parse it: `{{#`,
/// `{{^name` and `{{#>` open a level and `{{/` closes one; `(` inside a mustache opens one and
/// `)` closes it. Comments, raw blocks and escaped mustaches hold no levels.
pub fn nesting(text: &str) -> usize {
    let b = text.as_bytes();
    let (mut depth, mut deepest, mut i) = (0usize, 0usize, 0usize);
    let find = |from: usize, what: &[u8]| -> usize {
        memchr::memmem::find(&b[from.min(b.len())..], what).map_or(b.len(), |at| from + at)
    };
    while i < b.len() {
        let Some(at) = memchr::memmem::find(&b[i..], b"{{") else {
            break;
        };
        let start = i + at;
        if start > 0 && b[start - 1] == b'\\' {
            i = start + 2;
            continue;
        }
        let rest = &b[start..];
        if rest.starts_with(b"{{{{") {
            // A raw block: its text is not parsed.
            let close = find(start + 4, b"{{{{/");
            i = find(close, b"}}}}") + 4;
            continue;
        }
        if rest.starts_with(b"{{!--") || rest.starts_with(b"{{~!--") {
            i = find(start + 5, b"--") + 2;
            i = find(i, b"}}") + 2;
            continue;
        }
        let mut j = start + 2;
        if b.get(j) == Some(&b'~') {
            j += 1;
        }
        match b.get(j) {
            Some(b'!') => {
                i = find(j, b"}}") + 2;
                continue;
            }
            Some(b'#') => depth += 1,
            Some(b'/') => depth = depth.saturating_sub(1),
            // `{{^}}` is an else; `{{^name}}` opens an inverse block.
            Some(b'^') if !matches!(next_non_space(b, j + 1), Some(b'}' | b'~') | None) => {
                depth += 1
            }
            _ => {}
        }
        deepest = deepest.max(depth);
        // The mustache's own subexpressions, to its end (strings skipped).
        let mut parens = 0usize;
        let mut k = j;
        while k < b.len() && !b[k..].starts_with(b"}}") {
            match b[k] {
                b'(' => {
                    parens += 1;
                    deepest = deepest.max(depth + parens);
                }
                b')' => parens = parens.saturating_sub(1),
                q @ (b'"' | b'\'') => {
                    k += 1;
                    while k < b.len() && b[k] != q {
                        k += 1;
                    }
                }
                _ => {}
            }
            k += 1;
        }
        i = k + 2;
    }
    deepest
}

fn next_non_space(b: &[u8], from: usize) -> Option<u8> {
    b.get(from..)?
        .iter()
        .copied()
        .find(|c| !c.is_ascii_whitespace())
}

/// `template` with its body, and the body of every inline partial and partial block in it,
/// wrapped in the guard helper (`guard` is a compiled `{{#gnaw_guard}}{{/gnaw_guard}}`).
pub fn guarded(template: Template, guard: &Template) -> Template {
    let mut t = wrap(template, guard);
    // Inside the wrapper: the template's own elements, walked for partials.
    walk(&mut t, guard, 0);
    t
}

/// `body` as the single guard block of a template of the same name.
fn wrap(body: Template, guard: &Template) -> Template {
    let mut t = guard.clone();
    t.name.clone_from(&body.name);
    if let Some(TemplateElement::HelperBlock(h)) = t.elements.first_mut() {
        h.template = Some(body);
    }
    t
}

/// Wrap the body of every inline partial and partial block below `t`. `depth` is the
/// template's own nesting, already bounded by [`nesting`]; past twice that bound nothing is
/// wrapped further (and the render's depth bound still holds).
fn walk(t: &mut Template, guard: &Template, depth: usize) {
    if depth > 2 * MAX_NESTING + 2 {
        return;
    }
    for element in &mut t.elements {
        match element {
            TemplateElement::HelperBlock(h) => {
                for inner in [h.template.as_mut(), h.inverse.as_mut()]
                    .into_iter()
                    .flatten()
                {
                    walk(inner, guard, depth + 1);
                }
            }
            TemplateElement::DecoratorBlock(d) | TemplateElement::PartialBlock(d) => {
                if let Some(body) = d.template.take() {
                    let mut body = wrap(body, guard);
                    walk(&mut body, guard, depth + 1);
                    d.template = Some(body);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_counts_blocks_and_subexpressions_not_comments_or_raw_text() {
        assert_eq!(nesting("plain {{x}} text"), 0);
        assert_eq!(nesting("{{#if a}}{{#each b}}{{/each}}{{/if}}"), 2);
        assert_eq!(nesting("{{#if a}}{{/if}}{{#if b}}{{/if}}"), 1);
        assert_eq!(nesting("{{~#if a~}}{{^}}{{else}}{{/if}}"), 1);
        assert_eq!(nesting("{{^if a}}x{{/if}}"), 1);
        assert_eq!(nesting("{{lookup (lookup (lookup a 'b') 'c') 'd'}}"), 2);
        assert_eq!(nesting("{{x (a (b (c)))}}"), 3);
        assert_eq!(nesting("{{x \"(((\"}}"), 0);
        assert_eq!(nesting("{{!-- {{#if}}{{#if}} --}}{{! {{#x}} }}"), 0);
        assert_eq!(nesting("{{{{raw}}}}{{#if}}{{#if}}{{{{/raw}}}}"), 0);
        assert_eq!(nesting("\\{{#if a}}"), 0);
        let deep = format!("{}x{}", "{{#if a}}".repeat(100), "{{/if}}".repeat(100));
        assert_eq!(nesting(&deep), 100);
        // Unclosed or odd text ends the scan; it never reads past the end.
        for odd in [
            "{{", "{{#", "{{!--", "{{{{", "{{x (", "{{x \"", "\\{{", "{{^",
        ] {
            let _ = nesting(odd);
        }
    }
}
