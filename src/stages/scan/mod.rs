//! Scan stage: finds secrets in file text and warns about, redacts or blocks them before anything
//! is counted or rendered, and names the files that are sensitive as a whole.
//!
//! How a scan runs: one Aho-Corasick automaton holds every rule's literal keywords (`ghp_`,
//! `akia`, `-----begin`, `password`, ...), matched ASCII-case-insensitively in a single pass.
//! Text with no keyword is clean and costs that pass and nothing else: no allocation, no regex.
//! Each line holding a keyword is handed to the regexes of the rules whose keywords it holds,
//! and each candidate is checked (entropy, placeholders, hash and UUID shapes, JWT header).
//! Private key blocks span lines and are measured from their BEGIN marker. Every step reads
//! each byte a bounded number of times, so a scan is linear in the text whatever it holds
//! (tests/linearity/scan.rs holds every rule to that).
//!
//! Findings name the rule, the path and the 1-based line where the secret starts, never the
//! secret. Line numbers are those of the original text, also after redaction.
//!
//! [`scan_name`] applies the same rules to a path or file name, for secrets used as names.

mod rules;
mod sensitive;
mod shape;

pub use crate::vocab::{Finding, SecretsMode};
pub use rules::RuleInfo;
pub use sensitive::sensitive_file;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use regex::Regex;
use rules::{Detector, Kind};
use std::collections::HashSet;
use std::fmt;
use std::sync::OnceLock;

/// False positives the operator accepts: whole paths (globs) and single findings (fingerprints).
#[derive(Clone, Debug)]
pub struct Allow {
    paths: GlobSet,
    fingerprints: HashSet<String>,
}

impl Default for Allow {
    fn default() -> Self {
        Allow {
            paths: GlobSet::empty(),
            fingerprints: HashSet::new(),
        }
    }
}

/// A path glob in the allow list that does not parse.
#[derive(Debug)]
pub struct AllowError {
    /// The pattern (empty when the set as a whole failed to build).
    pub glob: String,
    /// Why it does not parse.
    pub error: globset::Error,
}

impl fmt::Display for AllowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "secrets allow list: `{}` is not a valid glob ({}); fix or remove it",
            crate::vocab::excerpt(&self.glob),
            self.error.kind()
        )
    }
}

impl std::error::Error for AllowError {}

impl Allow {
    /// An allow list from path globs and fingerprints. Globs match the whole relative path with
    /// `/` separators; `*` stays within one directory, `**` crosses them (`fixtures/**`,
    /// `**/testdata/*.pem`).
    pub fn new<G, F>(globs: G, fingerprints: F) -> Result<Allow, AllowError>
    where
        G: IntoIterator,
        G::Item: AsRef<str>,
        F: IntoIterator,
        F::Item: Into<String>,
    {
        let mut set = GlobSetBuilder::new();
        for g in globs.into_iter().filter(crate::limits::within_glob_limits) {
            let g = g.as_ref();
            let glob = GlobBuilder::new(g)
                .literal_separator(true)
                .build()
                .map_err(|error| AllowError {
                    glob: g.to_string(),
                    error,
                })?;
            set.add(glob);
        }
        let paths = set.build().map_err(|error| AllowError {
            glob: String::new(),
            error,
        })?;
        Ok(Allow {
            paths,
            fingerprints: fingerprints.into_iter().map(Into::into).collect(),
        })
    }

    /// True if every finding in `rel_path` is accepted.
    pub fn allows_path(&self, rel_path: &str) -> bool {
        self.paths.is_match(rel_path)
    }

    /// True if this finding is accepted, by path or by fingerprint.
    pub fn allows(&self, finding: &Finding) -> bool {
        self.fingerprints.contains(&finding.fingerprint) || self.allows_path(&finding.path)
    }
}

/// The result of scanning one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scanned<'a> {
    /// No secrets (or mode off, or the path is allowed): use the text as it is.
    Clean(&'a str),
    /// Warn mode: the text is unchanged, the findings are to be reported.
    Warned {
        /// The text, unchanged.
        text: &'a str,
        /// The secrets found in it.
        findings: Vec<Finding>,
    },
    /// Redact mode: the text with every secret replaced by `[REDACTED:<rule>]`.
    Redacted {
        /// The redacted text.
        text: String,
        /// The secrets replaced in it.
        findings: Vec<Finding>,
    },
    /// Block mode: the file must be dropped; these are the reasons.
    Blocked {
        /// The secrets found: why it is dropped.
        findings: Vec<Finding>,
    },
}

