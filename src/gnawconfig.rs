//! `.gnawconfig`: the per-repo TOML file, and its resolution with per-run overrides into the
//! [`Options`] every later stage reads.
//!
//! Rules: list keys (`include`, `exclude`) from the file and from the overrides are concatenated;
//! scalar keys from the overrides replace the file's. An unknown key or a bad value is an error
//! that names the key and, for an unknown key, the nearest valid one.
//!
//! The file is bounded: at most [`MAX_CONFIG_BYTES`] bytes, [`MAX_PROFILES`] profiles and
//! [`MAX_LIST_ENTRIES`] entries in any one list. Every profile is validated, selected or not,
//! each on its own: validating one costs the size of its own table, never a copy of the options.
//!
//! [`Options::keys`] remembers which key set each option (`hidden` or `profiles.ci.hidden`), so
//! that a setting the surface's policy refuses, or the CLI warns about, is named as written
//! ([`Widening`]).

use crate::error::ConfigError;
use crate::spec::{Overrides, Widen};
use crate::vocab::{Encoding, excerpt};
use std::collections::BTreeMap;

pub use crate::vocab::{Format, SecretsMode};

/// The config file's name, at the repo root.
pub const CONFIG_FILE: &str = ".gnawconfig";

/// Largest `.gnawconfig` we read; a bigger one is an error rather than a slow parse.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Most `[profiles.NAME]` tables a `.gnawconfig` may define. Profiles are written by hand and
/// chosen by name (`--profile`, the `profile` tool argument); a few dozen is already a lot, and
/// every one is validated on every run.
pub const MAX_PROFILES: usize = 256;

/// Most entries in one list key (`include`, `exclude`, `secrets.allow_paths`,
/// `secrets.allow_fingerprints`), at top level or in a profile. Hand-written lists hold tens of
/// globs; a directory pattern (`vendor`) covers everything beneath it. The same bound as a
/// compiled glob list ([`crate::limits::MAX_GLOBS`]), so the error names the key as written.
pub const MAX_LIST_ENTRIES: usize = crate::limits::MAX_GLOBS;

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
    /// Exclude globs.
    pub exclude: Vec<String>,
    /// The prompt's format.
    pub format: Format,
    /// The token encoding counted in.
    pub encoding: Encoding,
    /// Number each line of a file's contents.
    pub line_numbers: bool,
    /// Read hidden files and directories.
    pub hidden: bool,
    /// Read files that `.gitignore`, `.ignore` and `.git/info/exclude` leave out.
    pub no_ignore: bool,
    /// Follow symbolic links.
    pub follow_links: bool,
    /// The largest file read, in bytes; larger ones are skipped.
    pub max_file_size: u64,
    /// Show the directory tree before the files.
    pub tree: bool,
    /// The `[secrets]` table.
    pub secrets: Secrets,
    /// Token budget for the rendered prompt; `None` is unlimited.
    pub budget: Option<usize>,
    /// gnaw-mcp's tools this repository lets a server rooted at it offer (`tools = [...]`:
    /// names, `-name`, or the presets `minimal` and `all`). It only narrows the operator's
    /// `GNAW_MCP_TOOLS`; the CLI ignores it. `None` when not set.
    pub tools: Option<Vec<String>>,
    /// For each option `.gnawconfig` set, the full key that set it last: `"hidden"` maps to
    /// `"hidden"` or to `"profiles.NAME.hidden"`; `"secrets.allow_paths"` to itself or to
    /// `"profiles.NAME.secrets.allow_paths"`.
    pub keys: BTreeMap<&'static str, String>,
    /// The settings of the repo's config that read more than the defaults, honoured or refused
    /// by the surface's policy (filled in by the driver).
    pub widenings: Vec<Widening>,
}

/// The `[secrets]` table: how secrets are treated, and which findings are let through.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Secrets {
    /// How secrets are treated (`secrets.mode`).
    pub mode: SecretsMode,
    /// Globs of paths whose findings are not secrets (`secrets.allow_paths`).
    pub allow_paths: Vec<String>,
    /// Fingerprints of findings that are not secrets (`secrets.allow_fingerprints`).
    pub allow_fingerprints: Vec<String>,
}

