//! The lists of languages outside the table (`src/stages/languages.rs`) agree with it: the root
//! `Cargo.toml`'s `lang-*` features (each language's, and the groups `lang-all` reaches), the
//! README's table of groups, and the grammar crate's lists: its features (`grammars/Cargo.toml`,
//! with its default and its example's required features), its build script's grammars
//! (`grammars/build/main.rs`) and the upstream crates they come from (its dev-dependencies), its
//! exported constants (`grammars/src/lib.rs`) and the cases of its comparison with upstream
//! (`grammars/tests/same_grammars.rs`). A language added to one list and not the others fails
//! here, naming the list.

use super::read;
use gnaw::stages::languages::Language;
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};

fn manifest(rel: &str) -> toml::Table {
    read(rel).parse().unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// A TOML array of strings.
fn strings(v: &toml::Value) -> Vec<String> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|s| s.as_str().expect("a string").to_string())
        .collect()
}

/// Every grammar as the lists outside the table name it.
struct Lists {
    /// The root's `lang-x = ["gnaw-grammars/y"]`: `lang-x` to `y`.
    root_leaves: BTreeMap<String, String>,
    /// The root's groups (`lang-all`, `lang-systems`, ...): their members.
    root_groups: BTreeMap<String, Vec<String>>,
    /// `grammars/Cargo.toml`'s features other than `default`.
    crate_features: BTreeSet<String>,
    crate_default: BTreeSet<String>,
    example_features: BTreeSet<String>,
    dev_dependencies: BTreeSet<String>,
    /// `grammars/build/main.rs`'s `GRAMMARS`: (feature, crate, symbol).
    built: Vec<(String, String, String)>,
    /// `grammars/src/lib.rs`'s `grammar!`s: constant to (feature, symbol).
    exported: BTreeMap<String, (String, String)>,
    /// `grammars/tests/same_grammars.rs`'s `case!`s: (feature, constant).
    compared: BTreeSet<(String, String)>,
    /// The README's table of groups: group to its languages' features.
    readme_groups: BTreeMap<String, Vec<String>>,
}

