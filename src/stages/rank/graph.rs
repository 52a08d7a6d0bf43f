//! The reference graph of a repository's files, and how central each file is in it: what
//! `overview` ranks its map by, and what `related` weighs one file's links with.
//!
//! A file links to another when it **imports** it (one of its import lines names the other's
//! module, [`module_name`]) or **uses names it defines** (a name the other defines, by the
//! keyword guess, is among the file's terms). The weights are `related`'s: an import weighs
//! [`IMPORT_WEIGHT`], divided among the files that share the module name; a name weighs
//! [`NAME_WEIGHT`] times its rarity ([`idf`]: a name every file has says little), divided among
//! the files that define it; in full when the file's import lines name it (`use
//! crate::vocab::Symbol`, `import { parse } from`), else [`TEXT_ONLY`] of that (a method called
//! by its name, or a word that only looks like the name), and [`ONE_WORD`] for a name that is
//! one plain word (`size`, `BETWEEN`), which is also a part of other identifiers (`max_size`)
//! and a word of prose. A file's own names do not link it anywhere.
//!
//! The graph is built from the files' search indexes ([`FileIndex`]) alone, in time linear in
//! their terms, never in pairs of files: a pass gathers who defines each name, a pass counts
//! who uses it, a pass gives each file its links. Bounds keep a hostile repository linear too:
//! a name defined by more than [`MAX_DEFINERS`] files (`new`, `fmt`) or a module name shared by
//! more than [`MAX_MODULE_FILES`] files links nothing, and a file keeps its [`MAX_LINKS`]
//! heaviest links; [`Graph::bounds`] says how often each bound was hit.
//!
//! [`Graph::rank`] is PageRank over the weighted links (damping [`DAMPING`]): a file passes its
//! rank on along its links in proportion to their weights, all of it when they weigh at least
//! [`MIN_OUT`] in all, else that share (a file that only mentions a common name does not hand
//! its whole rank to the file defining it); the rest jumps. Personalized when asked: the random reader jumps back to the given files rather than to any file, so the ranks
//! gather around them (what `overview` does for a query, as aider does for the files in a
//! chat). It iterates until the ranks move less than [`TOLERANCE`] or [`MAX_ITERATIONS`] times,
//! each iteration linear in the links, and stops when its caller cancels.

use super::index::{FileIndex, module_name};
use super::terms::{for_each_term, term_hash};
use rustc_hash::FxHashMap;

/// Weight of an import, divided among the files that share the module name.
pub const IMPORT_WEIGHT: f64 = 3.0;
/// Weight of a used name, times its rarity ([`idf`]).
pub const NAME_WEIGHT: f64 = 0.5;
/// What a use of a name the file's import lines do not name weighs, of an imported one.
pub const TEXT_ONLY: f64 = 0.3;
/// The same for a name that is one plain word (`size`, `BETWEEN`; not `Parser`).
pub const ONE_WORD: f64 = 0.1;
/// Links weighing less than this in all pass on only their share of a file's rank: one import.
pub const MIN_OUT: f64 = IMPORT_WEIGHT;
/// A name defined by more files than this links none of them.
pub const MAX_DEFINERS: usize = 16;
/// A module name shared by more files than this links none of them.
pub const MAX_MODULE_FILES: usize = 16;
/// The most links a file keeps (its heaviest).
pub const MAX_LINKS: usize = 256;
/// The chance the random reader follows a link rather than jumping.
pub const DAMPING: f64 = 0.85;
/// The most iterations of [`Graph::rank`].
pub const MAX_ITERATIONS: usize = 100;
/// [`Graph::rank`] stops once the ranks (summing to 1) move less than this in all.
pub const TOLERANCE: f64 = 1e-7;

/// Words every import line holds whatever it imports: a file whose module is named by one
/// (`use.rs`, `import.js`, a `std/mod.rs` beside C++'s `using namespace std`) is not imported
/// by every file.
const IMPORT_KEYWORDS: &[&str] = &[
    "use", "pub", "crate", "super", "self", "import", "from", "mod", "extern", "using", "require",
    "load", "include", "as", "export", "type", "default", "std",
];

