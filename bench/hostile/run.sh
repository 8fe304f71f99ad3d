#!/usr/bin/env bash
# The hostile suite of issue 50: ~445 cases over every subcommand (panics, hangs over 60 s,
# runs over 2 GB, silent or wrong results at exit 0, exit codes, message lengths), each with
# what a correct tool does. Not part of the test command (it takes about 8 minutes and its
# hang checks need an idle machine); rerun it after hardening work:
#
#   bash bench/hostile/run.sh [BIN] [LABEL...]     # BIN: target/release/scalinglaws
#
# It regenerates its inputs (saved fits are written by BIN) in $HOSTILE_WORK
# (default $TMPDIR/scalinglaws-hostile), runs the cases one at a time under
# `timeout 70 /usr/bin/time -v`, prints a line per case and a summary, and writes
# out/LABEL.{stdout,stderr,time} and out/results.json there. NOSETUP=1 skips the regeneration.
# `python3 bench/hostile/gen/gen_cases.py > bench/hostile/cases.tsv` rebuilds the case list.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BIN=$(readlink -f "${1:-$HERE/../../target/release/scalinglaws}"); shift || true
export HOSTILE_WORK=${HOSTILE_WORK:-${TMPDIR:-/tmp}/scalinglaws-hostile}
mkdir -p "$HOSTILE_WORK"
if [ -z "${NOSETUP:-}" ]; then
  bash "$HERE/setup.sh" "$BIN" >"$HOSTILE_WORK/setup.log" 2>&1 || { echo "setup.sh failed, see $HOSTILE_WORK/setup.log"; exit 1; }
fi
exec python3 "$HERE/runner.py" "$BIN" "$@"
