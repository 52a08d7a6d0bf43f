//! The answer's text: the map's entries, most central first, grouped by file in map order
//! under the header, and the [`Paged`] answer the fit measures.

use super::{
    Definition, ENTRY_POINTS_SHOWN, EntryPoint, Header, LANGUAGES_SHOWN, MapFile, Mapped,
    PLACES_SHOWN, Place,
};
use crate::driver::call::paging::{self, Limits, One, Paged};
use crate::driver::call::paths::quote;
use crate::driver::nav::repo_index::IndexedFile;
use std::fmt::Write as _;
use std::sync::Arc;

/// One entry of the map: the `j`-th of map file `m` (0: its line with its first definition).
#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    pub(super) m: usize,
    pub(super) j: usize,
}

/// The entries of the first `reach` map files, most central first: the exact first entries of
/// the whole map's order (an entry weighing less than the next file's first would come after
/// entries of files not reached yet, so it is left for a wider reach).
pub(super) fn entries(
    map: &[Mapped],
    defs: &[Option<Arc<Vec<Definition>>>],
    reach: usize,
) -> Vec<Entry> {
    // The files placed first keep their place; every other entry weighs score / (j + 1).
    let first = map.iter().take_while(|m| !m.role.is_empty()).count();
    let below = map.get(reach).map_or(f64::NEG_INFINITY, |m| m.score);
    let mut out: Vec<(f64, Entry)> = Vec::new();
    for (m, file) in map.iter().enumerate().take(reach) {
        let n = defs[m].as_ref().map_or(0, |d| d.len()).max(1);
        for j in 0..n {
            let weight = if m < first && j == 0 {
                f64::INFINITY
            } else {
                file.score / (j + 1) as f64
            };
            if weight >= below || m < first && j == 0 {
                out.push((weight, Entry { m, j }));
            }
        }
    }
    out.sort_by(|(wa, a), (wb, b)| wb.total_cmp(wa).then(a.m.cmp(&b.m)).then(a.j.cmp(&b.j)));
    out.into_iter().map(|(_, e)| e).collect()
}

pub(super) struct Render<'a> {
    pub(super) files: &'a [IndexedFile],
    pub(super) map: &'a [Mapped],
    pub(super) defs: &'a [Option<Arc<Vec<Definition>>>],
    /// The entries from `offset` on.
    pub(super) entries: &'a [Entry],
    pub(super) offset: usize,
    /// Whether `entries` ends where the whole map does.
    pub(super) complete: bool,
    pub(super) header: &'a Header,
    pub(super) query: Option<&'a str>,
    /// Files whose definitions a parse bound kept out, said in the header.
    pub(super) not_parsed: Option<String>,
    pub(super) limits: Limits,
    pub(super) count: &'a dyn Fn(&str) -> usize,
}

/// `17.2 MB`, `940 KB`, `312 B`.
pub(super) fn size(bytes: usize) -> String {
    match bytes {
        b if b >= 1_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        b if b >= 1_000 => format!("{} KB", b / 1_000),
        b => format!("{b} B"),
    }
}

/// `1 file`, `2 files`.
pub(super) fn files(n: usize) -> String {
    format!("{n} file{}", if n == 1 { "" } else { "s" })
}

/// The first `n` of `items` as `show` says each, then `N more` (`more`: `more places`), by
/// commas: `crates/*/tests (120), tests (12), 4 more places`.
pub(super) fn listed<T>(items: &[T], n: usize, show: impl Fn(&T) -> String, more: &str) -> String {
    let mut parts: Vec<String> = items.iter().take(n).map(show).collect();
    if items.len() > n {
        parts.push(format!("{} {more}", items.len() - n));
    }
    parts.join(", ")
}

/// Where tests or docs live, as the header says it.
pub(super) fn places_line(places: &[Place]) -> String {
    listed(
        places,
        PLACES_SHOWN,
        |p| format!("{} ({})", p.path, p.files),
        "more places",
    )
}

