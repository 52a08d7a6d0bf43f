//! Fitting an answer to its limits exactly: the most items (lines, matches, tree entries) whose
//! rendered answer, counted whole, stays within the token budget and the byte ceiling.
//!
//! Token counts are not additive in general, so the fit never trusts a sum: every candidate
//! answer is rendered and counted whole, and the one returned is the one that was measured. The
//! items' own counts (each counted alone) only guide the search: the first guess is the longest
//! prefix whose estimate fits; a guess over the budget steps back by its measured excess; a few
//! misses fall back to bisection; and a fitting guess grows one item at a time while the next
//! item's estimate still fits. A call typically measures two or three answers.
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
    #[serde(serialize_with = "encoding_name")]
    pub encoding: Encoding,
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

/// Choose the most items of `n` that fit `limits`. `render(k)` is the whole answer showing the
/// first `k` items (its continuation included); `cost(i)` estimates item `i`'s tokens and
/// bytes; `count` counts exactly. `Err` when not even `render(0)` fits, naming what it needs.
pub fn fit(
    n: usize,
    limits: Limits,
    count: &dyn Fn(&str) -> usize,
    cost: &mut dyn FnMut(usize) -> (usize, usize),
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
        Trial::Over(..) => return Err(too_small(limits, count(&render(0)), render(0).len())),
    };
    // Cumulative estimates: est[k] = (tokens, bytes) of the answer with k items.
    let mut est: Vec<(usize, usize)> = vec![(base.1, base.0.len())];
    let budget = limits.budget.unwrap_or(usize::MAX);
    let slack_t = budget.saturating_add(budget / 8 + 64);
    let slack_b = limits.max_bytes.saturating_add(limits.max_bytes / 8 + 256);
    let fits_est = |e: (usize, usize)| e.0 <= budget && e.1 <= limits.max_bytes;
    let mut extend = |est: &mut Vec<(usize, usize)>, upto: usize| {
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
    // Grow while the next item's estimate still fits what is left.
    while k < n && failed_at != Some(k + 1) {
        extend(&mut est, k + 1);
        let step = (est[k + 1].0 - est[k].0, est[k + 1].1 - est[k].1);
        let left_t = budget.saturating_sub(tokens);
        if limits.budget.is_some() && step.0 > left_t
            || text.len().saturating_add(step.1) > limits.max_bytes
        {
            break;
        }
        match trial(k + 1) {
            Trial::Fits(t, c) => (k, text, tokens) = (k + 1, t, c),
            Trial::Over(..) => break,
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

/// [`nothing_fits`] for `first`, the rendered answer showing one item, counted in `encoding`.
pub fn first_does_not_fit(
    limits: Limits,
    encoding: Encoding,
    first: &str,
    what: &str,
    advice: &str,
) -> Error {
    nothing_fits(
        limits,
        count::count(encoding, first),
        first.len(),
        what,
        advice,
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

    #[test]
    fn the_fit_is_measured_and_near_the_most() {
        let items: Vec<String> = (0..500)
            .map(|i| {
                if i % 3 == 0 {
                    "x".into()
                } else {
                    format!("w{i} v")
                }
            })
            .collect();
        let render = |k: usize| format!("head {} tail {k}", items[..k].join(" "));
        for budget in [3, 10, 57, 200, 640, 2000] {
            let limits = Limits {
                budget: Some(budget),
                max_bytes: 1 << 20,
            };
            let mut cost = |i: usize| (count(&items[i]), items[i].len() + 1);
            let f = fit(items.len(), limits, &count, &mut cost, &render).unwrap();
            assert_eq!(f.text, render(f.k));
            assert_eq!(f.tokens, count(&f.text));
            assert!(f.tokens <= budget, "{budget}: {}", f.tokens);
            if f.k < items.len() {
                assert!(
                    count(&render(f.k + 2)) > budget,
                    "{budget}: k {} is short",
                    f.k
                );
            }
        }
        let limits = Limits {
            budget: Some(1),
            max_bytes: 1 << 20,
        };
        let mut cost = |i: usize| (count(&items[i]), items[i].len());
        assert!(fit(items.len(), limits, &count, &mut cost, &render).is_err());
        let limits = Limits {
            budget: None,
            max_bytes: 100,
        };
        let f = fit(items.len(), limits, &count, &mut cost, &render).unwrap();
        assert!(f.text.len() <= 100 && render(f.k + 1).len() > 100);
    }
}
