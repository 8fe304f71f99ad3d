//! Synthetic learning-rate sweeps that mimic the real sweep of Li et al. 2025: five model
//! sizes from 12M to 400M and five horizons from 2e8 to 3e10 tokens (25 cells), five LRs a
//! factor of two apart around a guess within ±0.35 e-folds of the true optimum, profiles
//! L = L* + k·(ln lr − ln lr*)² with k falling from 0.2 to 0.016 as D grows (as in the real
//! cells), and Gaussian loss noise σ = 0.0238, the residual scale of the curved joint fit (one
//! curvature per cell) to the real sweep, about the 0.0230 pooled over its cells' parabolas.
//! The curved truth is that fit's bend (a2 = −0.092, b2 = −0.059).

use scalinglaws::analysis::lr::LrData;
use scalinglaws::rng::Rng;

pub const SIGMA: f64 = 0.0238;

/// ln lr* = c + a·u + b·v + a2·u² + b2·v², u = ln(N/N0), v = ln(D/D0).
#[derive(Clone, Copy)]
pub struct Truth {
    pub c: f64,
    pub a: f64,
    pub b: f64,
    pub a2: f64,
    pub b2: f64,
}

/// The geometric means of the sizes and horizons: the centre of the fitted law.
pub fn centre() -> (f64, f64) {
    ((1.2e7f64 * 4e8).sqrt(), (2e8f64 * 3e10).sqrt())
}

impl Truth {
    pub fn log_lr(&self, n: f64, d: f64) -> f64 {
        let (n0, d0) = centre();
        let (u, v) = ((n / n0).ln(), (d / d0).ln());
        self.c + self.a * u + self.b * v + self.a2 * u * u + self.b2 * v * v
    }
}

pub const STRAIGHT: Truth = Truth {
    c: -5.90,
    a: -0.282,
    b: 0.005,
    a2: 0.0,
    b2: 0.0,
};

pub const CURVED: Truth = Truth {
    c: -5.81,
    a: -0.305,
    b: -0.002,
    a2: -0.092,
    b2: -0.059,
};

pub fn geometric(from: f64, to: f64, count: usize) -> Vec<f64> {
    (0..count)
        .map(|i| from * (to / from).powf(i as f64 / (count - 1) as f64))
        .collect()
}

/// The 5 × 5 sweep of 125 runs.
pub fn sweep(truth: &Truth, seed: u64, sigma: f64) -> LrData {
    sweep_on(truth, seed, sigma, (5, 5))
}

/// A sweep over `sizes` model sizes and `horizons` horizons on the same ranges, five LRs each.
pub fn sweep_on(truth: &Truth, seed: u64, sigma: f64, (sizes, horizons): (usize, usize)) -> LrData {
    let mut rng = Rng::new(seed);
    let mut data = LrData::default();
    for &n in &geometric(1.2e7, 4e8, sizes) {
        for &d in &geometric(2e8, 3e10, horizons) {
            let optimum = truth.log_lr(n, d);
            let guess = optimum + 0.7 * (rng.uniform() - 0.5);
            let k = 0.2 * (d / 2e8).powf(-0.5);
            let floor = 2.0 + 250.0 * n.powf(-0.3) + 250.0 * d.powf(-0.28);
            for step in -2..=2 {
                let x = guess + step as f64 * std::f64::consts::LN_2;
                data.size.push(n);
                data.tokens.push(d);
                data.lr.push(x.exp());
                data.loss
                    .push(floor + k * (x - optimum).powi(2) + sigma * rng.normal());
            }
        }
    }
    data
}
