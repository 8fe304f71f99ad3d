//! Sweeps (`sweep`, `scalinglaws::data::sweep`): a law is fitted to each cell's frontier. On a
//! synthetic learning-rate sweep whose frontier is known exactly (the loss is the law times a
//! penalty quadratic in log lr), the frontier fit recovers the law where fitting every run does
//! not; the record names each cell's runs, best row and method; settings the frontier cannot
//! act on are refused with the setting named; and a fit without a sweep is unchanged.

use scalinglaws::data::recipe::{Recipe, Table};
use scalinglaws::data::sweep::{BestReason, FrontierMethod};
use scalinglaws::data::Dataset;
use scalinglaws::job::FitJob;

const E: f64 = 1.8;
const A: f64 = 400.0;
const ALPHA: f64 = 0.34;
const B: f64 = 2000.0;
const BETA: f64 = 0.36;

fn law(n: f64, d: f64) -> f64 {
    E + A * n.powf(-ALPHA) + B * d.powf(-BETA)
}

/// 5 sizes × 4 token counts, each swept over 5 learning rates a factor 2 apart; the optimal lr
/// falls with size and sits between two of the sweep's rates except at the largest size (below
/// its sweep: the best run is at the low end). Loss = law × exp(0.05 (ln lr − ln lr*)²), so the
/// log loss is exactly quadratic in log lr and the frontier is the law.
fn sweep_runs() -> (Vec<(String, Vec<f64>)>, usize) {
    let (mut n, mut d, mut lr, mut loss) = (vec![], vec![], vec![], vec![]);
    for i in 0..5 {
        let size = 2e7 * 3f64.powi(i);
        let shift = if i == 4 { -2.2 } else { 0.3 };
        let best_lr = 4e-3 * (size / 2e7).powf(-0.5) * 2f64.powf(shift);
        for j in 0..4 {
            let tokens = 20.0 * size * 2f64.powi(j);
            for k in -2..=2 {
                let rate = 4e-3 * (size / 2e7).powf(-0.5) * 2f64.powi(k);
                n.push(size);
                d.push(tokens);
                lr.push(rate);
                loss.push(law(size, tokens) * (0.05 * (rate / best_lr).ln().powi(2)).exp());
            }
        }
    }
    let rows = n.len();
    let columns = vec![
        ("N".to_string(), n),
        ("D".to_string(), d),
        ("lr".to_string(), lr),
        ("loss".to_string(), loss),
    ];
    (columns, rows)
}

fn table() -> Table {
    let (columns, _) = sweep_runs();
    let dataset = Dataset::from_numeric("sweep.csv", columns).unwrap();
    let recipe = Recipe {
        target: "loss".into(),
        ..Default::default()
    };
    Table::prepare(dataset, &recipe).unwrap()
}

fn job(extra: serde_json::Value) -> FitJob {
    let mut request = serde_json::json!({
        "target": "loss", "law": "chinchilla", "calibrate": false, "qc": "off"
    });
    request
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    serde_json::from_value(request).unwrap()
}

