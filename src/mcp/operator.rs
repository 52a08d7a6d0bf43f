//! The operator's settings: one table ([`SETTINGS`]) of every `GNAW_MCP_*` variable. Each row
//! is a setting's name, what its value must be, its help, how it is applied and how its value is
//! shown; `gnaw-mcp --help`, the `--config FILE` keys (the variable's name lowercased without
//! `GNAW_MCP_`), the checks of both and `--print-config` all come from it.
//!
//! Sources, strongest first: the environment, then the config file, then the defaults. Values
//! are read once, before anything is confined; a bad value or an unknown key is an error naming
//! where it came from (the variable, or the file and key) and what it must be.
//!
//! | module | job |
//! |---|---|
//! | `settings.rs` | the table itself, and the readers its rows share |
//! | `file.rs` | a `--config` file's text read into settings |
//! | `help.rs` | the settings' part of `--help` |
//!
//! This file holds what a setting is, the resolution of the sources, `--print-config`, and the
//! reading of the config file from disk.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use gnaw_sandbox::SandboxMode;

mod file;
mod help;
mod settings;

pub use file::parse_file;
pub use help::help;
pub use settings::SETTINGS;

use super::config::Config;
use super::http::settings::Settings as HttpSettings;
use super::selection::ToolSet;
use crate::vocab::excerpt;

/// The prefix of every variable.
pub const PREFIX: &str = "GNAW_MCP_";
/// The largest config file read.
const MAX_CONFIG_FILE: u64 = 1 << 20;

/// Everything the operator set, applied to the defaults.
#[derive(Clone, Debug, Default)]
pub struct Operator {
    /// The stdio server's limits and every call's policy.
    pub config: Config,
    /// The HTTP front door's bounds and options.
    pub http: HttpSettings,
    /// The tools offered.
    pub tools: ToolSet,
    /// The directories served (`None`: the working directory).
    pub roots: Option<Vec<PathBuf>>,
    /// Whether the server confines itself (Landlock and seccomp), and how strictly.
    pub sandbox: SandboxMode,
    /// The address `--listen` serves, when set by a setting.
    pub listen: Option<String>,
    /// The tenants file.
    pub tenants: Option<PathBuf>,
    /// Where the HTTP audit trail goes, when not stderr.
    pub audit_fd: Option<i32>,
    /// The settings the config file gave and the environment did not, as variables: what a
    /// re-executed child of this process (a self-test child, a tenant's worker) needs to see
    /// the same settings without reading the file.
    pub from_file: Vec<(OsString, OsString)>,
}

/// The part of `--help` a setting is listed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    /// Every server, stdio or HTTP.
    Server,
    /// `--listen` only.
    Http,
}

/// How a value is written in a config file, and joined when it is a TOML array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A number (a TOML integer or string).
    Number,
    /// A byte count: a number or a size string such as `"16MiB"`.
    Size,
    /// A word or text (a TOML string).
    Text,
    /// A path (a TOML string; relative to the config file's directory).
    Path,
    /// Paths (a TOML string or array; each relative to the config file's directory), joined as
    /// the variable lists them (`:`).
    Paths,
    /// Names (a TOML string or array), joined with commas.
    List,
}

/// Applies a value to the settings; the error says what the value must be.
type Apply = fn(&OsStr, &mut Operator) -> Result<(), String>;
/// The value a setting has, written as it would be set (`-` when unset).
type Show = fn(&Operator) -> String;

/// One setting.
pub struct Setting {
    /// The name without the prefix, lowercased: the config file's key.
    pub key: &'static str,
    /// The part of `--help` it is listed in.
    pub group: Group,
    /// How its value is written in a config file.
    pub kind: Kind,
    /// The help, without the default (which [`Setting::show`] gives).
    pub help: &'static str,
    apply: Apply,
    show: Show,
}

