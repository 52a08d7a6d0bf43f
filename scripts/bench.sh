#!/usr/bin/env bash
# gnaw's benchmark harness, one command: builds the release binaries, builds the pinned corpora
# (cargo vendor of scripts/bench/{medium,many}/Cargo.lock), then measures gnaw, its count-only
# floor, gnaw-mcp and the installed peers (yek, code2prompt, repomix), alternating them, and prints
# a markdown report: medians, ratios, and each target of issue 6 met or missed.
#
#   scripts/bench.sh                  # medium and many-files corpora, 5 runs after a warm-up
#   scripts/bench.sh --quick          # smoke run: a small corpus, 1 run (well under 2 minutes)
#   scripts/bench.sh --install-peers  # install yek, code2prompt, repomix, ripgrep into the cache dir, then run
#   scripts/bench.sh --corpora-only   # build the pinned corpora and exit (scripts/same-bytes.sh uses them)
#   scripts/bench.sh --corpus ra --grep-only --runs 21 [--base DIR]
#                                     # issue 24's grep rows only: gnaw grep vs rg, cold and warm,
#                                     # and the gnaw of DIR (a baseline build) in the same rounds
#   options: --corpus medium|many|ra|all  --runs N  --no-peers
#
# Scratch and cache live in $GNAW_BENCH_DIR (default ~/.cache/gnaw-bench): corpus/, peers/,
# results/. It must not be inside a git work tree: repomix and code2prompt honour the enclosing
# repository's .gitignore (this one ignores target/), and would see no files. After the first
# fetch everything runs offline. Needs cargo and python3; the peers need cargo
# (yek, code2prompt) and npm (repomix) to install.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
dir=${GNAW_BENCH_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/gnaw-bench}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if git -C "$dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "bench.sh: $dir is inside a git work tree, whose .gitignore some peers honour;" \
        "set GNAW_BENCH_DIR to a directory outside any repository" >&2
    exit 2
fi
peers="$dir/peers"

corpora="medium many"
runs=5
quick=0
install=0
no_peers=0
corpora_only=0
grep_only=0
base=
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --install-peers) install=1 ;;
        --no-peers) no_peers=1 ;;
        --corpora-only) corpora_only=1 ;;
        --grep-only) grep_only=1 ;;
        --base) base=$(cd "${2:?--base needs a directory}" && pwd); shift ;;
        --runs) runs=${2:?--runs needs a number}; shift ;;
        --corpus)
            case "${2:-}" in
                medium|many|ra) corpora=$2 ;;
                all) corpora="medium many" ;;
                *) echo "bench.sh: --corpus takes medium, many, ra or all" >&2; exit 2 ;;
            esac
            shift ;;
        -h|--help) sed -n "2,20p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
if [ "$quick" = 1 ]; then corpora=small; runs=1; fi

say() { echo "bench: $*" >&2; }

install_peers() {
    if [ "${CI:-}" = true ]; then
        say "refusing --install-peers in CI (CI=true): the benchmark never installs anything there"
        exit 2
    fi
    mkdir -p "$peers"
    say "installing yek and code2prompt with cargo into $peers/cargo (compiles; takes minutes)"
    cargo install --locked --root "$peers/cargo" yek
    cargo install --locked --root "$peers/cargo" code2prompt
    # The grep baseline (issue 24); `rg` on PATH is used when present instead.
    if ! command -v rg >/dev/null; then
        cargo install --locked --root "$peers/cargo" ripgrep
    fi
    if command -v npm >/dev/null; then
        say "installing repomix with npm into $peers/npm"
        npm install --prefix "$peers/npm" --no-audit --no-fund repomix
    else
        say "npm not found: repomix is not installed (apt-get install npm, then rerun)"
    fi
}

