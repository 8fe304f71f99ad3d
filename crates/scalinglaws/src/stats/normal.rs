//! The standard normal distribution: CDF, upper tail and quantile, to about one ulp over the whole
//! range, tails included. Kept by hand rather than taken from statrs: statrs's `erfc` is ~1e-10
//! relative off for |x| in [0.7, 3.7] (see the table in [`crate::stats`]), and the quantile's
//! exact-argument form [`ppnd16`] also serves the chi-square quantile with one degree of freedom.

// The rational-approximation coefficients are kept exactly as published, even where they carry
// more digits than an f64 holds.
#![allow(clippy::excessive_precision)]

/// 1/√(2π).
pub(super) const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_677_939_946_059_934;

/// Standard normal CDF Φ(x), accurate to ~1e-15 relative over the whole range, tails included.
///
/// W. J. Cody's rational Chebyshev approximations ("Rational Chebyshev approximations for the
/// error function", Math. Comp. 23 (1969) 631–637; routine ANORM of ACM TOMS Algorithm 715,
/// 1993), arranged as in R's `pnorm_both`.
pub fn normal_cdf(x: f64) -> f64 {
    normal_cdf_and_sf(x).0
}

/// Upper tail 1 − Φ(x), computed directly so that it stays accurate in the far upper tail
/// (x = 30 gives ~4.9e-198, where 1 − Φ(x) would give 0). Same algorithm as [`normal_cdf`].
pub fn normal_sf(x: f64) -> f64 {
    normal_cdf_and_sf(x).1
}

/// (Φ(x), 1 − Φ(x)) by Cody's three approximations: a rational function of x² around 0, and
/// e^(−x²/2) times a rational function of |x| (middle) or of 1/x² (far tails) elsewhere.
fn normal_cdf_and_sf(x: f64) -> (f64, f64) {
    if x.is_nan() {
        return (f64::NAN, f64::NAN);
    }
    let y = x.abs();
    if y <= 0.674_489_75 {
        let offset = cody_central(x);
        return (0.5 + offset, 0.5 - offset);
    }
    let smaller_tail = if y <= 32f64.sqrt() {
        gaussian_factor(y) * cody_middle(y)
    } else if y < 40.0 {
        gaussian_factor(y) * cody_far(y)
    } else {
        0.0
    };
    if x > 0.0 {
        (1.0 - smaller_tail, smaller_tail)
    } else {
        (smaller_tail, 1.0 - smaller_tail)
    }
}

/// Φ(x) − 1/2 for |x| <= 0.6745 (Cody's first interval).
fn cody_central(x: f64) -> f64 {
    const A: [f64; 5] = [
        2.2352520354606839287,
        161.02823106855587881,
        1067.6894854603709582,
        18154.981253343561249,
        0.065682337918207449113,
    ];
    const B: [f64; 4] = [
        47.20258190468824187,
        976.09855173777669322,
        10260.932208618978205,
        45507.789335026729956,
    ];
    let xsq = x * x;
    let mut numerator = A[4] * xsq;
    let mut denominator = xsq;
    for i in 0..3 {
        numerator = (numerator + A[i]) * xsq;
        denominator = (denominator + B[i]) * xsq;
    }
    x * (numerator + A[3]) / (denominator + B[3])
}

/// (1 − Φ(y)) e^(y²/2) for 0.6745 < y <= √32 (Cody's second interval).
fn cody_middle(y: f64) -> f64 {
    const C: [f64; 9] = [
        0.39894151208813466764,
        8.8831497943883759412,
        93.506656132177855979,
        597.27027639480026226,
        2494.5375852903726711,
        6848.1904505362823326,
        11602.651437647350124,
        9842.7148383839780218,
        1.0765576773720192317e-8,
    ];
    const D: [f64; 8] = [
        22.266688044328115691,
        235.38790178262499861,
        1519.377599407554805,
        6485.558298266760755,
        18615.571640885098091,
        34900.952721145977266,
        38912.003286093271411,
        19685.429676859990727,
    ];
    let mut numerator = C[8] * y;
    let mut denominator = y;
    for i in 0..7 {
        numerator = (numerator + C[i]) * y;
        denominator = (denominator + D[i]) * y;
    }
    (numerator + C[7]) / (denominator + D[7])
}

