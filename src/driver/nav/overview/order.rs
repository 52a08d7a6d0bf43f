//! The map's order: each file's weight by its class, the ranking personalized toward a
//! query's best files, the manifests and the largest programs first, and each file's
//! definitions, most used elsewhere first.

use super::{
    Definition, Header, MAX_DEFINITIONS, MAX_PROGRAMS_FIRST, MEMBER_WEIGHT, MIN_PROGRAM_SHARE,
    Mapped, OTHER_WEIGHT, QUERY_SHARE, SECONDARY_WEIGHT, SEEDS,
};
use crate::driver::file::FileContext;
use crate::driver::nav::repo_index::{Centrality, IndexedFile, Outlines, RepoIndex};
use crate::driver::nav::search;
use crate::error::Error;
use crate::stages::rank::graph::{name_term, uses_weight};
use crate::stages::rank::{Class, Query, plain_word};
use crate::vocab::{Symbol, SymbolKind, display_text};
use std::collections::{HashMap, HashSet};

/// Each file's score personalized toward `query`'s best files, with those files (positions).
pub(super) fn personalized(
    ctx: &FileContext<'_>,
    repo: &RepoIndex,
    central: &Centrality,
    query: &Query,
    outlines: &Outlines<'_>,
    stop: &dyn Fn() -> bool,
) -> Result<(Vec<f64>, Vec<usize>), Error> {
    let (matching, _) = search::ranked(ctx, repo, query, outlines, stop).ok_or(Error::Cancelled)?;
    let seeds: Vec<usize> = matching.iter().take(SEEDS).map(|(i, _)| *i).collect();
    if seeds.is_empty() {
        return Ok((central.ranks.clone(), seeds));
    }
    let mut jump = vec![0.0; repo.files.len()];
    for (k, &i) in seeds.iter().enumerate() {
        jump[i] = 1.0 / (k + 1) as f64;
    }
    let around = central
        .graph
        .rank(Some(&jump), stop)
        .ok_or(Error::Cancelled)?;
    let scores = around
        .iter()
        .zip(&central.ranks)
        .map(|(a, p)| QUERY_SHARE * a + (1.0 - QUERY_SHARE) * p)
        .collect();
    Ok((scores, seeds))
}

/// What a file of `class` counts of its rank in the map; `None`: not mapped.
pub(super) fn map_weight(path: &str, class: Class) -> Option<f64> {
    match class {
        Class::ReadmeOrManifest => manifest_or_readme(path).then_some(1.0),
        Class::EntryPoint | Class::Source => Some(1.0),
        Class::Other => Some(OTHER_WEIGHT),
        Class::Test | Class::Example => Some(SECONDARY_WEIGHT),
        Class::Docs | Class::Generated | Class::Lock => None,
    }
}

/// Whether a file the default order puts first is a manifest (not a README).
pub(super) fn manifest_or_readme(path: &str) -> bool {
    !path
        .rsplit('/')
        .next()
        .unwrap_or(path)
        .to_ascii_lowercase()
        .starts_with("readme")
}

/// The map's files in order: with `first`, the root's manifests and the programs of the
/// largest packages (at most [`MAX_PROGRAMS_FIRST`], each package holding at least
/// [`MIN_PROGRAM_SHARE`] of the code), then every mapped file by score (ties by path).
pub(super) fn map_order(
    files: &[IndexedFile],
    classes: &[Class],
    scores: &[f64],
    header: &Header,
    first: bool,
) -> Vec<Mapped> {
    let at: HashMap<&str, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.as_str(), i))
        .collect();
    let mut out: Vec<Mapped> = Vec::new();
    let mut placed: HashSet<usize> = HashSet::new();
    if first {
        for (i, f) in files.iter().enumerate() {
            if !f.path.contains('/')
                && classes[i] == Class::ReadmeOrManifest
                && manifest_or_readme(&f.path)
            {
                placed.insert(i);
                out.push(Mapped {
                    at: i,
                    score: scores[i],
                    role: "manifest".into(),
                });
            }
        }
        // The programs of the largest packages (a quarter of the first's size or more, and
        // at least MIN_PROGRAM_SHARE of the code).
        let top = header.entry_points.first().filter(|e| e.program);
        let least = top.map_or(0.0, |e| e.weight / 4.0).max(MIN_PROGRAM_SHARE);
        let programs = header
            .entry_points
            .iter()
            .filter(|e| e.program && e.weight >= least);
        for e in programs.take(MAX_PROGRAMS_FIRST) {
            if let Some(&i) = at.get(e.path.as_str())
                && placed.insert(i)
            {
                out.push(Mapped {
                    at: i,
                    score: scores[i],
                    role: e.role.clone(),
                });
            }
        }
    }
    let mut rest: Vec<Mapped> = files
        .iter()
        .enumerate()
        .filter(|(i, _)| !placed.contains(i))
        .filter_map(|(i, f)| {
            let weight = map_weight(&f.path, classes[i])?;
            Some(Mapped {
                at: i,
                score: scores[i] * weight,
                role: String::new(),
            })
        })
        .collect();
    rest.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| files[a.at].path.cmp(&files[b.at].path))
    });
    out.extend(rest);
    out
}

/// A file's definitions as the map shows them, most used first, at most [`MAX_DEFINITIONS`]:
/// every named definition but impl blocks and modules (their members count) and an impl's
/// associated types.
pub(super) fn definitions(symbols: Option<&Vec<Symbol>>, central: &Centrality) -> Vec<Definition> {
    let Some(symbols) = symbols else {
        return Vec::new();
    };
    // Each candidate scored first; only those shown are made (escaped) after.
    let walked = Symbol::walk(symbols);
    let mut scored: Vec<(f64, bool, usize)> = Vec::new();
    for (order, (parent, s)) in walked.iter().enumerate() {
        // An impl's associated type (`type Output = ()`) repeats its trait's vocabulary.
        let associated =
            s.kind == SymbolKind::TypeAlias && parent.is_some_and(|p| p.kind == SymbolKind::Impl);
        if matches!(s.kind, SymbolKind::Impl | SymbolKind::Module)
            || s.name.is_empty()
            || associated
        {
            continue;
        }
        // As the graph weighs the name's uses elsewhere (plain or not as this file writes it),
        // shared among the files defining it (by its square root: a name several files define
        // is still theirs), a member's less.
        let last = s.name.rsplit([':', '.']).next().unwrap_or(&s.name);
        let uses = name_term(last).map_or(0.0, |h| {
            let (users, by) = central.graph.name_uses(h).unwrap_or((0, 1));
            let importers = central.graph.name_importers(h);
            let member = if parent.is_some_and(|p| p.kind.is_container()) {
                MEMBER_WEIGHT
            } else {
                1.0
            };
            member * uses_weight(users, importers, plain_word(last)) / (by.max(1) as f64).sqrt()
        });
        scored.push((uses, parent.is_some(), order));
    }
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    scored.truncate(MAX_DEFINITIONS);
    scored
        .into_iter()
        .map(|(uses, _, order)| {
            let (parent, s) = walked[order];
            Definition {
                name: display_text(&s.name).into_owned(),
                kind: s.kind.as_str(),
                start: s.lines.start,
                end: s.lines.end,
                signature: display_text(&s.signature).into_owned(),
                uses,
                parent: parent.map(|p| display_text(&p.name).into_owned()),
            }
        })
        .collect()
}
