//! Quality control (`scalinglaws::data::qc`, the `qc` workflow and the fit's `qc` stage): each
//! rule flags the row planted in a small synthetic table, with the row as the file numbers it,
//! its value and threshold, and nothing else; `exclude` removes exactly the flagged rows and
//! records them; the bundled clean examples give no flag.

use scalinglaws::data::qc::{check, Key, QcInput, QcSettings, Rule};
use scalinglaws::data::recipe::Table;
use scalinglaws::data::Dataset;
use scalinglaws::job::qc::QcMode;
use scalinglaws::job::FitJob;
use scalinglaws::workflow::qc::{Qc, QcSpec};
use scalinglaws::workflow::{Ctx, Workflow};

/// A deterministic scatter in [-1, 1] for row `i`.
fn jitter(i: usize) -> f64 {
    ((i * 7919 + 13) % 201) as f64 / 100.0 - 1.0
}

/// Losses of L = 1.7 + 400 N^-0.34 at 8 sizes × 6 seeds (±0.3 % scatter).
fn runs() -> (Vec<f64>, Vec<f64>) {
    let (mut n, mut loss) = (Vec::new(), Vec::new());
    for k in 0..8 {
        let size = 1e7 * 2.5f64.powi(k);
        for _seed in 0..6 {
            let i = n.len();
            n.push(size);
            loss.push((1.7 + 400.0 * size.powf(-0.34)) * (1.0 + 0.003 * jitter(i)));
        }
    }
    (n, loss)
}

fn rows(count: usize) -> Vec<usize> {
    (1..=count).collect()
}

fn input<'a>(loss: &'a [f64], file_rows: &'a [usize]) -> QcInput<'a> {
    QcInput {
        loss,
        written: None,
        file_rows,
        log: true,
        keys: Vec::new(),
        key_names: Vec::new(),
        scale: None,
        budget: None,
        step: None,
        predicted: None,
    }
}

fn flagged(report: &scalinglaws::data::qc::QcReport, rule: Rule) -> Vec<usize> {
    report
        .flags
        .iter()
        .filter(|f| f.rule == rule)
        .map(|f| f.row)
        .collect()
}

#[test]
fn clean_runs_give_no_flag_under_any_rule() {
    let (n, loss) = runs();
    let file_rows = rows(loss.len());
    let ids: Vec<usize> = (0..n.len()).map(|i| i / 6).collect();
    let predicted: Vec<f64> = n.iter().map(|n| 1.7 + 400.0 * n.powf(-0.34)).collect();
    let step: Vec<f64> = vec![1000.0; n.len()];
    // One budget along the sizes: the frontier rule follows N.
    let one = vec![0; n.len()];
    let report = check(
        &QcInput {
            keys: vec![Key::Number(&n)],
            key_names: vec!["N"],
            scale: Some(&ids),
            budget: Some(&one),
            step: Some(&step),
            predicted: Some(&predicted),
            ..input(&loss, &file_rows)
        },
        &QcSettings {
            warmup: Some(500.0),
            ..QcSettings::default()
        },
    );
    assert!(report.flags.is_empty(), "{:?}", report.flags);
    assert!(report.rules.iter().all(|r| r.not_checked.is_none()));
}

#[test]
fn a_missing_or_infinite_loss_is_flagged_with_its_cell() {
    let loss = [3.0, f64::NAN, f64::INFINITY, 2.9, -1.0];
    let written: Vec<String> = ["3.0", "", "inf", "2.9", "-1"].map(String::from).to_vec();
    let file_rows = [2, 4, 5, 7, 9];
    let report = check(
        &QcInput {
            written: Some(&written),
            ..input(&loss, &file_rows)
        },
        &QcSettings::default(),
    );
    assert_eq!(flagged(&report, Rule::NonFinite), vec![4, 5, 9]);
    assert_eq!(report.flags[0].written.as_deref(), Some(""));
    // In linear space a negative value is a value.
    let linear = check(
        &QcInput {
            log: false,
            ..input(&loss, &file_rows)
        },
        &QcSettings::default(),
    );
    assert_eq!(flagged(&linear, Rule::NonFinite), vec![4, 5]);
}

