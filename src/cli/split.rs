//! `--split-output SIZE`: the prompt laid out as several files (`prompt.1.md`, `prompt.2.md`,
//! ...), each at most SIZE bytes or tokens, cut only between files: a file's piece is never
//! divided, so a file larger than SIZE alone gets a part of its own (over SIZE; the summary names
//! it). Every part says which part it is, in its format's own terms, and is a document of its
//! format by itself:
//!
//! - markdown: a first line `<!-- gnaw: part K of N -->`; part 1 holds the title, tree and
//!   omitted section, the others only files;
//! - xml: the same comment, then each part is one `<repository name="...">` element;
//! - json: each part is one object, `{"repository":...,"part":K,"parts":N,...,"files":[...]}`.
//!
//! Token sizes are exact: every part's text is counted whole once laid out, and a part found
//! over SIZE (possible only by a few tokens, where its first line's digits or a junction
//! count differently) is laid out again with less room.

use super::args::SplitSize;
use crate::stages::count;
use crate::vocab::{Encoding, Format};

/// The prompt's parts as the run handed them out.
#[derive(Default)]
pub struct Collected {
    pub preamble: String,
    pub repo_name: String,
    /// Each file's display path and piece.
    pub pieces: Vec<(String, String)>,
    pub epilogue: String,
}

impl Collected {
    /// The whole prompt.
    pub fn joined(&self) -> String {
        let mut s = String::with_capacity(
            self.preamble.len()
                + self.pieces.iter().map(|(_, p)| p.len()).sum::<usize>()
                + self.epilogue.len(),
        );
        s.push_str(&self.preamble);
        for (_, p) in &self.pieces {
            s.push_str(p);
        }
        s.push_str(&self.epilogue);
        s
    }
}

/// One laid-out part: its text, its size in the unit asked for, and the files too large for
/// any part that it holds alone.
pub struct Laid {
    pub text: String,
    pub size: usize,
    pub oversized: Option<String>,
}

/// How to measure a text in the unit of `size`.
fn measure(size: SplitSize, encoding: Encoding, text: &str) -> usize {
    match size {
        SplitSize::Bytes(_) => text.len(),
        SplitSize::Tokens(_) => count::count(encoding, text),
    }
}

fn limit(size: SplitSize) -> usize {
    match size {
        SplitSize::Bytes(b) => usize::try_from(b).unwrap_or(usize::MAX),
        SplitSize::Tokens(t) => t,
    }
}

/// The shape of a part in `format`: what comes before its files and after them.
struct Shape<'a> {
    format: Format,
    c: &'a Collected,
    /// json's and xml's first line of the preamble (`{"repository":"x",` / `<repository ...>`).
    first_line: &'a str,
}

impl Shape<'_> {
    fn head(&self, k: usize, n: usize) -> String {
        let rest = &self.c.preamble[self.first_line.len()..];
        match (self.format, k) {
            (Format::Markdown, 1) => format!("<!-- gnaw: part 1 of {n} -->\n{}", self.c.preamble),
            (Format::Markdown, _) => format!("<!-- gnaw: part {k} of {n} -->\n"),
            (Format::Xml, 1) => format!("<!-- gnaw: part 1 of {n} -->\n{}", self.c.preamble),
            (Format::Xml, _) => format!("<!-- gnaw: part {k} of {n} -->\n{}", self.first_line),
            (Format::Json, 1) => format!("{}\"part\":1,\"parts\":{n},\n{rest}", self.first_line),
            (Format::Json, _) => {
                format!(
                    "{}\"part\":{k},\"parts\":{n},\n\"files\":[\n",
                    self.first_line
                )
            }
        }
    }

    fn tail(&self, last: bool) -> &str {
        match self.format {
            // The epilogue closes the one element or object each part is.
            Format::Xml | Format::Json => &self.c.epilogue,
            Format::Markdown if last => &self.c.epilogue,
            Format::Markdown => "",
        }
    }

    /// A piece as it is written as its part's `last` one (json: without the comma).
    fn piece<'p>(&self, piece: &'p str, last: bool) -> std::borrow::Cow<'p, str> {
        match (self.format, piece.strip_suffix("},\n")) {
            (Format::Json, Some(p)) if last => format!("{p}}}\n").into(),
            _ => piece.into(),
        }
    }
}

