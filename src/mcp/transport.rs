//! The transport's writing half: stdout, shared by the dispatcher and the worker, one compact
//! JSON-RPC message per line, flushed each time. (The reading half is [`super::framing`].)
//! Nothing else in gnaw-mcp writes to stdout.

use crate::par::lock;
use serde_json::Value;
use std::io::Write;
use std::sync::Mutex;

/// The output stream.
pub struct Output {
    writer: Mutex<Box<dyn Write + Send>>,
}

impl Output {
    /// Messages go to `writer`.
    pub fn new(writer: impl Write + Send + 'static) -> Output {
        Output {
            writer: Mutex::new(Box::new(writer)),
        }
    }

    /// Write one message as one line.
    pub fn send(&self, message: &Value) {
        let mut line = match serde_json::to_vec(message) {
            Ok(line) => line,
            Err(e) => {
                log::error!("could not serialize a response: {e}");
                return;
            }
        };
        line.push(b'\n');
        let mut w = lock(&self.writer);
        if let Err(e) = w.write_all(&line).and_then(|()| w.flush()) {
            log::warn!("could not write to stdout: {e}");
        }
    }
}