fn lists() -> Lists {
    let root = manifest("Cargo.toml");
    let mut root_leaves = BTreeMap::new();
    let mut root_groups = BTreeMap::new();
    for (name, members) in root["features"].as_table().expect("[features]") {
        let members = strings(members);
        if let [one] = members.as_slice()
            && let Some(grammar) = one.strip_prefix("gnaw-grammars/")
        {
            root_leaves.insert(name.clone(), grammar.to_string());
        } else if name.starts_with("lang-") || name == "default" {
            root_groups.insert(name.clone(), members);
        }
    }
    let grammars = manifest("grammars/Cargo.toml");
    let features = grammars["features"].as_table().expect("[features]");
    let crate_features = features
        .keys()
        .filter(|k| *k != "default")
        .cloned()
        .collect();
    let crate_default = strings(&features["default"]).into_iter().collect();
    let example = grammars["example"].as_array().expect("[[example]]");
    let example_features = example
        .iter()
        .find(|e| e["name"].as_str() == Some("first_use"))
        .map(|e| strings(&e["required-features"]))
        .expect("the first_use example")
        .into_iter()
        .collect();
    let dev_dependencies = grammars["dev-dependencies"]
        .as_table()
        .expect("[dev-dependencies]")
        .keys()
        .cloned()
        .collect();

    let build = read("grammars/build/main.rs");
    let table = &build[build
        .find("const GRAMMARS")
        .expect("GRAMMARS in the build script")..];
    let table = &table[..table.find("];").expect("the end of GRAMMARS")];
    let short = Regex::new(r#"g\(\s*"(\w+)",\s*"([\w-]+)",\s*"[\w/]+",\s*"(\w+)",?\s*\)"#).unwrap();
    let long = Regex::new(
        r#"Grammar \{\s*feature: "(\w+)",\s*krate: "([\w-]+)",\s*dir: "[\w/]+",\s*symbol: "(\w+)""#,
    )
    .unwrap();
    let mut built: Vec<(String, String, String)> = short
        .captures_iter(table)
        .chain(long.captures_iter(table))
        .map(|c| (c[1].to_string(), c[2].to_string(), c[3].to_string()))
        .collect();
    built.sort();
    let entries = table.matches("g(").count() + table.matches("Grammar {").count();
    assert_eq!(
        built.len(),
        entries,
        "grammars/build/main.rs: an entry of GRAMMARS this test cannot read"
    );

    let lib = read("grammars/src/lib.rs");
    let grammar =
        Regex::new(r#"grammar!\(\s*(?:///[^\n]*\n\s*)*"(\w+)",\s*(\w+),\s*(\w+)\s*\)"#).unwrap();
    let exported: BTreeMap<String, (String, String)> = grammar
        .captures_iter(&lib)
        .map(|c| (c[2].to_string(), (c[1].to_string(), c[3].to_string())))
        .collect();
    assert_eq!(
        exported.len(),
        lib.matches("\ngrammar!(").count(),
        "grammars/src/lib.rs: a grammar! this test cannot read"
    );

    let same = read("grammars/tests/same_grammars.rs");
    let case = Regex::new(r#"case!\(\s*"(\w+)",\s*"\w+",\s*(\w+),"#).unwrap();
    let compared = case
        .captures_iter(&same)
        .map(|c| (c[1].to_string(), c[2].to_string()))
        .collect();

    let readme = read("README.md");
    let row = Regex::new(r"(?m)^\| `(lang-\w+)` \| [^|]*\(([^)]*)\) \|$").unwrap();
    let readme_groups = row
        .captures_iter(&readme)
        .map(|c| {
            let members = c[2]
                .split(", ")
                .map(|m| m.trim_matches('`').to_string())
                .collect();
            (c[1].to_string(), members)
        })
        .collect();

    Lists {
        root_leaves,
        root_groups,
        crate_features,
        crate_default,
        example_features,
        dev_dependencies,
        built,
        exported,
        compared,
        readme_groups,
    }
}

/// The leaves a feature of the root turns on, through its groups.
fn reached(lists: &Lists, feature: &str, out: &mut BTreeSet<String>) {
    if lists.root_leaves.contains_key(feature) {
        out.insert(feature.to_string());
    }
    for member in lists.root_groups.get(feature).into_iter().flatten() {
        reached(lists, member, out);
    }
}

#[test]
fn every_list_of_grammars_agrees_with_the_table() {
    let lists = lists();
    let features: BTreeSet<String> = Language::ALL
        .iter()
        .map(|l| l.feature().to_string())
        .collect();

    // The root's features: one per language of the table, every one on by default.
    let leaves: BTreeSet<String> = lists.root_leaves.keys().cloned().collect();
    assert_eq!(
        leaves, features,
        "Cargo.toml's lang-* features (left) and the table's (right) differ"
    );
    let mut by_default = BTreeSet::new();
    reached(&lists, "default", &mut by_default);
    assert_eq!(
        by_default, features,
        "Cargo.toml: `default` must reach every language's feature (through lang-all)"
    );
    assert_eq!(
        lists.root_groups["default"],
        ["lang-all"],
        "Cargo.toml: default = [\"lang-all\"]"
    );

    // The README's groups are the root's.
    let mut readme_leaves = BTreeSet::new();
    for (group, members) in &lists.readme_groups {
        let mut in_cargo = BTreeSet::new();
        reached(&lists, group, &mut in_cargo);
        let listed: BTreeSet<String> = members.iter().cloned().collect();
        assert_eq!(
            listed, in_cargo,
            "README.md's row for {group} (left) and Cargo.toml's group (right) differ"
        );
        readme_leaves.extend(listed);
    }
    assert_eq!(
        readme_leaves, features,
        "README.md's table of groups must list every language's feature"
    );

    // Each language: its feature turns on a grammar crate's feature, which exports the table's
    // constant, built from a grammar of the build script, compared with upstream.
    let mut used = BTreeSet::new();
    for &lang in Language::ALL {
        let feature = &lists.root_leaves[lang.feature()];
        let constant = lang.grammar_name();
        let Some((exported_feature, symbol)) = lists.exported.get(constant) else {
            panic!("grammars/src/lib.rs exports no {constant} ({lang:?})");
        };
        assert_eq!(
            exported_feature,
            feature,
            "{lang:?}: Cargo.toml's {} turns on gnaw-grammars/{feature}, but lib.rs puts \
             {constant} behind {exported_feature}",
            lang.feature()
        );
        let upstream = symbol.strip_prefix("gnaw_").unwrap_or(symbol);
        assert!(
            lists
                .built
                .iter()
                .any(|(f, _, s)| f == feature && s == upstream),
            "grammars/build/main.rs builds no {upstream} behind feature {feature} ({lang:?})"
        );
        assert!(
            lists
                .compared
                .contains(&(feature.clone(), constant.to_string())),
            "grammars/tests/same_grammars.rs compares no {constant} ({lang:?})"
        );
        used.insert(feature.clone());
    }
    let constants: BTreeSet<&str> = Language::ALL.iter().map(|l| l.grammar_name()).collect();
    let exported: BTreeSet<&str> = lists.exported.keys().map(String::as_str).collect();
    assert_eq!(
        exported, constants,
        "grammars/src/lib.rs's constants (left) and the table's grammars (right) differ"
    );
    let built: BTreeSet<String> = lists
        .built
        .iter()
        .map(|(_, _, s)| format!("gnaw_{s}"))
        .collect();
    let symbols: BTreeSet<String> = lists.exported.values().map(|(_, s)| s.clone()).collect();
    assert_eq!(
        built, symbols,
        "grammars/build/main.rs's grammars (left) and lib.rs's (right) differ"
    );

    // The grammar crate's features: one per grammar feature, all on by default and for the
    // example; each upstream crate a dev-dependency (the build script finds it there).
    assert_eq!(
        lists.crate_features, used,
        "grammars/Cargo.toml's features (left) and the grammars' (right) differ"
    );
    assert_eq!(
        lists.crate_default, used,
        "grammars/Cargo.toml: default must hold every grammar feature"
    );
    assert_eq!(
        lists.example_features, used,
        "grammars/Cargo.toml: the first_use example must require every grammar feature"
    );
    for (_, krate, _) in &lists.built {
        assert!(
            lists.dev_dependencies.contains(krate),
            "grammars/Cargo.toml: {krate} (a grammar of the build script) is no dev-dependency"
        );
    }
}

/// The readers above read what they should: a list with a grammar left out is seen short.
#[test]
fn the_readers_see_every_entry() {
    let lists = lists();
    assert_eq!(lists.built.len(), Language::ALL.len());
    assert_eq!(lists.exported.len(), Language::ALL.len());
    assert_eq!(lists.compared.len(), Language::ALL.len());
    assert_eq!(lists.readme_groups.len(), 7, "{:?}", lists.readme_groups);
    assert!(lists.root_groups.contains_key("lang-all"));
}
