//! A navigation call's arguments as a tool call's JSON gives them. Each driver's argument struct
//! (`GrepArgs`, `SearchArgs`, `LogArgs`, ...) derives `Deserialize` and `JsonSchema`, so the MCP
//! tool of the same name takes it as its own arguments, described once; the CLI builds the same
//! struct from its flags. Its fields are read by the functions here, so every tool reads a value
//! the same way: a JSON `null` is an absent value, a string never holds a NUL byte ([`Text`]), a
//! path is any string ([`PathText`]), a count is a non-negative integer ([`Tokens`]); a wrong one
//! is refused with what was expected (the caller names the argument).
//!
//! Their schemas, and the arguments every tool shares, are the MCP side's
//! ([`crate::mcp::args`]).

use crate::driver::call::request::NavError;
use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde_json::Value;
use std::fmt;

/// A string without NUL bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Text(pub String);

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Text, D::Error> {
        let s = String::deserialize(d)?;
        if s.contains('\0') {
            return Err(de::Error::custom("must not contain NUL bytes"));
        }
        Ok(Text(s))
    }
}

/// A path inside the repository, as gnaw shows paths: any string (the driver decodes and proves
/// it, and a string that is no usable path is `InvalidPath` there); another JSON type is a
/// wrongly typed argument.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathText(pub String);

impl<'de> Deserialize<'de> for PathText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<PathText, D::Error> {
        match Value::deserialize(d)? {
            Value::String(s) => Ok(PathText(s)),
            other => Err(de::Error::custom(format!(
                "expected a string path inside the repository, got {}",
                json_type(&other)
            ))),
        }
    }
}

impl PathText {
    /// The paths as given, as strings.
    pub fn all(given: &[PathText]) -> Vec<String> {
        given.iter().map(|p| p.0.clone()).collect()
    }
}

/// A count (tokens, lines, matches): a non-negative integer. A negative one is refused when the
/// call's arguments are read, with the argument's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tokens(pub usize);

impl<'de> Deserialize<'de> for Tokens {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Tokens, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Tokens;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a non-negative integer number of tokens (0 for unlimited)")
            }
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Tokens, E> {
                Ok(Tokens(usize::try_from(n).unwrap_or(usize::MAX)))
            }
        }
        d.deserialize_u64(V)
    }
}

/// `null`, `a boolean`, ...: a JSON value's type, for messages.
pub fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// A required string, as [`Text`] reads it.
pub fn text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Text::deserialize(d).map(|t| t.0)
}

/// An optional string, as [`Text`] reads it.
pub fn some_text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Option::<Text>::deserialize(d)?.map(|t| t.0))
}

/// A required path, as [`PathText`] reads it.
pub fn path<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    PathText::deserialize(d).map(|p| p.0)
}

/// An optional path, as [`PathText`] reads it.
pub fn some_path<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(Option::<PathText>::deserialize(d)?.map(|p| p.0))
}

/// A required list of paths, each as [`PathText`] reads it.
pub fn path_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(Vec::<PathText>::deserialize(d)?
        .into_iter()
        .map(|p| p.0)
        .collect())
}

/// A list of paths, each as [`PathText`] reads it (none when absent).
pub fn paths<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let paths = Option::<Vec<PathText>>::deserialize(d)?;
    Ok(paths.iter().flatten().map(|p| p.0.clone()).collect())
}

/// An optional count, as [`Tokens`] reads it.
pub fn some_count<'de, D: Deserializer<'de>>(d: D) -> Result<Option<usize>, D::Error> {
    Ok(Option::<Tokens>::deserialize(d)?.map(|t| t.0))
}

/// A count, as [`Tokens`] reads it (0 when absent).
pub fn count<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    Ok(Option::<Tokens>::deserialize(d)?.map_or(0, |t| t.0))
}

/// A value as its type reads it, or its type's default when absent (`false`, 0).
pub fn or_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

/// Whether a call read from JSON counts its answer's tokens even without a budget: it does (a
/// tool call's structured copy says how many it took). The CLI, which prints no count, says not.
pub fn counted() -> bool {
    true
}

/// The `limit` a call gives (most items in the answer): `default` when absent, else 1 to `max`.
pub fn limit(given: Option<usize>, default: usize, max: usize) -> Result<usize, NavError> {
    bounded("limit", given, default, max)
}

/// A count argument named `name`: 1 to `max`, `default` when left out.
pub fn bounded(
    name: &str,
    given: Option<usize>,
    default: usize,
    max: usize,
) -> Result<usize, NavError> {
    let n = given.unwrap_or(default);
    if n == 0 || n > max {
        return Err(NavError::invalid(format!(
            "{name} is {n}; give 1 to {max}, or leave it out for {default}"
        )));
    }
    Ok(n)
}

/// The most items an `offset` or `skip` argument passes over.
pub const MAX_SKIP: usize = 1_000_000;

/// An `offset` or `skip` argument named `name`: at most [`MAX_SKIP`].
pub fn skip(name: &str, given: usize) -> Result<usize, NavError> {
    if given > MAX_SKIP {
        return Err(NavError::invalid(format!(
            "{name} is {given}; give at most {MAX_SKIP}"
        )));
    }
    Ok(given)
}
