//! Recovery: synthetic data made from every built-in law with known parameters and 1 %
//! multiplicative noise (seeded) is fitted with the default search, and the parameters that
//! made it come back within the stated tolerances.

use scalinglaws::fit::{fit, FitData, FitResult, FitSettings, Space};
use scalinglaws::law::catalog;
use scalinglaws::rng::Rng;

const NOISE: f64 = 0.01;

fn logspace(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| lo * (hi / lo).powf(i as f64 / (n - 1) as f64))
        .collect()
}

/// Evaluates `law` with `truth` at every point and adds 1 % multiplicative noise.
fn synthesize(name: &str, truth: &[(&str, f64)], points: Vec<Vec<f64>>, seed: u64) -> FitData {
    synthesize_with_noise(name, truth, points, seed, NOISE)
}

fn synthesize_with_noise(
    name: &str,
    truth: &[(&str, f64)],
    points: Vec<Vec<f64>>,
    seed: u64,
    noise: f64,
) -> FitData {
    let law = catalog::lookup(name).unwrap();
    let params: Vec<f64> = law
        .params
        .iter()
        .map(|p| {
            truth
                .iter()
                .find(|(n, _)| *n == p.name)
                .unwrap_or_else(|| panic!("no truth for {}", p.name))
                .1
        })
        .collect();
    let mut rng = Rng::new(seed);
    let target = points
        .iter()
        .map(|point| law.eval(&params, point) * (1.0 + noise * rng.normal()))
        .collect();
    let n_vars = law.variables.len();
    let variables = (0..n_vars)
        .map(|v| points.iter().map(|p| p[v]).collect())
        .collect();
    FitData {
        variables,
        target,
        weights: None,
        trials: None,
        exposure: None,
    }
}

fn fit_law(name: &str, data: &FitData, settings: &FitSettings) -> FitResult {
    let law = catalog::lookup(name).unwrap();
    let result = fit(&law, data, settings).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(result.converged, "{name}: {}", result.termination);
    result
}

/// How close a fitted parameter must come to the truth: relative or absolute, or (`Sigma`)
/// within that many of its reported standard errors (for weakly determined parameters, where
/// 1 % noise moves the optimum honestly far).
enum Tol {
    Rel(f64),
    Abs(f64),
    Sigma(f64),
}

fn check(name: &str, result: &FitResult, truth: &[(&str, f64)], tolerances: &[(&str, Tol)]) {
    for (param, tol) in tolerances {
        let fitted = result.param(param).unwrap();
        let want = truth.iter().find(|(n, _)| n == param).unwrap().1;
        let (error, limit) = match tol {
            Tol::Rel(r) => ((fitted.value - want).abs() / want.abs(), *r),
            Tol::Abs(a) => ((fitted.value - want).abs(), *a),
            Tol::Sigma(k) => (
                (fitted.value - want).abs(),
                k * fitted.stderr.expect("a standard error"),
            ),
        };
        assert!(
            error <= limit,
            "{name}: {param} = {} vs true {want} (error {error:.3e} > {limit:.3e}); fit: {}",
            fitted.value,
            result.to_json()
        );
    }
}

/// The global search must find an objective no worse than the true parameters'.
fn check_not_worse_than_truth(
    name: &str,
    data: &FitData,
    settings: &FitSettings,
    result: &FitResult,
    truth: &[(&str, f64)],
) {
    let law = catalog::lookup(name).unwrap();
    let problem = scalinglaws::fit::problem_for(&law, data, settings).unwrap();
    let params: Vec<f64> = law
        .params
        .iter()
        .map(|p| truth.iter().find(|(n, _)| *n == p.name).unwrap().1)
        .collect();
    let at_truth = problem.objective_natural(&params, &mut problem.tape().scratch());
    assert!(
        result.objective <= at_truth * (1.0 + 1e-12),
        "{name}: objective {} above the truth's {at_truth}",
        result.objective
    );
}

#[test]
fn power() {
    let truth = [("A", 50.0), ("alpha", 0.3)];
    let points = logspace(1e6, 1e10, 20)
        .into_iter()
        .map(|x| vec![x])
        .collect();
    let data = synthesize("power", &truth, points, 1);
    let result = fit_law("power", &data, &FitSettings::default());
    check(
        "power",
        &result,
        &truth,
        &[("A", Tol::Rel(0.1)), ("alpha", Tol::Abs(0.01))],
    );
}

#[test]
fn power_offset() {
    let truth = [("E", 1.7), ("A", 400.0), ("alpha", 0.34)];
    let points = logspace(1e6, 1e11, 30)
        .into_iter()
        .map(|x| vec![x])
        .collect();
    let data = synthesize("power_offset", &truth, points, 2);
    let result = fit_law("power_offset", &data, &FitSettings::default());
    check(
        "power_offset",
        &result,
        &truth,
        &[
            ("E", Tol::Rel(0.02)),
            ("A", Tol::Rel(0.25)),
            ("alpha", Tol::Abs(0.02)),
        ],
    );
}

