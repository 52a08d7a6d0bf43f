//! The tenants file of `gnaw-mcp --listen` (`GNAW_MCP_TENANTS`): who may call, with which
//! token, on which roots. Each tenant is named by its table and holds the SHA-256 of its bearer
//! token (never the token itself), its roots (as `GNAW_MCP_ROOT`'s list), and optionally its
//! tool selection (as `GNAW_MCP_TOOLS`) and secrets floor (as `GNAW_MCP_SECRETS_FLOOR`):
//!
//! ```toml
//! [tenants.alice]
//! token_sha256 = "<64 hex digits>"
//! roots = ["/srv/repos/app", "/srv/repos/sdk"]
//! tools = "minimal"
//! secrets_floor = "redact"
//! # Roots another tenant's roots may overlap (the same directory, or one inside the other);
//! # without it, such roots are refused at startup.
//! shares_with = ["bob"]
//! ```
//!
//! Unknown keys are refused by name. A token is found by hashing it and comparing the hash with
//! every tenant's in constant time ([`Tenants::find`]). [`mint`] makes a fresh token.

use std::path::PathBuf;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use crate::mcp::selection::ToolSet;
use crate::vocab::SecretsMode;

/// One tenant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tenant {
    /// Its table's name: `[tenants.NAME]`.
    pub name: String,
    /// SHA-256 of its bearer token.
    pub token_sha256: [u8; 32],
    /// The directories its worker may read.
    pub roots: Vec<PathBuf>,
    /// Its tool selection, as `GNAW_MCP_TOOLS` (the operator's when absent).
    pub tools: Option<String>,
    /// Its secrets floor, as `GNAW_MCP_SECRETS_FLOOR` (the operator's when absent).
    pub secrets_floor: Option<String>,
    /// The tenants whose roots it may share (the same directory, or one inside the other):
    /// without this, such roots are refused at startup.
    pub shares_with: Vec<String>,
}

/// Every tenant, in the file's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tenants {
    /// The tenants, in the file's order.
    pub list: Vec<Tenant>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    tenants: std::collections::BTreeMap<String, Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    token_sha256: String,
    roots: Vec<PathBuf>,
    tools: Option<String>,
    secrets_floor: Option<String>,
    #[serde(default)]
    shares_with: Vec<String>,
}

impl Tenants {
    /// Parse and check a tenants file's text; errors name the tenant and key.
    pub fn parse(text: &str) -> Result<Tenants, String> {
        let file: File = toml::from_str(text).map_err(|e| {
            format!(
                "{}; expected [tenants.NAME] tables with token_sha256, roots and optionally \
                 tools, secrets_floor and shares_with",
                e.message()
            )
        })?;
        if file.tenants.is_empty() {
            return Err("no tenant: add a [tenants.NAME] table".into());
        }
        let mut list = Vec::new();
        for (name, entry) in file.tenants {
            let at = |what: &str| format!("[tenants.{name}] {what}");
            check_name(&name)?;
            let token_sha256 = parse_hex(&entry.token_sha256).ok_or_else(|| {
                at("token_sha256 must be 64 hex digits (gnaw-mcp --mint-token NAME prints one)")
            })?;
            if list.iter().any(|t: &Tenant| t.token_sha256 == token_sha256) {
                return Err(at(
                    "token_sha256 is another tenant's too: mint a token each",
                ));
            }
            if entry.roots.is_empty() {
                return Err(at(
                    "roots is empty: list the directories this tenant may read",
                ));
            }
            if let Some(root) = entry.roots.iter().find(|r| !r.is_absolute()) {
                return Err(at(&format!(
                    "roots: {} is not an absolute path",
                    root.display()
                )));
            }
            if let Some(tools) = &entry.tools {
                ToolSet::parse(tools).map_err(|e| at(&format!("tools: {e}")))?;
            }
            if let Some(floor) = &entry.secrets_floor {
                floor.parse::<SecretsMode>().map_err(|_| {
                    at(&format!(
                        "secrets_floor: {floor:?} is not off, warn, redact or block"
                    ))
                })?;
            }
            list.push(Tenant {
                name,
                token_sha256,
                roots: entry.roots,
                tools: entry.tools,
                secrets_floor: entry.secrets_floor,
                shares_with: entry.shares_with,
            });
        }
        for tenant in &list {
            if let Some(unknown) = tenant
                .shares_with
                .iter()
                .find(|n| !list.iter().any(|t| &t.name == *n) || **n == tenant.name)
            {
                return Err(format!(
                    "[tenants.{}] shares_with: {unknown:?} is not another tenant of this file",
                    tenant.name
                ));
            }
        }
        Ok(Tenants { list })
    }

    /// The tenant whose token this is. Every tenant's hash is compared, each in constant time,
    /// so neither the answer's time nor its path says how much of a hash matched or which
    /// tenant was compared first.
    pub fn find(&self, token: &str) -> Option<usize> {
        let hash = sha256(token.as_bytes());
        let mut found = None;
        for (i, tenant) in self.list.iter().enumerate() {
            if constant_time_eq(&hash, &tenant.token_sha256) {
                found = Some(i);
            }
        }
        found
    }
}

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Lowercase hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// 64 hex digits as 32 bytes.
pub fn parse_hex(text: &str) -> Option<[u8; 32]> {
    let text = text.trim();
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

/// Equality whose time does not depend on where the inputs differ.
pub fn constant_time_eq(a: &[u8; 32], b: &[u8; 32]) -> bool {
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// `n` random bytes from the OS, as hex.
pub fn random_hex(n: usize) -> Result<String, String> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes).map_err(|e| format!("the OS gave no random bytes: {e}"))?;
    Ok(hex(&bytes))
}

