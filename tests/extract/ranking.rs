//! What the `--query` ranking knows of C and C++, through the real `gnaw` binary on small
//! repositories in temporary directories: a header beside the source of its stem declares what
//! the source defines, so the definition ranks first and the header next; a `#define` names a
//! symbol as a definition does.

#![allow(clippy::disallowed_methods)] // fixtures are made with std::fs

use crate::common;

use common::cli::{gnaw_on as gnaw, ok_stdout};
use serde_json::Value;
use std::fs;
use std::path::Path;

/// Write each `(path, text)` under `repo`.
fn put(repo: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let at = repo.join(path);
        fs::create_dir_all(at.parent().unwrap()).unwrap();
        fs::write(at, text).unwrap();
    }
}

/// The `--explain` ranking of `query` over `repo`: each file's path and score parts.
fn ranking(repo: &Path, query: &str) -> Vec<(String, Value)> {
    let out = ok_stdout(gnaw(
        repo,
        &["--json", "-q", "--explain", "--estimate", "--query", query],
    ));
    let v: Value = serde_json::from_str(&out).unwrap();
    v["ranking"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["path"].as_str().unwrap().to_string(), r["parts"].clone()))
        .collect()
}

/// The paths of a ranking, best first.
fn paths(r: &[(String, Value)]) -> Vec<&str> {
    r.iter().map(|(p, _)| p.as_str()).collect()
}

/// A header shorter than its source and naming the function more often for its size: on the
/// words alone it would rank first.
const HEADER: &str = "#ifndef ltable_h\n#define ltable_h\n\n\
    /* luaH_resize: resize a table (luaH_resize) */\n\
    LUAI_FUNC void luaH_resize (lua_State *L, Table *t, unsigned int nasize);\n\
    LUAI_FUNC Table *luaH_new (lua_State *L);\n\n#endif\n";

const SOURCE: &str = "#include \"ltable.h\"\n\n\
    static unsigned int computesizes (unsigned int nums[], unsigned int *pna) {\n\
    \x20 unsigned int a = 0;\n  unsigned int na = 0;\n  return na + a + nums[0] + *pna;\n}\n\n\
    void luaH_resize (lua_State *L, Table *t, unsigned int newasize) {\n\
    \x20 unsigned int i;\n  Table newt;\n  unsigned int oldasize = t->alimit;\n\
    \x20 for (i = newasize; i < oldasize; i++) {\n    exchangehashpart(t, &newt);\n  }\n\
    \x20 reinsert(L, &newt, t);\n}\n\n\
    Table *luaH_new (lua_State *L) {\n  Table *t = alloc(L);\n  return t;\n}\n";

#[test]
fn a_header_ranks_after_the_source_that_defines_what_it_declares() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    put(
        repo,
        &[
            ("src/ltable.h", HEADER),
            ("src/ltable.c", SOURCE),
            (
                "src/lvm.c",
                "void run (lua_State *L) {\n  luaH_resize(L, t, 4);\n}\n",
            ),
            ("src/lgc.c", "void collect (lua_State *L) { sweep(L); }\n"),
        ],
    );
    let r = ranking(repo, "luaH_resize");
    assert_eq!(
        paths(&r)[..3],
        ["src/ltable.c", "src/ltable.h", "src/lvm.c"],
        "{r:?}"
    );
    // The header's boost is halved, and says so; the source's is whole.
    let header = &r[1].1;
    assert!(header["defines_symbol"].as_f64().unwrap() > 0.0, "{header}");
    let off = header["header_declares"].as_f64().unwrap();
    assert_eq!(
        off,
        -header["defines_symbol"].as_f64().unwrap() / 2.0,
        "{header}"
    );
    assert!(r[0].1.get("header_declares").is_none(), "{:?}", r[0]);

    // Without a source of its stem that defines it, the header keeps its whole boost: another
    // file's definition is not its source's.
    put(repo, &[("src/ltable.c", "/* moved */\n")]);
    put(repo, &[("src/lresize.c", SOURCE)]);
    let r = ranking(repo, "luaH_resize");
    let header = r.iter().find(|(p, _)| p == "src/ltable.h").unwrap();
    assert!(header.1["defines_symbol"].as_f64().unwrap() > 0.0, "{r:?}");
    assert!(header.1.get("header_declares").is_none(), "{r:?}");

    // C++ across directories: `include/fmt/os.h` declares what `src/os.cc` defines.
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path();
    put(
        repo,
        &[
            (
                "include/fmt/os.h",
                "namespace fmt {\n// file_size: the size of a file (file_size)\n\
                 long long file_size(int fd);\n}\n",
            ),
            (
                "src/os.cc",
                "#include \"fmt/os.h\"\nnamespace fmt {\nlong long file_size(int fd) {\n\
                 \x20 struct stat st;\n  if (fstat(fd, &st) != 0) return -1;\n\
                 \x20 long long n = st.st_size;\n  return n;\n}\n}\n",
            ),
            ("src/format.cc", "void print() { puts(\"x\"); }\n"),
        ],
    );
    let r = ranking(repo, "file_size");
    assert_eq!(paths(&r)[..2], ["src/os.cc", "include/fmt/os.h"], "{r:?}");
}
