//! The driver's last step: the prompt is the preamble, the kept files' pieces in path order and
//! the epilogue, built at its exact size in memory or streamed to a writer. Each file's text is
//! dropped as soon as its piece is out, so the texts shrink as the output grows.

use super::file::Body;
use super::plan::Measure;
use crate::error::Error;
use crate::stages::budget::Plan;
use crate::stages::render::{self, FileView, RenderOptions};
use crate::vocab::Format;
use std::io::Write;

/// Opens the writer a streamed prompt goes to.
pub type Sink<'s> = Box<dyn FnOnce() -> std::io::Result<Box<dyn Write + 's>> + 's>;

/// One part of the prompt, in order, as [`Target::Parts`] hands them out: the preamble, each kept
/// file's piece in path order, then the epilogue. Their texts joined are the prompt.
pub enum Part<'a> {
    /// Everything before the first file: the title, the tree, the omitted section. `repo_name`
    /// is the repository's name as the title shows it.
    Preamble { text: &'a str, repo_name: &'a str },
    /// One file: its piece as rendered (`piece`, whose exact token count is `tokens`, 0 when the
    /// run does not count; json's last piece is counted as if a comma followed it), and what it
    /// was rendered from: the display path, the text shown (redacted or a skeleton when so), and
    /// its notes.
    File {
        path: &'a str,
        text: &'a str,
        lossy: bool,
        skeleton: bool,
        /// Lines are numbered in the piece (`--line-numbers`, as resolved by the run).
        numbered: bool,
        piece: &'a str,
        tokens: usize,
    },
    /// Everything after the last file.
    Epilogue(&'a str),
}

/// Takes each [`Part`] of a prompt in turn.
pub type PartSink<'s> = Box<dyn FnMut(Part<'_>) + 's>;

/// Where the prompt goes.
pub enum Target<'s> {
    /// Only its size is wanted (an estimate): nothing is rendered.
    Nowhere,
    /// Kept in memory and returned.
    Memory,
    /// Written to the writer the sink opens.
    Stream(Sink<'s>),
    /// Handed out part by part (the preamble, each file with what it was rendered from, the
    /// epilogue), for a caller that lays the prompt out itself (the CLI's `--split-output` and
    /// `--template`). Asked to stop before each part.
    Parts(PartSink<'s>),
}

/// What assembly produced: the prompt (for [`Target::Memory`]), its size, and the outcome of
/// writing it (for [`Target::Stream`]).
pub struct Assembled {
    pub output: Option<String>,
    pub output_bytes: usize,
    pub written: std::io::Result<()>,
}

/// The parts of the prompt around the files' pieces, rendered for one plan.
pub struct Frame {
    preamble: String,
    epilogue: String,
    /// json's last piece (no trailing comma); every other format's is the measured one.
    last_piece: Option<String>,
}

impl Frame {
    /// The frame of `plan`'s prompt; `None` when the run was cancelled while it was drawn.
    pub fn new(m: &Measure<'_>, render_opts: &RenderOptions, plan: &Plan) -> Option<Frame> {
        Some(Frame {
            preamble: m.preamble(&plan.kept, &plan.view)?,
            epilogue: m.epilogue().to_string(),
            last_piece: plan
                .kept
                .last()
                .filter(|_| render_opts.format == Format::Json)
                .map(|&l| render::file_piece(render_opts, &m.view(l), true)),
        })
    }
}

/// Render the plan's prompt to `target` (with the repository's name as the title shows it, for
/// [`Target::Parts`]). `kept` is consumed: texts are dropped as they go out.
/// In memory, `stop` is asked before each piece ([`Error::Cancelled`] when it says so); a
/// stream is asked once, before it is opened, so a cancelled run creates nothing and an opened
/// one is written whole.
pub fn assemble(
    frame: Frame,
    render_opts: &RenderOptions,
    plan: &Plan,
    kept: Vec<(String, Body)>,
    (target, repo_name): (Target<'_>, &str),
    stop: &dyn Fn() -> bool,
) -> Result<Assembled, Error> {
    let Frame {
        preamble,
        epilogue,
        last_piece,
    } = frame;
    let last = plan.kept.last().copied();
    let body_bytes: usize = plan
        .kept
        .iter()
        .map(|&i| match (&last_piece, Some(i) == last) {
            (Some(p), true) => p.len(),
            _ => kept[i].1.piece_len,
        })
        .sum();
    let output_bytes = preamble.len() + body_bytes + epilogue.len();
    if let Target::Parts(mut sink) = target {
        sink(Part::Preamble {
            text: &preamble,
            repo_name,
        });
        for &i in &plan.kept {
            if stop() {
                return Err(Error::Cancelled);
            }
            let (path, body) = &kept[i];
            let view = FileView {
                path,
                text: &body.text,
                lossy: body.lossy,
                skeleton: body.is_skeleton(),
            };
            let piece = match (&last_piece, Some(i) == last) {
                (Some(p), true) => p.clone(),
                _ => render::file_piece(render_opts, &view, false),
            };
            sink(Part::File {
                path,
                text: &body.text,
                lossy: body.lossy,
                skeleton: view.skeleton,
                numbered: render_opts.line_numbers,
                piece: &piece,
                tokens: body.tokens,
            });
        }
        sink(Part::Epilogue(&epilogue));
        return Ok(Assembled {
            output: None,
            output_bytes,
            written: Ok(()),
        });
    }
    let mut texts: Vec<Option<(String, Body)>> = match target {
        Target::Nowhere => Vec::new(),
        _ => kept.into_iter().map(Some).collect(),
    };
    let mut pieces = plan.kept.iter().filter_map(|&i| {
        let (path, body) = texts.get_mut(i)?.take()?;
        let view = FileView {
            path: &path,
            text: &body.text,
            lossy: body.lossy,
            skeleton: body.is_skeleton(),
        };
        Some(match (&last_piece, Some(i) == last) {
            (Some(p), true) => p.clone(),
            _ => render::file_piece(render_opts, &view, false),
        })
    });
    let mut written = Ok(());
    let output = match target {
        Target::Nowhere | Target::Parts(..) => None,
        Target::Stream(_) if stop() => return Err(Error::Cancelled),
        Target::Stream(open) => {
            written = (|| {
                let mut w = std::io::BufWriter::with_capacity(1 << 20, open()?);
                w.write_all(preamble.as_bytes())?;
                for p in pieces.by_ref() {
                    w.write_all(p.as_bytes())?;
                }
                w.write_all(epilogue.as_bytes())?;
                w.flush()
            })();
            None
        }
        Target::Memory => {
            let mut out = String::with_capacity(output_bytes);
            out.push_str(&preamble);
            loop {
                if stop() {
                    return Err(Error::Cancelled);
                }
                let Some(p) = pieces.next() else { break };
                out.push_str(&p);
            }
            out.push_str(&epilogue);
            debug_assert_eq!(out.len(), output_bytes);
            Some(out)
        }
    };
    Ok(Assembled {
        output,
        output_bytes,
        written,
    })
}
