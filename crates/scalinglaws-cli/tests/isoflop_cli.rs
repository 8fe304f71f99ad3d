//! `isoflop --budget` and `isoflop --backtest` (issue 18) on the bundled synthetic IsoFLOP
//! study (examples/isoflop/runs.csv, drawn from Hoffmann et al. 2022's law): the predicted N*
//! and D* one and two decades beyond the largest budget hold the true optimum in their
//! intervals, the default shape is chosen and explained, the backtest scores the held-out
//! budgets, and options that cannot act are refused with exit code 2.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const HOFFMANN: (f64, f64, f64, f64) = (406.4, 0.34, 410.7, 0.28);

fn scalinglaws() -> Command {
    Command::new(env!("CARGO_BIN_EXE_scalinglaws"))
}

fn runs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/isoflop/runs.csv")
}

fn isoflop(extra: &[&str]) -> Command {
    let mut command = scalinglaws();
    command
        .arg("isoflop")
        .arg(runs())
        .args(["--compute", "C", "--size", "N", "--target", "loss"])
        .args(extra);
    command
}

fn json(command: &mut Command) -> Value {
    let output = command.output().expect("run scalinglaws");
    assert!(
        output.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

fn true_n_star(c: f64) -> f64 {
    let (a, alpha, b, beta) = HOFFMANN;
    let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
    g * (c / 6.0).powf(beta / (alpha + beta))
}

fn pair(value: &Value) -> [f64; 2] {
    [value[0].as_f64().unwrap(), value[1].as_f64().unwrap()]
}

#[test]
fn budget_predictions_hold_the_true_optimum() {
    let result = json(&mut isoflop(&[
        "--budget",
        "3.16e22,3.16e23",
        "--json",
        "-",
    ]));
    let group = &result["groups"][0];
    assert_eq!(group["approach"], "profiles");
    assert_eq!(group["shape"], "parabola:all");
    assert!(group["shape_choice"]["reason"]
        .as_str()
        .unwrap()
        .contains("not rejected"));
    assert!(group["calibration"]["calibrated"].as_bool().unwrap());
    let predictions = group["predictions"].as_array().unwrap();
    assert_eq!(predictions.len(), 2);
    for p in predictions {
        let c = p["budget"].as_f64().unwrap();
        let (n, d) = (true_n_star(c), c / (6.0 * true_n_star(c)));
        let [lo, hi] = pair(&p["N"]["interval"]);
        assert!(
            lo <= n && n <= hi,
            "N* {n:e} outside [{lo:e}, {hi:e}] at {c:e}"
        );
        let [lo, hi] = pair(&p["D"]["interval"]);
        assert!(
            lo <= d && d <= hi,
            "D* {d:e} outside [{lo:e}, {hi:e}] at {c:e}"
        );
        assert!(p["loss"].get("interval").is_none());
        assert!(p["decades_out"].as_f64().unwrap() > 0.9);
    }
}

#[test]
fn the_table_names_the_calibration_and_the_shape() {
    let output = isoflop(&["--budget", "3.16e22"]).output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("[[Predictions at new budgets]]"), "{text}");
    assert!(text.contains("shape auto: lack of fit"), "{text}");
    assert!(text.contains("widened beyond the data"), "{text}");
}

#[test]
fn backtest_scores_the_held_out_budgets() {
    let result = json(&mut isoflop(&["--backtest", "2", "--json", "-"]));
    let group = &result["groups"][0];
    assert_eq!(group["approach"], "backtest");
    let held = group["held_out"].as_array().unwrap();
    assert_eq!(held.len(), 2);
    for h in held {
        let error = h["ln_error_D"].as_f64().unwrap();
        let predicted = h["predicted"]["D"]["value"].as_f64().unwrap();
        let observed = h["observed_D"].as_f64().unwrap();
        assert!((observed.ln() - predicted.ln() - error).abs() < 1e-9);
    }
    let mean = group["mean_abs_ln_error_D"].as_f64().unwrap();
    assert!(mean > 0.0 && mean < 0.3, "{mean}");
    assert!(group["coverage_D"].as_f64().is_some());
}

#[test]
fn options_that_cannot_act_are_refused() {
    for (args, needle) in [
        (vec!["--no-calibration"], "--no-calibration"),
        (vec!["--budget", "-1e22"], "--budget"),
        (vec!["--budget", "abc"], "--budget"),
        (vec!["--backtest", "7"], "backtest"),
        (vec!["--backtest", "0"], "backtest"),
    ] {
        let output = isoflop(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}
