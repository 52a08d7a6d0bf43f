#!/usr/bin/env bash
# conformance.sh: run the official MCP conformance suite (@modelcontextprotocol/conformance), pinned
# in two versions, against two servers on loopback, each run with its list of expected failures:
#
#   gnaw-mcp-2025   0.1.16 (the 2025-11-25 eras)            against gnaw-mcp --listen
#   gnaw-mcp-2026   0.2.0-alpha.12 --requirements 2026-07-28 against gnaw-mcp --listen
#   fixture-2025    0.1.16                                   against the fixture server
#   fixture-2026    0.2.0-alpha.12 --requirements 2026-07-28 against the fixture server
#
# The fixture server (examples/conformance_fixture.rs) declares the suite's fixture tools, resources
# and prompts over gnaw-mcp's own protocol layer (the same dispatcher, worker, front door and
# spawner), so the scenarios that call them exercise the code the shipped server runs. Each run's
# list is tests/conformance/RUN.yml (gnaw-mcp-2025-11-25.yml, ...): the suite fails a run when a
# scenario or check not listed fails, or when a listed one passes (a stale list fails).
#
# The suite needs Node 22 or newer; both versions and Node 22 (the npm registry's `node` package)
# are installed with `npm ci` from tests/conformance/package-lock.json under the target directory,
# again only when the lock file changes, so the machine's own Node is not changed.
#
# Usage: scripts/conformance.sh [--binary PATH] [--fixture PATH] [RUN]...   (default: all four)
# Ends with `conformance: N passed, N failed` (runs) and exits 1 when a run failed.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$repo/$target" ;; esac
binary="$target/debug/gnaw-mcp"
fixture="$target/debug/examples/conformance_fixture"
runs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --binary) binary="$2"; shift 2 ;;
        --fixture) fixture="$2"; shift 2 ;;
        gnaw-mcp-2025|gnaw-mcp-2026|fixture-2025|fixture-2026) runs+=("$1"); shift ;;
        -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
        *) echo "conformance.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
done
[ ${#runs[@]} -gt 0 ] || runs=(gnaw-mcp-2025 gnaw-mcp-2026 fixture-2025 fixture-2026)
[ -x "$binary" ] || { echo "conformance.sh: no binary at $binary; build it first (cargo build)" >&2; exit 2; }
if [ "$fixture" = "$target/debug/examples/conformance_fixture" ]; then
    # Always (a no-op when it is up to date): a stale fixture would judge old code.
    echo "== building the fixture server (cargo build --example conformance_fixture)"
    cargo build --quiet --example conformance_fixture
fi
[ -x "$fixture" ] || { echo "conformance.sh: no fixture at $fixture" >&2; exit 2; }
command -v npm >/dev/null || { echo "conformance.sh: npm is needed to install the suite" >&2; exit 2; }

# ------------------------------------------------------------------ the suite, pinned
here="$repo/tests/conformance"
dir="$target/conformance"
stamp="$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)"
if [ "$(cat "$dir/node_modules/.conformance-stamp" 2>/dev/null)" != "$stamp" ]; then
    echo "conformance.sh: npm ci in $dir (tests/conformance/package-lock.json)"
    rm -rf "$dir" && mkdir -p "$dir"
    cp "$here/package.json" "$here/package-lock.json" "$dir/"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    echo "$stamp" >"$dir/node_modules/.conformance-stamp"
fi
node="$dir/node_modules/.bin/node"
echo "node $("$node" --version)"

# ------------------------------------------------------------------ the servers
work="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/root"
printf 'fn main() {}\n' >"$work/root/main.rs"

# start NAME PROGRAM ARGS...: start a server on a free port (port 0: the log names the port it
# bound), and set `port`.
start() {
    local name="$1"; shift
    GNAW_MCP_ROOT="$work/root" RUST_LOG=info "$@" --listen 127.0.0.1:0 2>"$work/$name.log" &
    pids+=($!)
    port=""
    for _ in $(seq 1 100); do
        port="$(sed -n 's#.*listening on http://127.0.0.1:\([0-9]*\)/mcp.*#\1#p' "$work/$name.log")"
        [ -n "$port" ] && return 0
        kill -0 "${pids[-1]}" 2>/dev/null || break
        sleep 0.1
    done
    echo "conformance.sh: $name did not start:" >&2
    tail -n 20 "$work/$name.log" >&2
    exit 1
}
start gnaw-mcp "$binary" --unauthenticated-loopback
gnaw_port="$port"
start fixture "$fixture"
fixture_port="$port"

# ------------------------------------------------------------------ the runs
passed=0 failed=0
for run in "${runs[@]}"; do
    case "$run" in
        gnaw-mcp-*) port="$gnaw_port" log="$work/gnaw-mcp.log" ;;
        fixture-*) port="$fixture_port" log="$work/fixture.log" ;;
    esac
    case "$run" in
        *-2025) suite="$dir/node_modules/conformance-2025/dist/index.js" args=() list="${run%-2025}-2025-11-25.yml" ;;
        *-2026) suite="$dir/node_modules/conformance-2026/dist/index.js" args=(--requirements 2026-07-28) list="${run%-2026}-2026-07-28.yml" ;;
    esac
    echo "== $run: $(basename "$(dirname "$(dirname "$suite")")") ${args[*]} against port $port, expected failures tests/conformance/$list"
    started=$SECONDS
    status=0
    "$node" "$suite" server --url "http://127.0.0.1:$port/mcp" "${args[@]}" \
        --expected-failures "$here/$list" >"$work/$run.out" 2>&1 || status=$?
    # The summary and the baseline's verdict, without the per-scenario progress lines.
    sed -n '/=== SUMMARY ===/,$p' "$work/$run.out"
    if [ "$status" -eq 0 ]; then
        passed=$((passed + 1))
        echo "== $run: passed in $((SECONDS - started)) s"
    else
        failed=$((failed + 1))
        echo "== $run: FAILED (status $status) in $((SECONDS - started)) s; the server's log:"
        grep -v '^{"audit"' "$log" | tail -n 20 || true
    fi
done
echo
echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
