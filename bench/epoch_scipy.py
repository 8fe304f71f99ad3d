#!/usr/bin/env python3
"""Reference fit for the end-to-end benchmark: Epoch AI's Chinchilla replication, in scipy.

What this reproduces, and where it comes from
---------------------------------------------
Besiroglu, Erdil, Barnett, You (2024), "Chinchilla Scaling: A replication attempt"
(arXiv:2404.10102); repository epoch-research/analyzing-chinchilla, notebook
`data_analysis.ipynb`. Read in two stored versions of the notebook, commits
4c97be9c9f4c7982c6de1cfa6be6f119c1163520 and 4d27c36da20dd49a797ca1fdd9df01cb4b929037, which
agree in every cell used here:

* "Loading files": `training_df['Training Tokens'] = training_df['Training FLOP']/(6.0*training_df['Model Size'])`,
  then `training_df[['Model Size', 'Training Tokens', 'Training FLOP', 'loss']].dropna()`.
  The data is `svg_extracted_data.csv`, bundled here as examples/chinchilla/chinchilla_epoch.csv.
* "Define things": `nr_of_models_excluded = 5`;
  `indices = [i for i in range(len(N)) if losses[i] < sorted_losses[-nr_of_models_excluded]]`
  (a strict `<` against the 5th-highest loss, so the 5 highest losses go: 240 of 245 rows remain).
* The functions cell: `log_sum_exp(a, b, e, alpha, beta, N, D) =
  np.log(np.exp(a - alpha * np.log(N)) + np.exp(b - beta * np.log(D)) + np.exp(e))` (the plain
  log of a sum, not a max-shifted logsumexp); `custom_huber_loss(y_true, y_pred, delta=1e-3)` is
  `sum(where(|d| <= delta, 0.5*d**2, delta*(|d| - 0.5*delta)))` with `d = y_true - y_pred`; and
  `huber_loss_objective(params, N, D, losses)` with `params = [a, b, e, alpha, beta]` is
  `custom_huber_loss(np.log(losses), log_sum_exp(...), delta=1e-3)`: summed, not averaged.
* "Replicate exactly": `alpha_vals = beta_vals = np.arange(0, 2.5, 0.5)`,
  `e_vals = np.arange(-1, 1.5, 0.5)`, `a_vals = b_vals = np.arange(0, 30, 5)`; for
  `alpha, beta, e, a, b in product(alpha_vals, beta_vals, e_vals, a_vals, b_vals)` (4,500 starts)
  `minimize(huber_loss_objective, [a, b, e, alpha, beta], args=(N[indices], D[indices],
  losses[indices]), method='L-BFGS-B')`: no `jac` (so scipy's finite-difference gradient, 2-point,
  eps 1e-8), no bounds, default options. A result replaces the best only if
  `result.success and result.fun < best_loss`.
* The notebook's recorded output of that cell: best loss 0.00101827402401235 from the start
  [25, 15, -1.0, 0.5, 1.0], "A=477.9237687368171, B=2143.069028946833, E=1.8172225059988196,
  alpha=0.3473226657739243, beta=0.3671641565590177".
* The imports cell sets `np.seterr(over='ignore')`, `np.seterr(invalid='ignore')` and ignores
  scipy's OptimizeWarning; so does this script.

One deliberate difference: the notebook imports `autograd.numpy as np`; without a `jac` autograd
only wraps the same numpy calls, so plain numpy gives the same values and is, if anything, a little
faster (which only favours the reference in the timing). Everything else is as in the notebook.

Output: one JSON line with the best parameters (A, B, E and their logs a, b, e; alpha, beta), the
objective, the start that reached it, the predicted loss at (N, D) = (7e10, 1.4e12) and
(1e12, 2e13), the package versions and the wall time of the 4,500-start loop (`fit_s`) and of the
whole script (`wall_s`, from just before the imports of numpy/scipy/pandas).

Usage: python bench/epoch_scipy.py [CSV]   (default: examples/chinchilla/chinchilla_epoch.csv)
"""

import time

_T0 = time.perf_counter()

