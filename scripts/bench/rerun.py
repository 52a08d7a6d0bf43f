#!/usr/bin/env python3
"""Reruns: gnaw with its disk cache cold, warm and off, against repomix with its token-count
cache warm and off, on one corpus, alternating the commands in every round (median wall time).

    python3 scripts/bench/rerun.py CORPUS --gnaw target/release/gnaw \
        [--repomix 'node .../repomix.cjs'] [--runs 7] [--scratch DIR]

- gnaw cold: `gnaw CORPUS -q -o /dev/null` with XDG_CACHE_HOME emptied before the run
- gnaw warm: the same, the cache left from the run before
- gnaw --no-cache: the same with `--no-cache`
- repomix warm: `repomix CORPUS --style markdown --token-count-encoding o200k_base -o /dev/null`
  (security check on, as gnaw's secrets scan is), REPOMIX_TOKEN_CACHE_PATH in the scratch dir,
  primed by a first run
- repomix cold: the same with REPOMIX_TOKEN_CACHE=0 (its cache off)

Both write markdown. Also checks that gnaw's cold, warm and --no-cache outputs are the same
bytes. Standard library only. Round 1 is a warm-up (file cache, repomix's cache) and is dropped.
"""

import argparse
import hashlib
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time


def timed(cmd, env):
    """Wall time, and CPU time (user + sys, from the child's rusage), of one run."""
    start = time.perf_counter()
    child = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        sys.exit(f"{cmd[0]} failed with {child.returncode}")
    return wall, usage.ru_utime + usage.ru_stime


def digest(cmd, env):
    out = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         check=True).stdout
    return hashlib.sha256(out).hexdigest(), len(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("corpus")
    ap.add_argument("--gnaw", required=True)
    ap.add_argument("--repomix", help="the repomix command, e.g. 'node path/to/repomix.cjs'")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--scratch", default="/tmp/gnaw-rerun-bench")
    a = ap.parse_args()

    scratch = os.path.abspath(a.scratch)
    gnaw_cache = os.path.join(scratch, "xdg")
    os.makedirs(scratch, exist_ok=True)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GNAW_", "REPOMIX_"))}
    genv = dict(base, XDG_CACHE_HOME=gnaw_cache)
    gnaw = [a.gnaw, a.corpus, "-q", "-o", "/dev/null"]

    def empty():
        shutil.rmtree(gnaw_cache, ignore_errors=True)

    rows = {}
    commands = [
        ("gnaw cold (cache emptied)", lambda: (empty(), timed(gnaw, genv))[1]),
        ("gnaw warm", lambda: timed(gnaw, genv)),
        ("gnaw --no-cache", lambda: timed(gnaw + ["--no-cache"], genv)),
    ]
    if a.repomix:
        rcmd = shlex.split(a.repomix) + [a.corpus, "--style", "markdown",
                                         "--token-count-encoding", "o200k_base",
                                         "-o", "/dev/null", "--quiet"]
        renv = dict(base, REPOMIX_TOKEN_CACHE_PATH=os.path.join(scratch, "repomix-cache.json"))
        roff = dict(base, REPOMIX_TOKEN_CACHE="0")
        commands += [
            ("repomix warm (token-count cache)", lambda: timed(rcmd, renv)),
            ("repomix cold (REPOMIX_TOKEN_CACHE=0)", lambda: timed(rcmd, roff)),
        ]
    for r in range(a.runs + 1):
        for name, run in commands:
            t = run()
            if r > 0:
                rows.setdefault(name, []).append(t)
        print(f"round {r} done", file=sys.stderr)

    # The same bytes: cold, warm, off.
    stdout_cmd = [a.gnaw, a.corpus, "-q"]
    empty()
    cold = digest(stdout_cmd, genv)
    warm = digest(stdout_cmd, genv)
    off = digest(stdout_cmd + ["--no-cache"], genv)
    cache_file = os.path.join(gnaw_cache, "gnaw", "cache.bin")
    size = os.path.getsize(cache_file) if os.path.exists(cache_file) else 0

    med = {k: statistics.median(w for w, _ in v) for k, v in rows.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in rows.items()}
    print("| what | median wall | min–max wall | median CPU (user+sys) |")
    print("|---|---|---|---|")
    for name, ts in rows.items():
        walls = [w for w, _ in ts]
        print(f"| {name} | {med[name]*1000:.1f} ms | {min(walls)*1000:.1f}–{max(walls)*1000:.1f} ms "
              f"| {cpu[name]*1000:.1f} ms |")
    print()
    print(f"Median of {a.runs} rounds after a warm-up. gnaw's output {cold[1]:,} bytes; "
          f"cold, warm and --no-cache outputs identical: {cold == warm == off}; "
          f"cache file {size:,} bytes.")
    if a.repomix:
        gw, gc = med["gnaw warm"], med["gnaw cold (cache emptied)"]
        rw, rc = med["repomix warm (token-count cache)"], med["repomix cold (REPOMIX_TOKEN_CACHE=0)"]
        print()
        print("| target | goal | measured |")
        print("|---|---|---|")
        print(f"| gnaw warm vs repomix warm | >= 8x faster | {rw / gw:.1f}x |")
        print(f"| gnaw cold vs repomix cold | >= 5x faster | {rc / gc:.1f}x |")
        print(f"| gnaw --no-cache vs repomix cold | | {rc / med['gnaw --no-cache']:.1f}x |")
        print(f"| gnaw warm vs gnaw --no-cache | | {med['gnaw --no-cache'] / gw:.1f}x |")
        cw, cc = cpu["gnaw warm"], cpu["gnaw cold (cache emptied)"]
        print(f"| CPU: gnaw warm vs repomix warm | | "
              f"{cpu['repomix warm (token-count cache)'] / cw:.1f}x |")
        print(f"| CPU: gnaw cold vs repomix cold | | "
              f"{cpu['repomix cold (REPOMIX_TOKEN_CACHE=0)'] / cc:.1f}x |")
    return 0 if cold == warm == off else 1


if __name__ == "__main__":
    sys.exit(main())
