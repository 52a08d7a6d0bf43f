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
  - recall@5 and MRR (the reciprocal rank of the first judged file).
Baselines: gnaw's own no-query order (the prior), for NDCG@10; and a plain BM25 ranking
(bm25.py) over the same candidate files (gnaw's default file_list, read from disk), for NDCG@10,
recall@5 and MRR, computed here in the same run.

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

import bm25

BUDGETS = [8000, 20000]
JOBS = int(os.environ.get("EVAL_JOBS", "2"))


def gnaw(binary, repo, *args):
    cmd = [binary, repo, "--json", "-q", "--explain", *args]
    out = subprocess.run(cmd, capture_output=True, check=False)
    if out.returncode != 0:
        sys.exit(f"gnaw failed ({' '.join(cmd)}): {out.stderr.decode(errors='replace')}")
    return json.loads(out.stdout)


def ranking(binary, repo, query):
    """The `--explain` ranking of `query` alone (no budget stage output), as quick.py and
    rerank.py read it: every matching file with its score and the score's parts, best first."""
    return gnaw(binary, repo, "--estimate", "--query", query, "--budget", "8000")["ranking"]


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
        docs = {}
        for f in full["file_list"]:
            with open(os.path.join(corpora[name]["repo"], f["path"]), "rb") as fh:
                docs[f["path"]] = fh.read().decode("utf-8", errors="replace")
        return name, {"tokens": {f["path"]: f["tokens"] for f in full["file_list"]},
                      "default": [r["path"] for r in full["ranking"]],
                      "bm25": bm25.Index(docs)}

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
        plain = b["bm25"].rank(q["query"])
        row["bm25_top3"] = plain[:3]
        row["ndcg_bm25"] = ndcg10(plain, rel)
        row["recall5_bm25"] = recall_at(plain, rel, 5)
        row["mrr_bm25"] = mrr(plain, rel)
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

    kinds = ("identifier", "semantic", "architecture")
    groups = [("all", rows),
              ("dev (tuned on)", [r for r in rows if r["split"] == "dev"]),
              ("held out (reported)", [r for r in rows if r["split"] == "heldout"])]
    for kind in kinds:
        groups.append((f"kind: {kind}", [r for r in rows if r["kind"] == kind]))
    for kind in kinds:
        groups.append((f"dev, kind: {kind}",
                       [r for r in rows if r["kind"] == kind and r["split"] == "dev"]))
    for kind in kinds:
        groups.append((f"held out, kind: {kind}",
                       [r for r in rows if r["kind"] == kind and r["split"] == "heldout"]))
    for lang in sorted({r["language"] for r in rows}):
        groups.append((f"language: {lang}", [r for r in rows if r["language"] == lang]))
    for lang in sorted({r["language"] for r in rows}):
        groups.append((f"held out, language: {lang}",
                       [r for r in rows if r["language"] == lang and r["split"] == "heldout"]))
    by_corpus = [(f"{corpora[c]['language']}: {corpora[c]['label']}",
                  [r for r in rows if r["corpus"] == c]) for c in corpora]

    langs = sorted({c["language"] for c in corpora.values()})
    out = [f"{len(rows)} queries over {len(corpora)} corpora in {len(langs)} languages. Corpora: "
           + "; ".join(f"{c['label']}, {c['language']}" for c in corpora.values()), ""]
    arrow = " (before → after)" if before else ""
    out.append(f"Ranking quality{arrow}: NDCG@10 (gains 2^grade - 1), recall@5 and MRR (the "
               "reciprocal rank of the first judged file) of gnaw's `--query` ranking, next to a "
               "plain BM25 ranking of the same candidate files (scripts/eval/bm25.py: whole "
               "files, identifiers split, k1 = 1.2, b = 0.75) and gnaw's no-query default "
               "order (NDCG@10 only). Dev is the half tuned on; held out is only reported.")
    out.append("")
    out += ["| queries | n | NDCG@10 gnaw | NDCG@10 BM25 | recall@5 gnaw | recall@5 BM25 "
            "| MRR gnaw | MRR BM25 | NDCG@10 default order |",
            "|---|---|---|---|---|---|---|---|---|"]

    def quality(label, sel):
        return ("| " + " | ".join([
            label, str(len(sel)), cell(sel, "ndcg"), f"{mean([r['ndcg_bm25'] for r in sel]):.3f}",
            cell(sel, "recall5"), f"{mean([r['recall5_bm25'] for r in sel]):.3f}",
            cell(sel, "mrr"), f"{mean([r['mrr_bm25'] for r in sel]):.3f}",
            f"{mean([r['ndcg_default'] for r in sel]):.3f}"]) + " |")

    out += [quality(label, sel) for label, sel in groups]
    out += ["", "Per corpus:", "",
            "| corpus | n | NDCG@10 gnaw | NDCG@10 BM25 | recall@5 gnaw | recall@5 BM25 "
            "| MRR gnaw | MRR BM25 | NDCG@10 default order |",
            "|---|---|---|---|---|---|---|---|---|"]
    out += [quality(label, sel) for label, sel in by_corpus]
    out += ["", f"Budget{arrow}: recall@10 of the ranking; recall of the judged files kept by "
            "the budget stage at 8k / 20k tokens"
            + ("; graded recall at 8k / 20k counting a skeleton as half" if compress else "")
            + ".", ""]
    head = "| queries | n | recall@10 | recall@8k | recall@20k |"
    sep = "|---|---|---|---|---|"
    if compress:
        head += " graded@8k | graded@20k |"
        sep += "---|---|"
    out += [head, sep]
    for label, sel in groups[:6] + groups[9:12]:
        cells = [label, str(len(sel)), cell(sel, "recall10")]
        cells += [cell(sel, "recall_budget", b) for b in BUDGETS]
        if compress:
            cells += [cell(sel, "graded_budget", b) for b in BUDGETS]
        out.append("| " + " | ".join(cells) + " |")
    summary = len(out)
    out += ["", "Per query (NDCG@10 of gnaw and of BM25, recall@10, gnaw's top 3 ranked):", "",
            "| language | corpus | split | kind | query | NDCG@10 | BM25 | recall@10 | top 3 |",
            "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        query = r["query"].replace("|", "\\|")
        out.append(f"| {r['language']} | {r['corpus']} | {r['split']} | {r['kind']} | {query} "
                   f"| {r['ndcg']:.3f} | {r['ndcg_bm25']:.3f} | {r['recall10']:.2f} "
                   f"| {', '.join(r['top3'])} |")
    text = "\n".join(out) + "\n"
    with open(out_md, "w") as f:
        f.write(text)
    with open(out_json, "w") as f:
        json.dump({"rows": rows}, f, indent=1)
    print("\n".join(out[:summary]))


if __name__ == "__main__":
    main()
