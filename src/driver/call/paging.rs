//! Fitting an answer to its limits exactly: the most items (lines, matches, tree entries) whose
//! rendered answer, counted whole, stays within the token budget and the byte ceiling.
//!
//! Token counts are not additive in general, so the fit never trusts a sum: every candidate
//! answer is rendered and counted whole, and the one returned is the one that was measured. The
//! items' own counts (each counted alone) only guide the search: the first guess is the longest
//! prefix whose estimate fits; a guess over the budget steps back by its measured excess; a few
//! misses fall back to bisection; and a fitting guess grows by as many items as the room left
//! holds by their estimates, bisecting back from a growth that is over. A call typically
//! measures two or three answers, however many items the room left holds.
//!
//! Every navigation and git tool's answer is a [`Paged`]: its items, each one's cost, its text
//! showing the first `k` and the argument that continues it. The one step [`fit`] fits it and
//! refuses, the same way for every tool, an answer that cannot show what it must
//! ([`nothing_fits`]: kind `BudgetTooSmall`, naming the limit that stopped it).
//!
//! What the fit gives every answer is its [`Page`]: the text, its exact count, the encoding and
//! the budget. Each answer says its facts to programs as `serde` serializes them (the MCP tools'
//! structured copies): the page's counted fields first, and [`continued`] says how a cut answer
//! continues, the same way for every tool.

use crate::error::Error;
use crate::stages::count;
use crate::vocab::Encoding;
use serde::ser::{Serialize, SerializeMap, Serializer};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What an answer must fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most tokens (`None`: no budget).
    pub budget: Option<usize>,
    /// Most bytes.
    pub max_bytes: usize,
}

impl Limits {
    /// What a cut answer was fitted to, as its continuation line says it: the budget, and the
    /// size limit when there is one.
    pub fn describe(&self) -> String {
        match (self.budget, self.max_bytes) {
            (Some(b), usize::MAX) => format!("the budget of {b} tokens"),
            (Some(b), m) => format!("the budget of {b} tokens and the size limit ({m} bytes)"),
            (None, m) => format!("the size limit ({m} bytes)"),
        }
    }
}

/// Why an answer stops where it does: cut to fit `limits`, or else the count the call set
/// (`reached`, e.g. "max_count (20) reached").
pub fn why(cut: bool, limits: &Limits, reached: impl FnOnce() -> String) -> String {
    if cut {
        format!("cut to fit {}", limits.describe())
    } else {
        reached()
    }
}

/// `showing matches 11-20 of 45`, or `no match shown of 45`: which of `total` items an answer
/// showing `k` after the first `before` holds (`nouns`: the plural and the singular).
pub fn shown(nouns: (&str, &str), before: usize, k: usize, total: usize) -> String {
    match k {
        0 => format!("no {} shown of {total}", nouns.1),
        _ => format!(
            "showing {} {}-{} of {total}",
            nouns.0,
            before + 1,
            before + k
        ),
    }
}

/// The line that ends an answer with more to show: what it shows, why it stops there, and the
/// argument that continues it (`name`: `value`), as the model passes it back.
pub fn continuation(out: &mut String, shown: &str, why: &str, name: &str, value: impl Serialize) {
    let args = serde_json::json!({ name: value });
    let _ = write!(
        out,
        "\n--- {shown}, {why}. Continue with the same arguments and: {args}\n"
    );
}

/// How an answer's facts say where it continues: `complete`, and under `name` the argument that
/// continues it as given back (its empty value when the answer is complete). For a field
/// flattened into the facts with `serialize_with`.
pub fn continued<T, S>(
    s: S,
    name: &'static str,
    complete: bool,
    next: &T,
) -> Result<S::Ok, S::Error>
where
    T: Serialize + ?Sized,
    S: Serializer,
{
    let mut map = s.serialize_map(Some(2))?;
    map.serialize_entry("complete", &complete)?;
    map.serialize_entry(name, next)?;
    map.end()
}

/// [`continued`] for a count that continues the answer (`None` when it is complete, then 0).
fn continued_at<S: Serializer>(
    s: S,
    name: &'static str,
    next: &Option<usize>,
) -> Result<S::Ok, S::Error> {
    continued(s, name, next.is_none(), &next.unwrap_or_default())
}

