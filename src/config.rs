//! `.gnawconfig`: the per-repo TOML file, and its resolution with per-run overrides into the
//! [`Options`] every later stage reads.
//!
//! Rules: list keys (`include`, `exclude`) from the file and from the overrides are concatenated;
//! scalar keys from the overrides replace the file's. An unknown key or a bad value is an error
//! that names the key and, for an unknown key, the nearest valid one.

use crate::error::ConfigError;
use crate::spec::Overrides;
use crate::vocab::Encoding;

pub use crate::vocab::{Format, SecretsMode};

/// The config file's name, at the repo root.
pub const CONFIG_FILE: &str = ".gnawconfig";

/// Largest `.gnawconfig` we read; a bigger one is an error rather than a slow parse.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Default cap on a file's size (1 MiB).
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1 << 20;

/// Everything the stages need, resolved from `.gnawconfig` plus overrides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Include globs; empty means everything.
    pub include: Vec<String>,
    /// Include globs that came from `.gnawconfig` itself (the operator's explicit choice); only
    /// these can bring a sensitive file back in.
    pub config_include: Vec<String>,
    pub exclude: Vec<String>,
    pub format: Format,
    pub encoding: Encoding,
    pub line_numbers: bool,
    pub hidden: bool,
    pub no_ignore: bool,
    pub follow_links: bool,
    pub max_file_size: u64,
    pub tree: bool,
    pub secrets: SecretsMode,
    pub secrets_allow_paths: Vec<String>,
    pub secrets_allow_fingerprints: Vec<String>,
    /// Token budget for the rendered prompt; `None` is unlimited.
    pub budget: Option<usize>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            include: Vec::new(),
            config_include: Vec::new(),
            exclude: Vec::new(),
            format: Format::Markdown,
            encoding: Encoding::O200kBase,
            line_numbers: false,
            hidden: false,
            no_ignore: false,
            follow_links: false,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            tree: true,
            secrets: SecretsMode::Warn,
            secrets_allow_paths: Vec::new(),
            secrets_allow_fingerprints: Vec::new(),
            budget: None,
        }
    }
}

/// The keys `.gnawconfig` accepts at top level, for "did you mean" suggestions.
pub const KEYS: &[&str] = &[
    "include",
    "exclude",
    "format",
    "encoding",
    "line_numbers",
    "hidden",
    "no_ignore",
    "follow_links",
    "max_file_size",
    "tree",
    "secrets",
    "budget",
    "profiles",
];

/// The keys of the `[secrets]` table.
pub const SECRETS_KEYS: &[&str] = &["mode", "allow_paths", "allow_fingerprints"];

/// Parse a `.gnawconfig` text into options, starting from `base` (the caller's defaults), then
/// applying the `[profiles.NAME]` table when `profile` names one. Every profile is validated,
/// selected or not, so a typo anywhere in the file is reported.
pub fn parse(text: &str, base: Options, profile: Option<&str>) -> Result<Options, ConfigError> {
    let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let at = e
            .span()
            .map(|span| {
                let before = &text.as_bytes()[..span.start.min(text.len())];
                let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
                let line_start = before
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1);
                let column = String::from_utf8_lossy(&before[line_start..])
                    .chars()
                    .count()
                    + 1;
                format!(" at line {line}, column {column}")
            })
            .unwrap_or_default();
        ConfigError::file(format!(
            "{CONFIG_FILE} is not valid TOML{at}: {}",
            e.message()
        ))
    })?;
    let mut o = base;
    let mut profiles: Vec<(&String, &toml::Table)> = Vec::new();
    for (key, value) in &table {
        if key == "profiles" {
            let toml::Value::Table(t) = value else {
                return Err(ConfigError::key(
                    "profiles",
                    format!("{CONFIG_FILE}: `profiles` must be a table of [profiles.NAME] tables"),
                ));
            };
            for (name, p) in t {
                let toml::Value::Table(p) = p else {
                    return Err(ConfigError::key(
                        &format!("profiles.{name}"),
                        format!(
                            "{CONFIG_FILE}: profile `{name}` must be a [profiles.{name}] table"
                        ),
                    ));
                };
                profiles.push((name, p));
            }
            continue;
        }
        apply_key(&mut o, key, value, "").map_err(|m| ConfigError::key(key, m))?;
    }
    for (name, p) in &profiles {
        let mut scratch = o.clone();
        for (key, value) in p.iter() {
            let prefix = format!("profiles.{name}.");
            if key == "profiles" {
                return Err(ConfigError::key(
                    &format!("{prefix}{key}"),
                    format!("{CONFIG_FILE}: profile `{name}` cannot define profiles"),
                ));
            }
            apply_key(&mut scratch, key, value, &prefix)
                .map_err(|m| ConfigError::key(&format!("{prefix}{key}"), m))?;
        }
    }
    if let Some(wanted) = profile {
        let Some((_, p)) = profiles.iter().find(|(n, _)| n.as_str() == wanted) else {
            return Err(unknown_profile(
                wanted,
                profiles.iter().map(|(n, _)| n.as_str()),
            ));
        };
        let prefix = format!("profiles.{wanted}.");
        for (key, value) in p.iter() {
            apply_key(&mut o, key, value, &prefix)
                .map_err(|m| ConfigError::key(&format!("{prefix}{key}"), m))?;
        }
    }
    Ok(o)
}

