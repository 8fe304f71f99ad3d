#!/usr/bin/env bash
# The command-line timings the README states, measured as a user sees them (wall time of the
# whole process: start, read, fit, report, write), and written to bench/results/readme_timings.txt
# with the date, the machine and its load. crates/scalinglaws-cli/tests/integration/readme_blocks.rs checks
# (through tests/readme_claims.txt) that every timing the README states is the one in that file
# (it times nothing itself).
#
# Each command runs BENCH_RUNS times (default 7); the file records the minimum (what an idle
# machine gives; the README quotes it) and the median (what a busy one gave). On a machine
# shared with other work the minimum is the figure to trust; the load averages before and after
# are recorded beside it.
#
# Run from anywhere, after `cargo build --release -p scalinglaws-cli`:
#   bash bench/readme_timings.sh
# BENCH_CALIBRATION=1 also times the library's calibration test (about 1.5 minutes per run, once).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BIN=${SCALINGLAWS_BIN:-$ROOT/target/release/scalinglaws}
RUNS=${BENCH_RUNS:-7}
OUT=bench/results/readme_timings.txt
CSV=examples/chinchilla/chinchilla_epoch.csv
PROTOCOL=(--law chinchilla --target loss --map N="Model Size" --map C="Training FLOP"
          --derive "D=C/(6*N)" --where "loss < 3.44")
EPOCH_GRID=(--grid alpha=0,0.5,1,1.5,2 --grid beta=0,0.5,1,1.5,2
            --grid "E=exp(-1),exp(-0.5),exp(0),exp(0.5),exp(1)"
            --grid "A=exp(0),exp(5),exp(10),exp(15),exp(20),exp(25)"
            --grid "B=exp(0),exp(5),exp(10),exp(15),exp(20),exp(25)")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

MAX_LOAD=${BENCH_MAX_LOAD:-2.5}
WAIT_S=${BENCH_WAIT_S:-300}
now() { date +%s.%N; }
load1() { cut -d' ' -f1 /proc/loadavg; }
# Waits up to WAIT_S seconds for the 1-minute load average to fall below MAX_LOAD.
wait_for_quiet() {
    local waited=0
    while awk -v l="$(load1)" -v m="$MAX_LOAD" 'BEGIN { exit !(l >= m) }' && [ "$waited" -lt "$WAIT_S" ]; do
        sleep 10
        waited=$((waited + 10))
    done
}
# time_it KEY UNIT COMMAND...: RUNS timed runs; prints "KEY: min M UNIT, median X UNIT (R runs)".
time_it() {
    local key=$1 unit=$2
    shift 2
    local times=()
    wait_for_quiet
    local before
    before=$(load1)
    for _ in $(seq "$RUNS"); do
        local t0 t1
        t0=$(now)
        "$@" >/dev/null 2>&1
        t1=$(now)
        times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
    done
    printf '%s\n' "${times[@]}" | sort -g | awk -v key="$key" -v unit="$unit" -v n="$RUNS" '
        { t[NR] = $1 }
        END {
            scale = (unit == "ms") ? 1000 : 1
            med = (n % 2) ? t[(n + 1) / 2] : (t[n / 2] + t[n / 2 + 1]) / 2
            fmt = (unit == "ms" || t[1] >= 10) ? "%.0f" : "%.2g"
            printf "%s: min " fmt " %s, median " fmt " %s (%d runs", key, t[1] * scale, unit, med * scale, unit, n
        }'
    echo ", load $before before, $(load1) after)"
}

{
    echo "# README timings, written by bench/readme_timings.sh; the README quotes each 'min'."
    echo "date: $(date -u +%Y-%m-%d)"
    echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(uname -sr)"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    time_it "fit, default search" ms "$BIN" fit "$CSV" "${PROTOCOL[@]}"
    time_it "fit, default search, --no-calibration" ms "$BIN" fit "$CSV" "${PROTOCOL[@]}" --no-calibration
    time_it "fit, Epoch's 4,500-start grid" s "$BIN" fit "$CSV" "${PROTOCOL[@]}" "${EPOCH_GRID[@]}"
    time_it "fit, Epoch's 4,500-start grid, --no-calibration" s "$BIN" fit "$CSV" "${PROTOCOL[@]}" "${EPOCH_GRID[@]}" --no-calibration
    time_it "fit, 1,000-replicate bootstrap" s "$BIN" fit "$CSV" "${PROTOCOL[@]}" --bootstrap 1000
    time_it "report, no bootstrap" ms "$BIN" report "$CSV" "${PROTOCOL[@]}" -o "$WORK/plain.html"
    time_it "report, 1,000-replicate bootstrap" s "$BIN" report "$CSV" "${PROTOCOL[@]}" --bootstrap 1000 -o "$WORK/boot.html"
    echo "report size, no bootstrap: $(( ($(stat -c %s "$WORK/plain.html") + 500) / 1000 )) KB"
    echo "report size, 1,000-replicate bootstrap: $(( ($(stat -c %s "$WORK/boot.html") + 500) / 1000 )) KB"
    if [ "${BENCH_CALIBRATION:-0}" = 1 ]; then
        # Built first, untimed: the figure is the test's run, not its compilation.
        cargo test --release -q -p scalinglaws --test integration calibration:: --no-run >/dev/null 2>&1
        RUNS=1 time_it "calibration test (tests/integration/calibration.rs)" s \
            cargo test --release -q -p scalinglaws --test integration calibration::
    fi
    echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
} > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
cat "$OUT"
