//! One call's settings (`.gnawconfig`, overrides and the operator's floors, resolved exactly as
//! for `extract`) and its open repository ([`Session`]): the walk, and the per-file step
//! (`driver::file`) run over a set of candidates with progress and cancellation.

use super::paging::{self, Limits};
use super::request::{NavError, Request};
use crate::driver::file::{self, FileContext, Processed};
use crate::driver::options::{self, FileOptions};
use crate::driver::repo_open_error;
use crate::error::Error;
use crate::gnawconfig::Options;
use crate::par;
use crate::spec::{ExtractionSpec, IdleWork, Mode};
use crate::stages::count;
use crate::stages::filter::Filter;
use crate::stages::source::{self, Sourced, WalkOptions};
use crate::vocab::{Candidate, Encoding};
use gnaw_sandbox::BeneathDir;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A call's resolved settings and its open repository.
pub struct Session<'r, 'a> {
    /// The call's request.
    pub req: &'r Request<'a>,
    /// The repository's root, opened.
    pub dir: BeneathDir,
    /// The call's settings: the repository's `.gnawconfig` with the call's overrides.
    pub options: Options,
    spec: ExtractionSpec<'a>,
}

impl<'r, 'a> Session<'r, 'a> {
    /// Open the repository and resolve `.gnawconfig` with the request's overrides and floors.
    pub fn open(req: &'r Request<'a>) -> Result<Session<'r, 'a>, NavError> {
        let spec = ExtractionSpec {
            repo: req.repo.clone(),
            overrides: req.overrides.clone(),
            paths: None,
            mode: Mode::Estimate,
            observer: req.observer,
            policy: req.policy,
            cache: req.cache,
        };
        let dir = req.repo.open().map_err(|e| repo_open_error(&e))?;
        let options = options::resolve(&dir, &spec)?;
        // An answer fitted to a budget is counted: the tokenizer is built while the call walks
        // and reads (a tool that counts without one asks for it itself).
        if options.budget.is_some() {
            count::prefetch(options.encoding);
        }
        Ok(Session {
            req,
            dir,
            options,
            spec,
        })
    }

    /// The per-file settings: the very ones `extract` uses when `counting` (so the warm cache's
    /// pieces are shared with it), else the same without token counts. `max_file_size` raises
    /// the read limit (a range of a large file).
    pub fn file_options(&self, counting: bool, max_file_size: Option<u64>) -> FileOptions {
        let mut fo = FileOptions::new(&self.options, &self.spec, counting);
        if let Some(max) = max_file_size {
            fo.read.max_file_size = max;
        }
        fo
    }

    /// The file context for `fo`, sharing the request's cache.
    pub fn context<'s>(&'s self, fo: &'s FileOptions) -> Result<FileContext<'s>, NavError> {
        Ok(FileContext::new(&self.dir, fo, self.req.cache)?)
    }

    /// The token budget: the call's, else `.gnawconfig`'s, else the surface's default.
    pub fn budget(&self) -> Option<usize> {
        self.options.budget
    }

    /// The encoding the call counts tokens in.
    pub fn encoding(&self) -> Encoding {
        self.options.encoding
    }

    /// Whether the answer is counted: always when it is fitted to a budget, else when the
    /// surface reports counts ([`Request::count_answer`]).
    pub fn counting(&self) -> bool {
        self.budget().is_some() || self.req.count_answer
    }

    /// The counter of this call's answer: exact when [`Session::counting`], else one that
    /// counts nothing (the answer's `tokens` is then 0).
    pub fn counter(&self) -> impl Fn(&str) -> usize + use<> {
        paging::counter(self.encoding(), self.counting())
    }

    /// What the answer must fit: the call's budget and its text limit.
    pub fn limits(&self) -> Limits {
        Limits {
            budget: self.budget(),
            max_bytes: self.req.max_text_bytes,
        }
    }

    /// The largest file a range may be read from: the operator's ceiling on `max_file_size`
    /// (the server's default ceiling when the surface sets none), and never below the limit in
    /// force.
    pub fn range_ceiling(&self) -> u64 {
        self.req
            .policy
            .max_file_size_cap
            .unwrap_or(crate::spec::SERVER_MAX_FILE_SIZE_CAP)
            .max(self.options.max_file_size)
    }

    /// Whether the call was cancelled.
    pub fn cancelled(&self) -> bool {
        self.req.observer.is_some_and(|o| o.cancelled())
    }

    /// Leave `work` for the server's idle time (dropped without an observer, as in the CLI).
    pub fn leave(&self, work: IdleWork) {
        if let Some(o) = self.req.observer {
            o.leave(work);
        }
    }

    /// Walk the repository as `extract` does: its ignore files, hidden and filter rules.
    pub fn walk(&self) -> Result<Sourced, NavError> {
        self.walk_under(&[])
    }

