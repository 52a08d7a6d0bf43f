//! Fitting a tool's answer to its ceiling as it is sent: the one step every tool's answer takes
//! (the navigation tools through `super::tools::navigation::answer`, `extract` and `estimate`
//! directly). The ceiling is measured on the `CallToolResult` as the client receives it, JSON
//! encoded: a text full of quotes, backslashes or control characters takes more characters
//! sent than it has, and only what is sent counts.
//!
//! The tool runs with a limit on its text (bytes for the navigation tools' pages, characters for
//! `extract`'s prompt); when the answer sent is over the ceiling (characters) or the server's
//! response limit (bytes), the limit is lowered in proportion, with a little to spare, and the
//! tool runs again, so the answer's continuation always names exactly what was shown. An answer
//! that does not fit after [`TRIES`] runs is refused with the one "too small" kind,
//! `BudgetTooSmall`.

use super::tool::{Outcome, tool_error};
use crate::vocab::ErrorKind;
use serde_json::{Value, json};

/// How many times a tool runs before it gives up fitting its ceiling.
pub const TRIES: usize = 6;

/// Characters and bytes of `value` as sent.
pub fn sent(value: &Value) -> (usize, usize) {
    let wire = value.to_string();
    (wire.chars().count(), wire.len())
}

/// Run `answer` with a text limit, starting at `first`, until what it answers fits `ceiling`
/// characters and `server` bytes as sent. `answer(limit)` gives the outcome for that limit; an
/// outcome that is not an answer (`Rejected`, `Cancelled`) or that reports a failure
/// (`isError`: the exit gate cuts it to the ceiling, [`super::gate`]) ends the fit as it is. `units`
/// measures the answer's main text (`content[0].text`) in the limit's unit, to lower the limit
/// in proportion to what the text took.
pub fn to_ceiling(
    tool: &str,
    ceiling: usize,
    server: usize,
    first: usize,
    units: fn(&str) -> usize,
    mut answer: impl FnMut(usize) -> Result<Outcome, Outcome>,
) -> Result<Outcome, Outcome> {
    let mut limit = first;
    for _ in 0..TRIES {
        let outcome = answer(limit)?;
        let Outcome::Done(value) = &outcome else {
            return Ok(outcome);
        };
        // A failure is said whole: the exit gate holds it to the call's ceiling.
        if value["isError"] == true {
            return Ok(outcome);
        }
        let (chars, bytes) = sent(value);
        if chars <= ceiling && bytes <= server {
            return Ok(outcome);
        }
        let text = value["content"][0]["text"].as_str().map_or(0, units);
        let text = text.min(limit);
        // The text's share of what fits, with a little to spare, and at least one unit less.
        let share = |fits: usize, took: usize| {
            (text as u128 * fits as u128 * 95 / 100 / took.max(1) as u128) as usize
        };
        limit = share(ceiling, chars)
            .min(share(server, bytes))
            .min(text.saturating_sub(1));
    }
    Err(Outcome::Done(too_small(tool, ceiling)))
}

/// The answer that did not fit its ceiling even cut down: `isError`, kind `BudgetTooSmall`.
pub fn too_small(tool: &str, ceiling: usize) -> Value {
    let mut result = tool_error(format!(
        "{tool}: the answer did not fit {ceiling} characters as sent, with its structured copy; \
         raise max_chars (0 for the server's limit) or narrow the request"
    ));
    result["_meta"] = json!({ "gnaw/errorKind": ErrorKind::BudgetTooSmall });
    result
}

/// Bytes of a text: the unit of the navigation tools' text limit.
pub fn bytes(text: &str) -> usize {
    text.len()
}

/// Characters of a text: the unit of `extract`'s prompt limit.
pub fn chars(text: &str) -> usize {
    text.chars().count()
}
