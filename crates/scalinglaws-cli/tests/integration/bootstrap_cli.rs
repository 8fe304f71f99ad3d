//! End-to-end tests of the uncertainty of a fit through the `scalinglaws` binary:
//! `fit --bootstrap/--cluster/--level/--profile`, `predict` on fits with and without bootstrap
//! replicates, and saved fits that are refused or kept with a warning, on the bundled
//! Chinchilla data (the README's arguments) and on a small clustered file; and their input
//! errors (exit code 2, a message naming the offending thing, never a panic).

use crate::common;

use assert_cmd::prelude::*;
use predicates::prelude::*;
use serde_json::Value;

use common::{
    bootstrap_fit, bootstrap_json, chinchilla, chinchilla_formula, fails, fit_file, pair,
    read_json, relative, run_bootstrap_fit, scalinglaws, stdout_json,
};

// ---------------------------------------------------------------------------------------------
// fit --bootstrap
// ---------------------------------------------------------------------------------------------

#[test]
fn bootstrap_gives_every_free_parameter_an_interval_and_a_stderr() {
    let fit = bootstrap_json();
    let params = fit["params"].as_object().unwrap();
    assert_eq!(params.len(), 5);
    for (name, param) in params {
        assert_eq!(param["fixed"], false, "{name}");
        let value = param["value"].as_f64().unwrap();
        let [lo, hi] = pair(&param["ci"]);
        assert!(
            lo < value && value < hi,
            "{name}: {value} outside [{lo}, {hi}]"
        );
        let stderr = param["boot_stderr"].as_f64().unwrap();
        assert!(stderr > 0.0, "{name}: boot_stderr {stderr}");
    }
}

#[test]
fn bootstrap_summary_keeps_every_replicate() {
    let fit = bootstrap_json();
    let boot = &fit["bootstrap"];
    assert_eq!(boot["replicates"], 60);
    assert_eq!(boot["seed"], 3);
    assert!(
        (boot["level"].as_f64().unwrap() - 0.95).abs() < 1e-12,
        "{boot}"
    );
    assert_eq!(boot["cluster"], Value::Null);
    let failed = boot["failed"].as_u64().expect("failed is a number");
    let draws = boot["draws"].as_array().unwrap();
    for draw in draws {
        let values = draw.as_array().unwrap();
        assert_eq!(values.len(), 5, "{draw}");
        assert!(values.iter().all(|v| v.as_f64().is_some()), "{draw}");
    }
    assert_eq!(draws.len() as u64 + failed, 60);
}

#[test]
fn bootstrap_report_has_an_intervals_section() {
    let report = &bootstrap_fit().1;
    assert!(report.contains("[[Intervals]]"), "{report}");
    assert!(report.contains("seed 3"), "{report}");
}

#[test]
fn bootstrap_is_reproducible_for_a_seed() {
    let (again, _) = run_bootstrap_fit(&[]);
    assert!(again == bootstrap_fit().0, "two runs wrote different JSON");
}

#[test]
fn bootstrap_draws_do_not_depend_on_the_thread_count() {
    let draws = |threads: &str| -> Value {
        let (text, _) = run_bootstrap_fit(&["--threads", threads]);
        let fit: Value = serde_json::from_str(&text).unwrap();
        fit["bootstrap"]["draws"].clone()
    };
    let one = draws("1");
    assert!(!one.as_array().unwrap().is_empty());
    // Bit-identical replicates are the promise, so exact equality is the check here.
    assert!(
        one == draws("2"),
        "--threads 1 and --threads 2 drew differently"
    );
}

#[test]
fn a_lower_level_narrows_the_bootstrap_interval() {
    let width = |fit: &Value| {
        let [lo, hi] = pair(&fit["params"]["alpha"]["ci"]);
        hi - lo
    };
    let (text, _) = run_bootstrap_fit(&["--level", "0.9"]);
    let ninety: Value = serde_json::from_str(&text).unwrap();
    assert!((ninety["bootstrap"]["level"].as_f64().unwrap() - 0.9).abs() < 1e-12);
    let (narrow, wide) = (width(&ninety), width(&bootstrap_json()));
    assert!(narrow < wide, "90% width {narrow} vs 95% width {wide}");
}

// ---------------------------------------------------------------------------------------------
// predict from fits with and without replicates
// ---------------------------------------------------------------------------------------------

#[test]
fn predict_uses_the_bootstrap_replicates_of_the_fit() {
    let (_dir, path) = fit_file(&bootstrap_fit().0);
    let predictions = stdout_json(
        scalinglaws()
            .arg("predict")
            .arg(&path)
            .args(["N=7e10", "D=1.4e12", "--json", "-"]),
    );
    assert_eq!(predictions["intervals"], "bootstrap");
    let entry = &predictions["predictions"][0];
    let value = entry["value"].as_f64().unwrap();
    let [ci_lo, ci_hi] = pair(&entry["ci"]);
    let [pi_lo, pi_hi] = pair(&entry["pi"]);
    assert!(ci_lo < value && value < ci_hi, "{entry}");
    assert!(pi_lo <= ci_lo && ci_hi <= pi_hi, "{entry}");
}

