//! What the warm cache counts: each store's own [`Counters`] ([`Counted`]), and
//! [`CacheStats`], made of them (each store reports its counters into the fields they show in)
//! for tests, logs and benchmarks.

use std::fmt;

/// What one store counts of its own use.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Lookups that found their item.
    pub hits: u64,
    /// Lookups that did not.
    pub misses: u64,
    /// Items offered to the store (each made after a miss), kept or not.
    pub insertions: u64,
    /// Items the store dropped: for the byte budget, or for the cap on what one file's entry
    /// holds (items kept on a file's entry that go with it count as the file's eviction).
    pub evictions: u64,
}

impl Counters {
    /// Count a lookup: a hit when it found its item, else a miss.
    pub(super) fn look(&mut self, found: bool) {
        if found {
            self.hits += 1;
        } else {
            self.misses += 1;
        }
    }
}

/// On one line, short: the cache's stats are logged after every gnaw-mcp call.
impl fmt::Debug for Counters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Counters {
            hits,
            misses,
            insertions,
            evictions,
        } = self;
        write!(
            f,
            "{hits} hits {misses} misses {insertions} in {evictions} out"
        )
    }
}

/// Hit and miss counters, for tests, logs and benchmarks: each store's own counters
/// ([`CacheStats::stores`]), and the named fields they fill in (each store says which).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Files indexed for search (each a miss of the search index: a new or changed file).
    pub index_built: u64,
    /// Search indexes and outlines found in the cache.
    pub derived_hits: u64,
    /// Outlines computed and kept.
    pub outlines_built: u64,
    /// File texts found in the cache.
    pub file_hits: u64,
    /// File texts read anew (not cached, or changed).
    pub file_misses: u64,
    /// Rendered file pieces found in the cache.
    pub piece_hits: u64,
    /// Rendered file pieces rendered anew.
    pub piece_misses: u64,
    /// Token counts found in the cache.
    pub count_hits: u64,
    /// Token counts counted anew.
    pub count_misses: u64,
    /// Skeletons (`compress`) found in the cache.
    pub skeleton_hits: u64,
    /// Skeletons built anew.
    pub skeleton_misses: u64,
    /// Repository items found (a kept search index, before its listing is checked).
    pub repo_hits: u64,
    /// Bytes the cache holds now.
    pub bytes: usize,
    /// Entries the cache holds now.
    pub entries: usize,
    /// Every store's counters, by its name (a kind of derived item shows once it was used).
    pub stores: Vec<(&'static str, Counters)>,
}

impl CacheStats {
    /// The counters of the store named `name` (all zero when there is none by that name).
    pub fn store(&self, name: &str) -> Counters {
        self.stores
            .iter()
            .find(|(n, _)| *n == name)
            .map_or_else(Counters::default, |(_, c)| *c)
    }
}

/// How the counters of a store show in the named fields of [`CacheStats`].
pub type Report = fn(&Counters, &mut CacheStats);

/// A store's name and counters, and the fields of [`CacheStats`] they fill in.
pub struct Counted {
    name: &'static str,
    report: Report,
    counters: Counters,
}

impl Counted {
    /// Nothing counted yet for the store `name`.
    pub(super) fn new(name: &'static str, report: Report) -> Counted {
        Counted {
            name,
            report,
            counters: Counters::default(),
        }
    }

    /// The counters, to count with.
    pub(super) fn tally(&mut self) -> &mut Counters {
        &mut self.counters
    }

    /// Fill in the fields of `stats` the counters show in, and list them under the store's
    /// name.
    pub(super) fn report(&self, stats: &mut CacheStats) {
        (self.report)(&self.counters, stats);
        stats.stores.push((self.name, self.counters));
    }
}
