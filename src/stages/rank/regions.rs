//! Explaining a hit: the runs of lines of a file that match a query best, what a reader should
//! look at first.

use super::Query;
use super::score::defined_symbols;
use super::terms::for_each_term;
use aho_corasick::AhoCorasick;
use rustc_hash::{FxHashMap, FxHashSet};

/// A run of lines of a file that matches a query well: what a reader should look at first.
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    /// First and last line, 1-based, inclusive.
    pub start: u32,
    pub end: u32,
    pub score: f64,
    /// The query terms found in it (indices into [`Query::terms`]), in query order.
    pub terms: Vec<usize>,
}

/// The most lines a region found by [`regions`] spans.
pub const REGION_LINES: usize = 12;

/// The best non-overlapping regions of `text` for `query`, at most `max`, best first; `idf`
/// weighs each term (from [`super::rank_weighted`]). A window of [`REGION_LINES`] lines scores the
/// weights of the distinct terms it holds, plus a quarter of its lines' own scores (each line:
/// the weights of its distinct terms, more where it holds a word the query names as written,
/// and more again where it defines it); it is then trimmed to its first and last matching line
/// (with two lines of context on each side when that leaves fewer than five).
/// Regions under a third of the best one's score are left out. Linear in `text`'s length (a
/// sort of the windows aside); `None` when `stop` returned true (asked every 4096 lines).
pub fn regions(
    text: &str,
    query: &Query,
    idf: &[f64],
    max: usize,
    stop: &dyn Fn() -> bool,
) -> Option<Vec<Region>> {
    regions_with(text, query, idf, max, stop, true)
}

/// [`regions`], skipping the lines the [`Prefilter`] rules out when `filter` (the same answer
/// either way; only the time differs).
fn regions_with(
    text: &str,
    query: &Query,
    idf: &[f64],
    max: usize,
    stop: &dyn Fn() -> bool,
    filter: bool,
) -> Option<Vec<Region>> {
    let wanted: FxHashMap<&str, usize> = query
        .terms
        .iter()
        .enumerate()
        .map(|(k, t)| (t.as_str(), k))
        .collect();
    let named: FxHashSet<&str> = query.names.iter().map(String::as_str).collect();
    let weight = |k: usize| idf.get(k).copied().unwrap_or(1.0).max(0.1);
    // Per line: its score, and its distinct terms (as a range of `hits`).
    let mut line_score: Vec<f64> = Vec::new();
    let mut line_hits: Vec<(usize, usize)> = Vec::new();
    let mut hits: Vec<usize> = Vec::new();
    let mut seen_on: Vec<usize> = vec![usize::MAX; query.terms.len()];
    let prefilter = Prefilter::new(query);
    let mut norm: Vec<u8> = Vec::new();
    for (li, line) in text.split('\n').enumerate() {
        if li % 4096 == 0 && stop() {
            return None;
        }
        let from = hits.len();
        if filter && !prefilter.may_match(line, &mut norm) {
            line_score.push(0.0);
            line_hits.push((from, from));
            continue;
        }
        let mut score = 0.0;
        let mut names_here = false;
        for_each_term(line, |t| {
            if let Some(&k) = wanted.get(t)
                && seen_on[k] != li
            {
                seen_on[k] = li;
                hits.push(k);
                score += weight(k);
            }
            if named.contains(t) {
                names_here = true;
            }
        });
        if names_here {
            score += 2.0;
            if defined_symbols(line).any(|s| named.contains(s.as_str())) {
                score += 4.0;
            }
        }
        line_score.push(score);
        line_hits.push((from, hits.len()));
    }
    let lines = line_score.len();
    let w = REGION_LINES.min(lines.max(1));
    // Slide the window: counts of each term inside, the weight of the distinct ones, and the
    // sum of the line scores.
    let mut count = vec![0usize; query.terms.len()];
    let mut distinct = 0.0;
    let mut sum = 0.0;
    let mut windows: Vec<(f64, usize)> = Vec::new();
    for end in 0..lines {
        let (a, b) = line_hits[end];
        for &k in &hits[a..b] {
            if count[k] == 0 {
                distinct += weight(k);
            }
            count[k] += 1;
        }
        sum += line_score[end];
        if end >= w {
            let out = end - w;
            let (a, b) = line_hits[out];
            for &k in &hits[a..b] {
                count[k] -= 1;
                if count[k] == 0 {
                    distinct -= weight(k);
                }
            }
            sum -= line_score[out];
        }
        if end + 1 >= w {
            let score = distinct + sum / 4.0;
            if score > 1e-9 {
                windows.push((score, end + 1 - w));
            }
        }
    }
    windows.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let best = windows.first().map_or(0.0, |w| w.0);
    let mut out: Vec<Region> = Vec::new();
    for (score, start) in windows {
        if out.len() >= max || score < best / 3.0 {
            break;
        }
        // Trim to the matching lines.
        let Some(first) = (start..start + w).find(|&l| line_score[l] > 0.0) else {
            continue;
        };
        let last = (start..start + w)
            .rev()
            .find(|&l| line_score[l] > 0.0)
            .unwrap_or(first);
        // A short region gets two lines of context on each side.
        let (first, last) = if last - first + 1 < 5 {
            (first.saturating_sub(2), (last + 2).min(lines - 1))
        } else {
            (first, last)
        };
        let (s, e) = (first as u32 + 1, last as u32 + 1);
        if out.iter().any(|r| s <= r.end && r.start <= e) {
            continue;
        }
        let mut terms: Vec<usize> = (first..=last)
            .flat_map(|l| hits[line_hits[l].0..line_hits[l].1].iter().copied())
            .collect();
        terms.sort_unstable();
        terms.dedup();
        out.push(Region {
            start: s,
            end: e,
            score,
            terms,
        });
    }
    Some(out)
}