impl Setting {
    /// The environment variable (`GNAW_MCP_` and the key in capitals).
    pub fn var(&self) -> String {
        format!("{PREFIX}{}", self.key.to_ascii_uppercase())
    }

    /// Its value in `operator`.
    pub fn show(&self, operator: &Operator) -> String {
        (self.show)(operator)
    }
}

/// The setting whose variable is `var`.
pub fn by_var(var: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.var() == var)
}

/// The setting whose config-file key is `key`.
pub fn by_key(key: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.key == key)
}

impl Operator {
    /// The settings from the environment (`var` reads a variable) over the config file at
    /// `file`, when given, over the defaults.
    pub fn load(
        file: Option<&Path>,
        var: impl Fn(&str) -> Option<OsString>,
    ) -> Result<Operator, String> {
        let file = match file {
            Some(path) => Some((path, read_file(path)?)),
            None => None,
        };
        Operator::resolve(file, var)
    }

    /// The settings of this process: its environment over `file`.
    pub fn from_process(file: Option<&Path>) -> Result<Operator, String> {
        Operator::load(file, |name| std::env::var_os(name))
    }

    /// [`Operator::load`] with the file already read ([`parse_file`]).
    pub fn resolve(
        file: Option<(&Path, BTreeMap<&'static str, OsString>)>,
        var: impl Fn(&str) -> Option<OsString>,
    ) -> Result<Operator, String> {
        let mut operator = Operator::default();
        for setting in SETTINGS {
            let name = setting.var();
            if let Some(value) = var(&name) {
                (setting.apply)(&value, &mut operator).map_err(|why| {
                    format!(
                        "{name}: {why}; got \"{}\" (unset it to use the default, {})",
                        excerpt(&value.to_string_lossy()),
                        setting.show(&Operator::default())
                    )
                })?;
            } else if let Some((path, value)) = file
                .as_ref()
                .and_then(|(path, values)| Some((path, values.get(setting.key)?)))
            {
                (setting.apply)(value, &mut operator).map_err(|why| {
                    format!(
                        "{}: `{}` {why}; got \"{}\"",
                        path.display(),
                        setting.key,
                        excerpt(&value.to_string_lossy())
                    )
                })?;
                operator.from_file.push((name.into(), value.clone()));
            }
        }
        operator.http.max_body_bytes = operator.config.max_line_bytes;
        Ok(operator)
    }

    /// Every setting's value, as a config file would set it (`--print-config`).
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        for setting in SETTINGS {
            let value = setting.show(self);
            let unset = value == "-" || (setting.key == "root" && self.roots.is_none());
            let line = match setting.kind {
                Kind::Number if !unset => format!("{} = {value}", setting.key),
                _ => format!("{} = {}", setting.key, toml_string(&value)),
            };
            if unset {
                out.push_str(&format!("# {} (unset)\n", setting.key));
            } else {
                out.push_str(&line);
                out.push('\n');
            }
        }
        out
    }
}

/// `s` as a TOML basic string.
fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// An operator's file (`--config`, the tenants file) read as text, at most `max` bytes, through
/// the one door to user files (`gnaw_sandbox::user_file`): never through a link, never waiting
/// on a FIFO, nothing but a regular file. Its directory, its path as shown, and its text. Its
/// errors name it by `named`: the flag or variable, what joins it to the path, and what an I/O
/// error could not do (`("--config", " ", "open")`, `("GNAW_MCP_TENANTS", "=", "read")`).
pub(crate) fn read_operator_file(
    path: &Path,
    (what, joined, io_verb): (&str, &str, &str),
    max: u64,
) -> Result<(PathBuf, String, String), String> {
    use gnaw_sandbox::user_file::{self, UserDir, UserFileError};
    let shown = crate::vocab::display_path(path.as_os_str().as_bytes());
    let (dir, name) = user_file::split(path)
        .map_err(|_| format!("{what}{joined}{shown} names a directory; give the file's path"))?;
    let bytes = match UserDir::open(&dir).and_then(|d| d.read(&name, max)) {
        Ok(Some(file)) => file.bytes,
        Ok(None) => {
            return Err(format!(
                "{what}: cannot open {shown}: there is no such file"
            ));
        }
        Err(e @ UserFileError::Io(_)) => {
            return Err(format!("{what}: cannot {io_verb} {shown}: it {e}"));
        }
        Err(e @ UserFileError::Link(_)) => {
            return Err(format!(
                "{what}: {shown} {e}; give the path of the file it points to (gnaw-mcp follows \
                 no link to a file it reads for you)"
            ));
        }
        Err(e) => return Err(format!("{what}: {shown} {e}")),
    };
    let text =
        String::from_utf8(bytes).map_err(|_| format!("{what}: {shown} is not UTF-8 text"))?;
    Ok((dir, shown, text))
}