impl Scanned<'_> {
    /// The text to send on, or None when the file is blocked.
    pub fn text(&self) -> Option<&str> {
        match self {
            Scanned::Clean(t) | Scanned::Warned { text: t, .. } => Some(t),
            Scanned::Redacted { text, .. } => Some(text),
            Scanned::Blocked { .. } => None,
        }
    }

    /// What was found (empty when clean).
    pub fn findings(&self) -> &[Finding] {
        match self {
            Scanned::Clean(_) => &[],
            Scanned::Warned { findings, .. }
            | Scanned::Redacted { findings, .. }
            | Scanned::Blocked { findings } => findings,
        }
    }
}

/// Every rule: its id and what it matches.
pub fn rules() -> &'static [RuleInfo] {
    rules::RULES
}

/// Scans `text` (the contents of `rel_path`) and applies `mode`. Findings the allow list accepts
/// are neither reported nor redacted. Clean text is returned borrowed, without allocating.
pub fn scan<'a>(text: &'a str, rel_path: &str, mode: SecretsMode, allow: &Allow) -> Scanned<'a> {
    if mode == SecretsMode::Off || allow.allows_path(rel_path) {
        return Scanned::Clean(text);
    }
    let engine = engine();
    let mut spans = engine.find(text);
    if spans.is_empty() {
        return Scanned::Clean(text);
    }
    // Line numbers, then findings, dropping what the allow list accepts.
    let mut findings: Vec<Finding> = Vec::new();
    // Findings of the current line start at this index: a duplicate (same rule, same line) can
    // only be among them, since spans come sorted by position. Searching all findings instead
    // was quadratic in their number.
    let (mut pos, mut line, mut line_first) = (0, 1, 0);
    spans.retain(|span| {
        let newlines = count_newlines(&text.as_bytes()[pos..span.start]);
        if newlines > 0 {
            line += newlines;
            line_first = findings.len();
        }
        pos = span.start;
        let rule = engine.detectors[span.detector].rule;
        if findings[line_first..].iter().any(|f| f.rule == rule) {
            return true;
        }
        let finding = Finding::new(rule, rel_path, line);
        if allow.fingerprints.contains(&finding.fingerprint) {
            return false;
        }
        findings.push(finding);
        true
    });
    if findings.is_empty() {
        return Scanned::Clean(text);
    }
    match mode {
        SecretsMode::Off => Scanned::Clean(text),
        SecretsMode::Warn => Scanned::Warned { text, findings },
        SecretsMode::Block => Scanned::Blocked { findings },
        SecretsMode::Redact => Scanned::Redacted {
            text: engine.redact(text, &spans),
            findings,
        },
    }
}

/// Whether `text` holds a keyword of some rule. A text without any scans clean in every mode
/// (only a keyword wakes a rule), so it is shown exactly as it is read.
pub fn has_keyword(text: &str) -> bool {
    engine().keywords.is_match(text)
}

