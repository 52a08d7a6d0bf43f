#!/usr/bin/env python3
"""What a default `search` answer costs, part by part, and whether it names the judged files.

For every judged query in QUERIES_DIR/*.json (the ranking evaluation's, see
docs/ranking-eval.md), runs the default answer of the real binary on its corpus (fetched by
fetch.py into CACHE_DIR):
  gnaw search CORPUS QUERY [EXTRA...]
which prints the very text the MCP `search` tool answers (no budget is set, and the default
answer of 10 files is far below the tool's default budget and size ceiling), and measures
  - its tokens, counted with OpenAI's tiktoken (o200k_base), whole;
  - where they go: the text is cut into pieces by what they say (below), each piece counted on
    its own (a piece's count is the cost of saying it; the pieces' sum is within a few percent
    of the whole, since tokens do not merge across the cuts);
  - which judged files it names (a file line `N. PATH` of the answer), and the files it names in
    order (so two runs can be checked to name the same files in the same order).
Parts: `header` (the summary lines before the first file), `file` (a file line's rank, path and
the word that marks a test or example), `score` (a score and its breakdown, but the penalties),
`penalty` (the parts that rank a test, docs or auxiliary file down: `secondary_file`,
`docs_file`, `auxiliary_file`), `range` (a region's `START-END`, with its `:`), `region_path` (a
region's path when it repeats the file's), `symbol` (the definition that holds a region),
`words` (the query words listed as found in a region), `continuation` (the line that says how a
cut answer continues), `layout` (newlines, indentation and separators).

tiktoken needs the o200k_base table; where its site is not reachable, the copy that the
tiktoken-rs crate ships (which tiktoken checks against the table's published SHA-256) is placed
in TIKTOKEN_CACHE_DIR (default target/tiktoken-cache) under the name tiktoken looks for.

Usage: answer_tokens.py GNAW_BIN CACHE_DIR QUERIES_DIR OUT_JSON [BEFORE_JSON] [-- EXTRA...]
With BEFORE_JSON (an OUT_JSON of an earlier run), also prints before -> after and checks that
both name the same files in the same order for every query.
"""

import glob
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval as ev  # noqa: E402

O200K_URL = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
PARTS = ("header", "file", "score", "penalty", "range", "region_path", "symbol", "words",
         "continuation", "layout")
PENALTIES = ("secondary_file", "docs_file", "auxiliary_file")


def encoder():
    """tiktoken's o200k_base, its table seeded from the tiktoken-rs crate when not cached."""
    cache = os.environ.setdefault("TIKTOKEN_CACHE_DIR", os.path.abspath("target/tiktoken-cache"))
    name = os.path.join(cache, hashlib.sha1(O200K_URL.encode()).hexdigest())
    if not os.path.exists(name):
        found = glob.glob(os.path.expanduser(
            "~/.cargo/registry/src/*/tiktoken-rs-*/assets/o200k_base.tiktoken"))
        if found:
            os.makedirs(cache, exist_ok=True)
            shutil.copy(sorted(found)[-1], name)
    try:
        import tiktoken
    except ImportError:
        sys.exit("answer_tokens: needs tiktoken: python3 -m venv target/eval-venv && "
                 "target/eval-venv/bin/pip install tiktoken, then run with target/eval-venv/bin/python")
    return tiktoken.get_encoding("o200k_base")


FILE_LINE = re.compile(r"^(\d+\. (?:\([a-z ]+\) )?)(.*)$")
SCORE = re.compile(r"^(.*?)(  score [-0-9.]+ \((.*)\))$")
RANGE = re.compile(r"^(\s*)(\S*?)(:?\d+(?:-\d+)?)(?=\s|$)(.*)$")