/// Whether `name` may name a tenant (`[tenants.NAME]`): 1 to 64 ASCII letters, digits, `-` or
/// `_`, a bare TOML key. The one check for the tenants file and for `--mint-token`.
pub fn check_name(name: &str) -> Result<(), String> {
    let fits = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if fits {
        return Ok(());
    }
    Err(format!(
        "tenant name \"{}\": use 1 to 64 letters, digits, '-' or '_'",
        crate::vocab::display_path(&name.as_bytes()[..name.len().min(80)])
    ))
}

/// A fresh token for `tenant`, and the text to show: the token once, and the line to add. A
/// name the tenants file would refuse is refused here, before a token is made.
pub fn mint(tenant: &str) -> Result<(String, String), String> {
    check_name(tenant)?;
    let token = format!("gnaw_{}", random_hex(32)?);
    let line = format!(
        "token (shown once; give it to the client as `Authorization: Bearer <token>`):\n{token}\n\n\
         add to the tenants file (GNAW_MCP_TENANTS):\n[tenants.{tenant}]\n\
         token_sha256 = \"{}\"\nroots = [\"/path/to/repo\"]\n",
        hex(&sha256(token.as_bytes()))
    );
    Ok((token, line))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(extra: &str) -> String {
        format!(
            "[tenants.alice]\ntoken_sha256 = \"{}\"\nroots = [\"/srv/a\"]\n{extra}",
            hex(&sha256(b"secret-a"))
        )
    }

    #[test]
    fn a_tenant_is_found_by_its_token_only() {
        let tenants =
            Tenants::parse(&file("tools = \"minimal\"\nsecrets_floor = \"redact\"\n")).unwrap();
        assert_eq!(tenants.list[0].tools.as_deref(), Some("minimal"));
        assert_eq!(tenants.find("secret-a"), Some(0));
        assert_eq!(tenants.find("secret-b"), None);
        assert_eq!(tenants.find(""), None);
    }

    #[test]
    fn unknown_keys_and_bad_values_are_named() {
        let e = Tenants::parse(&file("colour = \"red\"\n")).unwrap_err();
        assert!(e.contains("colour"), "{e}");
        let e = Tenants::parse(&file("secrets_floor = \"loose\"\n")).unwrap_err();
        assert!(e.contains("[tenants.alice] secrets_floor"), "{e}");
        let e = Tenants::parse(&file("tools = \"nope\"\n")).unwrap_err();
        assert!(e.contains("[tenants.alice] tools"), "{e}");
        let e =
            Tenants::parse("[tenants.bob]\ntoken_sha256 = \"ab\"\nroots = [\"/x\"]\n").unwrap_err();
        assert!(e.contains("token_sha256 must be 64 hex"), "{e}");
        let e = Tenants::parse(&format!(
            "[tenants.bob]\ntoken_sha256 = \"{}\"\nroots = [\"rel\"]\n",
            "0".repeat(64)
        ))
        .unwrap_err();
        assert!(e.contains("not an absolute path"), "{e}");
        let e = Tenants::parse(&format!(
            "{}\n[tenants.bob]\ntoken_sha256 = \"{}\"\nroots = [\"/b\"]\n",
            file(""),
            hex(&sha256(b"secret-a"))
        ))
        .unwrap_err();
        assert!(e.contains("another tenant's"), "{e}");
    }

    #[test]
    fn a_minted_token_matches_the_line_it_prints() {
        let (token, text) = mint("carol").unwrap();
        assert!(text.contains(&token));
        let toml_part = text.split_once("GNAW_MCP_TENANTS):\n").unwrap().1;
        let tenants = Tenants::parse(toml_part).unwrap();
        assert_eq!(tenants.find(&token), Some(0));
        let (other, _) = mint("carol").unwrap();
        assert_ne!(token, other);
    }

    /// `--mint-token` and the tenants file accept exactly the same names: a name that would
    /// splice TOML (a newline and `]`, a quote, a dot) is refused by both.
    #[test]
    fn mint_and_the_file_accept_the_same_names() {
        let long = "a".repeat(65);
        for name in [
            "ok",
            "a-b_c9",
            &"b".repeat(64),
            "",
            "x]\n[tenants.evil",
            "dot.ted",
            "qu\"ote",
            "sp ace",
            "é",
            long.as_str(),
        ] {
            let minted = mint(name);
            let in_file = Tenants::parse(&format!(
                "[tenants.{}]\ntoken_sha256 = \"{}\"\nroots = [\"/r\"]\n",
                toml_edit::Key::new(name),
                "0".repeat(64)
            ));
            assert_eq!(minted.is_ok(), in_file.is_ok(), "{name:?}: {in_file:?}");
            if let Ok((_, text)) = minted {
                let toml_part = text.split_once("GNAW_MCP_TENANTS):\n").unwrap().1;
                let tenants = Tenants::parse(toml_part).unwrap();
                assert_eq!(tenants.list.len(), 1);
                assert_eq!(tenants.list[0].name, name);
            }
        }
    }
}
