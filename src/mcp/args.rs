//! Tool arguments as types: the arguments tools share, each one type described once (`repo`,
//! `include`, `exclude`, `budget`), the schemas of the typed pieces every argument is made of (a
//! string without NUL, a path, a token count: read as [`crate::driver::call::args`] reads them,
//! for the drivers' own argument structs too; a list of globs), and [`input_schema`], which
//! derives a tool's JSON Schema (2020-12) from its argument struct. A tool's struct derives
//! `Deserialize` and `JsonSchema` side by side, so the schema a client sees and what the server
//! accepts cannot drift.
//!
//! The schema is kept lean for the model: every property is inlined with its type and one-line
//! description, optional properties are not marked nullable (a JSON `null` still means "absent"),
//! and the generator's bookkeeping (`$schema`, `title`, `format`, defaults) is left out.

pub use crate::driver::call::args::{PathText, Text, Tokens, json_type};
use crate::vocab::Compress;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, Deserializer, Visitor};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;

/// What `repo` is, for every tool.
pub const REPO_DESCRIPTION: &str = "Repository beneath server root; default: the root.";
/// What `budget` is, for every tool that takes one.
pub const BUDGET_DESCRIPTION: &str = "Most tokens in the answer, exact; 0: none.";
/// What `max_chars` is, for every tool.
pub const MAX_CHARS_DESCRIPTION: &str = "Most characters in an answer; default 50,000.";
/// What `include` is, for every tool that takes one.
pub const INCLUDE_DESCRIPTION: &str = "Globs of files to consider (src/**/*.rs).";
/// What `exclude` is, for every tool that takes one.
pub const EXCLUDE_DESCRIPTION: &str = "Globs of files to leave out, e.g. tests/**.";

/// Implements `JsonSchema` for an argument type with a fixed, inlined schema.
macro_rules! schema {
    ($ty:ty, $name:literal, $schema:tt) => {
        impl JsonSchema for $ty {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> Cow<'static, str> {
                Cow::Borrowed($name)
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                json_schema!($schema)
            }
        }
    };
}

/// The `repo` argument, as the client sent it: the containment decides whether it names a
/// directory (anything but a string is `InvalidPath` there, not a typing error).
#[derive(Clone, Debug, PartialEq)]
pub struct Repo(pub Value);

impl<'de> serde::Deserialize<'de> for Repo {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Repo, D::Error> {
        Value::deserialize(d).map(Repo)
    }
}

schema!(Repo, "Repo", { "type": "string", "description": REPO_DESCRIPTION });

schema!(Text, "Text", { "type": "string" });

/// A list of glob strings.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Globs(pub Vec<String>);

impl<'de> serde::Deserialize<'de> for Globs {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Globs, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Globs;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of glob strings such as [\"src/**\"]")
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Globs, A::Error> {
                let mut out = Vec::new();
                while let Some(item) = seq.next_element::<Value>()? {
                    match item {
                        Value::String(s) if !s.contains('\0') => out.push(s),
                        _ => {
                            return Err(de::Error::custom(
                                "must be an array of glob strings such as [\"src/**\"] \
                                 (each a string without NUL bytes)",
                            ));
                        }
                    }
                }
                Ok(Globs(out))
            }
        }
        d.deserialize_seq(V)
    }
}

schema!(Globs, "Globs", { "type": "array", "items": { "type": "string" } });

schema!(PathText, "PathText", { "type": "string" });

/// The `include` argument: globs of the files to consider.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(transparent)]
pub struct Include(pub Globs);

schema!(Include, "Include", {
    "type": "array", "items": { "type": "string" }, "description": INCLUDE_DESCRIPTION
});

/// The `exclude` argument: globs of the files to leave out.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(transparent)]
pub struct Exclude(pub Globs);

schema!(Exclude, "Exclude", {
    "type": "array", "items": { "type": "string" }, "description": EXCLUDE_DESCRIPTION
});

schema!(Tokens, "Tokens", { "type": "integer" });

/// The `budget` argument: most tokens in the answer, 0 for no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(transparent)]
pub struct Budget(pub Tokens);

schema!(Budget, "Budget", { "type": "integer", "description": BUDGET_DESCRIPTION });

