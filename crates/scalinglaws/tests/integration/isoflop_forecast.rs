//! IsoFLOP defaults chosen by measurement (issue 18): which local curve per budget extrapolates
//! N* and D* best, and whether the intervals of `isoflop --budget` hold beyond the data.
//!
//! - Shape comparison: every shape, in ln N and in ln D (the same analysis with N and D
//!   swapped), and Chinchilla's approach 3 (a full Chinchilla fit, then its closed-form optimum)
//!   are fitted on all but the two largest budgets and scored by the mean |ln error| of D* there:
//!   on Porian et al. 2024's fifteen configurations (testdata/porian2024, MIT; the truth
//!   is the paper's own per-budget optimum, `optimal_pairs.csv`) and on synthetic IsoFLOP
//!   studies drawn from Hoffmann et al.'s law with the known optimum, sampled centred, off-centre
//!   at random and drifting, over ±2× to ±16× around it, with 5 to 12 runs per budget and
//!   0.1 % to 1 % noise. `SCALINGLAWS_ISOFLOP_SEEDS` sets the synthetic seeds per design
//!   (default 2; the note's table used 10).
//! - Coverage: `SCALINGLAWS_ISOFLOP_COVERAGE_SEEDS` synthetic studies (default 200) predict D*
//!   at 10× the largest budget; the share of 95 % intervals holding the true D* must lie in
//!   [0.90, 0.98].

use std::collections::BTreeMap;
use std::path::PathBuf;

use scalinglaws::analysis::isoflop::{
    isoflop, IsoflopData, IsoflopSettings, Method as Predictor, Shape,
};
use scalinglaws::data::Dataset;
use scalinglaws::fit::{fit, FitData, FitSettings};
use scalinglaws::law::catalog;
use scalinglaws::rng::Rng;

const HOFFMANN: (f64, f64, f64, f64, f64) = (1.69, 406.4, 0.34, 410.7, 0.28);

fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One study: its runs and the true (or reference) N*, D* at the held-out budgets.
struct Study {
    data: IsoflopData,
    /// Budgets to predict, with their reference (N*, D*).
    truth: Vec<(f64, f64, f64)>,
}

// ---- Porian et al. 2024 -------------------------------------------------------------------

fn porian(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/porian2024")
        .join(path)
}

const KEYS: [&str; 6] = [
    "dataset",
    "hparams",
    "warmup",
    "decay",
    "param_count",
    "val",
];

fn keyed(path: &str, columns: [&str; 3]) -> BTreeMap<Vec<String>, Vec<[f64; 4]>> {
    let data = Dataset::read(&porian(path), None).unwrap();
    let labels: Vec<Vec<String>> = KEYS.iter().map(|k| data.text(k).unwrap()).collect();
    let flops = data.positive("flops", "test").unwrap();
    let values: Vec<Vec<String>> = columns.iter().map(|c| data.text(c).unwrap()).collect();
    let mut out: BTreeMap<Vec<String>, Vec<[f64; 4]>> = BTreeMap::new();
    for row in 0..flops.len() {
        let parsed: Vec<f64> = values
            .iter()
            .map(|v| v[row].parse::<f64>().unwrap_or(f64::NAN))
            .collect();
        let key = labels.iter().map(|l| l[row].clone()).collect();
        out.entry(key)
            .or_default()
            .push([flops[row], parsed[0], parsed[1], parsed[2]]);
    }
    out
}

