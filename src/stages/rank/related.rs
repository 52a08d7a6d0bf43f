//! The term-relatedness table: for a term, the terms source code uses near it, learned from
//! packages of crates.io, PyPI and npm (none of them a package the ranking is evaluated on) by
//! `scripts/terms/build.sh`. A query's own terms bring their related terms at a small weight
//! ([`super::RELATED_WEIGHT`]), so that a question in one vocabulary finds code written in
//! another without a downloaded model.
//!
//! The table is `related.txt`, compiled into the binary: one line a term, sorted by its bytes,
//! `TERM<TAB>RELATED:STRENGTH RELATED:STRENGTH ...`, the related terms best first, each
//! strength the pair's normalized pointwise mutual information in tenths (1 to 10). A lookup
//! bisects the text itself: no table is built at start, and each lookup costs a few dozen
//! line comparisons.

/// The table (see the module's doc).
static TABLE: &str = include_str!("related.txt");

/// The line of `term` in `table` without its key, or `None`. `table` must be sorted by line;
/// a line without a tab is never a match.
fn line_of<'t>(table: &'t str, term: &str) -> Option<&'t str> {
    let bytes = table.as_bytes();
    // Bisect on byte offsets; each probe is the line that holds the offset.
    let (mut lo, mut hi) = (0usize, bytes.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let start = memchr::memrchr(b'\n', &bytes[..mid]).map_or(0, |i| i + 1);
        let end = memchr::memchr(b'\n', &bytes[mid..]).map_or(bytes.len(), |i| mid + i);
        let line = &table[start..end];
        let (key, rest) = line.split_once('\t').unwrap_or((line, ""));
        match key.cmp(term) {
            std::cmp::Ordering::Equal => return Some(rest),
            std::cmp::Ordering::Less => lo = end + 1,
            std::cmp::Ordering::Greater => hi = start,
        }
    }
    None
}

/// The terms related to `term` in the table, best first, each with its strength (0.1 to 1.0);
/// none for a term the table does not hold.
pub(super) fn related(term: &str) -> impl Iterator<Item = (&'static str, f64)> {
    entries(line_of(TABLE, term).unwrap_or(""))
}

/// The related terms `own` (a query's own terms) bring: for each, its [`PER_TERM`] strongest
/// of at least [`MIN_STRENGTH`], none already in `have`, each once (the strongest bringer's
/// strength), at most [`MAX_RELATED`] in all, in the order of the terms that bring them. Each
/// with its strength (0.1 to 1.0).
pub(super) fn expansions(own: &[String], have: &[String]) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::new();
    for t in own {
        for (r, s) in related(t)
            .filter(|(_, s)| *s >= MIN_STRENGTH)
            .take(PER_TERM)
        {
            if have.iter().any(|h| h == r) {
                continue;
            }
            if let Some(o) = out.iter_mut().find(|(o, _)| o == r) {
                o.1 = o.1.max(s);
            } else if out.len() < MAX_RELATED {
                out.push((r.to_string(), s));
            }
        }
    }
    out
}

/// Related terms one query term brings at most.
const PER_TERM: usize = 3;
/// The weakest relation that brings a term.
const MIN_STRENGTH: f64 = 0.3;
/// The most related terms one query brings.
const MAX_RELATED: usize = 16;

/// The `RELATED:STRENGTH` entries of one line's value; a malformed entry is skipped.
fn entries(value: &str) -> impl Iterator<Item = (&str, f64)> {
    value.split(' ').filter_map(|e| {
        let (t, s) = e.split_once(':')?;
        let s: u8 = s.parse().ok()?;
        (!t.is_empty()).then_some((t, f64::from(s.min(10)) / 10.0))
    })
}

/// The table's size in bytes (it is compiled into the binary).
#[cfg(test)]
pub(super) fn table_bytes() -> usize {
    TABLE.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_within_4_mb_sorted_and_well_formed() {
        assert!(table_bytes() <= 4 << 20, "{} bytes", table_bytes());
        assert!(TABLE.lines().count() > 1000, "the table is nearly empty");
        let mut prev = "";
        for line in TABLE.lines() {
            let (key, value) = line.split_once('\t').expect("a tab after the key");
            assert!(prev < key, "not sorted or repeated: {prev:?} then {key:?}");
            assert!(!key.is_empty() && !value.is_empty(), "{line:?}");
            let n = value.split(' ').count();
            assert_eq!(entries(value).count(), n, "a malformed entry in {line:?}");
            // Every key is found by the lookup, with its own line.
            assert_eq!(line_of(TABLE, key), Some(value));
            prev = key;
        }
    }

    #[test]
    fn lookup_finds_keys_at_either_end_and_misses_others() {
        let t = "alpha\tbeta:5\nbeta\talpha:5 gamma:3\ngamma\tbeta:3\n";
        assert_eq!(line_of(t, "alpha"), Some("beta:5"));
        assert_eq!(line_of(t, "beta"), Some("alpha:5 gamma:3"));
        assert_eq!(line_of(t, "gamma"), Some("beta:3"));
        for missing in ["", "a", "alph", "alphaz", "betaa", "zeta"] {
            assert_eq!(line_of(t, missing), None, "{missing}");
        }
        assert_eq!(line_of("", "alpha"), None);
        let got: Vec<_> = entries("alpha:5 bad gamma:x :3 delta:12").collect();
        assert_eq!(got, vec![("alpha", 0.5), ("delta", 1.0)]);
    }

    #[test]
    fn expansions_are_bounded_distinct_and_new() {
        let own: Vec<String> = ["socket", "thread"].iter().map(|s| s.to_string()).collect();
        let got = expansions(&own, &own);
        assert!(!got.is_empty() && got.len() <= 2 * PER_TERM, "{got:?}");
        for (i, (t, s)) in got.iter().enumerate() {
            assert!(!own.contains(t), "{t} is the query's own");
            assert!(*s >= MIN_STRENGTH && *s <= 1.0, "{t} {s}");
            assert!(got[..i].iter().all(|(o, _)| o != t), "{t} twice");
        }
        // A term already among the query's is not brought again.
        let first = got[0].0.clone();
        let mut have = own.clone();
        have.push(first.clone());
        assert!(expansions(&own, &have).iter().all(|(t, _)| *t != first));
        // However many terms, at most MAX_RELATED.
        let every: Vec<String> = TABLE
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .map(|(k, _)| k.to_string())
            .collect();
        assert!(expansions(&every, &[]).len() == MAX_RELATED);
    }

    #[test]
    fn code_words_relate_to_the_words_code_uses_near_them() {
        // Learned, not written in: a term of the corpus's vocabulary brings others.
        let near: Vec<&str> = related("socket").map(|(t, _)| t).collect();
        assert!(!near.is_empty(), "socket relates to nothing");
        assert!(related("zzzzqqqq").next().is_none());
    }
}