/// Hoffmann et al.'s published Chinchilla parameters.
const HOFFMANN: [(&str, f64); 5] = [
    ("E", 1.69),
    ("A", 406.4),
    ("alpha", 0.34),
    ("B", 410.7),
    ("beta", 0.28),
];

/// k × k runs: N from 7e7 to 1.6e10, D from 5e9 to 5e11, log-spaced.
fn chinchilla_grid(k: usize) -> Vec<Vec<f64>> {
    let tokens = logspace(5e9, 5e11, k);
    logspace(7e7, 1.6e10, k)
        .into_iter()
        .flat_map(|n| tokens.iter().map(move |&d| vec![n, d]))
        .collect()
}

#[test]
fn chinchilla() {
    let truth = HOFFMANN;
    let points = chinchilla_grid(8);
    let data = synthesize("chinchilla", &truth, points, 3);
    let result = fit_law("chinchilla", &data, &FitSettings::default());
    check(
        "chinchilla",
        &result,
        &truth,
        &[
            ("E", Tol::Rel(0.03)),
            ("A", Tol::Sigma(4.0)),
            ("alpha", Tol::Abs(0.03)),
            ("B", Tol::Sigma(4.0)),
            ("beta", Tol::Abs(0.03)),
        ],
    );
    check_not_worse_than_truth(
        "chinchilla",
        &data,
        &FitSettings::default(),
        &result,
        &truth,
    );
}

/// The target's unit does not change the fit (issue 50: losses in units of 1e-10 stopped at
/// "converged NO" with every linear parameter at a bound, because values inside a bound were
/// moved to at least 1e-6 from it): the exponents are the same and the linear parameters
/// scale with the unit, none of them "at bound".
#[test]
fn the_target_unit_does_not_change_the_fit() {
    let data = synthesize("chinchilla", &HOFFMANN, chinchilla_grid(8), 3);
    let reference = fit_law("chinchilla", &data, &FitSettings::default());
    for unit in [1e-60, 1e-10, 1e10, 1e60] {
        let scaled = FitData {
            target: data.target.iter().map(|y| y * unit).collect(),
            ..data.clone()
        };
        let result = fit_law("chinchilla", &scaled, &FitSettings::default());
        for ((name, got), (_, want)) in result.params.iter().zip(&reference.params) {
            let expected = if ["E", "A", "B"].contains(&name.as_str()) {
                want.value * unit
            } else {
                want.value
            };
            assert!(
                (got.value / expected - 1.0).abs() < 1e-4,
                "unit {unit:e}: {name} = {:e}, expected {expected:e}",
                got.value
            );
            assert!(!got.at_bound, "unit {unit:e}: {name} at a bound");
        }
    }
}

#[test]
fn data_constrained() {
    let truth = [
        ("alpha", 0.3526596),
        ("A", 6.255414f64.exp()),
        ("beta", 0.3526596),
        ("B", 7.3049974f64.exp()),
        ("E", 0.6254804f64.exp()),
        ("RN_star", 5.309743),
        ("RD_star", 15.387756),
    ];
    let mut points = Vec::new();
    for n in logspace(1e8, 1e10, 5) {
        for u in [1e9, 1e10, 1e11] {
            for epochs in [1.0, 2.0, 4.0, 8.0, 16.0, 40.0, 100.0] {
                points.push(vec![n, u * epochs, u]);
            }
        }
    }
    let data = synthesize("data_constrained", &truth, points, 4);
    // The repetition constants are what the paper fits on top of a base law: fix the base.
    let mut settings = FitSettings::default();
    for (name, value) in &truth[..5] {
        settings.fixed.insert(name.to_string(), *value);
    }
    let result = fit_law("data_constrained", &data, &settings);
    check(
        "data_constrained",
        &result,
        &truth,
        &[
            ("RN_star", Tol::Sigma(4.0)),
            ("RD_star", Tol::Sigma(4.0)),
            ("RD_star", Tol::Rel(0.2)),
        ],
    );
    check_not_worse_than_truth("data_constrained", &data, &settings, &result, &truth);
    // All seven parameters free: the law's predictions (not its weakly determined A, B) come back.
    let free = fit_law("data_constrained", &data, &FitSettings::default());
    let law = catalog::lookup("data_constrained").unwrap();
    let truth_params: Vec<f64> = law
        .params
        .iter()
        .map(|p| truth.iter().find(|(n, _)| *n == p.name).unwrap().1)
        .collect();
    for point in [[6.34e9, 242e9, 25e9], [1e10, 1e12, 1e11], [2e8, 4e10, 1e9]] {
        let want = law.eval(&truth_params, &point);
        let got = law.eval(&free.param_values(), &point);
        assert!(
            (got - want).abs() / want < 0.01,
            "data_constrained free fit at {point:?}: {got} vs {want}"
        );
    }
    check(
        "data_constrained (free)",
        &free,
        &truth,
        &[("E", Tol::Rel(0.05))],
    );
    check_not_worse_than_truth(
        "data_constrained",
        &data,
        &FitSettings::default(),
        &free,
        &truth,
    );
}

