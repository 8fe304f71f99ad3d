"""The README's Python example: Epoch AI's protocol on Hoffmann et al.'s runs, from Python.

Run from the repository root after `pip install .`:  python examples/python/quickstart.py
"""

import pathlib

import scalinglaws as sl

ROOT = pathlib.Path(__file__).resolve().parents[2]

fit = sl.fit(
    ROOT / "examples" / "chinchilla" / "chinchilla_epoch.csv",  # or a DataFrame, or a dict of arrays
    law="chinchilla",
    target="loss",
    map={"N": "Model Size", "C": "Training FLOP"},
    derive={"D": "C/(6*N)"},
    where="loss < 3.44",
)
print(fit)
print(f"objective {fit.objective:.10e}")
print("alpha", fit.params["alpha"], "+/-", fit.stderr["alpha"])
value, low, high = fit.predict(N=7e10, D=1.4e12, interval="prediction")
print(f"L(7e10, 1.4e12) = {float(value):.5f}, 95% prediction interval [{float(low):.5f}, {float(high):.5f}]")
frontier = sl.optimal(fit, budget=[1e22, 1e24])  # a typed result: sl.Frontier
for allocation in frontier.allocations:
    print(f"C = {allocation.budget:.0e}: N* = {allocation.N:.3e}, D* = {allocation.D:.3e}")