/// [`continued`] as `offset` (`search`, `overview`), for the facts' field
/// `#[serde(flatten, serialize_with = "paging::offset")]`.
pub fn offset<S: Serializer>(next: &Option<usize>, s: S) -> Result<S::Ok, S::Error> {
    continued_at(s, "offset", next)
}

/// [`continued`] as `next_offset` (`hotspots`).
pub fn next_offset<S: Serializer>(next: &Option<usize>, s: S) -> Result<S::Ok, S::Error> {
    continued_at(s, "next_offset", next)
}

/// [`continued`] as `next_skip` (`log`).
pub fn next_skip<S: Serializer>(next: &Option<usize>, s: S) -> Result<S::Ok, S::Error> {
    continued_at(s, "next_skip", next)
}

/// `value`, or the empty value of its type when there is none (`""`, `0`), for facts that are
/// never `null`.
pub fn or_default<T, S>(value: &Option<T>, s: S) -> Result<S::Ok, S::Error>
where
    T: Serialize + Default,
    S: Serializer,
{
    match value {
        Some(v) => v.serialize(s),
        None => T::default().serialize(s),
    }
}

/// `3 binary, 1 too large`: a tally of what was left out, for a summary line (empty when
/// nothing was).
pub fn tally(left_out: &BTreeMap<&'static str, usize>) -> String {
    let parts: Vec<String> = left_out.iter().map(|(k, n)| format!("{n} {k}")).collect();
    parts.join(", ")
}

/// Tokens (by `count`) and bytes of what `write` writes alone: [`Paged::cost`] for an answer
/// that measures each item by rendering it on its own.
pub fn alone(count: &dyn Fn(&str) -> usize, write: impl FnOnce(&mut String)) -> (usize, usize) {
    let mut one = String::new();
    write(&mut one);
    (count(&one), one.len())
}

/// The exact counter of an answer's tokens in `encoding`, or one that counts nothing when the
/// call neither asked for counts nor set a budget (`counting` false).
pub fn counter(encoding: Encoding, counting: bool) -> impl Fn(&str) -> usize {
    move |s: &str| {
        if counting {
            count::count(encoding, s)
        } else {
            0
        }
    }
}

/// The chosen answer: the first `k` items, its text and its exact token count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fitted {
    pub k: usize,
    pub text: String,
    pub tokens: usize,
}

impl Fitted {
    /// Its page, counted in `encoding` and fitted to `budget`.
    pub fn page(self, encoding: Encoding, budget: Option<usize>) -> Page {
        Page {
            text: self.text,
            tokens: self.tokens,
            encoding,
            budget,
        }
    }
}

/// What every navigation answer holds: its text, fitted, with the text's exact token count, the
/// encoding it was counted in, and the budget it was fitted to. Serialized, the counted fields
/// (`answer_tokens`, `encoding`, `budget`, 0 for none); the text goes to the model as it is.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Page {
    /// The text for the model.
    #[serde(skip)]
    pub text: String,
    /// Its exact token count.
    #[serde(rename = "answer_tokens")]
    pub tokens: usize,
    /// The encoding the tokens were counted in.
    #[serde(serialize_with = "encoding_name")]
    pub encoding: Encoding,
    /// The token budget the text was fitted to; `None` for none.
    #[serde(serialize_with = "or_default")]
    pub budget: Option<usize>,
}

fn encoding_name<S: Serializer>(encoding: &Encoding, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(encoding.name())
}

/// A measured candidate.
enum Trial {
    Fits(String, usize),
    /// Over by this many tokens and bytes.
    Over(usize, usize),
}

