//! Reading the parts of a JSON answer the tests look at: a tool's text, and the fields of a
//! list of objects (`skipped_list`, `omitted_list`, `secrets`, `tools`). A list that is not an
//! array, or a field that is not a string, fails the test.

use serde_json::Value;

/// The first text part of a tool call's result; fails the test when there is none.
pub fn text(resp: &Value) -> String {
    resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {resp}"))
        .to_string()
}

/// The elements of the array `list`.
pub fn items(list: &Value) -> &[Value] {
    list.as_array()
        .unwrap_or_else(|| panic!("not an array: {list}"))
}

/// Field `name` of `object`, a string.
pub fn str_field(object: &Value, name: &str) -> String {
    object[name]
        .as_str()
        .unwrap_or_else(|| panic!("no string {name:?} in {object}"))
        .to_string()
}

/// Fields `a` and `b`, strings, of each object in the array `list`.
pub fn pairs(list: &Value, a: &str, b: &str) -> Vec<(String, String)> {
    items(list)
        .iter()
        .map(|o| (str_field(o, a), str_field(o, b)))
        .collect()
}

/// Field `name`, a string, of every object in the array `list`.
pub fn fields(list: &Value, name: &str) -> Vec<String> {
    items(list).iter().map(|o| str_field(o, name)).collect()
}

/// Field `name` of each object in the array `list` that has it as a string.
pub fn strings<'a>(list: &'a Value, name: &str) -> Vec<&'a str> {
    items(list)
        .iter()
        .filter_map(|o| o[name].as_str())
        .collect()
}

/// Every text part of a tool call's `result`, joined by line breaks.
pub fn texts(result: &Value) -> String {
    items(&result["content"])
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every text part of the answer `resp`, joined by line breaks; empty when it has no content
/// (an error answer).
pub fn text_parts(resp: &Value) -> String {
    resp["result"]["content"]
        .as_array()
        .map(|c| {
            c.iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// The continuation a cut answer ends with, as the arguments to add: the first JSON object on
/// its last line that offers one ("Continue with {...}", "Expand a directory with {...}").
pub fn continuation(text: &str) -> Option<Value> {
    let line = text
        .lines()
        .rev()
        .find(|l| l.contains("Continue with") || l.contains("Expand a directory with"))?;
    let start = line.find('{')?;
    serde_json::Deserializer::from_str(&line[start..])
        .into_iter::<Value>()
        .next()?
        .ok()
}
