//! Downstream accuracy on the Pythia evals (Biderman et al. 2023, EleutherAI, Apache-2.0;
//! derived into examples/downstream/pythia_zero_shot.csv by its derive.py): the backtests of
//! issue 23 (the 6.9B and 12B models forecast from those up to 2.8B, and their later
//! checkpoints from their early ones), a zero-shot transfer check, and properties of the
//! pieces.

use std::path::PathBuf;
use std::time::Instant;

use scalinglaws::analysis::downstream::{DownstreamResult, DownstreamSettings, Method, Shape};
use scalinglaws::data::recipe::{Recipe, Table, Trials};
use scalinglaws::data::Dataset;
use scalinglaws::workflow::downstream::{ColumnOrValue, DownstreamJob};

fn example() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/downstream/pythia_zero_shot.csv")
}

fn table() -> Table {
    let recipe = Recipe {
        target: "accuracy".into(),
        ..Recipe::default()
    };
    Table::prepare(Dataset::read(&example(), None).unwrap(), &recipe).unwrap()
}

const LARGE: [&str; 4] = [
    "pythia-6.9b",
    "pythia-6.9b-deduped",
    "pythia-12b",
    "pythia-12b-deduped",
];

fn job(own_until: Option<f64>, unseen: Option<&str>) -> DownstreamJob {
    DownstreamJob {
        model: "model".into(),
        task: "task".into(),
        size: "params".into(),
        tokens: "tokens".into(),
        loss: Some("loss".into()),
        questions: Some(Trials::Column("questions".into())),
        chance: Some(ColumnOrValue::Column("chance".into())),
        at: Vec::new(),
        holdout: LARGE.iter().map(|s| s.to_string()).collect(),
        own_until,
        settings: DownstreamSettings {
            unseen: unseen.map(str::to_string),
            ..DownstreamSettings::default()
        },
    }
}

fn score(result: &DownstreamResult, method: Method) -> (usize, f64, f64) {
    let s = result.scores.iter().find(|s| s.method == method).unwrap();
    (s.forecasts, s.mae, s.coverage)
}

fn print(result: &DownstreamResult) {
    for s in &result.scores {
        eprintln!(
            "{:?}: {} forecasts, MAE {:.2} points, coverage {:.3}, width {:.1}",
            s.method, s.forecasts, s.mae, s.coverage, s.width
        );
    }
    for c in &result.calibration {
        eprintln!(
            "{:?} {:?}: {} replays, gamma {:.3}, sigma {:.4}, replay MAE {:?} ({})",
            c.mode,
            c.method,
            c.calibration.replays,
            c.calibration.gamma,
            c.calibration.sigma,
            c.calibration.replay_mae,
            c.replayed
        );
    }
    for n in &result.notes {
        eprintln!("note: {n}");
    }
}

fn mae_on(result: &DownstreamResult, method: Method, prefix: &str) -> f64 {
    let errors: Vec<f64> = result
        .forecasts
        .iter()
        .filter(|f| f.task.starts_with(prefix))
        .filter_map(|f| Some((f.of(method)?.value - f.observed?).abs()))
        .collect();
    100.0 * errors.iter().sum::<f64>() / errors.len() as f64
}

/// Issue 23's first backtest: fit on the models up to 2.8B (both Pile versions, every
/// checkpoint), forecast the last checkpoint of the 6.9B and 12B models on every informative
/// task. The goal: pooled MAE at most 0.6 × the logistic law's. Coverage is asserted in a
/// band wider than the issue's [0.85, 0.98] at the top: one miss in 56 is 0.982, and an exactly
/// calibrated interval lands above 0.98 on this backtest a quarter to a third of the time (see
/// `coverage_holds_over_three_splits_across_sizes`).
#[test]
fn the_large_models_forecast_from_the_small_ones() {
    let table = table();
    let start = Instant::now();
    let result = job(None, None).run(&table, "accuracy").unwrap();
    eprintln!("across sizes: {:.2} s", start.elapsed().as_secs_f64());
    print(&result);
    let (n, logistic, logistic_cov) = score(&result, Method::Logistic);
    let (_, two_stage, two_stage_cov) = score(&result, Method::TwoStage);
    let (_, pooled, pooled_cov) = score(&result, Method::Pooled);
    assert_eq!(n, 56, "14 informative tasks × 4 models");
    assert!(
        pooled <= 0.6 * logistic,
        "pooled {pooled} vs logistic {logistic}"
    );
    assert!(
        pooled < two_stage,
        "pooled {pooled} vs two-stage {two_stage}"
    );
    for coverage in [logistic_cov, two_stage_cov, pooled_cov] {
        assert!((0.85..=1.0).contains(&coverage), "{coverage}");
    }
    let at_chance = result
        .tasks
        .iter()
        .filter(|t| t.shape == Shape::AtChance)
        .count();
    assert_eq!(at_chance, 51);
    assert!(result.forecasts.iter().all(|f| result
        .tasks
        .iter()
        .any(|t| t.task == f.task && t.shape != Shape::AtChance)));
}

