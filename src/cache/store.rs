//! The warm cache's one mechanism, which knows nothing of what it keeps: typed stores that draw
//! from one byte budget in one least-recently-used order, each counting its own use.
//!
//! A [`Store`] keeps items of one type by key, each with its cost in bytes and the tick of its
//! last use; the stores of a cache share one clock, so all their uses are ordered, and [`evict`]
//! drops the least recently used items across all of them. A [`Side`] store keeps its items on
//! the entries of another ([`Attached`]: a file's pieces on the file's entry): their cost is
//! their entry's, and they live and die with it. Every charge, eviction and count is made here,
//! nowhere else.

use super::stats::{Counted, Report};
use std::collections::HashMap;
use std::hash::Hash;

/// One kept item: its value, its cost in bytes and the tick of its last use.
struct Slot<V> {
    value: V,
    cost: usize,
    used: u64,
}

/// The items of one type by key, with what they cost and when each was last used.
pub struct Store<K, V> {
    items: HashMap<K, Slot<V>>,
    bytes: usize,
    /// The most one item may cost: a dearer one is not kept.
    max_cost: usize,
    counted: Counted,
}

impl<K: Eq + Hash, V> Store<K, V> {
    /// An empty store named `name`, whose counters fill in `report`'s fields, and whose items
    /// may each cost at most `max_cost` bytes.
    pub fn new(name: &'static str, report: Report, max_cost: usize) -> Store<K, V> {
        Store {
            items: HashMap::new(),
            bytes: 0,
            max_cost,
            counted: Counted::new(name, report),
        }
    }

    /// The item under `key`, now marked used at `now`; counted as a hit or a miss.
    pub fn get(&mut self, key: &K, now: u64) -> Option<&mut V> {
        let found = self.items.get_mut(key);
        self.counted.tally().look(found.is_some());
        found.map(|slot| {
            slot.used = now;
            &mut slot.value
        })
    }

    /// The item under `key`, neither counted nor marked used: a lookup through it (a file's
    /// piece) says with [`Store::touch`] whether it used the item.
    pub fn peek(&mut self, key: &K) -> Option<&mut V> {
        self.items.get_mut(key).map(|slot| &mut slot.value)
    }

    /// Mark the item under `key` used at `now`, and count that use as a hit when `hit`.
    pub fn touch(&mut self, key: &K, now: u64, hit: bool) {
        if let Some(slot) = self.items.get_mut(key) {
            slot.used = now;
            self.counted.tally().hits += u64::from(hit);
        }
    }

    /// Keep `value` under `key` at `cost` bytes, used at `now`, in place of any item there;
    /// counted as an insertion. Not kept (false) when it costs more than one item may.
    pub fn insert(&mut self, key: K, value: V, cost: usize, now: u64) -> bool {
        self.counted.tally().insertions += 1;
        if cost > self.max_cost {
            return false;
        }
        self.restore(key, value, cost, now);
        true
    }

    /// [`Store::insert`], neither counted nor bounded: an item an earlier run kept, back as it
    /// was.
    pub fn restore(&mut self, key: K, value: V, cost: usize, now: u64) {
        let slot = Slot {
            value,
            cost,
            used: now,
        };
        if let Some(old) = self.items.insert(key, slot) {
            self.bytes -= old.cost;
        }
        self.bytes += cost;
    }

    /// Change the item under `key` in place, not marking it used: `change` returns the bytes
    /// it added to it and the bytes it freed, charged to the item.
    pub fn amend(&mut self, key: &K, change: impl FnOnce(&mut V) -> (usize, usize)) {
        if let Some(slot) = self.items.get_mut(key) {
            let (added, freed) = change(&mut slot.value);
            slot.cost = slot.cost + added - freed;
            self.bytes = self.bytes + added - freed;
        }
    }

    /// Forget the item under `key`.
    pub fn remove(&mut self, key: &K) {
        if let Some(old) = self.items.remove(key) {
            self.bytes -= old.cost;
        }
    }

    /// Every item with its key and the tick of its last use.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V, u64)> {
        self.items
            .iter()
            .map(|(k, slot)| (k, &slot.value, slot.used))
    }
}

