//! The probability functions the uncertainty module needs: the standard normal distribution
//! (CDF, upper tail, quantile), the chi-square distribution (survival function, quantile) through
//! the regularized incomplete gamma function, quantiles of samples, and quantiles of equal-weight
//! mixtures of normals.
//!
//! They are written here rather than taken from a statistics crate to keep the dependency list
//! short and the numbers the same on every platform and in every future version. Each function
//! names the published algorithm it follows; the coefficients are copied digit for digit.

// The rational-approximation coefficients are kept exactly as published, even where they carry
// more digits than an f64 holds.
#![allow(clippy::excessive_precision)]

/// 1/√(2π).
const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_677_939_946_059_934;
/// ln √(2π).
const LN_SQRT_2PI: f64 = 0.918_938_533_204_672_741_780_329_736_406;

// ---------------------------------------------------------------------------------------------
// Normal distribution
// ---------------------------------------------------------------------------------------------

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
fn ppnd16(offset: f64, tail: f64) -> f64 {
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

// ---------------------------------------------------------------------------------------------
// Gamma and chi-square
// ---------------------------------------------------------------------------------------------

/// ln Γ(x) for x > 0 (NaN otherwise), ~4e-15 absolute where |ln Γ(x)| < 1 and ~2e-15 relative
/// elsewhere: the Lanczos approximation with g = 7 and 9 coefficients
/// (C. Lanczos, SIAM J. Numer. Anal. B 1 (1964) 86–96; coefficients as tabulated by P. Godfrey),
/// with ln Γ(x) = ln Γ(x + 1) − ln x below 1/2.
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const LANCZOS: [f64; 9] = [
        0.999_999_999_999_809_93,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_13,
        -176.615_029_162_140_59,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_571_6e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x.is_nan() || x <= 0.0 {
        return f64::NAN;
    }
    if x.is_infinite() {
        return f64::INFINITY;
    }
    if x < 0.5 {
        return ln_gamma(x + 1.0) - x.ln();
    }
    let z = x - 1.0;
    let series = LANCZOS[1..]
        .iter()
        .enumerate()
        .fold(LANCZOS[0], |sum, (i, &c)| sum + c / (z + (i + 1) as f64));
    let t = z + G + 0.5;
    LN_SQRT_2PI + (z + 0.5) * t.ln() - t + series.ln()
}

/// Regularized upper incomplete gamma Q(a, x) = Γ(a, x)/Γ(a) for a > 0, x >= 0 (NaN otherwise):
/// the series for x < a + 1 and the modified-Lentz continued fraction otherwise (Press et al.,
/// Numerical Recipes, 3rd ed., §6.2). Tiny results stay accurate (Q(2.5, 42) ≈ 1.2e-16) down to
/// where the true value underflows: the prefactor e^(−x) x^a / Γ(a) is applied in log space.
/// The relative error is a few ulps times max(1, x, a), the conditioning of that prefactor
/// (~1e-14 for a, x in the tens; ~1e-12 for a in the thousands).
pub fn gamma_q(a: f64, x: f64) -> f64 {
    gamma_p_and_q(a, x).1
}

/// (P(a, x), Q(a, x)): the method for the region computes one of them directly, to full
/// relative accuracy, and the other is its complement.
fn gamma_p_and_q(a: f64, x: f64) -> (f64, f64) {
    if a.is_nan() || x.is_nan() || a <= 0.0 || a.is_infinite() || x < 0.0 {
        return (f64::NAN, f64::NAN);
    }
    if x == 0.0 {
        return (0.0, 1.0);
    }
    if x.is_infinite() {
        return (1.0, 0.0);
    }
    let ln_prefactor = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        let p = (ln_prefactor + gamma_p_series(a, x).ln()).exp();
        (p, 1.0 - p)
    } else {
        let q = (ln_prefactor + gamma_q_continued_fraction(a, x).ln()).exp();
        (1.0 - q, q)
    }
}

/// Iteration cap for the gamma series and continued fraction: both need O(√a) terms when x ≈ a.
fn gamma_iteration_cap(a: f64) -> usize {
    1000 + (20.0 * a.sqrt()) as usize
}

/// P(a, x) Γ(a) eˣ x⁻ᵃ = Σₙ xⁿ / (a (a+1) ⋯ (a+n)) (Numerical Recipes `gser`).
fn gamma_p_series(a: f64, x: f64) -> f64 {
    let mut denominator = a;
    let mut term = 1.0 / a;
    let mut sum = term;
    for _ in 0..gamma_iteration_cap(a) {
        denominator += 1.0;
        term *= x / denominator;
        sum += term;
        if term.abs() < sum.abs() * f64::EPSILON {
            break;
        }
    }
    sum
}