impl Default for Secrets {
    fn default() -> Self {
        Secrets {
            mode: SecretsMode::Warn,
            allow_paths: Vec::new(),
            allow_fingerprints: Vec::new(),
        }
    }
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
            secrets: Secrets::default(),
            budget: None,
            tools: None,
            keys: BTreeMap::new(),
            widenings: Vec::new(),
        }
    }
}

impl Options {
    /// The key of `.gnawconfig` that set `option` (see [`Options::keys`]), or `option` itself.
    pub fn key_of(&self, option: &str) -> String {
        self.keys
            .get(option)
            .cloned()
            .unwrap_or_else(|| option.to_string())
    }
}

/// A setting of the repo's `.gnawconfig` that makes the run read more than it would without it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Widening {
    /// The key as written: `hidden`, `profiles.ci.no_ignore`, `secrets.allow_paths`, `include`.
    pub key: String,
    /// The widening setting it is.
    pub widen: Widen,
    /// What it does in this run: [`Widen::effect`], with specifics (the sensitive files an
    /// include brings back, the size asked for).
    pub what: String,
    /// The surface's policy did not honour it: the default was kept.
    pub refused: bool,
}

impl Widening {
    /// The operator's setting that would honour it: `GNAW_MCP_REPO_MAY_WIDEN=hidden`, or
    /// `GNAW_MCP_MAX_FILE_SIZE` for the size ceiling.
    pub fn operator_setting(&self) -> String {
        match self.widen {
            Widen::MaxFileSize => "GNAW_MCP_MAX_FILE_SIZE".into(),
            w => format!("GNAW_MCP_REPO_MAY_WIDEN={}", w.name()),
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
    "tools",
    "profiles",
];

/// The keys of the `[secrets]` table.
pub const SECRETS_KEYS: &[&str] = &["mode", "allow_paths", "allow_fingerprints"];

/// One validated setting of `.gnawconfig`, not yet applied to any options.
enum Setting {
    Include(Vec<String>),
    Exclude(Vec<String>),
    Format(Format),
    Encoding(Encoding),
    LineNumbers(bool),
    Hidden(bool),
    NoIgnore(bool),
    FollowLinks(bool),
    Tree(bool),
    MaxFileSize(u64),
    Budget(Option<usize>),
    SecretsMode(SecretsMode),
    AllowPaths(Vec<String>),
    AllowFingerprints(Vec<String>),
    Tools(Vec<String>),
}

impl Setting {
    /// The option it sets, as named in [`Options::keys`].
    fn option(&self) -> &'static str {
        match self {
            Setting::Include(_) => "include",
            Setting::Exclude(_) => "exclude",
            Setting::Format(_) => "format",
            Setting::Encoding(_) => "encoding",
            Setting::LineNumbers(_) => "line_numbers",
            Setting::Hidden(_) => "hidden",
            Setting::NoIgnore(_) => "no_ignore",
            Setting::FollowLinks(_) => "follow_links",
            Setting::Tree(_) => "tree",
            Setting::MaxFileSize(_) => "max_file_size",
            Setting::Budget(_) => "budget",
            Setting::SecretsMode(_) => "secrets.mode",
            Setting::AllowPaths(_) => "secrets.allow_paths",
            Setting::AllowFingerprints(_) => "secrets.allow_fingerprints",
            Setting::Tools(_) => "tools",
        }
    }

    fn apply(self, o: &mut Options, key: String) {
        o.keys.insert(self.option(), key);
        match self {
            Setting::Include(v) => {
                o.config_include = v.clone();
                o.include = v;
            }
            Setting::Exclude(v) => o.exclude = v,
            Setting::Format(v) => o.format = v,
            Setting::Encoding(v) => o.encoding = v,
            Setting::LineNumbers(v) => o.line_numbers = v,
            Setting::Hidden(v) => o.hidden = v,
            Setting::NoIgnore(v) => o.no_ignore = v,
            Setting::FollowLinks(v) => o.follow_links = v,
            Setting::Tree(v) => o.tree = v,
            Setting::MaxFileSize(v) => o.max_file_size = v,
            Setting::Budget(v) => o.budget = v,
            Setting::SecretsMode(v) => o.secrets.mode = v,
            Setting::AllowPaths(v) => o.secrets.allow_paths = v,
            Setting::AllowFingerprints(v) => o.secrets.allow_fingerprints = v,
            Setting::Tools(v) => o.tools = Some(v),
        }
    }
}

/// The settings of one table (the top level, or a profile's), each with its full key.
type Settings = Vec<(String, Setting)>;

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
    let mut top = Settings::new();
    let mut names: Vec<&str> = Vec::new();
    let mut chosen: Option<Settings> = None;
    for (key, value) in &table {
        if key != "profiles" {
            settings(&mut top, key, value, "")?;
            continue;
        }
        let toml::Value::Table(t) = value else {
            return Err(ConfigError::key(
                "profiles",
                format!("{CONFIG_FILE}: `profiles` must be a table of [profiles.NAME] tables"),
            ));
        };
        if t.len() > MAX_PROFILES {
            return Err(ConfigError::key(
                "profiles",
                format!(
                    "{CONFIG_FILE}: `profiles` defines {} profiles; at most {MAX_PROFILES} are \
                     allowed. Remove the [profiles.NAME] tables you do not use.",
                    t.len()
                ),
            ));
        }
        for (name, p) in t {
            let toml::Value::Table(p) = p else {
                return Err(ConfigError::key(
                    &format!("profiles.{name}"),
                    format!(
                        "{CONFIG_FILE}: profile `{0}` must be a [profiles.{0}] table",
                        excerpt(name)
                    ),
                ));
            };
            // Validated on its own; only the chosen profile's settings are kept.
            let prefix = format!("profiles.{name}.");
            let mut these = Settings::new();
            for (key, value) in p {
                if key == "profiles" {
                    return Err(ConfigError::key(
                        &format!("{prefix}{key}"),
                        format!(
                            "{CONFIG_FILE}: profile `{}` cannot define profiles",
                            excerpt(name)
                        ),
                    ));
                }
                settings(&mut these, key, value, &prefix)?;
            }
            if profile == Some(name.as_str()) {
                chosen = Some(these);
            }
            names.push(name);
        }
    }
    let chosen = match profile {
        Some(wanted) => Some(chosen.ok_or_else(|| unknown_profile(wanted, names.into_iter()))?),
        None => None,
    };
    let mut o = base;
    for (key, setting) in top.into_iter().chain(chosen.into_iter().flatten()) {
        setting.apply(&mut o, key);
    }
    Ok(o)
}

