#!/usr/bin/env bash
# Times the default Chinchilla fit of a synthetic table of ROWS rows (default 1,000,000) with
# the command line, with and without the rolling-origin calibration, under /usr/bin/time -v:
# wall time, user + system CPU and peak resident memory. Issue 21's target: <= 10 s wall and
# <= 300 MB on 2 cores for the default fit of 1e6 rows.
#
#   bash bench/million_rows.sh                 # 1e6 rows
#   ROWS=100000 bash bench/million_rows.sh     # another size
#   DATA=/path/to.csv bash bench/million_rows.sh   # an existing N,D,loss file
#
# The data: N = 10^U(7,10), D = 10^U(9,12), loss = (1.69 + 406.4/N^0.34 + 410.7/D^0.28) ·
# exp(0.01·gauss), seeded (Python's random, seed 21), written once to $DATA.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-1000000}
DATA=${DATA:-${TMPDIR:-/tmp}/scalinglaws_bench_${ROWS}.csv}
if [ ! -s "$DATA" ]; then
  python3 - "$ROWS" "$DATA" <<'PY'
import math, random, sys
rows, path = int(sys.argv[1]), sys.argv[2]
rng = random.Random(21)
with open(path, "w") as out:
    out.write("N,D,loss\n")
    for _ in range(rows):
        n = 10 ** rng.uniform(7, 10)
        d = 10 ** rng.uniform(9, 12)
        loss = (1.69 + 406.4 / n**0.34 + 410.7 / d**0.28) * math.exp(0.01 * rng.gauss(0, 1))
        out.write(f"{n:.6g},{d:.6g},{loss:.6g}\n")
PY
fi
cargo build --release -p scalinglaws-cli >/dev/null 2>&1 || cargo build --release -p scalinglaws-cli
BIN=target/release/scalinglaws
echo "data: $DATA ($(($(wc -l <"$DATA") - 1)) rows); cores: $(nproc); load: $(uptime | sed 's/.*load average: //')"
for extra in "" "--no-calibration"; do
  log=$(mktemp)
  /usr/bin/time -v "$BIN" fit "$DATA" --target loss --law chinchilla $extra >/dev/null 2>"$log"
  wall=$(grep 'Elapsed (wall clock)' "$log" | sed 's/.*: //')
  user=$(grep 'User time' "$log" | sed 's/.*: //')
  sys=$(grep 'System time' "$log" | sed 's/.*: //')
  rss=$(grep 'Maximum resident' "$log" | sed 's/.*: //')
  printf 'fit --law chinchilla %-17s wall %s  user %ss  sys %ss  peak RSS %d MB\n' \
    "${extra:-(default)}" "$wall" "$user" "$sys" "$((rss / 1024))"
  rm -f "$log"
done
