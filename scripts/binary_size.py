#!/usr/bin/env python3
"""Sizes of a gnaw binary, per part: the table in docs/performance.md, "Binary size".

    python3 scripts/binary_size.py target/release/gnaw [target/release/gnaw-mcp ...]

For each binary: its size as built, its size stripped of everything (`strip`, on a copy), and
what the stripped size is made of:

- tree-sitter grammars: the sizes of the grammar symbols, read with `nm` from the binary as
  built, which keeps its symbol table (release profile: `strip = "debuginfo"`): `ts_*` lexers and
  the tables that hold addresses (names), `tree_sitter_*`/`gnaw_tree_sitter_*` entry points and
  external scanners, and `gnaw_blob`, each grammar's deflated parse tables (gnaw-grammars);
  of which the deflated tables are shown apart. The zeroed memory those tables are inflated
  into (`gnaw_tables`, BSS) takes no bytes in the file and is not counted, only shown;
- BPE tables: the files of `data/bpe/` found verbatim in the binary;
- the rest: code and every other datum.

Needs binutils (`strip`, `nm`, `size`).
"""

import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MB = 1e6


GRAMMAR_PREFIXES = ("ts_", "tree_sitter_", "gnaw_tree_sitter_", "gnaw_blob")


def grammar_bytes(path):
    """(bytes of grammar symbols in the file, of which deflated tables, zeroed table memory)."""
    out = subprocess.run(
        ["nm", "-S", "--size-sort", path], capture_output=True, text=True, check=True
    ).stdout
    total = blobs = zeroed = 0
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) != 4:
            continue
        size, kind, name = int(parts[1], 16), parts[2], parts[3]
        if name == "gnaw_tables" and kind in "bB":
            zeroed += size
        elif name.startswith(GRAMMAR_PREFIXES) and kind not in "bB":
            total += size
            if name == "gnaw_blob":
                blobs += size
    return total, blobs, zeroed


def table_bytes(data):
    total = 0
    tables = os.path.join(ROOT, "data", "bpe")
    for name in sorted(os.listdir(tables)):
        with open(os.path.join(tables, name), "rb") as f:
            blob = f.read()
        if blob and data.find(blob) >= 0:
            total += len(blob)
    return total


def main(paths):
    print(
        "| binary | as built | stripped | tree-sitter grammars (of which deflated tables) "
        "| BPE tables | the rest | zeroed for tables at run time (not in the file) |"
    )
    print("|---|---|---|---|---|---|---|")
    for path in paths:
        built = os.path.getsize(path)
        with tempfile.TemporaryDirectory() as tmp:
            stripped_path = os.path.join(tmp, "stripped")
            subprocess.run(["strip", "-o", stripped_path, path], check=True)
            stripped = os.path.getsize(stripped_path)
            with open(stripped_path, "rb") as f:
                data = f.read()
        grammars, blobs, zeroed = grammar_bytes(path)
        tables = table_bytes(data)
        rest = stripped - grammars - tables
        print(
            f"| {os.path.basename(path)} | {built / MB:.1f} MB | {stripped / MB:.1f} MB | "
            f"{grammars / MB:.1f} MB ({blobs / MB:.1f} MB) | {tables / MB:.1f} MB | "
            f"{rest / MB:.1f} MB | {zeroed / MB:.1f} MB |"
        )


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
