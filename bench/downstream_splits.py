#!/usr/bin/env python3
"""Coverage of `scalinglaws downstream` backtests pooled over several hold-out splits, and how
often a perfectly calibrated interval would leave the issue's band [0.85, 0.98] on one backtest.

Usage (bench/downstream.sh runs it; the standard library only):
    python3 bench/downstream_splits.py [--tasks PREFIX] LABEL=RESULT.json [LABEL=RESULT.json ...]
    python3 bench/downstream_splits.py --band RESULT.json

The first form prints, per split and pooled over all splits, each method's forecasts, misses,
coverage and MAE (only of the tasks whose names start with PREFIX, with --tasks). The second takes one backtest's JSON and simulates a method whose intervals
are exactly calibrated at the result's level, with the within-task correlation of the errors
this backtest shows (a task's forecasts at several models miss together): the share of
simulated backtests whose coverage lands above 0.98, inside [0.85, 0.98], and at 1.
"""

import json
import math
import random
import sys
from collections import defaultdict
from statistics import NormalDist

METHODS = ("logistic", "two_stage", "pooled")


def load(path):
    with open(path) as handle:
        return json.load(handle)


def scored(result, method, prefix=""):
    """(task, model, error, covered) of every forecast with an observation."""
    out = []
    for f in result["forecasts"]:
        if not f["task"].startswith(prefix):
            continue
        forecast, observed = f.get(method), f.get("observed")
        if forecast is None or observed is None:
            continue
        low, high = forecast["interval"]
        out.append((f["task"], f["model"], forecast["value"] - observed, low <= observed <= high))
    return out


def splits(pairs, prefix=""):
    totals = defaultdict(lambda: [0, 0, 0.0])
    print(f"{'split':<34} {'method':<10} {'forecasts':>9} {'misses':>6} {'coverage':>8} {'MAE':>6} {'MAE / logistic':>14}")
    for label, path in pairs:
        result = load(path)
        logistic = None
        for method in METHODS:
            rows = scored(result, method, prefix)
            if not rows:
                continue
            misses = sum(1 for r in rows if not r[3])
            mae = 100 * sum(abs(r[2]) for r in rows) / len(rows)
            logistic = mae if method == "logistic" else logistic
            total = totals[method]
            total[0] += len(rows)
            total[1] += misses
            total[2] += mae * len(rows)
            ratio = f"{mae / logistic:>14.2f}" if logistic else ""
            print(f"{label:<34} {method:<10} {len(rows):>9} {misses:>6} {1 - misses / len(rows):>8.3f} {mae:>6.2f} {ratio}")
    for method in METHODS if len(pairs) > 1 and not prefix else ():
        n, misses, mae = totals[method]
        if n:
            print(f"{'all splits':<34} {method:<10} {n:>9} {misses:>6} {1 - misses / n:>8.3f} {mae / n:>6.2f}")


def correlation(result, method):
    """The mean correlation between two forecasts of one task (at different models) of the
    errors standardised by each interval's half-width, and the task groups' sizes."""
    level = result["level"]
    z = NormalDist().inv_cdf(0.5 + level / 2)
    by_task = defaultdict(list)
    for f in result["forecasts"]:
        forecast, observed = f.get(method), f.get("observed")
        if forecast is None or observed is None:
            continue
        low, high = forecast["interval"]
        half = (high - low) / 2
        if half <= 0 or (low, high) == (0.0, 1.0):
            continue
        by_task[f["task"]].append(z * (forecast["value"] - observed) / half)
    groups = [g for g in by_task.values() if len(g) > 1]
    all_values = [v for g in groups for v in g]
    mean = sum(all_values) / len(all_values)
    var = sum((v - mean) ** 2 for v in all_values) / len(all_values)
    num, pairs = 0.0, 0
    for g in groups:
        for i in range(len(g)):
            for j in range(i + 1, len(g)):
                num += (g[i] - mean) * (g[j] - mean)
                pairs += 1
    rho = num / pairs / var if pairs and var > 0 else 0.0
    sizes = [len(g) for g in by_task.values()]
    return max(0.0, min(rho, 0.999)), sizes


def band(path, draws=20000, seed=1):
    result = load(path)
    level = result["level"]
    z = NormalDist().inv_cdf(0.5 + level / 2)
    rng = random.Random(seed)
    print(f"{'method':<10} {'tasks':>5} {'forecasts':>9} {'rho':>5} {'P(>0.98)':>8} {'P(in band)':>10} {'P(=1)':>6}")
    for method in METHODS:
        rho, sizes = correlation(result, method)
        n = sum(sizes)
        above = inside = whole = 0
        for _ in range(draws):
            covered = 0
            for k in sizes:
                shared = rng.gauss(0, 1)
                for _ in range(k):
                    e = math.sqrt(rho) * shared + math.sqrt(1 - rho) * rng.gauss(0, 1)
                    covered += abs(e) <= z
            share = covered / n
            above += share > 0.98
            inside += 0.85 <= share <= 0.98
            whole += covered == n
        print(f"{method:<10} {len(sizes):>5} {n:>9} {rho:>5.2f} {above / draws:>8.3f} {inside / draws:>10.3f} {whole / draws:>6.3f}")


def main(argv):
    prefix = ""
    if len(argv) > 2 and argv[0] == "--tasks":
        prefix, argv = argv[1], argv[2:]
    if len(argv) == 2 and argv[0] == "--band" and not prefix:
        band(argv[1])
    elif argv and all("=" in a for a in argv):
        splits([a.split("=", 1) for a in argv], prefix)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