/// The `max_chars` argument: most characters in the answer, text and structured copy together.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(transparent)]
pub struct MaxChars(pub Tokens);

schema!(MaxChars, "MaxChars", { "type": "integer", "description": MAX_CHARS_DESCRIPTION });

/// The `compress` argument of `extract` and `estimate`: a level's name ([`Compress`]), or
/// `true` (docs) and `false` (off). The schema names the levels only (`Skeleton level: docs,
/// summary or signatures.`: the default tool list is near its size bound); `true` is what the
/// argument was before it had levels, and still means what it meant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompressArg(pub Option<Compress>);

impl<'de> serde::Deserialize<'de> for CompressArg {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<CompressArg, D::Error> {
        match Value::deserialize(d)? {
            Value::Bool(on) => Ok(CompressArg(on.then_some(Compress::Docs))),
            Value::String(s) => Compress::parse_name(&s)
                .map(|c| CompressArg(Some(c)))
                .map_err(de::Error::custom),
            other => Err(de::Error::custom(format!(
                "expected one of {} (or true), got {}",
                Compress::NAMES.join(", "),
                json_type(&other)
            ))),
        }
    }
}

impl JsonSchema for CompressArg {
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("CompressArg")
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let (last, rest) = Compress::NAMES.split_last().unwrap_or((&"", &[]));
        json_schema!({
            "type": "string",
            "description": format!("Skeleton level: {} or {last}.", rest.join(", "))
        })
    }
}

/// The arguments every navigation tool takes: the repository, and how large the answer may be.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Shared {
    pub(crate) repo: Option<Repo>,
    pub(crate) budget: Option<Budget>,
    pub(crate) max_chars: Option<MaxChars>,
}

/// The globs a navigation tool that narrows the files it considers takes.
#[derive(Default, serde::Deserialize, schemars::JsonSchema)]
pub struct Filter {
    pub(crate) include: Option<Include>,
    pub(crate) exclude: Option<Exclude>,
}

/// The input schema of a tool whose arguments are `T`: an object schema with
/// `additionalProperties: false`, every property inlined with its type and description, and
/// none of the generator's bookkeeping.
pub fn input_schema<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<T>().to_value();
    let mut out = Map::new();
    out.insert("type".into(), "object".into());
    let props: Map<String, Value> = schema
        .get_mut("properties")
        .and_then(Value::as_object_mut)
        .map(std::mem::take)
        .unwrap_or_default()
        .into_iter()
        .map(|(name, prop)| (name, lean_property(prop)))
        .collect();
    out.insert("properties".into(), Value::Object(props));
    if let Some(required) = schema
        .get("required")
        .filter(|r| r.as_array().is_some_and(|a| !a.is_empty()))
    {
        out.insert("required".into(), required.clone());
    }
    out.insert("additionalProperties".into(), false.into());
    Value::Object(out)
}

/// One property, as the model reads it: an optional value's `null` alternative dropped (a
/// `null` argument still means "absent"), and no `format`, `default` or `title`.
fn lean_property(prop: Value) -> Value {
    let Value::Object(mut map) = prop else {
        return prop;
    };
    // `{"anyOf": [S, {"type": "null"}]}`: S, keeping the description.
    if let Some(Value::Array(any)) = map.get("anyOf") {
        let kept: Vec<&Value> = any.iter().filter(|s| s["type"] != "null").collect();
        if let [only] = kept.as_slice()
            && let Value::Object(inner) = (*only).clone()
        {
            map.remove("anyOf");
            for (k, v) in inner {
                map.entry(k).or_insert(v);
            }
        }
    }
    // `{"type": ["integer", "null"]}`: "integer".
    if let Some(Value::Array(types)) = map.get("type") {
        let kept: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if let [only] = kept.as_slice() {
            let only = (*only).clone();
            map.insert("type".into(), only);
        }
    }
    for key in ["format", "default", "title"] {
        map.remove(key);
    }
    // Counts are refused below zero when read, with the argument's name: no need to say so.
    if map.get("minimum").and_then(Value::as_u64) == Some(0) {
        map.remove("minimum");
    }
    if let Some(items) = map.remove("items") {
        map.insert("items".into(), lean_property(items));
    }
    Value::Object(map)
}