/// Which lines cannot hold a query term or name, without splitting them into terms. Every term
/// the split gives of an ASCII line (a word, a part of an identifier, or a whole identifier
/// without its `_`, lowercased, and stemmed: a stem is its word cut short, but for a last `i`
/// that stands for `y` or `ies`) shares all but its last character with the line lowercased and
/// without `_` (`entri` from `Entries`: `entr`; `parsehead` from `parse_header`: `parsehea`). So an ASCII line whose normal form holds no term's or name's
/// prefix (all but its last character) holds no term or name: it scores nothing, exactly as
/// if it were split. Other lines are always split.
struct Prefilter {
    anchors: Option<AhoCorasick>,
}

impl Prefilter {
    fn new(query: &Query) -> Prefilter {
        let anchors: Vec<&[u8]> = query
            .terms
            .iter()
            .chain(query.names.iter())
            .map(|t| &t.as_bytes()[..t.len().saturating_sub(1)])
            .collect();
        // An empty anchor would match every line: no filter then.
        let anchors = if anchors.is_empty() || anchors.iter().any(|a| a.is_empty()) {
            None
        } else {
            AhoCorasick::new(anchors).ok()
        };
        Prefilter { anchors }
    }

    /// Whether `line` may hold a term or name (`norm` is a buffer to reuse).
    fn may_match(&self, line: &str, norm: &mut Vec<u8>) -> bool {
        let Some(ac) = &self.anchors else {
            return true;
        };
        if !line.is_ascii() {
            return true;
        }
        norm.clear();
        norm.extend(
            line.bytes()
                .filter(|b| *b != b'_')
                .map(|b| b.to_ascii_lowercase()),
        );
        ac.is_match(norm.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefilter_changes_no_region() {
        let text = "\
fn parse_header(x_pos: u32) -> Entries {
    // nothing here
    let JsonArray = Entries::new();
    let entries = parseHeader(x_pos);
    xpos + élan_vital + ÉLAN
}
struct HTTPServerError;
let a = 1;
let b = 2;
let json_array = JSON_ARRAY;
ioctl(io);
";
        let text = text.repeat(7);
        for q in [
            "parse header",
            "parseheader",
            "xpos",
            "entries",
            "JSON array",
            "élan vital",
            "http server error",
            "io",
            "nothing matches zzz",
        ] {
            let query = Query::parse(q).unwrap();
            let idf = vec![1.0; query.terms.len()];
            let with = regions_with(&text, &query, &idf, 3, &|| false, true);
            let without = regions_with(&text, &query, &idf, 3, &|| false, false);
            assert_eq!(with, without, "{q}");
        }
    }
}
