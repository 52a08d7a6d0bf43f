//! The navigation tools (`read`, `grep`, `tree`, `search`, `related`, `outline`, `symbol`), on
//! the library and through the real `gnaw-mcp`: exact budgets and continuations ([`budgets`]),
//! one exactness test over every tool ([`exact_budgets`]), every path argument proven and no
//! secret oracle through the server ([`server`]), grep's file prefilter ([`grep_prefilter`]),
//! grep's answer whatever order the walk meets files in ([`grep_walk`]), the default search answer
//! as an agent reads it ([`search_answer`]), the search index in the
//! warm cache ([`search_index`]), `related`'s co-change from a real git history ([`co_change`]), the whole index kept with its walk's listing
//! ([`search_kept`]), the outlines a search leaves for the server's idle time ([`idle`]),
//! outline and symbol over every language's fixture ([`outline`]), and the repository's map
//! ([`overview`]).

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

#[path = "../common/mod.rs"]
mod common;

mod budgets;
mod co_change;
mod exact_budgets;
mod grep_prefilter;
mod grep_walk;
mod idle;
mod outline;
mod overview;
mod search_answer;
mod search_index;
mod search_kept;
mod server;

use common::fixture::Tree;
use std::os::unix::fs::symlink;

/// `base/root/repo` holding `src/lib.rs`, and `base/outside/NAME` holding `secret`; the repo
/// links to the outside directory (`link_out`) and to the outside file by an absolute path
/// (`file_link_out`) and a relative one (`rel_link_out`), each link name ending in `ext`.
fn outside_layout(name: &str, secret: &str, ext: &str) -> Tree {
    let t = Tree::new("root/repo");
    t.write("src/lib.rs", "pub fn inside() -> u32 {\n    42\n}\n");
    let outside = t.beside("outside");
    common::fixture::put(&outside.join(name), secret);
    let repo = &t.repo;
    symlink(&outside, repo.join("link_out")).unwrap();
    symlink(outside.join(name), repo.join(format!("file_link_out{ext}"))).unwrap();
    symlink(
        format!("../../outside/{name}"),
        repo.join(format!("rel_link_out{ext}")),
    )
    .unwrap();
    t
}

/// A fake GitHub token for the grep suites, assembled at run time (no real-looking key in the source).
fn github_token() -> String {
    format!("{}{}", "gh", "p_")
        + &"aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2z"
            .chars()
            .rev()
            .collect::<String>()
        + "Qx"
}