/// Porian's fifteen configurations, each with its two largest budgets held out.
fn porian_studies() -> Option<Vec<Study>> {
    let points = keyed("isoflop_points.csv", ["n", "t", "loss"]);
    let optima = keyed("optimal_pairs.csv", ["n", "t", "loss"]);
    let studies = points
        .into_iter()
        .map(|(key, rows)| {
            let mut budgets: Vec<f64> = rows.iter().map(|r| r[0]).collect();
            budgets.sort_by(f64::total_cmp);
            budgets.dedup();
            let cut = budgets[budgets.len() - 2];
            let train: Vec<&[f64; 4]> = rows.iter().filter(|r| r[0] < cut * 0.999).collect();
            let truth = optima[&key]
                .iter()
                .filter(|o| o[0] >= cut * 0.999 && o[1].is_finite() && o[2].is_finite())
                .map(|o| (o[0], o[1], o[2]))
                .collect();
            Study {
                data: IsoflopData {
                    compute: train.iter().map(|r| r[0]).collect(),
                    size: train.iter().map(|r| r[1]).collect(),
                    loss: train.iter().map(|r| r[3]).collect(),
                    tokens: Some(train.iter().map(|r| r[2]).collect()),
                },
                truth,
            }
        })
        .collect();
    Some(studies)
}

// ---- Synthetic IsoFLOP studies ------------------------------------------------------------

fn true_n_star(c: f64) -> f64 {
    let (_, a, alpha, b, beta) = HOFFMANN;
    let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
    g * (c / 6.0).powf(beta / (alpha + beta))
}

fn loss(n: f64, d: f64) -> f64 {
    let (e, a, alpha, b, beta) = HOFFMANN;
    e + a * n.powf(-alpha) + b * d.powf(-beta)
}

#[derive(Clone, Copy, Debug)]
enum Centre {
    Centred,
    Random,
    Drift,
}

/// `budgets` budgets half a decade apart from 1e18 FLOPs, `runs` sizes per budget spread
/// log-evenly over ±`range`× around a centre placed by `centre`, ln-loss noise `noise`.
fn synthetic(
    seed: u64,
    budgets: usize,
    runs: usize,
    range: f64,
    noise: f64,
    centre: Centre,
) -> IsoflopData {
    let mut rng = Rng::stream(seed, 17);
    let mut data = IsoflopData {
        compute: vec![],
        size: vec![],
        loss: vec![],
        tokens: None,
    };
    let span = range.ln();
    for i in 0..budgets {
        let c = 1e18 * 10f64.powf(0.5 * i as f64);
        let shift = match centre {
            Centre::Centred => 0.0,
            Centre::Random => (2.0 * rng.uniform() - 1.0) * 0.5 * span,
            Centre::Drift => (i as f64 / (budgets - 1) as f64 - 0.5) * span,
        };
        for j in 0..runs {
            let offset = -span + 2.0 * span * j as f64 / (runs - 1) as f64;
            let n = true_n_star(c) * (shift + offset).exp();
            data.compute.push(c);
            data.size.push(n);
            data.loss
                .push(loss(n, c / (6.0 * n)) * (noise * rng.normal()).exp());
        }
    }
    data
}

fn synthetic_studies(seeds: usize) -> Vec<Study> {
    let mut studies = Vec::new();
    for centre in [Centre::Centred, Centre::Random, Centre::Drift] {
        for noise in [0.001, 0.003, 0.01] {
            for runs in [5, 8, 12] {
                for range in [2.0, 4.0, 8.0, 16.0] {
                    for seed in 0..seeds as u64 {
                        let tag = seed * 1000 + runs as u64 * 37 + range as u64;
                        let all = synthetic(tag, 7, runs, range, noise, centre);
                        let cut = 1e18 * 10f64.powf(2.5);
                        let keep: Vec<usize> = (0..all.compute.len())
                            .filter(|&r| all.compute[r] < cut * 0.999)
                            .collect();
                        let pick = |c: &[f64]| keep.iter().map(|&r| c[r]).collect::<Vec<f64>>();
                        let truth = [2.5f64, 3.0]
                            .map(|e| {
                                let c = 1e18 * 10f64.powf(e);
                                (c, true_n_star(c), c / (6.0 * true_n_star(c)))
                            })
                            .to_vec();
                        studies.push(Study {
                            data: IsoflopData {
                                compute: pick(&all.compute),
                                size: pick(&all.size),
                                loss: pick(&all.loss),
                                tokens: Some(
                                    keep.iter()
                                        .map(|&r| all.compute[r] / (6.0 * all.size[r]))
                                        .collect(),
                                ),
                            },
                            truth,
                        });
                    }
                }
            }
        }
    }
    studies
}

