//! The heteroscedastic option σ(x) = σ0·(x/x0)^s: the exact derivative of the profile
//! likelihood in s against finite differences, recovery of s on synthetic Chinchilla-form data,
//! no spurious s on homoscedastic data, prediction-interval coverage in both halves of the
//! scale range, and bit-identical results at any thread count.

use scalinglaws::fit::variance::profile_point;
use scalinglaws::fit::{fit, FitData, FitResult, FitSettings, Heteroscedastic, LossKind};
use scalinglaws::law::catalog;
use scalinglaws::rng::Rng;
use scalinglaws::uncertainty::intervals::predict_fit_intervals;
use scalinglaws::uncertainty::{FitRecord, ScaleRule};
use scalinglaws::Law;

const ROWS: usize = 200;
const TRUE_S: f64 = -0.3;
const SIGMA0: f64 = 0.01;

fn truth(n: f64, d: f64) -> f64 {
    1.69 + 406.4 * n.powf(-0.34) + 410.7 * d.powf(-0.28)
}

fn compute(n: f64, d: f64) -> f64 {
    6.0 * n * d
}

/// The design: N log-uniform in [1e7, 3e9], D log-uniform in [2e9, 2e11].
fn design(seed: u64) -> (Vec<f64>, Vec<f64>) {
    let mut rng = Rng::stream(seed, 0);
    let log_uniform =
        |rng: &mut Rng, lo: f64, hi: f64| (lo.ln() + rng.uniform() * (hi.ln() - lo.ln())).exp();
    (0..ROWS)
        .map(|_| {
            (
                log_uniform(&mut rng, 1e7, 3e9),
                log_uniform(&mut rng, 2e9, 2e11),
            )
        })
        .unzip()
}

/// Geometric mean of the design's compute (the reference x0 of the truth).
fn centre(n: &[f64], d: &[f64]) -> f64 {
    let mean = n
        .iter()
        .zip(d)
        .map(|(n, d)| compute(*n, *d).ln())
        .sum::<f64>()
        / n.len() as f64;
    mean.exp()
}

/// Log-space noise with sd σ0·(C/C0)^s.
fn targets(n: &[f64], d: &[f64], s: f64, rng: &mut Rng) -> Vec<f64> {
    let c0 = centre(n, d);
    n.iter()
        .zip(d)
        .map(|(&n, &d)| {
            let sd = SIGMA0 * (compute(n, d) / c0).powf(s);
            truth(n, d) * (sd * rng.normal()).exp()
        })
        .collect()
}

fn synthetic(seed: u64, s: f64) -> FitData {
    let (n, d) = design(seed);
    let target = targets(&n, &d, s, &mut Rng::stream(seed, 1));
    FitData {
        variables: vec![n, d],
        target,
        weights: None,
        trials: None,
        exposure: None,
    }
}

fn by_compute() -> Heteroscedastic {
    Heteroscedastic {
        by: "C".into(),
        rule: ScaleRule::Product {
            factor: 6.0,
            of: ["N".into(), "D".into()],
        },
    }
}

fn linear() -> FitSettings {
    FitSettings {
        loss: LossKind::Linear,
        ..FitSettings::default()
    }
}

fn heteroscedastic() -> FitSettings {
    FitSettings {
        heteroscedastic: Some(by_compute()),
        ..linear()
    }
}

fn chinchilla() -> Law {
    catalog::lookup("chinchilla").unwrap()
}

fn hetero_fit(data: &FitData) -> FitResult {
    fit(&chinchilla(), data, &heteroscedastic()).unwrap()
}

#[test]
fn the_profile_derivative_matches_central_differences() {
    let law = chinchilla();
    let data = synthetic(11, TRUE_S);
    let base = fit(&law, &data, &linear()).unwrap();
    let warm = base.param_values();
    let settings = heteroscedastic();
    for s in [-0.5, -0.2, 0.0, 0.3] {
        let centre = profile_point(&law, &data, &settings, s, &warm).unwrap();
        let h = 1e-4;
        let up = profile_point(&law, &data, &settings, s + h, &centre.params).unwrap();
        let down = profile_point(&law, &data, &settings, s - h, &centre.params).unwrap();
        let numeric = (up.nll - down.nll) / (2.0 * h);
        let scale = centre.derivative.abs().max(1.0);
        assert!(
            (numeric - centre.derivative).abs() < 1e-4 * scale,
            "s = {s}: exact {} vs central difference {numeric}",
            centre.derivative
        );
    }
}