    /// [`Session::walk`], with the [`source::Listing`] of what it saw (when everything in it
    /// had settled): what tells a later call whether a walk would find the same.
    pub fn walk_listed(&self) -> Result<(Sourced, Option<source::Listing>), NavError> {
        let filter = Arc::new(self.filter(&self.options.include)?);
        let walked = source::walk_listed(&self.dir, &self.walk_options(&filter, &[]))?;
        if self.cancelled() {
            return Err(Error::Cancelled.into());
        }
        Ok(walked)
    }

    /// The warm cache's key for `what`, derived from a whole walk of this repository with the
    /// per-file options of `ctx`: the repository's identity (device and inode), every setting
    /// of the call but its budget (all of [`Options`], as its `Debug` spells it, so a setting
    /// added later is in it too; the budget shapes the answer, not what is walked and read),
    /// the operator's depth limit and `ctx`'s options.
    pub fn repo_key(&self, ctx: &FileContext<'_>, what: &str) -> u128 {
        let root = self.dir.stat().ok().map(|st| (st.dev, st.ino));
        let options = Options {
            budget: None,
            ..self.options.clone()
        };
        crate::cache::context_key(&(
            what,
            root,
            format!("{options:?}"),
            self.req.policy.max_depth,
            ctx.context_key(),
        ))
    }

    /// [`Session::walk`], entering only the directory `under` (repo-relative) and the
    /// directories on the way to it, whose ignore files apply.
    pub fn walk_under(&self, under: &[u8]) -> Result<Sourced, NavError> {
        let filter = Arc::new(self.filter(&self.options.include)?);
        let sourced = source::walk(&self.dir, &self.walk_options(&filter, under))?;
        if self.cancelled() {
            return Err(Error::Cancelled.into());
        }
        Ok(sourced)
    }

    /// [`Session::walk`] and [`Session::each_named`] at once: each file goes through the per-file
    /// step and then `f` as soon as the walk finds it, on the walk's threads, so reading overlaps
    /// listing. The walk and each result come back exactly as the two steps give them: the
    /// candidates sorted by path, the results in their order. Progress counts the files done
    /// against those found so far until the walk ends, then against all of them.
    pub fn walk_each_named<R: Send>(
        &self,
        ctx: &FileContext<'_>,
        f: impl Fn(&Candidate, String, Processed) -> R + Sync,
    ) -> Result<(Sourced, Vec<R>), NavError> {
        let filter = Arc::new(self.filter(&self.options.include)?);
        let done = AtomicUsize::new(0);
        let stop = || self.cancelled();
        let each = |c: &Candidate, found: usize| {
            let (shown, processed) = file::process_named(ctx, c);
            let r = f(c, shown, processed);
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            // Done with every file found so far is not done: the walk may find more.
            if let Some(o) = self.req.observer
                && n < found
            {
                o.progress(n, found);
            }
            r
        };
        let opts = self.walk_options(&filter, &[]);
        let (sourced, results) = source::walk_each(&self.dir, &opts, &stop, &each)?;
        let total = sourced.candidates.len();
        if let Some(o) = self.req.observer
            && total > 0
        {
            o.progress(total, total);
        }
        Ok((sourced, results))
    }

    /// The walk's settings as `extract`'s: its ignore files, hidden and filter rules.
    fn walk_options<'o>(&self, filter: &'o Arc<Filter>, under: &'o [u8]) -> WalkOptions<'o> {
        WalkOptions {
            hidden: self.options.hidden,
            no_ignore: self.options.no_ignore,
            filter,
            threads: par::threads(),
            max_depth: self.req.policy.max_depth,
            under,
        }
    }

    /// The filter of the call's walk: `include` (the call's and `.gnawconfig`'s, or none) and
    /// the excludes in force, matched against paths as the answer shows them.
    pub fn filter(&self, include: &[String]) -> Result<Filter, NavError> {
        Ok(Filter::new(include, &self.options.exclude)?.seeing(file::namer(&self.options)?))
    }

    /// Run the per-file step on every candidate in parallel (largest first), reporting progress,
    /// and hand each outcome to `f` on the worker thread. Results come back in input order.
    pub fn each_file<R: Send>(
        &self,
        ctx: &FileContext<'_>,
        candidates: &[Candidate],
        f: impl Fn(&Candidate, Processed) -> R + Sync,
    ) -> Result<Vec<R>, NavError> {
        self.each_named(ctx, candidates, |c, _, p| f(c, p))
    }

    /// [`Session::each_file`], with each file's path as it is shown (a secret in its name
    /// redacted under the policy in force, as in `extract`'s output).
    pub fn each_named<R: Send>(
        &self,
        ctx: &FileContext<'_>,
        candidates: &[Candidate],
        f: impl Fn(&Candidate, String, Processed) -> R + Sync,
    ) -> Result<Vec<R>, NavError> {
        let total = candidates.len();
        let done = AtomicUsize::new(0);
        let order = par::largest_first(candidates, |c| c.size);
        let stop = || self.cancelled();
        par::map(candidates, &order, par::threads(), &stop, |c| {
            let (shown, processed) = file::process_named(ctx, c);
            let r = f(c, shown, processed);
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(o) = self.req.observer {
                o.progress(n, total);
            }
            r
        })
        .ok_or(NavError::Run(Error::Cancelled))
    }
}
