//! `gnaw-mcp --listen` through real processes on loopback: a real tenants file, real temp
//! roots, raw HTTP/1.1 on std::net. Who may call ([`auth`]: 401, 403, tokens, the audit line),
//! both eras ([`eras`]: a stateless 2026-07-28 call, a legacy session from initialize to
//! DELETE, sessions bound to their tenant), tenants kept apart ([`tenants`]: every `repo`
//! spelling of another tenant's root refused, a killed worker restarted unnoticed by others),
//! each front-door bound ([`bounds`]) and a load test ([`load`]); roots bound to what was proven
//! at startup ([`swapped_roots`]: relinked, replaced or removed afterwards, never followed). The Landlock-alone probes of
//! the same cross-tenant inputs are in `tests/http_landlock.rs` (a single-threaded child).

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

mod auth;
mod bounds;
mod eras;
mod fleet;
mod front;
mod load;
mod reload;
mod swapped_roots;
mod tenants;
mod wire;
