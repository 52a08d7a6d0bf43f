#!/usr/bin/env bash
# conformance.sh: run the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned) against `gnaw-mcp --listen` on loopback, with the scenarios that do not apply to
# gnaw-mcp listed in tests/conformance/expected-failures.yml. Exits with the suite's status:
# 0 when every applicable scenario passes and every listed one still fails (a stale list fails).
#
# The suite needs Node 22 or newer (on Node 20 it fails to load: "fs does not provide an export
# named globSync"); Node 22 comes from the npm registry's `node` package, installed with the
# suite under the target directory, so the machine's own Node is not changed.
#
# Usage: scripts/conformance.sh [--binary PATH]   (default: the debug build)
set -euo pipefail
cd "$(dirname "$0")/.."

target="${CARGO_TARGET_DIR:-target}"
binary="$target/debug/gnaw-mcp"
if [ "${1:-}" = "--binary" ]; then
    binary="$2"
fi
[ -x "$binary" ] || { echo "conformance.sh: no binary at $binary; build it first (cargo build)" >&2; exit 2; }
command -v npm >/dev/null || { echo "conformance.sh: npm is needed to install the suite" >&2; exit 2; }

NODE_VERSION=22.23.3
SUITE_VERSION=0.1.16
dir="$target/conformance"
mkdir -p "$dir"
if [ ! -x "$dir/node_modules/.bin/conformance" ] || [ ! -x "$dir/node_modules/.bin/node" ]; then
    echo "conformance.sh: installing node@$NODE_VERSION and @modelcontextprotocol/conformance@$SUITE_VERSION under $dir"
    (cd "$dir" && npm install --no-audit --no-fund --loglevel=error \
        "node@$NODE_VERSION" "@modelcontextprotocol/conformance@$SUITE_VERSION" >/dev/null)
fi
node="$dir/node_modules/.bin/node"
"$node" --version

root="$(mktemp -d)"
log="$(mktemp)"
server_pid=""
cleanup() {
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    rm -rf "$root" "$log"
}
trap cleanup EXIT
printf 'fn main() {}\n' > "$root/main.rs"

# A free port: bind 0, read what the kernel gave, let it go.
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 18752)"
GNAW_MCP_ROOT="$root" RUST_LOG=warn "$binary" --listen "127.0.0.1:$port" --unauthenticated-loopback \
    2>"$log" &
server_pid=$!
for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
    kill -0 "$server_pid" 2>/dev/null || { echo "conformance.sh: gnaw-mcp exited:" >&2; cat "$log" >&2; exit 1; }
    sleep 0.1
done

status=0
"$node" "$dir/node_modules/.bin/conformance" server --url "http://127.0.0.1:$port/mcp" \
    --expected-failures tests/conformance/expected-failures.yml || status=$?
if [ "$status" -ne 0 ]; then
    echo "conformance.sh: the suite failed (status $status); the server's log:" >&2
    tail -n 40 "$log" >&2
fi
exit "$status"
