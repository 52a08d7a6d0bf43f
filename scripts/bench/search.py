#!/usr/bin/env python3
"""Search speed: warm and cold `search` in gnaw-mcp, the CLI's cold `gnaw search`, and a search
right after one file is edited, for a build under test and a baseline build, in the same run.

Usage: search.py CORPUS NEW_BIN_DIR [BASE_BIN_DIR] [--queries N] [--base-queries N] [--pause S]

CORPUS is a directory (a repository or a vendored tree); each BIN_DIR holds `gnaw` and
`gnaw-mcp`. Queries are deterministic: a fixed list of questions, then identifiers the corpus
defines (`fn`, `struct`, `enum`, `trait`), every k-th of them sorted, until N in all. An agent
thinks for seconds between calls: "after a pause" is a fresh server, one search, PAUSE seconds
(3 by default) with no call, then the same queries back to back (the server may use the pause:
gnaw-mcp parses the index's outlines in its idle time). The edit
appends a comment line to one file (restored at the end) and waits 2.2 s, so the file is settled
and the cache may keep it (a file changed in the last 2 s is read and indexed on every call).
Python standard library only; prints a markdown table and writes JSON beside it when asked
(`--json PATH`).
"""

import json
import os
import re
import statistics
import subprocess
import sys
import time

from mcp_pipe import Server

QUESTIONS = [
    "how does type inference handle closures",
    "where are procedural macros expanded",
    "name resolution of use imports",
    "completion of struct fields after a dot",
    "goto definition of a local variable",
    "hover documentation for a function",
    "syntax tree of a function body",
    "diagnostic for an unresolved module",
    "parse an attribute on an item",
    "highlighting inside format strings",
    "rename a symbol across files",
    "inlay hints for parameter names",
    "find all references of a struct",
    "trait solving and method resolution",
    "lowering the body to HIR expressions",
    "incremental database queries and salsa",
    "cfg attributes evaluated for conditional compilation",
    "the lexer turning text into tokens",
    "assists that add a missing match arm",
    "extract a function from selected code",
    "edition differences between 2015 and 2021",
    "pattern matching exhaustiveness checking",
    "const evaluation of expressions",
    "mir lowering of a function",
    "type mismatch diagnostics",
    "signature help while typing arguments",
    "folding ranges of a file",
    "macro_rules expansion and token trees",
    "visibility of items in modules",
    "auto import of a missing path",
    "generic parameters and where clauses",
    "lifetimes in function signatures",
    "builtin derive macros",
    "crate graph and dependencies",
    "path resolution in a scope",
    "struct literal field completion",
    "closure capture analysis",
    "unsafe operations check",
    "documentation links resolution",
    "text edit applied to source",
]


def search(srv, repo, query):
    """One `search` call: its seconds and its structured answer."""
    t = time.perf_counter()
    res = srv.request("tools/call", {"name": "search", "arguments": {
        "repo": repo, "query": query, "budget": 0}})
    took = time.perf_counter() - t
    if res.get("isError"):
        raise RuntimeError(f"search {query!r}: {res}")
    return took, res.get("structuredContent", {})


def tree_cpu(root_pid):
    """CPU seconds (user + system) used so far by the process `root_pid`, its threads and every
    live descendant (the parse supervisor and workers), from /proc."""
    parents, cpu = {}, {}
    tick = os.sysconf("SC_CLK_TCK")
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as fh:
                f = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(d)] = int(f[1])
        cpu[int(d)] = (int(f[11]) + int(f[12])) / tick
    total = 0.0
    for pid in cpu:
        p = pid
        while p and p != root_pid:
            p = parents.get(p, 0)
        if p == root_pid:
            total += cpu[pid]
    return total


SOURCES = (".rs", ".py", ".js", ".ts", ".go", ".java", ".c")


def defined_names(corpus, pat, names):
    """Adds to `names` the first group of every match of `pat` in the corpus's sources."""
    for d, _, files in os.walk(corpus):
        for f in files:
            if f.endswith(SOURCES):
                try:
                    with open(os.path.join(d, f), "rb") as fh:
                        names.update(m.group(1).decode() for m in pat.finditer(fh.read()))
                except OSError:
                    pass


