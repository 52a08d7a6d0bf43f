#!/usr/bin/env python3
"""Token-less load on `gnaw-mcp --listen`: what clients without a token cost the front door.

Starts BINARY with one tenant (a token minted by the binary itself) on a free loopback port,
measures a tenant's `tree` call (p50 of 20) at rest, then opens ATTACKERS connections that each
announce a 4 MiB body and trickle it (64 KiB every 50 ms), and IDLE connections that send
nothing, and measures again: the front door's resident memory (VmRSS) and the tenant's calls
(how many were served, their p50). Prints one JSON line. Run it against two binaries in the
same session to compare them:

    scripts/bench/token_less.py target/debug/gnaw-mcp [--attackers 60] [--idle 512] [--spread]
"""

import argparse
import json
import os
import socket
import statistics
import sys
import tempfile
import threading
import time
import urllib.request

import listen


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def call(port, token, i):
    req = listen.tools_call(port, token, i, "tree", {"repo": "."},
                            accept="application/json, text/event-stream")
    start = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            r.read()
            ok = r.status == 200
    except Exception:
        ok = False
    return ok, time.monotonic() - start


def calls(port, token, n, first):
    results = [call(port, token, first + i) for i in range(n)]
    served = [t for ok, t in results if ok]
    p50 = statistics.median(served) * 1000 if served else None
    return len(served), p50


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--attackers", type=int, default=60)
    ap.add_argument("--idle", type=int, default=512)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--spread", action="store_true",
                    help="open the idle connections from 127.0.0.2 to 127.0.0.9 in turn")
    args = ap.parse_args()

    work = tempfile.mkdtemp()
    root = os.path.join(work, "repo")
    os.makedirs(root)
    with open(os.path.join(root, "a.rs"), "w") as f:
        f.write("fn a() {}\n")
    token, table = listen.mint(args.binary, "t0", root)
    tenants = listen.write_tenants(work, table)
    server, port = listen.start(args.binary,
                                dict(os.environ, GNAW_MCP_TENANTS=tenants, RUST_LOG="info"))
    threading.Thread(target=lambda: server.stderr.read(), daemon=True).start()
    try:
        calls(port, token, 3, 0)
        served_quiet, p50_quiet = calls(port, token, 20, 100)
        rest = rss_kib(server.pid)

        stop = threading.Event()

        def attacker():
            try:
                s = socket.create_connection(("127.0.0.1", port))
                s.sendall(b"POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 4194304\r\n\r\n")
                chunk = b"x" * (64 << 10)
                while not stop.is_set():
                    s.sendall(chunk)
                    time.sleep(0.05)
            except OSError:
                pass

        threads = [threading.Thread(target=attacker, daemon=True) for _ in range(args.attackers)]
        for t in threads:
            t.start()
        idle = []
        for i in range(args.idle):
            source = (f"127.0.0.{2 + i % 8}", 0) if args.spread else None
            try:
                idle.append(socket.create_connection(("127.0.0.1", port), timeout=2,
                                                     source_address=source))
            except OSError:
                break
        time.sleep(args.seconds)
        peak = rss_kib(server.pid)
        served_attacked, p50_attacked = calls(port, token, 20, 200)
        stop.set()
        for s in idle:
            s.close()
        print(json.dumps({
            "binary": args.binary, "attackers": args.attackers, "idle": args.idle,
            "spread": args.spread,
            "rss_kib_rest": rest, "rss_kib_attacked": peak,
            "served_quiet": served_quiet, "p50_ms_quiet": p50_quiet,
            "served_attacked": served_attacked, "p50_ms_attacked": p50_attacked,
        }))
    finally:
        server.kill()
        server.wait()


if __name__ == "__main__":
    sys.exit(main())
