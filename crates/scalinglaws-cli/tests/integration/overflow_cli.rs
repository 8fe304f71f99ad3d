//! Predictions far beyond the data through the command line (issue 18): a broken power law
//! with a sharp break predicts a finite value a million times beyond its data, equal to the
//! law's value computed in log space, where the formula as Caballero et al. print it overflows
//! (and `predict` used to refuse: "the law is undefined"); a value genuinely beyond f64 says
//! so, with its size; and a user formula that overflows on the way to a moderate value is
//! told to use a stable form.

use std::path::Path;
use std::process::Command;

use assert_cmd::prelude::*;
use serde_json::Value;

fn scalinglaws() -> Command {
    Command::new(env!("CARGO_BIN_EXE_scalinglaws"))
}

/// A small deterministic noise in [-1, 1].
fn noise(i: usize) -> f64 {
    (i as f64 * 12.9898).sin() * 0.5 + (i as f64 * 78.233).cos() * 0.5
}

fn softplus(z: f64) -> f64 {
    z.max(0.0) + (-z.abs()).exp().ln_1p()
}

/// Caballero et al. 2022, eq. 1, one break, in log space: log(y - a) = log b − c0·log x −
/// c1·f1·softplus(log(x/d1)/f1).
fn bnsl_log_space(p: &Value, x: f64) -> f64 {
    let v = |name: &str| p[name]["value"].as_f64().unwrap();
    let z = (x / v("d1")).ln() / v("f1");
    v("a") + (v("b").ln() - v("c0") * x.ln() - v("c1") * v("f1") * softplus(z)).exp()
}

/// Runs rising through a sharp break (f = 0.004) at x = 1e4: x from 1e2 to `largest`.
fn write_sharp_break(path: &Path, largest: f64) {
    let mut text = String::from("x,loss\n");
    for i in 0..40 {
        let x = 10f64.powf(2.0 + (largest.log10() - 2.0) * i as f64 / 39.0);
        let y = 0.5 + 2.0 * x.powf(-0.05) * (0.2 * 0.004 * softplus((x / 1e4).ln() / 0.004)).exp();
        text.push_str(&format!("{x},{}\n", y * (0.005 * noise(i)).exp()));
    }
    std::fs::write(path, text).unwrap();
}

fn fit(dir: &Path, data: &str, law: &[&str], json: &str) -> Value {
    scalinglaws()
        .current_dir(dir)
        .args(["fit", data, "--target", "loss", "--json", json])
        .args(law)
        .assert()
        .success();
    serde_json::from_str(&std::fs::read_to_string(dir.join(json)).unwrap()).unwrap()
}

/// The case: `predict` at 1e6× the largest x of a sharp bnsl fit gives a finite value,
/// the log-space value, with intervals; the fit itself recovers the break.
#[test]
fn a_sharp_break_predicts_a_million_times_beyond_its_data() {
    let dir = tempfile::tempdir().unwrap();
    write_sharp_break(&dir.path().join("runs.csv"), 1e6);
    let result = fit(
        dir.path(),
        "runs.csv",
        &["--law", "bnsl", "--fix", "f1=0.004"],
        "fit.json",
    );
    let params = &result["params"];
    assert_eq!(result["converged"], Value::Bool(true), "{result}");
    let (c1, d1) = (
        params["c1"]["value"].as_f64().unwrap(),
        params["d1"]["value"].as_f64().unwrap(),
    );
    assert!((-0.25..-0.15).contains(&c1), "c1 = {c1}");
    assert!((8e3..1.25e4).contains(&d1), "d1 = {d1}");
    let output = scalinglaws()
        .current_dir(dir.path())
        .args(["predict", "fit.json", "x=1e12,1e6", "--json", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let predictions: Value = serde_json::from_slice(&output.stdout).unwrap();
    for (k, x) in [1e12, 1e6].into_iter().enumerate() {
        let prediction = &predictions["predictions"][k];
        let value = prediction["value"].as_f64().unwrap();
        let want = bnsl_log_space(params, x);
        assert!(
            value.is_finite() && (value - want).abs() <= 1e-9 * want,
            "x = {x}: {value} vs {want} in log space"
        );
        let ci = prediction["ci"].as_array().expect("a confidence interval");
        let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
        assert!(lo < value && value < hi, "x = {x}: {lo} {value} {hi}");
    }
    // A million times beyond the break the loss has risen well above its value at the data's end.
    let far = predictions["predictions"][0]["value"].as_f64().unwrap();
    let end = predictions["predictions"][1]["value"].as_f64().unwrap();
    assert!(far > 2.0 * end, "{far} vs {end}");
}

/// Exponential growth a million times beyond its data is finite but beyond f64: `predict` says
/// so and gives the size, instead of calling the law undefined.
#[test]
fn a_value_beyond_f64_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("t,loss\n");
    for i in 0..30 {
        let t = 1000.0 * i as f64 / 29.0;
        let y = 2.0 * (0.005 * t).exp() * (0.01 * noise(i)).exp();
        text.push_str(&format!("{t},{y}\n"));
    }
    std::fs::write(dir.path().join("runs.csv"), text).unwrap();
    let result = fit(dir.path(), "runs.csv", &["--law", "exp_growth"], "fit.json");
    let k = result["params"]["k"]["value"].as_f64().unwrap();
    let y0 = result["params"]["y0"]["value"].as_f64().unwrap();
    assert!((k / 0.005 - 1.0).abs() < 0.05, "k = {k}");
    let output = scalinglaws()
        .current_dir(dir.path())
        .args(["predict", "fit.json", "t=1e9"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    // log10 y = log10 y0 + k·t/ln 10 ≈ 2.17e6: the message names the exponent.
    let exponent = (y0.log10() + k * 1e9 / std::f64::consts::LN_10).floor();
    assert!(
        stderr.contains("the law's value at t=1000000000 is about")
            && stderr.contains(&format!("e{exponent:.0}"))
            && stderr.contains("beyond the largest double")
            && !stderr.contains("undefined"),
        "{stderr}"
    );
    scalinglaws()
        .current_dir(dir.path())
        .args(["predict", "fit.json", "t=2000"])
        .assert()
        .success();
}

/// A user formula that overflows on the way to a moderate value (the break factor as printed)
/// is told what its value is and how to write it, not that it is undefined.
#[test]
fn a_formula_that_overflows_inside_is_told_to_use_a_stable_form() {
    let dir = tempfile::tempdir().unwrap();
    // Up to x = 1e5 = 10·d1 the printed form holds ((x/d1)^250 <= 1e250).
    write_sharp_break(&dir.path().join("runs.csv"), 1e5);
    fit(
        dir.path(),
        "runs.csv",
        &[
            "--formula",
            "a + b*x^-c0 * (1 + (x/d1)^(1/f1))^(-c1*f1)",
            "--fix",
            "c0=0.05",
            "--fix",
            "d1=1e4",
            "--fix",
            "f1=0.004",
            "--fix",
            "c1=-0.2",
        ],
        "fit.json",
    );
    let output = scalinglaws()
        .current_dir(dir.path())
        .args(["predict", "fit.json", "x=1e6"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the law's value at x=1000000 is about")
            && stderr.contains("overflows a double")
            && stderr.contains("softplus"),
        "{stderr}"
    );
}
