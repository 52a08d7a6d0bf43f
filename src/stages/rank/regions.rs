//! Explaining a hit: the runs of lines of a file that match a query best, what a reader should
//! look at first.

use super::Query;
use super::fields::defined_symbols;
use super::terms::for_each_term;
use aho_corasick::AhoCorasick;
use rustc_hash::{FxHashMap, FxHashSet};

/// A run of lines of a file that matches a query well: what a reader should look at first.
#[derive(Clone, Debug, PartialEq)]
pub struct Region {
    /// First and last line, 1-based, inclusive.
    pub start: u32,
    /// The last line, inclusive.
    pub end: u32,
    /// How well it matches the query (higher is better).
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
    Regions::new(query).find(text, idf, max, stop)
}

/// [`regions`] for one query over many texts: what the query needs is made once (its terms by
/// position, its names, the line prefilter's automaton), then each text costs one pass.
pub struct Regions<'q> {
    query: &'q Query,
    wanted: FxHashMap<&'q str, usize>,
    named: FxHashSet<&'q str>,
    /// `None`: every line is split (the same answer, only slower).
    prefilter: Option<Prefilter>,
}

impl<'q> Regions<'q> {
    /// The finder of `query`'s regions.
    pub fn new(query: &'q Query) -> Regions<'q> {
        Regions {
            query,
            wanted: query.positions(),
            named: query.name_set(),
            prefilter: Some(Prefilter::new(query)),
        }
    }

    /// [`regions`] of `text`.
    pub fn find(
        &self,
        text: &str,
        idf: &[f64],
        max: usize,
        stop: &dyn Fn() -> bool,
    ) -> Option<Vec<Region>> {
        let (query, wanted, named) = (self.query, &self.wanted, &self.named);
        let weight = |k: usize| idf.get(k).copied().unwrap_or(1.0).max(0.1);
        // Where each line ends (the text split at `\n`).
        let ends: Vec<usize> = memchr::memchr_iter(b'\n', text.as_bytes())
            .chain(std::iter::once(text.len()))
            .collect();
        // A text that ends with `\n` has no line after it: a region's context stops at its last.
        let lines = ends.len() - usize::from(text.ends_with('\n'));
        let line_text = |li: usize| {
            let start = if li == 0 { 0 } else { ends[li - 1] + 1 };
            &text[start..ends[li]]
        };
        // The lines that may score: those the prefilter lets through, or all.
        let candidates: Vec<usize> = match self.prefilter.as_ref().map(|p| p.lines(text)) {
            Some(Some(may)) => (0..lines).filter(|&li| may[li]).collect(),
            _ => (0..lines).collect(),
        };
        // Per line: its score, and its distinct terms (as a range of `hits`); lines that score
        // nothing keep 0 and an empty range.
        let mut line_score: Vec<f64> = vec![0.0; lines];
        let mut line_hits: Vec<(usize, usize)> = vec![(0, 0); lines];
        let mut scored: Vec<usize> = Vec::new();
        let mut hits: Vec<usize> = Vec::new();
        let mut seen_on: Vec<usize> = vec![usize::MAX; query.terms.len()];
        let mut norm = Vec::new();
        for (n, &li) in candidates.iter().enumerate() {
            if n % 4096 == 0 && stop() {
                return None;
            }
            let line = line_text(li);
            let from = hits.len();
            let mut score = 0.0;
            let mut names_here = false;
            let mut term = |t: &str| {
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
            };
            // A term comes from one word: in an ASCII line only the words the prefilter lets
            // through are split, in the line's order (the same terms met in the same order).
            match self.prefilter.as_ref().filter(|_| line.is_ascii()) {
                Some(p) => {
                    for word in line
                        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .filter(|w| p.word_may(w, &mut norm))
                    {
                        for_each_term(word, &mut term);
                    }
                }
                None => for_each_term(line, term),
            }
            if names_here {
                score += 2.0;
                if defined_symbols(line).any(|s| named.contains(s.as_str())) {
                    score += 4.0;
                }
            }
            line_score[li] = score;
            line_hits[li] = (from, hits.len());
            if score > 0.0 {
                scored.push(li);
            }
        }
        let w = REGION_LINES.min(lines.max(1));
        // Slide the window: counts of each term inside, the weight of the distinct ones, and the
        // sum of the line scores. A line that scores nothing changes none of them, so the slide
        // visits only the window ends where a scored line enters or leaves or is inside: the same
        // sums, in the same order, as a slide over every line, for the cost of the scored lines.
        let mut stops: Vec<usize> = Vec::new();
        for &l in &scored {
            let from = stops.last().map_or(l, |&last| l.max(last + 1));
            stops.extend(from..=(l + w).min(lines - 1));
        }
        let mut count = vec![0usize; query.terms.len()];
        let mut distinct = 0.0;
        let mut sum = 0.0;
        let mut windows: Vec<(f64, usize)> = Vec::new();
        for end in stops {
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

    /// Whether the ASCII word `word` may hold a term or name: its normal form (in `norm`, a
    /// buffer) holds a term's or name's prefix. Always, without anchors.
    fn word_may(&self, word: &str, norm: &mut Vec<u8>) -> bool {
        if word.is_empty() {
            return false;
        }
        let Some(ac) = &self.anchors else {
            return true;
        };
        norm.clear();
        norm.extend(
            word.bytes()
                .filter(|b| *b != b'_')
                .map(|b| b.to_ascii_lowercase()),
        );
        ac.is_match(norm.as_slice())
    }

    /// Per line of `text` (split at `\n`), whether it may hold a term or name; `None` when
    /// any line may. The whole text is put in normal form once and searched in one pass of
    /// the automaton, from each line that matches straight to the next line, so the cost is
    /// one pass over the text, not one search per line.
    fn lines(&self, text: &str) -> Option<Vec<bool>> {
        let ac = self.anchors.as_ref()?;
        // `_` dropped and ASCII lowercased: a line break stays where it was, so the lines of
        // the normal form are the text's lines, in order.
        let bytes = text.as_bytes();
        let mut norm: Vec<u8> = Vec::with_capacity(text.len());
        let mut from = 0;
        for at in memchr::memchr_iter(b'_', bytes) {
            norm.extend_from_slice(&bytes[from..at]);
            from = at + 1;
        }
        norm.extend_from_slice(&bytes[from..]);
        norm.make_ascii_lowercase();
        let ends: Vec<usize> = memchr::memchr_iter(b'\n', &norm)
            .chain(std::iter::once(norm.len()))
            .collect();
        // A line with a character outside ASCII is always split.
        let mut may: Vec<bool> = vec![false; ends.len()];
        if !norm.is_ascii() {
            let mut start = 0;
            for (may, &end) in may.iter_mut().zip(&ends) {
                *may = !norm[start..end].is_ascii();
                start = end + 1;
            }
        }
        let mut line = 0;
        let mut at = 0;
        while at < norm.len() {
            let Some(m) = ac.find(aho_corasick::Input::new(&norm).span(at..norm.len())) else {
                break;
            };
            while ends[line] < m.start() {
                line += 1;
            }
            may[line] = true;
            at = ends[line] + 1;
        }
        Some(may)
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
        let repeated = text.repeat(7);
        // With and without a last line break, and a text of one line.
        let last_line = format!("{}\nparse_header(ELAN_VITAL)", text.trim_end());
        for text in [repeated.as_str(), repeated.trim_end(), &last_line, "io", ""] {
            one_text(text);
        }
    }

    fn one_text(text: &str) {
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
            let with = Regions::new(&query).find(text, &idf, 3, &|| false);
            let unfiltered = Regions {
                prefilter: None,
                ..Regions::new(&query)
            };
            let without = unfiltered.find(text, &idf, 3, &|| false);
            assert_eq!(with, without, "{q}");
        }
    }

    /// A short region's context stops at the text's last line, whether or not a line break
    /// ends it: a region is a range `read` can take as it is.
    #[test]
    fn a_region_ends_at_the_last_line() {
        let query = Query::parse("needle").unwrap();
        for (text, lines) in [
            ("a\nb\nc\nneedle\n", 4),
            ("a\nb\nc\nneedle", 4),
            ("needle\n", 1),
            ("x\n\nneedle\n\n", 4),
        ] {
            let found = regions(text, &query, &[1.0], 3, &|| false).unwrap();
            assert_eq!(found.len(), 1, "{text:?}");
            assert_eq!(found[0].end, lines, "{text:?}");
        }
    }
}
