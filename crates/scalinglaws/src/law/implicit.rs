//! The one implicit function of the law language, `m4root(g, a)`: the root u of
//! u = g·(1 − u)^a. It exists because Alabdulmohsin, Neyshabur & Zhai 2022 (Revisiting Neural
//! Scaling Laws in Language and Vision, NeurIPS, eq. 4; the M4 estimator) define the loss only
//! implicitly, (ε − ε∞)/(ε₀ − ε)^α = β·x^c; with ε = ε∞ + d·u and d = ε₀ − ε∞ that is
//! u = g·(1 − u)^α with g = β·x^c·d^(α−1). The authors' code solves it on a grid of 10,000
//! points; here it is solved by Newton's method to a few ulps of s = logit(u) and differentiated
//! exactly (implicit function theorem), so fits get exact gradients and Hessians like every
//! other law.
//!
//! For g > 0 and a > 0 the root is unique and in (0, 1): φ(s) = ln u − ln g − a·ln(1 − u) in
//! s = logit(u) is increasing with slope between min(1, a) and max(1, a), so Newton's method in
//! s, kept inside a bracket those slopes give, converges; it starts from an asymptotic guess
//! (tested for a from 1e-60 to 1e100). Working in s keeps both u and 1 − u to |s| ulps where
//! either is tiny. At a = 0 the root is the limit from a > 0, min(g, 1) (its derivatives in a
//! are one-sided there); g = 0 gives 0 and g = ∞ gives 1. A negative, infinite a or undefined
//! argument gives NaN, as a logarithm of a negative number does.

use super::stable::{sigmoid, softplus};