/// Read the config file: a TOML table of settings by key, each value as its variable would
/// hold it. Relative paths are taken from the file's directory (the working directory for a
/// bare file name). Read through the one door to user files (`gnaw_sandbox::user_file`): never
/// through a link, never waiting on a FIFO, at most [`MAX_CONFIG_FILE`] bytes.
fn read_file(path: &Path) -> Result<BTreeMap<&'static str, OsString>, String> {
    let (dir, shown, text) = read_operator_file(path, ("--config", " ", "open"), MAX_CONFIG_FILE)?;
    // Absolute, so that what --print-config shows means the same read from anywhere.
    let base =
        std::path::absolute(&dir).map_err(|e| format!("--config: cannot resolve {shown}: {e}"))?;
    parse_file(&text, &base).map_err(|e| format!("{shown}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn load(env: &[(&str, &str)], file: Option<&str>) -> Result<Operator, String> {
        let env: HashMap<String, OsString> = env
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        let dir = std::env::temp_dir();
        let file = match file {
            Some(text) => Some((dir.as_path(), parse_file(text, &dir)?)),
            None => None,
        };
        Operator::resolve(file, |name| env.get(name).cloned())
    }

    #[test]
    fn every_variable_has_one_row_and_a_unique_key() {
        let mut keys: Vec<&str> = SETTINGS.iter().map(|s| s.key).collect();
        keys.sort_unstable();
        let n = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), n, "a key is listed twice");
        for s in SETTINGS {
            assert_eq!(s.key, s.key.to_ascii_lowercase());
            assert!(by_var(&s.var()).is_some());
        }
    }

    #[test]
    fn the_defaults_apply_back_to_themselves() {
        // What --help shows as a default is a value the setting accepts, and it means the
        // default: applying it changes nothing that is shown.
        let defaults = Operator::default();
        for s in SETTINGS {
            let shown = s.show(&defaults);
            if shown == "-" || s.key == "root" {
                continue;
            }
            let mut o = Operator::default();
            (s.apply)(OsStr::new(&shown), &mut o).unwrap_or_else(|e| panic!("{}: {e}", s.key));
            assert_eq!(s.show(&o), shown, "{}", s.key);
        }
    }

    #[test]
    fn the_environment_wins_over_the_file() {
        let o = load(
            &[("GNAW_MCP_MAX_DEPTH", "7")],
            Some("max_depth = 9\ndefault_max_chars = 1234\n"),
        )
        .unwrap();
        assert_eq!(o.config.policy.max_depth, 7);
        assert_eq!(o.config.default_max_chars, 1234);
    }

    #[test]
    fn file_values_take_toml_types() {
        let o = load(
            &[],
            Some(
                "tools = [\"read\", \"grep\"]\ncache_bytes = \"8MiB\"\n\
                 allowed_origins = [\"https://a.example\", \"https://b.example/\"]\n\
                 root = [\"/srv/a\", \"rel\"]\nsecrets_floor = \"redact\"\naudit_fd = 3\n",
            ),
        )
        .unwrap();
        assert_eq!(o.tools.names(), vec!["grep", "read"]);
        assert_eq!(o.config.cache_bytes, 8 << 20);
        assert_eq!(
            o.http.allowed_origins,
            vec!["https://a.example", "https://b.example"]
        );
        let roots = o.roots.unwrap();
        assert_eq!(roots[0], PathBuf::from("/srv/a"));
        assert_eq!(roots[1], std::env::temp_dir().join("rel"));
        assert_eq!(o.audit_fd, Some(3));
    }

    #[test]
    fn unknown_keys_name_the_nearest() {
        let e = parse_file("max_dept = 3\n", Path::new("/")).unwrap_err();
        assert!(e.contains("unknown key `max_dept`"), "{e}");
        assert!(e.contains("did you mean `max_depth`?"), "{e}");
        let e = parse_file("GNAW_MCP_TOOLS = \"read\"\n", Path::new("/")).unwrap_err();
        assert!(e.contains("so `tools`"), "{e}");
    }

    #[test]
    fn bad_values_say_what_they_must_be() {
        let e = parse_file("max_depth = \"deep\"\n", Path::new("/"))
            .and_then(|m| {
                let mut o = Operator::default();
                (by_key("max_depth").unwrap().apply)(&m["max_depth"], &mut o)
            })
            .unwrap_err();
        assert!(e.contains("positive number of directory levels"), "{e}");
        let e = parse_file("max_depth = true\n", Path::new("/")).unwrap_err();
        assert!(
            e.contains("`max_depth` must be a number; got boolean"),
            "{e}"
        );
        let e = parse_file("max_depth = \n", Path::new("/")).unwrap_err();
        assert!(e.contains("not valid TOML at line 1"), "{e}");
    }

    #[test]
    fn help_lists_every_variable_with_its_default() {
        let h = help();
        for s in SETTINGS {
            assert!(h.contains(&s.var()), "{}", s.var());
        }
        let flat = h.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains(
                "GNAW_MCP_MAX_DEPTH deepest directory level walked, below the repo (default: 256)"
            ),
            "{h}"
        );
        assert!(
            flat.contains("follow_links: symbolic links are followed"),
            "{h}"
        );
        assert!(h.lines().all(|l| l.chars().count() <= 100), "{h}");
    }

    #[test]
    fn a_public_url_is_an_origin_as_browsers_write_it() {
        let o = load(
            &[("GNAW_MCP_PUBLIC_URL", "https://mcp.example.com:443/")],
            None,
        )
        .unwrap();
        assert_eq!(
            o.http.public_url.as_deref(),
            Some("https://mcp.example.com")
        );
        let o = load(&[("GNAW_MCP_PUBLIC_URL", "http://h:8080")], None).unwrap();
        assert_eq!(o.http.public_url.as_deref(), Some("http://h:8080"));
        let e = load(&[("GNAW_MCP_PUBLIC_URL", "https://h/mcp")], None).unwrap_err();
        assert!(e.contains("a path prefix is not supported"), "{e}");
        let o = load(
            &[("GNAW_MCP_TRUSTED_PROXIES", "::ffff:127.0.0.1, ::1")],
            None,
        )
        .unwrap();
        assert_eq!(o.http.trusted_proxies[0].to_string(), "127.0.0.1");
    }

    #[test]
    fn print_config_round_trips() {
        // The defaults, and settings changed: the printed file read back serves the same.
        for env in [&[][..], &[("GNAW_MCP_TOOLS", "minimal,log")][..]] {
            let o = load(env, None).unwrap();
            let text = o.to_toml();
            let back = load(&[], Some(&text)).unwrap();
            for s in SETTINGS {
                assert_eq!(s.show(&back), s.show(&o), "{}", s.key);
            }
            assert_eq!(back.tools.names(), o.tools.names(), "{text}");
        }
    }
}