/// The rarity of a name `df` of `files` files hold: BM25's inverse document frequency.
pub fn idf(files: usize, df: usize) -> f64 {
    let (n, df) = (files as f64, df as f64);
    ((n - df + 0.5) / (df + 0.5) + 1.0).ln()
}

/// The term by which the graph knows a defined name as written (`parse_header`,
/// `Semantics::parse`: its last segment), the one [`FileIndex::defined_terms`] holds for it:
/// the whole identifier, lowercased, without underscores, stemmed. `None` for a name with no
/// word in it.
pub fn name_term(name: &str) -> Option<u64> {
    let last = name.rsplit([':', '.']).next().unwrap_or(name);
    let mut first = None;
    for_each_term(last, |t| {
        first.get_or_insert_with(|| term_hash(t));
    });
    first
}

/// The weight of an import of a module name `sharing` files share.
pub fn import_weight(sharing: usize) -> f64 {
    IMPORT_WEIGHT / sharing.max(1) as f64
}

/// The files of a set by their module name ([`module_name`]), positions ascending; import
/// keywords name none.
pub struct Modules {
    by_name: FxHashMap<u64, Vec<u32>>,
}

impl Modules {
    /// The module names of the files at `paths`, by position.
    pub fn of<'a>(paths: impl IntoIterator<Item = &'a str>) -> Modules {
        let keywords: Vec<u64> = IMPORT_KEYWORDS.iter().map(|k| term_hash(k)).collect();
        let mut by_name: FxHashMap<u64, Vec<u32>> = FxHashMap::default();
        for (i, path) in paths.into_iter().enumerate() {
            if let Some(m) = module_name(path).filter(|m| !keywords.contains(m)) {
                by_name.entry(m).or_default().push(i as u32);
            }
        }
        Modules { by_name }
    }

    /// The module name of `path`, unless it is an import keyword.
    pub fn name_of(&self, path: &str) -> Option<u64> {
        module_name(path).filter(|m| self.by_name.contains_key(m))
    }

    /// The files named `m`.
    pub fn files(&self, m: u64) -> &[u32] {
        self.by_name.get(&m).map_or(&[], Vec::as_slice)
    }
}

/// What the graph knows of one defined name.
#[derive(Clone, Copy, Debug)]
struct Name {
    users: u32,
    importers: u32,
    definers: u32,
    /// Whether every file defining it writes it as one plain word.
    plain: bool,
}

/// What the uses of a name weigh together (without its rarity): each of the `importers` (files
/// whose import lines name it) 1, each other of its `users` [`TEXT_ONLY`], or [`ONE_WORD`] for a
/// `plain` name (one plain word, see [`super::plain_word`]).
pub fn uses_weight(users: usize, importers: usize, plain: bool) -> f64 {
    let unimported = if plain { ONE_WORD } else { TEXT_ONLY };
    importers as f64 + unimported * users.saturating_sub(importers) as f64
}

/// How often the graph's bounds were hit while it was built.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    /// Names defined by more than [`MAX_DEFINERS`] files (they link nothing).
    pub names: usize,
    /// Module names shared by more than [`MAX_MODULE_FILES`] files (they link nothing).
    pub modules: usize,
    /// Files whose links were cut to [`MAX_LINKS`].
    pub files: usize,
}

impl Bounds {
    /// Whether a bound cut a file's links (names and modules too common to link are the rule,
    /// not a cut).
    pub fn cut(&self) -> bool {
        self.files > 0
    }
}

/// The reference graph of a set of files (by position), with what it knows of each defined
/// name. See the module's documentation.
pub struct Graph {
    /// Where each file's links start in `links`; one more entry than files.
    starts: Box<[u32]>,
    /// Each link: the file linked to and its weight.
    links: Box<[(u32, f32)]>,
    /// Each file's links' total weight.
    out: Box<[f64]>,
    /// Each defined name's term: how many files use it without defining it, how many of them
    /// import it by name, how many define it, and what a use that does not import it weighs.
    names: FxHashMap<u64, Name>,
    bounds: Bounds,
}