/// Scans a path for secrets: a file or directory name, or a whole display path such as
/// `src/ghp_.../notes.txt`, with the same rules as file text. Each `/`-separated component is
/// scanned as a line of its own, so a secret never spans a separator. A secret is replaced by
/// the same `[REDACTED:<rule>]` marker the content gets.
///
/// The result follows `mode` like [`scan`]: `Clean` (borrowed, nothing found, mode off, or the
/// path is allowed), `Warned` (the path unchanged), `Redacted` (the display form with each
/// secret replaced) or `Blocked` (the caller should leave the entry out). Findings never hold
/// the secret: their `path` is the display form with *every* secret redacted, their `line` is
/// 0 (the name, not a line of content), and their fingerprint is `<that path>:<rule>:0`, which
/// the allow list accepts like any other. Path globs in the allow list match the original path.
pub fn scan_name<'a>(path: &'a str, mode: SecretsMode, allow: &Allow) -> Scanned<'a> {
    if mode == SecretsMode::Off || allow.allows_path(path) {
        return Scanned::Clean(path);
    }
    let engine = engine();
    if !engine.keywords.is_match(path) {
        return Scanned::Clean(path);
    }
    // Same length, byte for byte: spans found in `lines` apply to `path`.
    let lines = path.replace('/', "\n");
    let mut spans = engine.find(&lines);
    // In a name, `_` also joins words (`backup_ghp_…_2024.txt`), where in content `x_ghp_…`
    // is one identifier and no token. So scan again with every underscore outside the rules'
    // keywords as a break, and add what that finds where the first pass found nothing.
    if lines.contains('_') {
        let words = underscores_as_breaks(&lines, &engine.keywords);
        let first = spans.clone();
        for extra in engine.find(&words) {
            if !first
                .iter()
                .any(|s| s.start < extra.end && extra.start < s.end)
            {
                spans.push(extra);
            }
        }
        spans.sort_by_key(|s| (s.start, s.end));
    }
    if spans.is_empty() {
        return Scanned::Clean(path);
    }
    let shown = engine.redact(path, &spans);
    let mut findings: Vec<Finding> = Vec::new();
    let mut allowed: Vec<&str> = Vec::new();
    for span in &spans {
        let rule = engine.detectors[span.detector].rule;
        if findings.iter().any(|f| f.rule == rule) || allowed.contains(&rule) {
            continue;
        }
        let finding = Finding::new(rule, &shown, 0);
        if allow.fingerprints.contains(&finding.fingerprint) {
            allowed.push(rule);
        } else {
            findings.push(finding);
        }
    }
    spans.retain(|span| !allowed.contains(&engine.detectors[span.detector].rule));
    if findings.is_empty() {
        return Scanned::Clean(path);
    }
    match mode {
        SecretsMode::Off => Scanned::Clean(path),
        SecretsMode::Warn => Scanned::Warned {
            text: path,
            findings,
        },
        SecretsMode::Block => Scanned::Blocked { findings },
        SecretsMode::Redact => Scanned::Redacted {
            text: engine.redact(path, &spans),
            findings,
        },
    }
}

fn count_newlines(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

/// `lines` with every `_` that is not part of a rule keyword (`ghp_`, `sk_live_`) replaced by a
/// line break: the same length, so spans found in it apply to `lines`.
fn underscores_as_breaks(lines: &str, keywords: &AhoCorasick) -> String {
    let mut bytes = lines.as_bytes().to_vec();
    let mut keep = vec![false; bytes.len()];
    for m in keywords.find_overlapping_iter(lines) {
        keep[m.start()..m.end()].fill(true);
    }
    for (b, kept) in bytes.iter_mut().zip(keep) {
        if *b == b'_' && !kept {
            *b = b'\n';
        }
    }
    // ASCII replaced by ASCII: still UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|_| lines.to_string())
}

/// A secret's byte range in the text and the detector that found it.
#[derive(Clone, Copy, Debug)]
struct Span {
    start: usize,
    end: usize,
    detector: usize,
}

/// The compiled rule set, built once per process. Each detector's regex is compiled the first
/// time a line wakes it: most runs need few of them, and compiling them all was most of the
/// startup of a short command (a name is scanned before anything else is done).
struct Engine {
    detectors: Vec<Detector>,
    regexes: Vec<OnceLock<Regex>>,
    keywords: AhoCorasick,
    /// For each keyword (by automaton pattern id), the detectors it wakes, as a bit set.
    keyword_detectors: Vec<u64>,
}

fn engine() -> &'static Engine {
    static ENGINE: OnceLock<Engine> = OnceLock::new();
    ENGINE.get_or_init(Engine::new)
}