// ---- The methods compared -----------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Method {
    /// A shape of `isoflop`, in ln N (false) or in ln D (true).
    Shape(Shape, bool),
    /// Chinchilla's approach 3: fit the law to every run, take its closed-form optimum.
    Approach3,
}

impl Method {
    fn name(self) -> String {
        match self {
            Method::Shape(shape, in_d) => {
                format!("{} in ln {}", shape.name(), if in_d { "D" } else { "N" })
            }
            Method::Approach3 => "approach 3 (fit, then optimal)".into(),
        }
    }
}

/// Predicted (N*, D*) at `budgets`, or None where the method gives none.
fn predict(method: Method, data: &IsoflopData, budgets: &[f64]) -> Vec<Option<(f64, f64)>> {
    match method {
        Method::Shape(shape, in_d) => {
            let swapped = IsoflopData {
                size: if in_d {
                    data.tokens.clone().unwrap()
                } else {
                    data.size.clone()
                },
                tokens: Some(if in_d {
                    data.size.clone()
                } else {
                    data.tokens.clone().unwrap()
                }),
                ..data.clone()
            };
            let settings = IsoflopSettings {
                shape,
                predict_at: budgets.to_vec(),
                method: Predictor::Profiles,
                ..IsoflopSettings::default()
            };
            match isoflop(&swapped, &settings) {
                Ok(result) if !result.predictions.is_empty() => result
                    .predictions
                    .iter()
                    .map(|p| {
                        let (a, b) = (p.n.value, p.d.value);
                        Some(if in_d { (b, a) } else { (a, b) })
                    })
                    .collect(),
                _ => vec![None; budgets.len()],
            }
        }
        Method::Approach3 => approach3(data, budgets),
    }
}

fn approach3(data: &IsoflopData, budgets: &[f64]) -> Vec<Option<(f64, f64)>> {
    let tokens = data.tokens.as_ref().unwrap();
    let law = catalog::lookup("chinchilla").unwrap();
    let fit_data = FitData {
        variables: vec![data.size.clone(), tokens.clone()],
        target: data.loss.clone(),
        weights: None,
        trials: None,
        exposure: None,
    };
    let Ok(result) = fit(&law, &fit_data, &FitSettings::default()) else {
        return vec![None; budgets.len()];
    };
    let p = result.param_values();
    let (a, alpha, b, beta) = (p[1], p[2], p[3], p[4]);
    // FLOPs per N·D: 6 where C = 6ND, else the runs' geometric mean of C/(N·D).
    let k = (data
        .compute
        .iter()
        .zip(&data.size)
        .zip(tokens)
        .map(|((c, n), d)| (c / (n * d)).ln())
        .sum::<f64>()
        / data.compute.len() as f64)
        .exp();
    let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
    budgets
        .iter()
        .map(|&c| {
            let n = g * (c / k).powf(beta / (alpha + beta));
            let d = c / (k * n);
            (n.is_finite() && d.is_finite() && n > 0.0).then_some((n, d))
        })
        .collect()
}

/// Mean |ln D* error| over every held-out budget, and the count of budgets without a
/// prediction.
fn score(method: Method, studies: &[Study]) -> (f64, usize, usize) {
    let (mut total, mut count, mut missing) = (0.0, 0, 0);
    for study in studies {
        let budgets: Vec<f64> = study.truth.iter().map(|t| t.0).collect();
        for (prediction, truth) in predict(method, &study.data, &budgets)
            .iter()
            .zip(&study.truth)
        {
            match prediction {
                Some((_, d)) => {
                    total += (d.ln() - truth.2.ln()).abs();
                    count += 1;
                }
                None => missing += 1,
            }
        }
    }
    (total / count.max(1) as f64, count, missing)
}