/// Lay `c` out in parts of at most `size` each. `Err` says why not, for the user.
pub fn lay_out(
    c: &Collected,
    format: Format,
    size: SplitSize,
    encoding: Encoding,
) -> Result<Vec<Laid>, String> {
    let first_line = match format {
        Format::Markdown => "",
        Format::Xml | Format::Json => c.preamble.split_inclusive('\n').next().unwrap_or_default(),
    };
    let shape = Shape {
        format,
        c,
        first_line,
    };
    let sizes: Vec<usize> = c
        .pieces
        .iter()
        .map(|(_, p)| measure(size, encoding, p))
        .collect();
    let mut room = limit(size);
    // Each pass packs with the room left after the frame; a part found over the limit (by the
    // few tokens a junction or a digit can differ by) makes the next pass leave it more.
    for _ in 0..8 {
        let groups = pack(&shape, &sizes, room, size, encoding);
        let n = groups.len();
        let mut laid = Vec::with_capacity(n);
        let mut over = 0;
        for (k, group) in groups.iter().enumerate() {
            let mut text = shape.head(k + 1, n);
            for (j, &i) in group.iter().enumerate() {
                text.push_str(&shape.piece(&c.pieces[i].1, j + 1 == group.len()));
            }
            text.push_str(shape.tail(k + 1 == n));
            let measured = measure(size, encoding, &text);
            let oversized = match group.as_slice() {
                [i] if measured > limit(size) => Some(c.pieces[*i].0.clone()),
                [] if measured > limit(size) => Some("the title, tree and omitted list".into()),
                _ => {
                    over = over.max(measured.saturating_sub(limit(size)));
                    None
                }
            };
            laid.push(Laid {
                text,
                size: measured,
                oversized,
            });
        }
        if over == 0 {
            return Ok(laid);
        }
        room = room.saturating_sub(over);
    }
    Err(
        "--split-output: the parts could not be fitted to the size asked for; give a larger SIZE"
            .into(),
    )
}

/// Group the pieces (by index, in order) into parts: each group's frame plus pieces within
/// `room`, but for a piece too large alone.
fn pack(
    shape: &Shape<'_>,
    sizes: &[usize],
    room: usize,
    size: SplitSize,
    encoding: Encoding,
) -> Vec<Vec<usize>> {
    // The frame's size with the widest part numbers the parts can have.
    let widest = (sizes.len() + 1).to_string().replace(|_| true, "9");
    let widest: usize = widest.parse().unwrap_or(usize::MAX);
    let frame = |k: usize| {
        let head = shape.head(if k == 1 { 1 } else { widest }, widest);
        measure(size, encoding, &head) + measure(size, encoding, shape.tail(true))
    };
    let mut groups = vec![Vec::new()];
    let mut used = frame(1);
    for (i, &s) in sizes.iter().enumerate() {
        let first = groups.len() == 1;
        let group = groups.last_mut().expect("one group at least");
        // Part 1 holds the preamble: a piece that does not fit beside it starts part 2.
        if used + s > room && (!group.is_empty() || first) {
            groups.push(vec![i]);
            used = frame(2) + s;
        } else {
            group.push(i);
            used += s;
        }
    }
    groups
}

/// The name of part `k` of `-o`'s file `name`: `prompt.md` -> `prompt.K.md`, `prompt` ->
/// `prompt.K`, `.hidden` -> `.hidden.K` (bytes kept as they are, whatever they are).
pub fn part_name(name: &std::ffi::OsStr, k: usize) -> std::ffi::OsString {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let bytes = name.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() + 8);
    match bytes.iter().rposition(|&b| b == b'.') {
        Some(dot) if dot > 0 => {
            out.extend_from_slice(&bytes[..dot]);
            out.extend_from_slice(format!(".{k}").as_bytes());
            out.extend_from_slice(&bytes[dot..]);
        }
        _ => {
            out.extend_from_slice(bytes);
            out.extend_from_slice(format!(".{k}").as_bytes());
        }
    }
    std::ffi::OsString::from_vec(out)
}

#[cfg(test)]
mod tests {
    use super::part_name;
    use std::ffi::OsStr;

    #[test]
    fn parts_are_named_before_the_extension() {
        let p = |n: &str, k| part_name(OsStr::new(n), k).into_string().unwrap();
        assert_eq!(p("prompt.md", 3), "prompt.3.md");
        assert_eq!(p("prompt", 1), "prompt.1");
        assert_eq!(p(".hidden", 2), ".hidden.2");
        assert_eq!(p("a.tar.gz", 10), "a.tar.10.gz");
    }
}