/// The error for a profile that does not exist, listing those that do.
pub fn unknown_profile<'a>(wanted: &str, available: impl Iterator<Item = &'a str>) -> ConfigError {
    let names: Vec<&str> = available.collect();
    let message = if names.is_empty() {
        format!(
            "unknown profile `{wanted}`: {CONFIG_FILE} defines no profiles (add a [profiles.{wanted}] table)"
        )
    } else {
        format!(
            "unknown profile `{wanted}`; available profiles: {}",
            names.join(", ")
        )
    };
    ConfigError::key("profile", message)
}

/// Apply one key. `prefix` is where the key sits (`""` or `profiles.NAME.`), for messages.
fn apply_key(o: &mut Options, key: &str, value: &toml::Value, prefix: &str) -> Result<(), String> {
    let full = format!("{prefix}{key}");
    let key = full.as_str();
    match &full[prefix.len()..] {
        "include" => {
            o.include = string_list(key, value)?;
            o.config_include = o.include.clone();
        }
        "exclude" => o.exclude = string_list(key, value)?,
        "format" => {
            let s = string(key, value)?;
            o.format =
                Format::from_name(s).ok_or_else(|| bad_value(key, s, &one_of(Format::NAMES)))?;
        }
        "encoding" => {
            let s = string(key, value)?;
            o.encoding = Encoding::from_name(s)
                .ok_or_else(|| bad_value(key, s, &one_of(Encoding::NAMES)))?;
        }
        "line_numbers" => o.line_numbers = boolean(key, value)?,
        "hidden" => o.hidden = boolean(key, value)?,
        "no_ignore" => o.no_ignore = boolean(key, value)?,
        "follow_links" => o.follow_links = boolean(key, value)?,
        "tree" => o.tree = boolean(key, value)?,
        "max_file_size" => o.max_file_size = size(key, value)?,
        "budget" => o.budget = budget(key, value)?,
        "secrets" => parse_secrets(value, o)?,
        other => return Err(unknown_key(other, KEYS, prefix)),
    }
    Ok(())
}

fn budget(key: &str, v: &toml::Value) -> Result<Option<usize>, String> {
    match v {
        toml::Value::Integer(0) => Ok(None),
        toml::Value::Integer(i) if *i > 0 => Ok(Some(*i as usize)),
        other => Err(format!(
            "{CONFIG_FILE}: key `{key}` must be a token count (0 means unlimited), found {}",
            describe(other)
        )),
    }
}