fn methods() -> Vec<Method> {
    let mut out: Vec<Method> = Shape::ALL
        .iter()
        .flat_map(|&s| [Method::Shape(s, false), Method::Shape(s, true)])
        .collect();
    out.push(Method::Approach3);
    out
}

#[test]
fn the_default_shape_extrapolates_best_on_porian_and_synthetic_studies() {
    let seeds = env_count("SCALINGLAWS_ISOFLOP_SEEDS", 2);
    let synthetic = synthetic_studies(seeds);
    let porian = porian_studies();
    println!("mean |ln D* error| at the two largest budgets (held out)");
    println!(
        "{:34} {:>18} {:>22}",
        "method",
        "Porian (15 configs)",
        format!("synthetic ({})", synthetic.len())
    );
    let mut table = Vec::new();
    for method in methods() {
        let real = porian.as_ref().map(|p| score(method, p));
        let synth = score(method, &synthetic);
        println!(
            "{:34} {:>18} {:>22}",
            method.name(),
            real.map_or("-".into(), |(e, n, m)| format!("{e:.4} ({n}, {m} missing)")),
            format!("{:.4} ({}, {} missing)", synth.0, synth.1, synth.2)
        );
        table.push((method, real, synth));
    }
    let default = Method::Shape(Shape::Auto, false);
    let cubic = table
        .iter()
        .find(|t| t.0.name() == Method::Shape(Shape::Cubic, false).name())
        .unwrap()
        .2
         .0;
    let (_, default_real, default_synth) =
        table.iter().find(|t| t.0.name() == default.name()).unwrap();
    for (method, real, synth) in &table {
        if matches!(method, Method::Approach3) {
            continue;
        }
        // Synthetic: the default is within 10 % of the best shape (the wide parabola, which the
        // lack-of-fit test picks there; 2.5 % behind it over 10 seeds) and well ahead of the
        // local shapes.
        assert!(
            default_synth.0 <= synth.0 * 1.10,
            "synthetic: {} {:.4} beats the default's {:.4}",
            method.name(),
            synth.0,
            default_synth.0
        );
        assert!(
            default_synth.0 <= 0.6 * cubic,
            "synthetic: the default {:.4} against the local cubic's {cubic:.4}",
            default_synth.0
        );
        // Porian: within 0.003 of every shape. The three-point parabola's 0.0629 against the
        // default's 0.0640 is a paired difference of 0.0011 ± 0.0081 (se over the 30 held-out
        // budgets; each wins about half of them), far inside the published optimum's own
        // bootstrap error (0.15–0.23 in ln units).
        if let (Some(d), Some(r)) = (default_real, real) {
            assert!(
                d.0 <= r.0 + 0.003,
                "Porian: {} {:.4} beats the default's {:.4}",
                method.name(),
                r.0,
                d.0
            );
        }
    }
}

// ---- The choice of what predicts at new budgets (issue 51) ----------------------------------

/// Mean |ln D* error| and the intervals' coverage of `method` at the two largest budgets of
/// each of Porian et al.'s configurations, held out, the paper's own optimum the truth.
fn porian_by_method(studies: &[Study], method: Predictor) -> (f64, usize, usize) {
    let (mut errors, mut covered, mut scored) = (Vec::new(), 0usize, 0usize);
    for study in studies {
        let budgets: Vec<f64> = study.truth.iter().map(|t| t.0).collect();
        let settings = IsoflopSettings {
            predict_at: budgets,
            bootstrap: 50,
            method,
            ..IsoflopSettings::default()
        };
        let result = isoflop(&study.data, &settings).unwrap();
        let choice = result.method_choice.as_ref().unwrap();
        assert!(!choice.reason.is_empty() && choice.units > 0, "{choice:?}");
        for (p, truth) in result.predictions.iter().zip(&study.truth) {
            errors.push((p.d.value.ln() - truth.2.ln()).abs());
            if let Some([lo, hi]) = p.d.interval {
                scored += 1;
                covered += usize::from(lo <= truth.2 && truth.2 <= hi);
            }
        }
    }
    let mean = errors.iter().sum::<f64>() / errors.len() as f64;
    (mean, covered, scored)
}

