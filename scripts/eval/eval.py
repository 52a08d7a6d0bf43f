#!/usr/bin/env python3
"""Retrieval evaluation of gnaw's ranking (see docs/ranking-eval.md).

For every query in queries.json, runs the real `gnaw` binary on the crate's sources:
  gnaw CRATE --json -q --explain --query Q --budget B     for B in BUDGETS
and measures
  - recall@B: share of the judged-relevant files that are among the kept files (file_list);
  - NDCG@10 of the ranking (graded gains 2^g - 1), from the --explain ranking.
Baselines:
  - "default": gnaw's own no-query order (the prior), run with the same budget;
  - "path": plain path order, filled greedily with each file's token count until the budget
    (ignores the tree and omitted section, so it is slightly generous to the baseline).

Usage: eval.py GNAW_BIN REGISTRY_SRC_DIR QUERIES_JSON OUT_MD [OUT_JSON]
"""

import json
import math
import subprocess
import sys

BUDGETS = [8000, 20000, 50000]


def gnaw(binary, repo, *args):
    cmd = [binary, repo, "--json", "-q", "--explain", *args]
    out = subprocess.run(cmd, capture_output=True, check=False)
    if out.returncode != 0:
        sys.exit(f"gnaw failed ({' '.join(cmd)}): {out.stderr.decode(errors='replace')}")
    return json.loads(out.stdout)


def ndcg10(order, rel):
    dcg = sum((2 ** rel.get(p, 0) - 1) / math.log2(k + 2) for k, p in enumerate(order[:10]))
    ideal = sorted(rel.values(), reverse=True)[:10]
    idcg = sum((2 ** g - 1) / math.log2(k + 2) for k, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def recall(kept, rel):
    return sum(1 for p in rel if p in kept) / len(rel)


def path_fill(file_tokens, budget):
    kept, spent = set(), 0
    for path in sorted(file_tokens):
        t = file_tokens[path]
        if spent + t <= budget:
            kept.add(path)
            spent += t
    return kept


def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def main():
    binary, registry, queries_path, out_md = sys.argv[1:5]
    out_json = sys.argv[5] if len(sys.argv) > 5 else None
    spec = json.load(open(queries_path))
    crates = spec["crates"]
    queries = spec["queries"]

    # Per crate: every file's tokens, the default order, and what each budget keeps without a query.
    base = {}
    for name, dirname in crates.items():
        repo = f"{registry}/{dirname}"
        full = gnaw(binary, repo)
        tokens = {f["path"]: f["tokens"] for f in full["file_list"]}
        default_order = [r["path"] for r in full["ranking"]]
        default_kept = {}
        for b in BUDGETS:
            s = gnaw(binary, repo, "--budget", str(b))
            default_kept[b] = {f["path"] for f in s["file_list"]}
        base[name] = {"repo": repo, "tokens": tokens, "default": default_order,
                      "default_kept": default_kept, "files": len(tokens),
                      "total_tokens": sum(tokens.values())}

    rows = []
    for q in queries:
        b = base[q["crate"]]
        rel = q["relevant"]
        missing = [p for p in rel if p not in b["tokens"]]
        if missing:
            sys.exit(f"judged file(s) not extracted by gnaw for {q['query']!r}: {missing}")
        row = {"query": q["query"], "crate": q["crate"], "split": q["split"], "kind": q["kind"],
               "recall": {}, "recall_default": {}, "recall_path": {}, "ceiling": {}}
        for budget in BUDGETS:
            s = gnaw(binary, b["repo"], "--query", q["query"], "--budget", str(budget))
            kept = {f["path"] for f in s["file_list"]}
            row["recall"][budget] = recall(kept, rel)
            row["recall_default"][budget] = recall(b["default_kept"][budget], rel)
            row["recall_path"][budget] = recall(path_fill(b["tokens"], budget), rel)
            # Relevant files that could fit at all (each on its own).
            row["ceiling"][budget] = sum(1 for p in rel if b["tokens"][p] <= budget) / len(rel)
            order = [r["path"] for r in s["ranking"]]
        row["top3"] = order[:3]
        row["ndcg"] = ndcg10(order, rel)
        row["ndcg_default"] = ndcg10(b["default"], rel)
        row["ndcg_path"] = ndcg10(sorted(b["tokens"]), rel)
        rows.append(row)

    def line(label, sel):
        cells = [label, str(len(sel))]
        for key in ["recall", "recall_default", "recall_path", "ceiling"]:
            cells.append(" / ".join(f"{mean([r[key][bud] for r in sel]):.3f}" for bud in BUDGETS))
        for key in ["ndcg", "ndcg_default", "ndcg_path"]:
            cells.append(f"{mean([r[key] for r in sel]):.3f}")
        return "| " + " | ".join(cells) + " |"

    out = []
    out.append("Crates: " + ", ".join(
        f"{d} ({base[n]['files']} files, {base[n]['total_tokens']} tokens)" for n, d in crates.items()))
    out.append("")
    out.append("Recall cells are at budgets 8k / 20k / 50k tokens. \"ceiling\" is the share of relevant "
               "files that fit the budget on their own (no ranking can beat it).")
    out.append("")
    out.append("| queries | n | recall, query | recall, default order | recall, path order | ceiling "
               "| NDCG@10, query | NDCG@10, default | NDCG@10, path |")
    out.append("|---|---|---|---|---|---|---|---|---|")
    out.append(line("all", rows))
    out.append(line("dev (tuned on)", [r for r in rows if r["split"] == "dev"]))
    out.append(line("held out", [r for r in rows if r["split"] == "heldout"]))
    out.append(line("identifier", [r for r in rows if r["kind"] == "identifier"]))
    out.append(line("natural language", [r for r in rows if r["kind"] == "natural"]))
    out.append("")
    out.append("Per query (recall with the query at 8k / 20k / 50k, NDCG@10, top 3 ranked):")
    out.append("")
    out.append("| crate | split | query | recall | NDCG@10 | top 3 |")
    out.append("|---|---|---|---|---|---|")
    for r in rows:
        rec = " / ".join(f"{r['recall'][b]:.2f}" for b in BUDGETS)
        top = ", ".join(r["top3"])
        query = r["query"].replace("|", "\\|")
        out.append(f"| {r['crate']} | {r['split']} | {query} | {rec} "
                   f"| {r['ndcg']:.3f} | {top} |")
    text = "\n".join(out) + "\n"
    with open(out_md, "w") as f:
        f.write(text)
    if out_json:
        with open(out_json, "w") as f:
            json.dump(rows, f, indent=1, default=str)
    print(text)


if __name__ == "__main__":
    main()