impl Graph {
    /// The graph of the files at `paths` with the indexes `files` (the same length, in the same
    /// order); `None` when `stop` said so (asked every 256 files of each pass).
    pub fn build(paths: &[&str], files: &[&FileIndex], stop: &dyn Fn() -> bool) -> Option<Graph> {
        let n = files.len();
        let asked = |i: usize| i.is_multiple_of(256) && stop();
        // Who defines each name, as the first of them writes it, and whether all of them write
        // it as one plain word.
        let mut definers: FxHashMap<u64, (Vec<u32>, u64, bool)> = FxHashMap::default();
        for (i, f) in files.iter().enumerate() {
            if asked(i) {
                return None;
            }
            for &h in f.defined_terms() {
                let (written, plain) = f.defined_as(h).unwrap_or((h, false));
                let (by, _, one_word) = definers.entry(h).or_insert((Vec::new(), written, true));
                by.push(i as u32);
                *one_word &= plain;
            }
        }
        // Who holds it (definers included).
        let mut held: FxHashMap<u64, u32> = definers.keys().map(|&h| (h, 0)).collect();
        for (i, f) in files.iter().enumerate() {
            if asked(i) {
                return None;
            }
            for h in f.term_hashes() {
                if let Some(df) = held.get_mut(&h) {
                    *df += 1;
                }
            }
        }
        let mut bounds = Bounds::default();
        let mut names: FxHashMap<u64, Name> = FxHashMap::default();
        names.reserve(definers.len());
        // Each linking name's weight per definer (imported), as written.
        let mut weight: FxHashMap<u64, (f64, u64)> = FxHashMap::default();
        for (&h, &(ref by, written, one_word)) in &definers {
            let df = held.get(&h).copied().unwrap_or(0) as usize;
            let users = df.saturating_sub(by.len());
            names.insert(
                h,
                Name {
                    users: users as u32,
                    importers: 0,
                    definers: by.len() as u32,
                    plain: one_word,
                },
            );
            if by.len() > MAX_DEFINERS {
                bounds.names += 1;
            } else if users > 0 {
                let w = NAME_WEIGHT * idf(n, df) / by.len() as f64;
                weight.insert(h, (w, written));
            }
        }
        drop(held);
        let modules = Modules::of(paths.iter().copied());
        bounds.modules = modules
            .by_name
            .values()
            .filter(|f| f.len() > MAX_MODULE_FILES)
            .count();
        // Each file's links.
        let mut starts = Vec::with_capacity(n + 1);
        let mut links: Vec<(u32, f32)> = Vec::new();
        let mut out = Vec::with_capacity(n);
        let mut to: FxHashMap<u32, f64> = FxHashMap::default();
        let mut mine: Vec<(u32, f64)> = Vec::new();
        for (i, f) in files.iter().enumerate() {
            if asked(i) {
                return None;
            }
            starts.push(links.len() as u32);
            to.clear();
            for h in f.term_hashes() {
                let Some(&(w, written)) = weight.get(&h) else {
                    continue;
                };
                if f.defines_term(h) {
                    continue;
                }
                let name = names.get_mut(&h)?;
                let w = if f.imports(written) {
                    name.importers += 1;
                    w
                } else {
                    w * uses_weight(1, 0, name.plain)
                };
                for &d in &definers[&h].0 {
                    *to.entry(d).or_default() += w;
                }
            }
            for &m in f.import_words() {
                let by = modules.files(m);
                if by.is_empty() || by.len() > MAX_MODULE_FILES {
                    continue;
                }
                let w = import_weight(by.len());
                for &d in by {
                    if d as usize != i {
                        *to.entry(d).or_default() += w;
                    }
                }
            }
            mine.clear();
            mine.extend(to.iter().map(|(&d, &w)| (d, w)));
            // Heaviest first, ties by position: the same links on every run.
            mine.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            if mine.len() > MAX_LINKS {
                mine.truncate(MAX_LINKS);
                bounds.files += 1;
            }
            mine.sort_unstable_by_key(|&(d, _)| d);
            out.push(mine.iter().map(|&(_, w)| w).sum());
            links.extend(mine.iter().map(|&(d, w)| (d, w as f32)));
        }
        starts.push(links.len() as u32);
        Some(Graph {
            starts: starts.into_boxed_slice(),
            links: links.into_boxed_slice(),
            out: out.into_boxed_slice(),
            names,
            bounds,
        })
    }

