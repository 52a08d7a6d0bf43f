//! Paths to offer while a person types one: the repository's files whose shown path starts with
//! what was typed (else holds it, ignoring case), most central first: ranked by the reference
//! graph of the search index the server keeps ([`super::repo_index::centrality`], what `overview`
//! maps the repository by), so the files the repository is built around come first. What
//! `completion/complete` offers for a resource's path and `resources/list` lists.
//!
//! Bounded: at most [`MAX_PATHS`] paths, of at most [`MAX_TYPED`] typed bytes; the index is the
//! one every navigation call builds (the same walk, ignore rules, policy and secrets, so a path
//! shown here is one `read` reads), taken from the warm cache when the repository is unchanged.

use super::repo_index::{centrality, open_for_index, with_index_for};
use crate::driver::call::{NavError, Request};
use crate::error::Error;

/// The most paths one answer offers.
pub const MAX_PATHS: usize = 100;
/// The longest typed value looked for, in bytes.
pub const MAX_TYPED: usize = 1024;

/// What a completion found: the paths offered (at most `limit`, best first) and how many
/// matched in all.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Offered {
    pub paths: Vec<String>,
    pub total: usize,
}

/// The files of `req`'s repository that match `typed`, at most `limit` (capped at
/// [`MAX_PATHS`]), most central first: those whose path starts with `typed`, then those that
/// hold it anywhere, ignoring ASCII case. A `typed` over [`MAX_TYPED`] bytes is refused.
pub fn paths(req: &Request<'_>, typed: &str, limit: usize) -> Result<Offered, NavError> {
    if typed.len() > MAX_TYPED {
        return Err(NavError::invalid(format!(
            "the value typed is {} bytes; at most {MAX_TYPED} are completed",
            typed.len()
        )));
    }
    let limit = limit.min(MAX_PATHS);
    let lower = typed.to_ascii_lowercase();
    open_for_index(req, |session, ctx| {
        let stop = || session.cancelled();
        with_index_for(session, ctx, false, |repo| {
            let ranks = centrality(ctx, repo, &stop)?;
            // (starts with it, rank, index): the prefix matches first, then by rank.
            let mut matched: Vec<(bool, f64, usize)> = repo
                .files
                .iter()
                .enumerate()
                .filter_map(|(i, f)| {
                    let prefix = f.path.starts_with(typed);
                    let holds = prefix || f.path.to_ascii_lowercase().contains(&lower);
                    holds.then(|| (prefix, ranks.ranks.get(i).copied().unwrap_or(0.0), i))
                })
                .collect();
            if stop() {
                return Err(Error::Cancelled.into());
            }
            let total = matched.len();
            matched.sort_by(|a, b| {
                b.0.cmp(&a.0)
                    .then(b.1.total_cmp(&a.1))
                    .then(repo.files[a.2].path.cmp(&repo.files[b.2].path))
            });
            let paths = matched
                .into_iter()
                .take(limit)
                .map(|(_, _, i)| repo.files[i].path.clone())
                .collect();
            Ok(Offered { paths, total })
        })
    })
}