/// The looped-transformer law on the design of a 2026 study of looped transformers: r in {1, 2, 4, 8} × 4 sizes × 3
/// token counts (48 runs), phi = 0.46. With 1 % noise the reported standard error of phi is
/// 0.004–0.03 on this design, so ±0.02 is a statistical statement: over 20 noise seeds phi
/// must come back within ±0.02 in at least 80 % (measured: 17 of 20), every miss within 4
/// reported standard errors, and the search must never end above the truth's objective. With
/// 0.3 % noise every seed must land within ±0.02.
#[test]
fn looped_recovers_phi() {
    let truth = [
        ("E", 1.8),
        ("A", 500.0),
        ("phi", 0.46),
        ("alpha", 0.35),
        ("B", 2000.0),
        ("beta", 0.37),
    ];
    let mut points = Vec::new();
    for r in [1.0, 2.0, 4.0, 8.0] {
        for n_rec in [1e5, 1e6, 1e7, 1e8] {
            for d in [1e10, 1e11, 1e12] {
                points.push(vec![0.1 * n_rec, r, n_rec, d]);
            }
        }
    }
    let settings = FitSettings::default();
    let seeds: u64 = 20;
    let mut within = 0;
    for seed in 0..seeds {
        let data = synthesize("looped", &truth, points.clone(), 100 + seed);
        let result = fit_law("looped", &data, &settings);
        check_not_worse_than_truth("looped", &data, &settings, &result, &truth);
        check("looped", &result, &truth, &[("phi", Tol::Sigma(4.0))]);
        within += u64::from((result.value("phi").unwrap() - 0.46).abs() <= 0.02);
        let quiet = synthesize_with_noise("looped", &truth, points.clone(), 100 + seed, 0.003);
        let result = fit_law("looped", &quiet, &settings);
        check(
            "looped (0.3 % noise)",
            &result,
            &truth,
            &[("phi", Tol::Abs(0.02))],
        );
    }
    eprintln!("phi within ±0.02 in {within} of {seeds} seeds at 1 % noise");
    assert!(
        within * 10 >= seeds * 8,
        "phi within ±0.02 in only {within} of {seeds} seeds"
    );
}

#[test]
fn bnsl() {
    let truth = [
        ("a", 0.5),
        ("b", 5.0),
        ("c0", 0.2),
        ("c1", 0.5),
        ("d1", 1e4),
        ("f1", 0.3),
    ];
    let points = logspace(1e1, 1e7, 40)
        .into_iter()
        .map(|x| vec![x])
        .collect();
    let data = synthesize("bnsl", &truth, points, 5);
    let result = fit_law("bnsl", &data, &FitSettings::default());
    check(
        "bnsl",
        &result,
        &truth,
        &[
            ("a", Tol::Rel(0.1)),
            ("b", Tol::Rel(0.15)),
            ("c0", Tol::Abs(0.03)),
            ("c1", Tol::Abs(0.1)),
            ("d1", Tol::Rel(0.5)),
        ],
    );
    check_not_worse_than_truth("bnsl", &data, &FitSettings::default(), &result, &truth);
}

#[test]
fn logistic() {
    let truth = [("lo", 0.25), ("span", 0.65), ("k", -3.0), ("x0", 2.8)];
    let points = (0..30).map(|i| vec![2.0 + 2.0 * i as f64 / 29.0]).collect();
    let data = synthesize("logistic", &truth, points, 6);
    let settings = FitSettings {
        space: Space::Linear,
        ..FitSettings::default()
    };
    let result = fit_law("logistic", &data, &settings);
    check(
        "logistic",
        &result,
        &truth,
        &[
            ("lo", Tol::Abs(0.03)),
            ("span", Tol::Abs(0.05)),
            ("k", Tol::Rel(0.15)),
            ("x0", Tol::Abs(0.05)),
        ],
    );
    check_not_worse_than_truth("logistic", &data, &settings, &result, &truth);
}

#[test]
fn exp_growth() {
    let truth = [("y0", 2.0), ("k", 0.05)];
    let points = (0..30).map(|i| vec![i as f64 * 100.0 / 29.0]).collect();
    let data = synthesize("exp_growth", &truth, points, 7);
    let result = fit_law("exp_growth", &data, &FitSettings::default());
    check(
        "exp_growth",
        &result,
        &truth,
        &[("y0", Tol::Rel(0.02)), ("k", Tol::Abs(0.001))],
    );
}

#[test]
fn user_formula_recovers_like_the_catalog() {
    let truth = HOFFMANN;
    let points = chinchilla_grid(6);
    let data = synthesize("chinchilla", &truth, points, 8);
    let law =
        scalinglaws::Law::from_formula("E + A*N^-alpha + B*D^-beta", &|id| id == "N" || id == "D")
            .unwrap();
    let result = fit(&law, &data, &FitSettings::default()).unwrap();
    let catalog = fit_law("chinchilla", &data, &FitSettings::default());
    assert!(
        (result.objective - catalog.objective).abs() <= 1e-9 * catalog.objective,
        "{} vs {}",
        result.objective,
        catalog.objective
    );
}