    /// Each file's rank (PageRank over the links, the ranks summing to 1), with the random
    /// reader jumping to the files `personalization` weighs (by position; any non-negative
    /// weights, normalized here) or, when it is `None` or weighs nothing, to any file alike.
    /// `None` when `stop` said so (asked once an iteration).
    pub fn rank(
        &self,
        personalization: Option<&[f64]>,
        stop: &dyn Fn() -> bool,
    ) -> Option<Vec<f64>> {
        let n = self.files();
        if n == 0 {
            return Some(Vec::new());
        }
        let jump = jump_to(personalization, n);
        let mut rank = jump.clone();
        let mut next = vec![0.0f64; n];
        for _ in 0..MAX_ITERATIONS {
            if stop() {
                return None;
            }
            next.fill(0.0);
            let mut dangling = 0.0;
            for (u, &r) in rank.iter().enumerate() {
                let (links, total) = (self.links_of(u), self.out[u]);
                if links.is_empty() || total <= 0.0 {
                    dangling += r;
                    continue;
                }
                // Weak links pass on only their share; the rest jumps.
                let whole = total.max(MIN_OUT);
                dangling += r * (1.0 - total / whole);
                let share = DAMPING * r / whole;
                for &(d, w) in links {
                    next[d as usize] += share * f64::from(w);
                }
            }
            let jumping = 1.0 - DAMPING + DAMPING * dangling;
            let mut moved = 0.0;
            for ((x, &j), &r) in next.iter_mut().zip(&jump).zip(&rank) {
                *x += jumping * j;
                moved += (*x - r).abs();
            }
            std::mem::swap(&mut rank, &mut next);
            if moved < TOLERANCE {
                break;
            }
        }
        Some(rank)
    }

    /// How many files it links.
    pub fn files(&self) -> usize {
        self.out.len()
    }

    /// How many links it has.
    pub fn link_count(&self) -> usize {
        self.links.len()
    }

    /// The links of file `i`: each file linked to (by position, ascending) with its weight.
    pub fn links(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        self.links_of(i)
            .iter()
            .map(|&(d, w)| (d as usize, f64::from(w)))
    }

    fn links_of(&self, i: usize) -> &[(u32, f32)] {
        &self.links[self.starts[i] as usize..self.starts[i + 1] as usize]
    }

    /// Of the name whose term is hashed `h` (see [`FileIndex::defined_terms`]): how many files
    /// use it without defining it, and how many define it; `None` when no file defines it.
    pub fn name_uses(&self, h: u64) -> Option<(usize, usize)> {
        self.names
            .get(&h)
            .map(|n| (n.users as usize, n.definers as usize))
    }

    /// How much the name whose term is hashed `h` is used elsewhere, as its links weigh its
    /// uses (without its rarity, and not divided among the files defining it; see
    /// [`Graph::name_uses`]): each file importing it counts 1, each other file using it
    /// [`TEXT_ONLY`] (or [`ONE_WORD`]); for a name defined by more than [`MAX_DEFINERS`] files,
    /// every use counts as not imported. 0 for a name no file defines.
    pub fn name_weight(&self, h: u64) -> f64 {
        self.names.get(&h).map_or(0.0, |n| {
            uses_weight(n.users as usize, n.importers as usize, n.plain)
        })
    }

