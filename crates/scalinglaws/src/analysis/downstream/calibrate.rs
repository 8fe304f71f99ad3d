//! Intervals calibrated where they are used: beyond the data. Each method's forecasts are
//! replayed inside the training data (rolling origins over model sizes, or the largest models
//! with their late checkpoints hidden), and their residuals set two numbers: γ, how much of
//! the pooled model's trend carries on (weighted least squares through the origin), and σ,
//! how fast a forecast's variance grows with distance (variance + σ²·horizon, a random walk
//! in log compute or log tokens). σ is the smallest value at which the replayed intervals
//! cover the split-conformal share ⌈(n+1)·level⌉/n of the residuals (Vovk et al. 2005; Lei et
//! al. 2018), so a measured, not an assumed, coverage sets the width.

use serde::{Deserialize, Serialize};

use super::pooled::Raw;
use crate::stats::normal_quantile;

/// A forecast replayed inside the training data, and the accuracy it should have found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Replay {
    pub truth: f64,
    pub raw: Raw,
}

/// What the replays taught one method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Calibration {
    /// Replayed forecasts (0: none could be made; the intervals are the method's own).
    pub replays: usize,
    /// Share of the trend kept (1 for the baselines, which have none).
    pub gamma: f64,
    /// Added variance per unit of horizon, as a standard deviation.
    pub sigma: f64,
    /// Mean absolute error of the replays at the learned γ, in accuracy points.
    pub replay_mae: Option<f64>,
}

impl Calibration {
    /// The forecast's value and interval at `level`, inside [0, 1].
    pub fn apply(&self, raw: &Raw, level: f64) -> (f64, [f64; 2]) {
        let value = (raw.anchor + self.gamma * raw.trend).clamp(0.0, 1.0);
        let z = normal_quantile(0.5 + level / 2.0);
        let half = z
            * (raw.variance + self.sigma * self.sigma * raw.horizon)
                .max(0.0)
                .sqrt();
        let lo = (raw.anchor + self.gamma * raw.trend - half).clamp(0.0, 1.0);
        let hi = (raw.anchor + self.gamma * raw.trend + half).clamp(0.0, 1.0);
        (value, [lo, hi])
    }
}

/// γ and σ from the replays (γ only when `learn_gamma`; clamped to [0, 3]).
pub fn learn(replays: &[Replay], learn_gamma: bool, level: f64) -> Calibration {
    if replays.is_empty() {
        return Calibration {
            replays: 0,
            gamma: 1.0,
            sigma: 0.0,
            replay_mae: None,
        };
    }
    let gamma = if learn_gamma {
        learn_gamma_of(replays)
    } else {
        1.0
    };
    let z = normal_quantile(0.5 + level / 2.0);
    let mut needed: Vec<f64> = replays
        .iter()
        .map(|r| {
            let error = r.truth - r.raw.anchor - gamma * r.raw.trend;
            let excess = error * error / (z * z) - r.raw.variance;
            if excess <= 0.0 {
                0.0
            } else if r.raw.horizon > 0.0 {
                (excess / r.raw.horizon).sqrt()
            } else {
                f64::INFINITY
            }
        })
        .collect();
    needed.sort_by(f64::total_cmp);
    let n = replays.len();
    let share = (((n + 1) as f64 * level).ceil() / n as f64).min(1.0);
    let index = ((share * n as f64).ceil() as usize).clamp(1, n) - 1;
    let sigma = needed[index];
    let mae = replays
        .iter()
        .map(|r| (r.truth - (r.raw.anchor + gamma * r.raw.trend).clamp(0.0, 1.0)).abs())
        .sum::<f64>()
        / n as f64;
    Calibration {
        replays: n,
        gamma,
        sigma: if sigma.is_finite() { sigma } else { 1.0 },
        replay_mae: Some(100.0 * mae),
    }
}

fn learn_gamma_of(replays: &[Replay]) -> f64 {
    let (mut num, mut den) = (0.0, 0.0);
    for r in replays {
        let w = 1.0 / r.raw.variance.max(1e-12);
        num += w * (r.truth - r.raw.anchor) * r.raw.trend;
        den += w * r.raw.trend * r.raw.trend;
    }
    if den > 0.0 {
        (num / den).clamp(0.0, 3.0)
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn replay(truth: f64, anchor: f64, trend: f64, horizon: f64) -> Replay {
        Replay {
            truth,
            raw: Raw {
                anchor,
                trend,
                variance: 1e-6,
                horizon,
            },
        }
    }

    #[test]
    fn gamma_recovers_a_damped_trend() {
        let replays: Vec<Replay> = (1..20)
            .map(|i| replay(0.3 + 0.5 * 0.01 * i as f64, 0.3, 0.01 * i as f64, 1.0))
            .collect();
        let c = learn(&replays, true, 0.95);
        assert!((c.gamma - 0.5).abs() < 1e-9, "{}", c.gamma);
        assert!(c.sigma < 1e-6);
    }

    #[test]
    fn sigma_covers_the_conformal_share() {
        // Errors 0.01..0.19 at horizon 1: the 95 % share of 19 replays is all of them.
        let replays: Vec<Replay> = (1..20)
            .map(|i| replay(0.5 + 0.01 * i as f64, 0.5, 0.0, 1.0))
            .collect();
        let c = learn(&replays, false, 0.95);
        let covered = replays.iter().filter(|r| {
            let (_, [lo, hi]) = c.apply(&r.raw, 0.95);
            lo <= r.truth + 1e-12 && r.truth <= hi + 1e-12
        });
        assert_eq!(covered.count(), 19);
        let z = normal_quantile(0.975);
        assert!((c.sigma - ((0.19f64 * 0.19 / (z * z) - 1e-6).sqrt())).abs() < 1e-9);
    }
}