#[test]
fn a_repeated_row_is_a_duplicate_of_the_first_and_a_rounded_copy_a_near_one() {
    let loss = [3.0, 2.8, 3.0, 3.0 * (1.0 + 4e-7), 3.0 * (1.0 + 1e-4), 2.8];
    let n = [1.0, 2.0, 1.0, 1.0, 1.0, 3.0];
    let file_rows = rows(6);
    let report = check(
        &QcInput {
            keys: vec![Key::Number(&n)],
            ..input(&loss, &file_rows)
        },
        &QcSettings::default(),
    );
    assert_eq!(flagged(&report, Rule::Duplicate), vec![3]);
    assert_eq!(flagged(&report, Rule::NearDuplicate), vec![4]);
    let near = report
        .flags
        .iter()
        .find(|f| f.rule == Rule::NearDuplicate)
        .unwrap();
    assert_eq!(near.other_row, Some(1));
    assert!((near.value.unwrap() - 4e-7).abs() < 1e-9);
    // Row 6 has row 2's loss at another N: not a copy.
    assert!(!report.flags.iter().any(|f| f.row == 6));
    // A label that differs makes two rows distinct.
    let labels = [0, 1, 1, 0, 0, 2];
    let labelled = check(
        &QcInput {
            keys: vec![Key::Number(&n), Key::Label(&labels)],
            ..input(&loss, &file_rows)
        },
        &QcSettings::default(),
    );
    assert_eq!(flagged(&labelled, Rule::Duplicate), Vec::<usize>::new());
    assert_eq!(flagged(&labelled, Rule::NearDuplicate), vec![4]);
}

#[test]
fn step_zero_is_initialisation_and_the_warmup_rule_runs_only_with_a_length() {
    let loss = [10.8, 6.0, 4.0, 3.5, 3.2];
    let step = [0.0, 100.0, 1000.0, 3000.0, 9000.0];
    let file_rows = rows(5);
    let without = check(
        &QcInput {
            step: Some(&step),
            ..input(&loss, &file_rows)
        },
        &QcSettings::default(),
    );
    assert_eq!(flagged(&without, Rule::Initialisation), vec![1]);
    let warm = without
        .rules
        .iter()
        .find(|r| r.rule == Rule::Warmup)
        .unwrap();
    assert!(warm.not_checked.is_some(), "no warm-up length is assumed");
    let with = check(
        &QcInput {
            step: Some(&step),
            ..input(&loss, &file_rows)
        },
        &QcSettings {
            warmup: Some(2000.0),
            ..QcSettings::default()
        },
    );
    assert_eq!(flagged(&with, Rule::Warmup), vec![2, 3]);
    assert_eq!(with.flags[1].threshold, Some(2000.0));
}

#[test]
fn a_diverged_run_is_far_from_the_law_and_its_seeds() {
    let (n, mut loss) = runs();
    loss[20] = 9.5; // a diverged seed
    let file_rows = rows(loss.len());
    let ids: Vec<usize> = (0..n.len()).map(|i| i / 6).collect();
    let predicted: Vec<f64> = n.iter().map(|n| 1.7 + 400.0 * n.powf(-0.34)).collect();
    let report = check(
        &QcInput {
            scale: Some(&ids),
            predicted: Some(&predicted),
            ..input(&loss, &file_rows)
        },
        &QcSettings::default(),
    );
    for rule in [Rule::LawOutlier, Rule::NeighbourOutlier] {
        assert_eq!(flagged(&report, rule), vec![21], "{rule:?}");
    }
    // A run far below the law is an outlier too.
    loss[20] = 0.5;
    let low = check(
        &QcInput {
            predicted: Some(&predicted),
            ..input(&loss, &file_rows)
        },
        &QcSettings::default(),
    );
    assert_eq!(flagged(&low, Rule::LawOutlier), vec![21]);
}

