//! Quantiles of mixtures of normal distributions: the equal-weight mixture that a bootstrap's
//! predictive distribution is, and the weighted mixture that stacking laws gives.

use super::normal::{normal_cdf, normal_quantile, normal_sf};
use super::sample::quantile_sorted;

/// Quantile q of the equal-weight mixture of normals N(`means[i]`, sd²), for q in (0, 1), sd > 0
/// and finite, non-empty `means`: the root of (1/n) Σ Φ((x − mᵢ)/sd) = q by bisection on
/// [min(m) + sd·Φ⁻¹(q), max(m) + sd·Φ⁻¹(q)] (widened by a few ulps), which contains it because
/// every component CDF is at most q at the left end and at least q at the right end. Absolute
/// accuracy ≤ 1e-12·(1 + |x|). sd = 0 gives the type-7 quantile of the means; q = 0 or 1 gives
/// ∓∞; anything else invalid gives NaN.
pub fn normal_mixture_quantile(means: &[f64], sd: f64, q: f64) -> f64 {
    if means.is_empty() || q.is_nan() || !(0.0..=1.0).contains(&q) || sd.is_nan() || sd < 0.0 {
        return f64::NAN;
    }
    if sd == 0.0 {
        let mut sorted = means.to_vec();
        sorted.sort_by(f64::total_cmp);
        return quantile_sorted(&sorted, q);
    }
    if q == 0.0 {
        return f64::NEG_INFINITY;
    }
    if q == 1.0 {
        return f64::INFINITY;
    }
    let min = means.iter().copied().fold(f64::INFINITY, f64::min);
    let max = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(min.is_finite() && max.is_finite() && sd.is_finite()) {
        return f64::NAN;
    }
    let shift = sd * normal_quantile(q);
    let (lo, hi) = (min + shift, max + shift);
    let slack = 8.0 * f64::EPSILON * (lo.abs() + hi.abs() + sd);
    bisect_mixture_quantile(means, sd, q, lo - slack, hi + slack)
}

