//! End-to-end tests of `scalinglaws backtest` on the bundled Chinchilla data (the README's
//! arguments): held-out fractions, rollouts and the largest scales, the report's error and
//! coverage, and its input errors (exit code 2, a message naming the offending thing, never a
//! panic).

use crate::common;

use assert_cmd::prelude::*;
use predicates::prelude::*;

use common::{chinchilla, fails, relative, root, stdout_json, CHINCHILLA};

// ---------------------------------------------------------------------------------------------
// backtest
// ---------------------------------------------------------------------------------------------

/// (Training FLOP, loss) of every data row of the Chinchilla file, row 1 first.
fn chinchilla_rows() -> Vec<(f64, f64)> {
    let text = std::fs::read_to_string(root().join(CHINCHILLA[1])).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (flop, loss) = (column("Training FLOP"), column("loss"));
    lines
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            (fields[flop].parse().unwrap(), fields[loss].parse().unwrap())
        })
        .collect()
}

#[test]
fn backtest_holds_out_the_largest_fifth_by_compute() {
    let result = stdout_json(chinchilla("backtest").args([
        "--by",
        "C",
        "--holdout-frac",
        "0.2",
        "--json",
        "-",
    ]));
    assert_eq!(result["intervals"], "delta");
    let splits = result["splits"].as_array().unwrap();
    assert_eq!(splits.len(), 1);
    let points = splits[0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 48);
    let metrics = &result["metrics"];
    assert_eq!(metrics["points"], 48);
    let are = metrics["are_mean"].as_f64().unwrap();
    assert!(are > 0.0 && are < 0.05, "ARE {are}");
    let coverage = metrics["pi_coverage"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&coverage), "coverage {coverage}");
    // Rows are numbered as in the file (before --where removed 5 of them).
    let rows = chinchilla_rows();
    assert_eq!(rows.len(), 245);
    for point in points {
        let row = point["row"].as_u64().unwrap() as usize;
        assert!((1..=245).contains(&row), "{point}");
        let (flop, loss) = rows[row - 1];
        assert!(
            relative(point["scale"].as_f64().unwrap(), flop) < 1e-12,
            "{point}"
        );
        assert!(
            relative(point["actual"].as_f64().unwrap(), loss) < 1e-12,
            "{point}"
        );
    }
}

#[test]
fn backtest_rollout_predicts_each_later_group() {
    let result = stdout_json(chinchilla("backtest").args([
        "--by",
        "C",
        "--rollout",
        "--steps",
        "4",
        "--json",
        "-",
    ]));
    let splits = result["splits"].as_array().unwrap();
    assert_eq!(splits.len(), 3);
    let held_out: u64 = splits
        .iter()
        .map(|s| s["points"].as_array().unwrap().len() as u64)
        .sum();
    assert_eq!(result["metrics"]["points"].as_u64().unwrap(), held_out);
}

#[test]
fn backtest_holdout_top_holds_out_the_largest_scales() {
    let result = stdout_json(chinchilla("backtest").args([
        "--by",
        "C",
        "--holdout-top",
        "3",
        "--json",
        "-",
    ]));
    let splits = result["splits"].as_array().unwrap();
    assert_eq!(splits.len(), 1);
    let points = splits[0]["points"].as_array().unwrap();
    assert!(!points.is_empty());
    let trained_up_to = splits[0]["trained_up_to"].as_f64().unwrap();
    for point in points {
        assert!(point["scale"].as_f64().unwrap() > trained_up_to, "{point}");
    }
}

#[test]
fn backtest_report_scores_error_and_coverage() {
    chinchilla("backtest")
        .args(["--by", "C", "--holdout-frac", "0.2"])
        .assert()
        .success()
        .stdout(predicate::str::contains("[[Backtest]]"))
        .stdout(predicate::str::contains("ARE"))
        .stdout(predicate::str::contains("coverage"));
}

#[test]
fn backtest_without_a_holdout_exits_2() {
    fails(
        chinchilla("backtest").args(["--by", "C"]),
        &["--holdout-top", "--holdout-frac", "--rollout"],
    );
}

#[test]
fn backtest_holdout_fraction_above_one_exits_2() {
    fails(
        chinchilla("backtest").args(["--by", "C", "--holdout-frac", "1.5"]),
        &["--holdout-frac 1.5"],
    );
}

#[test]
fn backtest_by_a_missing_column_exits_2() {
    fails(
        chinchilla("backtest").args(["--by", "nosuch", "--holdout-frac", "0.2"]),
        &["column 'nosuch'", "--by"],
    );
}

#[test]
fn backtest_holding_out_every_scale_exits_2() {
    fails(
        chinchilla("backtest").args(["--by", "C", "--holdout-top", "100000"]),
        &["--holdout-top 100000", "distinct values"],
    );
}

/// A split whose training fit fails keeps its error in the result: the report words it for
/// the command line (hold parameters with `--fix`), the JSON in the library's words, the same
/// whichever front end wrote it. A rollout over eight scales of a three-parameter law cannot
/// fit its first steps (one and two rows).
#[test]
fn a_failed_split_is_worded_for_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("runs.csv");
    let mut text = String::from("N,loss\n");
    for i in 1..=8 {
        let n = 10f64.powi(i);
        text.push_str(&format!("{n},{}\n", 2.0 + 50.0 * n.powf(-0.3)));
    }
    std::fs::write(&path, text).unwrap();
    let args = [
        "backtest",
        path.to_str().unwrap(),
        "--target",
        "loss",
        "--formula",
        "E + A*N^-a",
        "--by",
        "N",
        "--rollout",
        "--steps",
        "8",
    ];
    let result = stdout_json(common::scalinglaws().args(args).args(["--json", "-"]));
    let splits = result["splits"].as_array().unwrap();
    let error = splits[0]["error"].as_str().expect("the first split fails");
    assert!(error.contains("fix[\"NAME\"]=VALUE"), "{error}");
    assert!(splits.iter().any(|s| s["error"].is_null()), "{splits:?}");
    let report = common::stdout_of(&args);
    assert!(report.contains("--fix NAME=VALUE"), "{report}");
    assert!(!report.contains("fix["), "{report}");
}