/// The error for a profile that does not exist, listing those that do.
pub fn unknown_profile<'a>(wanted: &str, available: impl Iterator<Item = &'a str>) -> ConfigError {
    let names: Vec<String> = available.map(excerpt).collect();
    let wanted = excerpt(wanted);
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

/// Validate one key, where `prefix` is where it sits (`""` or `profiles.NAME.`), and add what it
/// sets to `out`. The error names the full key.
fn settings(
    out: &mut Settings,
    key: &str,
    value: &toml::Value,
    prefix: &str,
) -> Result<(), ConfigError> {
    let full = format!("{prefix}{key}");
    let at = |m: String| ConfigError::key(&full, m);
    // Messages quote the key (a profile's name is the repository's words) as an excerpt.
    let shown = excerpt(&full);
    let k = shown.as_str();
    let setting = match key {
        "include" => Setting::Include(string_list(k, value).map_err(at)?),
        "exclude" => Setting::Exclude(string_list(k, value).map_err(at)?),
        "format" => {
            let s = string(k, value).map_err(at)?;
            Setting::Format(
                Format::from_name(s).ok_or_else(|| at(bad_value(k, s, &one_of(Format::NAMES))))?,
            )
        }
        "encoding" => {
            let s = string(k, value).map_err(at)?;
            Setting::Encoding(
                Encoding::from_name(s)
                    .ok_or_else(|| at(bad_value(k, s, &one_of(Encoding::NAMES))))?,
            )
        }
        "line_numbers" => Setting::LineNumbers(boolean(k, value).map_err(at)?),
        "hidden" => Setting::Hidden(boolean(k, value).map_err(at)?),
        "no_ignore" => Setting::NoIgnore(boolean(k, value).map_err(at)?),
        "follow_links" => Setting::FollowLinks(boolean(k, value).map_err(at)?),
        "tree" => Setting::Tree(boolean(k, value).map_err(at)?),
        "max_file_size" => Setting::MaxFileSize(size(k, value).map_err(at)?),
        "budget" => Setting::Budget(budget(k, value).map_err(at)?),
        "tools" => Setting::Tools(string_list(k, value).map_err(at)?),
        "secrets" => return secrets_settings(out, value, &full),
        other => return Err(at(unknown_key(other, KEYS, prefix))),
    };
    out.push((full, setting));
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

/// `secrets`, at `full` (`secrets` or `profiles.NAME.secrets`).
fn secrets_settings(
    out: &mut Settings,
    value: &toml::Value,
    full: &str,
) -> Result<(), ConfigError> {
    // `secrets = "redact"` is shorthand for `[secrets] mode = "redact"`.
    if let toml::Value::String(s) = value {
        let mode = secrets_mode(&excerpt(full), s).map_err(|m| ConfigError::key(full, m))?;
        out.push((full.to_string(), Setting::SecretsMode(mode)));
        return Ok(());
    }
    let toml::Value::Table(t) = value else {
        return Err(ConfigError::key(
            full,
            format!(
                "{CONFIG_FILE}: key `{}` must be a mode string or a [secrets] table, found {}",
                excerpt(full),
                value.type_str()
            ),
        ));
    };
    for (key, value) in t {
        let sub = format!("{full}.{key}");
        let at = |m: String| ConfigError::key(&sub, m);
        let shown = excerpt(&sub);
        let setting = match key.as_str() {
            "mode" => Setting::SecretsMode(
                secrets_mode(&shown, string(&shown, value).map_err(at)?).map_err(at)?,
            ),
            "allow_paths" => Setting::AllowPaths(string_list(&shown, value).map_err(at)?),
            "allow_fingerprints" => {
                Setting::AllowFingerprints(string_list(&shown, value).map_err(at)?)
            }
            other => return Err(at(unknown_key(other, SECRETS_KEYS, &format!("{full}.")))),
        };
        out.push((sub, setting));
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
    replace_if_set(&mut o.format, ov.format);
    replace_if_set(&mut o.encoding, ov.encoding);
    replace_if_set(&mut o.line_numbers, ov.line_numbers);
    replace_if_set(&mut o.hidden, ov.hidden);
    replace_if_set(&mut o.no_ignore, ov.no_ignore);
    replace_if_set(&mut o.follow_links, ov.follow_links);
    replace_if_set(&mut o.max_file_size, ov.max_file_size);
    replace_if_set(&mut o.tree, ov.tree);
    replace_if_set(&mut o.secrets.mode, ov.secrets);
    if let Some(v) = ov.budget {
        o.budget = (v > 0).then_some(v);
    }
    o
}

/// A scalar override: `over`, when set, replaces `option`.
fn replace_if_set<T>(option: &mut T, over: Option<T>) {
    if let Some(v) = over {
        *option = v;
    }
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
        toml::Value::Array(items) if items.len() > MAX_LIST_ENTRIES => Err(format!(
            "{CONFIG_FILE}: key `{key}` lists {} entries; at most {MAX_LIST_ENTRIES} are allowed. \
             Use fewer, broader globs: a directory pattern such as \"vendor\" covers everything \
             beneath it.",
            items.len()
        )),
        toml::Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned).ok_or_else(err))
            .collect(),
        _ => Err(err()),
    }
}

