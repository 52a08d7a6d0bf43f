//! `gnaw-mcp --self-test`: prove that this host enforces the sandbox, by the probes of
//! `gnaw_sandbox::selftest` run in a child that enters the server's own sandbox on its roots.
//!
//! With a tenants file (`GNAW_MCP_TENANTS`: the HTTP mode), it also proves the tenants apart: the
//! tenants' roots are proven as `--listen` proves them ([`super::http::launch::prove_roots`]),
//! and for each tenant a child is handed that tenant's roots as descriptors, as the spawner
//! hands them to its worker, adopts them, confines itself, and must fail to read or list
//! another tenant's root with its opens made raw: the kernel alone keeps them apart.

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

use gnaw_sandbox::Roots;
use gnaw_sandbox::report::Format;
use gnaw_sandbox::selftest::{Summary, TenantRun};

use super::Operator;

/// Run the self-test on `roots` (and, with a tenants file, on every tenant), writing the
/// report to `out`. `config`: the settings file the child must read as this process did.
pub fn run(
    operator: &Operator,
    roots: &Roots,
    config: Option<&Path>,
    format: Format,
    out: &mut dyn Write,
) -> Result<Summary, String> {
    // The parent stays unconfined (it prepares targets outside the root); the child it
    // re-executes enters the sandbox exactly as the server would.
    let exe = std::env::current_exe()
        .map_err(|e| format!("--self-test cannot find its own executable: {e}"))?;
    // The child reads the same settings: the same file, when there is one.
    let mut child_args = vec![OsString::from("--self-test-child")];
    if let Some(file) = config {
        child_args.push("--config".into());
        child_args.push(file.into());
    }
    let tenants = match &operator.tenants {
        Some(path) => super::http::launch::read_tenants(path)?.list,
        None => Vec::new(),
    };
    let proven = super::http::launch::prove_roots(&tenants)?;
    let runs: Vec<TenantRun<'_>> = tenants
        .iter()
        .zip(&proven)
        .enumerate()
        .filter_map(|(i, (tenant, roots))| {
            // Another tenant whose roots this one may not share.
            let other = tenants
                .iter()
                .zip(&proven)
                .enumerate()
                .find(|(j, (t, theirs))| {
                    *j != i
                        && !tenant.shares_with.contains(&t.name)
                        && !t.shares_with.contains(&tenant.name)
                        && theirs
                            .iter()
                            .all(|o| roots.iter().all(|m| !m.root().overlaps(o.root())))
                })
                .map(|(_, (_, theirs))| theirs.first())?;
            Some(TenantRun {
                name: &tenant.name,
                roots,
                other,
            })
        })
        .collect();
    if !tenants.is_empty() && runs.is_empty() {
        log::warn!(
            "--self-test: the tenants file has no two tenants apart; tenants are not checked"
        );
    }
    gnaw_sandbox::selftest::run(
        &exe,
        &child_args,
        roots,
        operator.sandbox,
        format,
        out,
        &runs,
    )
    .map_err(|e| format!("--self-test could not run its sandboxed child: {e}"))
}
