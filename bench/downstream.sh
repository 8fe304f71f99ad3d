#!/usr/bin/env bash
# Issue 23's Pythia backtests end to end, as a user runs them (wall time of the whole process:
# read 27,040 evaluations, diagnose 65 tasks, fit the baselines and replay every method),
# written with their scores to bench/results/downstream.txt. The goal was 10 s on 2 cores.
# Then the same backtests over several hold-out splits (coverage pooled over them), how often a
# calibrated interval would leave the band [0.85, 0.98] on the issue's backtest, and the
# zero-shot transfer check on the MMLU tasks (bench/downstream_splits.py, standard library).
#
# Run from anywhere, after `cargo build --release -p scalinglaws-cli`:
#   bash bench/downstream.sh        (BENCH_RUNS=5 by default; the minimum is recorded)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BIN=${SCALINGLAWS_BIN:-$ROOT/target/release/scalinglaws}
RUNS=${BENCH_RUNS:-5}
OUT=bench/results/downstream.txt
COLUMNS_=(examples/downstream/pythia_zero_shot.csv --target accuracy --size params --tokens tokens
      --trials questions --chance chance --loss loss)
LARGE=pythia-6.9b,pythia-6.9b-deduped,pythia-12b,pythia-12b-deduped
ARGS=("${COLUMNS_[@]}" --holdout "$LARGE")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

best() {
    local best=999999
    for _ in $(seq "$RUNS"); do
        local start end
        start=$(date +%s.%N)
        "$BIN" downstream "${ARGS[@]}" "$@" >/dev/null
        end=$(date +%s.%N)
        best=$(echo "$start $end $best" | awk '{t=$2-$1; print (t<$3)?t:$3}')
    done
    printf '%.1f' "$best"
}

# One backtest's JSON: split NAME, then the command's own options.
split() {
    local name=$1
    shift
    "$BIN" downstream "${COLUMNS_[@]}" "$@" --json "$WORK/$name.json" >/dev/null
    echo "$name=$WORK/$name.json"
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
    echo "## across sizes, three splits"
    python3 bench/downstream_splits.py \
        "$(split 6.9b+12b_from_le2.8b --holdout "$LARGE")" \
        "$(split 12b_from_le6.9b --holdout pythia-12b,pythia-12b-deduped)" \
        "$(split 2.8b_from_le1.4b --holdout pythia-2.8b,pythia-2.8b-deduped --where 'params<3e9')"
    echo
    echo "## across checkpoints, four splits"
    python3 bench/downstream_splits.py \
        "$(split 6.9b+12b_after_27.3e9 --holdout "$LARGE" --own-until 2.7262976e10)" \
        "$(split 6.9b+12b_after_6.3e9 --holdout "$LARGE" --own-until 6.291456e9)" \
        "$(split 12b_after_62.9e9 --holdout pythia-12b,pythia-12b-deduped --own-until 6.291456e10)" \
        "$(split 2.8b_after_27.3e9 --holdout pythia-2.8b,pythia-2.8b-deduped --where 'params<3e9' --own-until 2.7262976e10)"
    echo
    echo "## a calibrated 95 % interval on the issue's backtest across sizes (56 forecasts)"
    python3 bench/downstream_splits.py --band "$WORK/6.9b+12b_from_le2.8b.json"
    echo
    echo "## transfer: the MMLU tasks, seen by the pooled model and unseen (--unseen hendrycksTest)"
    python3 bench/downstream_splits.py --tasks hendrycksTest \
        "seen=$WORK/6.9b+12b_from_le2.8b.json" \
        "$(split unseen --holdout "$LARGE" --unseen hendrycksTest)"
} >"$OUT"
cat "$OUT"
