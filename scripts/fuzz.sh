#!/usr/bin/env bash
# Fuzzes every input parser for a bounded time: builds the stable-Rust fuzz driver
# (crates/scalinglaws-fuzz) in release and runs each target (table, formula, recipe, schedule,
# fit_json, work) for SECONDS seconds (default 10, so 60 s in all), starting from the committed
# corpus. Exits non-zero when any input panics, hangs (no answer in 2 s) or allocates past
# 1 GiB; the failing inputs are written under crates/scalinglaws-fuzz/crashes/TARGET/.
# Usage: scripts/fuzz.sh [SECONDS] [SEED]
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_EACH="${1:-10}"
SEED="${2:-0}"
cargo build --release -p scalinglaws-fuzz
"${CARGO_TARGET_DIR:-target}/release/scalinglaws-fuzz" all --seconds "$SECONDS_EACH" --seed "$SEED"