#[test]
fn predict_table_shows_the_intervals_and_their_source() {
    let (_dir, path) = fit_file(&bootstrap_fit().0);
    scalinglaws()
        .arg("predict")
        .arg(&path)
        .args(["N=7e10", "D=1.4e12"])
        .assert()
        .success()
        .stdout(predicate::str::contains("ci low"))
        .stdout(predicate::str::contains("pi high"))
        .stdout(predicate::str::is_match("(?m)^intervals:.*60 bootstrap replicates").unwrap());
}

#[test]
fn predict_without_replicates_uses_the_delta_method() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fit.json");
    chinchilla("fit")
        .arg("--json")
        .arg(&path)
        .assert()
        .success();
    let predictions = stdout_json(
        scalinglaws()
            .arg("predict")
            .arg(&path)
            .args(["N=7e10", "D=1.4e12", "--json", "-"]),
    );
    assert_eq!(predictions["intervals"], "delta");
    let entry = &predictions["predictions"][0];
    let value = entry["value"].as_f64().unwrap();
    let [ci_lo, ci_hi] = pair(&entry["ci"]);
    let [pi_lo, pi_hi] = pair(&entry["pi"]);
    assert!(
        pi_lo <= ci_lo && ci_lo < value && value < ci_hi && ci_hi <= pi_hi,
        "{entry}"
    );
    scalinglaws()
        .arg("predict")
        .arg(&path)
        .args(["N=7e10", "D=1.4e12"])
        .assert()
        .success()
        .stdout(predicate::str::is_match("(?m)^intervals:.*delta method").unwrap());
}

// ---------------------------------------------------------------------------------------------
// fit --profile
// ---------------------------------------------------------------------------------------------

#[test]
fn profile_adds_an_interval_around_the_value() {
    let fit = stdout_json(chinchilla("fit").args(["--profile", "alpha", "--json", "-"]));
    let profiles = fit["profiles"].as_array().unwrap();
    assert_eq!(profiles.len(), 1, "{}", fit["profiles"]);
    let profile = &profiles[0];
    assert_eq!(profile["param"], "alpha");
    let value = fit["params"]["alpha"]["value"].as_f64().unwrap();
    assert!(relative(profile["value"].as_f64().unwrap(), value) < 1e-9);
    let [lo, hi] = pair(&profile["ci"]);
    assert!(lo < value && value < hi, "{value} outside [{lo}, {hi}]");
}

#[test]
fn profile_of_an_unknown_parameter_exits_2() {
    fails(
        chinchilla("fit").args(["--profile", "nosuch"]),
        &["'nosuch'", "E, A, alpha, B, beta"],
    );
    fails(
        chinchilla("fit").args(["--profile", "alpah"]),
        &["'alpah'", "did you mean 'alpha'?"],
    );
}

// ---------------------------------------------------------------------------------------------
// Bad uncertainty arguments: exit code 2, the offending thing named, no panic
// ---------------------------------------------------------------------------------------------

#[test]
fn zero_bootstrap_replicates_mean_no_bootstrap_as_in_python() {
    let plain = stdout_json(chinchilla("fit").args(["--json", "-"]));
    let zero = stdout_json(chinchilla("fit").args(["--bootstrap", "0", "--json", "-"]));
    assert!(zero["bootstrap"].is_null(), "{}", zero["bootstrap"]);
    assert_eq!(zero["params"], plain["params"]);
    // What only a bootstrap uses is then refused, not ignored (the library's rule).
    fails(
        chinchilla("fit").args(["--bootstrap", "0", "--cluster", "Model Size"]),
        &[
            "--cluster resamples whole runs for the bootstrap",
            "--bootstrap K",
        ],
    );
}

#[test]
fn level_outside_zero_one_exits_2() {
    fails(
        chinchilla("fit").args(["--level", "1.5"]),
        &["--level 1.5", "between 0 and 1"],
    );
}

#[test]
fn cluster_on_a_missing_column_exits_2() {
    fails(
        chinchilla("fit").args(["--bootstrap", "5", "--cluster", "nosuch"]),
        &["column 'nosuch'", "--cluster"],
    );
}

#[test]
fn cluster_without_bootstrap_is_a_usage_error() {
    fails(
        chinchilla("fit").args(["--cluster", "run"]),
        &["--bootstrap"],
    );
}

// ---------------------------------------------------------------------------------------------
// fit --bootstrap --cluster on checkpoints of runs
// ---------------------------------------------------------------------------------------------

const RUNS: [&str; 7] = [
    "run-a", "run-b", "run-c", "run-d", "run-e", "run-f", "run-g",
];