impl Engine {
    fn new() -> Engine {
        let detectors = rules::detectors();
        assert!(detectors.len() <= 64, "detector bit sets are u64");
        let regexes = detectors.iter().map(|_| OnceLock::new()).collect();
        let mut words: Vec<String> = Vec::new();
        let mut keyword_detectors: Vec<u64> = Vec::new();
        for (i, d) in detectors.iter().enumerate() {
            for k in d.keywords {
                let k = k.to_ascii_lowercase();
                match words.iter().position(|w| *w == k) {
                    Some(p) => keyword_detectors[p] |= 1 << i,
                    None => {
                        words.push(k);
                        keyword_detectors.push(1 << i);
                    }
                }
            }
        }
        let keywords = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&words)
            .expect("secret rule keywords build an automaton");
        Engine {
            detectors,
            regexes,
            keywords,
            keyword_detectors,
        }
    }

    /// Detector `i`'s regex, compiled at its first use. The patterns are constants of this
    /// module, covered by the tests: a failure here is a bug in gnaw, not in anyone's input.
    fn regex(&self, i: usize) -> &Regex {
        self.regexes[i].get_or_init(|| {
            Regex::new(&self.detectors[i].pattern).expect("secret rule regex compiles")
        })
    }

    /// `text` with each span replaced by `[REDACTED:<rule>]`. `spans` are sorted and disjoint.
    fn redact(&self, text: &str, spans: &[Span]) -> String {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for span in spans {
            out.push_str(&text[last..span.start]);
            out.push_str("[REDACTED:");
            out.push_str(self.detectors[span.detector].rule);
            out.push(']');
            last = span.end;
        }
        out.push_str(&text[last..]);
        out
    }

    /// Every secret in `text`, sorted, without overlaps (the earlier detector wins a tie).
    fn find(&self, text: &str) -> Vec<Span> {
        let mut spans = Vec::new();
        // The line being gathered: its range and the detectors its keywords woke.
        let mut line: Option<(usize, usize, u64)> = None;
        // Of the spans found so far, the one that ends furthest.
        let mut reach: Option<(usize, usize)> = None;
        let mut check = |l, spans: &mut Vec<Span>| {
            let from = spans.len();
            self.check_line(text, l, reach, spans);
            for s in &spans[from..] {
                if reach.is_none_or(|(_, e)| s.end > e) {
                    reach = Some((s.start, s.end));
                }
            }
        };
        for m in self.keywords.find_overlapping_iter(text) {
            let woken = self.keyword_detectors[m.pattern().as_usize()];
            match &mut line {
                Some((_, end, set)) if m.start() < *end => *set |= woken,
                _ => {
                    if let Some(l) = line {
                        check(l, &mut spans);
                    }
                    let start = text[..m.start()].rfind('\n').map_or(0, |i| i + 1);
                    let end = text[m.end()..]
                        .find('\n')
                        .map_or(text.len(), |i| m.end() + i);
                    line = Some((start, end, woken));
                }
            }
        }
        if let Some(l) = line {
            check(l, &mut spans);
        }
        if spans.len() > 1 {
            spans.sort_by_key(|s| (s.start, s.detector));
            let mut end = 0;
            spans.retain(|s| {
                let keep = s.start >= end;
                if keep {
                    end = s.end;
                }
                keep
            });
        }
        spans
    }

    /// Runs the woken detectors over `text[start..end]`, one line, in the table's order (most
    /// specific first).
    fn check_line(
        &self,
        text: &str,
        (start, end, woken): (usize, usize, u64),
        reach: Option<(usize, usize)>,
        spans: &mut Vec<Span>,
    ) {
        let line = &text[start..end];
        // The span of an earlier line that reaches furthest (a key's body), if into this one.
        let carried = reach
            .filter(|&(_, e)| e > start)
            .map(|(s, e)| (s.max(start), e));
        let line_from = spans.len();
        let mut set = woken;
        while set != 0 {
            let i = set.trailing_zeros() as usize;
            set &= set - 1;
            match self.detectors[i].kind {
                Kind::PrivateKey => {
                    for m in self.regex(i).find_iter(line) {
                        let after = start + m.end();
                        if let Some((s, e)) = rules::private_key_body(&text[after..]) {
                            spans.push(Span {
                                start: after + s,
                                end: after + e,
                                detector: i,
                            });
                        }
                    }
                }
                Kind::Line { check } => {
                    // The next match may begin right after this one's secret, not only after
                    // the whole match: what follows a secret (a URL's host) can hold the start
                    // of the next one (`…@host.URL=postgres://u:p@…`), and it must not hide it.
                    // A match's tail after its secret cannot hold the next secret, so each byte
                    // is searched a bounded number of times.
                    // What the detectors before this one claimed of the line.
                    let claimed = Claimed::new(carried, &spans[line_from..], start);
                    let mut at = 0;
                    let mut searched_again = 0;
                    while let Some(caps) = self.regex(i).captures_at(line, at) {
                        let whole = caps.get(0).map_or(at..at, |m| m.range());
                        let secret = caps.name("s");
                        let mut accepted = secret.is_some() && check(&caps, line);
                        // Where a secret cut at claimed text ends its claim.
                        let mut cut_claim_end = None;
                        if let Some(s) = secret.filter(|_| accepted) {
                            spans.push(Span {
                                start: start + s.start(),
                                end: start + s.end(),
                                detector: i,
                            });
                        } else if let Some(s) = secret
                            && let Some((cut, claim_end)) = claimed.beginning_in(s.range())
                        {
                            // A refused secret that runs into claimed text is judged again as
                            // the redacted text will show it: cut where the claim begins (a
                            // value refused for a word the redaction removes is a secret).
                            let head = &line[..cut];
                            if let Some(c) = self.regex(i).captures_at(head, whole.start)
                                && c.get(0).is_some_and(|m| m.start() == whole.start)
                                && let Some(cs) = c.name("s")
                                && check(&c, head)
                            {
                                accepted = true;
                                cut_claim_end = Some(claim_end);
                                spans.push(Span {
                                    start: start + cs.start(),
                                    end: start + cs.end(),
                                    detector: i,
                                });
                            }
                        }
                        let mut next =
                            cut_claim_end.unwrap_or_else(|| secret.map_or(whole.end, |s| s.end()));
                        // A match refused where it began inside claimed text (its keyword will
                        // be redacted) must not hide what follows that text: the search goes on
                        // where the claim ends, as a scan of the redacted text would. Never
                        // before `searched_again`, so each byte is searched at most twice.
                        if !accepted
                            && let Some((_, claim_end)) = claimed.holding(whole.start)
                            && claim_end.max(searched_again) < next
                        {
                            (searched_again, next) = (next, claim_end.max(searched_again));
                        }
                        at = if next > whole.start {
                            next
                        } else {
                            // An empty match: step over one character.
                            whole.start
                                + line[whole.start..].chars().next().map_or(1, char::len_utf8)
                        };
                        if at > line.len() {
                            break;
                        }
                    }
                }
            }
        }
    }
}