/// A value as an error quotes it: its type, and an excerpt of it.
fn describe(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("the string \"{}\"", excerpt(s)),
        other => format!("{} {}", other.type_str(), excerpt(&other.to_string())),
    }
}

fn bad_value(key: &str, got: &str, want: &str) -> String {
    format!(
        "{CONFIG_FILE}: key `{key}` has the invalid value \"{}\"; expected {want}",
        excerpt(got)
    )
}

fn unknown_key(key: &str, valid: &[&str], prefix: &str) -> String {
    let nearest = crate::vocab::modes::nearest(key, valid)
        .map(|k| format!("; did you mean `{}`?", excerpt(&format!("{prefix}{k}"))))
        .unwrap_or_default();
    format!(
        "{CONFIG_FILE}: unknown key `{}`{nearest} (valid keys: {})",
        excerpt(&format!("{prefix}{key}")),
        valid.join(", ")
    )
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
    fn keys_name_where_each_option_was_set() {
        let text = "hidden = true\n[secrets]\nallow_paths = [\"a\"]\n[profiles.ci]\nhidden = false\nno_ignore = true\n[profiles.ci.secrets]\nmode = \"off\"\n";
        let o = parse(text, Options::default(), None).unwrap();
        assert_eq!(o.key_of("hidden"), "hidden");
        assert_eq!(o.key_of("secrets.allow_paths"), "secrets.allow_paths");
        assert!(!o.no_ignore);
        let o = parse(text, Options::default(), Some("ci")).unwrap();
        assert!(!o.hidden && o.no_ignore);
        assert_eq!(o.key_of("hidden"), "profiles.ci.hidden");
        assert_eq!(o.key_of("no_ignore"), "profiles.ci.no_ignore");
        assert_eq!(o.key_of("secrets.mode"), "profiles.ci.secrets.mode");
        assert_eq!(o.secrets.mode, SecretsMode::Off);
        let err = parse("[profiles.x.secrets]\nmod = 1\n", Options::default(), None).unwrap_err();
        assert_eq!(err.key.as_deref(), Some("profiles.x.secrets.mod"));
        assert!(
            err.message.contains("`profiles.x.secrets.mode`"),
            "{}",
            err.message
        );
    }

    #[test]
    fn profiles_and_lists_are_bounded() {
        let many: String = (0..=MAX_PROFILES)
            .map(|i| format!("[profiles.p{i}]\n"))
            .collect();
        let err = parse_test(&many, Options::default()).unwrap_err();
        assert_eq!(err.key.as_deref(), Some("profiles"));
        assert!(
            err.message.contains(&MAX_PROFILES.to_string()),
            "{}",
            err.message
        );
        let at_limit: String = (0..MAX_PROFILES)
            .map(|i| format!("[profiles.p{i}]\n"))
            .collect();
        assert!(parse_test(&at_limit, Options::default()).is_ok());
        let list = |n: usize| format!("[{}]", vec!["\"a\""; n].join(","));
        for key in ["include", "exclude"] {
            let err = parse_test(
                &format!("{key} = {}", list(MAX_LIST_ENTRIES + 1)),
                Options::default(),
            )
            .unwrap_err();
            assert_eq!(err.key.as_deref(), Some(key));
            assert!(err.message.contains("1000"), "{}", err.message);
            assert!(
                parse_test(
                    &format!("{key} = {}", list(MAX_LIST_ENTRIES)),
                    Options::default()
                )
                .is_ok()
            );
        }
        let err = parse_test(
            &format!(
                "[profiles.x.secrets]\nallow_fingerprints = {}",
                list(MAX_LIST_ENTRIES + 1)
            ),
            Options::default(),
        )
        .unwrap_err();
        assert_eq!(
            err.key.as_deref(),
            Some("profiles.x.secrets.allow_fingerprints")
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
        assert_eq!(o.secrets.mode, SecretsMode::Block);
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