fn parse_secrets(value: &toml::Value, o: &mut Options) -> Result<(), String> {
    // `secrets = "redact"` is shorthand for `[secrets] mode = "redact"`.
    if let toml::Value::String(s) = value {
        o.secrets = secrets_mode("secrets", s)?;
        return Ok(());
    }
    let toml::Value::Table(t) = value else {
        return Err(format!(
            "{CONFIG_FILE}: key `secrets` must be a mode string or a [secrets] table, found {}",
            value.type_str()
        ));
    };
    for (key, value) in t {
        let full = format!("secrets.{key}");
        match key.as_str() {
            "mode" => o.secrets = secrets_mode(&full, string(&full, value)?)?,
            "allow_paths" => o.secrets_allow_paths = string_list(&full, value)?,
            "allow_fingerprints" => o.secrets_allow_fingerprints = string_list(&full, value)?,
            other => return Err(unknown_key(other, SECRETS_KEYS, "secrets.")),
        }
    }
    Ok(())
}

fn secrets_mode(key: &str, s: &str) -> Result<SecretsMode, String> {
    SecretsMode::from_name(s).ok_or_else(|| bad_value(key, s, &one_of(SecretsMode::NAMES)))
}

fn one_of(names: &[&str]) -> String {
    format!("one of {}", names.join(", "))
}

/// Layer per-run overrides on top of resolved config options.
pub fn apply_overrides(mut o: Options, ov: &Overrides) -> Options {
    o.include.extend(ov.include.iter().cloned());
    o.exclude.extend(ov.exclude.iter().cloned());
    if let Some(v) = ov.format {
        o.format = v;
    }
    if let Some(v) = ov.encoding {
        o.encoding = v;
    }
    if let Some(v) = ov.line_numbers {
        o.line_numbers = v;
    }
    if let Some(v) = ov.hidden {
        o.hidden = v;
    }
    if let Some(v) = ov.no_ignore {
        o.no_ignore = v;
    }
    if let Some(v) = ov.follow_links {
        o.follow_links = v;
    }
    if let Some(v) = ov.max_file_size {
        o.max_file_size = v;
    }
    if let Some(v) = ov.tree {
        o.tree = v;
    }
    if let Some(v) = ov.secrets {
        o.secrets = v;
    }
    if let Some(v) = ov.budget {
        o.budget = (v > 0).then_some(v);
    }
    o
}

/// Parse a size: an integer byte count, or a string such as `"512KiB"`, `"2MiB"`, `"1GiB"`.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num.parse().ok()?;
    let mult: u64 = match unit.trim() {
        "" | "B" => 1,
        "K" | "KB" | "KiB" | "k" => 1 << 10,
        "M" | "MB" | "MiB" => 1 << 20,
        "G" | "GB" | "GiB" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(mult)
}

fn size(key: &str, v: &toml::Value) -> Result<u64, String> {
    match v {
        toml::Value::Integer(i) if *i >= 0 => Ok(*i as u64),
        toml::Value::String(s) => parse_size(s)
            .ok_or_else(|| bad_value(key, s, "a byte count such as 1048576 or \"1MiB\"")),
        other => Err(format!(
            "{CONFIG_FILE}: key `{key}` must be a non-negative byte count or a size string such as \"1MiB\", found {}",
            describe(other)
        )),
    }
}

fn string<'v>(key: &str, v: &'v toml::Value) -> Result<&'v str, String> {
    v.as_str().ok_or_else(|| {
        format!(
            "{CONFIG_FILE}: key `{key}` must be a string, found {}",
            describe(v)
        )
    })
}

fn boolean(key: &str, v: &toml::Value) -> Result<bool, String> {
    v.as_bool().ok_or_else(|| {
        format!(
            "{CONFIG_FILE}: key `{key}` must be true or false, found {}",
            describe(v)
        )
    })
}

fn string_list(key: &str, v: &toml::Value) -> Result<Vec<String>, String> {
    let err = || {
        format!(
            "{CONFIG_FILE}: key `{key}` must be a list of glob strings such as [\"src/**\", \"*.md\"], found {}",
            describe(v)
        )
    };
    match v {
        // A single string is accepted as a one-element list.
        toml::Value::String(s) => Ok(vec![s.clone()]),
        toml::Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned).ok_or_else(err))
            .collect(),
        _ => Err(err()),
    }
}

fn describe(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("the string {s:?}"),
        other => format!("{} {other}", other.type_str()),
    }
}