/// A set token stops the backtest's fits and replays with `Error::Interrupted`.
#[test]
fn an_interrupt_stops_the_analysis() {
    let table = table();
    let job = job(None, None);
    job.settings.interrupt.interrupt();
    let stopped = job.run(&table, "accuracy");
    assert!(
        matches!(stopped, Err(scalinglaws::Error::Interrupted)),
        "{stopped:?}"
    );
}

fn table_where(filter: &str) -> Table {
    let recipe = Recipe {
        target: "accuracy".into(),
        filters: vec![scalinglaws::data::recipe::Filter::parse(filter).unwrap()],
        ..Recipe::default()
    };
    Table::prepare(Dataset::read(&example(), None).unwrap(), &recipe).unwrap()
}

/// (forecasts, misses, absolute errors summed) of one method in one backtest.
fn tally(result: &DownstreamResult, method: Method) -> (usize, usize, f64) {
    let pairs: Vec<_> = result
        .forecasts
        .iter()
        .filter_map(|f| Some((f.of(method)?, f.observed?)))
        .collect();
    let misses = pairs
        .iter()
        .filter(|(f, o)| !(f.interval[0] <= *o && *o <= f.interval[1]))
        .count();
    let errors = pairs.iter().map(|(f, o)| (f.value - o).abs()).sum();
    (pairs.len(), misses, errors)
}

/// One backtest of 56 forecasts is a noisy measure of coverage (a task's forecasts at four
/// models miss together: bench/downstream_splits.py --band puts a calibrated 95 % interval
/// above 0.98 on it a quarter to a third of the time). Over three splits across sizes (the
/// 6.9B and 12B models from those up to 2.8B, the 12B from those up to 6.9B, the 2.8B from
/// those up to 1.4B), every method covers at least 90 %, and the pooled model beats the
/// logistic law in each split.
#[test]
fn coverage_holds_over_three_splits_across_sizes() {
    let mut twelve = job(None, None);
    twelve.holdout = vec!["pythia-12b".into(), "pythia-12b-deduped".into()];
    let mut small = job(None, None);
    small.holdout = vec!["pythia-2.8b".into(), "pythia-2.8b-deduped".into()];
    let results = [
        job(None, None).run(&table(), "accuracy").unwrap(),
        twelve.run(&table(), "accuracy").unwrap(),
        small.run(&table_where("params < 3e9"), "accuracy").unwrap(),
    ];
    for method in Method::ALL {
        let (mut n, mut misses) = (0, 0);
        for result in &results {
            let (k, m, _) = tally(result, method);
            n += k;
            misses += m;
        }
        let coverage = 1.0 - misses as f64 / n as f64;
        eprintln!("{method:?}: {n} forecasts over three splits, coverage {coverage:.3}");
        assert!(n > 100 && coverage >= 0.9, "{method:?}: {coverage}");
    }
    for result in &results {
        let (n, _, pooled) = tally(result, Method::Pooled);
        let (m, _, logistic) = tally(result, Method::Logistic);
        assert!(
            pooled / (n as f64) < logistic / (m as f64),
            "{pooled} vs {logistic}"
        );
    }
}

