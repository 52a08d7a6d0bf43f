//! The driver's first step: the options of one run. `.gnawconfig` (read beneath the repo,
//! bounded, without following a link out) is layered over the surface's defaults, then the
//! spec's overrides, then the operator's floors. The per-file step's settings are cut from the
//! result as one hashable struct, [`FileOptions`], whose hash keys the warm cache.
//!
//! A repo's config may narrow what is read, and widen it only as far as the surface's policy
//! lets it ([`crate::spec::RepoMayWiden`]): a widening setting the policy does not allow is
//! refused (the default stays) and recorded in [`Options::widenings`], as is one it allows, so
//! the CLI can warn about it. An override (a flag) is the caller's own choice, never the repo's.

use crate::bounded::{os_message, read_capped};
use crate::error::{ConfigError, Error};
use crate::gnawconfig::{self, Options, Secrets, Widening};
use crate::spec::{ExtractionSpec, Overrides, RepoMayWiden, Widen};
use crate::stages::read::ReadOptions;
use crate::stages::render::RenderOptions;
use crate::vocab::Encoding;
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
    pub secrets: Secrets,
    /// `.gnawconfig`'s own include patterns: the only ones that bring a sensitive file back.
    pub config_include: Vec<String>,
    /// Whether those patterns may bring a sensitive file back (the policy's
    /// [`RepoMayWiden::sensitive_include`]); when not, a match is refused and reported.
    pub sensitive_include: bool,
    /// How a followed link's target is checked (all off when links are not followed).
    pub targets: TargetChecks,
}

/// How a followed link's target is checked, beyond its name (sensitive files and `.git` are
/// always left out): as the run would treat the target's own path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TargetChecks {
    /// A hidden target (or one inside a hidden directory) is read (`hidden`).
    pub hidden: bool,
    /// The target must be a file the walk lists by its own path, so not one that ignore files
    /// leave out. Off with `no_ignore`, and for a path list (which honours no ignore files).
    pub ignore_rules: bool,
    /// The walk's depth limit, for the listing the ignore-rule check compares against.
    pub max_depth: usize,
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
            secrets: options.secrets.clone(),
            config_include: options.config_include.clone(),
            sensitive_include: spec.policy.repo_may_widen.sensitive_include,
            targets: if options.follow_links {
                TargetChecks {
                    hidden: options.hidden,
                    ignore_rules: !options.no_ignore && spec.paths.is_none(),
                    max_depth: spec.policy.max_depth,
                }
            } else {
                TargetChecks::default()
            },
        }
    }
}

/// `.gnawconfig` layered over the surface's defaults, then the spec's overrides, then the
/// operator's floors. What the repo's config widens is in [`Options::widenings`].
pub fn resolve(dir: &BeneathDir, spec: &ExtractionSpec<'_>) -> Result<Options, Error> {
    let base = Options {
        secrets: Secrets {
            mode: spec.policy.secrets_default,
            ..Secrets::default()
        },
        budget: spec.policy.budget_default,
        ..Options::default()
    };
    let from_file = match read_config(dir)? {
        Some(text) => gnawconfig::parse(&text, base.clone(), spec.overrides.profile.as_deref())?,
        None => match &spec.overrides.profile {
            Some(p) => return Err(gnawconfig::unknown_profile(p, std::iter::empty()).into()),
            None => base.clone(),
        },
    };
    let (from_file, mut widenings) = limit(
        from_file,
        &base,
        &spec.overrides,
        spec.policy.repo_may_widen,
    );
    let mut options = gnawconfig::apply_overrides(from_file, &spec.overrides);
    options.secrets.mode = options.secrets.mode.max(spec.policy.secrets_floor);
    if let Some(cap) = spec.policy.max_file_size_cap
        && options.max_file_size > cap
    {
        if spec.overrides.max_file_size.is_none() {
            widenings.push(Widening {
                key: options.key_of("max_file_size"),
                widen: Widen::MaxFileSize,
                what: format!(
                    "files up to {} bytes are read; the operator's ceiling is {cap}",
                    options.max_file_size
                ),
                refused: true,
            });
        }
        options.max_file_size = cap;
    }
    options.widenings = widenings;
    Ok(options)
}

/// Hold the repo's config (`o`, parsed over `base`) to what `may` allows: each setting that
/// reads more than `base` and that no override replaces is recorded, and, unless allowed, put
/// back to `base`'s value. Sensitive re-includes depend on the files, so the per-file step
/// records them.
fn limit(
    mut o: Options,
    base: &Options,
    ov: &Overrides,
    may: RepoMayWiden,
) -> (Options, Vec<Widening>) {
    let mut found = Vec::new();
    let mut note = |o: &Options, widen: Widen, option: &str| {
        let refused = !may.allows(widen);
        found.push(Widening {
            key: o.key_of(option),
            widen,
            what: widen.effect().to_string(),
            refused,
        });
        refused
    };
    if !o.secrets.allow_paths.is_empty() && note(&o, Widen::AllowPaths, "secrets.allow_paths") {
        o.secrets.allow_paths.clone_from(&base.secrets.allow_paths);
    }
    if !o.secrets.allow_fingerprints.is_empty()
        && note(&o, Widen::AllowFingerprints, "secrets.allow_fingerprints")
    {
        o.secrets
            .allow_fingerprints
            .clone_from(&base.secrets.allow_fingerprints);
    }
    if o.hidden && !base.hidden && ov.hidden.is_none() && note(&o, Widen::Hidden, "hidden") {
        o.hidden = base.hidden;
    }
    if o.no_ignore
        && !base.no_ignore
        && ov.no_ignore.is_none()
        && note(&o, Widen::NoIgnore, "no_ignore")
    {
        o.no_ignore = base.no_ignore;
    }
    if o.follow_links
        && !base.follow_links
        && ov.follow_links.is_none()
        && note(&o, Widen::FollowLinks, "follow_links")
    {
        o.follow_links = base.follow_links;
    }
    if o.secrets.mode < base.secrets.mode
        && ov.secrets.is_none()
        && note(&o, Widen::Secrets, "secrets.mode")
    {
        o.secrets.mode = base.secrets.mode;
    }
    (o, found)
}

/// The text of `.gnawconfig`, or `None` when there is none.
fn read_config(dir: &BeneathDir) -> Result<Option<String>, Error> {
    let name = gnawconfig::CONFIG_FILE;
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
    let bytes = read_capped(file, gnawconfig::MAX_CONFIG_BYTES, meta.len())
        .map_err(|e| ConfigError::file(format!("cannot read {name}: {}", os_message(&e))))?
        .ok_or_else(|| {
            ConfigError::file(format!(
                "{name} is larger than {} bytes; it should be a short TOML file",
                gnawconfig::MAX_CONFIG_BYTES
            ))
        })?;
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| ConfigError::file(format!("cannot read {name} as UTF-8 text: {e}")).into())
}
