#!/usr/bin/env python3
"""Append judged queries to scripts/eval/queries/LANG.json from a compact text file.

Each line of the text file is `KIND | QUERY | PATH:GRADE, PATH:GRADE, ...` with KIND one of
i (identifier), s (semantic), a (architecture); blank lines and lines starting with # are
skipped. Every path must exist in the fetched corpus (CACHE/DIR). The split is assigned here:
alternating within each corpus and kind (the next query of a corpus and kind takes the other
half from the last one), a corpus and kind with no query yet starting with the half that has
fewer queries of that kind across the whole set, so that dev and heldout stay even by kind.

Usage: add.py CACHE QUERIES_DIR LANG CORPUS FILE
"""

import glob
import json
import os
import sys

KINDS = {"i": "identifier", "s": "semantic", "a": "architecture"}


def main():
    cache, qdir, lang, corpus, path = sys.argv[1:6]
    spec_path = f"{qdir}/{lang}.json"
    spec = json.load(open(spec_path))
    root = f"{cache}/{spec['corpora'][corpus]['dir']}"
    every = [q for p in glob.glob(f"{qdir}/*.json") for q in json.load(open(p))["queries"]]
    seen = {q["query"] for q in spec["queries"] if q["corpus"] == corpus}
    added = []
    for n, line in enumerate(open(path), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        kind, query, rel = (x.strip() for x in line.split("|"))
        kind = KINDS[kind]
        if query in seen:
            sys.exit(f"{path}:{n}: duplicate query {query!r}")
        relevant = {}
        for item in rel.split(","):
            p, g = item.strip().rsplit(":", 1)
            if not os.path.isfile(f"{root}/{p}"):
                sys.exit(f"{path}:{n}: no file {p} in {root}")
            relevant[p] = int(g)
        if 2 not in relevant.values():
            sys.exit(f"{path}:{n}: no file of grade 2")
        group = [q for q in spec["queries"] if q["corpus"] == corpus and q["kind"] == kind]
        if group:
            split = "heldout" if group[-1]["split"] == "dev" else "dev"
        else:
            pool = [q for q in every if q["kind"] == kind] + added
            dev = sum(1 for q in pool if q["kind"] == kind and q["split"] == "dev")
            split = "heldout" if dev > len(pool) - dev else "dev"
        q = {"corpus": corpus, "split": split, "kind": kind, "query": query,
             "relevant": relevant}
        spec["queries"].append(q)
        added.append(q)
        seen.add(query)
    with open(spec_path, "w") as f:
        json.dump(spec, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{lang}/{corpus}: +{len(added)} queries "
          + ", ".join(f"{k} {sum(1 for q in added if q['kind'] == k)}" for k in KINDS.values()))


if __name__ == "__main__":
    main()