/// An answer made of items (lines, matches, hunks, commits, tree entries), as the fit sees it:
/// how many items it has, a guide to what each costs, the whole answer showing the first `k`,
/// and the argument that continues it. Every navigation and git tool's answer is one, fitted by
/// the one step [`fit`].
pub trait Paged {
    /// What continues the answer after its first `k` items: the argument a cut answer gives
    /// back (`after`, `offset`, `skip`, `paths`, ...), empty or `None` when it is complete.
    type Next;
    /// Items the answer could show, in the order it shows them.
    fn items(&self) -> usize;
    /// Tokens and bytes of item `i` alone: a guide for the search, never trusted as a sum.
    fn cost(&self, i: usize) -> (usize, usize);
    /// The whole answer showing the first `k` items, its continuation line included.
    fn render(&self, k: usize) -> String;
    /// What continues the answer showing `k` items: the one place both its text's continuation
    /// line and its facts' copy of it come from.
    fn next(&self, k: usize) -> Self::Next;
    /// Whether an answer showing none of its items (when it has some) is refused, because its
    /// continuation would be this very call again: `Some` says how the error names the answer
    /// showing one. `None` (the default): a summary showing none is an answer.
    fn needs_one(&self) -> Option<One> {
        None
    }
    /// The answer when not even the first item fits whole, for an answer that [`Paged::needs_one`]
    /// and can show part of one (`read`: its first line, cut). `None` (the default): it cannot.
    fn part_of_first(
        &self,
        _limits: Limits,
        _count: &dyn Fn(&str) -> usize,
    ) -> Option<Result<Fitted, Error>> {
        None
    }
}

/// How a "too small" error names the answer showing one item: `what` (e.g. "one match: the
/// first, with its context and the summary, would") and the `advice` after raising the limit
/// (", or lower context").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct One {
    pub what: &'static str,
    pub advice: &'static str,
}

/// Fit `answer` to `limits`: the most items whose rendered answer, counted whole by `count`,
/// stays within them; the text returned is the one measured. Refused with the one "too small"
/// error ([`nothing_fits`], kind `BudgetTooSmall`) when not even the answer with no items fits,
/// or when one that [`Paged::needs_one`] cannot show its first item, measured whole (and cannot
/// show [`Paged::part_of_first`]).
pub fn fit<P: Paged + ?Sized>(
    answer: &P,
    limits: Limits,
    count: &dyn Fn(&str) -> usize,
) -> Result<Fitted, Error> {
    let n = answer.items();
    let fitted = most(n, limits, count, &|i| answer.cost(i), &|k| answer.render(k))?;
    let Some(one) = answer.needs_one().filter(|_| fitted.k == 0 && n > 0) else {
        return Ok(fitted);
    };
    // The search stops on the first item's own estimate: before a part of it or a refusal,
    // the answer showing it whole is measured.
    let first = answer.render(1);
    let tokens = count(&first);
    if first.len() <= limits.max_bytes && limits.budget.is_none_or(|b| tokens <= b) {
        return Ok(Fitted {
            k: 1,
            text: first,
            tokens,
        });
    }
    match answer.part_of_first(limits, count) {
        Some(part) => part,
        None => Err(nothing_fits(
            limits,
            tokens,
            first.len(),
            one.what,
            one.advice,
        )),
    }
}

