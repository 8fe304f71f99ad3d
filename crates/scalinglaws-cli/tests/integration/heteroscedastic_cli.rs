//! End-to-end tests of `fit --heteroscedastic COLUMN` on the bundled Chinchilla data (the
//! README's arguments): the variance model in the JSON and the report, prediction intervals
//! that use σ at each point, a profile conditional on the fitted σ(x), and bad input (exit
//! code 2, the column and the fix named, never a panic).

use crate::common;

use std::process::Command;

use assert_cmd::prelude::*;
use predicates::prelude::*;
use serde_json::Value;

use common::{fails, number, scalinglaws_in_root, stdout_json, CHINCHILLA};

/// `fit` with the README's arguments, the linear loss and σ varying with compute C.
fn hetero_fit() -> Command {
    let mut command = scalinglaws_in_root();
    command
        .args(CHINCHILLA)
        .args(["--loss", "linear", "--heteroscedastic", "C"]);
    command
}

#[test]
fn the_fit_reports_the_variance_model() {
    let fit = stdout_json(hetero_fit().args(["--json", "-"]));
    let model = &fit["variance"];
    assert_eq!(model["by"], "C", "{model}");
    assert_eq!(fit["settings"]["heteroscedastic"]["by"], "C");
    let (s, se) = (number(&model["s"]), number(&model["s_stderr"]));
    assert!(s.is_finite() && se > 0.0 && se < 1.0, "{model}");
    let p = number(&model["lr_p_value"]);
    assert!((0.0..=1.0).contains(&p), "{model}");
    assert!(
        number(&model["x0"]) > 1e17 && number(&model["x0"]) < 1e23,
        "{model}"
    );
    let sigma0 = number(&model["sigma0"]);
    let residual = number(&fit["stats"]["residual_scale"]);
    assert!(
        (sigma0 / residual - 1.0).abs() < 1e-12,
        "{sigma0} vs {residual}"
    );
    assert_eq!(fit["covariance_kind"], "gauss_newton");
    hetero_fit()
        .assert()
        .success()
        .stdout(predicate::str::contains("[[Residual scale]]"))
        .stdout(predicate::str::is_match(r"(?m)^    s\s+-?[0-9.]+ ± [0-9.]+").unwrap())
        .stdout(predicate::str::is_match(r"(?m)^    x0\s+[0-9.e]+").unwrap())
        .stdout(predicate::str::is_match(r"(?m)^    LR test s = 0\s+χ²₁ = ").unwrap());
}

/// (ln pi_hi − ln value)² − (ln ci_hi − ln value)²: z²σ² at the point (delta method).
fn residual_variance(entry: &Value) -> f64 {
    let value = number(&entry["value"]).ln();
    let pi_hi = number(&entry["pi"][1]).ln();
    let ci_hi = number(&entry["ci"][1]).ln();
    (pi_hi - value).powi(2) - (ci_hi - value).powi(2)
}

#[test]
fn prediction_intervals_use_sigma_at_each_point() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fit.json");
    hetero_fit()
        .args(["--no-calibration", "--json"])
        .arg(&path)
        .assert()
        .success();
    let fit: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let s = number(&fit["variance"]["s"]);
    let predictions = stdout_json(scalinglaws_in_root().arg("predict").arg(&path).args([
        "N=1e8,7e10",
        "D=2e9,1.4e12",
        "--json",
        "-",
    ]));
    let entries = predictions["predictions"].as_array().unwrap();
    let (small, large) = (
        residual_variance(&entries[0]),
        residual_variance(&entries[1]),
    );
    let compute_ratio: f64 = (7e10 * 1.4e12) / (1e8 * 2e9);
    let expected = compute_ratio.powf(2.0 * s);
    assert!(
        (large / small / expected - 1.0).abs() < 1e-6,
        "σ² ratio {} vs (C ratio)^(2s) {expected}",
        large / small
    );
}

#[test]
fn a_profile_holds_the_fitted_variance_model() {
    let fit =
        stdout_json(hetero_fit().args(["--no-calibration", "--profile", "alpha", "--json", "-"]));
    let profile = &fit["profiles"][0];
    let value = number(&fit["params"]["alpha"]["value"]);
    let (lo, hi) = (number(&profile["ci"][0]), number(&profile["ci"][1]));
    assert!(lo < value && value < hi, "{value} outside [{lo}, {hi}]");
}

#[test]
fn bad_heteroscedastic_input_exits_2_naming_the_column() {
    fails(
        scalinglaws_in_root()
            .args(CHINCHILLA)
            .args(["--loss", "linear", "--heteroscedastic", "Q"]),
        &["'Q'", "--heteroscedastic"],
    );
    fails(
        scalinglaws_in_root()
            .args(CHINCHILLA)
            .args(["--heteroscedastic", "C"]),
        &["--heteroscedastic C", "--loss linear"],
    );
    fails(
        scalinglaws_in_root().args(CHINCHILLA).args([
            "--loss",
            "linear",
            "--derive",
            "Z=loss-3",
            "--heteroscedastic",
            "Z",
        ]),
        &["column 'Z'", "not positive", "--where"],
    );
    fails(
        scalinglaws_in_root().args(CHINCHILLA).args([
            "--loss",
            "linear",
            "--heteroscedastic",
            "loss",
        ]),
        &["'loss'", "neither a variable of the law", "N·D"],
    );
}
