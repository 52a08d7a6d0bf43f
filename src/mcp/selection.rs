//! Which tools this server offers: the operator's `GNAW_MCP_TOOLS`, narrowed (never widened) by
//! the `tools` key of the root's `.gnawconfig`. `tools/list`, `tools/call`, the `instructions`
//! text and the unknown-tool error all read the one [`ToolSet`], so a tool that is off is absent
//! from the list and a call to it is refused with the setting that turned it off.
//!
//! A selection is a list of items, separated by commas or spaces: a tool's name turns it on, a
//! preset (`minimal`: read, grep, tree, search; `all`) turns on its tools, and `-name` turns one
//! off. A list that turns nothing on starts from the default set (every tool but the opt-in
//! ones, [`OPT_IN`]: `hotspots` and `overview`, each on only when named or with `all`), so
//! `-changes,-log` removes two; `minimal,log` is five tools; `all,-hotspots` is the default set
//! with `overview`.

use super::containment::Containment;
use super::tool::Tool;
use super::tools::TOOLS;
use crate::driver::options;
use crate::spec::{ExtractionSpec, Mode, Overrides, Policy};
use serde_json::Value;

/// The operator's environment variable.
pub const ENV: &str = "GNAW_MCP_TOOLS";
/// The presets, by name, and their tools (`all` is every registered tool).
pub const PRESETS: [(&str, &[&str]); 1] = [("minimal", &["read", "grep", "tree", "search"])];
/// The tools off unless named (or turned on by `all`): `hotspots` and `overview`, as the default
/// set's definitions must stay under 16,000 characters in `tools/list` (Python's spacing;
/// 15,000 compact, `tests/protocol/schemas.rs`), and the eleven others already take 14,988
/// compact: `overview` alone would add 1,288. Making room for it would mean cutting about
/// a hundred characters from every other tool's definition, which their descriptions cannot
/// lose and stay useful.
pub const OPT_IN: [&str; 2] = ["hotspots", "overview"];
/// Longest selection accepted, in bytes: a list of every tool name fits many times over.
const MAX_SPEC_BYTES: usize = 4096;

/// The tools on, as a bit per registered tool, and where the selection came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSet {
    on: u64,
    /// The operator's selection as given, when set.
    operator: Option<String>,
    /// Each root's `tools` list that turned anything off, with the root's `repo` name
    /// (`.` when there is one root).
    repo: Vec<(String, Vec<String>)>,
}

impl Default for ToolSet {
    /// Every registered tool but the [`OPT_IN`] ones.
    fn default() -> ToolSet {
        ToolSet {
            on: default_set(),
            operator: None,
            repo: Vec::new(),
        }
    }
}

fn every() -> u64 {
    (0..TOOLS.len()).fold(0, |m, i| m | 1 << i)
}

/// The default set: every tool but the [`OPT_IN`] ones.
fn default_set() -> u64 {
    OPT_IN
        .iter()
        .filter_map(|t| bit(t))
        .fold(every(), |m, b| m & !b)
}

fn bit(name: &str) -> Option<u64> {
    TOOLS.iter().position(|t| t.name() == name).map(|i| 1 << i)
}

fn names_of(mask: u64) -> Vec<&'static str> {
    TOOLS
        .iter()
        .enumerate()
        .filter(|(i, _)| mask & (1 << i) != 0)
        .map(|(_, t)| t.name())
        .collect()
}

