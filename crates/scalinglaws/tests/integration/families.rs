//! Likelihood families on synthetic counts, rates and accuracies: parameter recovery, the
//! coverage of profile and bootstrap intervals over seeds, cut-off laws (with the warning when
//! the cut-off lies beyond the data), the size of compare-laws' χ² test between a power law and
//! its cut-off, the errors of bad settings, and bit-identical results at any thread count.
//! The statsmodels references are in the Python suite (`test_families.py`), where statsmodels
//! is installed.
//!
//! Coverage runs `SCALINGLAWS_FAMILY_SEEDS` seeds (default 40 here, band [0.85, 1]); the
//! acceptance figures use 200 (band [0.90, 0.98]):
//! `SCALINGLAWS_FAMILY_SEEDS=200 cargo test --release -p scalinglaws --test integration families:: -- --nocapture`.

use scalinglaws::analysis::law_comparison::{compare_laws, Candidate};
use scalinglaws::fit::{fit, Family, FamilyKind, FitData, FitResult, FitSettings, Space};
use scalinglaws::law::catalog;
use scalinglaws::rng::Rng;
use scalinglaws::uncertainty::{bootstrap, profile, BootstrapOptions, FitRecord, Resampling};
use scalinglaws::Law;

fn seeds() -> usize {
    std::env::var("SCALINGLAWS_FAMILY_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40)
}

/// The band a 95 % interval's coverage must fall in over `n` seeds.
fn band(n: usize) -> (f64, f64) {
    if n >= 200 {
        (0.90, 0.98)
    } else {
        (0.85, 1.0)
    }
}

fn poisson(rng: &mut Rng, mu: f64) -> f64 {
    // Inversion, term by term, in pieces of mean at most 500 (e^-μ underflows past ~745).
    if mu > 500.0 {
        return poisson(rng, 500.0) + poisson(rng, mu - 500.0);
    }
    let (mut k, mut p) = (0.0, (-mu).exp());
    let (mut cumulative, u) = (p, rng.uniform());
    while u > cumulative && k < 10.0 * mu + 100.0 {
        k += 1.0;
        p *= mu / k;
        cumulative += p;
    }
    k
}

/// Gamma(shape, 1) by Marsaglia & Tsang 2000 (shape ≥ 1; boosted below).
fn gamma(rng: &mut Rng, shape: f64) -> f64 {
    if shape < 1.0 {
        return gamma(rng, shape + 1.0) * rng.uniform().powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = rng.normal();
        let v = (1.0 + c * x).powi(3);
        if v > 0.0 && rng.uniform().ln() < 0.5 * x * x + d - d * v + d * v.ln() {
            return d * v;
        }
    }
}

/// NB2 with mean μ and variance μ + αμ²: Poisson with a Gamma(1/α, α) mean.
fn negative_binomial(rng: &mut Rng, mu: f64, alpha: f64) -> f64 {
    let r = 1.0 / alpha;
    let mean = gamma(rng, r) * mu / r;
    poisson(rng, mean)
}

fn binomial(rng: &mut Rng, n: usize, p: f64) -> f64 {
    (0..n).filter(|_| rng.uniform() < p).count() as f64
}

fn with_family(kind: FamilyKind) -> FitSettings {
    FitSettings {
        family: Some(Family::new(kind)),
        space: if kind.location_scale() {
            Space::Log
        } else {
            Space::Linear
        },
        ..FitSettings::default()
    }
}

/// Neuron counts a·N^b at 6 sizes × 4 models (b = 0.6: sublinear), Poisson or NB2(α).
fn counts(seed: u64, alpha: Option<f64>) -> FitData {
    let mut rng = Rng::new(seed);
    let (mut n, mut y) = (Vec::new(), Vec::new());
    for i in 0..6 {
        let size = 1e6 * 10f64.powf(0.5 * i as f64);
        for _ in 0..4 {
            let mu = 2e-3 * size.powf(0.6);
            n.push(size);
            y.push(match alpha {
                Some(a) => negative_binomial(&mut rng, mu, a),
                None => poisson(&mut rng, mu),
            });
        }
    }
    FitData {
        variables: vec![n],
        target: y,
        weights: None,
        trials: None,
        exposure: None,
    }
}

const FLOOR: f64 = 0.25;
const CEIL: f64 = 0.9;
const K: f64 = 1.5;
const M: f64 = 46.0;

/// Accuracies out of n = 100..10,000 questions between a chance floor and a ceiling.
fn accuracies(seed: u64) -> FitData {
    let mut rng = Rng::new(seed);
    let (mut c, mut acc, mut trials) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..16 {
        let compute = 1e18 * 10f64.powf(4.0 * i as f64 / 15.0);
        let n = [100, 1_000, 10_000][i % 3];
        let p = FLOOR + (CEIL - FLOOR) / (1.0 + (-K * (compute.ln() - M)).exp());
        c.push(compute);
        acc.push(binomial(&mut rng, n, p) / n as f64);
        trials.push(n as f64);
    }
    FitData {
        variables: vec![c],
        target: acc,
        weights: None,
        trials: Some(trials),
        exposure: None,
    }
}

fn inside(interval: [Option<f64>; 2], truth: f64) -> bool {
    matches!(interval, [Some(lo), Some(hi)] if lo <= truth && truth <= hi)
}

fn profile_covers(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    name: &str,
    truth: f64,
) -> bool {
    let base = fit(law, data, settings).unwrap();
    let record = FitRecord::from(base);
    let p = profile(law, data, settings, &record, name, 0.95).unwrap();
    inside(p.ci, truth)
}

fn bootstrap_covers(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    name: &str,
    truth: f64,
    seed: u64,
) -> bool {
    let base = fit(law, data, settings).unwrap();
    let options = BootstrapOptions {
        replicates: 200,
        level: 0.95,
        seed,
        resampling: Resampling::Rows,
    };
    let summary = bootstrap(law, data, settings, &base, &options, &|_| {}).unwrap();
    let mut record = FitRecord::from(base);
    scalinglaws::uncertainty::bootstrap::attach(&mut record, summary);
    let ci = record.param(name).and_then(|p| p.ci);
    inside([ci.map(|c| c[0]), ci.map(|c| c[1])], truth)
}

fn report(what: &str, hits: usize, n: usize) {
    let coverage = hits as f64 / n as f64;
    eprintln!("{what}: 95 % intervals cover the truth in {hits} of {n} seeds ({coverage:.3})");
    let (lo, hi) = band(n);
    assert!(
        (lo..=hi).contains(&coverage),
        "{what}: coverage {coverage} outside [{lo}, {hi}]"
    );
}

#[test]
fn poisson_counts_recover_a_sublinear_exponent() {
    let law = catalog::lookup("count_power").unwrap();
    let result = fit(&law, &counts(1, None), &with_family(FamilyKind::Poisson)).unwrap();
    assert!(result.converged, "{:?}", result.termination);
    let b = result.param("b").unwrap();
    assert!(
        (b.value - 0.6).abs() < 3.0 * b.stderr.unwrap(),
        "b = {} ± {:?}",
        b.value,
        b.stderr
    );
    // Sublinear: b < 1 by many standard errors, so the fraction a·N^b/N falls with N.
    assert!((1.0 - b.value) / b.stderr.unwrap() > 5.0);
    assert_eq!(result.family.as_ref().unwrap().name, "poisson");
    assert_eq!(result.covariance_kind, "hessian");
}

#[test]
fn profile_intervals_of_poisson_and_overdispersed_counts_cover_the_truth() {
    let law = catalog::lookup("count_power").unwrap();
    let n = seeds();
    let poisson_hits = (0..n as u64)
        .filter(|&s| {
            profile_covers(
                &law,
                &counts(100 + s, None),
                &with_family(FamilyKind::Poisson),
                "b",
                0.6,
            )
        })
        .count();
    report("poisson counts, profile interval of b", poisson_hits, n);
    let nb = with_family(FamilyKind::NegativeBinomial);
    let nb_hits = (0..n as u64)
        .filter(|&s| profile_covers(&law, &counts(300 + s, Some(0.3)), &nb, "b", 0.6))
        .count();
    report("NB2 counts (alpha 0.3), profile interval of b", nb_hits, n);
}

#[test]
fn bootstrap_intervals_of_counts_cover_the_truth() {
    let law = catalog::lookup("count_power").unwrap();
    let n = seeds().min(200);
    let hits = (0..n as u64)
        .filter(|&s| {
            bootstrap_covers(
                &law,
                &counts(500 + s, None),
                &with_family(FamilyKind::Poisson),
                "b",
                0.6,
                s,
            )
        })
        .count();
    report("poisson counts, bootstrap interval of b", hits, n);
    // Every NB2 replicate refits α too.
    let nb_seeds = seeds();
    let nb = with_family(FamilyKind::NegativeBinomial);
    let hits = (0..nb_seeds as u64)
        .filter(|&s| bootstrap_covers(&law, &counts(600 + s, Some(0.3)), &nb, "b", 0.6, s))
        .count();
    report(
        "NB2 counts (alpha 0.3), bootstrap interval of b",
        hits,
        nb_seeds,
    );
}

#[test]
fn binomial_accuracies_with_floor_and_ceiling_recover_and_cover() {
    let law = catalog::lookup("bounded_sigmoid").unwrap();
    let settings = with_family(FamilyKind::Binomial);
    let result = fit(&law, &accuracies(1), &settings).unwrap();
    for (name, truth) in [("floor", FLOOR), ("ceil", CEIL), ("k", K), ("m", M)] {
        let p = result.param(name).unwrap();
        assert!(
            (p.value - truth).abs() < 4.0 * p.stderr.unwrap(),
            "{name} = {} ± {:?}",
            p.value,
            p.stderr
        );
    }
    let n = seeds();
    let hits = (0..n as u64)
        .filter(|&s| profile_covers(&law, &accuracies(700 + s), &settings, "m", M))
        .count();
    report(
        "binomial accuracies, profile interval of the midpoint m",
        hits,
        n,
    );
    let boot = seeds();
    let hits = (0..boot as u64)
        .filter(|&s| bootstrap_covers(&law, &accuracies(900 + s), &settings, "ceil", CEIL, s))
        .count();
    report(
        "binomial accuracies, bootstrap interval of the ceiling",
        hits,
        boot,
    );
}

/// The prediction interval of a new observation at `point` under `settings`, from the
/// delta method (None when the fit gives none).
fn prediction_interval(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    point: f64,
) -> Option<[f64; 2]> {
    let record = FitRecord::from(fit(law, data, settings).unwrap());
    let (predictions, _) =
        scalinglaws::uncertainty::predict_with_intervals(&record, &[vec![point]], 0.95).unwrap();
    predictions[0].pi
}

/// The share of seeds whose prediction interval holds a fresh draw (`draw`, from the truth).
fn new_draw_coverage(
    what: &str,
    law: &Law,
    settings: &FitSettings,
    data: impl Fn(u64) -> FitData,
    point: f64,
    mut draw: impl FnMut(&mut Rng) -> f64,
) {
    let n = seeds();
    let mut rng = Rng::new(2201);
    let hits = (0..n as u64)
        .filter(|&s| {
            let [lo, hi] = prediction_interval(law, &data(s), settings, point).unwrap();
            let new = draw(&mut rng);
            lo <= new && new <= hi
        })
        .count();
    report(what, hits, n);
}

#[test]
fn prediction_intervals_of_new_counts_and_accuracies_are_the_familys_own() {
    // Counts: a new model of 10^7.5 parameters (μ = 2e-3·10^4.5 ≈ 63 neurons).
    let law = catalog::lookup("count_power").unwrap();
    let (point, mu) = (10f64.powf(7.5), 2e-3 * 10f64.powf(4.5));
    let poisson_fit = with_family(FamilyKind::Poisson);
    new_draw_coverage(
        "poisson counts, prediction interval of a new count",
        &law,
        &poisson_fit,
        |s| counts(1100 + s, None),
        point,
        |rng| poisson(rng, mu),
    );
    new_draw_coverage(
        "NB2 counts (alpha 0.3), prediction interval of a new count",
        &law,
        &with_family(FamilyKind::NegativeBinomial),
        |s| counts(1300 + s, Some(0.3)),
        point,
        |rng| negative_binomial(rng, mu, 0.3),
    );
    // Accuracies out of 500 questions on every row: a new run's accuracy at the midpoint.
    let bounded = catalog::lookup("bounded_sigmoid").unwrap();
    let binomial_fit = with_family(FamilyKind::Binomial);
    let same_trials = |s: u64| {
        let mut data = accuracies_out_of(1500 + s, 500);
        data.trials = Some(vec![500.0; data.target.len()]);
        data
    };
    let compute = M.exp();
    let p = FLOOR + (CEIL - FLOOR) / 2.0;
    new_draw_coverage(
        "binomial accuracies out of 500, prediction interval of a new accuracy",
        &bounded,
        &binomial_fit,
        same_trials,
        compute,
        |rng| binomial(rng, 500, p) / 500.0,
    );
    // The family's interval is whole counts (per unit of exposure) and asymmetric near 0.
    let [lo, hi] = prediction_interval(&law, &counts(1, None), &poisson_fit, 1e6).unwrap();
    assert!(
        lo.fract() == 0.0 && hi.fract() == 0.0 && lo >= 0.0,
        "{lo} {hi}"
    );
    // Rows out of different numbers of questions leave a new run's size unknown: no interval.
    assert!(prediction_interval(&bounded, &accuracies(1), &binomial_fit, compute).is_none());
}

/// [`accuracies`] with every row out of `n` questions.
fn accuracies_out_of(seed: u64, n: usize) -> FitData {
    let mut rng = Rng::new(seed);
    let mut data = accuracies(seed);
    for (row, acc) in data.target.iter_mut().enumerate() {
        let compute: f64 = data.variables[0][row];
        let p = FLOOR + (CEIL - FLOOR) / (1.0 + (-K * (compute.ln() - M)).exp());
        *acc = binomial(&mut rng, n, p) / n as f64;
    }
    data
}

/// Memorisation rates r(t) = A·t^β·exp(−t/(c·N^γ)) of 5 model sizes, counted (Poisson) over
/// windows of exposure 50.
fn rates(seed: u64, beta: f64, gamma: f64) -> FitData {
    let mut rng = Rng::new(seed);
    let (mut t, mut n, mut y) = (Vec::new(), Vec::new(), Vec::new());
    for j in 0..5 {
        let size = 1e6 * 4f64.powi(j);
        for i in 0..12 {
            let step = 10f64.powf(1.0 + 3.0 * i as f64 / 11.0);
            let cut = 2.0 * size.powf(gamma);
            let rate = 0.05 * step.powf(beta) * (-step / cut).exp();
            t.push(step);
            n.push(size);
            y.push(poisson(&mut rng, 50.0 * rate));
        }
    }
    FitData {
        variables: vec![t, n],
        target: y,
        weights: None,
        trials: None,
        exposure: Some(vec![50.0; 60]),
    }
}

#[test]
fn a_cut_off_that_moves_with_model_size_is_recovered() {
    let law = catalog::lookup("memorisation_rate").unwrap();
    let result = fit(&law, &rates(3, 0.5, 0.3), &with_family(FamilyKind::Poisson)).unwrap();
    assert!(result.converged, "{}", result.termination);
    for (name, truth) in [("beta", 0.5), ("gamma", 0.3)] {
        let p = result.param(name).unwrap();
        let se = p.stderr.unwrap();
        assert!(
            (p.value - truth).abs() < 4.0 * se && se < 0.1,
            "{name} = {} ± {se}",
            p.value
        );
    }
    assert!(
        result.warnings.iter().all(|w| !w.contains("cut-off")),
        "{:?}",
        result.warnings
    );
}

#[test]
fn a_cut_off_beyond_the_data_is_flagged() {
    let law = catalog::lookup("power_cutoff").unwrap();
    // A pure power law (no cut-off) observed up to x = 1e3.
    let mut rng = Rng::new(4);
    let x: Vec<f64> = (0..20).map(|i| 10f64.powf(3.0 * i as f64 / 19.0)).collect();
    let y: Vec<f64> = x
        .iter()
        .map(|x| poisson(&mut rng, 3.0 * x.powf(0.4)))
        .collect();
    let data = FitData {
        variables: vec![x],
        target: y,
        weights: None,
        trials: None,
        exposure: None,
    };
    let result = fit(&law, &data, &with_family(FamilyKind::Poisson)).unwrap();
    assert!(
        result
            .warnings
            .iter()
            .any(|w| w.contains("cut-off") && w.contains("beyond the data")),
        "{:?}",
        result.warnings
    );
}

fn power_candidates(data: &FitData) -> Vec<Candidate> {
    let settings = with_family(FamilyKind::Poisson);
    let formula = |text: &str| Law::from_formula(text, &|v| v == "x").unwrap();
    vec![
        Candidate {
            label: "power".into(),
            law: formula("A*x^beta"),
            settings: settings.clone(),
            data: data.clone(),
        },
        Candidate {
            label: "cut-off".into(),
            // The cut-off as a rate λ = 1/x_c that may take either sign: its absence (λ = 0) is
            // inside the parameter space, where Wilks's χ²₁ holds. With x_c > 0 the absent
            // cut-off is a boundary point and the statistic is ½χ²₀ + ½χ²₁ (Self & Liang 1987).
            law: formula("A*x^beta*exp(-lambda*x)"),
            settings,
            data: data.clone(),
        },
    ]
}

#[test]
fn the_cut_off_test_rejects_at_its_level_when_there_is_no_cut_off() {
    let n = (2 * seeds()).max(60);
    let mut rejected = 0;
    for seed in 0..n as u64 {
        let mut rng = Rng::new(2_000 + seed);
        let x: Vec<f64> = (0..20).map(|i| 10f64.powf(2.0 * i as f64 / 19.0)).collect();
        let y: Vec<f64> = x
            .iter()
            .map(|x| poisson(&mut rng, 5.0 * x.powf(0.5)))
            .collect();
        let data = FitData {
            variables: vec![x],
            target: y,
            weights: None,
            trials: None,
            exposure: None,
        };
        let comparison = compare_laws(&power_candidates(&data), None, 0.2, 0.95).unwrap();
        let test = comparison
            .tests
            .first()
            .expect("the power law nests in the cut-off law");
        assert_eq!(test.df, 1);
        rejected += usize::from(test.p_value < 0.05);
    }
    let size = rejected as f64 / n as f64;
    eprintln!("chi-square test of a cut-off at level 0.05, no cut-off: rejected {rejected} of {n} ({size:.3})");
    let (lo, hi) = if n >= 200 { (0.03, 0.07) } else { (0.0, 0.12) };
    assert!(
        (lo..=hi).contains(&size),
        "size {size} outside [{lo}, {hi}]"
    );
}

#[test]
fn families_refuse_what_they_cannot_take() {
    let law = catalog::lookup("count_power").unwrap();
    let mut data = counts(1, None);
    let message = |result: scalinglaws::Result<FitResult>| result.unwrap_err().to_string();
    // Counts in log space, a negative count, trials for counts.
    let log = FitSettings {
        space: Space::Log,
        ..with_family(FamilyKind::Poisson)
    };
    assert!(message(fit(&law, &data, &log)).contains("linear"));
    data.target[3] = -1.0;
    assert!(message(fit(&law, &data, &with_family(FamilyKind::Poisson))).contains("row 4"));
    // Counts are whole (issue 50: losses fitted as Poisson counts were accepted).
    data.target[3] = 2.35;
    let error = message(fit(&law, &data, &with_family(FamilyKind::Poisson)));
    assert!(
        error.contains("row 4") && error.contains("whole count"),
        "{error}"
    );
    data.target[3] = 1.0;
    data.trials = Some(vec![10.0; data.target.len()]);
    assert!(message(fit(&law, &data, &with_family(FamilyKind::Poisson))).contains("trials"));
    // A proportion family without trials; a prediction outside (0, 1).
    let acc = FitData {
        trials: None,
        ..accuracies(1)
    };
    let sigmoid = catalog::lookup("bounded_sigmoid").unwrap();
    assert!(message(fit(&sigmoid, &acc, &with_family(FamilyKind::Binomial))).contains("trials"));
    let above = Law::from_formula("2 + a*C", &|v| v == "C").unwrap();
    let error = message(fit(
        &above,
        &accuracies(1),
        &with_family(FamilyKind::Binomial),
    ));
    assert!(error.contains("strictly between 0 and 1"), "{error}");
    // ν out of range, a dispersion for a family without one.
    let mut t = with_family(FamilyKind::StudentT);
    t.family.as_mut().unwrap().nu = Some(0.01);
    assert!(message(fit(&law, &counts(1, None), &t)).contains("degrees of freedom"));
    let mut p = with_family(FamilyKind::Poisson);
    p.family.as_mut().unwrap().dispersion = Some(0.5);
    assert!(message(fit(&law, &counts(1, None), &p)).contains("dispersion"));
}

#[test]
fn family_fits_are_bit_identical_at_any_thread_count() {
    let law = catalog::lookup("count_power").unwrap();
    let data = counts(9, Some(0.3));
    let at = |threads: usize| {
        let settings = FitSettings {
            threads: Some(threads),
            ..with_family(FamilyKind::NegativeBinomial)
        };
        let result = fit(&law, &data, &settings).unwrap();
        (
            result.param_values(),
            result.objective,
            result.family.unwrap().dispersion,
        )
    };
    let one = at(1);
    assert_eq!(one, at(2));
    assert_eq!(one, at(3));
}
