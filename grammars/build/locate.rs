//! Where the upstream grammar crates' sources are: asked of `cargo metadata`, which knows every
//! package of the lock file wherever it came from (the registry's cache, a vendored directory, a
//! git checkout, a path override). The crates are this crate's dev-dependencies, so the answer
//! is the versions its tests compare with.

use std::collections::HashMap;
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory of each crate in `names` (its `Cargo.toml`'s), as this crate's dependency
/// `manifest` (this crate's `Cargo.toml`) resolves it. Asks cargo to run the build script again
/// when the workspace's lock file changes.
pub fn crate_dirs(manifest: &Path, names: &[&str]) -> Result<HashMap<String, PathBuf>, String> {
    let json = metadata(manifest)?;
    let value: serde_json::Value =
        serde_json::from_slice(&json).map_err(|e| format!("cargo metadata: {e}"))?;
    // A new lock file can name other versions, in other directories: look again then.
    if let Some(root) = value["workspace_root"].as_str() {
        println!(
            "cargo:rerun-if-changed={}",
            Path::new(root).join("Cargo.lock").display()
        );
    }
    let packages = value["packages"]
        .as_array()
        .ok_or("cargo metadata: no packages")?;
    let manifest_path = |p: &serde_json::Value| p["manifest_path"].as_str().map(PathBuf::from);
    let ours = packages
        .iter()
        .find(|p| manifest_path(p).is_some_and(|m| same_file(&m, manifest)))
        .and_then(|p| p["id"].as_str())
        .ok_or("cargo metadata: this crate is not among the packages")?;
    let node = value["resolve"]["nodes"]
        .as_array()
        .and_then(|nodes| nodes.iter().find(|n| n["id"].as_str() == Some(ours)))
        .ok_or("cargo metadata: no resolve node for this crate")?;
    let by_id: HashMap<&str, &serde_json::Value> = packages
        .iter()
        .filter_map(|p| Some((p["id"].as_str()?, p)))
        .collect();
    let mut dirs = HashMap::new();
    for dep in node["deps"].as_array().into_iter().flatten() {
        let Some(package) = dep["pkg"].as_str().and_then(|id| by_id.get(id)) else {
            continue;
        };
        let Some(name) = package["name"].as_str() else {
            continue;
        };
        if names.contains(&name)
            && let Some(dir) = manifest_path(package).as_deref().and_then(Path::parent)
        {
            dirs.insert(name.to_string(), dir.to_path_buf());
        }
    }
    for name in names {
        if !dirs.contains_key(*name) {
            return Err(format!(
                "{name} is not a resolved dependency of gnaw-grammars (its dev-dependencies \
                 must list every grammar crate)"
            ));
        }
    }
    Ok(dirs)
}

/// `cargo metadata`'s JSON for the workspace of `manifest`: offline first (every package of a
/// build that got this far is usually in the cache already), then allowed to fetch the ones a
/// plain build did not need (dev-dependencies).
fn metadata(manifest: &Path) -> Result<Vec<u8>, String> {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut last = String::new();
    for offline in [true, false] {
        let mut cmd = Command::new(&cargo);
        cmd.args(["metadata", "--format-version", "1", "--manifest-path"])
            .arg(manifest);
        if let Ok(target) = env::var("TARGET") {
            cmd.args(["--filter-platform", &target]);
        }
        if offline {
            cmd.arg("--offline");
        }
        let out = cmd
            .output()
            .map_err(|e| format!("running cargo metadata: {e}"))?;
        if out.status.success() {
            return Ok(out.stdout);
        }
        last = String::from_utf8_lossy(&out.stderr).into_owned();
    }
    Err(format!("cargo metadata failed: {last}"))
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
