#!/usr/bin/env bash
# gnaw-mcp interop: the EOF check. Pipes, all at once and with stdin then closed, an
# `initialize`, `notifications/initialized`, two `tools/call`s (a valid `estimate` and one with an
# escaping `repo`) and a `ping` into the server. A client that writes its requests and closes its
# end (a shell pipeline, a batch job) must still get every answer: each id is answered once (in
# any order) and the server exits 0. Prints ok/FAIL lines for scripts/interop.sh.
#
# Usage: tests/interop/eof.sh BIN ROOT        (ROOT holds the sample repo `repo`)
set -euo pipefail

bin="${1:?usage: eof.sh BIN ROOT}"
root="${2:?usage: eof.sh BIN ROOT}"
here="$(cd "$(dirname "$0")" && pwd)"

if ! command -v python3 >/dev/null 2>&1; then
    echo "skip eof: python3 not found (it reads the server's answers)"
    exit 0
fi

scratch="$(mktemp -d "${TMPDIR:-/tmp}/gnaw-eof-XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

set +e
printf '%s\n' \
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"gnaw-interop-eof","version":"0"}}}' \
    '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
    '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"estimate","arguments":{"repo":"repo"}}}' \
    '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"estimate","arguments":{"repo":"../.."}}}' \
    '{"jsonrpc":"2.0","id":4,"method":"ping"}' |
    env -i PATH="$PATH" GNAW_MCP_ROOT="$root" RUST_LOG=info timeout 60 "$bin" \
        >"$scratch/stdout" 2>"$scratch/stderr"
status=("${PIPESTATUS[@]}")
set -e

python3 "$here/eof_check.py" "${status[1]}" "$scratch/stdout" "$scratch/stderr"