/// On Porian et al.'s fifteen configurations, the two largest budgets held out and the truth
/// the paper's own optimum there: `--method auto` (the joint law's window chosen by a backtest
/// over each configuration's own budgets, taken over the per-budget minima only when better
/// there by more than a standard error) and `joint` predict D* closer than the scipy
/// recipe (a parabola in ln D through every run of a budget) with intervals holding the truth
/// at least 85 % of the time. Neither is closer than the per-budget minima here
/// (bench/results/isoflop_joint.txt: auto 0.0672, joint 0.0641, minima 0.0640, scipy 0.1047;
/// on Chinchilla's runs auto 0.0800 against 0.1359 and 0.1511): the test holds them within a
/// tenth of the minima's error so that a change which makes the choice worse fails (the
/// default stays `profiles`, the minima, for that reason).
#[test]
fn auto_and_joint_beat_the_scipy_parabola_and_cover_on_porian() {
    let studies = porian_studies().expect("testdata/porian2024 is in the repository");
    let minima = score(Method::Shape(Shape::Auto, false), &studies).0;
    let scipy = score(Method::Shape(Shape::ParabolaAll, true), &studies).0;
    for method in [Predictor::Auto, Predictor::Joint] {
        let (error, covered, scored) = porian_by_method(&studies, method);
        println!(
            "Porian, mean |ln D* error| at the 2 largest budgets: {} {error:.4}, per-budget minima {minima:.4}, scipy parabola in ln D {scipy:.4}; intervals hold {covered} of {scored}",
            method.name()
        );
        assert_eq!(scored, 30);
        assert!(
            error < scipy && error < 1.1 * minima,
            "{error} {minima} {scipy}"
        );
        assert!(covered as f64 / scored as f64 >= 0.85, "{covered}/{scored}");
    }
}

// ---- Coverage of `isoflop --budget` -------------------------------------------------------

#[test]
fn budget_intervals_cover_the_true_optimum_beyond_the_data() {
    let seeds = env_count("SCALINGLAWS_ISOFLOP_COVERAGE_SEEDS", 200);
    let (mut covered, mut scored, mut calibrated) = (0usize, 0usize, 0usize);
    let mut widths = Vec::new();
    for seed in 0..seeds as u64 {
        let data = synthetic(seed + 50_000, 8, 9, 4.0, 0.005, Centre::Random);
        let largest = 1e18 * 10f64.powf(3.5);
        let target = 10.0 * largest;
        let settings = IsoflopSettings {
            predict_at: vec![target],
            bootstrap: 200,
            seed,
            method: Predictor::Profiles,
            ..IsoflopSettings::default()
        };
        let result = isoflop(&data, &settings).unwrap();
        let Some(prediction) = result.predictions.first() else {
            continue;
        };
        let Some([lo, hi]) = prediction.d.interval else {
            continue;
        };
        scored += 1;
        calibrated += usize::from(result.calibration.as_ref().is_some_and(|c| c.calibrated));
        let truth = target / (6.0 * true_n_star(target));
        covered += usize::from(lo <= truth && truth <= hi);
        widths.push((hi / lo).ln());
    }
    let share = covered as f64 / scored as f64;
    widths.sort_by(f64::total_cmp);
    println!(
        "D* at 10× the largest budget: {covered} of {scored} intervals hold the truth ({:.3}); {calibrated} calibrated; median width ×{:.3}",
        share,
        widths[widths.len() / 2].exp()
    );
    assert!(
        scored * 10 >= seeds * 9,
        "only {scored} of {seeds} studies gave an interval"
    );
    assert!((0.90..=0.98).contains(&share), "coverage {share:.3}");
}
