//! Summaries of samples: type-7 quantiles, percentile intervals, the sample standard deviation
//! and the least-squares line.

/// Quantile of a sample by linear interpolation between order statistics (R. J. Hyndman &
/// Y. Fan, "Sample quantiles in statistical packages", Am. Stat. 50 (1996) 361–365, type 7;
/// numpy's default `linear` method, including its interpolation formula). `sorted` must be
/// sorted ascending; q is clamped to [0, 1]. An empty slice or a NaN q gives NaN.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() || q.is_nan() {
        return f64::NAN;
    }
    let last = sorted.len() - 1;
    let position = q.clamp(0.0, 1.0) * last as f64;
    let below = (position.floor() as usize).min(last);
    let fraction = position - below as f64;
    if fraction == 0.0 {
        return sorted[below];
    }
    interpolate(sorted[below], sorted[(below + 1).min(last)], fraction)
}

/// a + (b − a)t, computed from the nearer end as numpy's `_lerp` does.
fn interpolate(a: f64, b: f64, t: f64) -> f64 {
    let difference = b - a;
    if t >= 0.5 {
        b - difference * (1.0 - t)
    } else {
        a + difference * t
    }
}

/// Sample standard deviation with n − 1 in the denominator (two-pass: mean, then squared
/// deviations). None for fewer than 2 values or a non-finite result.
pub fn sample_std(values: &[f64]) -> Option<f64> {
    if values.len() < 2 {
        return None;
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let squares: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
    let std = (squares / (n - 1.0)).sqrt();
    std.is_finite().then_some(std)
}

/// The equal-tailed percentile interval at `level` of a sample (type-7 quantiles at
/// (1 − level)/2 and (1 + level)/2); the sample is sorted here.
pub fn percentile_interval(mut values: Vec<f64>, level: f64) -> [f64; 2] {
    values.sort_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0;
    [
        quantile_sorted(&values, tail),
        quantile_sorted(&values, 1.0 - tail),
    ]
}

/// Ordinary least-squares line through (x, y) points: (slope, intercept); None when every x is
/// the same (or there are no points).
pub fn least_squares_line(points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = points.len() as f64;
    let mx = points.iter().map(|p| p.0).sum::<f64>() / n;
    let my = points.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = points.iter().map(|p| (p.0 - mx).powi(2)).sum();
    (sxx > 0.0).then(|| {
        let slope = sxy / sxx;
        (slope, my - slope * mx)
    })
}

#[cfg(test)]
mod tests {
    //! Reference values were computed with mpmath 1.3 at 40 significant digits (`ncdf`,
    //! `gammainc(..., regularized=True)`, `loggamma`, and bisection on those for quantiles)
    //! unless another source is named; they agree with scipy.stats to the digits scipy prints.

    use super::*;
    use crate::stats::check::{assert_abs, assert_rel};

    #[test]
    fn quantile_sorted_matches_numpy_linear_method() {
        // Type 7: position q(n − 1), linear between neighbours. For [1, 2, 3, 7.5] this is
        // what numpy.quantile([3.0, 1.0, 7.5, 2.0], q) returns: 1.75, 2.5, 6.15.
        let sorted = [1.0, 2.0, 3.0, 7.5];
        assert_abs(quantile_sorted(&sorted, 0.25), 1.75, 1e-15);
        assert_abs(quantile_sorted(&sorted, 0.5), 2.5, 1e-15);
        assert_abs(quantile_sorted(&sorted, 0.9), 6.15, 1e-14);
        assert_abs(quantile_sorted(&sorted, 0.0), 1.0, 0.0);
        assert_abs(quantile_sorted(&sorted, 1.0), 7.5, 0.0);
        assert_abs(quantile_sorted(&sorted, -3.0), 1.0, 0.0);
        assert_abs(quantile_sorted(&sorted, 3.0), 7.5, 0.0);
        assert_abs(quantile_sorted(&[4.0], 0.3), 4.0, 0.0);
        assert!(quantile_sorted(&[], 0.5).is_nan());
    }

    #[test]
    fn sample_std_uses_n_minus_one() {
        // Mean 5, squared deviations sum to 32: √(32/7) (Python's statistics.stdev agrees).
        let values = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        assert_rel(sample_std(&values).unwrap(), (32.0f64 / 7.0).sqrt(), 1e-15);
        assert_eq!(sample_std(&[1.0]), None);
        assert_eq!(sample_std(&[]), None);
        assert_eq!(sample_std(&[1.0, f64::INFINITY]), None);
    }
}
