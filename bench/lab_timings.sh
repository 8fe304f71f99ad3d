#!/usr/bin/env bash
# Wall times of every default `scalinglaws sim` run the README shows (the lab, issue 27), as a
# user sees them (the whole process: start, simulate, write the CSV and the figure), written to
# bench/results/lab_timings.txt with the date, the machine and its load. The README quotes each
# 'min' (checked through crates/scalinglaws-cli/tests/readme_claims.txt); the goal is at most
# 30 s each on 2 cores. Every run's dataset is also compared with the committed one under
# bench/results (a default run's output must not change), and each figure with docs/lab/.
#
# Each command runs BENCH_RUNS times (default 3); the file records the minimum (what an idle
# machine gives) and the median (what a busy one gave), with the load average before and after.
# Before each command the script waits, up to BENCH_WAIT_S (default 300) seconds, for the
# 1-minute load average to fall below BENCH_MAX_LOAD (default 2.5).
# On a machine with more than 2 cores the runs are pinned to 2 of them (taskset), so the
# figures are 2-core figures anywhere.
#
# Run from anywhere, after `cargo build --release -p scalinglaws-cli`:
#   bash bench/lab_timings.sh
# (SCALINGLAWS_BIN=path/to/scalinglaws for another build; CARGO_TARGET_DIR is honoured.)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BIN=${SCALINGLAWS_BIN:-${CARGO_TARGET_DIR:-$ROOT/target}/release/scalinglaws}
RUNS=${BENCH_RUNS:-3}
OUT=bench/results/lab_timings.txt
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

PIN=()
if [ "$(nproc)" -gt 2 ] && command -v taskset >/dev/null 2>&1; then
    PIN=(taskset -c 0,1)
fi

now() { date +%s.%N; }
load1() { cut -d' ' -f1 /proc/loadavg; }
MAX_LOAD=${BENCH_MAX_LOAD:-2.5}
WAIT_S=${BENCH_WAIT_S:-300}
# Waits up to WAIT_S seconds for the 1-minute load average to fall below MAX_LOAD.
wait_for_quiet() {
    local waited=0
    while awk -v l="$(load1)" -v m="$MAX_LOAD" 'BEGIN { exit !(l >= m) }' && [ "$waited" -lt "$WAIT_S" ]; do
        sleep 10
        waited=$((waited + 10))
    done
}

# The README's default runs: NAME (its figure docs/lab/NAME.svg and its dataset
# bench/results/lab_NAME.csv), then the sim arguments before -o.
RUNS_TABLE=(
    "sgd|sgd"
    "sgd_scaling_hard|sgd-scaling"
    "sgd_scaling_easy|sgd-scaling --b 3"
    "nvfp4|nvfp4"
    "nvfp4_no_tensor_scale|nvfp4 --no-tensor-scale"
    "editing|editing"
    "recall|recall"
    "multi_index|multi-index"
)

SLOWEST=0
# time_sim NAME ARGS...: RUNS timed runs; prints "sim ARGS: min M s, median X s (R runs, ...)".
time_sim() {
    local name=$1
    shift
    local times=() before
    wait_for_quiet
    before=$(load1)
    for _ in $(seq "$RUNS"); do
        local t0 t1
        t0=$(now)
        (cd "$WORK" && "${PIN[@]}" "$BIN" sim "$@" -o "$name.csv" --plot "$name.svg" 2>/dev/null)
        t1=$(now)
        times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
    done
    local same="dataset as committed"
    cmp -s "$WORK/$name.csv" "bench/results/lab_$name.csv" || same="DATASET DIFFERS from bench/results/lab_$name.csv"
    cmp -s "$WORK/$name.svg" "docs/lab/$name.svg" || same="$same; FIGURE DIFFERS from docs/lab/$name.svg"
    local line
    line=$(printf '%s\n' "${times[@]}" | sort -g | awk -v key="sim $*" -v n="$RUNS" '
        { t[NR] = $1 }
        END {
            med = (n % 2) ? t[(n + 1) / 2] : (t[n / 2] + t[n / 2 + 1]) / 2
            fmt = (t[1] >= 10) ? "%.1f" : "%.2g"
            printf "%s: min " fmt " s, median " fmt " s (%d runs", key, t[1], med, n
        }')
    echo "$line, load $before before, $(load1) after; $same)"
    SLOWEST=$(printf '%s\n' "${times[@]}" | sort -g | head -1 | awk -v s="$SLOWEST" '{ print ($1 > s) ? $1 : s }')
}

{
    echo "# Wall times of the lab's default runs (README, 'The lab'), written by bench/lab_timings.sh;"
    echo "# the README quotes each 'min'. Goal: at most 30 s each on 2 cores."
    echo "date: $(date -u +%Y-%m-%d)"
    echo "machine: $(nproc) cores${PIN:+ (pinned to 2)}, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(uname -sr)"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    for entry in "${RUNS_TABLE[@]}"; do
        name=${entry%%|*}
        read -r -a words <<<"${entry#*|}"
        time_sim "$name" "${words[@]}"
    done
    verdict=$(awk -v s="$SLOWEST" 'BEGIN { print (s <= 30) ? "every default run at most 30 s" : "OVER 30 s" }')
    echo "slowest min: $(awk -v s="$SLOWEST" 'BEGIN { printf "%.1f", s }') s: $verdict"
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
