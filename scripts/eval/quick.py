#!/usr/bin/env python3
"""The ranking alone, quickly: NDCG@10 per split and kind, one gnaw call per query.

The same ranking as eval.py's (the `--explain` ranking of `gnaw --query`), without the budget
recalls and the BM25 baseline, so a change to the ranker can be tried in about three minutes on
two cores instead of twelve. Use eval-ranking.sh for the tables that are reported.

Usage: quick.py GNAW_BIN CACHE_DIR QUERIES_DIR OUT_JSON [BEFORE_JSON] [--split dev]
`--split dev` runs the dev half alone (half the time, for tuning).
Prints NDCG@10 by split and kind, then the held-out half by language.
With BEFORE_JSON (an OUT_JSON of an earlier quick run), also lists the queries whose NDCG@10
moved, by corpus.
"""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import eval as ev  # noqa: E402

KINDS = ("identifier", "semantic", "architecture")


def main():
    args = sys.argv[1:]
    only = None
    if "--split" in args:
        at = args.index("--split")
        only = args[at + 1]
        del args[at:at + 2]
    binary, cache, qdir, out = args[:4]
    corpora, queries = ev.load(qdir, cache)
    if only:
        queries = [q for q in queries if q["split"] == only]

    def run(q):
        repo = corpora[q["corpus"]]["repo"]
        order = [r["path"] for r in ev.ranking(binary, repo, q["query"])]
        row = {k: q[k] for k in ("corpus", "language", "split", "kind", "query")}
        return row | {"ndcg": ev.ndcg10(order, q["relevant"]), "top3": order[:3]}

    with ThreadPoolExecutor(ev.JOBS) as pool:
        rows = list(pool.map(run, queries))
    with open(out, "w") as fh:
        json.dump(rows, fh)

    def mean(sel):
        return sum(r["ndcg"] for r in sel) / max(len(sel), 1)

    for split in ("dev", "heldout"):
        sel = [r for r in rows if r["split"] == split]
        if not sel:
            continue
        kinds = " ".join(f"{k} {mean([r for r in sel if r['kind'] == k]):.3f}" for k in KINDS)
        print(f"{split}: NDCG@10 {mean(sel):.3f} ({kinds})")
    held = [r for r in rows if r["split"] == "heldout"]
    langs = sorted({r["language"] for r in held})
    if held:
        print("heldout by language: " + " ".join(
            f"{lang} {mean([r for r in held if r['language'] == lang]):.3f}" for lang in langs))
    if len(args) > 4:
        with open(args[4]) as fh:
            before = {(r["corpus"], r["query"]): r for r in json.load(fh)}
        for r in sorted(rows, key=lambda r: (r["corpus"], r["split"])):
            b = before.get((r["corpus"], r["query"]))
            if b and abs(b["ndcg"] - r["ndcg"]) > 1e-9:
                print(f"  {r['corpus']} [{r['split']}] {b['ndcg']:.2f} -> {r['ndcg']:.2f}  {r['query']}")


if __name__ == "__main__":
    main()
