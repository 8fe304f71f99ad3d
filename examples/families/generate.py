"""Writes the synthetic examples of the likelihood families (standard library only, seeded, so
the committed CSVs are what this script writes on any Python 3).

- neurons.csv: Rosetta-style neuron counts of 8 model sizes x 3 training seeds, the count a
  sublinear power law 0.004*N^0.55 with negative-binomial scatter (alpha = 0.05); the total
  neuron count 2.5e-3*N grows linearly, so the fraction of Rosetta neurons shrinks.
- memorisation.csv: sequences memorised per window of 1,000 at 14 training steps t for 5 model
  sizes N, Poisson around 1000*1e-3*t^0.6*exp(-t/(0.8*N^0.5)): a rate t^beta with a fixed
  beta = 0.6 and an upper cut-off x_c = c*N^gamma (c = 0.8, gamma = 0.5) that grows with N.

Run: python3 examples/families/generate.py (writes next to this file).
"""

import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))


def poisson(rng: random.Random, mu: float) -> int:
    """Inversion, term by term, in pieces of mean at most 500 (a sum of Poissons is Poisson;
    e^-mu underflows beyond about 745)."""
    if mu > 500:
        return poisson(rng, 500) + poisson(rng, mu - 500)
    k, p = 0, math.exp(-mu)
    cumulative, u = p, rng.random()
    while u > cumulative and k < 10 * mu + 100:
        k += 1
        p *= mu / k
        cumulative += p
    return k


def negative_binomial(rng: random.Random, mu: float, alpha: float) -> int:
    """NB2 (variance mu + alpha*mu^2) as a Poisson with a Gamma(1/alpha, alpha*mu) mean."""
    return poisson(rng, rng.gammavariate(1 / alpha, alpha * mu))


def neurons() -> None:
    rng = random.Random(22)
    sizes = [7e7, 1.6e8, 4.1e8, 1e9, 1.4e9, 2.8e9, 6.9e9, 1.2e10]
    lines = ["model,seed,params,total_neurons,rosetta"]
    for i, n in enumerate(sizes):
        for seed in range(3):
            count = negative_binomial(rng, 0.004 * n**0.55, 0.05)
            lines.append(f"m{i},{seed},{n:g},{round(2.5e-3 * n)},{count}")
    write("neurons.csv", lines)


def memorisation() -> None:
    rng = random.Random(23)
    lines = ["params,step,window,memorised"]
    for j in range(5):
        n = 1e6 * 4**j
        cut = 0.8 * n**0.5
        for i in range(14):
            t = 10 ** (1 + 4 * i / 13)
            rate = 1e-3 * t**0.6 * math.exp(-t / cut)
            lines.append(f"{n:g},{t:.6g},1000,{poisson(rng, 1000 * rate)}")
    write("memorisation.csv", lines)


def write(name: str, lines: list) -> None:
    with open(os.path.join(HERE, name), "w", newline="\n") as out:
        out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    neurons()
    memorisation()