/// Bisection for the mixture quantile until the bracket is narrower than 1e-13·(1 + |x|).
fn bisect_mixture_quantile(means: &[f64], sd: f64, q: f64, lo: f64, hi: f64) -> f64 {
    let (mut lo, mut hi) = (lo, hi);
    for _ in 0..2100 {
        let mid = 0.5 * (lo + hi);
        if hi - lo <= 1e-13 * (1.0 + mid.abs()) || mid <= lo || mid >= hi {
            return mid;
        }
        if mixture_cdf_is_below(means, sd, mid, q) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Whether the mixture CDF at x is below q; compared through the upper tail when q > 1/2 so
/// that upper quantiles keep their relative accuracy.
fn mixture_cdf_is_below(means: &[f64], sd: f64, x: f64, q: f64) -> bool {
    let n = means.len() as f64;
    if q <= 0.5 {
        means.iter().map(|m| normal_cdf((x - m) / sd)).sum::<f64>() / n < q
    } else {
        means.iter().map(|m| normal_sf((x - m) / sd)).sum::<f64>() / n > 1.0 - q
    }
}

/// The q-quantile of the mixture Σ wₖ N(μₖ, σₖ²) of normals with weights `weights` (summing to
/// one), means and standard deviations, by a safeguarded Newton iteration on its CDF (NaN for
/// an empty or invalid mixture). Used to average laws' predictive distributions (Yao et al.
/// 2018, stacking) and for the cross-study prior's intervals, which ask it once per point.
pub fn weighted_normal_mixture_quantile(components: &[(f64, f64, f64)], q: f64) -> f64 {
    let valid = |&(w, m, s): &(f64, f64, f64)| {
        w.is_finite() && w >= 0.0 && m.is_finite() && s.is_finite() && s > 0.0
    };
    let total: f64 = components.iter().map(|c| c.0).sum();
    if components.is_empty() || !components.iter().all(valid) || total <= 0.0 {
        return f64::NAN;
    }
    if !(q > 0.0 && q < 1.0) {
        return f64::NAN;
    }
    let z = normal_quantile(q);
    let lo = components
        .iter()
        .map(|&(_, m, s)| m + s * z.min(0.0) - s)
        .fold(f64::INFINITY, f64::min);
    let hi = components
        .iter()
        .map(|&(_, m, s)| m + s * z.max(0.0) + s)
        .fold(f64::NEG_INFINITY, f64::max);
    // The distance of the CDF from q (through the upper tail when q > 1/2, so that upper
    // quantiles keep their relative accuracy), and the density.
    let gap = |x: f64| -> (f64, f64) {
        let (mut tail, mut density) = (0.0, 0.0);
        for &(w, m, s) in components {
            let z = (x - m) / s;
            tail += w * if q <= 0.5 {
                normal_cdf(z)
            } else {
                normal_sf(z)
            };
            density += w * (-0.5 * z * z).exp() / (s * std::f64::consts::TAU.sqrt());
        }
        let (tail, density) = (tail / total, density / total);
        if q <= 0.5 {
            (tail - q, density)
        } else {
            ((1.0 - q) - tail, density)
        }
    };
    // Newton's steps on the CDF, kept inside a bracket that shrinks as bisection's would
    // (a safeguarded Newton method: Press et al., Numerical Recipes, 3rd ed., §9.4, rtsafe).
    let (mut lo, mut hi) = (lo, hi);
    let mut x = components
        .iter()
        .map(|&(w, m, s)| w * (m + s * z))
        .sum::<f64>()
        / total;
    if !(x > lo && x < hi) {
        x = 0.5 * (lo + hi);
    }
    for _ in 0..2100 {
        let (g, density) = gap(x);
        if g < 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let newton = x - g / density;
        let next = if density > 0.0 && newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if (next - x).abs() <= 1e-13 * (1.0 + x.abs()) || hi - lo <= 1e-13 * (1.0 + x.abs()) {
            return next;
        }
        x = next;
    }
    x
}

#[cfg(test)]
mod tests {
    //! Reference values were computed with mpmath 1.3 at 40 significant digits (`ncdf`,
    //! `gammainc(..., regularized=True)`, `loggamma`, and bisection on those for quantiles)
    //! unless another source is named; they agree with scipy.stats to the digits scipy prints.

    use super::*;
    use crate::stats::check::assert_abs;
    use crate::stats::normal::FRAC_1_SQRT_2PI;

    #[test]
    fn the_weighted_mixture_quantile_inverts_its_cdf() {
        let components = [(0.25, 0.0, 1.0), (0.75, 3.0, 0.5)];
        for q in [0.025, 0.3, 0.5, 0.9, 0.975] {
            let x = weighted_normal_mixture_quantile(&components, q);
            let cdf: f64 = components
                .iter()
                .map(|&(w, m, s)| w * normal_cdf((x - m) / s))
                .sum();
            assert!((cdf - q).abs() < 1e-12, "q {q}: cdf {cdf}");
        }
        let one = weighted_normal_mixture_quantile(&[(1.0, 2.0, 0.1)], 0.975);
        assert!((one - (2.0 + 0.1 * normal_quantile(0.975))).abs() < 1e-12);
        assert!(weighted_normal_mixture_quantile(&[], 0.5).is_nan());
    }

    /// Mixtures like the cross-study prior's (many nodes, widths over four decades, far-apart
    /// means): the quantile inverts the CDF to within the tolerance, in both tails.
    #[test]
    fn the_weighted_mixture_quantile_holds_on_wide_heavy_mixtures() {
        let components: Vec<(f64, f64, f64)> = (0..65)
            .map(|k| {
                let x = -8.0 + 0.25 * k as f64;
                let weight = (1.0 + x * x / 4.0).powf(-2.5);
                let scale = (-4.0 + 0.9 * x).exp();
                (weight, 1.1 * scale, (1e-4 + scale * scale * 2.3).sqrt())
            })
            .collect();
        let total: f64 = components.iter().map(|c| c.0).sum();
        for q in [1e-6, 0.005, 0.025, 0.5, 0.975, 0.995, 1.0 - 1e-6] {
            let x = weighted_normal_mixture_quantile(&components, q);
            let tail: f64 = components
                .iter()
                .map(|&(w, m, s)| {
                    w * if q <= 0.5 {
                        normal_cdf((x - m) / s)
                    } else {
                        normal_sf((x - m) / s)
                    }
                })
                .sum::<f64>()
                / total;
            let target = if q <= 0.5 { q } else { 1.0 - q };
            assert!((tail / target - 1.0).abs() < 1e-8, "q {q}: tail {tail}");
        }
    }

    #[test]
    fn mixture_of_equal_means_is_a_single_normal() {
        let means = [2.0; 5];
        for q in [1e-9, 0.025, 0.3, 0.5, 0.9, 0.975, 1.0 - 1e-9] {
            let expected = 2.0 + 0.3 * normal_quantile(q);
            let x = normal_mixture_quantile(&means, 0.3, q);
            assert_abs(x, expected, 1e-12 * (1.0 + expected.abs()));
        }
    }

    #[test]
    fn mixture_quantile_solves_the_mixture_cdf() {
        let means = [0.0, 1.0, 3.0];
        let sd = 0.5;
        // mpmath roots of (1/3) Σ Φ((x − mᵢ)/0.5) = q, q the f64 nearest to the literal.
        let cases = [
            (0.9, 3.262204611153281334003),
            (0.5, 1.025228371467188419725),
            (0.025, -0.7207886311085574085917),
        ];
        for (q, expected) in cases {
            let x = normal_mixture_quantile(&means, sd, q);
            assert_abs(x, expected, 1e-12 * (1.0 + expected.abs()));
        }
        for q in [1e-6, 0.01, 0.2, 0.5, 0.7, 0.99, 0.999999] {
            let x = normal_mixture_quantile(&means, sd, q);
            let cdf = means.iter().map(|m| normal_cdf((x - m) / sd)).sum::<f64>() / 3.0;
            let density = means
                .iter()
                .map(|m| (-0.5 * ((x - m) / sd).powi(2)).exp() * FRAC_1_SQRT_2PI / sd)
                .sum::<f64>()
                / 3.0;
            // An x error of 1e-12(1 + |x|) moves the CDF by at most density times that.
            assert_abs(
                cdf,
                q,
                density * 1e-12 * (1.0 + x.abs()) + 4.0 * f64::EPSILON,
            );
        }
    }

    #[test]
    fn mixture_quantile_edge_cases() {
        assert_abs(
            normal_mixture_quantile(&[3.0, 1.0, 7.5, 2.0], 0.0, 0.9),
            6.15,
            1e-14,
        );
        assert!(normal_mixture_quantile(&[], 1.0, 0.5).is_nan());
        assert!(normal_mixture_quantile(&[0.0], -1.0, 0.5).is_nan());
        assert!(normal_mixture_quantile(&[0.0], 1.0, 1.5).is_nan());
        assert_eq!(normal_mixture_quantile(&[0.0], 1.0, 0.0), f64::NEG_INFINITY);
        assert_eq!(normal_mixture_quantile(&[0.0], 1.0, 1.0), f64::INFINITY);
    }
}
