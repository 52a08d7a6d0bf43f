//! Items of types the cache cannot name: what the layers above it derive and keep there (a
//! file's search index and outline, a repository's search index). Each kind is a marker type
//! that carries its items' type ([`DerivedKind`], or the item type itself for a repository
//! item). The cache holds them as [`Erased`] values and gives each back only to its own kind,
//! so callers get their own types back and never downcast.

use super::stats::{CacheStats, Counters};
use super::store::Side;
use std::any::{Any, TypeId};

/// A kind of item a navigation tool derives from a file's shown text and keeps on the file's
/// entry (its search index, its outline): a marker type, implemented where the items are made.
pub trait DerivedKind: 'static {
    /// What is kept: cloned out on a hit (so an `Arc` or a small value).
    type Value: Clone + Send + Sync + 'static;
    /// Its name among the stores' counters.
    const NAME: &'static str;
    /// Fill in the fields of `stats` its counters show in.
    fn report(counters: &Counters, stats: &mut CacheStats);
}

/// A value of some kind's type, kept without the cache knowing the type. This is the one place
/// the cache meets `Any`: a value is given back only to the kind that kept it, whose type it
/// is, so the downcast cannot fail.
pub struct Erased {
    kind: TypeId,
    value: Box<dyn Any + Send + Sync>,
}

impl Erased {
    /// `value`, kept for the kind `kind`.
    pub fn new<V: Send + Sync + 'static>(kind: TypeId, value: V) -> Erased {
        Erased {
            kind,
            value: Box::new(value),
        }
    }

    /// Whether it was kept for the kind `kind`.
    pub fn is(&self, kind: TypeId) -> bool {
        self.kind == kind
    }

    /// Its value, when it was kept for the kind `kind` (as a `V`).
    pub fn get<V: Clone + 'static>(&self, kind: TypeId) -> Option<V> {
        self.value
            .downcast_ref::<V>()
            .filter(|_| self.is(kind))
            .cloned()
    }
}

/// The side stores of the kinds of derived items, each made at its kind's first use.
pub struct Kinds {
    sides: Vec<(TypeId, Side)>,
    /// How many derived items (of every kind) one file's entry holds.
    cap: usize,
    /// The most one derived item may cost.
    max_cost: usize,
}

impl Kinds {
    /// No kind yet; each one's items to be kept `cap` at most on one entry (all kinds
    /// together), at most `max_cost` bytes each.
    pub fn new(cap: usize, max_cost: usize) -> Kinds {
        Kinds {
            sides: Vec::new(),
            cap,
            max_cost,
        }
    }

    /// The side store of the kind `K`.
    pub fn of<K: DerivedKind>(&mut self) -> &mut Side {
        let kind = TypeId::of::<K>();
        let at = match self.sides.iter().position(|(k, _)| *k == kind) {
            Some(at) => at,
            None => {
                let side = Side::new(K::NAME, K::report, self.cap, self.max_cost);
                self.sides.push((kind, side));
                self.sides.len() - 1
            }
        };
        &mut self.sides[at].1
    }

    /// Count an item dropped for the cap on an entry as its own kind's eviction.
    pub fn evicted(&mut self, item: &Erased) {
        if let Some((_, side)) = self.sides.iter_mut().find(|(k, _)| item.is(*k)) {
            side.evicted();
        }
    }

    /// Every kind's side store, in the order of their first use.
    pub fn iter(&self) -> impl Iterator<Item = &Side> {
        self.sides.iter().map(|(_, side)| side)
    }
}