/// (1 − Φ(y)) e^(y²/2) for y > √32 (Cody's third interval, an expansion in 1/y²).
fn cody_far(y: f64) -> f64 {
    const P: [f64; 6] = [
        0.21589853405795699,
        0.1274011611602473639,
        0.022235277870649807,
        0.001421619193227893466,
        2.9112874951168792e-5,
        0.02307344176494017303,
    ];
    const Q: [f64; 5] = [
        1.28426009614491121,
        0.468238212480865118,
        0.0659881378689285515,
        0.00378239633202758244,
        7.29751555083966205e-5,
    ];
    let inv_sq = 1.0 / (y * y);
    let mut numerator = P[5] * inv_sq;
    let mut denominator = inv_sq;
    for i in 0..4 {
        numerator = (numerator + P[i]) * inv_sq;
        denominator = (denominator + Q[i]) * inv_sq;
    }
    let correction = inv_sq * (numerator + P[4]) / (denominator + Q[4]);
    (FRAC_1_SQRT_2PI - correction) / y
}

/// e^(−y²/2) without the rounding error of squaring y: y is split into a part with four
/// fractional bits, whose square is exact, and a small remainder (Cody's device, as in R).
fn gaussian_factor(y: f64) -> f64 {
    let coarse = (y * 16.0).trunc() / 16.0;
    let remainder = (y - coarse) * (y + coarse);
    (-0.5 * coarse * coarse).exp() * (-0.5 * remainder).exp()
}

/// Standard normal quantile Φ⁻¹(p): M. J. Wichura, "Algorithm AS 241: The percentage points of
/// the normal distribution", Applied Statistics 37 (1988) 477–484 (PPND16, ~1e-16 relative).
/// Returns −∞ at 0, +∞ at 1 and NaN outside [0, 1].
pub fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 1.0 {
        return f64::INFINITY;
    }
    // Both arguments are exact: p − 0.5 and, for p >= 0.5, 1 − p (Sterbenz).
    ppnd16(p - 0.5, p.min(1.0 - p))
}

/// AS 241 given `offset` = p − 1/2 and `tail` = min(p, 1 − p), both supplied exactly by the
/// caller (so that e.g. the chi-square quantile with one degree of freedom loses no digits).
pub(super) fn ppnd16(offset: f64, tail: f64) -> f64 {
    const A: [f64; 8] = [
        3.3871328727963666080e0,
        1.3314166789178437745e+2,
        1.9715909503065514427e+3,
        1.3731693765509461125e+4,
        4.5921953931549871457e+4,
        6.7265770927008700853e+4,
        3.3430575583588128105e+4,
        2.5090809287301226727e+3,
    ];
    const B: [f64; 8] = [
        1.0,
        4.2313330701600911252e+1,
        6.8718700749205790830e+2,
        5.3941960214247511077e+3,
        2.1213794301586595867e+4,
        3.9307895800092710610e+4,
        2.8729085735721942674e+4,
        5.2264952788528545610e+3,
    ];
    const C: [f64; 8] = [
        1.42343711074968357734e0,
        4.63033784615654529590e0,
        5.76949722146069140550e0,
        3.64784832476320460504e0,
        1.27045825245236838258e0,
        2.41780725177450611770e-1,
        2.27238449892691845833e-2,
        7.74545014278341407640e-4,
    ];
    const D: [f64; 8] = [
        1.0,
        2.05319162663775882187e0,
        1.67638483018380384940e0,
        6.89767334985100004550e-1,
        1.48103976427480074590e-1,
        1.51986665636164571966e-2,
        5.47593808499534494600e-4,
        1.05075007164441684324e-9,
    ];
    const E: [f64; 8] = [
        6.65790464350110377720e0,
        5.46378491116411436990e0,
        1.78482653991729133580e0,
        2.96560571828504891230e-1,
        2.65321895265761230930e-2,
        1.24266094738807843860e-3,
        2.71155556874348757815e-5,
        2.01033439929228813265e-7,
    ];
    const F: [f64; 8] = [
        1.0,
        5.99832206555887937690e-1,
        1.36929880922735805310e-1,
        1.48753612908506148525e-2,
        7.86869131145613259100e-4,
        1.84631831751005468180e-5,
        1.42151175831644588870e-7,
        2.04426310338993978564e-15,
    ];
    if offset.abs() <= 0.425 {
        let r = 0.180625 - offset * offset;
        return offset * horner(&A, r) / horner(&B, r);
    }
    let r = (-tail.ln()).sqrt();
    let magnitude = if r <= 5.0 {
        horner(&C, r - 1.6) / horner(&D, r - 1.6)
    } else {
        horner(&E, r - 5.0) / horner(&F, r - 5.0)
    };
    if offset < 0.0 {
        -magnitude
    } else {
        magnitude
    }
}