#[test]
fn the_standard_error_of_s_is_the_profile_curvature() {
    let law = chinchilla();
    let data = synthetic(12, TRUE_S);
    let result = hetero_fit(&data);
    let model = result.variance.as_ref().unwrap();
    let settings = heteroscedastic();
    let at = profile_point(&law, &data, &settings, model.s, &result.param_values()).unwrap();
    assert!(
        at.derivative.abs() < 1e-6 * ROWS as f64,
        "{}",
        at.derivative
    );
    let h = 1e-3;
    let up = profile_point(&law, &data, &settings, model.s + h, &at.params).unwrap();
    let down = profile_point(&law, &data, &settings, model.s - h, &at.params).unwrap();
    let curvature = (up.derivative - down.derivative) / (2.0 * h);
    let se = 1.0 / curvature.sqrt();
    let reported = model.s_stderr.unwrap();
    assert!(
        (reported / se - 1.0).abs() < 1e-3,
        "observed-information se {reported} vs profile-curvature se {se}"
    );
}

#[test]
fn s_is_recovered_within_its_standard_error() {
    let seeds = 0..8u64;
    let mut estimates = Vec::new();
    for seed in seeds {
        let result = hetero_fit(&synthetic(100 + seed, TRUE_S));
        let model = result.variance.clone().unwrap();
        let se = model.s_stderr.unwrap();
        eprintln!(
            "seed {seed}: s = {:.4} ± {se:.4}, sigma0 = {:.5}, x0 = {:.3e}, LR {:.1} (p = {:.2e}), {} evaluations",
            model.s, model.sigma0, model.x0, model.lr_statistic, model.lr_p_value, model.evaluations
        );
        assert!(result.converged);
        assert!(
            (model.s - TRUE_S).abs() < 3.0 * se,
            "seed {seed}: s = {} ± {se}",
            model.s
        );
        assert!(
            (model.sigma0 / SIGMA0 - 1.0).abs() < 0.2,
            "{}",
            model.sigma0
        );
        assert!(model.lr_p_value < 1e-6, "{}", model.lr_p_value);
        assert!(!model.at_limit);
        estimates.push(model.s);
    }
    let mean = estimates.iter().sum::<f64>() / estimates.len() as f64;
    eprintln!("mean s over {} seeds: {mean:.4}", estimates.len());
    assert!((mean - TRUE_S).abs() < 0.03, "mean s {mean}");
}

#[test]
fn homoscedastic_data_give_no_significant_s() {
    let mut significant = 0;
    let mut estimates = Vec::new();
    for seed in 0..8u64 {
        let result = hetero_fit(&synthetic(200 + seed, 0.0));
        let model = result.variance.unwrap();
        eprintln!(
            "seed {seed}: s = {:.4} ± {:.4}, LR p = {:.3}",
            model.s,
            model.s_stderr.unwrap(),
            model.lr_p_value
        );
        significant += usize::from(model.lr_p_value < 0.05);
        estimates.push(model.s);
    }
    let mean = estimates.iter().sum::<f64>() / estimates.len() as f64;
    eprintln!("significant at 5 %: {significant} of 8; mean s {mean:.4}");
    assert!(significant <= 2, "{significant} of 8 seeds reject s = 0");
    assert!(mean.abs() < 0.05, "mean s {mean}");
}

