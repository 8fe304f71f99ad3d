//! The distributions of test statistics: chi-square (likelihood-ratio tests, profile
//! thresholds), Student's t (small-sample intervals) and F (nested least-squares models).

use statrs::distribution::{ChiSquared, ContinuousCDF};

use super::normal::{normal_cdf, normal_quantile, ppnd16};
use super::special::{beta_reg, gamma_p_and_q, ln_gamma};

/// Chi-square survival function P(X > x) with `df` > 0 degrees of freedom: Q(df/2, x/2), by
/// statrs (as exact as our incomplete gamma function at the statistics we test, see
/// [`crate::stats`]). x <= 0 gives 1; NaN arguments or df <= 0 give NaN.
pub fn chi2_sf(x: f64, df: f64) -> f64 {
    if x.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 1.0;
    }
    ChiSquared::new(df).map_or(f64::NAN, |chi2| chi2.sf(x))
}

/// Chi-square quantile: the x with P(X <= x) = p, for df > 0 and p in [0, 1) (p = 1 gives +∞,
/// anything else NaN). For df = 1, x = Φ⁻¹((1 + p)/2)², evaluated without forming (1 + p)/2.
/// Otherwise the Wilson–Hilferty approximation (or the small-x limit of the CDF, whichever is
/// larger) starts a Newton iteration on the CDF, safeguarded by bisection, to ~1e-13 relative.
pub fn chi2_quantile(p: f64, df: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) || df.is_nan() || df <= 0.0 || df.is_infinite() {
        return f64::NAN;
    }
    if p == 0.0 {
        return 0.0;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    if df == 1.0 {
        let z = ppnd16(0.5 * p, 0.5 * (1.0 - p));
        return z * z;
    }
    let start = chi2_quantile_start(p, df);
    if start == 0.0 {
        return 0.0; // the quantile underflows
    }
    chi2_quantile_newton(p, df, start)
}

/// Starting point: the larger of Wilson–Hilferty, (X/df)^(1/3) ≈ N(1 − 2/(9df), 2/(9df))
/// (E. B. Wilson & M. M. Hilferty, PNAS 17 (1931) 684–688), and the root of the small-x limit
/// P(X <= x) ≈ (x/2)^(df/2) / Γ(df/2 + 1), which never exceeds the true quantile because that
/// limit bounds the CDF from above.
fn chi2_quantile_start(p: f64, df: f64) -> f64 {
    let variance = 2.0 / (9.0 * df);
    let cube_root = 1.0 - variance + normal_quantile(p) * variance.sqrt();
    let wilson_hilferty = df * cube_root.max(0.0).powi(3);
    let a = 0.5 * df;
    let small_x = 2.0 * ((p.ln() + ln_gamma(a + 1.0)) / a).exp();
    wilson_hilferty.max(small_x)
}

/// Newton's method on the chi-square CDF, kept inside a shrinking bracket [lo, hi] around the
/// root: a step that leaves the bracket is replaced by bisection (or by doubling while no upper
/// bound is known yet).
fn chi2_quantile_newton(p: f64, df: f64, start: f64) -> f64 {
    let (mut lo, mut hi) = (0.0, f64::INFINITY);
    let mut x = start;
    for _ in 0..400 {
        let residual = chi2_cdf_minus(x, df, p);
        if residual == 0.0 {
            return x;
        }
        if residual < 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        let newton = x - residual / chi2_pdf(x, df);
        let next = if newton > lo && newton < hi {
            newton
        } else if hi.is_finite() {
            0.5 * (lo + hi)
        } else {
            2.0 * x
        };
        let step_is_negligible = (next - x).abs() <= 1e-13 * next;
        let bracket_is_tight = hi.is_finite() && hi - lo <= 4.0 * f64::EPSILON * hi;
        if step_is_negligible || bracket_is_tight {
            return next;
        }
        x = next;
    }
    x
}

/// P(X <= x) − p for X ~ χ²(df), taken from the upper tail when p > 1/2 so that neither side
/// loses digits to cancellation.
fn chi2_cdf_minus(x: f64, df: f64, p: f64) -> f64 {
    let (lower, upper) = gamma_p_and_q(0.5 * df, 0.5 * x);
    if p <= 0.5 {
        lower - p
    } else {
        (1.0 - p) - upper
    }
}

