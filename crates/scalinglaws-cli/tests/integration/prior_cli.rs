//! The defects issue 48 found, as a user meets them, closed by the cross-study prior:
//! - three scale groups were "not calibrated" while `predict` printed the fit's own interval:
//!   now the prior governs, and says so (regime `prior`);
//! - a true-FLOPs column (not exactly 6·N·D) switched calibration off: now distances are in the
//!   law's own scale, 6·N·D, whatever the data carry;
//! - a run below the smallest fitted one counted as inside (`decades out 0`): now it is a
//!   negative distance with a widened interval;
//! - `backtest` scored the fit's own interval unless asked: now it scores what `predict` prints.

use crate::common;

use std::path::Path;

use serde_json::Value;

use common::{pair, scalinglaws, stdout_json};

/// Synthetic Chinchilla runs at `budgets` (7 sizes each, 1 % multiplicative noise from a
/// fixed sequence), with a column C of "true" FLOPs 2–6 % above 6·N·D.
fn write_runs(dir: &Path, budgets: &[f64]) {
    let mut text = String::from("N,D,C,loss\n");
    let mut k = 0u32;
    for &c in budgets {
        for i in 0..7 {
            let ratio = 2.0 * 10f64.powf(i as f64 / 3.0);
            let n = (c / (6.0 * ratio)).sqrt();
            let d = c / (6.0 * n);
            k += 1;
            let noise = 0.01 * ((k as f64 * 12.9898).sin() * 43758.5453).fract();
            let loss = (1.69 + 406.4 * n.powf(-0.34) + 410.7 * d.powf(-0.28)) * noise.exp();
            let flops = 6.0 * n * d * (1.02 + 0.04 * (k % 3) as f64 / 2.0);
            text.push_str(&format!("{n},{d},{flops},{loss}\n"));
        }
    }
    std::fs::write(dir.join("runs.csv"), text).unwrap();
}

fn fit(dir: &Path) -> Value {
    common::stdout(scalinglaws().current_dir(dir).args([
        "fit",
        "runs.csv",
        "--law",
        "chinchilla",
        "--target",
        "loss",
        "--json",
        "fit.json",
    ]));
    serde_json::from_str(&std::fs::read_to_string(dir.join("fit.json")).unwrap()).unwrap()
}

fn predict(dir: &Path, n: &str, d: &str) -> Value {
    let nn = format!("N={n}");
    let dd = format!("D={d}");
    stdout_json(
        scalinglaws()
            .current_dir(dir)
            .args(["predict", "fit.json", &nn, &dd, "--json", "-"]),
    )
}

#[test]
fn three_scale_groups_and_a_true_flops_column_are_calibrated_by_the_prior() {
    let dir = tempfile::tempdir().unwrap();
    write_runs(dir.path(), &[1e18, 1e19, 1e20]);
    let fitted = fit(dir.path());
    let calibration = &fitted["calibration"];
    assert_eq!(calibration["calibrated"], true, "{calibration}");
    assert_eq!(calibration["by"], "C");
    // The scale of a new point is the law's own, 6·N·D, not the column C.
    assert_eq!(calibration["rule"]["kind"], "product", "{calibration}");
    assert!(calibration["prior"]["version"].is_string(), "{calibration}");
    // At 10x the largest budget on the D = 20 N line: beyond, wider than the fit's own.
    let prediction = &predict(dir.path(), "9.1e9", "1.83e11")["predictions"][0];
    let [lo, hi] = pair(&prediction["pi"]);
    let [flo, fhi] = pair(&prediction["pi_fit"]);
    assert!(hi - lo > fhi - flo, "{prediction}");
    assert!(prediction["distance_decades"].as_f64().unwrap() > 0.9);
    let regime = prediction["regime"].as_str().unwrap();
    assert!(["prior", "blended"].contains(&regime), "{prediction}");
}

#[test]
fn a_run_below_the_smallest_fitted_one_is_outside_the_data() {
    let dir = tempfile::tempdir().unwrap();
    write_runs(dir.path(), &[1e18, 3e18, 1e19, 3e19, 1e20, 3e20]);
    fit(dir.path());
    // 6·N·D = 1.2e17, below the smallest budget (1e18) by 0.9 decades.
    let prediction = &predict(dir.path(), "1e7", "2e9")["predictions"][0];
    let distance = prediction["distance_decades"].as_f64().unwrap();
    assert!(distance < -0.5, "{prediction}");
    let [lo, hi] = pair(&prediction["pi"]);
    let [flo, fhi] = pair(&prediction["pi_fit"]);
    assert!(hi - lo > fhi - flo, "{prediction}");
    assert_ne!(prediction["regime"], "inside");
}

#[test]
fn backtest_scores_by_default_the_interval_predict_prints() {
    let dir = tempfile::tempdir().unwrap();
    write_runs(dir.path(), &[1e18, 3e18, 1e19, 3e19, 1e20, 3e20]);
    let backtest = |extra: &[&str]| {
        stdout_json(
            scalinglaws()
                .current_dir(dir.path())
                .args([
                    "backtest",
                    "runs.csv",
                    "--law",
                    "chinchilla",
                    "--target",
                    "loss",
                    "--by",
                    "C",
                    "--holdout-top",
                    "14",
                    "--json",
                    "-",
                ])
                .args(extra),
        )
    };
    let calibrated = backtest(&[]);
    let points = calibrated["splits"][0]["points"].as_array().unwrap();
    assert!(
        points.iter().all(|p| p["calibrated"] == true),
        "{calibrated}"
    );
    let own = backtest(&["--no-calibration"]);
    let points = own["splits"][0]["points"].as_array().unwrap();
    assert!(points.iter().all(|p| p["calibrated"] == false), "{own}");
}
