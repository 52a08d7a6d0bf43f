#!/usr/bin/env bash
# proxy-nginx.sh: two `gnaw-mcp --listen` instances behind nginx, run with contrib/nginx/gnaw-mcp.conf
# (its ports, certificate and log paths replaced; everything else as shipped), checked through
# the proxy: 401 and the metadata under GNAW_MCP_PUBLIC_URL, Origin (a loopback origin refused,
# the public URL's own origin served), the audit naming the client behind nginx (the test
# client connects from 127.0.0.2) with nginx's $request_id as its request_id, X-Forwarded-For
# ignored from an untrusted peer, 2026-07-28 calls spread over both instances (counted in each
# one's audit lines), an SSE answer streamed, a call cancelled by closing its connection,
# legacy sessions kept on one instance, nginx's connections exempt from the per-address bound
# (GNAW_MCP_TRUSTED_PROXIES) while a direct client is held to it, chunked and oversized
# bodies, TLS, the port-80 redirect, and one instance killed: stateless calls go on, its
# legacy sessions are 404 and re-initialized. One instance takes its settings from the
# environment; the other from `--config FILE`, with its audit trail on descriptor 3.
# The checks are in scripts/proxy-nginx.py; this wrapper finds (or installs) nginx.
#
# nginx runs as the current user from a temp prefix on free loopback ports (no root needed).
# When nginx is missing it is installed with apt-get (nginx-light) when running as root, as CI
# does on a fresh Debian 12; otherwise the script fails, unless GNAW_PROXY_TEST_SKIP=1 lets it
# skip (exit 0, with a line saying so).
#
# Usage: scripts/proxy-nginx.sh [--binary PATH]   (default: the debug build)
# Env:   GNAW_PROXY_KEEP=1 keeps the temp dir (configs, logs) and prints its path.
set -euo pipefail
cd "$(dirname "$0")/.."

binary="${CARGO_TARGET_DIR:-target}/debug/gnaw-mcp"
if [ "${1:-}" = "--binary" ]; then
    binary="$2"
fi
[ -x "$binary" ] || { echo "proxy-nginx.sh: no binary at $binary; build it first (cargo build)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "proxy-nginx.sh: python3 is needed" >&2; exit 2; }

find_nginx() {
    command -v nginx 2>/dev/null || { [ -x /usr/sbin/nginx ] && echo /usr/sbin/nginx; } || true
}
nginx="$(find_nginx)"
if [ -z "$nginx" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "proxy-nginx.sh: installing nginx-light with apt-get"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
        nginx="$(find_nginx)"
    fi
fi
if [ -z "$nginx" ]; then
    if [ "${GNAW_PROXY_TEST_SKIP:-}" = 1 ]; then
        echo "proxy-nginx.sh: SKIPPED: nginx is not installed (GNAW_PROXY_TEST_SKIP=1)"
        exit 0
    fi
    echo "proxy-nginx.sh: nginx is not installed; install it (apt-get install nginx-light)," \
        "run as root to have it installed, or set GNAW_PROXY_TEST_SKIP=1 to skip" >&2
    exit 2
fi
openssl="$(command -v openssl || true)"

exec python3 scripts/proxy-nginx.py --binary "$binary" --nginx "$nginx" \
    --openssl "${openssl:-}" --conf contrib/nginx/gnaw-mcp.conf
