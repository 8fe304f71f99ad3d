//! The likelihood of a fit under the error density its loss implies, with the scale of the
//! errors profiled out, so that fits of different laws to the same data can be compared by
//! likelihood ratio tests and information criteria.
//!
//! - `linear` (least squares): Gaussian errors, ℓ = −W/2·(ln(2πσ̂²) + 1), σ̂² = Σwr²/W.
//! - `huber` with scale δ: the normalised Huber density of Besiroglu et al. 2024 (Epoch AI's
//!   Chinchilla replication, "Likelihood test"): f(r) = exp(−ρ_δ(r/σ)) / (σ·Z(δ)) with
//!   ρ_δ(z) = z²/2 for |z| ≤ δ and δ(|z| − δ/2) beyond, and
//!   Z(δ) = √(2π)(1 − 2Φ̄(δ)) + 2e^(−δ²/2)/δ; σ is chosen to maximise ℓ.
//!
//! The other losses (`soft_l1`, `cauchy`, `arctan`) do not define a proper density at every
//! scale, so no likelihood is reported for them.

use rayon::prelude::*;

use super::{Loss, LossKind};
use crate::stats::normal_sf;

/// A profiled log-likelihood and the error scale that maximises it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LogLikelihood {
    pub value: f64,
    pub scale: f64,
}

/// ℓ of residuals (in the fitted space) with row weights, maximised over the error scale.
/// None when the loss has no density, or every residual is zero (the likelihood is unbounded).
pub fn log_likelihood(residuals: &[f64], weights: &[f64], loss: Loss) -> Option<LogLikelihood> {
    let total: f64 = weights.iter().sum();
    let squares: f64 = residuals.iter().zip(weights).map(|(r, w)| w * r * r).sum();
    if !(total > 0.0 && squares > 0.0 && squares.is_finite()) {
        return None;
    }
    match loss.kind {
        LossKind::Linear => {
            let variance = squares / total;
            Some(LogLikelihood {
                value: -0.5 * total * ((2.0 * std::f64::consts::PI * variance).ln() + 1.0),
                scale: variance.sqrt(),
            })
        }
        LossKind::Huber => huber(residuals, weights, loss.f_scale, total),
        _ => None,
    }
}

fn huber_rho(z: f64, delta: f64) -> f64 {
    let a = z.abs();
    if a <= delta {
        0.5 * z * z
    } else {
        delta * (a - 0.5 * delta)
    }
}

/// ln Z(δ), the normalising constant of exp(−ρ_δ(z)).
fn huber_ln_normaliser(delta: f64) -> f64 {
    let core = (2.0 * std::f64::consts::PI).sqrt() * (1.0 - 2.0 * normal_sf(delta));
    let tails = 2.0 * (-0.5 * delta * delta).exp() / delta;
    (core + tails).ln()
}

/// Rows per partial sum of the scale's stationarity condition.
const SUM_CHUNK: usize = 1 << 16;

