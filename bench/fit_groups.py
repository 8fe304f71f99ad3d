#!/usr/bin/env python3
"""Many fits at once (issue 25): the grouped fit of `scalinglaws fit --group` against the
notebook practice, a Python loop of `scipy.optimize.curve_fit` over the same learning curves.

Curves: `--curves` (default 10,000) synthetic learning curves of 20 points each, loss =
E + A*x^-alpha with E ~ U(1.5, 3), A ~ U(2, 20), alpha ~ U(0.2, 0.8), x log-spaced over 1e2..1e5,
and 1 % log-normal noise (seeded, Python's `random`: the same file every run).

- scalinglaws: `scalinglaws fit CURVES --law power_offset --target loss --group curve --table
  OUT`, wall time of the whole process (read, fit every group, write), best of `--repeats`:
  its default search (8 starts per curve, Huber loss on log residuals), and the same with
  `--loss linear`, least squares on log residuals: the objective the scipy loop minimises (the
  like-for-like ratio; the least-squares search screens its line of starts, see
  `fit::search::screen_out`).
- scipy: one `curve_fit` per curve in a loop, as a careful notebook does it: least squares on
  log loss, the bounds E, A, alpha >= 0 (so the trust-region reflective method), p0 = (1, 10,
  0.5), `maxfev=2000`; the time of the loop only (the CSV is parsed first, untimed). One start
  per curve. Both least-squares fits are then scored by their sum of squares on every curve:
  how often each ends above the other (a single start can stop in a worse basin).
- with `--ray`: the Python package's `fit_groups` on the same curves as a DataFrame, and
  `scalinglaws.ray.fit_groups` on a local Ray cluster of all cores (started before the clock).
- memory: the peak resident set size of `fit --group` on `--memory-curves` (default 100,000)
  curves, from `getrusage` of the child.

Writes the figures to stdout and, with `--out`, to a file (bench/results/fit_groups.txt).
Needs numpy and scipy for the scipy side; without them that side is skipped with the reason.
"""

import argparse
import csv
import math
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import warnings


def write_curves(path: str, curves: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    with open(path, "w") as out:
        out.write("curve,x,loss\n")
        for c in range(curves):
            e, a, alpha = rng.uniform(1.5, 3), rng.uniform(2, 20), rng.uniform(0.2, 0.8)
            for i in range(20):
                x = 10 ** (2 + 3 * i / 19)
                y = (e + a * x ** -alpha) * math.exp(0.01 * rng.gauss(0, 1))
                out.write(f"c{c:06d},{x:.6g},{y:.6g}\n")


def time_cli(binary: str, path: str, repeats: int, extra=()):
    """Best and median wall time of the whole process over `repeats`, and the table it wrote."""
    times = []
    with tempfile.TemporaryDirectory() as scratch:
        table = os.path.join(scratch, "fits.csv")
        command = [binary, "fit", path, "--law", "power_offset", "--target", "loss",
                   "--group", "curve", "--table", table, *extra]
        for _ in range(repeats):
            start = time.perf_counter()
            subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
        with open(table) as f:
            rows = list(csv.DictReader(f))
        failed = sum(r["status"] != "fitted" for r in rows)
        if failed:
            print(f"scalinglaws: {failed} of {len(rows)} groups failed")
    return min(times), statistics.median(times), rows


def read_curves(path: str):
    curves = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            curves.setdefault(row["curve"], []).append((float(row["x"]), float(row["loss"])))
    return curves


def time_scipy(path: str):
    """The loop's time, its failures, and each curve's fitted (E, A, alpha) (None if failed)."""
    try:
        import numpy as np
        from scipy.optimize import curve_fit
    except ImportError as error:
        return None, f"scipy side skipped: {error}", None
    curves = read_curves(path)
    data = [(np.log([p[0] for p in pts]), np.log([p[1] for p in pts])) for pts in curves.values()]

    def model(logx, e, a, alpha):
        return np.log(e + a * np.exp(-alpha * logx))

    failed = 0
    fitted = []
    warnings.simplefilter("ignore")
    start = time.perf_counter()
    for logx, logy in data:
        try:
            popt, _ = curve_fit(model, logx, logy, p0=[1.0, 10.0, 0.5],
                                bounds=([0, 0, 0], [np.inf, np.inf, np.inf]), maxfev=2000)
            fitted.append(popt)
        except (RuntimeError, ValueError):
            failed += 1
            fitted.append(None)
    elapsed = time.perf_counter() - start
    return elapsed, f"{failed} failed", dict(zip(curves, fitted))


def sum_of_squares(points, params) -> float:
    """Σ (log loss − log prediction)², the objective both least-squares fits minimise."""
    e, a, alpha = params
    total = 0.0
    for x, y in points:
        prediction = e + a * x ** -alpha
        if not prediction > 0:
            return math.inf
        total += (math.log(y) - math.log(prediction)) ** 2
    return total


def compare_optima(path: str, ours, theirs) -> str:
    """How often each least-squares fit ends above the other's sum of squares by more than
    1e-6 relative (below that, the two solvers' stopping tolerances): a single-start local fit
    can stop in a worse basin, a global search should not."""
    curves = read_curves(path)
    worse_ours = worse_theirs = 0
    largest = 0.0
    for row in ours:
        points = curves[row["curve"]]
        mine = sum_of_squares(points, [float(row[k]) for k in ("E", "A", "alpha")])
        other = theirs.get(row["curve"])
        other = math.inf if other is None else sum_of_squares(points, other)
        if mine > other * (1 + 1e-6):
            worse_ours += 1
        if other > mine * (1 + 1e-6):
            worse_theirs += 1
            largest = max(largest, other / mine - 1 if math.isfinite(other) else math.inf)
    return (f"least-squares optima (sums of squares apart by > 1e-6 relative): scipy's above "
            f"scalinglaws' on {worse_theirs} curves "
            f"(by up to {100 * largest:.3g} %), scalinglaws' above scipy's on {worse_ours}")


def time_python_and_ray(path: str, repeats: int):
    """The Python grouped fit and the same on a local Ray cluster (2 CPUs, started before the
    clock), best of `repeats` each; None with the reason where either is missing."""
    try:
        import pandas as pd
        import ray
        import scalinglaws as sl
        from scalinglaws import ray as sl_ray
    except ImportError as error:
        return None, f"Python and Ray sides skipped: {error}"
    frame = pd.read_csv(path)
    options = dict(group="curve", law="power_offset", target="loss")
    local = min(_timed(lambda: sl.fit_groups(frame, **options)) for _ in range(repeats))
    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False)
    try:
        remote = min(_timed(lambda: sl_ray.fit_groups(frame, **options)) for _ in range(repeats))
    finally:
        ray.shutdown()
    return (local, remote), ""


