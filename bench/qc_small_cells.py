"""Why QC's neighbour rule does not use a modified z-score (issue 51, item 1): the per-run rate
at which |M| > 3.5 flags runs of a cell of n normal runs, and the cutoff on |M| that would flag
as rarely as |z| > 3.5 does for one normal draw (2.33e-4 each side), by simulation; against the
exact deletion t of data/qc/neighbours.rs (Student's t on n - 2 degrees of freedom).
Usage: python3 bench/qc_small_cells.py   (needs numpy and scipy)"""
import numpy as np
from scipy.stats import norm, t

rng = np.random.default_rng(1)
tail = 2 * norm.sf(3.5)
print(f"two-sided tail of |z| > 3.5: {tail:.3g}")
print(f"{'n':>4} {'P(|M|>3.5) per run':>20} {'cells with a flag':>18} {'cutoff on |M|':>14} {'critical t':>11}")
for n in [5, 6, 8, 10, 15, 20, 30, 50, 100]:
    reps = max(2_000_000 // n, 20_000)
    x = rng.standard_normal((reps, n))
    m = np.median(x, 1, keepdims=True)
    mad = np.median(np.abs(x - m), 1, keepdims=True)
    z = np.abs(0.6745 * (x - m) / mad)
    print(f"{n:>4} {(z > 3.5).mean():>20.4f} {(z > 3.5).any(1).mean():>18.3f} "
          f"{np.quantile(z.ravel(), 1 - tail):>14.1f} {t.isf(tail / 2, n - 2):>11.2f}")
