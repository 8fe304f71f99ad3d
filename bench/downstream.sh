#!/usr/bin/env bash
# Issue 23's Pythia backtests end to end, as a user runs them (wall time of the whole process:
# read 27,040 evaluations, diagnose 65 tasks, fit the baselines and replay every method),
# written with their scores to bench/results/downstream.txt. The goal was 10 s on 2 cores.
#
# Run from anywhere, after `cargo build --release -p scalinglaws-cli`:
#   bash bench/downstream.sh        (BENCH_RUNS=5 by default; the minimum is recorded)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BIN=${SCALINGLAWS_BIN:-$ROOT/target/release/scalinglaws}
RUNS=${BENCH_RUNS:-5}
OUT=bench/results/downstream.txt
ARGS=(examples/downstream/pythia_zero_shot.csv --target accuracy --size params --tokens tokens
      --trials questions --chance chance --loss loss
      --holdout pythia-6.9b,pythia-6.9b-deduped,pythia-12b,pythia-12b-deduped)

best() {
    local best=999999
    for _ in $(seq "$RUNS"); do
        local start end
        start=$(date +%s.%N)
        "$BIN" downstream "${ARGS[@]}" "$@" >/dev/null
        end=$(date +%s.%N)
        best=$(echo "$start $end $best" | awk '{t=$2-$1; print (t<$3)?t:$3}')
    done
    printf '%.2f' "$best"
}

{
    echo "# bench/downstream.sh, $(date -u +%Y-%m-%d), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "across sizes (6.9B and 12B from the models up to 2.8B): $(best) s (minimum of $RUNS)"
    echo "across checkpoints (their checkpoints after 27.3e9 tokens): $(best --own-until 2.7262976e10) s"
    echo
    echo "## across sizes"
    "$BIN" downstream "${ARGS[@]}" | sed -n '/\[\[Backtest\]\]/,/^$/p'
    echo "## across checkpoints"
    "$BIN" downstream "${ARGS[@]}" --own-until 2.7262976e10 | sed -n '/\[\[Backtest\]\]/,/^$/p'
} >"$OUT"
cat "$OUT"