/// Chi-square density (x/2)^(df/2 − 1) e^(−x/2) / (2 Γ(df/2)) for x > 0.
fn chi2_pdf(x: f64, df: f64) -> f64 {
    let a = 0.5 * df;
    0.5 * ((a - 1.0) * (0.5 * x).ln() - 0.5 * x - ln_gamma(a)).exp()
}

/// Student's t CDF with `df` > 0 degrees of freedom (df = ∞ gives the normal CDF):
/// P(T <= t) = 1 − ½ I_{df/(df+t²)}(df/2, ½) for t > 0, by symmetry below.
pub fn t_cdf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if df.is_infinite() {
        return normal_cdf(t);
    }
    let tail = 0.5 * beta_reg(0.5 * df, 0.5, df / (df + t * t));
    if t > 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// Student's t quantile: the t with P(T <= t) = p, for p in (0, 1) and df > 0 (df = ∞ gives
/// the normal quantile); bisection on `t_cdf` to ~1e-13 relative, bracketed from the normal
/// quantile outwards.
pub fn t_quantile(p: f64, df: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if df.is_infinite() {
        return normal_quantile(p);
    }
    if p == 0.0 || p == 1.0 {
        return if p == 0.0 {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
    }
    if p < 0.5 {
        return -t_quantile(1.0 - p, df);
    }
    let (mut lo, mut hi) = (0.0, normal_quantile(p).max(1.0));
    while t_cdf(hi, df) < p {
        lo = hi;
        hi *= 2.0;
        if hi > 1e300 {
            return f64::INFINITY;
        }
    }
    for _ in 0..2000 {
        let mid = 0.5 * (lo + hi);
        if hi - lo <= 1e-14 * mid.max(1e-300) || mid <= lo || mid >= hi {
            return mid;
        }
        if t_cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// F distribution survival function P(F > f) with (d1, d2) degrees of freedom:
/// I_{d2/(d2 + d1 f)}(d2/2, d1/2). f <= 0 gives 1; NaN or non-positive degrees give NaN.
pub fn f_sf(f: f64, d1: f64, d2: f64) -> f64 {
    if f.is_nan() || d1.is_nan() || d2.is_nan() || d1 <= 0.0 || d2 <= 0.0 {
        return f64::NAN;
    }
    if f <= 0.0 {
        return 1.0;
    }
    beta_reg(0.5 * d2, 0.5 * d1, d2 / (d2 + d1 * f))
}

#[cfg(test)]
mod tests {
    //! Reference values were computed with mpmath 1.3 at 40 significant digits (`ncdf`,
    //! `gammainc(..., regularized=True)`, `loggamma`, and bisection on those for quantiles)
    //! unless another source is named; they agree with scipy.stats to the digits scipy prints.

    use super::*;
    use crate::stats::check::{assert_abs, assert_rel};

    #[test]
    fn chi2_sf_matches_reference_values() {
        // scipy.stats.chi2.sf(3.841458820694124, 1) = 0.05 (mpmath: 0.0500000000000000584).
        assert_rel(
            chi2_sf(3.841458820694124, 1.0),
            0.05000000000000005840,
            1e-14,
        );
        // scipy.stats.chi2.sf(11.070497693516351, 5) = 0.05 (mpmath: 0.0500000000000000614).
        assert_rel(
            chi2_sf(11.070497693516351, 5.0),
            0.05000000000000006142,
            1e-14,
        );
        // Epoch AI report a p-value ≈ 1.22e-16 for λ = 84 with 5 df. mpmath gives
        // 1.2197916546792881936e-16, confirmed by the closed form for odd df,
        // 2(1 − Φ(√x)) + 2φ(√x)(√x + x^(3/2)/3) at x = 84.
        let p = chi2_sf(84.0, 5.0);
        assert!((1.215e-16..1.225e-16).contains(&p), "{p:e}");
        assert_rel(p, 1.2197916546792881936e-16, 1e-13);
        assert_eq!(chi2_sf(0.0, 3.0), 1.0);
        assert_eq!(chi2_sf(-1.0, 3.0), 1.0);
        assert!(chi2_sf(1.0, 0.0).is_nan());
    }

    #[test]
    fn chi2_quantile_matches_reference_values() {
        // The values scipy.stats.chi2.ppf prints, to 1e-12.
        assert_rel(chi2_quantile(0.95, 1.0), 3.841458820694124, 1e-12);
        assert_rel(chi2_quantile(0.95, 5.0), 11.070497693516351, 1e-12);
        assert_rel(chi2_quantile(0.99, 2.0), 9.210340371976184, 1e-12);
        // df = 2 is the exponential distribution: x = −2 ln(1 − p), with 1 − p exact in f64.
        assert_rel(chi2_quantile(0.99, 2.0), -2.0 * (1.0 - 0.99f64).ln(), 1e-14);
        // mpmath roots for p the f64 nearest to the decimal literal (for p near 1 this differs
        // visibly from the root for the decimal p: 1 − 0.999999 = 1.00000000003e-6 in f64).
        let cases = [
            (0.95, 1.0, 3.841458820694124469102),
            (0.95, 5.0, 11.07049769351635188011),
            (0.5, 10.0, 9.341817765591967440625),
            (0.01, 0.5, 1.349939585911693650662e-8),
            (0.999999, 30.0, 82.04414313695700963375),
            (0.05, 3.0, 0.3518463177492714100096),
            (0.5, 0.1, 1.114775688149249504435e-6),
            (1e-10, 1.0, 1.570796326794896733695e-20),
            (0.3, 1000.0, 976.0735912577741419722),
        ];
        for (p, df, expected) in cases {
            assert_rel(chi2_quantile(p, df), expected, 1e-12);
        }
        assert_eq!(chi2_quantile(0.0, 4.0), 0.0);
        assert_eq!(chi2_quantile(1.0, 4.0), f64::INFINITY);
        assert!(chi2_quantile(1.5, 4.0).is_nan());
        assert!(chi2_quantile(0.5, -1.0).is_nan());
    }

    #[test]
    fn chi2_quantile_inverts_chi2_sf() {
        for df in [0.3, 1.0, 2.0, 3.0, 5.0, 7.5, 20.0, 100.0] {
            for p in [1e-8, 0.001, 0.05, 0.3, 0.5, 0.8, 0.95, 0.999, 1.0 - 1e-9] {
                let x = chi2_quantile(p, df);
                assert_rel(chi2_sf(x, df), 1.0 - p, 1e-11);
            }
        }
    }

    #[test]
    fn f_sf_matches_reference_values() {
        let cases = [
            (3.2, 2.0, 40.0, 0.051_385_456_071_628_078_6),
            (1.0, 3.0, 10.0, 0.432_337_203_021_697_065_08),
            (10.0, 2.0, 5.0, 0.017_888_543_819_998_317_571),
            (0.2, 1.0, 100.0, 0.655_688_007_195_762_532_94),
            (25.0, 2.0, 200.0, 2.037_035_976_334_486_086_3e-10),
        ];
        for (f, d1, d2, expected) in cases {
            assert_rel(f_sf(f, d1, d2), expected, 1e-10);
        }
        assert_abs(f_sf(0.0, 2.0, 3.0), 1.0, 0.0);
    }

    #[test]
    fn t_quantile_matches_reference_values() {
        let cases = [
            (0.975, 1.0, 12.706_204_736_174_693_314),
            (0.975, 3.0, 3.182_446_305_283_708_435_9),
            (0.975, 10.0, 2.228_138_851_986_274_224_5),
            (0.975, 60.0, 2.000_297_822_014_260_104_1),
            (0.995, 5.0, 4.032_142_983_555_227_179_3),
            (0.9, 2.5, 1.730_250_928_807_176_833),
            (0.6, 7.0, 0.263_166_861_352_022_752_15),
        ];
        for (p, df, expected) in cases {
            assert_rel(t_quantile(p, df), expected, 1e-11);
            assert_rel(t_quantile(1.0 - p, df), -expected, 1e-10);
            assert_rel(t_cdf(expected, df), p, 1e-12);
        }
        assert_rel(
            t_quantile(0.975, f64::INFINITY),
            1.959_963_984_540_054,
            1e-14,
        );
    }
}