# Vendor one pinned manifest into $dir/corpus/NAME, unless its lock is unchanged since last time.
# Then normalize it so every tool sees the same files: drop the hidden .cargo-checksum.json
# metadata (tools differ on hidden files) and files over 1 MiB (gnaw's default limit).
build_corpus() {
    local name=$1 manifest="$here/bench/$1"
    local out="$dir/corpus/$name" stamp="$dir/corpus/$name.stamp"
    local want
    want=$(sha256sum "$manifest/Cargo.lock" "$manifest/Cargo.toml" | sha256sum | cut -c1-16)
    if [ -d "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then return; fi
    say "building corpus $name (cargo vendor of $manifest/Cargo.lock)"
    rm -rf "$out" "$out.tmp"
    mkdir -p "$dir/corpus"
    cargo vendor --locked --versioned-dirs --manifest-path "$manifest/Cargo.toml" "$out.tmp" \
        >/dev/null 2>"$dir/vendor-$name.log" || { cat "$dir/vendor-$name.log" >&2; exit 1; }
    find "$out.tmp" -name .cargo-checksum.json -delete
    find "$out.tmp" -type f -size +1024k -delete
    # ra: rust-analyzer's own crates only, not what they depend on.
    if [ "$name" = ra ]; then
        find "$out.tmp" -mindepth 1 -maxdepth 1 ! -name 'ra_ap_*' -exec rm -rf {} +
    fi
    mv "$out.tmp" "$out"
    echo "$want" >"$stamp"
}

# The quick corpus: three crates of the medium one.
build_small() {
    build_corpus medium
    local out="$dir/corpus/small"
    [ -d "$out" ] && return
    mkdir -p "$out.tmp"
    cp -r "$dir/corpus/medium"/{syn-2.*,serde_json-*,regex-1.*} "$out.tmp/"
    mv "$out.tmp" "$out"
}

# Two files of one 4 MiB line without whitespace: one letter repeated, and random letters.
build_hostile() {
    local out="$dir/hostile"
    [ -d "$out" ] && return
    python3 - "$out.tmp" <<'EOF'
import os, random, sys
root = sys.argv[1]
random.seed(6)
for name, text in [("one-letter", "a" * (4 << 20)),
                   ("random-letters", "".join(random.choices("abcdefghijklmnopqrstuvwxyz", k=4 << 20)))]:
    os.makedirs(os.path.join(root, name))
    with open(os.path.join(root, name, "line.txt"), "w") as f:
        f.write(text)
EOF
    mv "$out.tmp" "$out"
}

if [ "$corpora_only" = 1 ]; then
    for c in $corpora; do build_corpus "$c"; done
    echo "$dir/corpus"
    exit 0
fi

[ "$install" = 1 ] && install_peers

if [ "$grep_only" = 1 ]; then
    say "building release binaries"
    (cd "$repo" && cargo build --release --quiet --bin gnaw --bin gnaw-mcp)
    base_args=()
    [ -n "$base" ] && base_args=(--base-bins "$base")
    for c in $corpora; do
        build_corpus "$c"
        python3 "$here/bench/driver.py" --bins "$repo/target/release" --corpus "$dir/corpus/$c" \
            --peers "$peers" --scratch "$dir/scratch" --runs "$runs" --grep-only "${base_args[@]}"
    done
    exit 0
fi

say "building release binaries"
(cd "$repo" && cargo build --release --quiet --bin gnaw --bin gnaw-mcp --example count_floor)

if [ "$quick" = 1 ]; then build_small; else for c in $corpora; do build_corpus "$c"; done; fi
build_hostile

peer_args=()
[ "$no_peers" = 1 ] && peer_args=(--no-peers)
mkdir -p "$dir/results"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
report="$dir/results/$stamp.md"
{
    echo "## gnaw benchmark, $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo
    echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), \
$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM, Linux $(uname -r); \
gnaw $(git -C "$repo" rev-parse --short HEAD)."
    echo
} | tee "$report"
for c in $corpora; do
    hostile=()
    [ "$c" != many ] && hostile=(--hostile "$dir/hostile")
    python3 "$here/bench/driver.py" --bins "$repo/target/release" --corpus "$dir/corpus/$c" \
        --peers "$peers" --scratch "$dir/scratch" --runs "$runs" "${peer_args[@]}" \
        "${hostile[@]}" --json "$dir/results/$stamp-$c.json" | tee -a "$report"
done
say "report written to $report"