def pieces(text, paths):
    """The answer cut into (part, piece) pairs whose pieces, joined, are the text."""
    out = []
    seen_file = False
    current = None
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        nl = line[len(body):]
        m = FILE_LINE.match(body)
        if body.startswith("--- "):
            out.append(("continuation", body))
        elif m and any(m.group(2).startswith(p) for p in paths):
            seen_file = True
            rest = m.group(2)
            current = max((p for p in paths if rest.startswith(p)), key=len)
            out.append(("file", m.group(1) + current))
            rest = rest[len(current):]
            s = SCORE.match(rest)
            tail = ""
            if s:
                rest, tail = s.group(1), s.group(2)
            out.extend(region_pieces(rest, current, first=True))
            if tail:
                split_score(out, tail)
        elif not seen_file:
            out.append(("header", body))
        elif body.strip() == "":
            out.append(("layout", body))
        elif re.match(r"^\s+score [-0-9.]+ \(.*\)$", body):
            # The score row `--explain` adds under a file's regions.
            indent = body[:len(body) - len(body.lstrip())]
            out.append(("layout", indent))
            split_score(out, body.lstrip())
        else:
            out.extend(region_pieces(body, current, first=False))
        if nl:
            out.append(("layout", nl))
    assert "".join(p for _, p in out) == text, "the pieces are the text"
    return out


def region_pieces(s, path, first):
    """A region (`[PATH]:START-END  symbol: words`, `:START-END  words`, ...) or the rest of a
    file line after its path (`:START-END  symbol`, `  test`), as pieces."""
    out = []
    if first:
        # After the path on a file line: an optional range, then a symbol or a marking word.
        m = re.match(r"^(:\d+(?:-\d+)?)?(.*)$", s)
        if m.group(1):
            out.append(("range", m.group(1)))
            out.extend(described(m.group(2)))
        elif m.group(2):
            out.append(("file", m.group(2)))
        return out
    m = RANGE.match(s)
    if not m:
        return [("words", s)]
    indent, where, rng, rest = m.groups()
    if indent:
        out.append(("layout", indent))
    if where:
        out.append(("region_path" if path and where == path else "range", where))
    out.append(("range", rng))
    out.extend(described(rest))
    return out


def described(rest):
    """What follows a range: `  symbol: words`, `  symbol`, `  words` (a symbol is a kind and a
    name, so it has a space; the words are single words joined by `, `)."""
    if not rest:
        return []
    m = re.match(r"^(\s+)(.*)$", rest)
    sep, what = (m.group(1), m.group(2)) if m else ("", rest)
    out = [("layout", sep)] if sep else []
    single = re.compile(r"^[^\s,]+(, [^\s,]+)*$")
    head, _, tail = what.rpartition(": ")
    if head and single.match(tail):
        out += [("symbol", head), ("words", ": " + tail)]
    elif single.match(what):
        out.append(("words", what))
    else:
        out.append(("symbol", what))
    return out


def split_score(out, tail):
    """`[  ]score T (a 1.0, secondary_file -2.0, ...)` as its score and penalty pieces."""
    m = re.match(r"^(\s*score [-0-9.]+ \()(.*)(\))$", tail)
    out.append(("score", m.group(1)))
    items = m.group(2).split(", ")
    for i, item in enumerate(items):
        sep = ", " if i + 1 < len(items) else ""
        part = "penalty" if item.split(" ")[0] in PENALTIES else "score"
        out.append((part, item + sep))
    out.append(("score", m.group(3)))


def named(text, paths):
    """The files an answer names (its `N. PATH` lines), in order."""
    order = []
    for line in text.splitlines():
        m = FILE_LINE.match(line)
        if not m:
            continue
        hits = [p for p in paths if m.group(2).startswith(p)
                and m.group(2)[len(p):len(p) + 1] in ("", ":", " ")]
        if hits:
            order.append(max(hits, key=len))
    return order


