#!/usr/bin/env python3
"""Per-tenant fairness on `gnaw-mcp --listen`: does one tenant's burst slow another's calls?

Starts BINARY with two tenants (tokens minted by the binary itself), `quiet` on ROOT_B and
`loud` on ROOT_A, on a free loopback port. Measures the quiet tenant's call (`search` for a
query, p50 and p90 of --calls sequential calls) at rest; then starts --burst clients of the loud
tenant, each calling `search` without pause, and measures the quiet tenant again while they run.
Prints one JSON line: both measurements, their ratio, and the loud tenant's calls answered
(200) and refused (429: its own bound on calls, GNAW_MCP_MAX_CALLS_PER_TENANT) meanwhile.

    scripts/bench/fairness.py target/release/gnaw-mcp ROOT_A ROOT_B [--burst 32] [--calls 40]
"""

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
import urllib.error
import urllib.request

import listen

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
QUERIES = ["where are requests parsed", "error handling", "configuration file",
           "main entry point", "tests for the parser", "how is output written"]


def call(port, token, i, query):
    req = listen.tools_call(port, token, i, "search", {"query": query})
    start = time.monotonic()
    try:
        with OPENER.open(req, timeout=120) as r:
            r.read()
            status = r.status
    except urllib.error.HTTPError as e:
        status = e.code
    return status, (time.monotonic() - start) * 1000


def measure(port, token, n):
    times = []
    for i in range(n):
        status, ms = call(port, token, i, QUERIES[i % len(QUERIES)])
        if status != 200:
            raise SystemExit(f"the quiet tenant's call got {status}")
        times.append(ms)
    times.sort()
    return {"p50_ms": round(statistics.median(times), 1),
            "p90_ms": round(times[int(len(times) * 0.9) - 1], 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("root_a")
    ap.add_argument("root_b")
    ap.add_argument("--burst", type=int, default=32)
    ap.add_argument("--calls", type=int, default=40)
    args = ap.parse_args()

    work = tempfile.mkdtemp()
    tokens, tables = {}, []
    for name, root in [("loud", args.root_a), ("quiet", args.root_b)]:
        tokens[name], table = listen.mint(args.binary, name, os.path.realpath(root))
        tables.append(table)
    tenants = listen.write_tenants(work, "\n".join(tables))
    server, port = listen.start(args.binary,
                                dict(os.environ, GNAW_MCP_TENANTS=tenants, RUST_LOG="info"))
    threading.Thread(target=lambda: server.stderr.read(), daemon=True).start()
    try:
        # Both workers started and their indexes warm.
        for name in tokens:
            for q in QUERIES:
                call(port, tokens[name], 0, q)
        quiet = measure(port, tokens["quiet"], args.calls)

        stop = threading.Event()
        counts = {"answered": 0, "refused": 0, "other": 0}
        lock = threading.Lock()

        def loud(k):
            i = 0
            while not stop.is_set():
                status, _ = call(port, tokens["loud"], i, QUERIES[(i + k) % len(QUERIES)])
                key = "answered" if status == 200 else "refused" if status == 429 else "other"
                with lock:
                    counts[key] += 1
                i += 1

        threads = [threading.Thread(target=loud, args=(k,), daemon=True)
                   for k in range(args.burst)]
        for t in threads:
            t.start()
        time.sleep(2)
        started = time.monotonic()
        with lock:
            before = dict(counts)
        burst = measure(port, tokens["quiet"], args.calls)
        elapsed = time.monotonic() - started
        with lock:
            during = {k: counts[k] - before[k] for k in counts}
        stop.set()
        for t in threads:
            t.join(timeout=130)
        print(json.dumps({
            "binary": args.binary, "burst_clients": args.burst, "calls": args.calls,
            "quiet_at_rest": quiet, "quiet_during_burst": burst,
            "p50_ratio": round(burst["p50_ms"] / quiet["p50_ms"], 2),
            "loud_per_second": round(during["answered"] / elapsed, 1),
            "loud_during": during,
        }))
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
