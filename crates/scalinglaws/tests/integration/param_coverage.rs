//! The default fit's parameter intervals hold the truth about as often as they say (issue 48,
//! point 5): simulated Chinchilla grids with 1 % log-normal noise, the default Huber fit, and
//! each parameter's 95 % Wald interval value ± 1.96·stderr. A fast version of
//! `examples/param_coverage.rs` (bench/results/param_coverage.txt has its 200-seed numbers:
//! the smoothed sandwich holds 0.915–0.96 at 25 runs and 0.93–0.95 at 240, the plain sandwich
//! 0.725–0.795 and 0.87–0.94).

use rayon::prelude::*;
use scalinglaws::fit::{fit, Covariance, FitData, FitSettings};
use scalinglaws::law::catalog;
use scalinglaws::rng::Rng;
use scalinglaws::stats::normal_quantile;

const TRUTH: [f64; 5] = [1.69, 406.4, 0.34, 410.7, 0.28];
const NAMES: [&str; 5] = ["E", "A", "alpha", "B", "beta"];

fn log_space(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| (lo.ln() + (hi.ln() - lo.ln()) * i as f64 / (n - 1) as f64).exp())
        .collect()
}

/// The example's data sets: N over 5e7–5e9 and D over 1e9–1e11 on a log grid, loss × e^(0.01ε).
fn simulate((grid_n, grid_d): (usize, usize), seed: u64) -> FitData {
    let mut rng = Rng::stream(seed, (grid_n * 1000 + grid_d) as u64);
    let (mut ns, mut ds, mut losses) = (vec![], vec![], vec![]);
    for n in log_space(5e7, 5e9, grid_n) {
        for d in log_space(1e9, 1e11, grid_d) {
            let loss = TRUTH[0] + TRUTH[1] / n.powf(TRUTH[2]) + TRUTH[3] / d.powf(TRUTH[4]);
            ns.push(n);
            ds.push(d);
            losses.push(loss * (0.01 * rng.normal()).exp());
        }
    }
    FitData {
        variables: vec![ns, ds],
        target: losses,
        weights: None,
        trials: None,
        exposure: None,
    }
}

/// Per parameter, the share of `seeds` data sets whose 95 % interval holds the truth.
fn coverage(grid: (usize, usize), seeds: u64, covariance: Covariance) -> [f64; 5] {
    let law = catalog::lookup("chinchilla").unwrap();
    let z = normal_quantile(0.975);
    let settings = FitSettings {
        covariance,
        ..FitSettings::default()
    };
    let held: Vec<[bool; 5]> = (0..seeds)
        .into_par_iter()
        .map(|seed| {
            let result = fit(&law, &simulate(grid, seed), &settings).unwrap();
            if covariance == Covariance::Auto {
                assert_eq!(result.covariance_kind, "smoothed_sandwich");
            }
            std::array::from_fn(|i| {
                let param = result.param(NAMES[i]).unwrap();
                param
                    .stderr
                    .is_some_and(|se| (param.value - TRUTH[i]).abs() <= z * se)
            })
        })
        .collect();
    std::array::from_fn(|i| held.iter().filter(|h| h[i]).count() as f64 / seeds as f64)
}

fn pooled(shares: &[f64; 5]) -> f64 {
    shares.iter().sum::<f64>() / 5.0
}

#[test]
fn default_intervals_hold_the_truth_at_25_runs() {
    let ours = coverage((5, 5), 40, Covariance::Auto);
    assert!(
        (0.88..=0.99).contains(&pooled(&ours)) && ours.iter().all(|c| *c >= 0.8),
        "smoothed sandwich at 25 runs: coverage {ours:?}"
    );
    // What the test tells apart: the plain sandwich (the default before issue 48).
    let plain = coverage((5, 5), 40, Covariance::Sandwich);
    assert!(
        pooled(&plain) < 0.85,
        "the plain sandwich at 25 runs now covers {plain:?}: is this test still sharp?"
    );
}

#[test]
fn default_intervals_hold_the_truth_at_240_runs() {
    let ours = coverage((12, 20), 20, Covariance::Auto);
    assert!(
        (0.86..=0.99).contains(&pooled(&ours)) && ours.iter().all(|c| *c >= 0.8),
        "smoothed sandwich at 240 runs: coverage {ours:?}"
    );
}
