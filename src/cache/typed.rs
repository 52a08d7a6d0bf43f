//! Items of types the cache cannot name: what the layers above it derive and keep there (a
//! file's search index and outline, a repository's search index). Each kind is a typed key that
//! carries its items' type ([`DerivedKind`], or the item type itself for a repository item).
//! The cache holds the items as [`Erased`] values and gives each back only to its own kind, so
//! callers get their own types back and never downcast.

use super::stats::Report;
use super::store::Side;
use std::any::Any;
use std::marker::PhantomData;

/// A kind of item a navigation tool derives from a file's shown text and keeps on the file's
/// entry (its search index, its outline): its name, which tells it from the other kinds, the
/// type `V` of its items, and how its counters show in [`super::CacheStats`]. Made once, as a
/// constant, where the items are made.
pub struct DerivedKind<V> {
    name: &'static str,
    report: Report,
    items: PhantomData<fn() -> V>,
}

impl<V> DerivedKind<V> {
    /// The kind named `name`, whose counters fill in `report`'s fields.
    pub const fn new(name: &'static str, report: Report) -> DerivedKind<V> {
        DerivedKind {
            name,
            report,
            items: PhantomData,
        }
    }

    /// Its name.
    pub(super) fn name(&self) -> &'static str {
        self.name
    }
}

/// A value of some kind's type, kept without the cache knowing the type. This is the one place
/// the cache meets `Any`: a value is given back only to the kind that kept it, as that kind's
/// type.
pub struct Erased {
    kind: &'static str,
    value: Box<dyn Any + Send + Sync>,
}

impl Erased {
    /// `value`, kept for the kind named `kind`.
    pub fn new<V: Send + Sync + 'static>(kind: &'static str, value: V) -> Erased {
        Erased {
            kind,
            value: Box::new(value),
        }
    }

    /// Whether it was kept for the kind named `kind`.
    pub fn is(&self, kind: &str) -> bool {
        self.kind == kind
    }

    /// Its value, when it was kept for the kind named `kind`, as a `V`.
    pub fn get<V: Clone + 'static>(&self, kind: &str) -> Option<V> {
        self.value
            .downcast_ref::<V>()
            .filter(|_| self.is(kind))
            .cloned()
    }
}

/// The side stores of the kinds of derived items, each made at its kind's first use.
pub struct Kinds {
    sides: Vec<(&'static str, Side)>,
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

    /// The side store of `kind`.
    pub fn of<V>(&mut self, kind: &DerivedKind<V>) -> &mut Side {
        let at = match self.sides.iter().position(|(name, _)| *name == kind.name) {
            Some(at) => at,
            None => {
                let side = Side::new(kind.name, kind.report, self.cap, self.max_cost);
                self.sides.push((kind.name, side));
                self.sides.len() - 1
            }
        };
        &mut self.sides[at].1
    }

    /// Count an item dropped for the cap on an entry as its own kind's eviction.
    pub fn evicted(&mut self, item: &Erased) {
        if let Some((_, side)) = self.sides.iter_mut().find(|(name, _)| item.is(name)) {
            side.evicted();
        }
    }

    /// Every kind's side store, in the order of their first use.
    pub fn iter(&self) -> impl Iterator<Item = &Side> {
        self.sides.iter().map(|(_, side)| side)
    }
}
