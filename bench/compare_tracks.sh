#!/usr/bin/env bash
# Issue 50: `compare` with many tracks and shared exponents (a joint fit of 3 + 2·tracks
# parameters) must scale at most quadratically in tracks. Times `compare --law chinchilla
# --shared E,alpha,beta` on 5, 10, 20 and 50 tracks of 10 runs (default options, then
# --bootstrap 100), wall time of the whole process, and appends them to
# bench/results/compare_tracks.txt under a label.
#
# Run from anywhere, after `cargo build --release -p scalinglaws-cli`:
#   bash bench/compare_tracks.sh LABEL       (BENCH_RUNS=1 by default; the minimum is recorded;
#                                              SCALINGLAWS_BIN picks another binary,
#                                              BENCH_TRACKS="5 10 20" fewer sizes)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BIN=${SCALINGLAWS_BIN:-$ROOT/target/release/scalinglaws}
RUNS=${BENCH_RUNS:-1}
SIZES=${BENCH_TRACKS:-5 10 20 50}
LABEL=${1:-$(git rev-parse --short HEAD)}
OUT=bench/results/compare_tracks.txt
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# Tracks of a Chinchilla law, each 1 % worse than the last, with 1 % noise.
python3 - "$WORK" $SIZES <<'PY'
import math, random, sys
random.seed(1)
work, sizes = sys.argv[1], [int(s) for s in sys.argv[2:]]
for T in sizes:
    with open(f"{work}/t{T}.csv", "w") as f:
        f.write("recipe,N,D,loss\n")
        for t in range(T):
            for i in range(10):
                N = 10 ** (7 + i * 0.3); D = 20 * N * (1 + 0.5 * (i % 3))
                L = 1.69 + 406.4 / N ** 0.34 + 410.7 / D ** 0.28
                L *= math.exp(0.01 * random.gauss(0, 1)) * (1 + 0.01 * t)
                f.write(f"r{t},{N:.4g},{D:.4g},{L:.6f}\n")
PY

best() {
    local best=999999
    for _ in $(seq "$RUNS"); do
        local start end
        start=$(date +%s.%N)
        "$BIN" compare "$@" --target loss --track recipe --law chinchilla \
            --shared E,alpha,beta >/dev/null
        end=$(date +%s.%N)
        best=$(echo "$start $end $best" | awk '{t=$2-$1; print (t<$3)?t:$3}')
    done
    printf '%.2f' "$best"
}

{
    echo "== $LABEL ($(date -u +%Y-%m-%d), $(nproc) cores, best of $RUNS)"
    printf '%8s %12s %16s\n' tracks default 'bootstrap 100'
    for T in $SIZES; do
        printf '%8s %11ss %15ss\n' "$T" "$(best "$WORK/t$T.csv")" \
            "$(best "$WORK/t$T.csv" --bootstrap 100)"
    done
} | tee -a "$OUT"