/// Coverage of fresh runs at the design points by 95 % prediction intervals, in the lower and
/// upper half of compute: [small-x, large-x].
fn coverage_by_half(
    result: &FitResult,
    n: &[f64],
    d: &[f64],
    fresh: &[f64],
) -> [(usize, usize); 2] {
    let points: Vec<Vec<f64>> = n.iter().zip(d).map(|(n, d)| vec![*n, *d]).collect();
    let (predictions, _) =
        predict_fit_intervals(&FitRecord::from(result.clone()), &points, 0.95).unwrap();
    let mut order: Vec<f64> = n.iter().zip(d).map(|(n, d)| compute(*n, *d)).collect();
    order.sort_by(f64::total_cmp);
    let median = order[order.len() / 2];
    let mut counts = [(0, 0); 2];
    for ((p, y), (n, d)) in predictions.iter().zip(fresh).zip(n.iter().zip(d)) {
        let [lo, hi] = p.pi.unwrap();
        let half = usize::from(compute(*n, *d) >= median);
        counts[half].1 += 1;
        counts[half].0 += usize::from(lo <= *y && *y <= hi);
    }
    counts
}

#[test]
fn prediction_intervals_cover_both_halves_of_the_scale_range() {
    let seeds = 0..48u64;
    let (mut hetero, mut homo) = ([(0, 0); 2], [(0, 0); 2]);
    for seed in seeds {
        let data = synthetic(300 + seed, TRUE_S);
        let (n, d) = (&data.variables[0], &data.variables[1]);
        let fresh = targets(n, d, TRUE_S, &mut Rng::stream(300 + seed, 2));
        for (fitted, totals) in [
            (hetero_fit(&data), &mut hetero),
            (fit(&chinchilla(), &data, &linear()).unwrap(), &mut homo),
        ] {
            for (half, (inside, all)) in coverage_by_half(&fitted, n, d, &fresh)
                .into_iter()
                .enumerate()
            {
                totals[half].0 += inside;
                totals[half].1 += all;
            }
        }
    }
    let share = |c: (usize, usize)| c.0 as f64 / c.1 as f64;
    eprintln!(
        "coverage of 95 % PIs, small-x / large-x half: heteroscedastic {:.3} / {:.3}, homoscedastic {:.3} / {:.3}",
        share(hetero[0]),
        share(hetero[1]),
        share(homo[0]),
        share(homo[1])
    );
    for half in hetero {
        assert!((share(half) - 0.95).abs() < 0.02, "{half:?}");
    }
    // One σ̂ is too narrow where the runs are noisy and too wide where they are quiet.
    assert!(share(homo[0]) < 0.92, "{:?}", homo[0]);
    assert!(share(homo[1]) > 0.98, "{:?}", homo[1]);
}

#[test]
fn heteroscedastic_fits_are_bit_identical_at_any_thread_count() {
    let data = synthetic(7, TRUE_S);
    let at = |threads: usize| {
        let settings = FitSettings {
            threads: Some(threads),
            ..heteroscedastic()
        };
        fit(&chinchilla(), &data, &settings).unwrap()
    };
    let one = at(1);
    let model = one.variance.clone().unwrap();
    for threads in [2, 3] {
        let other = at(threads);
        let other_model = other.variance.clone().unwrap();
        assert_eq!(model.s.to_bits(), other_model.s.to_bits());
        assert_eq!(model.sigma0.to_bits(), other_model.sigma0.to_bits());
        for (a, b) in one.param_values().iter().zip(other.param_values()) {
            assert_eq!(a.to_bits(), b.to_bits());
        }
    }
}

#[test]
fn robust_losses_are_refused_with_the_setting_named() {
    let data = synthetic(1, TRUE_S);
    let settings = FitSettings {
        heteroscedastic: Some(by_compute()),
        ..FitSettings::default()
    };
    let error = fit(&chinchilla(), &data, &settings)
        .unwrap_err()
        .to_string();
    assert!(error.contains("heteroscedastic"), "{error}");
    assert!(error.contains("linear"), "{error}");
}

#[test]
fn the_fit_file_round_trips_and_old_files_still_load() {
    let result = hetero_fit(&synthetic(3, TRUE_S));
    let json = result.to_json();
    let back = FitResult::from_json(&json).unwrap();
    assert_eq!(back.variance, result.variance);
    assert_eq!(
        back.settings.heteroscedastic,
        result.settings.heteroscedastic
    );
    let plain = fit(&chinchilla(), &synthetic(3, TRUE_S), &linear()).unwrap();
    let json = plain.to_json();
    assert!(!json.contains("heteroscedastic") && !json.contains("\"variance\""));
    assert!(FitResult::from_json(&json).unwrap().variance.is_none());
}