/// A learning-rate sweep at three sizes (8 rates each, the loss a parabola in log lr about
/// lr* = 2e-3 whose low-rate end rises 40 % above the best) and an IsoFLOP profile (11 sizes at
/// one budget, tokens C/6N, a parabola in log N rising 60 % at its ends).
fn sweeps() -> (Vec<f64>, Vec<f64>, Vec<f64>, Vec<usize>) {
    let (mut size, mut setting, mut loss, mut budget) = (vec![], vec![], vec![], vec![]);
    for (b, n) in [1e8f64, 2e8, 4e8].into_iter().enumerate() {
        for k in 0..8 {
            let lr = 1e-4 * 2f64.powi(k);
            let base = 1.7 + 400.0 * n.powf(-0.34);
            size.push(n);
            setting.push(lr);
            loss.push(base * (1.0 + 0.02 * (lr / 2e-3).ln().powi(2)));
            budget.push(b);
        }
    }
    for k in 0..11 {
        let n = 1e7 * 1.6f64.powi(k);
        size.push(n);
        setting.push(1e18 / (6.0 * n));
        loss.push(3.0 * (1.0 + 0.04 * (n / 1e8).ln().powi(2)));
        budget.push(3);
    }
    (size, setting, loss, budget)
}

#[test]
fn the_arms_of_sweeps_and_profiles_lie_on_their_curve_and_a_diverged_run_does_not() {
    let (size, setting, mut loss, budget) = sweeps();
    let file_rows = rows(loss.len());
    let run = |loss: &[f64]| {
        check(
            &QcInput {
                keys: vec![Key::Number(&size), Key::Number(&setting)],
                key_names: vec!["N", "lr"],
                budget: Some(&budget),
                ..input(loss, &file_rows)
            },
            &QcSettings::default(),
        )
    };
    // Far from each budget's best, the designed arms are not flagged.
    assert!(flagged(&run(&loss), Rule::AboveFrontier).is_empty());
    // The highest rate of the middle size diverges (+30 %), and a profile's inner run jumps
    // (+25 %) between two smooth neighbours; the second of two diverged ends is found once the
    // first leaves its line.
    loss[15] *= 1.3;
    loss[24 + 6] *= 1.25;
    loss[22] *= 1.6;
    loss[23] *= 2.0;
    let report = run(&loss);
    assert_eq!(flagged(&report, Rule::AboveFrontier), vec![16, 23, 24, 31]);
    let flag = report
        .flags
        .iter()
        .find(|f| f.rule == Rule::AboveFrontier && f.row == 31)
        .unwrap();
    assert_eq!(flag.column.as_deref(), Some("N"));
    assert!(flag.value.unwrap() > 0.2 && flag.value.unwrap() < 0.3);
    assert_eq!(flag.threshold, Some(0.10));
    assert!([30, 32].contains(&flag.other_row.unwrap()));
    // Without a budget, or with no setting varying over four values, the rule does not run.
    let alone = check(&input(&loss, &file_rows), &QcSettings::default());
    let rule = alone.rules.iter().find(|r| r.rule == Rule::AboveFrontier);
    assert!(rule.unwrap().not_checked.is_some());
}

#[test]
fn cells_of_fewer_than_five_runs_are_not_judged() {
    let loss = [3.0, 3.01, 9.0, 2.5, 2.51, 2.52];
    let ids = [0, 0, 0, 1, 1, 1];
    let file_rows = rows(6);
    let report = check(
        &QcInput {
            scale: Some(&ids),
            ..input(&loss, &file_rows)
        },
        &QcSettings::default(),
    );
    let rule = report
        .rules
        .iter()
        .find(|r| r.rule == Rule::NeighbourOutlier)
        .unwrap();
    assert!(rule.not_checked.is_some());
    assert!(report.flags.is_empty());
}

