//! Empty: this package exists only to be vendored by scripts/bench.sh.