/// The set an item list selects. `strict`: an unknown name is an error (the operator's
/// setting); otherwise it is skipped with a warning (a repository's list, which can only
/// narrow).
fn select<'a>(items: impl Iterator<Item = &'a str>, strict: bool) -> Result<u64, String> {
    let (mut on, mut off, mut any_on) = (0u64, 0u64, false);
    for item in items {
        let (negated, name) = match item.strip_prefix('-') {
            Some(n) => (true, n),
            None => (false, item),
        };
        let mask = match name {
            "all" => every(),
            _ => match PRESETS.iter().find(|(p, _)| *p == name) {
                Some((_, tools)) => tools.iter().filter_map(|t| bit(t)).fold(0, |m, b| m | b),
                None => match bit(name) {
                    Some(b) => b,
                    None if strict => return Err(unknown(name)),
                    None => {
                        log::warn!(".gnawconfig `tools`: {}; ignored", unknown(name));
                        continue;
                    }
                },
            },
        };
        if negated {
            off |= mask;
        } else {
            on |= mask;
            any_on = true;
        }
    }
    let base = if any_on { on } else { default_set() };
    Ok(base & !off)
}

fn unknown(name: &str) -> String {
    let shown: String = name.chars().take(64).collect();
    let presets: Vec<&str> = PRESETS.iter().map(|(p, _)| *p).collect();
    format!(
        "unknown tool {shown:?}; the tools are {}, and the presets {} and all",
        names_of(every()).join(", "),
        presets.join(", ")
    )
}

fn items(spec: &str) -> impl Iterator<Item = &str> {
    spec.split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
}

impl ToolSet {
    /// The operator's selection `spec` (the value of [`ENV`]).
    pub fn parse(spec: &str) -> Result<ToolSet, String> {
        if spec.len() > MAX_SPEC_BYTES {
            return Err(format!("longer than {MAX_SPEC_BYTES} bytes"));
        }
        if items(spec).next().is_none() {
            return Err(
                "names no tool; give names (read,grep), -name to remove one, minimal or \
                        all, or unset it for every tool"
                    .into(),
            );
        }
        let on = select(items(spec), true)?;
        if on == 0 {
            return Err("turns every tool off".into());
        }
        Ok(ToolSet {
            on,
            operator: Some(spec.trim().to_string()),
            repo: Vec::new(),
        })
    }

    /// The operator's selection as given, when set.
    pub fn operator_spec(&self) -> Option<&str> {
        self.operator.as_deref()
    }

    /// Narrow to what a repository's `tools` list selects (unknown names are ignored). It can
    /// only turn tools off.
    pub fn narrowed_by(self, repo: &[String]) -> ToolSet {
        self.narrowed_by_root_list(".", repo)
    }

    /// [`ToolSet::narrowed_by`] for the root `root` (its `repo` name).
    fn narrowed_by_root_list(mut self, root: &str, repo: &[String]) -> ToolSet {
        let chosen = select(repo.iter().flat_map(|s| items(s)), false).unwrap_or(0);
        let on = self.on & chosen;
        if on != self.on {
            self.on = on;
            self.repo.push((root.to_string(), repo.to_vec()));
        }
        self
    }

    /// Narrow to the `tools` list of the `.gnawconfig` at each root of `containment` (read as
    /// any call reads it, under `policy`): with several roots, a tool is offered only if every
    /// root's list allows it. A root without one, or whose config does not parse, narrows
    /// nothing: the operator's set stands (a broken config fails every call anyway).
    pub fn narrowed_by_root(self, containment: &dyn Containment, policy: Policy) -> ToolSet {
        containment.roots().iter().fold(self, |set, root| {
            set.narrowed_by_one(containment, root, policy)
        })
    }

    fn narrowed_by_one(
        self,
        containment: &dyn Containment,
        root: &Value,
        policy: Policy,
    ) -> ToolSet {
        let Ok(repo) = containment.contain(root) else {
            return self;
        };
        let spec = ExtractionSpec {
            repo,
            overrides: Overrides::default(),
            paths: None,
            mode: Mode::Estimate,
            observer: None,
            policy,
            cache: None,
        };
        let options = spec
            .repo
            .open()
            .map_err(|e| e.to_string())
            .and_then(|dir| options::resolve(&dir, &spec).map_err(|e| e.to_string()));
        match options {
            Ok(o) => match o.tools {
                Some(list) => self.narrowed_by_root_list(root.as_str().unwrap_or("."), &list),
                None => self,
            },
            Err(e) => {
                log::warn!("the .gnawconfig of root {root} was not read for its `tools` list: {e}");
                self
            }
        }
    }

