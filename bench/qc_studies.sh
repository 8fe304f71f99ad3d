#!/usr/bin/env bash
# QC on every study in ../shared/data (issue 51, item 1): one `scalinglaws qc` per study, with
# the columns its PROVENANCE.md names, each flag kept as JSON under $OUT; then the table of
# rows and flags by rule (bench/results/qc_studies.txt). Thresholds are the defaults (modified
# z cutoff 3.5, near-duplicate tolerance 1e-6); a warm-up length is given only where the
# study's PROVENANCE.md states one (multipower_law: 2160 steps).
# Usage: bash bench/qc_studies.sh [OUT_DIR]   (needs target/release/scalinglaws built)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=../shared/data
[ -d "$DATA" ] || { echo "skip: $DATA is absent"; exit 0; }
BIN=${BIN:-target/release/scalinglaws}
OUT=${1:-target/qc_studies}
rm -rf "$OUT"; mkdir -p "$OUT"
qc() { local name=$1; shift; "$BIN" qc "$@" --json "$OUT/$name.json" >"$OUT/$name.txt"; }

qc chinchilla_epoch "$DATA/chinchilla_epoch/svg_extracted_data.csv" --target loss \
  --map N="Model Size" --map C="Training FLOP" --derive "D=C/(6*N)" --law chinchilla --budget C
qc porian2024 "$DATA/porian2024/isoflop_points.csv" --target loss \
  --scale dataset --scale hparams --scale warmup --scale decay --scale param_count --scale val \
  --scale n --scale t \
  --budget dataset --budget hparams --budget warmup --budget decay --budget param_count \
  --budget val --budget flops
qc datablations "$DATA/datablations/points_all_cell2.csv" --target loss --scale N --scale D --scale U
for size in 25 100 400; do
  for f in "$DATA/multipower_law/csv_$size"/*.csv; do
    qc "multipower_law_${size}_$(basename "$f" .csv)" "$f" --target loss --step step --warmup 2160
  done
done
qc lr_sweep_misfitting "$DATA/lr_sweep_misfitting/lr_sweep_dense_tidy.csv" --target "C4 Eval Loss" \
  --scale N --scale D --scale lr --budget N --budget D
qc olmo_ladder "$DATA/olmo_ladder/tidy_all_evals.csv" --target loss_c4_en \
  --scale size_label --scale xC --scale rerun --scale lr_peak --scale step --step step
qc colpret_hitchhiker2024 "$DATA/colpret_hitchhiker2024/tidy_loss_curves.csv" --target loss \
  --scale model --scale loss_kind --scale tokens --step tokens
qc vocab_scaling_tao2024 "$DATA/vocab_scaling_tao2024/exp_data.csv" --target Lossu --linear \
  --scale vocab_size --scale embed_dim --scale Non_vocab_parameters --scale FLOPs \
  --budget Non_vocab_parameters --budget FLOPs
qc openclip_cherti2023 "$DATA/openclip_cherti2023/tidy_imagenet1k_final.csv" \
  --target imagenet1k_top1_error --scale arch --scale upstream_dataset --scale samples_seen
qc clip_mammut_nezhurina2025 "$DATA/clip_mammut_nezhurina2025/tidy_runs.csv" \
  --target train_contrastive_loss --scale namespace --scale model --scale samples_seen \
  --scale global_batch_size --scale lr --scale warmup \
  --budget namespace --budget model --budget samples_seen
qc cerebras_gpt2023 "$DATA/cerebras_gpt2023/tidy_zero_shot_table.csv" --target pile_test_xent \
  --scale family --scale size_label --budget train_flops
qc routing_clark2022 "$DATA/routing_clark2022/tidy_final_step.csv" --target loss_validation \
  --where "loss_validation > 0" \
  --scale router_type --scale num_experts --scale dense_parameter_count --scale k \
  --scale routing_frequency --budget dense_parameter_count --budget flops_per_step
# Accuracies (not losses): compared as they are; the metric and task place each row.
zcat "$DATA/pythia_evals/pythia_v1_evals_long.csv.gz" >"$OUT/pythia.csv"
qc pythia_evals "$OUT/pythia.csv" --target value --linear \
  --scale model --scale num_fewshot --scale task --scale metric --scale step --step step
rm -f "$OUT/pythia.csv"

python3 - "$OUT" <<'PY'
import json, sys, os, glob
out = sys.argv[1]
rules = ["non_finite", "duplicate", "near_duplicate", "initialisation", "warmup",
         "law_outlier", "neighbour_outlier", "above_frontier"]
short = ["nonfin", "dup", "neardup", "init", "warmup", "law", "neighb", "frontier"]
rows = {}
for path in sorted(glob.glob(os.path.join(out, "*.json"))):
    name = os.path.basename(path)[:-5]
    doc = json.load(open(path))
    study = "multipower_law" if name.startswith("multipower_law") else name
    counts = {r["rule"]: (r["flagged"] if "not_checked" not in r else None) for r in doc["rules"]}
    flagged_rows = len({f["row"] for f in doc["flags"]})
    acc = rows.setdefault(study, {"rows": 0, "flagged": 0, "files": 0, **{r: None for r in rules}})
    acc["rows"] += doc["rows"]; acc["flagged"] += flagged_rows; acc["files"] += 1
    for r in rules:
        if counts[r] is not None:
            acc[r] = (acc[r] or 0) + counts[r]
print("QC of every study in ../shared/data with the default thresholds (bench/qc_studies.sh).")
print("Counts are flags by rule; '-' = the rule did not run (no law, step, scale or budget given,")
print("or no cell with enough rows). 'flagged' counts rows with at least one flag.")
print()
head = f"{'study':26} {'files':>5} {'rows':>6} {'flagged':>7} " + " ".join(f"{s:>8}" for s in short)
print(head)
for study, a in rows.items():
    cells = " ".join(f"{('-' if a[r] is None else a[r]):>8}" for r in rules)
    print(f"{study:26} {a['files']:>5} {a['rows']:>6} {a['flagged']:>7} {cells}")
PY
