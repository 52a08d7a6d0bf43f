//! The one list of error kinds: every stable name a failure is known by outside the process
//! (MCP's `data.kind` and `_meta["gnaw/errorKind"]`, the CLI's `--json` summaries, the docs).
//! Each error type maps into an [`ErrorKind`] and never spells a kind itself, so a kind is
//! written once, here, and a test lists them all against `docs/mcp.md`.

use std::fmt;

/// Defines the kinds: a variant, its wire name and what it means, once each.
macro_rules! kinds {
    ( $( $(#[$meta:meta])* $variant:ident = $text:literal, )+ ) => {
        /// Why a call or a run failed, as programs read it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorKind {
            $( $(#[$meta])* $variant, )+
        }

        impl ErrorKind {
            /// Every kind, in declaration order.
            pub const ALL: &'static [ErrorKind] = &[ $( ErrorKind::$variant ),+ ];

            /// The stable name, as sent.
            pub fn name(self) -> &'static str {
                match self { $( ErrorKind::$variant => $text, )+ }
            }
        }
    };
}

kinds! {
    /// `.gnawconfig` is invalid.
    InvalidConfig = "InvalidConfig",
    /// An argument is missing, unknown, mistyped or cannot be used as given.
    InvalidArguments = "InvalidArguments",
    /// A glob does not parse or is past a bound.
    InvalidGlob = "InvalidGlob",
    /// A grep pattern does not compile.
    InvalidPattern = "InvalidPattern",
    /// A revision names no commit.
    InvalidRevision = "InvalidRevision",
    /// A path is not usable (empty, NUL, too long, a link loop).
    InvalidPath = "InvalidPath",
    /// A path from the explicit path list escapes the repository.
    PathRejected = "PathRejected",
    /// A path, or a link on its way, leads outside the root.
    OutsideRoot = "OutsideRoot",
    /// Nothing exists at the path under the root.
    NotFound = "NotFound",
    /// A directory was required.
    NotADirectory = "NotADirectory",
    /// A file was required.
    NotAFile = "NotAFile",
    /// The file is not among those searched (skipped, ignored, too large).
    NotSearched = "NotSearched",
    /// No answer fits the token budget or the answer's size limit, even with nothing in it.
    BudgetTooSmall = "BudgetTooSmall",
    /// `extract`'s prompt is over the server's response limit.
    OutputTooLarge = "OutputTooLarge",
    /// An input is past one of gnaw's bounds.
    LimitExceeded = "LimitExceeded",
    /// The repository directory was moved or replaced while it was opened.
    RepoChanged = "RepoChanged",
    /// A root is no longer the directory the server proved at startup (moved, replaced by
    /// another directory or a link, removed): nothing is served from it.
    RootChanged = "RootChanged",
    /// An I/O failure not about one file.
    Io = "Io",
    /// The client or the observer cancelled.
    Cancelled = "Cancelled",
    /// The tool is turned off on this server.
    ToolDisabled = "ToolDisabled",
    /// The queue of calls is full; retry.
    Busy = "Busy",
    /// The repository has no `.git`.
    NotAGitRepository = "NotAGitRepository",
    /// `.git` is a link.
    GitDirLink = "GitDirLink",
    /// A `.git` file points outside the repository.
    GitDirOutside = "GitDirOutside",
    /// `commondir` points outside the repository.
    CommonDirOutside = "CommonDirOutside",
    /// HTTP: no valid `Authorization: Bearer` token (401).
    Unauthorized = "Unauthorized",
    /// HTTP: a browser `Origin` that is not allowed (403).
    OriginNotAllowed = "OriginNotAllowed",
    /// HTTP: a header the 2026-07-28 revision mirrors disagrees with the body (400).
    HeaderMismatch = "HeaderMismatch",
    /// HTTP: a request past one of the front door's bounds (head, body, time).
    HttpBound = "HttpBound",
    /// HTTP: a method `/mcp` does not take in this era (405).
    MethodNotAllowed = "MethodNotAllowed",
    /// HTTP: the `Accept` header allows no answer we send (406).
    NotAcceptable = "NotAcceptable",
    /// HTTP: the body is not `application/json` (415).
    UnsupportedMediaType = "UnsupportedMediaType",
    /// HTTP: a protocol revision this server does not serve (400).
    UnsupportedProtocolVersion = "UnsupportedProtocolVersion",
    /// HTTP: a legacy request without the session `initialize` opened (400).
    NoSession = "NoSession",
    /// HTTP: a session id that is unknown, expired, ended or another tenant's (404).
    UnknownSession = "UnknownSession",
    /// HTTP: the body is not JSON (400).
    ParseError = "ParseError",
    /// HTTP: the body is JSON but not a request this endpoint takes (400).
    InvalidRequest = "InvalidRequest",
    /// HTTP: a request id already in flight on this session (409).
    Conflict = "Conflict",
    /// HTTP: the tenant's worker could not start, or is backing off after failed starts (503).
    WorkerDown = "WorkerDown",
    /// HTTP: the tenant's worker died before answering this request (502).
    WorkerDied = "WorkerDied",
    /// HTTP: the front door failed in a way that is not the request's fault (500).
    Internal = "Internal",
    /// `objects/info/alternates` points outside the repository.
    AlternatesOutside = "AlternatesOutside",
    /// A path inside `.git` leads outside it.
    GitPathOutside = "GitPathOutside",
    /// A file in `.git` is over its size bound.
    GitTooLarge = "GitTooLarge",
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for ErrorKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl PartialEq<&str> for ErrorKind {
    fn eq(&self, other: &&str) -> bool {
        self.name() == *other
    }
}

impl From<&gnaw_sandbox::Rejection> for ErrorKind {
    /// The kind of a path the sandbox refused.
    fn from(r: &gnaw_sandbox::Rejection) -> ErrorKind {
        use gnaw_sandbox::Rejection;
        match r {
            Rejection::InvalidPath(_) => ErrorKind::InvalidPath,
            Rejection::OutsideRoot => ErrorKind::OutsideRoot,
            Rejection::NotFound => ErrorKind::NotFound,
            Rejection::NotADirectory => ErrorKind::NotADirectory,
            Rejection::RootChanged => ErrorKind::RootChanged,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sandbox_names_its_rejections_as_the_kinds_do() {
        use gnaw_sandbox::Rejection;
        for r in [
            Rejection::InvalidPath(String::new()),
            Rejection::OutsideRoot,
            Rejection::NotFound,
            Rejection::NotADirectory,
            Rejection::RootChanged,
        ] {
            assert_eq!(ErrorKind::from(&r).name(), r.kind());
        }
    }

    #[test]
    fn every_kind_has_one_name_and_the_docs_name_each() {
        let mut names: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.name()).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n, "two kinds share a name");
        let docs = include_str!("../../docs/mcp.md");
        for name in names {
            assert!(docs.contains(name), "docs/mcp.md does not name {name}");
        }
    }
}
