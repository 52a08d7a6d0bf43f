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

/// Where the prompt goes.
pub enum Target<'s> {
    /// Only its size is wanted (an estimate): nothing is rendered.
    Nowhere,
    /// Kept in memory and returned.
    Memory,
    /// Written to the writer the sink opens.
    Stream(Sink<'s>),
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

/// Render the plan's prompt to `target`. `kept` is consumed: texts are dropped as they go out.
/// In memory, `stop` is asked before each piece ([`Error::Cancelled`] when it says so); a
/// stream is asked once, before it is opened, so a cancelled run creates nothing and an opened
/// one is written whole.
pub fn assemble(
    frame: Frame,
    render_opts: &RenderOptions,
    plan: &Plan,
    kept: Vec<(String, Body)>,
    target: Target<'_>,
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
        Target::Nowhere => None,
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
