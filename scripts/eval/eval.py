#!/usr/bin/env python3
"""Retrieval evaluation of gnaw's ranking (see docs/ranking-eval.md).

For every query in QUERIES_DIR/*.json, runs the real `gnaw` binary on its corpus (fetched by
fetch.py into CACHE_DIR):
  gnaw CORPUS --json -q --explain --query Q --budget B     for B in BUDGETS
and measures
  - NDCG@10 of the ranking (graded gains 2^g - 1), from the --explain ranking;
  - recall@10: the share of the judged files among the first 10 ranked;
  - recall@B: the share of the judged files among the files the budget stage keeps (file_list),
    and, when the build has skeletons (--compress), the graded recall that counts a judged file
    kept as a skeleton as half.
Baseline: gnaw's own no-query order (the prior), for NDCG@10 and recall@10.

Usage: eval.py GNAW_BIN CACHE_DIR QUERIES_DIR OUT_MD OUT_JSON [BEFORE_JSON]
With BEFORE_JSON (an OUT_JSON of an earlier run), the tables show before -> after.
"""

import glob
import json
import math
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

BUDGETS = [8000, 20000]
JOBS = int(os.environ.get("EVAL_JOBS", "2"))


def gnaw(binary, repo, *args):
    cmd = [binary, repo, "--json", "-q", "--explain", *args]
    out = subprocess.run(cmd, capture_output=True, check=False)
    if out.returncode != 0:
        sys.exit(f"gnaw failed ({' '.join(cmd)}): {out.stderr.decode(errors='replace')}")
    return json.loads(out.stdout)


def has_compress(binary):
    out = subprocess.run([binary, "--help"], capture_output=True, text=True)
    return "--compress" in out.stdout