/// A store as the budget and the stats see it, whatever it keeps.
pub trait Budgeted {
    /// Its name and counters.
    fn counted(&self) -> &Counted;
    fn len(&self) -> usize;
    fn bytes(&self) -> usize;
    /// Push the last use and the cost of each item.
    fn ages(&self, into: &mut Vec<(u64, usize)>);
    /// Drop every item last used at `cutoff` or before (each counted as an eviction).
    fn drop_used_by(&mut self, cutoff: u64);
}

impl<K: Eq + Hash, V> Budgeted for Store<K, V> {
    fn counted(&self) -> &Counted {
        &self.counted
    }

    fn len(&self) -> usize {
        self.items.len()
    }

    fn bytes(&self) -> usize {
        self.bytes
    }

    fn ages(&self, into: &mut Vec<(u64, usize)>) {
        into.extend(self.items.values().map(|slot| (slot.used, slot.cost)));
    }

    fn drop_used_by(&mut self, cutoff: u64) {
        let (mut freed, mut dropped) = (0, 0);
        self.items.retain(|_, slot| {
            let keep = slot.used > cutoff;
            if !keep {
                freed += slot.cost;
                dropped += 1;
            }
            keep
        });
        self.bytes -= freed;
        self.counted.tally().evictions += dropped;
    }
}

/// When `stores` take more than `limit` bytes together, drop their least recently used items,
/// whichever store holds them, until they take at most 90% of it. Their uses are ticks of one
/// clock, so the items dropped are exactly the oldest ones.
pub fn evict(limit: usize, stores: &mut [&mut dyn Budgeted]) {
    let bytes: usize = stores.iter().map(|s| s.bytes()).sum();
    if bytes <= limit {
        return;
    }
    let target = limit / 10 * 9;
    let mut ages = Vec::new();
    for store in stores.iter() {
        store.ages(&mut ages);
    }
    ages.sort_unstable_by_key(|&(used, _)| used);
    let (mut freed, mut cutoff) = (0, 0);
    for (used, cost) in ages {
        if bytes - freed <= target {
            break;
        }
        freed += cost;
        cutoff = used;
    }
    for store in stores.iter_mut() {
        store.drop_used_by(cutoff);
    }
}

/// One item kept on another store's entry.
struct Item<V> {
    /// The digest of the options it was made under.
    context: u128,
    /// The path it was made at.
    path: Box<str>,
    value: V,
    cost: usize,
}

/// The items of [`Side`] stores kept on one entry of another store (a file's pieces), oldest
/// first, each under the options digest and the path it was made with.
pub struct Attached<V>(Vec<Item<V>>);

impl<V> Default for Attached<V> {
    fn default() -> Self {
        Attached(Vec::new())
    }
}

impl<V> Attached<V> {
    /// The item `is` accepts made under `context` at `path`.
    fn find(&self, context: u128, path: &str, is: impl Fn(&V) -> bool) -> Option<&V> {
        self.0
            .iter()
            .find(|i| i.context == context && *i.path == *path && is(&i.value))
            .map(|i| &i.value)
    }

    /// Keep `value` at `cost` under `context` and `path`, in place of the item there that `is`
    /// accepts and, when `cap` items are kept, of the oldest. The cost freed, and what went for
    /// the cap.
    fn put(
        &mut self,
        cap: usize,
        (context, path): (u128, &str),
        (value, cost): (V, usize),
        is: impl Fn(&V) -> bool,
    ) -> (usize, Option<V>) {
        let mut freed = 0;
        self.0.retain(|i| {
            let same = i.context == context && *i.path == *path && is(&i.value);
            if same {
                freed += i.cost;
            }
            !same
        });
        let mut capped = None;
        if self.0.len() >= cap {
            let oldest = self.0.remove(0);
            freed += oldest.cost;
            capped = Some(oldest.value);
        }
        let path = path.into();
        self.0.push(Item {
            context,
            path,
            value,
            cost,
        });
        (freed, capped)
    }
}

