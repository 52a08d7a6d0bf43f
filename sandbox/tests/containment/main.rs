//! Layer 1 alone, userspace containment (`Root::contain`): exact rejections over a real hostile
//! tree ([`paths`]), the property that nothing outside is ever `Contained` ([`props`], shared
//! with the `contain` fuzz target), and a concurrent attacker swapping a directory for a link
//! ([`race`]).

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

#[path = "../common/mod.rs"]
mod common;
#[path = "../contain_check/mod.rs"]
mod contain_check;

mod paths;
mod props;
mod race;