/// The root u of u = g·(1 − u)^a with its partial derivatives
/// (u, u_g, u_a, u_gg, u_ga, u_aa).
pub fn m4root_derivatives(g: f64, a: f64) -> [f64; 6] {
    if g.is_nan() || !(0.0..f64::INFINITY).contains(&a) || g < 0.0 {
        return [f64::NAN; 6];
    }
    if g == 0.0 {
        // u = g·(1 − u)^a near g = 0: u_g = 1, u_gg = −2a (u = g − a·g² + …).
        return [0.0, 1.0, 0.0, -2.0 * a, 0.0, 0.0];
    }
    const SATURATED: [f64; 6] = [1.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    if g == f64::INFINITY || (a == 0.0 && g >= 1.0) {
        return SATURATED; // the root no longer moves
    }
    if a == 0.0 {
        return partials(g, 1.0 - g, (-g).ln_1p(), 0.0);
    }
    let s = solve_logit(g.ln(), a);
    if s == f64::INFINITY {
        return SATURATED; // 1 − u is below the smallest f64
    }
    partials(sigmoid(s), sigmoid(-s), -softplus(s), a)
}

/// The root u of u = g·(1 − u)^a (see [`m4root_derivatives`]).
pub fn m4root(g: f64, a: f64) -> f64 {
    m4root_derivatives(g, a)[0]
}

/// A start for s = logit(u). Where 1 − u = v is small, v = (u/g)^(1/a) ≈ g^(−1/a)·e^(−v/a), so
/// v = a·W(g^(−1/a)/a) (Lambert's W, W(e^l) ≈ l − ln l); elsewhere u ≈ g/(1 + a·g), exact at
/// a = 1 and to first order in a·g; where that exceeds 1, v ≈ g^(−1/a).
fn logit_start(ln_g: f64, a: f64) -> f64 {
    let l = -ln_g / a - a.ln();
    if l > 2.0 {
        let ln_v = a.ln() + (l - l.ln()).ln();
        if ln_v < -1.0 {
            return -ln_v;
        }
    }
    let g = ln_g.exp();
    let v = (1.0 + (a - 1.0) * g) / (1.0 + a * g);
    if v > 0.0 && v.is_finite() {
        (g / (1.0 + a * g)).ln() - v.ln()
    } else {
        ln_g / a
    }
}

/// s = logit(u) at the root of φ(s) = −softplus(−s) + a·softplus(s) − ln g, for 0 < a < ∞
/// (+∞ when 1 − u is below the smallest f64).
fn solve_logit(ln_g: f64, a: f64) -> f64 {
    let phi = |s: f64| -softplus(-s) + a * softplus(s) - ln_g;
    let slope = |s: f64| sigmoid(-s) + a * sigmoid(s);
    let mut s = logit_start(ln_g, a);
    if s == f64::INFINITY {
        return s;
    }
    // The slope lies between min(1, a) and max(1, a), so the root is within f/max and f/min
    // of the start.
    let f = phi(s);
    let (least, most) = (a.min(1.0), a.max(1.0));
    let (mut lo, mut hi) = if f > 0.0 {
        (s - f / least, s - f / most)
    } else {
        (s - f / most, s - f / least)
    };
    for _ in 0..200 {
        let f = phi(s);
        if f == 0.0 {
            return s;
        }
        if f > 0.0 {
            hi = hi.min(s);
        } else {
            lo = lo.max(s);
        }
        let newton = s - f / slope(s);
        if (newton - s).abs() <= 4.0 * f64::EPSILON * (1.0 + s.abs()) {
            return newton;
        }
        s = if (lo..=hi).contains(&newton) {
            newton
        } else {
            0.5 * (lo + hi)
        };
    }
    s
}

/// The implicit function theorem on F(u; g, a) = u − g·v^a with v = 1 − u:
/// u_i = −F_i/F_u and u_ij = −(F_ij + F_iu·u_j + F_ju·u_i + F_uu·u_i·u_j)/F_u. With g·v^a = u
/// and F_u = D/v, D = v + a·u, every term below is v·(a term of the bracket), so nothing divides
/// by a vanishing v and the derivatives stay finite as the root nears 1.
fn partials(u: f64, v: f64, ln_v: f64, a: f64) -> [f64; 6] {
    let d = v + a * u;
    let v_a = (a * ln_v).exp(); // v^a = u/g
    let u_g = v_a * v / d;
    let u_a = u * v * ln_v / d;
    let curvature = -a * (a - 1.0) * u / d; // v²·F_uu/D
    let uu_gg = curvature * v_a * v_a * v / d; // v·F_uu·u_g²
    let uu_ga = curvature * v_a * u * ln_v * v / d; // v·F_uu·u_g·u_a
    let uu_aa = curvature * (u * v * ln_v) * (u * ln_v) / d; // v·F_uu·u_a²
    let gu_g = a * v_a * v_a * v / d; // v·F_gu·u_g
    let gu_a = a * u * v_a * ln_v * v / d; // v·F_gu·u_a
    let au_g = u * v_a * (a * ln_v + 1.0) * v / d; // v·F_au·u_g
    let au_a = u * (u * v * ln_v) * (a * ln_v + 1.0) / d; // v·F_au·u_a
    let ga = -v * v_a * ln_v; // v·F_ga (F_gg = 0)
    let aa = -(v * u * ln_v) * ln_v; // v·F_aa
    let u_gg = -(2.0 * gu_g + uu_gg) / d;
    let u_ga = -(ga + gu_a + au_g + uu_ga) / d;
    let u_aa = -(aa + 2.0 * au_a + uu_aa) / d;
    [u, u_g, u_a, u_gg, u_ga, u_aa]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_solves_the_equation_from_tiny_to_huge_g() {
        let alphas = [1e-60, 1e-6, 0.05, 0.5, 1.0, 2.0, 7.0, 1e3, 1e15, 1e100];
        for &a in &alphas {
            for &g in &[1e-300, 8e-9, 1e-3, 0.3, 0.5, 1.0, 4.0, 1e3, 1e12] {
                let u = m4root(g, a);
                assert!((0.0..=1.0).contains(&u), "g {g} a {a}: u {u}");
                // ln u − ln g − a·ln(1 − u) = 0, in s = logit(u) where 1 − u keeps its digits.
                let s = solve_logit(g.ln(), a);
                if s == f64::INFINITY {
                    assert!(g.ln() / a > 700.0 && u == 1.0, "g {g} a {a}");
                    continue;
                }
                let phi = -softplus(-s) - g.ln() + a * softplus(s);
                let scale = 1.0 + g.ln().abs() + a * s.abs();
                assert!(
                    phi.abs() <= 8.0 * f64::EPSILON * scale,
                    "g {g} a {a}: {phi}"
                );
            }
        }
    }

    #[test]
    fn limits_and_refusals() {
        assert_eq!(m4root(0.0, 1.0), 0.0);
        assert_eq!(m4root(f64::INFINITY, 0.5), 1.0);
        assert!((m4root(0.25, 0.0) - 0.25).abs() < 1e-16);
        assert_eq!(m4root(3.0, 0.0), 1.0);
        assert!(m4root(-1.0, 1.0).is_nan());
        assert!(m4root(1.0, -0.5).is_nan());
        assert!(m4root(1.0, f64::INFINITY).is_nan());
        assert_eq!(m4root(2.0, 1e-310), 1.0);
        assert_eq!(m4root(1e-300, 0.0), 1e-300);
        assert!(m4root(f64::NAN, 1.0).is_nan());
        // a = 1 has the closed form u = g/(1 + g).
        for &g in &[1e-5, 0.7, 30.0] {
            assert!((m4root(g, 1.0) - g / (1.0 + g)).abs() < 1e-15);
        }
        // Continuous at a = 0 from above.
        assert!((m4root(0.25, 1e-9) - 0.25).abs() < 1e-9);
    }

    #[test]
    fn derivatives_match_central_differences() {
        for &(g, a) in &[
            (0.3, 0.5),
            (2.0, 1.5),
            (0.01, 3.0),
            (50.0, 0.2),
            (0.8, 1.0),
            (0.2, 0.0),
        ] {
            let [_, ug, ua, ugg, uga, uaa] = m4root_derivatives(g, a);
            let h = 1e-5;
            let hg = h * g;
            let d = |g1: f64, a1: f64| m4root_derivatives(g1, a1);
            let num_ug = (m4root(g + hg, a) - m4root(g - hg, a)) / (2.0 * hg);
            let num_ugg = (d(g + hg, a)[1] - d(g - hg, a)[1]) / (2.0 * hg);
            let num_uga = (d(g + hg, a)[2] - d(g - hg, a)[2]) / (2.0 * hg);
            let close = |x: f64, y: f64| (x - y).abs() <= 1e-6 * (1.0 + x.abs().max(y.abs()));
            assert!(close(ug, num_ug), "u_g at ({g}, {a}): {ug} vs {num_ug}");
            assert!(
                close(ugg, num_ugg),
                "u_gg at ({g}, {a}): {ugg} vs {num_ugg}"
            );
            assert!(
                close(uga, num_uga),
                "u_ga at ({g}, {a}): {uga} vs {num_uga}"
            );
            if a > 0.0 {
                let num_ua = (m4root(g, a + h) - m4root(g, a - h)) / (2.0 * h);
                let num_uaa = (d(g, a + h)[2] - d(g, a - h)[2]) / (2.0 * h);
                assert!(close(ua, num_ua), "u_a at ({g}, {a}): {ua} vs {num_ua}");
                assert!(
                    close(uaa, num_uaa),
                    "u_aa at ({g}, {a}): {uaa} vs {num_uaa}"
                );
            }
        }
    }

    #[test]
    fn derivatives_stay_finite_when_the_root_nears_one() {
        for &(g, a) in &[
            (1e200, 0.01),
            (1e300, 2.0),
            (1e15, 1e-3),
            (4.0, 1e-155),
            (2.0, 1e-310),
        ] {
            let parts = m4root_derivatives(g, a);
            assert!(parts.iter().all(|p| p.is_finite()), "{g} {a}: {parts:?}");
        }
    }
}
