#!/usr/bin/env python3
"""Independent numpy reference for the multi-power law (Luo et al. 2025, arXiv:2503.12811).

Evaluates the published multi-power-law parameters on the authors' loss curves and writes the
golden file `published_400m.csv` (next to this script) that the Rust tests compare against.

This is our own re-implementation of the upstream evaluation (schedules, S1, the loss-drop term
and the R^2), written from its description, not copied from the upstream code.

Usage (numpy only):

    .venv-test/bin/python crates/scalinglaws/tests/data/multipower/reference.py [DATA_DIR]

DATA_DIR defaults to `<repo>/../shared/data/multipower_law` and must hold `csv_25/`, `csv_100/`
and `csv_400/`, each with the 9 schedule files `<run>.csv` (columns step,lr,loss). The data is
MIT licensed, Copyright (c) 2025 Kairong Luo (https://github.com/thu-yao-01-luo/MultiPowerLaw,
commit 8da9f19, path loss_curve_repo/csv_<size>/).

The model, for a run with per-step learning rates lrs[0..T) and S(t) = sum_{s<=t} lrs[s]:

    S1(t)  = S(t)                                            (warmup included)
    LD(t)  = sum_{k=1..t} (lrs[k] - lrs[k-1]) * G(lrs[k]^(-gamma) * (S(t) - S(k-1)))
    G(x)   = 1 - (1 + C x)^(-beta)
    L(t)   = L0 + A * S1(t)^(-alpha) + B * LD(t)

lrs[k] - lrs[k-1] is minus the per-step decrement, so during a decay B*LD(t) is negative (a
loss drop); the warmup steps (increments) enter the sum too, as upstream does.
"""

import math
import os
import sys

import numpy as np

PEAK = 3e-4
FLOOR = 3e-5
WARMUP = 2160

# Published fits [L0, A, alpha, B, C, beta, gamma] (upstream src/config.py), fitted on cosine_24000.
PARAMS = {
    25: [3.04045406, 0.52468604, 0.50786857, 363.78751622, 2.06560812, 0.58279013, 0.64142257],
    100: [2.6514477, 0.60115152, 0.45295811, 437.9464276, 2.13245612, 0.59785199, 0.65523644],
    400: [2.37474466, 0.65421216, 0.42878731, 523.42464371, 2.02462735, 0.59350493, 0.63472457],
}

RUNS = [
    "constant_24000",
    "constant_72000",
    "cosine_24000",
    "cosine_72000",
    "wsd_20000_24000",
    "wsdcon_18",
    "wsdcon_3",
    "wsdcon_9",
    "wsdld_20000_24000",
]
TEST_RUNS = [
    "constant_72000",
    "cosine_72000",
    "wsd_20000_24000",
    "wsdld_20000_24000",
    "wsdcon_3",
    "wsdcon_18",
]
TRAIN_RUN = "cosine_24000"
EXTRA_400M = ["constant_24000", "wsdcon_9"]


def schedule(run):
    """Per-step learning rates, length T (the run's total steps), warmup included."""
    warm = np.linspace(0.0, PEAK, WARMUP)  # step s < 2160 gets s * PEAK / 2159
    kind, _, rest = run.partition("_")
    if kind in ("cosine", "constant"):
        total = int(rest)
        s = np.arange(WARMUP, total, dtype=float)
        if kind == "cosine":
            body = FLOOR + 0.5 * (PEAK - FLOOR) * (1.0 + np.cos(math.pi * (s - WARMUP) / (total - WARMUP)))
        else:
            body = np.full(s.shape, PEAK)
    elif kind in ("wsd", "wsdld"):
        d, total = (int(v) for v in rest.split("_"))
        s = np.arange(d, total, dtype=float)
        frac = (s - d) / (total - d)
        if kind == "wsd":  # geometric interpolation PEAK -> FLOOR
            decay = PEAK ** (1.0 - frac) * FLOOR ** frac
        else:  # linear interpolation PEAK -> FLOOR
            decay = PEAK * (1.0 - frac) + FLOOR * frac
        body = np.concatenate([np.full(d - WARMUP, PEAK), decay])
    elif kind == "wsdcon":
        second = int(rest) * 1e-5
        body = np.concatenate([np.full(8000 - WARMUP, PEAK), np.full(16000 - 8000, second)])
    else:
        raise ValueError(f"unknown schedule {run!r}")
    lrs = np.concatenate([warm, body])
    return lrs


