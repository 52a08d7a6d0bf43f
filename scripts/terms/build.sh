#!/usr/bin/env bash
# Rebuild the term-relatedness table, src/stages/rank/related.txt, from the pinned corpus
# (scripts/terms/corpus.json): fetch and check it (fetch.py), then count which terms occur
# together (examples/term_table.rs). TERMS_CACHE (default ~/.cache/gnaw-terms) holds the
# corpus; EVAL_CACHE (default ~/.cache/gnaw-eval, scripts/eval/fetch.py) the evaluated corpora
# that no file of it may equal. `--lock` pins packages.txt's new packages first.
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${TERMS_CACHE:-$HOME/.cache/gnaw-terms}"
eval_cache="${EVAL_CACHE:-$HOME/.cache/gnaw-eval}"
python3 scripts/terms/fetch.py "$cache" "$eval_cache" "$@"
cargo run --release --example term_table -- "$cache" src/stages/rank/related.txt
