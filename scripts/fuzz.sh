#!/usr/bin/env bash
# Fuzzes every input parser for a bounded time: builds the stable-Rust fuzz driver
# (crates/scalinglaws-fuzz) in release and runs each target (table, formula, recipe, schedule,
# fit_json, work) for SECONDS seconds (default 10, so 60 s in all), starting from the committed
# corpus. Exits non-zero when any input panics, hangs (no answer in 2 s) or allocates past
# 1 GiB; the failing inputs are written under crates/scalinglaws-fuzz/crashes/TARGET/.
# Usage: scripts/fuzz.sh [SECONDS] [SEED]
# SCALINGLAWS_FUZZ_BIN names a driver already built (scripts/test-all.sh passes the one its
# `cargo test` built, which has the tests' features; building it alone would resolve other
# features and compile the library again).
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH="${1:-10}"
SEED="${2:-0}"
DRIVER=${SCALINGLAWS_FUZZ_BIN:-}
if [[ -z $DRIVER ]]; then
    cargo build --release -p scalinglaws-fuzz
    DRIVER=${CARGO_TARGET_DIR:-target}/release/scalinglaws-fuzz
fi
"$DRIVER" all --seconds "$SECONDS_EACH" --seed "$SEED"