/// Choose the most items of `n` that fit `limits`. `render(k)` is the whole answer showing the
/// first `k` items (its continuation included); `cost(i)` estimates item `i`'s tokens and
/// bytes; `count` counts exactly. `Err` when not even `render(0)` fits, naming what it needs.
fn most(
    n: usize,
    limits: Limits,
    count: &dyn Fn(&str) -> usize,
    cost: &dyn Fn(usize) -> (usize, usize),
    render: &dyn Fn(usize) -> String,
) -> Result<Fitted, Error> {
    let trial = |k: usize| -> Trial {
        let text = render(k);
        let byte_over = text.len().saturating_sub(limits.max_bytes);
        match limits.budget {
            Some(b) => {
                let tokens = count(&text);
                if tokens <= b && byte_over == 0 {
                    Trial::Fits(text, tokens)
                } else {
                    Trial::Over(tokens.saturating_sub(b), byte_over)
                }
            }
            // Without a budget only the bytes decide; the count is taken once, at the end.
            None if byte_over == 0 => Trial::Fits(text, 0),
            None => Trial::Over(0, byte_over),
        }
    };
    if limits.budget.is_none()
        && let Trial::Fits(text, _) = trial(n)
    {
        // No budget and everything within the bytes: the whole answer, counted once.
        let tokens = count(&text);
        return Ok(Fitted { k: n, text, tokens });
    }
    let base = match trial(0) {
        Trial::Fits(text, tokens) => (text, tokens),
        Trial::Over(..) => {
            let none = render(0);
            return Err(too_small(limits, count(&none), none.len()));
        }
    };
    // Cumulative estimates: est[k] = (tokens, bytes) of the answer with k items.
    let mut est: Vec<(usize, usize)> = vec![(base.1, base.0.len())];
    let budget = limits.budget.unwrap_or(usize::MAX);
    let slack_t = budget.saturating_add(budget / 8 + 64);
    let slack_b = limits.max_bytes.saturating_add(limits.max_bytes / 8 + 256);
    let fits_est = |e: (usize, usize)| e.0 <= budget && e.1 <= limits.max_bytes;
    let extend = |est: &mut Vec<(usize, usize)>, upto: usize| {
        while est.len() <= upto.min(n) {
            let i = est.len() - 1;
            let (t, b) = cost(i);
            let last = est[i];
            est.push((last.0.saturating_add(t), last.1.saturating_add(b)));
        }
    };
    // The first guess: the longest prefix whose estimate fits.
    loop {
        let last = *est.last().unwrap_or(&(0, 0));
        if est.len() > n || last.0 > slack_t || last.1 > slack_b {
            break;
        }
        let upto = est.len();
        extend(&mut est, upto);
    }
    let mut k = (0..est.len())
        .rev()
        .find(|&k| fits_est(est[k]))
        .unwrap_or(0);
    let mut best: Option<(usize, String, usize)> = None;
    let mut failed_at: Option<usize> = None;
    for _ in 0..6 {
        match trial(k) {
            Trial::Fits(text, tokens) => {
                best = Some((k, text, tokens));
                break;
            }
            Trial::Over(t_over, b_over) => {
                failed_at = Some(k);
                if k == 0 {
                    break;
                }
                let want = (
                    est[k].0.saturating_sub(t_over),
                    est[k].1.saturating_sub(b_over),
                );
                let mut back = k - 1;
                while back > 0 && (est[back].0 > want.0 || est[back].1 > want.1) {
                    back -= 1;
                }
                k = back;
            }
        }
    }
    let (mut k, mut text, mut tokens) = match best {
        Some(b) => b,
        None => {
            // Bisect between 0 (fits) and the smallest prefix known not to.
            let (mut lo, mut hi) = (0, failed_at.unwrap_or(k).max(1));
            let (mut text, mut tokens) = base.clone();
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                match trial(mid) {
                    Trial::Fits(t, c) => {
                        (lo, text, tokens) = (mid, t, c);
                    }
                    Trial::Over(..) => hi = mid,
                }
            }
            (lo, text, tokens)
        }
    };
    // Grow while what is left holds more items by their estimates: by as many as it holds at
    // once (a sum of estimates is usually a little over the count, so a guess that fits leaves
    // less room each time), and back by bisection from a guess that is over.
    while k < n && failed_at != Some(k + 1) {
        let left_t = budget.saturating_sub(tokens);
        let left_b = limits.max_bytes.saturating_sub(text.len());
        let mut j = k;
        loop {
            extend(&mut est, j + 1);
            if j >= n || failed_at == Some(j + 1) {
                break;
            }
            let step = (est[j + 1].0 - est[k].0, est[j + 1].1 - est[k].1);
            if limits.budget.is_some() && step.0 > left_t || step.1 > left_b {
                break;
            }
            j += 1;
        }
        if j == k {
            break;
        }
        match trial(j) {
            Trial::Fits(t, c) => (k, text, tokens) = (j, t, c),
            Trial::Over(..) => {
                let (mut lo, mut hi) = (k, j);
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    match trial(mid) {
                        Trial::Fits(t, c) => (lo, text, tokens) = (mid, t, c),
                        Trial::Over(..) => hi = mid,
                    }
                }
                k = lo;
                break;
            }
        }
    }
    if limits.budget.is_none() {
        tokens = count(&text);
    }
    Ok(Fitted { k, text, tokens })
}

/// Not even the answer with no items fits: [`nothing_fits`] for its header and continuation.
pub fn too_small(limits: Limits, tokens: usize, bytes: usize) -> Error {
    nothing_fits(
        limits,
        tokens,
        bytes,
        "this answer: its header and continuation alone",
        "",
    )
}

