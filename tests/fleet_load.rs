//! The hundred-tenant load test (`http/fleet_load.rs`) as a test binary of its own: cargo runs
//! test binaries one after another, so its hundred workers and its memory readings never share
//! the machine with another test's servers (within `tests/http` they ran beside them).

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

#[allow(dead_code)] // this binary uses a part of the harness
#[path = "http/front.rs"]
mod front;

#[path = "http/fleet_load.rs"]
mod fleet_load;