def corpus_paths(binary, repo):
    """Every file gnaw extracts from the corpus: the paths an answer may name."""
    return {f["path"] for f in ev.gnaw(binary, repo)["file_list"]}


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    binary, cache, qdir, out = argv[:4]
    before_path = argv[4] if len(argv) > 4 else None
    enc = encoder()
    corpora, queries = ev.load(qdir, cache)
    with ThreadPoolExecutor(ev.JOBS) as pool:
        paths = dict(zip(corpora, pool.map(
            lambda c: corpus_paths(binary, corpora[c]["repo"]), corpora)))

    def run(q):
        repo = corpora[q["corpus"]]["repo"]
        cmd = [binary, "search", repo, q["query"], *extra]
        t0 = time.monotonic()
        res = subprocess.run(cmd, capture_output=True, check=False)
        ms = (time.monotonic() - t0) * 1000
        if res.returncode != 0:
            sys.exit(f"answer_tokens: {' '.join(cmd)} failed: {res.stderr.decode(errors='replace')}")
        text = res.stdout.decode()
        cost = {p: 0 for p in PARTS}
        for part, piece in pieces(text, paths[q["corpus"]]):
            cost[part] += len(enc.encode(piece, disallowed_special=()))
        order = named(text, paths[q["corpus"]])
        judged = list(q["relevant"])
        row = {k: q[k] for k in ("corpus", "language", "split", "kind", "query")}
        return row | {
            "tokens": len(enc.encode(text, disallowed_special=())),
            "parts": cost,
            "files": order,
            "judged": len(judged),
            "judged_named": sum(1 for p in judged if p in order),
            "ms": round(ms, 1),
        }

    with ThreadPoolExecutor(ev.JOBS) as pool:
        rows = list(pool.map(run, queries))
    with open(out, "w") as fh:
        json.dump(rows, fh)
    report(rows, json.load(open(before_path)) if before_path else None)


def summary(rows):
    tokens = [r["tokens"] for r in rows]
    return {
        "n": len(rows),
        "median": statistics.median(tokens),
        "p90": pct(tokens, 0.9),
        "mean": statistics.mean(tokens),
        "named": sum(r["judged_named"] for r in rows) / sum(r["judged"] for r in rows),
        "parts": {p: sum(r["parts"][p] for r in rows) / len(rows) for p in PARTS},
        "ms": statistics.median(r["ms"] for r in rows),
    }


def report(rows, before):
    s = summary(rows)
    b = summary(before) if before else None

    def cell(key, fmt):
        now = format(s[key], fmt)
        return f"{format(b[key], fmt)} -> {now}" if b else now

    print(f"queries {s['n']}: tokens median {cell('median', '.0f')}, p90 {cell('p90', '.0f')}, "
          f"mean {cell('mean', '.0f')}; judged files named {cell('named', '.3f')}; "
          f"cold CLI median {cell('ms', '.0f')} ms")
    print("mean tokens per answer, by part (each piece counted alone):")
    for p in PARTS:
        now = s["parts"][p]
        was = f"{b['parts'][p]:7.1f} -> " if b else ""
        print(f"  {p:13} {was}{now:7.1f}")
    by = {}
    for r in rows:
        by.setdefault(("kind", r["kind"]), []).append(r)
        by.setdefault(("language", r["language"]), []).append(r)
    print("median tokens and judged files named, by kind and language:")
    for key in sorted(by):
        sel = summary(by[key])
        print(f"  {key[0]} {key[1]:12} n {sel['n']:3}  median {sel['median']:6.0f}  "
              f"p90 {sel['p90']:6.0f}  named {sel['named']:.3f}")
    if before:
        was = {(r["corpus"], r["query"]): r for r in before}
        moved = [r for r in rows
                 if (r["corpus"], r["query"]) in was and was[(r["corpus"], r["query"])]["files"] != r["files"]]
        print(f"queries naming other files or another order than before: {len(moved)}")
        for r in moved[:20]:
            print(f"  {r['corpus']}: {r['query']}")


if __name__ == "__main__":
    main()
