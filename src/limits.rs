//! The bounds on what a repository or a caller controls, in one place: the shape of a glob
//! before it is compiled, the length of a glob list, how deep and how long the walk goes, how
//! many directory fds it keeps open, and the stack every worker thread gets. `SECURITY.md`
//! ("Resource limits") lists each one with its default, its variable and what happens at it.
//!
//! Why globs are checked before they are compiled: `globset` turns a glob into tokens and then
//! into a regex recursively, one stack frame per level of `{...}` nesting (and drops the tokens
//! recursively too). A `{a,{a,{a,...}}}` of 64 KB overflowed the 2 MiB stack of a worker thread
//! (about 300 to 500 bytes of stack a level), 160 KB the 8 MiB main thread, and the process
//! aborted. A glob reaches gnaw from a tool call, from `.gnawconfig` and from every line of a
//! committed ignore file, so a repository could stop the server for every caller. The limits
//! below are far above what any real glob uses and far below what costs anything: a glob of
//! 4 KiB nested 10 deep takes a few KB of stack and compiles in milliseconds.

use std::fmt;

/// Longest glob, in bytes. Paths are at most 4096 bytes (`PATH_MAX`), so a longer glob has no
/// use; one 4 KiB glob of `*` compiles in about 20 ms to about 6 MB (debug build).
pub const MAX_GLOB_BYTES: usize = 4096;

/// Deepest `{...}` nesting in one glob. Real globs nest once or twice; globset itself refuses
/// about 100 levels (the regex nest limit), and overflowed a 2 MiB stack at about 8,000.
pub const MAX_GLOB_NESTING: usize = 10;

/// Most alternatives (`a`, `b`, `c` in `{a,b,c}`, summed over every group) in one glob.
pub const MAX_GLOB_ALTERNATIVES: usize = 1000;

/// Most globs in one list (`include`, `exclude`, `secrets.allow_paths`, each after the
/// `.gnawconfig` and per-call lists are joined).
pub const MAX_GLOBS: usize = 1000;

/// Most bytes of globs in one list. Compiling costs up to about 1.1 KB of memory per byte of
/// glob (measured: 16 globs of 4,000 `*` peak at 76 MB, of `?` at 47 MB), so 16 KiB bounds one
/// list near 20 MB; 16 KiB is still room for hundreds of ordinary patterns.
pub const MAX_GLOB_LIST_BYTES: usize = 16 << 10;

/// The walk's default depth limit: directories more than this many levels below the repo are
/// not walked, and each one is reported. Real trees stay well under 50 levels.
pub const DEFAULT_MAX_DEPTH: usize = 256;

/// `PATH_MAX`: a relative path of this many bytes or more cannot be opened, so the walk does not
/// descend into a directory whose entries' paths could not be.
pub const PATH_MAX: usize = 4096;

/// Most directory fds the walk keeps open to reach subdirectories not yet listed, whatever the
/// tree's shape. Past it, a subdirectory is reached again by name from the nearest kept
/// ancestor. Each worker holds at most 3 more while it lists a directory.
pub const MAX_WALK_DIR_FDS: usize = 64;

/// Most bytes of ignore patterns (`.gitignore`, `.ignore`, `.git/info/exclude`; comments and
/// blank lines not counted) one walk compiles, over all its ignore files. Compiling costs up to
/// about 550 bytes of memory and 10 µs per byte of pattern (measured: 128 KiB of `*a` patterns
/// took 70 MB and 1.4 s), so this bounds a walk near 140 MB; real repositories hold a few KiB.
/// Past it the run fails, naming the file: skipping ignore patterns would serve files they are
/// there to leave out.
pub const MAX_IGNORE_PATTERN_BYTES: usize = 256 << 10;

/// The stack of every worker thread ([`crate::par`]): the main thread's usual 8 MiB, far above
/// what the bounds on globs and depth let any input use. A backstop, not the bound itself.
pub const THREAD_STACK_BYTES: usize = 8 << 20;