def _timed(work) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def peak_memory(binary: str, curves: int) -> float:
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "curves.csv")
        write_curves(path, curves, seed=1)
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        subprocess.run([binary, "fit", path, "--law", "power_offset", "--target", "loss",
                        "--group", "curve", "--table", os.path.join(scratch, "fits.csv")],
                       check=True, stdout=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    # ru_maxrss is in kilobytes on Linux; the children's maximum only grows.
    return max(before, after) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default="target/release/scalinglaws")
    parser.add_argument("--curves", type=int, default=10_000)
    parser.add_argument("--memory-curves", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--ray", action="store_true",
                        help="also time sl.fit_groups and scalinglaws.ray.fit_groups (needs pandas and ray)")
    parser.add_argument("--out")
    args = parser.parse_args()
    lines = [f"machine: {os.cpu_count()} cores; curves of 20 points, power_offset"]
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "curves.csv")
        write_curves(path, args.curves)
        cli, cli_median, _ = time_cli(args.binary, path, args.repeats)
        lines.append(f"scalinglaws fit --group (default: Huber loss, 8 starts): {args.curves} curves "
                     f"in {cli:.2f} s ({1e3 * cli / args.curves:.3f} ms a curve, best of {args.repeats}, "
                     f"median {cli_median:.2f} s, whole process)")
        squares, squares_median, ours = time_cli(args.binary, path, args.repeats, ["--loss", "linear"])
        lines.append(f"scalinglaws fit --group --loss linear (least squares, as scipy): {args.curves} curves "
                     f"in {squares:.2f} s ({1e3 * squares / args.curves:.3f} ms a curve, best of {args.repeats}, "
                     f"median {squares_median:.2f} s, whole process)")
        scipy, note, theirs = time_scipy(path)
        if scipy is None:
            lines.append(note)
        else:
            lines.append(f"scipy curve_fit loop: {args.curves} curves in {scipy:.2f} s "
                         f"({1e3 * scipy / args.curves:.3f} ms a curve, {note}; loop only)")
            lines.append(f"ratio, like for like (least squares): scalinglaws is {scipy / squares:.1f}x "
                         f"the scipy loop's throughput ({scipy / squares_median:.1f}x at the median run)")
            lines.append(f"ratio, default search (Huber) against the scipy loop: {scipy / cli:.1f}x")
            lines.append(compare_optima(path, ours, theirs))
        if args.ray:
            times, note = time_python_and_ray(path, args.repeats)
            if times is None:
                lines.append(note)
            else:
                local, remote = times
                lines.append(f"Python fit_groups: {args.curves} curves in {local:.2f} s (best of {args.repeats})")
                lines.append(f"Ray fit_groups on a local cluster: {args.curves} curves in {remote:.2f} s "
                             f"({remote / local:.2f}x the local Python fit; cluster started before the clock)")
    if args.memory_curves > 0:
        mb = peak_memory(args.binary, args.memory_curves)
        lines.append(f"peak memory of fit --group on {args.memory_curves} curves: {mb:.0f} MB")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
