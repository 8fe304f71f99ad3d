"""Writes runs.csv: a synthetic IsoFLOP study drawn from Hoffmann et al. 2022's law
L = 1.69 + 406.4 N^-0.34 + 410.7 D^-0.28 along 6 N D = C, at 8 budgets half a decade apart
from 1e18 FLOPs, 9 sizes per budget over ±4x around a centre placed off the true optimum at
random (up to 2x either way), with 0.5 % multiplicative noise in the loss. Seeded: rerunning
writes the same file. Public domain (generated here)."""
import csv
import math
import random

E, A, ALPHA, B, BETA = 1.69, 406.4, 0.34, 410.7, 0.28
G = (ALPHA * A / (BETA * B)) ** (1 / (ALPHA + BETA))


def n_star(c: float) -> float:
    return G * (c / 6) ** (BETA / (ALPHA + BETA))


def main() -> None:
    rng = random.Random(18)
    with open("runs.csv", "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["C", "N", "D", "loss"])
        for i in range(8):
            c = 1e18 * 10 ** (0.5 * i)
            centre = n_star(c) * math.exp(rng.uniform(-1, 1) * math.log(2))
            for j in range(9):
                n = centre * math.exp(math.log(4) * (j - 4) / 4)
                d = c / (6 * n)
                loss = (E + A * n**-ALPHA + B * d**-BETA) * math.exp(0.005 * rng.gauss(0, 1))
                out.writerow([f"{c:.6g}", f"{n:.6g}", f"{d:.6g}", f"{loss:.6f}"])


if __name__ == "__main__":
    main()