/// A glob, or a list of globs, past one of the limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GlobLimit {
    /// Longer than [`MAX_GLOB_BYTES`].
    TooLong {
        /// Its length in bytes.
        bytes: usize,
    },
    /// Braces nested deeper than [`MAX_GLOB_NESTING`].
    TooNested {
        /// How deep its braces nest.
        depth: usize,
    },
    /// More alternatives than [`MAX_GLOB_ALTERNATIVES`].
    TooManyAlternatives {
        /// How many alternatives its braces expand to.
        count: usize,
    },
    /// More globs in the list than [`MAX_GLOBS`].
    TooManyGlobs {
        /// How many globs the list holds.
        count: usize,
    },
    /// More bytes in the list than [`MAX_GLOB_LIST_BYTES`].
    ListTooLong {
        /// The list's total length in bytes.
        bytes: usize,
    },
}

impl fmt::Display for GlobLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GlobLimit::TooLong { bytes } => write!(
                f,
                "it is {bytes} bytes long, over the limit of {MAX_GLOB_BYTES} bytes for one glob"
            ),
            GlobLimit::TooNested { depth } => write!(
                f,
                "its braces nest {depth} deep, over the limit of {MAX_GLOB_NESTING} nested {{...}} groups"
            ),
            GlobLimit::TooManyAlternatives { count } => write!(
                f,
                "it has {count} alternatives in {{...}} groups, over the limit of {MAX_GLOB_ALTERNATIVES}"
            ),
            GlobLimit::TooManyGlobs { count } => write!(
                f,
                "the list has {count} globs, over the limit of {MAX_GLOBS}; use fewer, broader globs"
            ),
            GlobLimit::ListTooLong { bytes } => write!(
                f,
                "the list's globs add up to {bytes} bytes, over the limit of {MAX_GLOB_LIST_BYTES}; use fewer, broader globs"
            ),
        }
    }
}

/// Check one glob against the limits on nesting, alternatives and length (the first one it
/// passes is the reason given), before it is compiled. Linear in the glob's length, without
/// recursion.
///
/// The braces are counted as globset reads them with backslash escapes on (as every glob in
/// gnaw and every ignore-file line is compiled): `\{` is a literal, and so is anything inside a
/// closed `[...]` class. An unclosed `[` is a literal `[` and no later `[` opens a class (the
/// ignore files' `allow_unclosed_class`); elsewhere an unclosed class is an error of its own.
pub fn check_glob(glob: &str) -> Result<(), GlobLimit> {
    let b = glob.as_bytes();
    let (mut depth, mut deepest, mut alternatives) = (0usize, 0usize, 0usize);
    let mut classes = true;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 1,
            b'[' if classes => match class_end(b, i + 1) {
                Some(end) => i = end,
                None => classes = false,
            },
            b'{' => {
                depth += 1;
                alternatives += 1;
                deepest = deepest.max(depth);
            }
            b'}' => depth = depth.saturating_sub(1),
            b',' if depth > 0 => alternatives += 1,
            _ => {}
        }
        i += 1;
    }
    if deepest > MAX_GLOB_NESTING {
        return Err(GlobLimit::TooNested { depth: deepest });
    }
    if alternatives > MAX_GLOB_ALTERNATIVES {
        return Err(GlobLimit::TooManyAlternatives {
            count: alternatives,
        });
    }
    if b.len() > MAX_GLOB_BYTES {
        return Err(GlobLimit::TooLong { bytes: b.len() });
    }
    Ok(())
}

/// The index of the `]` closing a class whose body starts at `start` (just after `[`), as
/// globset parses it: an optional `!` or `^`, then a `]` first in the body is a literal.
fn class_end(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start;
    if matches!(b.get(i), Some(b'!' | b'^')) {
        i += 1;
    }
    if b.get(i) == Some(&b']') {
        i += 1;
    }
    b[i.min(b.len())..]
        .iter()
        .position(|&c| c == b']')
        .map(|p| i + p)
}

/// Check a list of globs: its length, its total size, and each glob. On failure, the glob to
/// blame (`None` for the list as a whole) and why.
pub fn check_globs<S: AsRef<str>>(globs: &[S]) -> Result<(), (Option<&str>, GlobLimit)> {
    if globs.len() > MAX_GLOBS {
        return Err((None, GlobLimit::TooManyGlobs { count: globs.len() }));
    }
    let bytes: usize = globs.iter().map(|g| g.as_ref().len()).sum();
    for g in globs {
        check_glob(g.as_ref()).map_err(|why| (Some(g.as_ref()), why))?;
    }
    if bytes > MAX_GLOB_LIST_BYTES {
        return Err((None, GlobLimit::ListTooLong { bytes }));
    }
    Ok(())
}

