#!/usr/bin/env bash
# Issue 51, item 4: what `isoflop --budget` should predict N* and D* with. On each IsoFLOP study,
# the two largest budgets are held out and predicted from the smaller ones by
#   (a) the per-budget minima's power laws (`--method profiles`, the default),
#   (b) the field's scipy recipe: a parabola in ln D through every run of a budget, a line
#       through the vertices in ln C,
#   (c) `--method auto` (opt-in): the joint law (Chinchilla's law on the window of the runs with
#       the most runs within one standard error of the best in a backtest over the study's own
#       budgets, then its compute-optimal allocation) when it beats the per-budget minima in
#       that backtest by more than a standard error, else the minima; intervals widened by
#       rolling origins,
# and `joint` (that window whatever the minima do) and Hoffmann et al.'s approach 3 on every
# run. No window is fixed beforehand: every window the data allow is a candidate.
# Studies: Porian et al. 2024's fifteen
# configurations (testdata/porian2024, the same bytes as ../shared/data/porian2024), Chinchilla's
# runs as Epoch AI digitised them (examples/chinchilla, the same bytes as
# ../shared/data/chinchilla_epoch) binned to Hoffmann et al.'s nine budgets, and synthetic
# studies drawn from Hoffmann et al.'s law (the generator of
# crates/scalinglaws/tests/integration/isoflop_forecast.rs). The code, with what "truth" means
# for each study, is crates/scalinglaws/examples/isoflop_joint.rs.
#
# Writes bench/results/isoflop_joint.txt; about 80 core-seconds (3 to 5 minutes on 2 busy cores).
# Usage: bash bench/isoflop_joint.sh   (REPLICATES=200 SYNTHETIC_SEEDS=1 by default)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
cd "$ROOT"
CARGO_TARGET_DIR=$TARGET cargo build --release -q -p scalinglaws --example isoflop_joint
REPLICATES=${REPLICATES:-200} SYNTHETIC_SEEDS=${SYNTHETIC_SEEDS:-1} \
  "$TARGET/release/examples/isoflop_joint" > bench/results/isoflop_joint.txt
cat bench/results/isoflop_joint.txt
