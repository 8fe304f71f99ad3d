"""Time of a fit called from Python against the library's own (issue 7: at most 1.5x).

Times `scalinglaws.fit` on Epoch's Chinchilla protocol (240 runs, default search) with the
data already in memory, two ways: a dict of numpy arrays of N, D and loss (the same numbers the
criterion benchmark `chinchilla_default_fit` fits), and the raw DataFrame with map/derive/where
(the data recipe then runs in Rust on every call). Both without the calibration beyond the
data, as the benchmark fits (the default calibrates by rolling-origin refits, in every face);
the last line times the default. Prints the median and the minimum over repeated calls; compare
with `cargo bench -p scalinglaws --bench fit -- chinchilla_default_fit`.

Run after `pip install .`:  python bench/python_fit.py
"""

import pathlib
import statistics
import time

import pandas as pd

import scalinglaws as sl

ROOT = pathlib.Path(__file__).resolve().parents[1]
frame = pd.read_csv(ROOT / "examples" / "chinchilla" / "chinchilla_epoch.csv")
kept = frame[frame["loss"] < 3.44]
arrays = {
    "N": kept["Model Size"].to_numpy(),
    "D": (kept["Training FLOP"] / (6 * kept["Model Size"])).to_numpy(),
    "loss": kept["loss"].to_numpy(),
}


def timed(call, runs=300):
    for _ in range(20):
        call()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


for label, call in [
    (
        "dict of arrays (N, D, loss)",
        lambda: sl.fit(arrays, law="chinchilla", target="loss", calibrate=False),
    ),
    (
        "DataFrame with map/derive/where",
        lambda: sl.fit(
            frame, law="chinchilla", target="loss",
            map={"N": "Model Size", "C": "Training FLOP"}, derive={"D": "C/(6*N)"},
            where="loss < 3.44", calibrate=False,
        ),
    ),
    (
        "dict of arrays, calibrated (default)",
        lambda: sl.fit(arrays, law="chinchilla", target="loss"),
    ),
]:
    median, best = timed(call)
    print(f"{label:34s} median {median * 1e3:.2f} ms, min {best * 1e3:.2f} ms")
