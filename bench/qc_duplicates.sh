#!/usr/bin/env bash
# QC's duplicate rule on a million rows shaped against it (issue 51's follow-up: the scan was
# quadratic in the rows sharing a loss): two losses over distinct (N, D); one row repeated a
# million times; a million rows within the tolerance of each other (1,000 distinct losses).
# Writes bench/results/qc_duplicates.txt: wall and CPU seconds and peak memory of each
# `scalinglaws qc` (Linux /usr/bin/time).
# Usage: bash bench/qc_duplicates.sh   (needs target/release/scalinglaws built)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-target/release/scalinglaws}
DIR=target/qc_duplicates
mkdir -p "$DIR"
python3 - "$DIR" <<'PY'
import sys
out = sys.argv[1]
rows = 1_000_000
shapes = {
    "two_losses": lambda i: f"{1e8 * (1 + i % 997)},{2e9 * (1 + (i // 997) % 1009)},{2.5 if i % 2 else 2.6}",
    "one_row_repeated": lambda i: "1e8,2e9,2.5",
    "all_within_tolerance": lambda i: f"1e8,2e9,{2.5 * (1 + 1e-9 * (i % 1000))}",
}
for name, row in shapes.items():
    with open(f"{out}/{name}.csv", "w") as f:
        f.write("N,D,loss\n")
        f.writelines(row(i) + "\n" for i in range(rows))
PY
{
  echo "scalinglaws qc FILE --target loss --scale N --scale D, 1,000,000 rows each"
  for name in two_losses one_row_repeated all_within_tolerance; do
    /usr/bin/time -f "$name: %e s wall, %U s user, %M KB peak" \
      "$BIN" qc "$DIR/$name.csv" --target loss --scale N --scale D 2>&1 >"$DIR/$name.txt"
    grep "rows flagged" "$DIR/$name.txt"
  done
} > bench/results/qc_duplicates.txt
cat bench/results/qc_duplicates.txt