import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import warnings  # noqa: E402
from itertools import product  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import scipy  # noqa: E402
from scipy.optimize import OptimizeWarning, minimize  # noqa: E402

np.seterr(over="ignore")
np.seterr(invalid="ignore")
warnings.filterwarnings("ignore", category=OptimizeWarning)
# Not in the notebook: keep stderr quiet (log of a non-positive sum during a line search).
# It changes no value.
warnings.filterwarnings("ignore", category=RuntimeWarning)

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CSV = os.path.join(HERE, "..", "examples", "chinchilla", "chinchilla_epoch.csv")
PREDICT_AT = [(7e10, 1.4e12), (1e12, 2e13)]


def log_sum_exp(a, b, e, alpha, beta, N, D):
    return np.log(np.exp(a - alpha * np.log(N)) + np.exp(b - beta * np.log(D)) + np.exp(e))


def custom_huber_loss(y_true, y_pred, delta=1e-3):
    diff = y_true - y_pred
    cond = np.abs(diff) <= delta
    loss = np.where(cond, 0.5 * diff**2, delta * (np.abs(diff) - 0.5 * delta))
    return np.sum(loss)


def huber_loss_objective(params, N, D, losses):
    a, b, e, alpha, beta = params
    predictions = log_sum_exp(a, b, e, alpha, beta, N, D)
    return custom_huber_loss(np.log(losses), predictions, delta=1e-3)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else DEFAULT_CSV
    training_df = pd.read_csv(path)
    training_df["Training Tokens"] = training_df["Training FLOP"] / (6.0 * training_df["Model Size"])
    training_df = training_df[["Model Size", "Training Tokens", "Training FLOP", "loss"]].dropna()

    nr_of_models_excluded = 5
    N = training_df["Model Size"].values
    D = training_df["Training Tokens"].values
    losses = training_df["loss"].values
    sorted_losses = sorted(losses)
    indices = [i for i in range(len(N)) if losses[i] < sorted_losses[-nr_of_models_excluded]]

    alpha_vals = np.arange(0, 2.5, 0.5)
    beta_vals = np.arange(0, 2.5, 0.5)
    e_vals = np.arange(-1, 1.5, 0.5)
    a_vals = np.arange(0, 30, 5)
    b_vals = np.arange(0, 30, 5)

    best_loss = np.inf
    best_params = None
    best_init = None
    starts = 0
    successes = 0
    t_fit = time.perf_counter()
    for alpha, beta, e, a, b in product(alpha_vals, beta_vals, e_vals, a_vals, b_vals):
        init_params = [a, b, e, alpha, beta]
        result = minimize(huber_loss_objective, init_params,
                          args=(N[indices], D[indices], losses[indices]), method="L-BFGS-B")
        starts += 1
        successes += bool(result.success)
        if result.success and result.fun < best_loss:
            best_loss = result.fun
            best_params = result.x
            best_init = [float(v) for v in init_params]
    fit_s = time.perf_counter() - t_fit

    if best_params is None:
        print(json.dumps({"error": "Optimization failed to converge.", "starts": starts}))
        return 1
    a, b, e, alpha, beta = (float(v) for v in best_params)
    predictions = [
        {"N": n, "D": d, "loss": float(np.exp(log_sum_exp(a, b, e, alpha, beta, n, d)))}
        for n, d in PREDICT_AT
    ]
    print(json.dumps({
        "reference": "epoch-research/analyzing-chinchilla data_analysis.ipynb, 'Replicate exactly'",
        "rows": len(indices),
        "starts": starts,
        "successful_starts": successes,
        "best_start": best_init,
        "E": float(np.exp(e)), "A": float(np.exp(a)), "B": float(np.exp(b)),
        "alpha": alpha, "beta": beta,
        "a": a, "b": b, "e": e,
        "objective": float(best_loss),
        "predictions": predictions,
        "fit_s": round(fit_s, 3),
        "wall_s": round(time.perf_counter() - _T0, 3),
        "python": sys.version.split()[0],
        "numpy": np.__version__, "scipy": scipy.__version__, "pandas": pd.__version__,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
