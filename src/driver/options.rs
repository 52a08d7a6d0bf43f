//! The driver's first step: the options of one run. `.gnawconfig` (read beneath the repo,
//! bounded, without following a link out) is layered over the surface's defaults, then the
//! spec's overrides, then the operator's floors. The per-file step's settings are cut from the
//! result as one hashable struct, [`FileOptions`], whose hash keys the warm cache.

use crate::bounded::{os_message, read_capped};
use crate::config::{self, Options};
use crate::error::{ConfigError, Error};
use crate::spec::ExtractionSpec;
use crate::stages::read::ReadOptions;
use crate::stages::render::RenderOptions;
use crate::vocab::{Encoding, SecretsMode};
use gnaw_sandbox::BeneathDir;
use std::path::Path;

/// Everything that shapes what the per-file step derives from one file. The warm cache's key is
/// this struct's hash ([`crate::cache::context_key`]): a setting added here is part of the key
/// by construction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FileOptions {
    pub read: ReadOptions,
    pub render: RenderOptions,
    pub encoding: Encoding,
    /// Count tokens (false for `--no-count`).
    pub counting: bool,
    pub secrets: SecretsMode,
    pub secrets_allow_paths: Vec<String>,
    pub secrets_allow_fingerprints: Vec<String>,
    /// `.gnawconfig`'s own include patterns: the only ones that bring a sensitive file back.
    pub config_include: Vec<String>,
}

impl FileOptions {
    /// The per-file settings of a run with `options`.
    pub fn new(options: &Options, spec: &ExtractionSpec<'_>, counting: bool) -> FileOptions {
        FileOptions {
            read: ReadOptions {
                max_file_size: options.max_file_size,
                follow_links: options.follow_links,
                skip_hard_links: spec.policy.skip_hard_links,
            },
            render: RenderOptions {
                format: options.format,
                line_numbers: options.line_numbers,
                tree: options.tree,
            },
            encoding: options.encoding,
            counting,
            secrets: options.secrets,
            secrets_allow_paths: options.secrets_allow_paths.clone(),
            secrets_allow_fingerprints: options.secrets_allow_fingerprints.clone(),
            config_include: options.config_include.clone(),
        }
    }
}

/// `.gnawconfig` layered over the surface's defaults, then the spec's overrides, then the
/// operator's floors.
pub fn resolve(dir: &BeneathDir, spec: &ExtractionSpec<'_>) -> Result<Options, Error> {
    let base = Options {
        secrets: spec.policy.secrets_default,
        budget: spec.policy.budget_default,
        ..Options::default()
    };
    let from_file = match read_config(dir)? {
        Some(text) => config::parse(&text, base, spec.overrides.profile.as_deref())?,
        None => match &spec.overrides.profile {
            Some(p) => return Err(config::unknown_profile(p, std::iter::empty()).into()),
            None => base,
        },
    };
    let mut options = config::apply_overrides(from_file, &spec.overrides);
    options.secrets = options.secrets.max(spec.policy.secrets_floor);
    if let Some(cap) = spec.policy.max_file_size_cap
        && options.max_file_size > cap
    {
        log::warn!(
            "max_file_size {} from {} is above the operator's ceiling; using {cap}",
            options.max_file_size,
            config::CONFIG_FILE
        );
        options.max_file_size = cap;
    }
    Ok(options)
}

/// The text of `.gnawconfig`, or `None` when there is none.
fn read_config(dir: &BeneathDir) -> Result<Option<String>, Error> {
    let name = config::CONFIG_FILE;
    let file = match dir.open_file(Path::new(name), true) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.kind() == std::io::ErrorKind::CrossesDevices => {
            return Err(ConfigError::file(format!(
                "{name} is a link to a file outside the repository; it was not read"
            ))
            .into());
        }
        Err(e) => {
            return Err(Error::Io {
                what: format!("cannot open {name}"),
                error: os_message(&e),
            });
        }
    };
    let meta = file.metadata().map_err(|e| Error::Io {
        what: format!("cannot read {name}"),
        error: os_message(&e),
    })?;
    if !meta.is_file() {
        return Err(ConfigError::file(format!(
            "{name} is not a regular file; remove it or replace it with a TOML file"
        ))
        .into());
    }
    let bytes = read_capped(file, config::MAX_CONFIG_BYTES, meta.len())
        .map_err(|e| ConfigError::file(format!("cannot read {name}: {}", os_message(&e))))?
        .ok_or_else(|| {
            ConfigError::file(format!(
                "{name} is larger than {} bytes; it should be a short TOML file",
                config::MAX_CONFIG_BYTES
            ))
        })?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| ConfigError::file(format!("cannot read {name} as UTF-8 text: {e}")).into())
}
