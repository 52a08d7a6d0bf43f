#!/usr/bin/env bash
# Retrieval evaluation of gnaw's ranking, in one command (see docs/ranking-eval.md).
#
# Runs the real gnaw binary over crate sources cargo has already fetched (offline), with the
# queries and relevance judgments in scripts/eval/queries.json, and writes the results table to
# scripts/eval/results.md (and per-query details to target/ranking-eval.json).
#
# Environment:
#   GNAW      a gnaw binary to use (default: build target/release/gnaw)
#   REGISTRY  the cargo registry source dir (default: the first ~/.cargo/registry/src/*/ that
#             holds the crates named in queries.json)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
queries="$here/eval/queries.json"

if [[ -z "${GNAW:-}" ]]; then
    cargo build --quiet --release --bin gnaw --manifest-path "$root/Cargo.toml"
    GNAW="$root/target/release/gnaw"
fi

crates=$(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))["crates"].values()))' "$queries")
if [[ -z "${REGISTRY:-}" ]]; then
    for dir in "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/; do
        ok=1
        for c in $crates; do [[ -d "$dir$c" ]] || ok=0; done
        if [[ $ok == 1 ]]; then REGISTRY="${dir%/}"; break; fi
    done
fi
if [[ -z "${REGISTRY:-}" ]]; then
    echo "eval-ranking: the crate sources ($crates) are not in ~/.cargo/registry/src;" >&2
    echo "  fetch them with e.g. 'cargo fetch' in a project that depends on them, or set REGISTRY" >&2
    exit 1
fi

mkdir -p "$root/target"
python3 "$here/eval/eval.py" "$GNAW" "$REGISTRY" "$queries" "$here/eval/results.md" \
    "$root/target/ranking-eval.json"