/// What the detectors run so far claimed of one line: sorted, disjoint ranges of line offsets,
/// text a redaction will replace.
struct Claimed(Vec<(usize, usize)>);

impl Claimed {
    /// The claims of `carried` (a span of an earlier line reaching into this one, cut at the
    /// line's start) and `found` (spans found in it so far), merged.
    fn new(carried: Option<(usize, usize)>, found: &[Span], line_start: usize) -> Claimed {
        let mut ranges: Vec<(usize, usize)> = carried
            .into_iter()
            .chain(found.iter().map(|s| (s.start, s.end)))
            .map(|(a, b)| (a.saturating_sub(line_start), b.saturating_sub(line_start)))
            .collect();
        ranges.sort_unstable();
        let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
        for (a, b) in ranges {
            match merged.last_mut() {
                Some(last) if a <= last.1 => last.1 = last.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        Claimed(merged)
    }

    /// The claim that holds offset `at`.
    fn holding(&self, at: usize) -> Option<(usize, usize)> {
        let i = self.0.partition_point(|&(_, e)| e <= at);
        self.0.get(i).copied().filter(|&(a, _)| a <= at)
    }

    /// The first claim that begins inside `within`, after its first byte.
    fn beginning_in(&self, within: std::ops::Range<usize>) -> Option<(usize, usize)> {
        let i = self.0.partition_point(|&(a, _)| a <= within.start);
        self.0.get(i).copied().filter(|&(a, _)| a < within.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_detector_regex_compiles() {
        let e = engine();
        for i in 0..e.detectors.len() {
            e.regex(i);
        }
    }
}