def ndcg10(order, rel):
    dcg = sum((2 ** rel.get(p, 0) - 1) / math.log2(k + 2) for k, p in enumerate(order[:10]))
    ideal = sorted(rel.values(), reverse=True)[:10]
    idcg = sum((2 ** g - 1) / math.log2(k + 2) for k, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall_at(order, rel, k=10):
    top = set(order[:k])
    return sum(1 for p in rel if p in top) / len(rel)


def mrr(order, rel):
    """The reciprocal rank of the first judged file (any grade), 0 when none is ranked."""
    for k, p in enumerate(order):
        if rel.get(p, 0) > 0:
            return 1.0 / (k + 1)
    return 0.0


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def kept_files(result):
    """Paths kept in full, and paths kept as skeletons (when the build reports them)."""
    full, skel = set(), set()
    for f in result["file_list"]:
        if f.get("skeleton") or f.get("form") == "skeleton":
            skel.add(f["path"])
        else:
            full.add(f["path"])
    return full, skel


def load(qdir, cache):
    corpora, queries = {}, []
    for path in sorted(glob.glob(f"{qdir}/*.json")):
        spec = json.load(open(path))
        for name, c in spec["corpora"].items():
            repo = f"{cache}/{c['dir']}"
            if not os.path.isdir(repo):
                sys.exit(f"eval: corpus {repo} is missing: run scripts/eval-ranking.sh (it fetches)")
            corpora[name] = {"language": spec["language"], "repo": repo,
                             "label": f"{c['package']} {c['version']} ({c['source']})"}
        for q in spec["queries"]:
            queries.append(dict(q, language=spec["language"]))
    return corpora, queries


def main():
    binary, cache, qdir, out_md, out_json = sys.argv[1:6]
    before = json.load(open(sys.argv[6])) if len(sys.argv) > 6 else None
    corpora, queries = load(qdir, cache)
    compress = has_compress(binary)

    def base(name):
        full = gnaw(binary, corpora[name]["repo"])
        return name, {"tokens": {f["path"]: f["tokens"] for f in full["file_list"]},
                      "default": [r["path"] for r in full["ranking"]]}

    with ThreadPoolExecutor(JOBS) as pool:
        bases = dict(pool.map(base, corpora))

    def run(q):
        b = bases[q["corpus"]]
        repo = corpora[q["corpus"]]["repo"]
        rel = q["relevant"]
        missing = [p for p in rel if p not in b["tokens"]]
        if missing:
            sys.exit(f"judged file(s) not extracted by gnaw for {q['query']!r}: {missing}")
        row = {k: q[k] for k in ("corpus", "language", "split", "kind", "query")}
        row["recall_budget"], row["graded_budget"] = {}, {}
        order = None
        for budget in BUDGETS:
            extra = ["--compress"] if compress else []
            s = gnaw(binary, repo, "--query", q["query"], "--budget", str(budget), *extra)
            full, skel = kept_files(s)
            row["recall_budget"][budget] = sum(1 for p in rel if p in full | skel) / len(rel)
            row["graded_budget"][budget] = (sum(1 for p in rel if p in full)
                                            + 0.5 * sum(1 for p in rel if p in skel)) / len(rel)
            order = [r["path"] for r in s["ranking"]]
        row["top3"] = order[:3]
        row["ndcg"] = ndcg10(order, rel)
        row["recall10"] = recall_at(order, rel)
        row["recall5"] = recall_at(order, rel, 5)
        row["mrr"] = mrr(order, rel)
        row["ndcg_default"] = ndcg10(b["default"], rel)
        row["recall10_default"] = recall_at(b["default"], rel)
        return row

    with ThreadPoolExecutor(JOBS) as pool:
        rows = list(pool.map(run, queries))

    brows = {}
    if before:
        brows = {(r["corpus"], r["query"]): r for r in before["rows"]}

    def cell(sel, key, budget=None):
        val = lambda r: r[key][str(budget)] if budget and isinstance(list(r[key])[0], str) \
            else (r[key][budget] if budget else r[key])
        now = mean([val(r) for r in sel])
        if before:
            old = [brows.get((r["corpus"], r["query"])) for r in sel]
            if all(old) and all(key in o for o in old):
                was = mean([val(o) for o in old])
                return f"{was:.3f} → {now:.3f}"
        return f"{now:.3f}"

    groups = [("all", rows),
              ("dev (tuned on)", [r for r in rows if r["split"] == "dev"]),
              ("held out", [r for r in rows if r["split"] == "heldout"])]
    for kind in ("identifier", "semantic", "architecture"):
        groups.append((f"kind: {kind}", [r for r in rows if r["kind"] == kind]))
    for kind in ("identifier", "semantic", "architecture"):
        groups.append((f"held out, kind: {kind}",
                       [r for r in rows if r["kind"] == kind and r["split"] == "heldout"]))
    for lang in sorted({r["language"] for r in rows}):
        groups.append((f"language: {lang}", [r for r in rows if r["language"] == lang]))

    out = ["Corpora: " + "; ".join(f"{c['label']}, {c['language']}" for c in corpora.values()), ""]
    arrow = " (before → after)" if before else ""
    out.append(f"Cells{arrow}: NDCG@10, recall@10, recall@5 and MRR (the reciprocal rank of the "
               f"first judged file) of the ranking; recall of the judged files "
               f"kept by the budget stage at 8k / 20k tokens"
               + ("; graded recall at 8k / 20k counting a skeleton as half" if compress else "")
               + "; and the no-query default order's NDCG@10 as a floor.")
    out.append("")
    head = "| queries | n | NDCG@10 | recall@10 | recall@5 | MRR | recall@8k | recall@20k |"
    sep = "|---|---|---|---|---|---|---|---|"
    if compress:
        head += " graded@8k | graded@20k |"
        sep += "---|---|"
    head += " NDCG@10, default order |"
    sep += "---|"
    out += [head, sep]
    for label, sel in groups:
        cells = [label, str(len(sel)), cell(sel, "ndcg"), cell(sel, "recall10"),
                 cell(sel, "recall5"), cell(sel, "mrr")]
        cells += [cell(sel, "recall_budget", b) for b in BUDGETS]
        if compress:
            cells += [cell(sel, "graded_budget", b) for b in BUDGETS]
        cells.append(f"{mean([r['ndcg_default'] for r in sel]):.3f}")
        out.append("| " + " | ".join(cells) + " |")
    out += ["", "Per query (NDCG@10, recall@10, top 3 ranked):", "",
            "| language | corpus | split | kind | query | NDCG@10 | recall@10 | top 3 |",
            "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        query = r["query"].replace("|", "\\|")
        out.append(f"| {r['language']} | {r['corpus']} | {r['split']} | {r['kind']} | {query} "
                   f"| {r['ndcg']:.3f} | {r['recall10']:.2f} | {', '.join(r['top3'])} |")
    text = "\n".join(out) + "\n"
    with open(out_md, "w") as f:
        f.write(text)
    with open(out_json, "w") as f:
        json.dump({"rows": rows}, f, indent=1)
    print("\n".join(out[:len(groups) + 6]))


if __name__ == "__main__":
    main()