def queries(corpus, n):
    out = list(QUESTIONS)
    names = set()
    defined_names(corpus, re.compile(rb"\b(?:fn|struct|enum|trait)\s+([A-Za-z_][A-Za-z0-9_]{3,})"), names)
    need = max(n - len(out), 0)
    if len(names) < need:
        # Not a Rust corpus: the names its functions and classes define.
        other = rb"\b(?:function|class|def|func|interface)\s+([A-Za-z_][A-Za-z0-9_]{3,})"
        defined_names(corpus, re.compile(other), names)
    names = sorted(names)
    if names and need:
        step = max(len(names) // need, 1)
        out += names[::step][:need]
    return out[:n]


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def ms(x):
    return f"{x * 1000:.1f} ms"


def run_build(name, bins, corpus, qs, edit_file, pause):
    root, repo = os.path.dirname(corpus), os.path.basename(corpus)
    mcp, cli = os.path.join(bins, "gnaw-mcp"), os.path.join(bins, "gnaw")
    r = {"build": name, "queries": len(qs)}
    # The CLI, cold: a process per query.
    cli_times = []
    for q in qs[:5]:
        t = time.perf_counter()
        subprocess.run([cli, "search", corpus, q, "--budget", "0"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True)
        cli_times.append(time.perf_counter() - t)
    r["cli_cold_p50"] = statistics.median(cli_times)
    srv = Server(mcp, root)
    srv.initialize()
    c0 = tree_cpu(srv.proc.pid)
    r["first_call"], sc = search(srv, repo, qs[0])
    c1 = tree_cpu(srv.proc.pid)
    r["first_call_cpu"] = c1 - c0
    r["index"] = sc.get("index")
    answers = [search(srv, repo, q) for q in qs]
    warm = [t for t, _ in answers]
    # The index as a warm call states it (with its postings, once a kept index is used again).
    r["index"] = answers[-1][1].get("index") or r["index"]
    r["warm_cpu_per_call"] = (tree_cpu(srv.proc.pid) - c1) / len(qs)
    # The same queries again: every outline the re-scoring needs is now kept too.
    c2 = tree_cpu(srv.proc.pid)
    again = [search(srv, repo, q)[0] for q in qs]
    r["again_cpu_per_call"] = (tree_cpu(srv.proc.pid) - c2) / len(qs)
    r["again_p50"], r["again_p99"] = pct(again, 50), pct(again, 99)
    r["warm_p50"], r["warm_p90"], r["warm_p99"] = pct(warm, 50), pct(warm, 90), pct(warm, 99)
    r["warm_max"] = max(warm)
    # One file edited: the next search (the file settled, so it is indexed and kept).
    with open(edit_file, "rb") as fh:
        original = fh.read()
    try:
        with open(edit_file, "ab") as fh:
            fh.write(b"\n// edited by the search benchmark: exponential retry jitter\n")
        time.sleep(2.2)
        edits = []
        for q in qs[:3]:
            edits.append(search(srv, repo, q)[0])
        r["after_edit"] = edits[0]
        r["after_edit_next"] = statistics.median(edits[1:])
    finally:
        with open(edit_file, "wb") as fh:
            fh.write(original)
    r["rss_kib"] = srv.close()
    # After a pause: a fresh server, one search, `pause` seconds with no call, then the queries.
    srv = Server(mcp, root)
    srv.initialize()
    search(srv, repo, qs[0])
    time.sleep(pause)
    c3 = tree_cpu(srv.proc.pid)
    paused = [search(srv, repo, q)[0] for q in qs]
    r["paused_cpu_per_call"] = (tree_cpu(srv.proc.pid) - c3) / len(qs)
    r["paused_p50"], r["paused_p99"] = pct(paused, 50), pct(paused, 99)
    srv.close()
    return r


def main():
    args = sys.argv[1:]
    opts = {"--queries": "200", "--base-queries": "30", "--json": None, "--pause": "3"}
    pos = []
    while args:
        a = args.pop(0)
        if a in opts:
            opts[a] = args.pop(0)
        else:
            pos.append(a)
    corpus = os.path.abspath(pos[0])
    builds = [("new", pos[1])] + ([("base", pos[2])] if len(pos) > 2 else [])
    qs = queries(corpus, int(opts["--queries"]))
    # The file edited: the first Rust source under a `src/` directory, else the first source
    # file of another language there.
    edit_file = None
    for exts in [(".rs",), SOURCES]:
        for d, _, files in sorted(os.walk(corpus)):
            for f in sorted(files):
                if f.endswith(exts) and "/src/" in os.path.join(d, f) + "/":
                    edit_file = os.path.join(d, f)
                    break
            if edit_file:
                break
        if edit_file:
            break
    results = []
    for name, bins in builds:
        n = len(qs) if name == "new" else int(opts["--base-queries"])
        results.append(run_build(name, bins, corpus, qs[:n], edit_file, float(opts["--pause"])))
    print(f"corpus {corpus}: {len(qs)} queries; edited file {os.path.relpath(edit_file, corpus)}")
    print(f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("| build | queries | CLI cold p50 | first call (CPU) | warm p50 | warm p90 | warm p99 | "
          "warm CPU/call | again p50 / p99 (CPU/call) | after a pause p50 / p99 (CPU/call) | "
          "after one edit | peak RSS | index |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        ix = r["index"]
        postings = ix.get("postings_bytes", 0) if ix else 0
        ixs = (f"{ix['bytes'] / 1e6:.1f} MB" + (f" + {postings / 1e6:.1f} MB postings" if postings else "")
               + f" for {ix['text_bytes'] / 1e6:.1f} MB of text, {ix['files']} files") if ix else "-"
        print(f"| {r['build']} | {r['queries']} | {ms(r['cli_cold_p50'])} | {ms(r['first_call'])} "
              f"({ms(r['first_call_cpu'])}) | {ms(r['warm_p50'])} | {ms(r['warm_p90'])} | "
              f"{ms(r['warm_p99'])} | {ms(r['warm_cpu_per_call'])} | {ms(r['again_p50'])} / "
              f"{ms(r['again_p99'])} ({ms(r['again_cpu_per_call'])}) | "
              f"{ms(r['paused_p50'])} / {ms(r['paused_p99'])} ({ms(r['paused_cpu_per_call'])}) | "
              f"{ms(r['after_edit'])} | {r['rss_kib'] / 1024:.0f} MiB | {ixs} |")
    if len(results) == 2:
        new, base = results
        print(f"\nratios base/new: warm CPU per call "
              f"{base['warm_cpu_per_call'] / new['warm_cpu_per_call']:.1f}x, "
              f"warm p50 {base['warm_p50'] / new['warm_p50']:.1f}x, first call "
              f"{base['first_call'] / new['first_call']:.2f}x, CLI cold "
              f"{base['cli_cold_p50'] / new['cli_cold_p50']:.2f}x")
    if opts["--json"]:
        with open(opts["--json"], "w") as fh:
            json.dump(results, fh, indent=1)


if __name__ == "__main__":
    main()
