#!/usr/bin/env python3
"""Compares two `fit --group --table` outputs of the same curves, group by group: how often the
second's objective is above (worse) or below (better) the first's by more than 1e-9 relative,
and the largest gap. Used to check that a change of the search finds the same optima (the line
screening of least-squares searches: bench/results/screening.txt).

    python3 bench/compare_tables.py BEFORE.csv AFTER.csv
"""

import csv
import sys


def main() -> None:
    before, after = (
        {row["curve"]: row for row in csv.DictReader(open(path))} for path in sys.argv[1:3]
    )
    worse, better = [], []
    for key, row in before.items():
        first, second = float(row["objective"]), float(after[key]["objective"])
        relative = (second - first) / abs(first)
        if relative > 1e-9:
            worse.append(relative)
        elif relative < -1e-9:
            better.append(relative)
    unconverged = [sum(r["converged"] != "true" for r in t.values()) for t in (before, after)]
    print(f"{len(before)} curves; the second's objective above the first's on {len(worse)} "
          f"(by up to {100 * max(worse, default=0):.2g} %), below on {len(better)} "
          f"(by up to {100 * -min(better, default=0):.2g} %); unconverged {unconverged[0]} / "
          f"{unconverged[1]}")


if __name__ == "__main__":
    main()