#[test]
fn the_frontier_fit_recovers_the_law_that_every_run_hides() {
    let table = table();
    let swept = job(serde_json::json!({"sweep": "lr"}))
        .run(&table, &|_| {})
        .unwrap()
        .result;
    let frontier = swept.sweep.as_ref().expect("the frontier is recorded");
    assert_eq!(frontier.cells.len(), 20);
    assert_eq!(frontier.runs, 100);
    assert_eq!(swept.n_obs, 20);
    // The largest size's best run is at the low end of its sweep: an upper bound, said so.
    assert_eq!(frontier.at_edge, 4);
    let mut edges = frontier
        .cells
        .iter()
        .filter(|c| c.reason == Some(BestReason::Edge));
    assert!(edges.all(|c| c.values[0] > 1e9));
    // Every other cell's frontier is the curve's minimum, the law itself (the penalty is
    // exactly quadratic in log lr, so the parabola is exact), at the optimal lr.
    for cell in frontier
        .cells
        .iter()
        .filter(|c| c.method == FrontierMethod::Curve)
    {
        let truth = law(cell.values[0], cell.values[1]);
        assert!((cell.frontier / truth - 1.0).abs() < 1e-12, "{cell:?}");
        assert!(cell.frontier <= cell.best);
        assert_eq!(cell.rows.len(), 5);
        assert!(cell.rows.contains(&cell.best_row));
    }
    assert_eq!(frontier.curve_cells(), 16);
    assert_eq!(frontier.discarded_rows().len(), 80);
    let choice = frontier.choice_sd.expect("curve cells give a choice sd");
    assert!(choice > 0.0 && choice < 0.05, "{choice}");
    // The frontier fit recovers the exponents; a fit of every run is pulled off them.
    let all = job(serde_json::json!({}))
        .run(&table, &|_| {})
        .unwrap()
        .result;
    let error = |fit: &scalinglaws::uncertainty::FitRecord| {
        (fit.value("alpha").unwrap() - ALPHA).abs() + (fit.value("beta").unwrap() - BETA).abs()
    };
    assert!(error(&swept) < 0.02, "frontier: {}", error(&swept));
    assert!(
        error(&all) > 2.0 * error(&swept),
        "all runs: {}",
        error(&all)
    );
}

#[test]
fn the_frontier_widens_prediction_intervals_by_its_choice() {
    let table = table();
    let fit = job(serde_json::json!({"sweep": "lr"}))
        .run(&table, &|_| {})
        .unwrap()
        .result;
    let point = vec![vec![5e9, 2e11]];
    let (with, _) =
        scalinglaws::uncertainty::intervals::predict_fit_intervals(&fit, &point, 0.95).unwrap();
    let mut without = fit.clone();
    without.sweep.as_mut().unwrap().choice_sd = None;
    let (bare, _) =
        scalinglaws::uncertainty::intervals::predict_fit_intervals(&without, &point, 0.95).unwrap();
    let width = |p: &scalinglaws::uncertainty::PointPrediction| {
        let [lo, hi] = p.pi.unwrap();
        (hi / lo).ln()
    };
    assert!(width(&with[0]) > width(&bare[0]));
    // And the record reads back from its JSON.
    let back = scalinglaws::uncertainty::FitRecord::from_json(&fit.to_json()).unwrap();
    assert_eq!(back.sweep, fit.sweep);
}

#[test]
fn settings_a_frontier_cannot_act_on_are_refused_by_name() {
    let table = table();
    for (extra, words) in [
        (serde_json::json!({"sweep": "N"}), "law's variable N"),
        (serde_json::json!({"sweep": "loss"}), "is the target"),
        (serde_json::json!({"sweep": ["lr", "lr"]}), "named twice"),
        (serde_json::json!({"sweep": "lrr"}), "did you mean 'lr'"),
    ] {
        let error = job(extra).run(&table, &|_| {}).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("sweep"), "{text}");
        assert!(text.contains(words), "{text}");
    }
}

#[test]
fn copies_counts_and_edited_files_are_refused() {
    // A derived copy of the target or of a cell's column is not a setting.
    let (columns, _) = sweep_runs();
    let dataset = Dataset::from_numeric("sweep.csv", columns).unwrap();
    let recipe = Recipe {
        target: "loss".into(),
        derives: vec![
            scalinglaws::data::recipe::Derive::parse("L=loss").unwrap(),
            scalinglaws::data::recipe::Derive::parse("size=N").unwrap(),
        ],
        ..Default::default()
    };
    let table = Table::prepare(dataset, &recipe).unwrap();
    for (sweep, words) in [("L", "copies the target"), ("size", "copies N row for row")] {
        let error = job(serde_json::json!({"sweep": sweep}))
            .run(&table, &|_| {})
            .unwrap_err()
            .to_string();
        assert!(error.contains(words), "{error}");
    }
    // A count family's frontier would be no count.
    let error = job(serde_json::json!({"sweep": "lr", "family": "poisson"}))
        .run(&self::table(), &|_| {})
        .unwrap_err()
        .to_string();
    assert!(error.contains("not a count"), "{error}");
    // A fit file whose frontier was edited is refused, naming the key.
    let fit = job(serde_json::json!({"sweep": "lr"}))
        .run(&self::table(), &|_| {})
        .unwrap()
        .result;
    let mut edited = fit.clone();
    edited.sweep.as_mut().unwrap().choice_sd = Some(0.5);
    let error = scalinglaws::uncertainty::FitRecord::from_json(&edited.to_json()).unwrap_err();
    assert!(error.to_string().contains("`sweep.choice_sd`"), "{error}");
    let mut edited = fit.clone();
    let cell = &mut edited.sweep.as_mut().unwrap().cells[0];
    cell.frontier = 2.0 * cell.best;
    let error = scalinglaws::uncertainty::FitRecord::from_json(&edited.to_json()).unwrap_err();
    assert!(
        error.to_string().contains("at most its cell's best run"),
        "{error}"
    );
}

