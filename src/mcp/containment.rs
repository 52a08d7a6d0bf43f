//! The only route from a tool's `repo` argument to a directory the pipeline reads: a
//! [`Containment`] turns the raw JSON value into a [`ContainedDir`] or a named rejection. In
//! gnaw-mcp it is the sandbox's [`Roots`] (one root or several, from `GNAW_MCP_ROOT`); tests may
//! substitute a single [`Root`] or their own. A call that gives no `repo` reads the root when
//! there is one ([`Containment::contain_default`]).

use crate::vocab::ErrorKind;
use gnaw_sandbox::{ContainedDir, Root, Roots};
use serde_json::{Value, json};

/// Why a `repo` argument was refused: a stable kind (`OutsideRoot`, `NotFound`, ...) and a
/// message that never repeats anything read from outside the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejected {
    /// The stable kind of refusal (`OutsideRoot`, `NotFound`, ...).
    pub kind: ErrorKind,
    /// The message for the client; it repeats nothing read from outside the root.
    pub message: String,
}

/// Turns an untrusted `repo` value into a directory proven to lie under the server's root.
pub trait Containment: Send + Sync {
    /// The directory `repo` names, proven to lie under a root, or why it is refused.
    fn contain(&self, repo: &Value) -> Result<ContainedDir, Rejected>;

    /// The `repo` values that name each root (`.` when there is one).
    fn roots(&self) -> Vec<Value> {
        vec![json!(".")]
    }

    /// A sentence for the model about the roots, when `repo` must start with a root's name.
    fn describe(&self) -> Option<String> {
        None
    }

    /// Each root's name, as a resource URI names it (`gnaw://NAME/path`), in the order of
    /// [`Containment::roots`].
    fn names(&self) -> Vec<String> {
        vec!["root".into()]
    }

    /// The directory a call that gives no `repo` reads: the root, when there is one; with
    /// several, the refusal that says `repo` is required and lists the roots.
    fn contain_default(&self) -> Result<ContainedDir, Rejected> {
        match self.roots().as_slice() {
            [only] => self.contain(only),
            roots => {
                let names: Vec<String> = roots
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|n| format!("\"{n}\""))
                    .collect();
                Err(Rejected {
                    kind: ErrorKind::InvalidArguments,
                    message: format!(
                        "argument \"repo\" is required: this server reads several roots, so \
                         name one of {}, or a directory under one (e.g. \"{}/src\")",
                        names.join(", "),
                        roots.first().and_then(Value::as_str).unwrap_or("NAME")
                    ),
                })
            }
        }
    }
}

/// The sandbox's root as the server's containment (`gnaw_sandbox::Root::contain_json`).
pub struct RootContainment(pub Root);

impl Containment for RootContainment {
    fn contain(&self, repo: &Value) -> Result<ContainedDir, Rejected> {
        self.0.contain_json(repo).map_err(|r| Rejected {
            kind: ErrorKind::from(&r),
            message: r.to_string(),
        })
    }
}

/// Several roots (or one): a `repo` starts with a root's name when there are several
/// (`gnaw_sandbox::Roots::contain_json`).
impl Containment for Roots {
    fn contain(&self, repo: &Value) -> Result<ContainedDir, Rejected> {
        self.contain_json(repo).map_err(|r| Rejected {
            kind: ErrorKind::from(&r),
            message: r.to_string(),
        })
    }

    fn roots(&self) -> Vec<Value> {
        self.repo_names().into_iter().map(Value::String).collect()
    }

    fn names(&self) -> Vec<String> {
        self.iter().map(|r| r.name().to_string()).collect()
    }

    fn describe(&self) -> Option<String> {
        (self.len() > 1).then(|| {
            format!(
                "This server reads {} directories, each by name: every `repo` starts with one of \
                 {} (e.g. `{}` or `{}/src`).",
                self.len(),
                self.names(),
                self.iter().next().map_or("", |r| r.name()),
                self.iter().next().map_or("", |r| r.name()),
            )
        })
    }
}
