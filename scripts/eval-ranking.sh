#!/usr/bin/env bash
# Retrieval evaluation of gnaw's ranking, in one command (see docs/ranking-eval.md).
#
# Fetches the pinned corpora named in scripts/eval/queries/*.json into a cache (once; nothing is
# committed; each archive is checked against its sha256 pin), runs the real gnaw binary over them
# with the judged queries, ranks the same candidate files with a plain BM25 baseline
# (scripts/eval/bm25.py), and writes the tables (NDCG@10, recall@5, MRR per split, kind and
# language, gnaw next to BM25) to scripts/eval/results.md (per-query details to
# target/ranking-eval.json).
#
# Environment:
#   GNAW        a gnaw binary to use (default: build target/release/gnaw)
#   EVAL_CACHE  where the corpora are kept (default: ~/.cache/gnaw-eval)
#   BEFORE      an earlier run's JSON (e.g. scripts/eval/name-parts.json, the run in
#               scripts/eval/results.md): tables show before → after
#   EVAL_JOBS   gnaw processes run at once (default 2)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
cache="${EVAL_CACHE:-$HOME/.cache/gnaw-eval}"

if [[ -z "${GNAW:-}" ]]; then
    cargo build --quiet --release --bin gnaw --manifest-path "$root/Cargo.toml"
    GNAW="$root/target/release/gnaw"
fi

python3 "$here/eval/fetch.py" "$cache" "$here/eval/queries"
mkdir -p "$root/target"
python3 "$here/eval/eval.py" "$GNAW" "$cache" "$here/eval/queries" "$here/eval/results.md" \
    "$root/target/ranking-eval.json" ${BEFORE:+"$BEFORE"}