    /// How many files import the name whose term is hashed `h` by name (see
    /// [`Graph::name_weight`]; 0 for a name defined by more than [`MAX_DEFINERS`] files).
    pub fn name_importers(&self, h: u64) -> usize {
        self.names.get(&h).map_or(0, |n| n.importers as usize)
    }

    /// How often its bounds were hit.
    pub fn bounds(&self) -> Bounds {
        self.bounds
    }

    /// What it takes in memory, in bytes.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Graph>()
            + std::mem::size_of_val(&*self.starts)
            + std::mem::size_of_val(&*self.links)
            + std::mem::size_of_val(&*self.out)
            + self.names.capacity() * (std::mem::size_of::<(u64, Name)>() + 1)
    }
}

/// Where the random reader jumps: `weights` normalized when usable (as long as the files, each
/// finite and non-negative, some positive), else every file alike.
fn jump_to(weights: Option<&[f64]>, n: usize) -> Vec<f64> {
    if let Some(w) = weights
        && w.len() == n
        && w.iter().all(|x| x.is_finite() && *x >= 0.0)
    {
        let sum: f64 = w.iter().sum();
        if sum > 0.0 {
            return w.iter().map(|x| x / sum).collect();
        }
    }
    vec![1.0 / n as f64; n]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(files: &[(&str, &str)]) -> Graph {
        let indexes: Vec<FileIndex> = files.iter().map(|(p, t)| FileIndex::build(p, t)).collect();
        let paths: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
        let refs: Vec<&FileIndex> = indexes.iter().collect();
        Graph::build(&paths, &refs, &|| false).unwrap()
    }

    fn best(ranks: &[f64]) -> usize {
        (0..ranks.len())
            .max_by(|&a, &b| ranks[a].total_cmp(&ranks[b]))
            .unwrap()
    }

    /// A hub every other file uses, and a chain of leaves.
    fn hub_and_leaves() -> Vec<(&'static str, &'static str)> {
        vec![
            (
                "src/leaf_a.rs",
                "fn leaf_a() { parse_config(); HubState::new(); }",
            ),
            (
                "src/leaf_b.rs",
                "fn leaf_b() { parse_config(); leaf_a(); aside(); }",
            ),
            (
                "src/leaf_c.rs",
                "use crate::hub;\nfn leaf_c() { leaf_b(); }",
            ),
            (
                "src/hub.rs",
                "pub fn parse_config() {}\npub struct HubState;\nfn helper() {}",
            ),
            ("src/aside.rs", "pub fn aside() {}"),
            ("src/lonely.rs", "fn lonely() {}"),
        ]
    }

    #[test]
    fn a_hub_ranks_first() {
        let files = hub_and_leaves();
        let g = graph(&files);
        assert_eq!(g.files(), 6);
        // leaf_a → hub (two names); leaf_c → hub by its import.
        let hub = 3;
        assert!(g.links(0).any(|(d, _)| d == hub));
        assert!(g.links(2).any(|(d, _)| d == hub));
        assert_eq!(g.links(5).count(), 0, "lonely links nothing");
        assert!(!g.links(3).any(|(d, _)| d == 3), "no link to itself");
        let ranks = g.rank(None, &|| false).unwrap();
        assert!((ranks.iter().sum::<f64>() - 1.0).abs() < 1e-6);
        assert_eq!(best(&ranks), hub, "{ranks:?}");
        // A file used once ranks above one nothing uses.
        assert!(ranks[4] > ranks[5], "{ranks:?}");
        assert_eq!(g.name_uses(term_hash("parseconfig")), Some((2, 1)));
        assert_eq!(name_term("parse_config"), Some(term_hash("parseconfig")));
        assert_eq!(
            name_term("HubState::parse_config"),
            name_term("parseConfig")
        );
        assert_eq!(g.bounds(), Bounds::default());
    }

    #[test]
    fn personalization_moves_rank_toward_the_seed() {
        let files = hub_and_leaves();
        let g = graph(&files);
        let plain = g.rank(None, &|| false).unwrap();
        let mut seed = vec![0.0; files.len()];
        seed[4] = 1.0;
        let around = g.rank(Some(&seed), &|| false).unwrap();
        assert!(around[4] > 2.0 * plain[4], "{plain:?} {around:?}");
        assert_eq!(best(&around), 4);
        // Weights that say nothing are every file alike.
        let zero = vec![0.0; files.len()];
        assert_eq!(g.rank(Some(&zero), &|| false).unwrap(), plain);
        assert_eq!(g.rank(Some(&[1.0]), &|| false).unwrap(), plain);
    }

    #[test]
    fn cancellation_stops_building_and_ranking() {
        let files = hub_and_leaves();
        let indexes: Vec<FileIndex> = files.iter().map(|(p, t)| FileIndex::build(p, t)).collect();
        let paths: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
        let refs: Vec<&FileIndex> = indexes.iter().collect();
        assert!(Graph::build(&paths, &refs, &|| true).is_none());
        let g = Graph::build(&paths, &refs, &|| false).unwrap();
        assert!(g.rank(None, &|| true).is_none());
        let asked = std::cell::Cell::new(0);
        let third = || {
            asked.set(asked.get() + 1);
            asked.get() > 3
        };
        assert!(g.rank(None, &third).is_none());
        assert_eq!(asked.get(), 4, "asked once an iteration");
    }

    #[test]
    fn common_names_and_crowded_links_are_bounded() {
        // A name every file defines links none of them; a file using many files' names keeps
        // its heaviest links.
        let mut files: Vec<(String, String)> = (0..MAX_DEFINERS + 2)
            .map(|i| {
                (
                    format!("src/m{i}.rs"),
                    format!("fn new() {{}}\nfn only_{i}() {{}}"),
                )
            })
            .collect();
        let mut user = String::from("fn user() {\n");
        for i in 0..MAX_DEFINERS + 2 {
            user.push_str(&format!("only_{i}(); new();\n"));
        }
        user.push('}');
        files.push(("src/user.rs".into(), user));
        let pairs: Vec<(&str, &str)> = files.iter().map(|(p, t)| (&**p, &**t)).collect();
        let g = graph(&pairs);
        assert_eq!(g.bounds().names, 1);
        let user = pairs.len() - 1;
        assert_eq!(g.links(user).count(), MAX_DEFINERS + 2);
        assert!(g.links(0).next().is_none(), "`new` links nothing");
        assert_eq!(g.name_uses(term_hash("new")), Some((1, MAX_DEFINERS + 2)));
        // Past MAX_LINKS, the heaviest are kept and the cut is said.
        let many: Vec<(String, String)> = (0..MAX_LINKS + 5)
            .map(|i| (format!("src/d{i}.rs"), format!("pub fn def_{i}() {{}}")))
            .chain(std::iter::once((
                "src/all.rs".to_string(),
                (0..MAX_LINKS + 5)
                    .map(|i| format!("def_{i}();\n"))
                    .collect(),
            )))
            .collect();
        let pairs: Vec<(&str, &str)> = many.iter().map(|(p, t)| (&**p, &**t)).collect();
        let g = graph(&pairs);
        assert_eq!(g.links(MAX_LINKS + 5).count(), MAX_LINKS);
        assert_eq!(g.bounds().files, 1);
        assert!(g.bounds().cut());
        assert!(g.bytes() > g.link_count() * 8);
    }

    #[test]
    fn import_keywords_name_no_module() {
        let m = Modules::of(["src/use.rs", "src/util.rs", "lib/util.py", "src/main.rs"]);
        assert_eq!(m.name_of("src/use.rs"), None);
        assert_eq!(m.files(module_name("util.rs").unwrap()), &[1, 2]);
        assert_eq!(import_weight(2), IMPORT_WEIGHT / 2.0);
        assert!(idf(100, 1) > idf(100, 50));
    }
}