/// The polynomial Σ coefficients[i]·xⁱ (constant term first) by Horner's rule.
fn horner(coefficients: &[f64], x: f64) -> f64 {
    coefficients.iter().rev().fold(0.0, |acc, &c| acc * x + c)
}

#[cfg(test)]
mod tests {
    //! Reference values were computed with mpmath 1.3 at 40 significant digits (`ncdf`,
    //! `gammainc(..., regularized=True)`, `loggamma`, and bisection on those for quantiles)
    //! unless another source is named; they agree with scipy.stats to the digits scipy prints.

    use super::*;
    use crate::stats::check::{assert_abs, assert_rel};

    #[test]
    fn normal_cdf_matches_reference_values() {
        assert_abs(normal_cdf(0.0), 0.5, 1e-16);
        assert_abs(normal_sf(0.0), 0.5, 1e-16);
        // Φ(1.959963984540054) = 0.9749999999999999862 (mpmath); scipy prints 0.975.
        assert_rel(normal_cdf(1.959963984540054), 0.975, 1e-15);
        let cases = [
            (-37.0, 5.7255712225245768227e-300),
            (-20.0, 2.7536241186062336951e-89),
            (-10.0, 7.619853024160526066e-24),
            (-5.0, 2.8665157187919391167e-7),
            (-2.5, 0.006209665325776135167),
            (-1.0, 0.15865525393145705141),
            (-0.5, 0.30853753872598689636),
            (-0.1, 0.46017216272297101853),
            (0.3, 0.61791142218895263731),
            (0.7, 0.75803634777692698525),
            (1.5, 0.933192798731141934),
            (3.0, 0.99865010196836990547),
        ];
        for (x, expected) in cases {
            assert_rel(normal_cdf(x), expected, 2e-15);
            assert_rel(normal_sf(-x), expected, 2e-15);
        }
    }

    #[test]
    fn normal_sf_is_accurate_in_the_far_tail() {
        assert_rel(normal_sf(8.0), 6.220960574271785e-16, 2e-15);
        assert_rel(normal_sf(6.0), 9.865876450376981407e-10, 2e-15);
        assert_rel(normal_sf(30.0), 4.906713927148187059e-198, 2e-15);
        assert_eq!(normal_sf(40.0), 0.0);
        assert_eq!(normal_cdf(f64::NEG_INFINITY), 0.0);
        assert_eq!(normal_cdf(f64::INFINITY), 1.0);
        assert!(normal_cdf(f64::NAN).is_nan());
    }

    #[test]
    fn normal_quantile_matches_reference_values() {
        assert_rel(normal_quantile(0.975), 1.959963984540054, 1e-15);
        assert_rel(normal_quantile(0.025), -1.959963984540054, 1e-15);
        assert_rel(normal_quantile(1e-10), -6.361340902404056, 1e-15);
        assert_abs(normal_quantile(0.5), 0.0, 1e-300);
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
        assert!(normal_quantile(-0.1).is_nan());
        assert!(normal_quantile(1.1).is_nan());
        assert!(normal_quantile(f64::NAN).is_nan());
    }

    #[test]
    fn normal_quantile_inverts_the_cdf() {
        // Use the smaller tail so the probability carries full relative precision; the
        // conditioning of the inverse is then ~1/|x|, so 1e-14·(1 + |x|) is generous.
        for i in 0..=740 {
            let x = -37.0 + 0.1 * i as f64;
            let back = if x <= 0.0 {
                normal_quantile(normal_cdf(x))
            } else {
                -normal_quantile(normal_sf(x))
            };
            assert_abs(back, x, 1e-14 * (1.0 + x.abs()));
        }
    }
}
