#!/usr/bin/env python3
"""What a worker's sleep costs a tenant on `gnaw-mcp --listen`: the first call after it.

Starts BINARY with one tenant whose root is ROOT (a token minted by the binary itself) on a
free loopback port, with `GNAW_MCP_WORKER_IDLE_SECS=IDLE`, and measures one tool call
(`search` for QUERY by default) in three states:

- cold: the tenant's first call (its worker starts, indexes and answers);
- warm: the same call again, the worker alive and its cache warm (p50 of --warm calls);
- after sleep: the call after the worker slept (IDLE + 2 s without a call, the monitor put it
  to sleep; the next request starts a new worker), --cycles times.

Prints one JSON line with each state's p50 and every sample, in milliseconds. The worker's
sleep is confirmed from the log ("asleep") before each after-sleep call.

    scripts/bench/wake.py target/release/gnaw-mcp ROOT [--tool search] [--query Q] [--idle 2]
"""

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
import urllib.request

import listen


def call(port, token, i, tool, arguments):
    req = listen.tools_call(port, token, i, tool, arguments)
    start = time.monotonic()
    with urllib.request.urlopen(req, timeout=120) as r:
        answer = json.loads(r.read())
    elapsed = (time.monotonic() - start) * 1000
    if "result" not in answer or answer["result"].get("isError"):
        raise SystemExit(f"call failed: {json.dumps(answer)[:400]}")
    return elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("root")
    ap.add_argument("--tool", default="search")
    ap.add_argument("--query", default="where are requests parsed")
    ap.add_argument("--idle", type=int, default=2)
    ap.add_argument("--warm", type=int, default=10)
    ap.add_argument("--cycles", type=int, default=5)
    args = ap.parse_args()
    arguments = {"repo": "."}
    if args.tool == "search":
        arguments["query"] = args.query

    work = tempfile.mkdtemp()
    root = os.path.realpath(args.root)
    token, table = listen.mint(args.binary, "t0", root)
    tenants = listen.write_tenants(work, table)
    env = dict(os.environ, GNAW_MCP_TENANTS=tenants, RUST_LOG="info",
               GNAW_MCP_WORKER_IDLE_SECS=str(args.idle))
    server, port = listen.start(args.binary, env)
    log = []
    threading.Thread(target=lambda: log.extend(server.stderr), daemon=True).start()
    try:
        n = 0
        cold = call(port, token, n, args.tool, arguments)
        warm = []
        for _ in range(args.warm):
            n += 1
            warm.append(call(port, token, n, args.tool, arguments))
        after = []
        for _ in range(args.cycles):
            slept = sum("asleep" in l for l in log)
            deadline = time.monotonic() + args.idle + 30
            time.sleep(args.idle + 1)
            while sum("asleep" in l for l in log) <= slept:
                if time.monotonic() > deadline:
                    raise SystemExit("the worker never slept:\n" + "".join(log[-20:]))
                time.sleep(0.1)
            n += 1
            after.append(call(port, token, n, args.tool, arguments))
        print(json.dumps({
            "binary": args.binary, "root": root, "tool": args.tool,
            "cold_ms": round(cold, 1),
            "warm_p50_ms": round(statistics.median(warm), 1),
            "after_sleep_p50_ms": round(statistics.median(after), 1),
            "after_sleep_ms": [round(t, 1) for t in after],
            "warm_ms": [round(t, 1) for t in warm],
        }))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
