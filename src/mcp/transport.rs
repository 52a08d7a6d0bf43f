//! The transport's writing half: stdout, shared by the dispatcher and the worker, one compact
//! JSON-RPC message per line, flushed each time. (The reading half is [`super::framing`].)
//! Nothing else in gnaw-mcp writes to stdout, and nothing is written that has not passed the
//! exit gate ([`super::gate`]).

use super::gate::Gate;
use crate::par::lock;
use serde_json::Value;
use std::io::Write;
use std::sync::Mutex;

/// The output stream.
pub struct Output {
    writer: Mutex<Box<dyn Write + Send>>,
    /// The gate every message passes, with the ceiling of messages that answer no call.
    gate: Gate,
}

impl Output {
    /// Messages go to `writer`, through `gate`.
    pub fn new(writer: impl Write + Send + 'static, gate: Gate) -> Output {
        Output {
            writer: Mutex::new(Box::new(writer)),
            gate,
        }
    }

    /// The gate messages pass when they answer no call.
    pub fn gate(&self) -> Gate {
        self.gate
    }

    /// Write one message as one line, through the gate.
    pub fn send(&self, message: Value) {
        self.send_through(message, self.gate);
    }

    /// Write one message as one line, through `gate` (a call's, with the call's ceiling).
    pub fn send_through(&self, message: Value, gate: Gate) {
        let message = gate.seal(message);
        let mut line = match serde_json::to_vec(&message) {
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
