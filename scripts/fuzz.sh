#!/usr/bin/env bash
# fuzz.sh: run gnaw's cargo-fuzz targets for a bounded time each, on a stable toolchain.
#
# Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   (default: 600 s; every target)
# Needs `cargo install cargo-fuzz` and a C++ compiler (libFuzzer is built from source).
#
# cargo-fuzz passes nightly-only `-Z` flags; RUSTC_BOOTSTRAP=1 lets the stable compiler accept
# them, and `--sanitizer none` avoids needing a sanitizer runtime. Findings land in
# fuzz/artifacts/TARGET/; the corpus grows in fuzz/corpus/TARGET/, starting from fuzz/seeds/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-600}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for f in fuzz/fuzz_targets/*.rs; do targets+=("$(basename "$f" .rs)"); done
fi
command -v cargo-fuzz >/dev/null || { echo "fuzz.sh: install cargo-fuzz first: cargo install cargo-fuzz" >&2; exit 2; }
status=0
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t"
    echo "== $t for ${secs}s"
    seeds=()
    [ -d "fuzz/seeds/$t" ] && seeds=("fuzz/seeds/$t")
    set +e
    RUSTC_BOOTSTRAP=1 cargo fuzz run --sanitizer none -O "$t" "fuzz/corpus/$t" "${seeds[@]}" -- \
        -max_total_time="$secs" -rss_limit_mb=1024 -report_slow_units=1 -print_final_stats=1 >"fuzz/$t.log" 2>&1
    rc=$?
    set -e
    grep -E "^(Done|stat::number_of_executed_units|stat::peak_rss_mb|SUMMARY)|Slowest unit|panicked" "fuzz/$t.log" || true
    if [ "$rc" != 0 ] || ls "fuzz/artifacts/$t"/crash-* >/dev/null 2>&1; then
        echo "fuzz.sh: $t found a problem (exit $rc); see fuzz/$t.log and fuzz/artifacts/$t/" >&2
        status=1
    else
        echo "fuzz.sh: $t: no findings"
    fi
done
exit $status