/// The answer that must show at least one item (else its continuation would be the same call
/// again) cannot: `what` (e.g. "one match: the first, with its context and the summary,")
/// takes `tokens` tokens and `bytes` bytes. The error names the limit that stopped it, the
/// token budget or the answer's size limit (the call's `max_chars`, or the server's), and how
/// to raise that one, then `advice` (", or lower context"). One kind for every tool:
/// [`Error::TooSmall`].
pub fn nothing_fits(
    limits: Limits,
    tokens: usize,
    bytes: usize,
    what: &str,
    advice: &str,
) -> Error {
    let message = match limits.budget {
        Some(b) if tokens > b => format!(
            "a budget of {b} tokens is too small for {what} take {tokens} tokens; raise budget \
             (0 means no budget){advice}"
        ),
        _ => format!(
            "the answer's size limit of {} bytes is too small for {what} take {bytes} bytes; \
             raise max_chars (0 means the server's limit){advice}",
            limits.max_bytes
        ),
    };
    Error::TooSmall { message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::ErrorKind;

    /// A made-up tokenizer: one token per word, plus a junction effect (two adjacent `x` words
    /// count as one) so sums are wrong the way real counts are.
    fn count(s: &str) -> usize {
        let words: Vec<&str> = s.split_whitespace().collect();
        let merged = words
            .windows(2)
            .filter(|w| w[0] == "x" && w[1] == "x")
            .count();
        words.len() - merged
    }

    /// A synthetic answer: a head, the first `k` words, and a tail naming where it continues.
    struct Words {
        words: Vec<String>,
        needs_one: bool,
        /// Added to every item's estimate, as a junction or a header can make it wrong.
        overstated: usize,
    }

    impl Paged for Words {
        type Next = Option<usize>;

        fn items(&self) -> usize {
            self.words.len()
        }

        fn cost(&self, i: usize) -> (usize, usize) {
            (
                count(&self.words[i]) + self.overstated,
                self.words[i].len() + 1,
            )
        }

        fn render(&self, k: usize) -> String {
            let mut out = format!("head {}", self.words[..k].join(" "));
            if let Some(next) = self.next(k) {
                out.push_str(&format!(" tail {next}"));
            }
            out
        }

        fn next(&self, k: usize) -> Option<usize> {
            (k < self.words.len()).then_some(k)
        }

        fn needs_one(&self) -> Option<One> {
            self.needs_one.then_some(One {
                what: "one word: the first, with the head, would",
                advice: ", or ask for fewer words",
            })
        }
    }

    fn words(needs_one: bool) -> Words {
        let words = (0..500)
            .map(|i| match i % 7 {
                0 | 1 => "x".to_string(),
                2 => format!("w{i} v u"),
                _ => format!("w{i} v"),
            })
            .collect();
        Words {
            words,
            needs_one,
            overstated: 0,
        }
    }

    fn limits(budget: Option<usize>, max_bytes: usize) -> Limits {
        Limits { budget, max_bytes }
    }

    /// The most items whose answer fits, found by measuring every prefix.
    fn most_by_hand(w: &Words, l: Limits) -> usize {
        let fits = |t: &str| t.len() <= l.max_bytes && l.budget.is_none_or(|b| count(t) <= b);
        (0..=w.items()).rev().find(|&k| fits(&w.render(k))).unwrap()
    }

    /// `f` is the measured text within `l`, and shows the most items that fit, or one fewer
    /// only when the next item's own estimate was over what is left (a junction can make an
    /// item cost less in the answer than alone: the fit stops on the estimate, unmeasured).
    fn check(w: &Words, l: Limits) -> Fitted {
        let f = fit(w, l, &count).unwrap();
        assert_eq!(f.text, w.render(f.k));
        assert_eq!(f.tokens, count(&f.text));
        assert!(f.text.len() <= l.max_bytes && l.budget.is_none_or(|b| f.tokens <= b));
        let most = most_by_hand(w, l);
        let over = || {
            let (t, b) = w.cost(f.k);
            l.budget.is_some_and(|budget| t > budget - f.tokens) || f.text.len() + b > l.max_bytes
        };
        assert!(
            f.k == most || f.k + 1 == most && over(),
            "{l:?}: {} of {most}",
            f.k
        );
        f
    }

    #[test]
    fn the_fit_is_the_measured_text_and_the_most_items() {
        let mut w = words(false);
        for budget in [3, 10, 57, 200, 640, 2000] {
            check(&w, limits(Some(budget), 1 << 20));
        }
        for max_bytes in [20, 100, 1000, 5000] {
            check(&w, limits(None, max_bytes));
        }
        // Both limits: the tighter decides.
        check(&w, limits(Some(2000), 300));
        check(&w, limits(Some(50), 5000));
        // Everything fits: the whole answer, counted once.
        let f = check(&w, limits(None, 1 << 20));
        assert_eq!(f.k, 500);
        // Counts that add up (no junctions): the most, exactly.
        w.words.retain(|s| s != "x");
        for budget in [3, 10, 57, 200, 640, 2000] {
            let l = limits(Some(budget), 1 << 20);
            assert_eq!(check(&w, l).k, most_by_hand(&w, l), "{budget}");
        }
    }

    /// Estimates a little over the count leave room after the first guess: the fit grows into
    /// it by a few measurements, not one per item.
    #[test]
    fn growing_into_the_room_left_takes_few_measurements() {
        let mut w = words(false);
        w.words.retain(|s| s != "x");
        w.words = (0..4).flat_map(|_| w.words.clone()).collect();
        let measured = std::cell::Cell::new(0);
        let counting = |s: &str| {
            measured.set(measured.get() + 1);
            count(s)
        };
        for (overstated, budget) in [(0, 2000), (1, 2000), (1, 3000), (3, 600)] {
            w.overstated = overstated;
            let l = limits(Some(budget), 1 << 20);
            measured.set(0);
            let f = fit(&w, l, &counting).unwrap();
            let n = measured.get();
            assert_eq!(f, check(&w, l), "{overstated} {budget}");
            assert!(n <= 12, "{n} measurements for {overstated} {budget}");
        }
    }

    #[test]
    fn nothing_fits_is_one_kind_naming_the_limit_that_stopped_it() {
        let kind_and_text = |w: &Words, l: Limits| {
            let e = fit(w, l, &count).unwrap_err();
            (e.kind(), e.to_string())
        };
        // Not even the answer with no items.
        let (kind, text) = kind_and_text(&words(false), limits(Some(1), 1 << 20));
        assert_eq!(kind, ErrorKind::BudgetTooSmall);
        assert_eq!(
            text,
            "a budget of 1 tokens is too small for this answer: its header and continuation \
             alone take 3 tokens; raise budget (0 means no budget)"
        );
        let (kind, text) = kind_and_text(&words(false), limits(Some(100), 5));
        assert_eq!(kind, ErrorKind::BudgetTooSmall);
        assert_eq!(
            text,
            "the answer's size limit of 5 bytes is too small for this answer: its header and \
             continuation alone take 12 bytes; raise max_chars (0 means the server's limit)"
        );
        // The first item does not fit: refused when the answer needs one, else no item shown.
        let mut big = words(true);
        big.words[0] = "a b c d e f g h".into();
        let (kind, text) = kind_and_text(&big, limits(Some(5), 1 << 20));
        assert_eq!(kind, ErrorKind::BudgetTooSmall);
        assert_eq!(
            text,
            "a budget of 5 tokens is too small for one word: the first, with the head, would \
             take 11 tokens; raise budget (0 means no budget), or ask for fewer words"
        );
        let (kind, text) = kind_and_text(&big, limits(None, 20));
        assert_eq!(kind, ErrorKind::BudgetTooSmall);
        assert!(
            text.starts_with("the answer's size limit of 20 bytes is too small for one word")
                && text.contains("take 27 bytes; raise max_chars"),
            "{text}"
        );
        // An estimate over the limit is not a refusal: the first item is measured whole.
        let mut w = words(true);
        w.overstated = 100;
        let f = fit(&w, limits(Some(10), 1 << 20), &count).unwrap();
        assert_eq!((f.k, f.tokens), (1, count(&w.render(1))));
        big.needs_one = false;
        let f = fit(&big, limits(Some(5), 1 << 20), &count).unwrap();
        assert_eq!((f.k, f.text.as_str()), (0, "head  tail 0"));
    }
}
