#!/usr/bin/env python3
"""Sweeps (issue 51, item 2): does fitting the law to each cell's frontier (`fit --sweep`)
predict the held-out largest sizes at least as well as the minimum aggregated by hand, and do
its intervals cover? Standard library only; runs the release CLI.

For each study and each held-out size group (the largest, one at a time; sizes within a factor
1.2 form a group), the law is fitted to the sizes below it in three ways:
  frontier  `fit --sweep COLUMN`: the curve's minimum where a cell allows it, else the best run;
  hand_min  the best run of each cell, aggregated here before the fit (what users do today);
  all_runs  every run, no sweep (for reference).
Each held-out cell's truth is its best run (the hand minimum) and, as a second truth, its
frontier by the tool's own rule. Reported per method: mean |ln(pred/truth)|, coverage of the
95% prediction interval and its mean width ln(hi/lo).

    python3 bench/sweep_frontier.py [--bin target/release/scalinglaws] > bench/results/sweep_frontier.txt
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "shared", "data")


def lr_sweep():
    path = os.path.join(SHARED, "lr_sweep_misfitting", "lr_sweep_dense_tidy.csv")
    rows = []
    for r in csv.DictReader(open(path)):
        if r["C4 Eval Loss"].strip():
            rows.append({"N": float(r["N"]), "D": float(r["D"]), "lr": float(r["lr"]),
                         "loss": float(r["C4 Eval Loss"])})
    return "lr_sweep (Li et al. 2025, C4 loss, lr swept)", rows, 5


def gemstones():
    folder = os.path.join(SHARED, "gemstones", "wandb_dfs")
    rows = []
    for name, arm in (("wandb_df_for_fitting_hot.jsonl", 1.0),
                      ("wandb_df_for_fitting_lr_ablation_hot.jsonl", 2.0)):
        for line in open(os.path.join(folder, name)):
            r = json.loads(line)
            rows.append({"N": float(r["params_active_precise"]), "D": float(r["tokens"]),
                         "lr": arm, "loss": float(r["final_loss"])})
    return "gemstones (McLeish et al. 2025, hot checkpoints, main vs lr-ablation arm)", rows, 3


def write(rows, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["N", "D", "lr", "loss"])
        w.writeheader()
        w.writerows(rows)


def best_per_cell(rows):
    cells = {}
    for r in rows:
        key = (r["N"], r["D"])
        if key not in cells or r["loss"] < cells[key]["loss"]:
            cells[key] = r
    return list(cells.values())


def run(cmd):
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(cmd[:4])} ... failed:\n{done.stderr}")
    return done.stdout


def fit_and_predict(binary, data, extra, points, workdir):
    fit = os.path.join(workdir, "fit.json")
    cmd = [binary, "fit", data, "--target", "loss", "--law", "chinchilla", "--json", fit] + extra
    run(cmd)
    ns = ",".join(repr(p[0]) for p in points)
    ds = ",".join(repr(p[1]) for p in points)
    out = run([binary, "predict", fit, f"N={ns}", f"D={ds}", "--json", "-"])
    record = json.load(open(fit))
    return json.loads(out)["predictions"], record


def frontier_truth(binary, rows, workdir):
    """Each cell's frontier by the tool's rule (a fit's sweep record over every row)."""
    data = os.path.join(workdir, "all.csv")
    write(rows, data)
    fit = os.path.join(workdir, "truth.json")
    subprocess.run([binary, "fit", data, "--target", "loss", "--law", "chinchilla", "--sweep",
                    "lr", "--no-calibration", "--qc", "off", "--json", fit],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sweep = json.load(open(fit))["sweep"]
    cells = sweep["cells"]
    curves = sum(c["method"] == "curve" for c in cells)
    choice = sweep["choice_sd"]
    print(f"frontier of every run: {len(cells)} cells, {curves} by curve, {sweep['at_edge']} at "
          f"an end of their sweep, choice sd {'-' if choice is None else f'{choice:.4f}'}")
    return {(c["values"][0], c["values"][1]): c["frontier"] for c in cells}


def score(predictions, truths):
    errors, covered, widths = [], 0, []
    for p, truth in zip(predictions, truths):
        errors.append(abs(math.log(p["value"] / truth)))
        lo, hi = p["pi"]
        covered += lo <= truth <= hi
        widths.append(math.log(hi / lo))
    n = len(truths)
    return sum(errors) / n, covered / n, sum(widths) / n


def size_groups(sizes):
    """Sizes within a factor 1.2 of the previous one are one group (Gemstones' widths and
    depths at one scale)."""
    groups = []
    for size in sizes:
        if groups and size < 1.2 * groups[-1][-1]:
            groups[-1].append(size)
        else:
            groups.append([size])
    return groups


def study(binary, name, rows, held_groups, workdir):
    sizes = sorted({r["N"] for r in rows})
    groups = size_groups(sizes)
    print(f"## {name}: {len(rows)} runs, {len(sizes)} sizes in {len(groups)} size groups")
    curve_truth = frontier_truth(binary, rows, workdir)
    print("held-out N   cells  method     |ln err| best  |ln err| curve  cover best  cover curve  pi width")
    totals = defaultdict(lambda: [0.0, 0.0, 0, 0, 0.0, 0])
    for group in groups[-held_groups:]:
        held = group[0]
        train = [r for r in rows if r["N"] < held]
        test = best_per_cell([r for r in rows if r["N"] in group])
        points = [(r["N"], r["D"]) for r in test]
        truth_best = [r["loss"] for r in test]
        truth_curve = [curve_truth[p] for p in points]
        runs = os.path.join(workdir, "train.csv")
        write(train, runs)
        hand = os.path.join(workdir, "hand.csv")
        write(best_per_cell(train), hand)
        for method, data, extra in (("frontier", runs, ["--sweep", "lr"]),
                                    ("hand_min", hand, []),
                                    ("all_runs", runs, [])):
            preds, _ = fit_and_predict(binary, data, extra, points, workdir)
            e_b, c_b, w = score(preds, truth_best)
            e_c, c_c, _ = score(preds, truth_curve)
            n = len(points)
            t = totals[method]
            t[0] += e_b * n; t[1] += e_c * n; t[2] += c_b * n; t[3] += c_c * n; t[4] += w * n; t[5] += n
            print(f"{held:11.4g}  {n:5d}  {method:9s}  {e_b:13.4f}  {e_c:14.4f}  {c_b:10.2f}  {c_c:11.2f}  {w:8.4f}")
    print("all held-out cells:")
    for method, t in totals.items():
        n = t[5]
        print(f"    {method:9s} cells {n:3d}  |ln err| best {t[0]/n:.4f}  curve {t[1]/n:.4f}  "
              f"coverage best {t[2]/n:.2f}  curve {t[3]/n:.2f}  pi width {t[4]/n:.4f}")
    print()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(HERE, "..", "target", "release", "scalinglaws"))
    args = parser.parse_args()
    if not os.path.isdir(SHARED):
        print(f"skipped: {SHARED} is absent")
        return
    with tempfile.TemporaryDirectory() as workdir:
        for make in (lr_sweep, gemstones):
            name, rows, held = make()
            study(args.bin, name, rows, held, workdir)


if __name__ == "__main__":
    sys.exit(main())