/// A table of the runs with a diverged row, a repeated row and a missing loss, as a file's
/// rows would be read.
fn dirty_table() -> Table {
    let (n, mut loss) = runs();
    let (mut n, mut loss) = (n.clone(), {
        loss[20] = 9.5;
        loss
    });
    n.push(n[3]);
    loss.push(loss[3]);
    let dataset =
        Dataset::from_numeric("runs", vec![("N".into(), n), ("loss".into(), loss)]).unwrap();
    let recipe = scalinglaws::data::recipe::Recipe {
        target: "loss".into(),
        maps: vec![("x".into(), "N".into())],
        ..Default::default()
    };
    Table::prepare(dataset, &recipe).unwrap()
}

fn qc_spec(extra: serde_json::Value) -> QcSpec {
    let mut request = serde_json::json!({"target": "loss", "map": {"x": "N"}});
    for (key, value) in extra.as_object().unwrap() {
        request[key] = value.clone();
    }
    Qc::spec(serde_json::from_value(request).unwrap()).unwrap()
}

#[test]
fn the_workflow_fits_the_law_to_the_rows_left_and_flags_the_rest() {
    let table = dirty_table();
    let spec = qc_spec(serde_json::json!({"law": "power_offset"}));
    Qc::check(&spec).unwrap();
    let result = Qc::run(&spec, &table, &Ctx::default()).unwrap();
    assert_eq!(result.scale, vec!["x".to_string()]);
    let rows: Vec<(usize, Rule)> = result
        .report
        .flags
        .iter()
        .map(|f| (f.row, f.rule))
        .collect();
    assert!(rows.contains(&(49, Rule::Duplicate)), "{rows:?}");
    assert!(rows.contains(&(21, Rule::LawOutlier)), "{rows:?}");
    assert!(rows.contains(&(21, Rule::NeighbourOutlier)), "{rows:?}");
    assert_eq!(rows.len(), 3, "{rows:?}");
}

#[test]
fn bad_thresholds_are_refused_naming_the_setting() {
    for (extra, setting) in [
        (serde_json::json!({"cutoff": 0.0}), "cutoff"),
        (
            serde_json::json!({"duplicate_tolerance": 1.5}),
            "duplicate_tolerance",
        ),
        (serde_json::json!({"warmup": 100.0}), "warmup"),
    ] {
        let error = Qc::check(&qc_spec(extra)).unwrap_err();
        assert!(error.is_input_error());
        assert!(error.to_string().contains(setting), "{error}");
    }
}

fn fit_job(qc: &str) -> FitJob {
    serde_json::from_value(serde_json::json!({
        "target": "loss", "map": {"x": "N"}, "law": "power_offset", "calibrate": false,
        "qc": qc
    }))
    .unwrap()
}

#[test]
fn the_fit_warns_by_default_and_exclude_removes_exactly_the_flagged_rows() {
    let table = dirty_table();
    let default: FitJob = serde_json::from_value(serde_json::json!({
        "target": "loss", "map": {"x": "N"}, "law": "power_offset"
    }))
    .unwrap();
    assert_eq!(default.qc, QcMode::Warn);
    let warned = fit_job("warn").run(&table, &|_| {}).unwrap().result;
    assert_eq!(warned.n_obs, 49);
    let qc = warned.qc.as_ref().expect("the flags are recorded");
    assert!(qc.removed.is_empty());
    let mut flagged: Vec<usize> = qc.report.flags.iter().map(|f| f.row).collect();
    flagged.dedup();
    assert_eq!(flagged, vec![21, 49]);
    let excluded = fit_job("exclude").run(&table, &|_| {}).unwrap().result;
    let qc = excluded.qc.as_ref().unwrap();
    assert_eq!(qc.removed, vec![21, 49]);
    assert_eq!(excluded.n_obs, 47);
    let json = serde_json::to_value(&excluded).unwrap();
    assert_eq!(json["qc"]["removed"], serde_json::json!([21, 49]));
    let off = fit_job("off").run(&table, &|_| {}).unwrap().result;
    assert!(off.qc.is_none() && off.n_obs == 49);
    let error = serde_json::from_value::<FitJob>(serde_json::json!({
        "target": "loss", "law": "power_offset", "qc": "drop"
    }))
    .unwrap_err();
    assert!(error.to_string().contains("unknown variant"), "{error}");
}