fn bad_value(key: &str, got: &str, want: &str) -> String {
    format!("{CONFIG_FILE}: key `{key}` has the invalid value {got:?}; expected {want}")
}

fn unknown_key(key: &str, valid: &[&str], prefix: &str) -> String {
    let nearest = valid
        .iter()
        .min_by_key(|k| edit_distance(key, k))
        .map(|k| format!("; did you mean `{prefix}{k}`?"))
        .unwrap_or_default();
    format!(
        "{CONFIG_FILE}: unknown key `{prefix}{key}`{nearest} (valid keys: {})",
        valid.join(", ")
    )
}

/// Levenshtein distance over chars; keys are short, so the quadratic table is fine.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_test(text: &str, base: Options) -> Result<Options, ConfigError> {
        parse(text, base, None)
    }

    #[test]
    fn profiles_override_and_unknown_ones_are_listed() {
        let text = "format = \"xml\"\nbudget = 5000\n[profiles.small]\nbudget = 1000\ninclude = [\"src/**\"]\n[profiles.docs]\ninclude = [\"*.md\"]\n";
        let o = parse(text, Options::default(), Some("small")).unwrap();
        assert_eq!(o.budget, Some(1000));
        assert_eq!(o.format, Format::Xml);
        assert_eq!(o.include, vec!["src/**"]);
        let o = parse(text, Options::default(), None).unwrap();
        assert_eq!(o.budget, Some(5000));
        let err = parse(text, Options::default(), Some("big"))
            .unwrap_err()
            .message;
        assert!(
            err.contains("small") && err.contains("docs") && err.contains("`big`"),
            "{err}"
        );
        let err = parse("[profiles.x]\nbudgett = 1", Options::default(), None)
            .unwrap_err()
            .message;
        assert!(
            err.contains("profiles.x.budgett") && err.contains("profiles.x.budget"),
            "{err}"
        );
    }

    #[test]
    fn unknown_key_names_the_nearest() {
        let err = parse_test("includes = [\"a\"]", Options::default())
            .unwrap_err()
            .message;
        assert!(err.contains("`includes`"), "{err}");
        assert!(err.contains("did you mean `include`"), "{err}");
        let err = parse_test("[secrets]\nmod = \"off\"", Options::default())
            .unwrap_err()
            .message;
        assert!(err.contains("did you mean `secrets.mode`"), "{err}");
    }

    #[test]
    fn bad_values_name_the_key() {
        for (text, key) in [
            ("format = \"html\"", "format"),
            ("encoding = \"gpt2\"", "encoding"),
            ("hidden = \"yes\"", "hidden"),
            ("max_file_size = -1", "max_file_size"),
            ("max_file_size = \"lots\"", "max_file_size"),
            ("include = [1]", "include"),
            ("secrets = \"loud\"", "secrets"),
        ] {
            let err = parse_test(text, Options::default()).unwrap_err().message;
            assert!(err.contains(&format!("`{key}`")), "{text}: {err}");
        }
    }

    #[test]
    fn sizes_and_lists() {
        let o = parse_test(
            "max_file_size = \"2MiB\"\ninclude = \"src/**\"\nexclude = [\"*.lock\"]\n[secrets]\nmode = \"block\"",
            Options::default(),
        )
        .unwrap();
        assert_eq!(o.max_file_size, 2 << 20);
        assert_eq!(o.include, vec!["src/**"]);
        assert_eq!(o.config_include, vec!["src/**"]);
        assert_eq!(o.exclude, vec!["*.lock"]);
        assert_eq!(o.secrets, SecretsMode::Block);
    }

    #[test]
    fn overrides_add_lists_and_replace_scalars() {
        let o = parse_test(
            "include = [\"a\"]\nformat = \"xml\"\ntree = false",
            Options::default(),
        )
        .unwrap();
        let ov = Overrides {
            include: vec!["b".into()],
            format: Some(Format::Json),
            ..Default::default()
        };
        let o = apply_overrides(o, &ov);
        assert_eq!(o.include, vec!["a", "b"]);
        assert_eq!(o.config_include, vec!["a"]);
        assert_eq!(o.format, Format::Json);
        assert!(!o.tree);
    }
}
