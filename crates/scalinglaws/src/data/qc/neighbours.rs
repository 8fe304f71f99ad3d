//! Rule 5 of QC, `neighbour_outlier`: a run out of line with the other runs at its scale (the
//! rows equal on every scale column: the seeds of one (N, D), the repeated evaluations of one
//! checkpoint). Such cells are small, and a modified z-score (median and MAD) over a handful
//! of values is not on the scale of a z-score: with 5 normal runs the MAD is often tiny, and
//! |M| > 3.5 flags 5 % of ordinary runs (21 % of cells hold one), against 0.05 % for one normal
//! draw; the cutoff on |M| that matches the normal tail is 44 at 5 runs, 8.8 at 10, 4.7 at 30
//! (`bench/qc_small_cells.py`). On the public studies it flagged seeds 0.4 % above their cell.
//!
//! So each run is compared with the others of its cell by the externally studentized
//! deviation (the deletion residual of a location model; Cook & Weisberg 1982, *Residuals and
//! Influence in Regression*, §2.2; Belsley, Kuh & Welsch 1980's RSTUDENT):
//! t = (x − x̄₋) / (s₋ √(1 + 1/(n − 1))), where x̄₋ and s₋ are the mean and standard deviation
//! of the n − 1 others. Under normal run-to-run noise t follows Student's t with n − 2 degrees
//! of freedom exactly, whatever n, and the run itself does not widen the spread it is judged
//! by. The user's cutoff keeps its meaning as a z-score: a run is flagged when |t| is as rare
//! as |z| > cutoff for one normal draw (the t quantile at the same two-sided tail). Each cell
//! has its own spread: a spread pooled over cells was tried and flagged ordinary seed noise of
//! the noisier cells, since run-to-run noise differs between scales.

use crate::stats::normal::normal_sf;
use crate::stats::test_statistics::t_cdf;

/// A run's deletion t within its cell, with the others' mean and the cell's critical |t|.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deletion {
    pub t: f64,
    pub others_mean: f64,
    pub critical: f64,
}

/// The critical |t| on `df` degrees of freedom as rare as |z| > `cutoff` under the normal:
/// the t whose lower tail P(T < −t) equals the normal's upper tail beyond `cutoff`, by
/// bisection on the lower tail, which keeps its precision however far out (1 − tail would
/// round to 1 beyond a cutoff of about 8).
pub fn critical_t(cutoff: f64, df: f64) -> f64 {
    let tail = normal_sf(cutoff);
    if !(tail > 0.0) || !(df > 0.0) {
        return f64::INFINITY;
    }
    let (mut lo, mut hi) = (0.0f64, cutoff.max(1.0));
    while t_cdf(-hi, df) > tail {
        lo = hi;
        hi *= 2.0;
        if hi > 1e300 {
            return f64::INFINITY;
        }
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if hi - lo <= 1e-13 * mid {
            break;
        }
        match t_cdf(-mid, df) > tail {
            true => lo = mid,
            false => hi = mid,
        }
    }
    0.5 * (lo + hi)
}

/// Each value's deletion t against the others of `values` (None where the others have no
/// spread, or the cell has fewer than 3 values), flagged when beyond the critical value.
pub fn deletions(values: &[f64], cutoff: f64) -> Vec<Option<Deletion>> {
    let n = values.len();
    if n < 3 {
        return vec![None; n];
    }
    let count = n as f64;
    let mean = values.iter().sum::<f64>() / count;
    let squares: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
    let critical = critical_t(cutoff, count - 2.0);
    values
        .iter()
        .map(|&x| {
            let others_mean = (mean * count - x) / (count - 1.0);
            // Σ over the others of (v − x̄₋)² = Σ (v − x̄)² − n/(n − 1) (x − x̄)²; a remainder
            // at rounding level means the others have no spread.
            let others_squares = squares - count / (count - 1.0) * (x - mean).powi(2);
            let others_squares = match others_squares > 1e-12 * squares {
                true => others_squares,
                false => 0.0,
            };
            let sd = (others_squares / (count - 2.0)).sqrt();
            let scale = sd * (1.0 + 1.0 / (count - 1.0)).sqrt();
            (scale > 0.0).then(|| Deletion {
                t: (x - others_mean) / scale,
                others_mean,
                critical,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deletion_t_matches_its_definition() {
        let values = [2.526, 2.527, 2.5278, 2.5373, 2.5382];
        let all = deletions(&values, 3.5);
        let others = &values[..4];
        let mean = others.iter().sum::<f64>() / 4.0;
        let sd = (others.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / 3.0).sqrt();
        let t = (values[4] - mean) / (sd * (1.25f64).sqrt());
        let found = all[4].unwrap();
        assert!((found.t - t).abs() < 1e-9 * t.abs());
        assert!((found.others_mean - mean).abs() < 1e-12);
        // Two seeds 0.4 % above three: ordinary noise for 5 runs.
        assert!(all.iter().all(|d| d.unwrap().t.abs() < d.unwrap().critical));
    }

    #[test]
    fn the_critical_t_keeps_the_normal_tail_and_tends_to_the_cutoff() {
        // t on 3 df beyond 16.7 is as rare as |z| > 3.5 (2 × 2.33e-4; scipy: 16.7265).
        let at3 = critical_t(3.5, 3.0);
        assert!((at3 - 16.7265).abs() < 1e-3, "{at3}");
        assert!((critical_t(3.5, 1e6) - 3.5).abs() < 1e-3);
        // A cutoff far in the tail keeps its value (1 − sf would round to 1); scipy's t.isf.
        assert!((critical_t(9.0, 30.0) / 20.796573516352158 - 1.0).abs() < 1e-6);
        assert!((critical_t(9.0, 1e6) / 9.000184503197293 - 1.0).abs() < 1e-6);
        assert!(critical_t(3.5, 8.0) > critical_t(3.5, 30.0));
    }

    #[test]
    fn one_far_seed_stands_out_and_identical_others_measure_nothing() {
        let far = deletions(&[2.4692, 2.4700, 2.4705, 2.4698, 2.4913], 3.5);
        let d = far[4].unwrap();
        assert!(d.t > d.critical, "{d:?}");
        let flat = deletions(&[1.0, 1.0, 1.0, 2.0], 3.5);
        assert!(flat[3].is_none());
        // Four equal log losses and one other: the others' spread is rounding, not a spread.
        let v = 0.93_f64.ln();
        let rounding = deletions(&[v, v, v, v, 1.1_f64.ln()], 3.5);
        assert!(rounding[4].is_none(), "{:?}", rounding[4]);
        assert!(deletions(&[1.0, 2.0], 3.5).iter().all(Option::is_none));
    }
}