def predict(lrs, steps, params):
    """Multi-power-law loss at each step in `steps`; loop over steps, numpy over k."""
    l0, a, alpha, b, c, beta, gamma = params
    cum = np.cumsum(lrs)
    inc = np.diff(lrs)  # inc[k-1] = lrs[k] - lrs[k-1], k = 1..T-1
    scale = c * lrs[1:] ** (-gamma)  # scale[k-1] = C * lrs[k]^(-gamma)
    out = np.empty(len(steps))
    for i, t in enumerate(steps):
        # k = 1..t  ->  index j = k-1 = 0..t-1; S(t) - S(k-1) = cum[t] - cum[j]
        x = scale[:t] * (cum[t] - cum[:t])
        ld = np.sum(inc[:t] * (1.0 - (1.0 + x) ** (-beta)))
        out[i] = l0 + a * cum[t] ** (-alpha) + b * ld
    return out


def read_run(path):
    """(step ints, lr floats, loss texts) of one upstream CSV, header step,lr,loss."""
    with open(path, newline="") as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    assert lines[0].split(",") == ["step", "lr", "loss"], (path, lines[0])
    rows = [line.split(",") for line in lines[1:]]
    return [int(r[0]) for r in rows], [float(r[1]) for r in rows], [r[2] for r in rows]


def evaluate(data_dir, size, run):
    """Kept rows of one run: (steps, logged lr, loss texts, loss, predicted, max rel. lr mismatch)."""
    steps, lr_logged, loss_text = read_run(os.path.join(data_dir, f"csv_{size}", f"{run}.csv"))
    lrs = schedule(run)
    total = len(lrs)
    keep = [
        i
        for i, s in enumerate(steps)
        if not (total == 24000 and s == 24000) and s < total  # upstream drops these rows
    ]
    steps = [steps[i] for i in keep]
    lr_logged = np.array([lr_logged[i] for i in keep])
    loss_text = [loss_text[i] for i in keep]
    loss = np.array([float(v) for v in loss_text])
    pred = predict(lrs, steps, PARAMS[size])
    lr_mismatch = float(np.max(np.abs(lrs[steps] - lr_logged) / lr_logged))
    return steps, loss_text, loss, pred, lr_mismatch


def r2(y, yhat):
    return 1.0 - np.sum((y - yhat) ** 2) / np.sum((y - np.mean(y)) ** 2)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.normpath(os.path.join(here, "..", "..", "..", "..", ".."))
    data_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(repo, "..", "shared", "data", "multipower_law")

    worst_lr = 0.0
    for size in (25, 100, 400):
        results = {run: evaluate(data_dir, size, run) for run in RUNS}
        worst_lr = max(worst_lr, *(res[4] for res in results.values()))
        scores = {run: r2(res[2], res[3]) for run, res in results.items()}
        print(f"{size}M")
        for run in TEST_RUNS:
            print(f"  {run:<18} R2 = {scores[run]:.6f}")
        mean = float(np.mean([scores[run] for run in TEST_RUNS]))
        print(f"  {'mean (6 test)':<18} R2 = {mean:.6f}  ({mean:.4f})")
        print(f"  {TRAIN_RUN + ' (fit)':<18} R2 = {scores[TRAIN_RUN]:.6f}")
        if size == 400:
            for run in EXTRA_400M:
                print(f"  {run:<18} R2 = {scores[run]:.6f}")
            out_path = os.path.join(here, "published_400m.csv")
            n = 0
            with open(out_path, "w", newline="\n") as f:
                f.write("run,step,loss,predicted\n")
                for run in RUNS:
                    steps, loss_text, _, pred, _ = results[run]
                    for s, lt, p in zip(steps, loss_text, pred):
                        f.write(f"{run},{s},{lt},{float(p)!r}\n")
                        n += 1
            print(f"wrote {n} rows to {os.path.relpath(out_path, repo)}")
    print(f"max relative gap between the logged lr column and the rebuilt schedule: {worst_lr:.3g}")


if __name__ == "__main__":
    main()