    /// Whether the tool called `name` is on.
    pub fn contains(&self, name: &str) -> bool {
        bit(name).is_some_and(|b| self.on & b != 0)
    }

    /// The tools on, in registry order.
    pub fn tools(&self) -> Vec<&'static dyn Tool> {
        TOOLS
            .iter()
            .enumerate()
            .filter(|(i, _)| self.on & (1 << i) != 0)
            .map(|(_, t)| *t)
            .collect()
    }

    /// The names of the tools on.
    pub fn names(&self) -> Vec<&'static str> {
        names_of(self.on)
    }

    /// Why the registered tool `name` is not offered, naming the setting that turned it off.
    pub fn off_message(&self, name: &str) -> String {
        let by_root = self.repo.iter().find(|(_, list)| {
            select(list.iter().flat_map(|s| items(s)), false)
                .is_ok_and(|m| bit(name).is_some_and(|b| m & b == 0))
        });
        let by = match (by_root, &self.operator) {
            (Some((root, list)), _) => {
                let whose = if root == "." {
                    "the root's".to_string()
                } else {
                    format!("root {root:?}'s")
                };
                format!(
                    "the `tools` list of {whose} .gnawconfig ({list:?}), which may narrow the operator's set but not widen it"
                )
            }
            (_, Some(spec)) => format!("the operator's {ENV}={spec:?}"),
            _ => "this server's settings".to_string(),
        };
        format!(
            "Tool {name:?} is turned off on this server by {by}; the tools offered are {}",
            self.names().join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_names_and_removals() {
        let default = ToolSet::default();
        assert_eq!(default.names().len(), TOOLS.len() - OPT_IN.len());
        assert!(!default.contains("hotspots") && !default.contains("overview"));
        assert!(ToolSet::parse("all").unwrap().contains("hotspots"));
        let with_overview = ToolSet::parse("all,-hotspots").unwrap();
        assert_eq!(with_overview.names().len(), default.names().len() + 1);
        assert!(with_overview.contains("overview"));
        assert!(ToolSet::parse("-log,hotspots").unwrap().names() == ["hotspots"]);
        let min = ToolSet::parse("minimal").unwrap();
        assert_eq!(min.names(), ["tree", "grep", "search", "read"]);
        let less = ToolSet::parse("-changes,-log").unwrap();
        assert_eq!(less.names().len(), TOOLS.len() - OPT_IN.len() - 2);
        assert!(!less.contains("log") && !less.contains("changes") && less.contains("read"));
        let five = ToolSet::parse("minimal log").unwrap();
        assert_eq!(five.names().len(), 5);
        assert_eq!(
            ToolSet::parse(" all , -log ").unwrap().names().len(),
            TOOLS.len() - 1
        );
        assert!(
            ToolSet::parse("read,grepp")
                .unwrap_err()
                .contains("\"grepp\"")
        );
        assert!(ToolSet::parse("").unwrap_err().contains("names no tool"));
        assert!(
            ToolSet::parse("-all")
                .unwrap_err()
                .contains("every tool off")
        );
        assert!(ToolSet::parse(&"read,".repeat(2000)).is_err());
    }

    #[test]
    fn a_repository_only_narrows() {
        let min = ToolSet::parse("minimal").unwrap();
        // Asking for more than the operator allows gives nothing more.
        let repo = vec!["all".to_string(), "log".to_string()];
        assert_eq!(min.clone().narrowed_by(&repo), min);
        let repo = vec!["-grep".to_string(), "nosuchtool".to_string()];
        let narrowed = min.clone().narrowed_by(&repo);
        assert_eq!(narrowed.names(), ["tree", "search", "read"]);
        assert!(narrowed.off_message("grep").contains(".gnawconfig"));
        assert!(
            narrowed
                .off_message("log")
                .contains("GNAW_MCP_TOOLS=\"minimal\"")
        );
    }
}
