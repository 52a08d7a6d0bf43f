//! Reading the parts of a JSON answer the tests look at: a tool's text, and the fields of a
//! list of objects (`skipped_list`, `omitted_list`, `findings`, `tools`).

use serde_json::Value;

/// The first text part of a tool call's result; fails the test when there is none.
pub fn text(resp: &Value) -> String {
    resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {resp}"))
        .to_string()
}

/// Field `a` and field `b` of each object in the array `list` (missing fields and a missing
/// array read as empty).
pub fn pairs(list: &Value, a: &str, b: &str) -> Vec<(String, String)> {
    list.as_array()
        .into_iter()
        .flatten()
        .map(|o| {
            let field = |k: &str| o[k].as_str().unwrap_or_default().to_string();
            (field(a), field(b))
        })
        .collect()
}

/// Field `name` of each object in the array `list` that has it as a string.
pub fn strings<'a>(list: &'a Value, name: &str) -> Vec<&'a str> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|o| o[name].as_str())
        .collect()
}
