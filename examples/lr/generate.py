"""Writes the synthetic learning-rate sweeps of this folder (no real data is copied here).

sweep.csv: 5 model sizes (12M-400M) x 5 horizons (2e8-3e10 tokens) x 5 peak LRs a factor of
two apart around a guess within +-0.35 e-folds of the true optimum, from the law
ln lr* = -5.90 - 0.282 ln(N/N0) + 0.005 ln(D/D0) (N0, D0 the geometric means of the grid), with
loss profiles L = L*(N, D) + k (ln lr - ln lr*)^2, k = 0.2 (D/2e8)^-0.5, and Gaussian noise of
0.01. The same design as crates/scalinglaws/tests/integration/lr.rs.

sweep_batch.csv: 4 sizes x 4 horizons x 5 batch sizes x 5 LRs, with B* = 0.5 D^0.4 and a loss
penalty of 0.05 per squared e-fold of batch size away from B*, noise 0.002.

Run: python3 generate.py (standard library only; the output is deterministic).
"""

import csv
import math
import random

N_GRID = [1.2e7 * (4e8 / 1.2e7) ** (i / 4) for i in range(5)]
D_GRID = [2e8 * (3e10 / 2e8) ** (i / 4) for i in range(5)]
N0 = math.sqrt(1.2e7 * 4e8)
D0 = math.sqrt(2e8 * 3e10)


def log_lr(n, d):
    return -5.90 - 0.282 * math.log(n / N0) + 0.005 * math.log(d / D0)


def floor(n, d):
    return 2.0 + 250.0 * n**-0.3 + 250.0 * d**-0.28


def sweep(rng):
    rows = []
    for n in N_GRID:
        for d in D_GRID:
            optimum = log_lr(n, d)
            guess = optimum + 0.7 * (rng.random() - 0.5)
            k = 0.2 * (d / 2e8) ** -0.5
            for step in range(-2, 3):
                x = guess + step * math.log(2)
                loss = floor(n, d) + k * (x - optimum) ** 2 + 0.01 * rng.gauss(0, 1)
                rows.append([f"{n:.6g}", f"{d:.6g}", f"{math.exp(x):.6g}", f"{loss:.5f}"])
    return rows


def sweep_batch(rng):
    rows = []
    for i in range(4):
        n = 2e7 * 20 ** (i / 3)
        for j in range(4):
            d = 1e9 * 100 ** (j / 3)
            b_star = math.log(0.5 * d**0.4)
            optimum = log_lr(n, d)
            for db in range(-2, 3):
                b = b_star + 0.2 + db * math.log(2)
                base = floor(n, d) + 0.05 * (b - b_star) ** 2
                for step in range(-2, 3):
                    x = optimum + step * math.log(2)
                    loss = base + 0.1 * (x - optimum) ** 2 + 0.002 * rng.gauss(0, 1)
                    rows.append(
                        [f"{n:.6g}", f"{d:.6g}", f"{round(math.exp(b))}", f"{math.exp(x):.6g}", f"{loss:.5f}"]
                    )
    return rows


def write(path, header, rows):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


if __name__ == "__main__":
    write("sweep.csv", ["params", "tokens", "peak_lr", "loss"], sweep(random.Random(2026)))
    write(
        "sweep_batch.csv",
        ["params", "tokens", "batch", "peak_lr", "loss"],
        sweep_batch(random.Random(2027)),
    )
