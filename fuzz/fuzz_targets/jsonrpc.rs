//! Fuzz the MCP message handling: any bytes through the real `gnaw::mcp::serve` loop (framing,
//! JSON-RPC classification, dispatch, tool-call preparation, the worker). It must not panic or
//! hang, must answer every request exactly once with its id, and must answer nothing else
//! (the invariant lives in `tests/common/jsonrpc_check.rs`, shared with the property test).
#![no_main]

#[path = "../../tests/common/jsonrpc_check.rs"]
mod jsonrpc_check;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(violation) = jsonrpc_check::check(data) {
        panic!("{violation}");
    }
});