/// Q(a, x) Γ(a) eˣ x⁻ᵃ by the continued fraction 1/(x+1−a− 1(1−a)/(x+3−a− 2(2−a)/(x+5−a− ⋯)))
/// evaluated with the modified Lentz method (Numerical Recipes `gcf`).
fn gamma_q_continued_fraction(a: f64, x: f64) -> f64 {
    let tiny = f64::MIN_POSITIVE / f64::EPSILON;
    let mut b = x + 1.0 - a;
    let mut c = 1.0 / tiny;
    let mut d = 1.0 / b;
    let mut h = d;
    for i in 1..gamma_iteration_cap(a) {
        let i = i as f64;
        let an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if d.abs() < tiny {
            d = tiny;
        }
        c = b + an / c;
        if c.abs() < tiny {
            c = tiny;
        }
        d = 1.0 / d;
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() <= f64::EPSILON {
            break;
        }
    }
    h
}

/// Chi-square survival function P(X > x) with `df` > 0 degrees of freedom: Q(df/2, x/2).
/// x <= 0 gives 1; NaN arguments or df <= 0 give NaN.
pub fn chi2_sf(x: f64, df: f64) -> f64 {
    if x.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if x <= 0.0 {
        return 1.0;
    }
    gamma_q(0.5 * df, 0.5 * x)
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

// ---------------------------------------------------------------------------------------------
// Beta, Student's t and F
// ---------------------------------------------------------------------------------------------

/// Regularized incomplete beta I_x(a, b) for a, b > 0 and x in [0, 1] (NaN otherwise): the
/// continued fraction of Numerical Recipes (Press et al., 3rd ed., §6.4, `betacf`) evaluated
/// with the modified Lentz method, on I_x(a, b) directly when x < (a + 1)/(a + b + 2) and on
/// 1 − I_{1−x}(b, a) otherwise, where it converges fast. The prefactor x^a (1−x)^b / (a B(a, b))
/// is taken in log space. About 1e-14 relative for parameters up to the hundreds.
pub fn beta_reg(a: f64, b: f64, x: f64) -> f64 {
    if [a, b, x].iter().any(|v| v.is_nan()) || a <= 0.0 || b <= 0.0 || !(0.0..=1.0).contains(&x) {
        return f64::NAN;
    }
    if x == 0.0 || x == 1.0 {
        return x;
    }
    let ln_prefactor =
        ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    if x < (a + 1.0) / (a + b + 2.0) {
        (ln_prefactor + beta_continued_fraction(a, b, x).ln()).exp() / a
    } else {
        1.0 - (ln_prefactor + beta_continued_fraction(b, a, 1.0 - x).ln()).exp() / b
    }
}

/// The continued fraction 1/(1+ d₁/(1+ d₂/(1+ ⋯))) of I_x(a, b) (Numerical Recipes `betacf`).
fn beta_continued_fraction(a: f64, b: f64, x: f64) -> f64 {
    let tiny = f64::MIN_POSITIVE / f64::EPSILON;
    let guard = |v: f64| if v.abs() < tiny { tiny } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / guard(1.0 - qab * x / qap);
    let mut h = d;
    let cap = 1000 + (20.0 * a.max(b).sqrt()) as usize;
    for m in 1..cap {
        let m = m as f64;
        let m2 = 2.0 * m;
        let even = m * (b - m) * x / ((qam + m2) * (a + m2));
        d = 1.0 / guard(1.0 + even * d);
        c = guard(1.0 + even / c);
        h *= d * c;
        let odd = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
        d = 1.0 / guard(1.0 + odd * d);
        c = guard(1.0 + odd / c);
        let delta = d * c;
        h *= delta;
        if (delta - 1.0).abs() <= f64::EPSILON {
            break;
        }
    }
    h
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

// ---------------------------------------------------------------------------------------------
// Samples and mixtures
// ---------------------------------------------------------------------------------------------

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
/// one), means and standard deviations, by bisection on its CDF (NaN for an empty or invalid
/// mixture). Used to average laws' predictive distributions (Yao et al. 2018, stacking).
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
    let below = |x: f64| {
        if q <= 0.5 {
            components
                .iter()
                .map(|&(w, m, s)| w * normal_cdf((x - m) / s))
                .sum::<f64>()
                / total
                < q
        } else {
            components
                .iter()
                .map(|&(w, m, s)| w * normal_sf((x - m) / s))
                .sum::<f64>()
                / total
                > 1.0 - q
        }
    };
    let (mut lo, mut hi) = (lo, hi);
    for _ in 0..2100 {
        let mid = 0.5 * (lo + hi);
        if hi - lo <= 1e-13 * (1.0 + mid.abs()) || mid <= lo || mid >= hi {
            return mid;
        }
        if below(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
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

    fn assert_rel(actual: f64, expected: f64, tol: f64) {
        let error = ((actual - expected) / expected).abs();
        assert!(
            error <= tol,
            "actual {actual:e}, expected {expected:e}, relative error {error:e} > {tol:e}"
        );
    }

    fn assert_abs(actual: f64, expected: f64, tol: f64) {
        let error = (actual - expected).abs();
        assert!(
            error <= tol,
            "actual {actual:e}, expected {expected:e}, absolute error {error:e} > {tol:e}"
        );
    }

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

    #[test]
    fn ln_gamma_matches_identities_and_reference_values() {
        // Γ(1/2) = √π.
        assert_rel(ln_gamma(0.5), 0.5 * std::f64::consts::PI.ln(), 1e-15);
        // Γ(n) = (n − 1)!, the factorials exact in f64 up to 22!.
        let mut factorial = 1.0_f64;
        for n in 1..=23 {
            assert_abs(
                ln_gamma(n as f64),
                factorial.ln(),
                1e-14 * (1.0 + factorial.ln()),
            );
            factorial *= n as f64;
        }
        assert_rel(ln_gamma(30.0), 71.2570389671680090100744070426, 1e-15);
        assert_rel(ln_gamma(1e-5), 11.5129196928958257074208339309, 1e-15);
        assert_rel(ln_gamma(1.5), -0.1207822376352452223455184457816, 1e-14);
        assert_rel(ln_gamma(2.5), 0.2846828704729191596324946696827, 1e-14);
        assert_rel(ln_gamma(100.5), 361.4355404677776215552519127025, 1e-15);
        assert_rel(ln_gamma(1000.25), 5906.947268271117176996487246964, 1e-15);
        assert!(ln_gamma(0.0).is_nan());
    }

    #[test]
    fn gamma_q_matches_reference_values() {
        // Q(1, x) = e^(−x) exactly.
        for x in [0.1, 1.0, 2.0, 10.0, 100.0, 700.0] {
            assert_rel(gamma_q(1.0, x), (-x).exp(), 1e-13);
        }
        // Q(1/2, x) = erfc(√x) = 2(1 − Φ(√(2x))): independent of the code under test.
        for x in [0.01, 0.3, 1.0, 5.0, 50.0, 200.0] {
            assert_rel(gamma_q(0.5, x), 2.0 * normal_sf((2.0 * x).sqrt()), 1e-13);
        }
        assert_rel(gamma_q(2.5, 42.0), 1.219791654679288193606e-16, 1e-13);
        assert_rel(gamma_q(10.0, 5.0), 0.968171942693795188262813, 1e-14);
        assert_rel(gamma_p_and_q(10.0, 5.0).0, 0.031828057306204811737, 1e-13);
        assert_rel(
            gamma_p_and_q(2.5, 1e-3).0,
            9.508534598607949318872e-9,
            1e-13,
        );
        assert_rel(gamma_q(100.0, 50.0), 0.99999999967999346754148747, 1e-15);
        assert_rel(gamma_q(100.0, 150.0), 5.924540335483915829411e-6, 1e-12);
        assert_rel(gamma_q(500.0, 600.0), 1.225594233062290416769e-5, 1e-11);
        assert_rel(gamma_q(0.3, 1e-3), 0.85975754107513264046507, 1e-14);
        assert_rel(gamma_q(0.01, 3.0), 1.32971356570155482167e-4, 1e-12);
        assert_eq!(gamma_q(2.0, 0.0), 1.0);
        // True value 1.18e-342 is below the smallest subnormal.
        assert_eq!(gamma_q(3.0, 800.0), 0.0);
        assert!(gamma_q(0.0, 1.0).is_nan());
        assert!(gamma_q(1.0, -1.0).is_nan());
    }

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
    fn beta_reg_matches_reference_values() {
        let cases = [
            (0.5, 0.5, 0.3, 0.369_010_119_565_545_375_04),
            (2.0, 3.0, 0.4, 0.524_800_000_000_000_038_37),
            (10.0, 20.0, 0.35, 0.592_386_663_663_905_002_46),
            (50.0, 0.5, 0.99, 0.317_304_397_874_197_373_4),
            (1.5, 40.0, 0.01, 0.152_692_061_151_998_689_64),
            (200.0, 300.0, 0.41, 0.677_628_164_772_178_948_64),
        ];
        for (a, b, x, expected) in cases {
            assert_rel(beta_reg(a, b, x), expected, 1e-12);
        }
        assert!(beta_reg(-1.0, 2.0, 0.5).is_nan());
        assert_abs(beta_reg(2.0, 2.0, 1.0), 1.0, 0.0);
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
