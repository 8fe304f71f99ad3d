//! Calibration of the bootstrap: on synthetic Chinchilla-form data with known truth and
//! realistic noise, nominal 95 % intervals must cover the truth in 90–98 % of 200 simulated
//! datasets, for alpha, beta and the mean prediction at 100× the largest compute in the data.
//! The delta method and Wald intervals are measured alongside and printed (they undercover).
//!
//! Design: 10 model sizes × 10 token counts (N 7e7..1.6e10, D 5e9..5e11, log-spaced), Hoffmann
//! et al.'s parameters, 1 % multiplicative Gaussian noise (Chinchilla's own residual scatter is
//! 0.8 % in log loss), the default Huber fit, 200 bootstrap replicates per dataset.

use scalinglaws::fit::{fit, FitData, FitSettings};
use scalinglaws::law::catalog;
use scalinglaws::rng::Rng;
use scalinglaws::uncertainty::bootstrap::attach;
use scalinglaws::uncertainty::{
    bootstrap, predict_with_intervals, BootstrapOptions, FitRecord, Resampling,
};

const DATASETS: u64 = 200;
const REPLICATES: usize = 200;
const NOISE: f64 = 0.01;
/// E, A, alpha, B, beta (Hoffmann et al. 2022).
const TRUTH: [f64; 5] = [1.69, 406.4, 0.34, 410.7, 0.28];

fn logspace(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| lo * (hi / lo).powf(i as f64 / (n - 1) as f64))
        .collect()
}

fn inside(interval: Option<[f64; 2]>, truth: f64) -> bool {
    interval.is_some_and(|[lo, hi]| lo <= truth && truth <= hi)
}

#[test]
fn bootstrap_intervals_cover_the_truth_at_their_level() {
    let law = catalog::lookup("chinchilla").unwrap();
    let tokens = logspace(5e9, 5e11, 10);
    let points: Vec<Vec<f64>> = logspace(7e7, 1.6e10, 10)
        .into_iter()
        .flat_map(|n| tokens.iter().map(move |&d| vec![n, d]))
        .collect();
    // The largest compute is at (1.6e10, 5e11); 100× that is 10× each.
    let target = vec![1.6e11, 5e12];
    let true_prediction = law.eval(&TRUTH, &target);
    let settings = FitSettings::default();
    let mut covered = [0usize; 3];
    let (mut delta_covered, mut wald_covered) = (0usize, 0usize);
    for dataset in 0..DATASETS {
        let mut rng = Rng::stream(12345, dataset);
        let data = FitData {
            variables: vec![
                points.iter().map(|p| p[0]).collect(),
                points.iter().map(|p| p[1]).collect(),
            ],
            target: points
                .iter()
                .map(|p| law.eval(&TRUTH, p) * (1.0 + NOISE * rng.normal()))
                .collect(),
            weights: None,
            trials: None,
            exposure: None,
        };
        let mut result = FitRecord::from(fit(&law, &data, &settings).unwrap());
        let (delta, _) =
            predict_with_intervals(&result, std::slice::from_ref(&target), 0.95).unwrap();
        delta_covered += inside(delta[0].ci, true_prediction) as usize;
        let alpha = result.param("alpha").unwrap();
        wald_covered += alpha
            .stderr
            .is_some_and(|se| (alpha.value - TRUTH[2]).abs() <= 1.959964 * se)
            as usize;
        let options = BootstrapOptions {
            replicates: REPLICATES,
            level: 0.95,
            seed: dataset,
            resampling: Resampling::Rows,
        };
        let summary = bootstrap(&law, &data, &settings, &result, &options, &|_| {}).unwrap();
        attach(&mut result, summary);
        let (boot, _) =
            predict_with_intervals(&result, std::slice::from_ref(&target), 0.95).unwrap();
        covered[0] += inside(result.param("alpha").unwrap().ci, TRUTH[2]) as usize;
        covered[1] += inside(result.param("beta").unwrap().ci, TRUTH[4]) as usize;
        covered[2] += inside(boot[0].ci, true_prediction) as usize;
    }
    let rate = |count: usize| count as f64 / DATASETS as f64;
    println!(
        "coverage of nominal 95% over {DATASETS} datasets: bootstrap alpha {:.3}, beta {:.3}, \
         prediction at 100x compute {:.3}; delta-method prediction {:.3}; Wald alpha {:.3}",
        rate(covered[0]),
        rate(covered[1]),
        rate(covered[2]),
        rate(delta_covered),
        rate(wald_covered)
    );
    for (name, count) in ["alpha", "beta", "prediction at 100x compute"]
        .iter()
        .zip(covered)
    {
        assert!(
            (0.90..=0.98).contains(&rate(count)),
            "{name}: bootstrap coverage {} outside 90-98 %",
            rate(count)
        );
    }
}