/// A store whose items are kept on the entries of another ([`Attached`]): it counts their use,
/// bounds what one of them may cost and how many one entry holds. The entry holds them and
/// pays for them, and they go with it.
pub struct Side {
    /// How many items (of every side store keeping items on the same list) one entry holds.
    cap: usize,
    /// The most one item may cost: a dearer one is not kept.
    max_cost: usize,
    counted: Counted,
}

impl Side {
    /// A side store named `name` whose counters fill in `report`'s fields.
    pub fn new(name: &'static str, report: Report, cap: usize, max_cost: usize) -> Side {
        Side {
            cap,
            max_cost,
            counted: Counted::new(name, report),
        }
    }

    /// The item `is` accepts made under `context` at `path` on the entry `on` (`None`: the
    /// entry is not kept); counted as a hit or a miss.
    pub fn get<'a, V>(
        &mut self,
        on: Option<&'a Attached<V>>,
        (context, path): (u128, &str),
        is: impl Fn(&V) -> bool,
    ) -> Option<&'a V> {
        let found = on.and_then(|items| items.find(context, path, is));
        self.counted.tally().look(found.is_some());
        found
    }

    /// Keep `value` at `cost` on the entry `key` of `owners` (on the list `on` finds there), in
    /// place of the one there `is` accepts; charged to the entry, not marked used, counted as an
    /// insertion. Not kept when that entry is not, or when it costs more than one item may.
    /// What went for the cap on the entry (an item of another side store's, perhaps: counted by
    /// the caller, see [`Side::evicted`]).
    pub fn attach<K: Eq + Hash, E, V>(
        &mut self,
        (owners, key): (&mut Store<K, E>, &K),
        on: fn(&mut E) -> &mut Attached<V>,
        (at, value, cost): ((u128, &str), V, usize),
        is: impl Fn(&V) -> bool,
    ) -> Option<V> {
        self.counted.tally().insertions += 1;
        if cost > self.max_cost {
            return None;
        }
        let mut capped = None;
        owners.amend(key, |entry| {
            let freed;
            (freed, capped) = on(entry).put(self.cap, at, (value, cost), is);
            (cost, freed)
        });
        capped
    }

    /// Count one of its items dropped for the cap on an entry.
    pub fn evicted(&mut self) {
        self.counted.tally().evictions += 1;
    }

    /// Its name and counters.
    pub fn counted(&self) -> &Counted {
        &self.counted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::stats::{CacheStats, Counters};

    /// Two stores of two types, to show that the budget and the order are one across stores.
    type Names = Store<u32, &'static str>;
    type Numbers = Store<u32, u64>;

    fn names(max_cost: usize) -> Names {
        Store::new("names", |c, s| s.file_hits += c.hits, max_cost)
    }

    /// The counters of `store`, as it reports them.
    fn counters(store: &dyn Budgeted) -> Counters {
        let mut stats = CacheStats::default();
        store.counted().report(&mut stats);
        stats.stores[0].1
    }

    fn bytes(stores: &mut [&mut dyn Budgeted]) -> usize {
        stores.iter().map(|s| s.bytes()).sum()
    }

    #[test]
    fn eviction_takes_the_least_recently_used_whichever_store_holds_them() {
        let mut names = names(1000);
        let mut numbers: Numbers = Store::new("numbers", |_, _| {}, 1000);
        names.insert(1, "one", 100, 1);
        numbers.insert(1, 10, 100, 2);
        names.insert(2, "two", 100, 3);
        numbers.insert(2, 20, 100, 4);
        assert!(names.get(&1, 5).is_some(), "now the most recent");

        evict(400, &mut [&mut names, &mut numbers]);
        assert_eq!(
            bytes(&mut [&mut names, &mut numbers]),
            400,
            "within the limit"
        );

        // Over 300: down to 270 at most, the oldest first across both stores.
        evict(300, &mut [&mut names, &mut numbers]);
        assert_eq!(bytes(&mut [&mut names, &mut numbers]), 200);
        assert!(numbers.peek(&1).is_none() && names.peek(&2).is_none());
        assert!(names.peek(&1).is_some() && numbers.peek(&2).is_some());
        assert_eq!(counters(&names).evictions, 1);
        assert_eq!(counters(&numbers).evictions, 1);
        assert_eq!((names.len(), numbers.len()), (1, 1));
    }

    #[test]
    fn a_store_charges_and_counts_its_own_items() {
        let mut names = names(150);
        assert!(names.get(&1, 1).is_none());
        assert!(names.insert(1, "one", 100, 2));
        assert!(
            !names.insert(2, "big", 151, 3),
            "dearer than one item may be"
        );
        assert!(names.get(&1, 4).is_some());
        assert!(names.get(&2, 5).is_none());
        assert!(names.insert(1, "uno", 50, 6), "in place of the old one");
        assert_eq!(names.bytes(), 50);
        names.touch(&1, 7, true);
        names.touch(&1, 8, false);
        names.restore(3, "three", 500, 9);
        assert_eq!(
            names.bytes(),
            550,
            "restored whatever its cost, not counted"
        );
        names.amend(&3, |v| {
            *v = "tres";
            (20, 500)
        });
        assert_eq!(names.bytes(), 70);
        assert_eq!(names.peek(&3).copied(), Some("tres"));
        names.remove(&3);
        assert_eq!((names.bytes(), names.len()), (50, 1));
        let ages: Vec<(u64, usize)> = {
            let mut ages = Vec::new();
            names.ages(&mut ages);
            ages
        };
        assert_eq!(ages, [(8, 50)], "marked used by every use");
        let expected = Counters {
            hits: 2,
            misses: 2,
            insertions: 3,
            evictions: 0,
        };
        let mut stats = CacheStats::default();
        names.counted().report(&mut stats);
        assert_eq!(stats.file_hits, 2, "its report fills in its fields");
        assert_eq!(stats.stores, [("names", expected)]);
    }

    #[test]
    fn side_items_are_charged_to_their_entry_and_capped_oldest_first() {
        let mut side = Side::new("pieces", |_, _| {}, 2, 100);
        let mut owners: Store<u32, Attached<&str>> = Store::new("owners", |_, _| {}, 1000);
        owners.insert(1, Attached::default(), 10, 1);
        fn on<'a>(e: &'a mut Attached<&'static str>) -> &'a mut Attached<&'static str> {
            e
        }
        let mut attach = |owners: &mut Store<_, _>, key, at, value, cost| {
            side.attach((owners, &key), on, (at, value, cost), |_| true)
        };
        assert_eq!(attach(&mut owners, 1, (1, "p"), "a", 10), None);
        assert_eq!(owners.bytes(), 20, "charged to the entry");
        attach(&mut owners, 1, (1, "p"), "b", 20);
        assert_eq!(owners.bytes(), 30, "in place of the same");
        attach(&mut owners, 1, (2, "p"), "c", 5);
        let capped = attach(&mut owners, 1, (1, "q"), "d", 5);
        assert_eq!(capped, Some("b"), "past the cap, the oldest goes");
        assert_eq!(owners.bytes(), 20);
        assert_eq!(attach(&mut owners, 2, (1, "p"), "e", 5), None);
        assert_eq!(attach(&mut owners, 1, (3, "p"), "big", 101), None);
        assert_eq!(owners.bytes(), 20, "nothing kept on no entry, nor too dear");
        side.evicted();

        let on = owners.peek(&1).map(|e| &*e);
        assert!(side.get(on, (1, "p"), |_| true).is_none());
        assert_eq!(side.get(on, (2, "p"), |_| true), Some(&"c"));
        assert!(
            side.get(on, (2, "p"), |v| *v != "c").is_none(),
            "not its kind"
        );
        assert!(
            side.get::<&str>(None, (2, "p"), |_| true).is_none(),
            "no entry"
        );
        assert_eq!(
            owners.iter().map(|(_, _, used)| used).collect::<Vec<_>>(),
            [1]
        );
        let mut stats = CacheStats::default();
        side.counted().report(&mut stats);
        let expected = Counters {
            hits: 1,
            misses: 3,
            insertions: 6,
            evictions: 1,
        };
        assert_eq!(stats.stores, [("pieces", expected)]);
    }
}