/// Whether `glob` passes [`check_glob`]; a glob that does not is logged. For callers that
/// drop such a glob instead of failing: the secrets allow list, whose globs only ever let
/// findings through, so dropping one makes the scan stricter, never looser. (The driver checks
/// the allow list first and fails the run with the reason.)
pub fn within_glob_limits<S: AsRef<str>>(glob: &S) -> bool {
    match check_glob(glob.as_ref()) {
        Ok(()) => true,
        Err(why) => {
            log::warn!("glob {:?} is not used: {why}", shown_glob(glob.as_ref()));
            false
        }
    }
}

/// A glob fit to quote in a message: whole when short, else its start and its length.
pub fn shown_glob(glob: &str) -> String {
    const SHOWN: usize = 80;
    if glob.len() <= SHOWN {
        return glob.to_string();
    }
    let end = (0..=SHOWN)
        .rev()
        .find(|&i| glob.is_char_boundary(i))
        .unwrap_or(0);
    format!("{}… ({} bytes)", &glob[..end], glob.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> String {
        format!("{}a{}", "{a,".repeat(depth), "}".repeat(depth))
    }

    #[test]
    fn ordinary_globs_pass() {
        for g in [
            "*.rs",
            "src/**/*.{rs,toml}",
            "{a,{b,c}}/x",
            "[{]*",
            "\\{\\{\\{",
            "**/{fixtures,testdata}/**",
            "",
        ] {
            assert_eq!(check_glob(g), Ok(()), "{g}");
        }
        assert_eq!(check_glob(&nested(MAX_GLOB_NESTING)), Ok(()));
    }

    #[test]
    fn each_limit_is_enforced() {
        assert_eq!(
            check_glob(&nested(MAX_GLOB_NESTING + 1)),
            Err(GlobLimit::TooNested { depth: 11 })
        );
        assert_eq!(
            check_glob(&"a".repeat(MAX_GLOB_BYTES + 1)),
            Err(GlobLimit::TooLong { bytes: 4097 })
        );
        let flat = format!("{{{}}}", vec!["x"; 1001].join(","));
        assert_eq!(
            check_glob(&flat),
            Err(GlobLimit::TooManyAlternatives { count: 1001 })
        );
        let many: Vec<String> = (0..1001).map(|i| format!("f{i}")).collect();
        assert_eq!(
            check_globs(&many),
            Err((None, GlobLimit::TooManyGlobs { count: 1001 }))
        );
        let big = vec!["?".repeat(4000); 5];
        assert!(matches!(
            check_globs(&big),
            Err((None, GlobLimit::ListTooLong { .. }))
        ));
        let bad = [String::from("ok"), nested(40)];
        assert!(matches!(check_globs(&bad), Err((Some(g), _)) if g == bad[1]));
    }

    #[test]
    fn braces_that_globset_reads_as_literals_cannot_hide_nesting() {
        // `}` inside a class or escaped does not close a group, so these nest 11 deep.
        let in_class = "{a,[}]".repeat(11);
        assert!(matches!(
            check_glob(&in_class),
            Err(GlobLimit::TooNested { .. })
        ));
        let escaped = "{a,\\}".repeat(11);
        assert!(matches!(
            check_glob(&escaped),
            Err(GlobLimit::TooNested { .. })
        ));
        // An unclosed class is a literal `[`: the braces after it count.
        let unclosed = format!("[{}", nested(11));
        assert!(matches!(
            check_glob(&unclosed),
            Err(GlobLimit::TooNested { .. })
        ));
        // `[]}]` and `[!]}]` are classes holding `]` and `}`.
        assert_eq!(check_glob("{a,[]}]}"), Ok(()));
        assert_eq!(check_glob("{a,[!]}]}"), Ok(()));
    }

    #[test]
    fn long_globs_are_shown_short() {
        let g = "é".repeat(100);
        let s = shown_glob(&g);
        assert!(s.ends_with("(200 bytes)") && s.len() < 100, "{s}");
        assert_eq!(shown_glob("*.rs"), "*.rs");
    }
}
