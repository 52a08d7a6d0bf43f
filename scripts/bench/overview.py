#!/usr/bin/env python3
"""`overview` on a corpus: its answer at several budgets, cold and warm, and its map's top files.

Usage: overview.py CORPUS BIN_DIR [--budgets 2000,8000,20000] [--rounds 3] [--top 20]
       [--query Q] [--json PATH]

CORPUS is a repository directory; BIN_DIR holds `gnaw` and `gnaw-mcp`. For each budget:

- **CLI cold**: `gnaw overview CORPUS --budget B --secrets redact`, a fresh process (the median of
  ROUNDS runs; wall time from spawn to exit);
- **server cold / warm**: a fresh `gnaw-mcp` (GNAW_MCP_ROOT = the corpus' parent,
  GNAW_MCP_TOOLS=all), `overview {repo, budget: B}` twice: the first call's time (walk, read,
  index, graph, outlines) and the second's (the kept index, graph and outlines), each from
  request to answer (the median of ROUNDS servers);
- the answer's exact tokens (`answer_tokens`), characters, files and definitions shown.

Then the map's first TOP files (from the largest budget), as the text shows them. Python
standard library only; prints markdown and writes JSON when asked.
"""

import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcp_pipe import Server  # noqa: E402


def arg(flag, default):
    if flag in sys.argv:
        return sys.argv[sys.argv.index(flag) + 1]
    return default


def call(server, repo, budget, query):
    args = {"repo": repo, "budget": budget}
    if query:
        args["query"] = query
    t0 = time.perf_counter()
    result = server.request("tools/call", {"name": "overview", "arguments": args})
    took = time.perf_counter() - t0
    if result.get("isError"):
        raise RuntimeError(result["content"][0]["text"])
    return took, result


def main():
    corpus = os.path.abspath(sys.argv[1])
    bins = os.path.abspath(sys.argv[2])
    budgets = [int(b) for b in arg("--budgets", "2000,8000,20000").split(",")]
    rounds = int(arg("--rounds", "3"))
    top = int(arg("--top", "20"))
    query = arg("--query", None)
    out_json = arg("--json", None)
    root, repo = os.path.dirname(corpus), os.path.basename(corpus)
    rows = []
    last = None
    for budget in budgets:
        cli = []
        for _ in range(rounds):
            cmd = [os.path.join(bins, "gnaw"), "overview", corpus, "--budget", str(budget),
                   "--secrets", "redact"]
            if query:
                cmd += ["--query", query]
            t0 = time.perf_counter()
            done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
            cli.append(time.perf_counter() - t0)
            cli_text = done.stdout.decode()
        cold, warm = [], []
        for _ in range(rounds):
            server = Server(os.path.join(bins, "gnaw-mcp"), root,
                            extra_env={"GNAW_MCP_TOOLS": "all"})
            server.initialize()
            c, _ = call(server, repo, budget, query)
            w, result = call(server, repo, budget, query)
            server.close()
            cold.append(c)
            warm.append(w)
        text = result["content"][0]["text"]
        sc = result["structuredContent"]
        rows.append({
            "budget": budget,
            "answer_tokens": sc["answer_tokens"],
            "chars": len(text),
            "files": len(sc["map"]),
            "definitions": sum(len(f["definitions"]) for f in sc["map"]),
            "cli_cold_s": statistics.median(cli),
            "server_cold_s": statistics.median(cold),
            "server_warm_s": statistics.median(warm),
            "cli_same_bytes": cli_text == text,
        })
        last = sc
    print(f"### {repo}: {last['header']['files']} files, "
          f"{last['header']['text_bytes'] / 1e6:.1f} MB of text"
          + (f", query {query!r}" if query else ""))
    print()
    print("| budget | answer tokens | chars | files | definitions | CLI cold | server cold | "
          "server warm | CLI = tool |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['budget']:,} | {r['answer_tokens']:,} | {r['chars']:,} | {r['files']} | "
              f"{r['definitions']} | {r['cli_cold_s'] * 1000:.0f} ms | "
              f"{r['server_cold_s'] * 1000:.0f} ms | {r['server_warm_s'] * 1000:.1f} ms | "
              f"{'yes' if r['cli_same_bytes'] else 'no'} |")
    print()
    print(f"Top {top} files of the map (budget {budgets[-1]:,}):")
    print()
    for n, f in enumerate(last["map"][:top], 1):
        role = f" ({f['role']})" if f["role"] else ""
        print(f"{n}. `{f['path']}`{role}")
    if out_json:
        with open(out_json, "w") as fh:
            json.dump({"corpus": repo, "rows": rows, "top": [f["path"] for f in last["map"][:top]]},
                      fh, indent=1)


if __name__ == "__main__":
    main()
