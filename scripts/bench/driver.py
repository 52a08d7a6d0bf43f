#!/usr/bin/env python3
"""The measuring half of scripts/bench.sh: runs gnaw, its count-only floor, the gnaw-mcp server
and the peers (yek, code2prompt, repomix) on one corpus, alternating them round by round, and
prints a markdown report (medians, ratios, each target met or missed) plus a JSON file.

Run it through scripts/bench.sh, which builds the binaries and the corpora first. Standard
library only. Wall time is taken around spawn-to-exit; peak RSS is the child's ru_maxrss from
wait4(2), so no /usr/bin/time is needed.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import threading
import time

from mcp_pipe import Server

TIMEOUT_S = int(os.environ.get("GNAW_BENCH_TIMEOUT", "300"))


def run(argv, env=None, stdout_path=os.devnull, timeout=TIMEOUT_S):
    """Run argv to completion, killed after `timeout` s.
    Returns (seconds, peak_rss_kib, exit_code, stdout_text, cpu_seconds)."""
    with open(stdout_path, "wb") as out:
        start = time.perf_counter()
        # A captured run keeps stderr too: code2prompt prints its token count there.
        err = out if stdout_path != os.devnull else subprocess.DEVNULL
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env)
        timer = threading.Timer(timeout, proc.kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
    text = ""
    if stdout_path != os.devnull:
        with open(stdout_path, "r", errors="replace") as f:
            text = f.read()
    return elapsed, usage.ru_maxrss, proc.returncode, text, usage.ru_utime + usage.ru_stime


def median(xs):
    return statistics.median(xs) if xs else None


def fmt_s(x):
    if x is None:
        return "n/a"
    return f"{x * 1e3:.1f} ms" if x < 1 else f"{x:.2f} s"


# ---------------------------------------------------------------- the tools

def gnaw_tools(bins, corpus):
    g = os.path.join(bins, "gnaw")
    return [
        ("gnaw extract", [g, corpus, "-q", "-o", os.devnull]),
        ("gnaw --compress", [g, corpus, "--compress", "-q", "-o", os.devnull]),
        ("gnaw --estimate", [g, corpus, "--estimate"]),
        ("gnaw --no-count", [g, corpus, "--no-count", "-q", "-o", os.devnull]),
        ("gnaw --secrets off", [g, corpus, "--secrets", "off", "-q", "-o", os.devnull]),
        ("gnaw --no-count --secrets off",
         [g, corpus, "--no-count", "--secrets", "off", "-q", "-o", os.devnull]),
    ]


def peer_tools(peers, corpus):
    """The peers found under the cache dir (or on PATH), each with how it counts tokens."""
    tools = []
    yek = find_exe(os.path.join(peers, "cargo", "bin", "yek"), "yek")
    if yek:
        tools.append(("yek", [yek, "--max-size", "1GB", corpus], None,
                      "counts no tokens (byte limit only)"))
    c2p = find_exe(os.path.join(peers, "cargo", "bin", "code2prompt"), "code2prompt")
    if c2p:
        tools.append(("code2prompt", [c2p, corpus, "--encoding", "o200k", "--token-format", "raw",
                                      "--no-clipboard",
                                      "--output-file", os.devnull],
                      None, "tiktoken-rs o200k_base, on the whole rendered prompt"))
    rmx = find_exe(os.path.join(peers, "npm", "node_modules", ".bin", "repomix"), "repomix")
    if rmx:
        tools.append(("repomix", [rmx, corpus, "--style", "markdown", "--no-security-check",
                                  "--token-count-encoding", "o200k_base",
                                  "-o", os.devnull],
                      None, "tiktoken (WASM) o200k_base per file, summed"))
    return tools


def find_exe(cached, name):
    if os.access(cached, os.X_OK):
        return cached
    for d in os.environ.get("PATH", "").split(os.pathsep):
        p = os.path.join(d, name)
        if os.access(p, os.X_OK):
            return p
    return None


def version(argv0):
    try:
        out = subprocess.run([argv0, "--version"], capture_output=True, text=True, timeout=60)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, subprocess.SubprocessError, IndexError):
        return "?"


def peer_tokens(name, text):
    """The token total a peer printed, if it printed one."""
    pat = {"code2prompt": r"[Tt]oken count:?\s*([\d,]+)", "repomix": r"Total Tokens:\s*([\d,]+)\s*tokens"}
    if name not in pat:
        return None
    m = re.search(pat[name], text)
    return int(m.group(1).replace(",", "")) if m else None


# ---------------------------------------------------------------- gnaw-mcp

def server_round(exe, root, repo, log):
    srv = Server(exe, root, log)
    init = srv.initialize()
    times, tokens = [], []
    for _ in range(2):
        t = time.perf_counter()
        res = srv.request("tools/call", {"name": "estimate", "arguments": {"repo": repo, "budget": 0}})
        times.append(time.perf_counter() - t)
        if res.get("isError"):
            raise RuntimeError(f"estimate failed: {res}")
        tokens.append(res.get("structuredContent", {}).get("tokens"))
    rss = srv.close()
    return init, times[0], times[1], tokens, rss


# ---------------------------------------------------------------- navigation (read, grep, tree)

NAV_PATTERN = r"fn \w+_new\b"
# A question, not a name: search's typical input.
SEARCH_QUERY = "parse a config file with default values"


def nav_block(bins, corpus, runs, scratch, log):
    """grep (CLI vs rg on the same threads), and in a warm server: grep, a 400-line read of a
    1 MB file, tree vs estimate. Medians over `runs` after a warm-up; nothing is asserted."""
    g = os.path.join(bins, "gnaw")
    exe = os.path.join(bins, "gnaw-mcp")
    name = os.path.basename(corpus)
    threads = len(os.sched_getaffinity(0))
    rg = find_exe(os.path.join(PEERS, "cargo", "bin", "rg"), "rg")
    cli = {"gnaw grep (CLI, cold)": [], f"rg --no-config -j{threads}": []}
    counts = {}
    for r in range(runs + 1):
        argv = [g, "grep", corpus, NAV_PATTERN, "--budget", "0", "-m", "100000000"]
        t, _, code, text, _ = run(argv, stdout_path=os.path.join(scratch, "grep.txt"))
        if code == 0 and r > 0:
            cli["gnaw grep (CLI, cold)"].append(t)
        if code == 0:
            with open(os.path.join(scratch, "grep.txt")) as f:
                m = re.match(r"grep .*?: (\d+) match", f.readline())
                counts["gnaw grep (CLI, cold)"] = int(m.group(1)) if m else None
        if rg:
            out = os.path.join(scratch, "rg.txt")
            t, _, code, _, _ = run([rg, "--no-config", "-j", str(threads), "-n", NAV_PATTERN,
                                    corpus], stdout_path=out)
            if code == 0 and r > 0:
                cli[f"rg --no-config -j{threads}"].append(t)
            with open(out, "rb") as f:
                counts[f"rg --no-config -j{threads}"] = sum(1 for _ in f)
    res = {"pattern": NAV_PATTERN, "threads": threads,
           "cli": {k: median(v) for k, v in cli.items() if v}, "matches": counts}

    def timed(srv, tool, args):
        t = time.perf_counter()
        out = srv.request("tools/call", {"name": tool, "arguments": args})
        if out.get("isError"):
            raise RuntimeError(f"{tool} failed: {out}")
        return time.perf_counter() - t, out

    srv = Server(exe, os.path.dirname(corpus), log)
    srv.initialize()
    grep_args = {"repo": name, "pattern": NAV_PATTERN, "budget": 0, "max_matches": 100000000}
    cold_grep, _ = timed(srv, "grep", grep_args)
    warm_grep = [timed(srv, "grep", grep_args)[0] for _ in range(runs)]
    cold_est, _ = timed(srv, "estimate", {"repo": name, "budget": 0})
    tree_after, tr = timed(srv, "tree", {"repo": name})
    warm_est, warm_tree = [], []
    for _ in range(runs):
        warm_est.append(timed(srv, "estimate", {"repo": name, "budget": 0})[0])
        warm_tree.append(timed(srv, "tree", {"repo": name})[0])
    srv.close()
    # search: a fresh server, so the first call is cold (walk, read, scan, rank, parse).
    srv = Server(exe, os.path.dirname(corpus), log)
    srv.initialize()
    search_args = {"repo": name, "query": SEARCH_QUERY, "budget": 0}
    cold_search, _ = timed(srv, "search", search_args)
    warm_search = [timed(srv, "search", search_args)[0] for _ in range(runs)]
    srv.close()
    cli_search = []
    for r in range(runs + 1):
        t, _, code, _, _ = run([g, "search", corpus, SEARCH_QUERY, "--budget", "0"],
                               stdout_path=os.path.join(scratch, "search.txt"))
        if code == 0 and r > 0:
            cli_search.append(t)
    res["cli"]["gnaw search (CLI, cold)"] = median(cli_search) if cli_search else None
    res["server"] = {"grep cold": cold_grep, "grep warm": median(warm_grep),
                     "search cold": cold_search, "search warm": median(warm_search),
                     "estimate cold": cold_est, "tree after estimate": tree_after,
                     "estimate warm": median(warm_est), "tree warm": median(warm_tree),
                     "tree answer tokens": tr.get("structuredContent", {}).get("answer_tokens")}

    # A 1 MB file (corpus text, under the 1 MiB max_file_size) in a root of its own.
    root = os.path.join(scratch, "navroot")
    os.makedirs(os.path.join(root, "r"), exist_ok=True)
    big = os.path.join(root, "r", "big.rs")
    with open(big, "w") as out:
        size = 0
        for dirpath, _, files in sorted(os.walk(corpus)):
            for fn in sorted(files):
                if not fn.endswith(".rs") or size > 1_000_000:
                    continue
                with open(os.path.join(dirpath, fn), errors="replace") as f:
                    text = f.read()[: 1_000_000 - size]
                out.write(text)
                size += len(text.encode())
    time.sleep(2.1)  # files changed in the last 2 s are not cached
    with open(big) as f:
        lines = sum(1 for _ in f)
    start = max(1, lines // 2)
    srv = Server(exe, root, log)
    srv.initialize()
    window = {"repo": "r", "paths": [f"big.rs:{start}-{start + 399}"], "budget": 0}
    cold_read, _ = timed(srv, "read", window)
    warm_read = [timed(srv, "read", window)[0] for _ in range(runs)]
    srv.close()
    res["read"] = {"bytes": os.path.getsize(big), "lines": lines, "cold": cold_read,
                   "warm": median(warm_read)}
    return res


def nav_report(nav):
    print(f"Navigation (pattern `{nav['pattern']}`, {nav['threads']} threads):\n")
    print("| what | median wall | notes |")
    print("|---|---|---|")
    for k, t in nav["cli"].items():
        print(f"| {k} | {fmt_s(t)} | {nav['matches'].get(k)} matching lines |")
    for k, t in nav["server"].items():
        if k == "tree answer tokens":
            continue
        note = f"answer {nav['server']['tree answer tokens']:,} tokens (default budget)" \
            if k.startswith("tree") else ""
        print(f"| gnaw-mcp `{k.split()[0]}`, {' '.join(k.split()[1:])} | {fmt_s(t)} | {note} |")
    r = nav["read"]
    print(f"| gnaw-mcp `read`, 400-line window of a {r['bytes'] / 1e6:.2f} MB file, cold | "
          f"{fmt_s(r['cold'])} | {r['lines']:,} lines |")
    print(f"| gnaw-mcp `read`, same window, warm | {fmt_s(r['warm'])} | |")
    print()


# ---------------------------------------------------------------- issue 24: grep, compress, startup

# The issue's own pattern, and the peers' cache dir (set by main) where --install-peers puts rg.
ISSUE_PATTERN = r"fn\s+parse_expr"
PEERS = ""


def spread(xs):
    return f"{fmt_s(min(xs))}–{fmt_s(max(xs))}" if xs else "n/a"


def small_rss_run(argv, stdout_path):
    """`run`, with the peak RSS taken by GNU time when it is installed: a child forked from this
    Python process reports Python's own peak (about 20 MiB) when its program needs less, which
    hides the difference between two small processes. Returns what `run` returns."""
    gtime = shutil.which("time") or ("/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None)
    if not gtime:
        return run(argv, stdout_path=stdout_path)
    rss_file = stdout_path + ".rss"
    t, _, code, text, c = run([gtime, "-f", "%M", "-o", rss_file] + argv, stdout_path=stdout_path)
    try:
        with open(rss_file) as f:
            kib = int(f.read().strip().splitlines()[-1])
    except (OSError, ValueError, IndexError):
        kib = None
    return t, kib, code, text, c


def issue24_block(bins, corpus, runs, scratch, log):
    """grep against ripgrep (CLI, whole process, same pattern and files; and warm in the server),
    compress against extract warm in the server, and gnaw-mcp's startup. Every pair alternates
    within a round; medians and spreads over `runs` rounds after a warm-up."""
    g = os.path.join(bins, "gnaw")
    exe = os.path.join(bins, "gnaw-mcp")
    name = os.path.basename(corpus)
    rg = find_exe(os.path.join(PEERS, "cargo", "bin", "rg"), "rg")
    res = {"rg": version(rg) if rg else None, "grep": {}, "server": {}, "startup": {}}
    for pat in (ISSUE_PATTERN, NAV_PATTERN):
        pairs = {"gnaw": [g, "grep", corpus, pat, "--budget", "0", "-m", "100000000"]}
        if rg:
            # rg's defaults (ignore files, hidden files skipped, binary files skipped): the same
            # files gnaw searches; one thread per core, as gnaw.
            pairs["rg"] = [rg, "--no-config", "-n", pat, corpus]
        got = {k: {"t": [], "rss": [], "cpu": []} for k in pairs}
        for r in range(runs + 1):
            for k, argv in pairs.items():
                t, kib, code, _, c = small_rss_run(argv, os.path.join(scratch, f"{k}.grep"))
                if r > 0 and code in (0, 1):
                    got[k]["t"].append(t)
                    got[k]["rss"].append(kib)
                    got[k]["cpu"].append(c)
        res["grep"][pat] = got
    # Warm grep in the server, against rg's cold run above (the same pattern).
    srv = Server(exe, os.path.dirname(corpus), log)
    srv.initialize()

    def call(tool, args):
        t = time.perf_counter()
        out = srv.request("tools/call", {"name": tool, "arguments": args})
        if out.get("isError"):
            raise RuntimeError(f"{tool} failed: {str(out)[:500]}")
        return time.perf_counter() - t

    gargs = {"repo": name, "pattern": ISSUE_PATTERN, "budget": 0}
    call("grep", gargs)
    res["server"]["grep warm"] = [call("grep", gargs) for _ in range(runs)]
    srv.close()
    # compress vs extract, warm, in one server: unlimited (the whole prompt returned) and under
    # a 50,000-token budget (graded: files whole while they fit, then skeletons).
    srv = Server(exe, os.path.dirname(corpus), log, {"GNAW_MCP_MAX_OUTPUT_BYTES": str(1 << 30)})
    srv.initialize()
    for budget in (0, 50000):
        ext = {"repo": name, "budget": budget}
        cmp_ = dict(ext, compress=True)
        # Until the skeleton cache holds every file (the parse budget of one call may stop
        # short of the whole corpus): a few calls, then the measured ones.
        cold_ext, cold_cmp = call("extract", ext), call("extract", cmp_)
        for _ in range(3):
            call("extract", cmp_)
        we, wc = [], []
        for _ in range(runs):
            we.append(call("extract", ext))
            wc.append(call("extract", cmp_))
        res["server"][f"extract {budget}"] = we
        res["server"][f"compress {budget}"] = wc
        res["server"][f"cold {budget}"] = (cold_ext, cold_cmp)
    srv.close()
    # Startup: spawn to the tools/list answer, and to the first extract (cold) of the corpus,
    # against the same call warm; a fresh process each round.
    lst, first, warm = [], [], []
    for r in range(runs + 1):
        srv = Server(exe, os.path.dirname(corpus), log, {"GNAW_MCP_MAX_OUTPUT_BYTES": str(1 << 30)})
        srv.initialize()
        srv.request("tools/list", {})
        t_list = time.perf_counter() - srv.start
        c = call("extract", {"repo": name, "budget": 50000})
        t_first = time.perf_counter() - srv.start
        w = call("extract", {"repo": name, "budget": 50000})
        srv.close()
        if r > 0:
            lst.append(t_list)
            first.append(t_first)
            warm.append(w)
    res["startup"] = {"tools/list": lst, "first extract": first, "warm extract": warm}
    return res


def grep_only_block(bins, base_bins, corpus, runs, scratch, log):
    """Issue 24's grep rows alone (`--grep-only`): `gnaw grep` (this build, and a baseline
    build when `base_bins` is given) against rg, CLI cold, whole process, for both patterns,
    every command once per round in a rotating order; then each build's gnaw-mcp `grep`, warm.
    The baseline's answer must be byte-identical to this build's (checked on every round)."""
    name = os.path.basename(corpus)
    rg = find_exe(os.path.join(PEERS, "cargo", "bin", "rg"), "rg")
    builds = {"gnaw": bins}
    if base_bins:
        builds["gnaw (baseline)"] = base_bins
    res = {"rg": version(rg) if rg else None, "grep": {}, "warm": {}}
    for pat in (ISSUE_PATTERN, NAV_PATTERN):
        cmds = {k: [os.path.join(b, "gnaw"), "grep", corpus, pat, "--budget", "0",
                    "-m", "100000000"] for k, b in builds.items()}
        if rg:
            cmds["rg"] = [rg, "--no-config", "-n", pat, corpus]
        keys = list(cmds)
        got = {k: {"t": [], "rss": [], "cpu": []} for k in keys}
        for r in range(runs + 1):
            outs = {}
            # Rotate who goes first, so no command always follows the same one.
            for k in keys[r % len(keys):] + keys[:r % len(keys)]:
                out = os.path.join(scratch, f"grep-only-{len(outs)}.txt")
                t, kib, code, _, c = small_rss_run(cmds[k], out)
                if code not in (0, 1):
                    raise RuntimeError(f"{k} exited {code} for {pat}")
                with open(out, "rb") as f:
                    outs[k] = f.read()
                if r > 0:
                    got[k]["t"].append(t)
                    got[k]["rss"].append(kib)
                    got[k]["cpu"].append(c)
            if base_bins and outs["gnaw"] != outs["gnaw (baseline)"]:
                raise RuntimeError(f"the answers to {pat} differ from the baseline's")
        res["grep"][pat] = got
    for k, b in builds.items():
        srv = Server(os.path.join(b, "gnaw-mcp"), os.path.dirname(corpus), log)
        srv.initialize()
        gargs = {"repo": name, "pattern": ISSUE_PATTERN, "budget": 0}
        times = []
        for _ in range(runs + 1):
            t = time.perf_counter()
            out = srv.request("tools/call", {"name": "grep", "arguments": gargs})
            times.append(time.perf_counter() - t)
            if out.get("isError"):
                raise RuntimeError(f"grep failed: {str(out)[:500]}")
        srv.close()
        res["warm"][k] = {"cold": times[0], "warm": times[1:]}
    return res


def grep_only_report(res):
    rgv = res["rg"] or "rg not installed (--install-peers)"
    print(f"grep against {rgv} (ratios within this run; spreads are min–max over the runs):\n")
    print("| pattern | command | wall (median, min–max) | CPU user+sys | peak RSS | wall / rg | "
          "CPU / rg | RSS / rg | wall ≤ 1.5x rg |")
    print("|---|---|---|---|---|---|---|---|---|")
    for pat, got in res["grep"].items():
        rg = got.get("rg")
        rt = median(rg["t"]) if rg else None
        rc = median(rg["cpu"]) if rg else None
        rr = median([x for x in rg["rss"] if x]) if rg else None
        for k, v in got.items():
            t, c = median(v["t"]), median(v["cpu"])
            rss = median([x for x in v["rss"] if x])
            ratio = lambda a, b: f"{a / b:.2f}x" if a and b else "n/a"
            met = "" if k == "rg" or not rt else ("met" if t / rt <= 1.5 else "**MISSED**")
            print(f"| `{pat}` | {k} | {fmt_s(t)} ({spread(v['t'])}) | {fmt_s(c)} | "
                  f"{rss / 1024:.1f} MiB | {ratio(t, rt)} | {ratio(c, rc)} | {ratio(rss, rr)} | "
                  f"{met} |")
    rg = res["grep"][ISSUE_PATTERN].get("rg")
    rt = median(rg["t"]) if rg else None
    for k, v in res["warm"].items():
        w = median(v["warm"])
        print(f"| `{ISSUE_PATTERN}` | {k}, gnaw-mcp `grep` warm (first call {fmt_s(v['cold'])}) | "
              f"{fmt_s(w)} ({spread(v['warm'])}) | | | {w / rt:.2f}x | | | "
              f"{'faster: met' if rt and w < rt else 'not faster: **MISSED**'} |"
              if rt else f"| `{ISSUE_PATTERN}` | {k}, gnaw-mcp `grep` warm | {fmt_s(w)} | | | | | | |")
    print()


def issue24_report(res, med):
    print("Issue 24 (ratios within this run; spreads are min–max over the runs):\n")
    print("| what | gnaw | baseline | ratio | target | |")
    print("|---|---|---|---|---|---|")

    def row(what, a, b, goal, ok, extra=""):
        ratio = f"{a / b:.2f}x" if a and b else "n/a"
        met = "n/a" if ok is None else ("met" if ok else "**MISSED**")
        print(f"| {what} | {extra and extra[0] or fmt_s(a)} | {extra and extra[1] or fmt_s(b)} "
              f"| {ratio} | {goal} | {met} |")

    rgv = res["rg"] or "rg not installed (--install-peers)"
    for pat, got in res["grep"].items():
        gn = got["gnaw"]
        rgt = got.get("rg")
        a, b = median(gn["t"]), median(rgt["t"]) if rgt else None
        row(f"`gnaw grep` vs `{rgv}`, `{pat}`, CLI cold, whole process", a, b, "≤ 1.5x",
            a / b <= 1.5 if a and b else None,
            (f"{fmt_s(a)} ({spread(gn['t'])})", f"{fmt_s(b)} ({spread(rgt['t'])})" if rgt else "n/a"))
        ra = median([x for x in gn["rss"] if x])
        rb = median([x for x in rgt["rss"] if x]) if rgt else None
        row(f"  peak RSS of the same", ra, rb, "≤ 2x", ra / rb <= 2 if ra and rb else None,
            (f"{ra / 1024:.1f} MiB" if ra else "n/a", f"{rb / 1024:.1f} MiB" if rb else "n/a"))
        ca, cb = median(gn["cpu"]), median(rgt["cpu"]) if rgt else None
        row(f"  CPU time (user+sys) of the same", ca, cb, "", None)
    gw = median(res["server"]["grep warm"])
    rgt = res["grep"][ISSUE_PATTERN].get("rg")
    rb = median(rgt["t"]) if rgt else None
    row(f"gnaw-mcp `grep` warm vs rg (CLI), `{ISSUE_PATTERN}`", gw, rb, "faster (< 1x)",
        gw < rb if gw and rb else None)
    a, b = med.get("gnaw --compress"), med.get("gnaw extract")
    row("`gnaw --compress` vs `gnaw` extract, CLI cold (no budget)", a, b, "≤ 2x",
        a / b <= 2 if a and b else None)
    for budget in (0, 50000):
        a = median(res["server"][f"compress {budget}"])
        b = median(res["server"][f"extract {budget}"])
        ce, cc = res["server"][f"cold {budget}"]
        what = "unlimited (whole prompt returned)" if budget == 0 else f"budget {budget:,}"
        row(f"gnaw-mcp `extract` compress vs plain, warm, {what}", a, b, "≤ 2x",
            a / b <= 2 if a and b else None)
        if budget == 0:
            row("  the same, first call of each (extract first; compress then reuses the texts it read)", cc, ce, "≤ 2x",
                cc / ce <= 2 if cc and ce else None)
    st = res["startup"]
    t = median(st["tools/list"])
    row("gnaw-mcp spawn to the `tools/list` answer", t, None, "≤ 20 ms", t <= 0.020 if t else None,
        (f"{fmt_s(t)} ({spread(st['tools/list'])})", ""))
    a, b = median(st["first extract"]), median(st["warm extract"])
    row("gnaw-mcp spawn to the first `extract` (budget 50,000) vs that call warm", a, b, "≤ 2x",
        a / b <= 2 if a and b else None)
    print()


# ---------------------------------------------------------------- git tools (changes, log)

def git_env(home):
    env = {"PATH": os.environ.get("PATH", ""), "HOME": home, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
           "GIT_PAGER": "cat", "PAGER": "cat"}
    return env


def git_block(bins, corpus, history, runs, scratch):
    """`gnaw changes` and `gnaw log` in every shape, each against the git command that does the
    same work on the same tree, in the same run, alternating round by round. Medians over `runs`
    after a warm-up; nothing is asserted. The shapes (GIT_SHAPES says which git commands are the
    baselines):

    - `few`: the corpus committed to a fresh repository (loose objects, as after a first
      commit), 20 text files then modified;
    - `untracked`: the same plus 2,000 new untracked text files spread over its directories;
    - `renames`: the corpus committed, 50 files moved with `git mv` (10 of them also edited);
    - `big`: the corpus copied into enough subdirectories for about 20,000 index entries,
      committed, 20 files modified;
    - `range`: a clone of a real history (this project's by default), clean, against HEAD~40;
    - `log`: the same clone, `log -n 1000`.
    """
    git = shutil.which("git")
    if not git:
        return None
    g = os.path.join(bins, "gnaw")
    home = os.path.join(scratch, "githome")
    os.makedirs(home, exist_ok=True)
    env = git_env(home)
    root = os.path.join(scratch, "gitroot")

    def sh(repo, *argv, **kw):
        return subprocess.run([git, "-C", repo, *argv], env=env, check=True,
                              stdout=subprocess.DEVNULL, **kw)

    def fresh(name, copies=1):
        """The corpus (`copies` times, in subdirectories when more than one) committed."""
        repo = os.path.join(root, name)
        if os.path.exists(repo):
            shutil.rmtree(repo)
        if copies == 1:
            shutil.copytree(corpus, repo, symlinks=True)
        else:
            for k in range(copies):
                # Hard links: the copies cost no disk; files are rewritten before any edit.
                shutil.copytree(corpus, os.path.join(repo, f"copy{k:02}"), symlinks=True,
                                copy_function=os.link)
        for argv in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "corpus"]):
            sh(repo, *argv)
        return repo

    def texts(repo):
        out = []
        for dirpath, dirs, files in os.walk(repo):
            dirs[:] = sorted(d for d in dirs if d != ".git")
            for fn in sorted(files):
                if fn.endswith((".rs", ".py", ".js", ".ts", ".go", ".c", ".md", ".txt")):
                    out.append(os.path.join(dirpath, fn))
        return out

    def edit(paths):
        for path in paths:
            with open(path, "rb") as f:
                data = f.read()
            os.unlink(path)  # a hard-linked copy is not edited through its twin
            with open(path, "wb") as f:
                f.write(data + b"\n// changed for the benchmark\n")

    def spaced(xs, n):
        return xs[::max(1, len(xs) // n)][:n]

    shapes = {}
    repo = fresh("repo")
    files = texts(repo)
    edit(spaced(files, 20))
    shapes["few"] = {"repo": repo, "what": f"20 of {len(files):,} text files modified"}
    # Untracked: 2,000 new files among the existing directories, in a twin repository too,
    # where they are intent-to-add (`git add -N`) so that `git diff HEAD` shows their content as
    # gnaw shows an untracked file's.
    urepo = os.path.join(root, "untracked")
    if os.path.exists(urepo):
        shutil.rmtree(urepo)
    shutil.copytree(repo, urepo, symlinks=True)
    dirs = sorted({os.path.dirname(f) for f in texts(urepo)})
    for k in range(2000):
        d = dirs[(k * 7919) % len(dirs)]
        with open(os.path.join(d, f"untracked_{k:04}.txt"), "w") as f:
            f.write("".join(f"untracked line {i} of file {k}\n" for i in range(20)))
    twin = os.path.join(root, "untracked-twin")
    if os.path.exists(twin):
        shutil.rmtree(twin)
    shutil.copytree(urepo, twin, symlinks=True)
    sh(twin, "add", "-N", ".")
    shapes["untracked"] = {"repo": urepo, "twin": twin,
                           "what": "20 modified and 2,000 untracked files"}
    rrepo = fresh("renames")
    rfiles = spaced(texts(rrepo), 50)
    for k, path in enumerate(rfiles):
        rel = os.path.relpath(path, rrepo)
        new = os.path.join(os.path.dirname(rel), "moved_" + os.path.basename(rel))
        sh(rrepo, "mv", rel, new)
        if k % 5 == 0:
            edit([os.path.join(rrepo, new)])
    shapes["renames"] = {"repo": rrepo, "what": "50 files moved with git mv, 10 also edited"}
    n = max(1, len(files))
    copies = max(1, min(40, -(-20000 // n)))
    brepo = fresh("big", copies)
    bfiles = texts(brepo)
    edit(spaced(bfiles, 20))
    entries = subprocess.run([git, "-C", brepo, "ls-files"], env=env, capture_output=True,
                             check=True).stdout.count(b"\n")
    shapes["big"] = {"repo": brepo, "what": f"{entries:,} index entries, 20 files modified"}
    # A real history: a clone of the given repository (this project's own by default).
    hist = os.path.join(root, "history")
    if os.path.exists(hist):
        shutil.rmtree(hist)
    cl = subprocess.run([git, "clone", "-q", "--no-local", history, hist], env=env,
                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    commits = None
    if cl.returncode == 0:
        commits = subprocess.run([git, "-C", hist, "rev-list", "--count", "HEAD"], env=env,
                                 capture_output=True, text=True).stdout.strip()
        if int(commits or 0) > 40:
            shapes["range"] = {"repo": hist, "base": "HEAD~40",
                               "what": f"a clean clone of {commits} commits against HEAD~40"}
        shapes["log"] = {"repo": hist, "what": f"{commits} commits"}
    # The state after a `git status`: stat data current (a copy's inodes, a hard link's ctime),
    # so both tools read only the files that changed.
    for shape in shapes.values():
        for r in (shape["repo"], shape.get("twin")):
            if r:
                subprocess.run([git, "-C", r, "update-index", "-q", "--refresh"], env=env,
                               stdout=subprocess.DEVNULL)
    res = {"shapes": {}}
    for name, shape in shapes.items():
        repo = shape["repo"]
        if name == "log":
            tools = {
                "gnaw": [[g, "log", repo, "-n", "1000", "--budget", "0"]],
                "git": [[git, "-C", repo, "log", "--numstat", "--no-renames", "--date=iso",
                         "-n", "1000"]],
            }
        else:
            base = shape.get("base")
            gnaw = [g, "changes", repo, *([base] if base else []), "--budget", "0"]
            diff = [git, "-C", repo, "diff", "--no-color", "--no-ext-diff", "-M", "-U3",
                    base or "HEAD"]
            others = [git, "-C", repo, "ls-files", "--others", "--exclude-standard"]
            tools = {"gnaw": [gnaw], "git": [diff], "git+untracked": [diff, others]}
            if shape.get("twin"):
                tools["git twin"] = [[*diff[:2], shape["twin"], *diff[3:]]]
        times = {k: [] for k in tools}
        cpu = {k: [] for k in tools}
        for r in range(runs + 1):
            for k, argvs in tools.items():
                total, total_cpu = 0.0, 0.0
                for i, argv in enumerate(argvs):
                    t, _, code, _, c = run(argv, env=env,
                                           stdout_path=os.path.join(scratch, f"git-{name}-{k}-{i}.txt"))
                    if code != 0:
                        print(f"    git {name}: {k} exited {code}", file=sys.stderr)
                    total += t
                    total_cpu += c
                if r > 0:
                    times[k].append(total)
                    cpu[k].append(total_cpu)
        res["shapes"][name] = {"what": shape["what"], "samples": times, "cpu": cpu,
                               "argv": {k: [" ".join(os.path.basename(a[0]) if i == 0 else a[i]
                                                     for i in range(len(a))) for a in v]
                                        for k, v in tools.items()}}
    res["commits"] = commits
    return res


# The git command each shape's ratio is taken against, as the report states it.
GIT_SHAPES = {
    "few": "`git diff -M HEAD` + `git ls-files --others --exclude-standard`",
    "untracked": "`git diff -M HEAD` + `git ls-files --others --exclude-standard`",
    "renames": "`git diff -M HEAD` + `git ls-files --others --exclude-standard`",
    "big": "`git diff -M HEAD` + `git ls-files --others --exclude-standard`",
    "range": "`git diff -M HEAD~40` + `git ls-files --others --exclude-standard`",
    "log": "`git log --numstat --no-renames --date=iso -n 1000`",
}


def git_report(gitres):
    print("Git tools in every shape (gnaw reads .git in-process; git is the baseline, same tree, "
          "same run; spreads are min–max):\n")
    print("| shape | gnaw | git diff / log alone | like for like | ratio to like for like | "
          "ratio to git alone | CPU ratio to like for like | target ≤ 2x |")
    print("|---|---|---|---|---|---|---|---|")
    for name, s in gitres["shapes"].items():
        smp = s["samples"]
        a = median(smp["gnaw"])
        alone = median(smp["git"])
        like = median(smp.get("git+untracked", smp["git"]))
        ok = a is not None and like and a / like <= 2
        cmd = "`gnaw log -n 1000`" if name == "log" else "`gnaw changes`"
        c = s.get("cpu", {})
        ca, cl = median(c.get("gnaw", [])), median(c.get("git+untracked", c.get("git", [])))
        cratio = f"{ca / cl:.2f}x ({ca * 1e3:.0f} / {cl * 1e3:.0f} ms)" if ca and cl else "n/a"
        print(f"| {name}: {s['what']}; {cmd} vs {GIT_SHAPES[name]} | {fmt_s(a)} "
              f"({spread(smp['gnaw'])}) | {fmt_s(alone)} ({spread(smp['git'])}) | {fmt_s(like)} | "
              f"{a / like:.2f}x | {a / alone:.2f}x | {cratio} | {'met' if ok else '**MISSED**'} |"
              if a and like and alone else f"| {name} | n/a | | | | | | |")
        if "git twin" in smp:
            t = median(smp["git twin"])
            print(f"| {name}, content too: `git diff -M HEAD` on a twin where the untracked "
                  f"files are intent-to-add (git prints all 2,000; gnaw the first 1,000) | "
                  f"{fmt_s(a)} | {fmt_s(t)} ({spread(smp['git twin'])}) | | {a / t:.2f}x | | | |")
    print()


# ---------------------------------------------------------------- the run

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bins", required=True, help="target/release")
    ap.add_argument("--corpus", required=True, help="the corpus directory")
    ap.add_argument("--peers", required=True, help="the peers' cache dir")
    ap.add_argument("--scratch", required=True, help="a scratch dir for outputs")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--hostile", help="a dir holding one 4 MB line without whitespace")
    ap.add_argument("--json", help="write the raw results here")
    ap.add_argument("--no-nav", action="store_true", help="skip the navigation rows")
    ap.add_argument("--no-git", action="store_true", help="skip the git tools' rows")
    ap.add_argument("--only-git", action="store_true",
                    help="measure only the git tools' shapes (changes, log) and report them")
    ap.add_argument("--no-issue24", action="store_true",
                    help="skip issue 24's rows (grep vs rg, compress warm, startup)")
    ap.add_argument("--grep-only", action="store_true",
                    help="only issue 24's grep rows: gnaw grep against rg, cold and warm")
    ap.add_argument("--base-bins", help="with --grep-only: a baseline build's directory, "
                    "measured in the same rounds (its answers must be identical)")
    ap.add_argument("--history", default=os.path.join(os.path.dirname(__file__), "..", ".."),
                    help="a git repository whose history `log` reads (default: this project)")
    a = ap.parse_args()

    corpus = os.path.abspath(a.corpus)
    name = os.path.basename(corpus)
    global PEERS
    PEERS = a.peers
    os.makedirs(a.scratch, exist_ok=True)
    gnaw = os.path.join(a.bins, "gnaw")
    if a.only_git:
        gitres = git_block(a.bins, corpus, a.history, a.runs, a.scratch)
        if a.json:
            with open(a.json, "w") as f:
                json.dump({"corpus": name, "runs": a.runs, "git": gitres}, f, indent=1)
        if gitres:
            git_report(gitres)
        return
    if a.grep_only:
        with open(os.path.join(a.scratch, "gnaw-mcp.log"), "ab") as log:
            res = grep_only_block(a.bins, a.base_bins, corpus, a.runs, a.scratch, log)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(res, f, indent=1)
        grep_only_report(res)
        return

    # What gnaw selects: the floor counts exactly these files.
    summary_path = os.path.join(a.scratch, f"{name}.summary.json")
    with open(summary_path, "wb") as f:
        subprocess.run([gnaw, corpus, "--json", "-q", "-o", os.devnull], stdout=f, check=True)
    with open(summary_path) as f:
        summary = json.load(f)
    list_path = os.path.join(a.scratch, f"{name}.files")
    with open(list_path, "w") as f:
        f.writelines(e["path"] + "\n" for e in summary["file_list"])

    tools = [(label, argv, None, "") for label, argv in gnaw_tools(a.bins, corpus)]
    peers = [] if a.no_peers else peer_tools(a.peers, corpus)
    tools += peers
    floor_exe = os.path.join(a.bins, "examples", "count_floor")

    times = {label: [] for label, *_ in tools}
    cpu = {label: [] for label, *_ in tools}
    dropped = {}
    rss = {label: [] for label, *_ in tools}
    printed = {}
    floor = []
    mcp = {"init": [], "cold": [], "warm": [], "rss": [], "tokens": None}
    mcp_log = open(os.path.join(a.scratch, "gnaw-mcp.log"), "ab")
    rounds = a.runs + 1  # round 0 is the warm-up
    for r in range(rounds):
        print(f"  {name}: round {r + 1}/{rounds}{' (warm-up)' if r == 0 else ''}",
              file=sys.stderr, flush=True)
        # Alternate: every tool once per round, so a slow spell on the shared machine hits all.
        for label, argv, env, _ in tools:
            if label in dropped:
                continue
            # Only the peers that print their token count get their output captured; the
            # others write to /dev/null, as gnaw does.
            capture = label in ("code2prompt", "repomix")
            out = os.path.join(a.scratch, "stdout.txt") if capture else os.devnull
            t, kib, code, text, c = run(argv, env=env, stdout_path=out)
            if code != 0:
                why = f"killed after {TIMEOUT_S} s" if t >= TIMEOUT_S else f"exited {code}"
                print(f"    {label} {why}; dropped from this corpus", file=sys.stderr)
                dropped[label] = why
                continue
            if r > 0:
                times[label].append(t)
                rss[label].append(kib)
                cpu[label].append(c)
            printed[label] = text
        out = os.path.join(a.scratch, "floor.json")
        _, _, code, text, _ = run([floor_exe, corpus, list_path, "1"], stdout_path=out)
        if code == 0 and r > 0:
            f = json.loads(text)
            floor.append((f["build_ms"] + f["runs_ms"][0]) / 1e3)
            floor_tokens = f["tokens"]
        init, cold, warm, tok, kib = server_round(os.path.join(a.bins, "gnaw-mcp"),
                                                  os.path.dirname(corpus), name, mcp_log)
        if r > 0:
            mcp["init"].append(init)
            mcp["cold"].append(cold)
            mcp["warm"].append(warm)
            mcp["rss"].append(kib)
            mcp["tokens"] = tok

    hostile = {}
    if a.hostile:
        for d in sorted(os.listdir(a.hostile)):
            path = os.path.join(a.hostile, d)
            argv = [gnaw, path, "--estimate", "-q", "--max-file-size", "8MiB"]
            samples = [run(argv, stdout_path=os.path.join(a.scratch, "h.txt"))
                       for _ in range(max(3, a.runs // 2))]
            hostile[d] = (median([s[0] for s in samples]), samples[0][3].strip())

    nav = None if a.no_nav else nav_block(a.bins, corpus, a.runs, a.scratch, mcp_log)
    gitres = None if a.no_git else git_block(a.bins, corpus, a.history, a.runs, a.scratch)
    i24 = None if a.no_issue24 else issue24_block(a.bins, corpus, a.runs, a.scratch, mcp_log)

    # How many files each peer emitted, where its output shows it (one untimed run).
    peer_files = {}
    for label, argv, env, _ in peers:
        if label == "yek" and label not in dropped:
            out = os.path.join(a.scratch, "yek.out")
            run(argv, env=env, stdout_path=out)
            with open(out, "rb") as f:
                peer_files[label] = sum(1 for line in f if line.startswith(b">>>> "))
        elif label == "repomix":
            m = re.search(r"Total Files:\s*([\d,]+)", printed.get(label, ""))
            peer_files[label] = int(m.group(1).replace(",", "")) if m else None

    med = {k: median(v) for k, v in times.items()}
    res = {
        "corpus": name, "files": summary["files"], "bytes": summary["bytes"],
        "output_bytes": summary["output_bytes"], "tokens": summary["tokens"],
        "runs": a.runs, "median_s": med, "samples_s": times, "dropped": dropped,
        "cpu_s": {k: median(v) for k, v in cpu.items()},
        "peak_rss_kib": {k: max(v) if v else None for k, v in rss.items()},
        "floor_s": median(floor), "floor_samples_s": floor,
        "mcp": {k: (median(v) if k != "tokens" else v) for k, v in mcp.items()},
        "mcp_samples": mcp, "hostile": hostile,
        "peer_files": peer_files,
        "peer_tokens": {p[0]: peer_tokens(p[0], printed.get(p[0], "")) for p in peers},
        "versions": {p[0]: version(p[1][0]) for p in peers},
        "nav": nav,
        "git": gitres,
        "issue24": i24,
    }
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)
    report(res, peers, floor_tokens if floor else None)


def report(res, peers, floor_tokens):
    med = res["median_s"]
    ext = med.get("gnaw extract")
    print(f"### Corpus `{res['corpus']}`: {res['files']:,} files, "
          f"{res['bytes'] / 1e6:.1f} MB; output {res['output_bytes'] / 1e6:.1f} MB, "
          f"{res['tokens']:,} o200k tokens; median of {res['runs']} runs after a warm-up\n")
    print("| what | median wall | vs gnaw extract | median CPU (user+sys) | peak RSS | how it counts |")
    print("|---|---|---|---|---|---|")
    how = {p[0]: p[3] for p in peers}
    how.update({
        "gnaw extract": "bpe-openai o200k_base, exact, per file piece in parallel",
        "gnaw --estimate": "same count, prompt not kept",
        "gnaw --compress": "skeletons (tree-sitter parse of every file), counted exactly",
        "gnaw --no-count": "no counting",
        "gnaw --secrets off": "as extract, secrets scan off",
        "gnaw --no-count --secrets off": "no counting, no secrets scan (as yek does neither)",
    })
    for label, t in med.items():
        kib = res["peak_rss_kib"].get(label)
        ratio = f"{t / ext:.2f}x" if t and ext else res["dropped"].get(label, "n/a")
        tok = res["peer_tokens"].get(label)
        extra = f"; printed {tok:,} tokens" if tok else ""
        nfiles = res["peer_files"].get(label)
        extra += f"; emitted {nfiles:,} files" if nfiles else ""
        ver = res["versions"].get(label, label)
        ver = ver if label in ver else f"{label} {ver}"
        mem = f"{kib / 1024:.0f} MiB" if kib else "n/a"
        print(f"| {ver} | {fmt_s(t)} | {ratio} | {fmt_s(res['cpu_s'].get(label))} | {mem} "
              f"| {how.get(label, '')}{extra} |")
    fl = res["floor_s"]
    print(f"| count-only floor (examples/count_floor) | {fmt_s(fl)} | {fl / ext:.2f}x | | | "
          f"count_many over the same files, preloaded; tables built once"
          f"{f' ({floor_tokens:,} tokens in the files)' if floor_tokens else ''} |")
    m = res["mcp"]
    print(f"| gnaw-mcp `initialize` (spawn to answer) | {fmt_s(m['init'])} | | | | |")
    print(f"| gnaw-mcp `estimate`, cold | {fmt_s(m['cold'])} | {m['cold'] / ext:.2f}x | | "
          f"{max(res['mcp_samples']['rss']) / 1024:.0f} MiB | budget 0 (unlimited) |")
    print(f"| gnaw-mcp `estimate`, warm (same process) | {fmt_s(m['warm'])} | "
          f"{m['warm'] / ext:.3f}x | | | tokens cold, warm: {', '.join(f'{t:,}' for t in m['tokens'])} |")
    for d, (t, out) in res["hostile"].items():
        print(f"| one 4 MiB line, no whitespace: {d} (`gnaw --estimate`) | {fmt_s(t)} | | | | "
              f"{out} |")
    print()

    if res.get("nav"):
        nav_report(res["nav"])
    if res.get("git"):
        git_report(res["git"])
    if res.get("issue24"):
        issue24_report(res["issue24"], med)

    # The targets of issue 6 (ratios in one run).
    rows = []

    def target(what, goal, value, ok, why=""):
        rows.append(f"| {what} | {goal} | {value} | {'met' if ok else 'MISSED'}{why} |")

    def peer_ratio(peer, goal):
        t = med.get(peer)
        if t and ext:
            target(f"extract vs {peer}", f"≥ {goal}x faster", f"{t / ext:.2f}x", t / ext >= goal)
        else:
            target(f"extract vs {peer}", f"≥ {goal}x faster", "not installed", False,
                   " (not measured)")

    peer_ratio("code2prompt", 3)
    peer_ratio("repomix", 4)
    target("extract vs count-only floor", "within 1.3x", f"{ext / fl:.2f}x", ext / fl <= 1.3)
    comp = med.get("gnaw --compress")
    if comp:
        target("--compress vs extract (issue 15)", "within 2x", f"{comp / ext:.2f}x", comp / ext <= 2)
    nc, yek = med.get("gnaw --no-count"), med.get("yek")
    if nc and yek:
        target("--no-count vs yek", "no slower (≤ 1.0x)", f"{nc / yek:.2f}x of yek's time",
               nc <= yek)
        bare = med.get("gnaw --no-count --secrets off")
        if bare:
            target("--no-count --secrets off vs yek", "(same, without the scan yek lacks)",
                   f"{bare / yek:.2f}x of yek's time", bare <= yek)
    else:
        target("--no-count vs yek", "no slower", "yek not installed", False, " (not measured)")
    speed = m["cold"] / m["warm"]
    target("warm server estimate vs cold", "≥ 20x faster", f"{speed:.1f}x", speed >= 20)
    target("`initialize` answered", "< 10 ms", fmt_s(m["init"]), m["init"] < 0.010)
    if res["hostile"]:
        worst = max(t for t, _ in res["hostile"].values())
        target("one 4 MB line, no whitespace", "< 1 s", fmt_s(worst), worst < 1)
    peak = res["peak_rss_kib"]["gnaw extract"] * 1024
    bound = 2 * res["output_bytes"] + 64 * 2**20
    target("peak RSS of extract", "≤ 2x output + 64 MiB",
           f"{peak / 2**20:.0f} MiB (bound {bound / 2**20:.0f} MiB)", peak <= bound)
    off, warn = med.get("gnaw --secrets off"), ext
    share = (warn - off) / warn if off and warn else None
    coff, cwarn = res["cpu_s"].get("gnaw --secrets off"), res["cpu_s"].get("gnaw extract")
    cshare = (cwarn - coff) / cwarn if coff and cwarn else None
    print("| target | goal | measured | |")
    print("|---|---|---|---|")
    print("\n".join(rows))
    if share is not None:
        print(f"\nSecrets scan (default `warn` vs `--secrets off`): {fmt_s(warn)} vs {fmt_s(off)}, "
              f"i.e. {share * 100:.1f}% of extract's wall time; CPU {fmt_s(cwarn)} vs "
              f"{fmt_s(coff)}, i.e. {cshare * 100:.1f}% of its CPU time.")
    print()


if __name__ == "__main__":
    main()