#[test]
fn a_fit_without_a_sweep_writes_no_frontier() {
    let fit = job(serde_json::json!({}))
        .run(&table(), &|_| {})
        .unwrap()
        .result;
    assert!(fit.sweep.is_none());
    assert!(!fit.to_json().contains("\"sweep\""));
}

#[test]
fn a_backtest_of_a_sweep_scores_each_cells_frontier_with_its_training_cells_choice() {
    let table = table();
    let request = |sweep: bool| {
        let mut request = serde_json::json!({
            "target": "loss", "law": "chinchilla", "calibrate": false,
            "by": "N", "holdout_top": 1
        });
        if sweep {
            request["sweep"] = serde_json::json!("lr");
        }
        use scalinglaws::workflow::{backtest::BacktestWorkflow, Workflow};
        BacktestWorkflow::spec(serde_json::from_value(request).unwrap()).unwrap()
    };
    let swept = request(true).run(&table).unwrap();
    let frontier = swept
        .sweep
        .as_ref()
        .expect("the backtest records its frontier");
    assert_eq!(frontier.cells.len(), 20);
    // One held-out row per cell of the largest size, each its cell's frontier; the law fitted
    // to the smaller sizes' exact frontier predicts the law there.
    let points = &swept.splits[0].points;
    assert_eq!(points.len(), 4);
    for point in points {
        let cell = frontier
            .cells
            .iter()
            .find(|c| c.best_row == point.row)
            .unwrap();
        assert!((point.actual - cell.frontier).abs() < 1e-12);
        let expected = law(cell.values[0], cell.values[1]);
        assert!((point.predicted / expected - 1.0).abs() < 1e-6, "{point:?}");
    }
    // The training cells' own choice sd: the curve cells of the four smaller sizes.
    let training: Vec<usize> = (0..frontier.cells.len())
        .filter(|&i| frontier.cells[i].values[0] < 1e9)
        .collect();
    let own = frontier.of_cells(&training, true);
    assert_eq!(own.cells.len(), 16);
    assert!(own.choice_sd.unwrap() > 0.0);
    assert_eq!(
        frontier.of_cells(&(0..20).collect::<Vec<_>>(), true),
        *frontier
    );
    // The same frontier rows backtested without the sweep give the same predictions and
    // narrower intervals: the choice sd is what widens them.
    let law = scalinglaws::law::catalog::lookup("chinchilla").unwrap();
    let recipe = Recipe {
        target: "loss".into(),
        sweep: vec!["lr".into()],
        ..Default::default()
    };
    let (rows, _) = table
        .swept(&law, &recipe, &scalinglaws::fit::FitSettings::default())
        .unwrap();
    let bare = request(false).run(&rows).unwrap();
    for (with, without) in points.iter().zip(&bare.splits[0].points) {
        assert_eq!(with.row, without.row);
        assert!((with.predicted / without.predicted - 1.0).abs() < 1e-9);
        let width = |p: &scalinglaws::analysis::backtest::BacktestPoint| {
            let [lo, hi] = p.pi.unwrap();
            (hi / lo).ln()
        };
        assert!(width(with) > width(without), "{with:?} {without:?}");
    }
}