fn huber(residuals: &[f64], weights: &[f64], delta: f64, total: f64) -> Option<LogLikelihood> {
    // dℓ/dσ = 0 ⇔ Σ w ψ(z) z = W with z = r/σ; the left side falls as σ grows, so bisect
    // on ln σ. At σ_hi = δ·Σw|r|/W the left side is at most W (ψ(z)z ≤ δ|z|).
    // Summed in fixed chunks, in parallel, added in chunk order: the same number at any
    // thread count.
    let stationarity = |ln_sigma: f64| -> f64 {
        let sigma = ln_sigma.exp();
        let chunk_sums: Vec<f64> = residuals
            .par_chunks(SUM_CHUNK)
            .zip(weights.par_chunks(SUM_CHUNK))
            .map(|(r, w)| {
                r.iter()
                    .zip(w)
                    .map(|(r, w)| {
                        let z = (r / sigma).abs();
                        w * if z <= delta { z * z } else { delta * z }
                    })
                    .sum::<f64>()
            })
            .collect();
        chunk_sums.iter().sum::<f64>() - total
    };
    let absolute: f64 = residuals
        .iter()
        .zip(weights)
        .map(|(r, w)| w * r.abs())
        .sum();
    let mut hi = (delta * absolute / total).ln() + 1.0;
    let mut lo = hi - 50.0;
    while stationarity(lo) < 0.0 && lo > -700.0 {
        lo -= 50.0;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        // The bracket is as narrow as doubles allow (about 60 halvings): done.
        if mid <= lo || mid >= hi {
            break;
        }
        if stationarity(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let sigma = (0.5 * (lo + hi)).exp();
    let ln_z = huber_ln_normaliser(delta);
    let value = -residuals
        .iter()
        .zip(weights)
        .map(|(r, w)| w * (huber_rho(r / sigma, delta) + ln_z + sigma.ln()))
        .sum::<f64>();
    value.is_finite().then_some(LogLikelihood {
        value,
        scale: sigma,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numeric_normaliser(delta: f64) -> f64 {
        // Trapezoid on [-L, L] plus the exact tails beyond L.
        let l = 50.0 / delta.min(1.0);
        let n = 2_000_000;
        let h = 2.0 * l / n as f64;
        let inner: f64 = (0..=n)
            .map(|i| {
                let z = -l + h * i as f64;
                let f = (-huber_rho(z, delta)).exp();
                if i == 0 || i == n {
                    0.5 * f
                } else {
                    f
                }
            })
            .sum::<f64>()
            * h;
        inner + 2.0 * (-huber_rho(l, delta)).exp() / delta
    }

    #[test]
    fn huber_normaliser_integrates_the_density_to_one() {
        for delta in [0.5, 1.0, 1.345, 3.0] {
            let exact = huber_ln_normaliser(delta).exp();
            let numeric = numeric_normaliser(delta);
            assert!(
                (exact / numeric - 1.0).abs() < 1e-6,
                "{delta}: {exact} vs {numeric}"
            );
        }
    }

    #[test]
    fn huber_scale_maximises_the_likelihood() {
        let residuals: Vec<f64> = (0..50)
            .map(|i| ((i * 37 % 17) as f64 - 8.0) * 1e-2)
            .collect();
        let weights = vec![1.0; residuals.len()];
        let loss = Loss {
            kind: LossKind::Huber,
            f_scale: 1e-3,
        };
        let best = log_likelihood(&residuals, &weights, loss).unwrap();
        let at = |sigma: f64| {
            let ln_z = huber_ln_normaliser(1e-3);
            -residuals
                .iter()
                .map(|r| huber_rho(r / sigma, 1e-3) + ln_z + sigma.ln())
                .sum::<f64>()
        };
        assert!((at(best.scale) - best.value).abs() < 1e-9 * best.value.abs());
        for factor in [0.9, 0.99, 1.01, 1.1] {
            assert!(at(best.scale * factor) < best.value);
        }
    }

    #[test]
    fn gaussian_likelihood_matches_the_closed_form() {
        let residuals = [0.1, -0.2, 0.05, 0.3];
        let weights = [1.0, 2.0, 1.0, 1.0];
        let loss = Loss {
            kind: LossKind::Linear,
            f_scale: 1.0,
        };
        let l = log_likelihood(&residuals, &weights, loss).unwrap();
        let variance: f64 = (0.01 + 2.0 * 0.04 + 0.0025 + 0.09) / 5.0;
        let density =
            |r: f64| -0.5 * (2.0 * std::f64::consts::PI * variance).ln() - r * r / (2.0 * variance);
        let expected: f64 = residuals
            .iter()
            .zip(&weights)
            .map(|(r, w)| w * density(*r))
            .sum();
        assert!((l.value - expected).abs() < 1e-12);
        assert!(log_likelihood(&[0.0, 0.0], &[1.0, 1.0], loss).is_none());
    }
}
