//! The loss's curvature smoothed by a Gaussian kernel, E[ρ''(r + hU)], that the smoothed
//! sandwich's bread takes row by row (see `smoothed.rs` for why). Its own file, below
//! problem.rs and smoothed.rs: the problem sums it over its rows, and the smoothed sandwich
//! asks the problem for those sums, so neither names the other for it. Old path stays:
//! `smoothed::smoothed_curvature`.

use super::loss::{Loss, LossKind};
use crate::stats::normal_cdf;

/// Composite Simpson's rule over u ∈ [−U_MAX, U_MAX] in `STEIN_INTERVALS` steps (even) for the
/// losses without a closed form: ψ is continuous, so the rule's error is far below the kernel's.
const U_MAX: f64 = 8.0;
const STEIN_INTERVALS: usize = 256;

/// E[ρ''(r + hU)], U ~ N(0, 1): the loss's second derivative (d² cost/dr²) smoothed by a
/// Gaussian kernel of width `h` (ρ''(r) itself when h is not positive).
pub fn smoothed_curvature(loss: Loss, r: f64, h: f64) -> f64 {
    if !(h > 0.0 && h.is_finite()) {
        return loss.terms(r).d2;
    }
    match loss.kind {
        LossKind::Linear => 1.0,
        LossKind::Huber => {
            let delta = loss.f_scale;
            normal_cdf((delta - r) / h) - normal_cdf((-delta - r) / h)
        }
        _ => stein(loss, r, h),
    }
}

/// E[ψ(r + hU)·U]/h by composite Simpson's rule, ψ = d cost/dr (Stein's identity: equal to
/// E[ψ'(r + hU)] for a ψ that is absolutely continuous, as every loss's is).
fn stein(loss: Loss, r: f64, h: f64) -> f64 {
    let step = 2.0 * U_MAX / STEIN_INTERVALS as f64;
    let density = |u: f64| (-0.5 * u * u).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let sum: f64 = (0..=STEIN_INTERVALS)
        .map(|i| {
            let u = -U_MAX + step * i as f64;
            let simpson = match i {
                0 => 1.0,
                i if i == STEIN_INTERVALS => 1.0,
                i if i % 2 == 1 => 4.0,
                _ => 2.0,
            };
            simpson * loss.terms(r + h * u).d1 * u * density(u)
        })
        .sum();
    sum * step / 3.0 / h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stein_quadrature_matches_hubers_closed_form() {
        let loss = Loss {
            kind: LossKind::Huber,
            f_scale: 1e-3,
        };
        for h in [3e-4, 2e-3, 1e-2] {
            for r in [-0.02, -1e-3, 0.0, 4e-4, 5e-3] {
                let closed = smoothed_curvature(loss, r, h);
                let numeric = stein(loss, r, h);
                assert!(
                    (closed - numeric).abs() <= 1e-3 * closed.max(1e-3),
                    "h {h}, r {r}: {closed} vs {numeric}"
                );
            }
        }
    }

    #[test]
    fn no_bandwidth_leaves_the_exact_curvature_and_linear_stays_one() {
        let huber = Loss {
            kind: LossKind::Huber,
            f_scale: 1e-3,
        };
        assert_eq!(smoothed_curvature(huber, 5e-4, 0.0), 1.0);
        assert_eq!(smoothed_curvature(huber, 5e-3, 0.0), 0.0);
        let linear = Loss {
            kind: LossKind::Linear,
            f_scale: 1.0,
        };
        assert_eq!(smoothed_curvature(linear, 0.3, 0.1), 1.0);
        let cauchy = Loss {
            kind: LossKind::Cauchy,
            f_scale: 1.0,
        };
        // A wide loss under a narrow kernel: almost its own ρ''.
        let exact = cauchy.terms(0.2).d2;
        assert!((stein(cauchy, 0.2, 1e-2) - exact).abs() < 1e-3 * exact.abs());
    }
}