/// Five checkpoints of each of 7 runs, L = 1.7 + 400*N^-0.34 times a small deterministic
/// perturbation (within ±0.4%).
fn runs_csv() -> String {
    let mut text = String::from("run,N,loss\n");
    for (i, run) in RUNS.iter().enumerate() {
        for j in 0..5 {
            let n = 1e7 * 2f64.powi(i as i32) * 3f64.powi(j);
            let k = (i as i32 * 5 + j) * 7 % 11 - 5;
            let loss = (1.7 + 400.0 * n.powf(-0.34)) * (1.0 + 0.004 * f64::from(k) / 5.0);
            text.push_str(&format!("{run},{n},{loss}\n"));
        }
    }
    text
}

const CLUSTER_FIT: &[&str] = &[
    "--law",
    "power_offset",
    "--target",
    "loss",
    "--map",
    "x=N",
    "--bootstrap",
    "50",
    "--cluster",
    "run",
];

#[test]
fn cluster_bootstrap_resamples_whole_runs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("runs.csv"), runs_csv()).unwrap();
    let path = dir.path().join("fit.json");
    scalinglaws()
        .current_dir(dir.path())
        .args(["fit", "runs.csv"])
        .args(CLUSTER_FIT)
        .arg("--json")
        .arg(&path)
        .assert()
        .success();
    let fit = read_json(&path);
    let boot = &fit["bootstrap"];
    assert_eq!(boot["cluster"], "run");
    assert_eq!(boot["clusters"], RUNS.len());
    assert_eq!(boot["replicates"], 50);
    let draws = boot["draws"].as_array().unwrap().len() as u64;
    assert_eq!(draws + boot["failed"].as_u64().unwrap(), 50);
    let alpha = fit["params"]["alpha"]["value"].as_f64().unwrap();
    assert!(relative(alpha, 0.34) < 0.05, "alpha = {alpha}");
    let [lo, hi] = pair(&fit["params"]["alpha"]["ci"]);
    assert!(lo < alpha && alpha < hi, "{alpha} outside [{lo}, {hi}]");
}

#[test]
fn empty_run_label_names_its_row() {
    let dir = tempfile::tempdir().unwrap();
    let mut lines: Vec<String> = runs_csv().lines().map(String::from).collect();
    // Data row 8 is line 9 of the file.
    lines[8] = format!(",{}", lines[8].split_once(',').unwrap().1);
    std::fs::write(dir.path().join("runs.csv"), lines.join("\n") + "\n").unwrap();
    fails(
        scalinglaws()
            .current_dir(dir.path())
            .args(["fit", "runs.csv"])
            .args(CLUSTER_FIT),
        &["runs.csv, row 8 (line 9), column 'run'", "empty"],
    );
}

// ---------------------------------------------------------------------------------------------
// Found in review: each of these once panicked, misread a file or discarded finished work
// ---------------------------------------------------------------------------------------------

#[test]
fn a_law_without_variables_is_refused() {
    fails(&mut chinchilla_formula("E"), &["reads no data column"]);
}

#[test]
fn a_fit_file_with_a_truncated_bootstrap_draw_is_refused() {
    let mut fit = bootstrap_json();
    fit["bootstrap"]["draws"][0].as_array_mut().unwrap().pop();
    let (_dir, path) = fit_file(&fit.to_string());
    fails(
        scalinglaws()
            .arg("predict")
            .arg(&path)
            .args(["N=7e10", "D=1.4e12"]),
        &["bootstrap draw 1 has 4 values for 5 parameters"],
    );
}

#[test]
fn a_fit_file_with_a_misshapen_covariance_is_refused() {
    let mut fit = bootstrap_json();
    fit["covariance"]["values"].as_array_mut().unwrap().pop();
    let (_dir, path) = fit_file(&fit.to_string());
    fails(
        scalinglaws()
            .arg("predict")
            .arg(&path)
            .args(["N=7e10", "D=1.4e12"]),
        &["covariance matrix is not 5 × 5"],
    );
}

#[test]
fn an_unavailable_profile_keeps_the_fit_and_warns() {
    // The constant c duplicates E: the Hessian is singular, so no profile can be scaled.
    let output = chinchilla_formula("E + A*N^-alpha + B*D^-beta + c")
        .args(["--profile", "E", "--json", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let fit: Value = serde_json::from_slice(&output.stdout).unwrap();
    // The saved fit holds the library's words; the report words them for the command line.
    let warnings = fit["warnings"].to_string();
    assert!(warnings.contains("profile=\\\"E\\\""), "{warnings}");
    assert!(fit.get("profiles").is_none(), "{}", fit["profiles"]);
    let report = chinchilla_formula("E + A*N^-alpha + B*D^-beta + c")
        .args(["--profile", "E"])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&report.stdout);
    assert!(report.contains("--profile E"), "{report}");
}
