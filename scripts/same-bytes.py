#!/usr/bin/env python3
"""Prove two builds of gnaw give byte-identical answers: the prompt in all three formats (plain,
with a budget and a query, and the --json summary) from the CLI, and extract/estimate from the
MCP server, on the same repositories. Used to show a refactor changed no behaviour.

    scripts/same-bytes.py OLD_BIN_DIR NEW_BIN_DIR [REPO ...]

Each BIN_DIR holds `gnaw` and `gnaw-mcp`. Without REPO arguments it uses this project and the
benchmark corpora that exist under $GNAW_BENCH_DIR/corpus (build them with
`scripts/bench.sh --corpora-only`). For MCP in xml and json, a copy of each repository (except
the many-files corpus) gets a `.gnawconfig` naming the format. Prints one line per comparison
and `N passed, N failed`; exits 1 on any difference.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

FORMATS = ["markdown", "xml", "json"]
CLI_VARIANTS = [
    [],
    ["--budget", "20000", "--query", "parse config error"],
    ["--line-numbers", "--no-tree"],
]


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def cli(bindir, repo, args):
    p = subprocess.run([os.path.join(bindir, "gnaw"), repo, "-q", *args],
                       capture_output=True, timeout=600)
    return p.returncode.to_bytes(1, "little") + p.stdout + b"\0" + p.stderr


def mcp(bindir, root, calls):
    """Answer every call (name, arguments) in one server process; return the raw answer lines."""
    lines = [json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "same-bytes", "version": "1"}}})]
    lines.append(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    for i, (name, args) in enumerate(calls, start=1):
        lines.append(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                                 "params": {"name": name, "arguments": args}}))
    env = dict(os.environ, GNAW_MCP_ROOT=root, RUST_LOG="error")
    p = subprocess.Popen([os.path.join(bindir, "gnaw-mcp")], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    answers = {}
    assert p.stdin and p.stdout
    # Send one call at a time and wait for its answer, so the server's end-of-input handling
    # plays no part in what is compared.
    p.stdin.write((lines[0] + "\n" + lines[1] + "\n").encode())
    p.stdin.flush()
    answers[0] = p.stdout.readline()
    for i, line in enumerate(lines[2:], start=1):
        p.stdin.write((line + "\n").encode())
        p.stdin.flush()
        answers[i] = p.stdout.readline()
    p.stdin.close()
    p.wait(timeout=60)
    return [answers[i] for i in range(1, len(calls) + 1)]


def copy_with_format(repo, fmt, scratch):
    dest = os.path.join(scratch, f"{os.path.basename(repo.rstrip('/'))}-{fmt}")
    if not os.path.exists(dest):
        shutil.copytree(repo, dest, symlinks=True,
                        ignore=shutil.ignore_patterns("target", ".git"))
        with open(os.path.join(dest, ".gnawconfig"), "a") as f:
            f.write(f'\nformat = "{fmt}"\n')
    return dest


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    old, new = sys.argv[1], sys.argv[2]
    repos = sys.argv[3:]
    if not repos:
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        repos = [here]
        bench = os.environ.get("GNAW_BENCH_DIR",
                               os.path.join(os.environ.get("XDG_CACHE_HOME",
                                                           os.path.expanduser("~/.cache")),
                                            "gnaw-bench"))
        for name in ["medium", "many"]:
            d = os.path.join(bench, "corpus", name)
            if os.path.isdir(d):
                repos.append(d)
            else:
                print(f"note: corpus {name} not built (scripts/bench.sh --corpora-only); skipped")
    passed = failed = 0

    def check(what, a, b):
        nonlocal passed, failed
        if a == b:
            passed += 1
            print(f"same      {what} ({len(a)} bytes, {digest(a)})")
        else:
            failed += 1
            print(f"DIFFERENT {what}: old {len(a)} bytes {digest(a)}, new {len(b)} bytes {digest(b)}")

    with tempfile.TemporaryDirectory(prefix="gnaw-same-bytes-") as scratch:
        for repo in repos:
            name = os.path.basename(repo.rstrip("/"))
            # The many-files corpus (a 240 MB prompt) runs one variant per format.
            variants = CLI_VARIANTS[:1] if name == "many" else CLI_VARIANTS
            for fmt in FORMATS:
                for extra in variants:
                    args = ["--format", fmt, *extra]
                    check(f"cli {name} {' '.join(args)}", cli(old, repo, args), cli(new, repo, args))
            check(f"cli {name} --json", cli(old, repo, ["--json"]), cli(new, repo, ["--json"]))
            calls = [("estimate", {"repo": "."}),
                     ("estimate", {"repo": ".", "budget": 0}),
                     ("extract", {"repo": ".", "budget": 20000, "query": "parse config error"}),
                     ("extract", {"repo": ".", "include": ["**/*.rs"], "budget": 50000})]
            roots = [("markdown", repo)]
            if name != "many":
                roots += [(fmt, copy_with_format(repo, fmt, scratch)) for fmt in ["xml", "json"]]
            for fmt, root in roots:
                a, b = mcp(old, root, calls), mcp(new, root, calls)
                for (tool, args), x, y in zip(calls, a, b):
                    check(f"mcp {name} {fmt} {tool} {json.dumps(args)}", x, y)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