/// Issue 23's second backtest: the large models' checkpoints after step 13,000 (27B tokens)
/// forecast from their own checkpoints up to it and the smaller models.
#[test]
fn later_checkpoints_forecast_from_early_ones() {
    let table = table();
    let start = Instant::now();
    let result = job(Some(13000.0 * 2097152.0), None)
        .run(&table, "accuracy")
        .unwrap();
    eprintln!("across checkpoints: {:.2} s", start.elapsed().as_secs_f64());
    print(&result);
    let (_, logistic, _) = score(&result, Method::Logistic);
    let (n, pooled, pooled_cov) = score(&result, Method::Pooled);
    assert!(n > 500, "{n}");
    assert!(pooled < logistic, "pooled {pooled} vs logistic {logistic}");
    assert!((0.85..=0.98).contains(&pooled_cov), "{pooled_cov}");
}

/// Issue 23's transfer check: the pooled model learns its prior, γ and σ without any MMLU
/// task, then forecasts the MMLU tasks.
#[test]
fn mmlu_is_forecast_by_a_model_that_never_saw_it() {
    let table = table();
    let seen = job(None, None).run(&table, "accuracy").unwrap();
    let unseen = job(None, Some("hendrycksTest"))
        .run(&table, "accuracy")
        .unwrap();
    let (a, b) = (
        mae_on(&seen, Method::Pooled, "hendrycksTest"),
        mae_on(&unseen, Method::Pooled, "hendrycksTest"),
    );
    let logistic = mae_on(&seen, Method::Logistic, "hendrycksTest");
    eprintln!("MMLU pooled MAE: seen {a:.2}, unseen {b:.2}; logistic {logistic:.2}");
    print(&unseen);
    assert!(b < logistic, "unseen {b} vs logistic {logistic}");
}

/// The same forecasts, bit for bit, on one thread and on two.
#[test]
fn results_do_not_depend_on_the_thread_count() {
    let table = table();
    let run = |threads| {
        let mut j = job(None, None);
        j.holdout = vec!["pythia-12b".into()];
        j.settings.threads = Some(threads);
        serde_json::to_string(&j.run(&table, "accuracy").unwrap()).unwrap()
    };
    assert_eq!(run(1), run(2));
}

/// Tasks whose accuracy is exactly linear in log10 compute: the replays learn that the trend
/// carries on whole (γ = 1), and the pooled model forecasts the held-out largest models to
/// within 0.1 points.
#[test]
fn straight_trends_are_continued_whole() {
    use scalinglaws::analysis::downstream::{
        backtest, DownstreamData, Evaluation, ModelInfo, TaskInfo,
    };
    let sizes: Vec<f64> = (0..7).map(|i| 10f64.powf(8.0 + 0.4 * i as f64)).collect();
    let models = sizes
        .iter()
        .enumerate()
        .map(|(i, &params)| ModelInfo {
            name: format!("m{i}"),
            params,
        })
        .collect();
    let slopes = [0.02, 0.04, 0.05, 0.07, 0.09];
    let tasks = slopes
        .iter()
        .enumerate()
        .map(|(t, _)| TaskInfo {
            name: format!("t{t}"),
            chance: 0.25,
            questions: Some(1e6),
        })
        .collect();
    let mut evaluations = Vec::new();
    for (m, &params) in sizes.iter().enumerate() {
        for (task, slope) in slopes.iter().enumerate() {
            let x = (6.0 * params * 1e11).log10();
            evaluations.push(Evaluation {
                model: m,
                task,
                tokens: 1e11,
                accuracy: 0.3 + slope * (x - 19.0),
                loss: None,
            });
        }
    }
    let data = DownstreamData {
        models,
        tasks,
        evaluations,
    };
    let result = backtest(
        &data,
        &["m6".to_string()],
        None,
        &DownstreamSettings::default(),
    )
    .unwrap();
    let pooled = result
        .calibration
        .iter()
        .find(|c| c.method == Method::Pooled)
        .unwrap();
    assert!(
        (pooled.calibration.gamma - 1.0).abs() < 1e-3,
        "{}",
        pooled.calibration.gamma
    );
    for f in &result.forecasts {
        let p = f.pooled.unwrap();
        assert!((p.value - f.observed.unwrap()).abs() < 1e-3, "{f:?}");
    }
}