impl Render<'_> {
    /// The header (on the first page), or the line that says where a continued map resumes.
    fn head(&self) -> String {
        let h = self.header;
        if self.offset > 0 {
            return format!(
                "overview (continued): the map from entry {}\n",
                self.offset + 1
            );
        }
        let mut out = format!(
            "overview: {}, {} of text",
            files(h.files),
            size(h.text_bytes)
        );
        if !h.not_searched.is_empty() {
            let _ = write!(out, " (not searched: {})", paging::tally(&h.not_searched));
        }
        let total = h.text_bytes.max(1) as f64;
        let langs: Vec<String> = h
            .languages
            .iter()
            .take(LANGUAGES_SHOWN)
            .filter(|l| l.bytes as f64 / total >= 0.01)
            .map(|l| format!("{} {:.0}%", l.language, 100.0 * l.bytes as f64 / total))
            .collect();
        if !langs.is_empty() {
            let _ = write!(out, "; {}", langs.join(", "));
        }
        out.push('\n');
        for (what, n, places) in [
            ("tests", h.test_files, &h.tests),
            ("docs", h.doc_files, &h.docs),
        ] {
            if n > 0 {
                let _ = writeln!(out, "{what}: {} in {}", files(n), places_line(places));
            }
        }
        if !h.entry_points.is_empty() {
            let programs: Vec<&EntryPoint> = h.entry_points.iter().filter(|e| e.program).collect();
            let libs: Vec<&EntryPoint> = h.entry_points.iter().filter(|e| !e.program).collect();
            let named = |list: &[&EntryPoint], n: usize| -> String {
                listed(list, n, |e| format!("{} ({})", e.path, e.role), "more")
            };
            let mut parts = Vec::new();
            if !programs.is_empty() {
                parts.push(format!(
                    "programs: {}",
                    named(&programs, ENTRY_POINTS_SHOWN)
                ));
            }
            if !libs.is_empty() {
                let n = ENTRY_POINTS_SHOWN
                    .saturating_sub(programs.len().min(ENTRY_POINTS_SHOWN))
                    .max(2);
                parts.push(format!("libraries: {}", named(&libs, n)));
            }
            let _ = writeln!(out, "entry points (manifests): {}", parts.join("; "));
        }
        match self.query {
            Some(q) if h.around.is_empty() => {
                let _ = writeln!(
                    out,
                    "map: no file matches {}; files by centrality (PageRank over imports and \
                     used names)",
                    quote(q)
                );
            }
            Some(q) => {
                let mut near: Vec<&str> = h.around.iter().take(3).map(String::as_str).collect();
                if h.around.len() > 3 {
                    near.push("…");
                }
                let _ = writeln!(
                    out,
                    "map around {} (its best files: {}): files by centrality personalized \
                     toward them",
                    quote(q),
                    near.join(", ")
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "map: manifests and programs first, then files by centrality (PageRank over \
                     imports and used names)"
                );
            }
        }
        let _ = write!(
            out,
            "each with its most used definitions as START-END signature"
        );
        if h.links_cut > 0 {
            let _ = write!(
                out,
                "; links of {} files cut to their heaviest {}",
                h.links_cut,
                crate::stages::rank::graph::MAX_LINKS
            );
        }
        if let Some(note) = &self.not_parsed {
            let _ = write!(out, "; definitions missing: {note}");
        }
        out.push('\n');
        out
    }

    /// The line of map file `m`.
    fn file_line(&self, out: &mut String, m: usize) {
        let f = &self.map[m];
        out.push('\n');
        out.push_str(&self.files[f.at].path);
        if !f.role.is_empty() {
            let _ = write!(out, "  ({})", f.role);
        }
        out.push('\n');
    }

    /// The line of definition `j` of map file `m`, if it has one.
    fn def_line(&self, out: &mut String, m: usize, j: usize) {
        let Some(d) = self.defs[m].as_ref().and_then(|d| d.get(j)) else {
            return;
        };
        let _ = write!(out, "  {}-{} ", d.start, d.end);
        if let Some(p) = &d.parent {
            let _ = write!(out, "{p}: ");
        }
        if d.signature.is_empty() || !d.signature.contains(d.name.as_str()) {
            let _ = write!(out, "{} {}", d.kind, d.name);
            if !d.signature.is_empty() {
                let _ = write!(out, ": {}", d.signature);
            }
        } else {
            out.push_str(&d.signature);
        }
        out.push('\n');
    }

    /// The first `k` entries grouped by file, in map order: each file with its entries' `j`s.
    fn grouped(&self, k: usize) -> Vec<(usize, Vec<usize>)> {
        let mut shown: Vec<Entry> = self.entries[..k].to_vec();
        shown.sort_by_key(|e| (e.m, e.j));
        let mut out: Vec<(usize, Vec<usize>)> = Vec::new();
        for e in shown {
            match out.last_mut() {
                Some((m, js)) if *m == e.m => js.push(e.j),
                _ => out.push((e.m, vec![e.j])),
            }
        }
        out
    }

    /// The map's files shown by the first `k` entries, for the facts.
    pub(super) fn shown(&self, k: usize) -> Vec<MapFile> {
        self.grouped(k)
            .into_iter()
            .map(|(m, js)| {
                let defs = self.defs[m].as_ref().map_or(&[][..], |d| d.as_slice());
                MapFile {
                    path: self.files[self.map[m].at].path.clone(),
                    score: self.map[m].score,
                    role: self.map[m].role.clone(),
                    definitions: js.iter().filter_map(|&j| defs.get(j).cloned()).collect(),
                }
            })
            .collect()
    }
}

impl Paged for Render<'_> {
    type Next = Option<usize>;

    fn items(&self) -> usize {
        self.entries.len()
    }

    fn cost(&self, i: usize) -> (usize, usize) {
        let Entry { m, j } = self.entries[i];
        let mut one = String::new();
        if j == 0 {
            self.file_line(&mut one, m);
        }
        self.def_line(&mut one, m, j);
        ((self.count)(&one), one.len())
    }

    fn render(&self, k: usize) -> String {
        let mut out = self.head();
        for (m, js) in self.grouped(k) {
            self.file_line(&mut out, m);
            for j in js {
                self.def_line(&mut out, m, j);
            }
        }
        if let Some(next) = self.next(k) {
            let why = paging::why(true, &self.limits, String::new);
            let shown = match k {
                0 => "no map entry shown".to_string(),
                _ => format!(
                    "showing map entries {}-{}",
                    self.offset + 1,
                    self.offset + k
                ),
            };
            paging::continuation(&mut out, &shown, &why, "offset", next);
        }
        out
    }

    fn next(&self, k: usize) -> Option<usize> {
        (k < self.entries.len() || !self.complete).then_some(self.offset + k)
    }

    /// Without one entry shown the continuation would be this very call again.
    fn needs_one(&self) -> Option<One> {
        Some(One {
            what: "the map's first entry: it, with the header, would",
            advice: "",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_short() {
        assert_eq!(size(17_200_000), "17.2 MB");
        assert_eq!(size(940_123), "940 KB");
    }
}