#[test]
fn a_fit_that_keeps_a_missing_loss_names_the_cell_and_exclude_sets_it_aside() {
    let dataset = Dataset::read_stream(
        "runs.csv",
        "N,loss\n1e7,4.1\n2e7,3.8\n4e7,\n8e7,3.3\n1.6e8,3.1\n".as_bytes(),
        None,
    )
    .unwrap();
    let recipe = scalinglaws::data::recipe::Recipe {
        target: "loss".into(),
        maps: vec![("x".into(), "N".into())],
        ..Default::default()
    };
    let table = Table::prepare(dataset, &recipe).unwrap();
    let error = fit_job("warn").run(&table, &|_| {}).unwrap_err();
    let text = error.to_string();
    // The table's own message, as without QC: file, row, line and column.
    assert!(text.contains("row 3 (line 4), column 'loss'"), "{text}");
    let fitted = fit_job("exclude").run(&table, &|_| {}).unwrap().result;
    assert_eq!(fitted.qc.as_ref().unwrap().removed, vec![3]);
}

#[test]
fn the_bundled_clean_examples_give_no_flag() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (file, target, map) in [
        ("examples/isoflop/runs.csv", "loss", serde_json::json!({})),
        (
            "examples/tracks/two_recipes.csv",
            "loss",
            serde_json::json!({}),
        ),
        (
            "testdata/porian2024/isoflop_points.csv",
            "loss",
            serde_json::json!({}),
        ),
    ] {
        let path = root.join(file);
        let spec = qc_spec(serde_json::json!({"target": target, "map": map}));
        let dataset = Dataset::read(&path, None).unwrap();
        let table = Table::prepare(dataset, &spec.recipe).unwrap();
        let result = Qc::run(&spec, &table, &Ctx::default()).unwrap();
        assert!(
            result.report.flags.is_empty(),
            "{file}: {:?}",
            result.report.flags
        );
    }
}

#[test]
fn the_frontier_rule_on_edge_cases_flags_only_a_jump() {
    let rows = |n| (1..=n).collect::<Vec<usize>>();
    let judge = |loss: &[f64], setting: &[f64], log: bool| {
        let budget = vec![0; loss.len()];
        let file_rows = rows(loss.len());
        let report = check(
            &QcInput {
                log,
                keys: vec![Key::Number(setting)],
                key_names: vec!["lr"],
                budget: Some(&budget),
                ..input(loss, &file_rows)
            },
            &QcSettings::default(),
        );
        flagged(&report, Rule::AboveFrontier)
    };
    let lr = [1.0, 2.0, 3.0, 4.0, 5.0];
    // Linear losses on their bound, at or through zero: nothing stands above.
    assert!(judge(&[0.0; 5], &lr, false).is_empty());
    assert!(judge(&[-1.0, 0.0, 1.0, 2.0, 3.0], &lr, false).is_empty());
    // An end reached by a falling side is not judged (the rule's limit: a run that diverged
    // past the best one there looks like a sweep's designed low-rate end); one reached by a
    // rising side is.
    assert!(judge(&[3.0, 2.8, 2.7, 2.65, 10.0], &lr, true).is_empty());
    assert_eq!(judge(&[3.0, 2.8, 2.7, 2.75, 10.0], &lr, true), vec![5]);
    // −0 and 0 are one position, whose two runs share one bound.
    let signed = [-0.0, 0.0, 1.0, 2.0, 3.0];
    assert!(judge(&[2.0, 2.5, 2.1, 2.2, 2.3], &signed, false).is_empty());
    // A setting that is not a number places no run.
    let nan = [1.0, 2.0, f64::NAN, 4.0, 5.0];
    assert!(judge(&[2.0, 2.1, 9.0, 2.2, 2.3], &nan, true).is_empty());
}
