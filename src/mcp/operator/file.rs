//! A `--config` file's text read into settings: a TOML table whose keys are the settings'
//! keys, each value turned into what its variable would hold (paths joined to the file's
//! directory, lists joined as the variable lists them).

use super::{Kind, PREFIX, SETTINGS, Setting, by_key};
use crate::vocab::{excerpt, modes::nearest};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The settings of a config file's `text`; relative paths are joined to `base`.
pub fn parse_file(text: &str, base: &Path) -> Result<BTreeMap<&'static str, OsString>, String> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let at = e
            .span()
            .map(|s| {
                let line = text[..s.start.min(text.len())].matches('\n').count() + 1;
                format!(" at line {line}")
            })
            .unwrap_or_default();
        format!("not valid TOML{at}: {}", e.message())
    })?;
    let keys: Vec<&str> = SETTINGS.iter().map(|s| s.key).collect();
    let mut out = BTreeMap::new();
    for (key, value) in &table {
        let Some(setting) = by_key(key) else {
            let hint = if key.to_ascii_uppercase().starts_with(PREFIX) {
                format!(
                    "; keys are the variables' names lowercased without {PREFIX}, so `{}`",
                    key[PREFIX.len()..].to_ascii_lowercase()
                )
            } else {
                nearest(key, &keys)
                    .map(|k| format!("; did you mean `{k}`?"))
                    .unwrap_or_default()
            };
            return Err(format!(
                "unknown key `{}`{hint} (valid keys: {})",
                excerpt(key),
                keys.join(", ")
            ));
        };
        out.insert(setting.key, file_value(setting, value, base)?);
    }
    Ok(out)
}

/// A config file's `value` for `setting`, as its variable would hold it.
fn file_value(setting: &Setting, value: &toml::Value, base: &Path) -> Result<OsString, String> {
    let key = setting.key;
    let wrong = |want: &str| {
        format!(
            "`{key}` must be {want}; got {} {}",
            value.type_str(),
            excerpt(&value.to_string())
        )
    };
    let path = |s: &str| -> PathBuf {
        let p = Path::new(s);
        if p.is_absolute() {
            p.into()
        } else {
            base.join(p)
        }
    };
    let strings = |v: &toml::Value| -> Option<Vec<String>> {
        match v {
            toml::Value::String(s) => Some(vec![s.clone()]),
            toml::Value::Array(items) => items
                .iter()
                .map(|i| i.as_str().map(str::to_owned))
                .collect(),
            _ => None,
        }
    };
    Ok(match (setting.kind, value) {
        (Kind::Number | Kind::Size, toml::Value::Integer(n)) => n.to_string().into(),
        (Kind::Number | Kind::Size | Kind::Text, toml::Value::String(s)) => s.into(),
        (Kind::Number, _) => return Err(wrong("a number")),
        (Kind::Size, _) => return Err(wrong("a byte count such as 16777216 or \"16MiB\"")),
        (Kind::Text, _) => return Err(wrong("a string")),
        (Kind::Path, toml::Value::String(s)) => path(s).into_os_string(),
        (Kind::Path, _) => return Err(wrong("a path (a string)")),
        (Kind::Paths, v) => {
            let list = strings(v).ok_or_else(|| wrong("a path or a list of paths"))?;
            std::env::join_paths(list.iter().map(|s| path(s)))
                .map_err(|e| format!("`{key}`: {e}"))?
        }
        (Kind::List, v) => strings(v)
            .ok_or_else(|| wrong("a string or a list of strings"))?
            .join(",")
            .into(),
    })
}
