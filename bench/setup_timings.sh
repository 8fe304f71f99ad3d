#!/usr/bin/env bash
# Times the README's two set-up commands as a new user runs them, and writes
# bench/results/build_times.txt, which the README's first screen quotes (checked by
# crates/scalinglaws-cli/tests/integration/readme_blocks.rs through tests/readme_claims.txt).
#
# A fresh clone of this checkout's HEAD in a temporary folder (no target/, no virtual
# environment, no ../shared beside it), then the two commands exactly as the README's first
# `sh` block gives them, one after the other, each timed as a whole. Every line the second
# prints is stamped with the seconds since it started, so the file also gives its phases (lints,
# compiling the tests, the Rust tests, pip's build, the Python tests, the fuzzer). The clone's
# disk use is sampled every 5 s for its peak. The crate cache (~/.cargo) is used as it is: warm
# after a first build on this machine, as the README's figures assume.
#
# Needs an otherwise idle machine (the load is recorded); takes about 15 minutes on 2 cores.
# SCALINGLAWS_CHROMIUM is passed on (default /nonexistent: the browser test skips, as on a
# machine without Chromium, and nothing is installed).
# Usage: bash bench/setup_timings.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/bench/results/build_times.txt
WORK=$(mktemp -d)
trap 'kill "${SAMPLER:-}" 2>/dev/null || true; rm -rf "$WORK"' EXIT
export SCALINGLAWS_CHROMIUM=${SCALINGLAWS_CHROMIUM:-/nonexistent}
# A new user's defaults: the checkout's own target/ and .venv-test, a fresh skip log.
unset CARGO_TARGET_DIR SCALINGLAWS_VENV SCALINGLAWS_SKIP_LOG SCALINGLAWS_NO_INSTALL

git clone -q "$ROOT" "$WORK/scalinglaws"
cd "$WORK/scalinglaws"
COMMIT=$(git rev-parse --short HEAD)
# The README's first `sh` block: the two set-up commands.
mapfile -t COMMANDS < <(awk '/^```sh$/ { inside = 1; next } inside && /^```$/ { exit } inside' README.md)
if [[ ${#COMMANDS[@]} != 2 ]]; then
    echo "the README's first sh block has ${#COMMANDS[@]} lines, not the two set-up commands" >&2
    exit 1
fi

# The clone's peak disk use, sampled every 5 s (in MB).
( while true; do du -sm "$WORK/scalinglaws" 2>/dev/null | cut -f1; sleep 5; done ) >"$WORK/disk.txt" &
SAMPLER=$!

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
t0=$(date +%s)
if ! bash -c "${COMMANDS[0]}" >"$WORK/first.log" 2>&1; then
    tail -n 40 "$WORK/first.log" >&2
    echo "the first command failed" >&2
    exit 1
fi
t1=$(date +%s)
# Each line of the second command, stamped with the seconds since it started.
set +e
bash -c "${COMMANDS[1]}" 2>&1 | while IFS= read -r line; do
    printf '%d\t%s\n' $(($(date +%s) - t1)) "$line"
done >"$WORK/second.log"
status=${PIPESTATUS[0]}
set -e
t2=$(date +%s)
kill "$SAMPLER" 2>/dev/null || true
if [[ $status != 0 ]]; then
    tail -n 40 "$WORK/second.log" >&2
    echo "the second command failed (exit $status)" >&2
    exit 1
fi

# first_at PATTERN: the stamp of the second command's first line matching PATTERN.
first_at() { awk -F'\t' -v p="$1" '$2 ~ p { print $1; exit }' "$WORK/second.log"; }
# finished N: cargo's Nth "Finished ... in T" of the second command (its wording, as printed).
finished() { grep -E 'Finished `release`' "$WORK/second.log" | sed -n "$1p" | sed 's/.* in //'; }
minutes() { awk -v s="$1" 'BEGIN { printf "%.0f", s / 60 }'; }
tests_start=$(first_at '^ *Running ')
pip_start=$(first_at '^building the Python package')
# Ray's install starts the Python phase (a fresh virtual environment has no Ray).
pytest_start=$(first_at '^installing Ray')
pytest_start=${pytest_start:-$pip_start}
fuzz_start=$(first_at '^fuzzing every input parser')
disk_mb=$(sort -n "$WORK/disk.txt" | tail -n 1)
venv_mb=$(du -sm .venv-test | cut -f1)
target_mb=$(du -sm target | cut -f1)
{
    echo "# Build and test times of the README's two set-up commands, written by bench/setup_timings.sh:"
    echo "# a fresh clone (empty target/, no ../shared, no Chromium: SCALINGLAWS_CHROMIUM=$SCALINGLAWS_CHROMIUM),"
    echo "# the crate cache warm, each command as the README's first screen gives it. The README quotes"
    echo "# these (checked by crates/scalinglaws-cli/tests/integration/readme_blocks.rs through"
    echo "# tests/readme_claims.txt)."
    echo "date: $(date -u +%Y-%m-%d)"
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(uname -sr)"
    echo "load before: $load_before; load after: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "commit: $COMMIT"
    echo "command 1, in all: $((t1 - t0)) s (about $(minutes $((t1 - t0))) minutes; cargo: \"Finished ... in $(grep -E 'Finished `release`' "$WORK/first.log" | head -n 1 | sed 's/.* in //')\")"
    echo "command 2, in all: $((t2 - t1)) s (about $(minutes $((t2 - t1))) minutes)"
    echo "command 2, format and lints, then compiling the tests: ${tests_start} s (cargo: \"Finished ... in $(finished 1)\")"
    echo "command 2, running the Rust tests (and making the virtual environment): $((pip_start - tests_start)) s"
    echo "command 2, pip install . (downloading the test dependencies, compiling the module): $((pytest_start - pip_start)) s (maturin's cargo: \"Finished ... in $(finished 2)\")"
    echo "command 2, Ray, the book, the Python tests and type checks: $((fuzz_start - pytest_start)) s"
    echo "command 2, the fuzzer: $((t2 - t1 - fuzz_start)) s"
    echo "disk, peak of the checkout (target/, .venv-test; not pip's or cargo's caches): $disk_mb MB (about $(awk -v m="$disk_mb" 'BEGIN { printf "%.1f", m / 1000 }') GB; at the end: target/ $target_mb MB, .venv-test $venv_mb MB)"
} >"$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
