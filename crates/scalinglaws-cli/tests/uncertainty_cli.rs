//! End-to-end tests of the uncertainty and model-checking side of the `scalinglaws` binary:
//! `fit --bootstrap/--cluster/--level/--profile`, `predict` on fits with and without bootstrap
//! replicates, `backtest`, `compare-laws` and `optimal` (which takes its intervals from the same
//! replicates), on the bundled Chinchilla data (the README's
//! arguments) and on a small clustered file; and their input errors (exit code 2, a message
//! naming the offending thing, never a panic).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use assert_cmd::prelude::*;
use predicates::prelude::*;
use serde_json::Value;

use common::CHINCHILLA;

fn scalinglaws() -> Command {
    Command::new(env!("CARGO_BIN_EXE_scalinglaws"))
}

/// The workspace root, where the README's commands run.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `SUBCOMMAND` with the README's data, law and column arguments (for `fit` and `backtest`).
fn chinchilla(subcommand: &str) -> Command {
    let mut command = scalinglaws();
    command
        .current_dir(root())
        .arg(subcommand)
        .args(&CHINCHILLA[1..]);
    command
}

/// `compare-laws` with the README's data and column arguments, without `--law`.
fn compare_laws() -> Command {
    let mut command = scalinglaws();
    command
        .current_dir(root())
        .arg("compare-laws")
        .arg(CHINCHILLA[1])
        .args(&CHINCHILLA[4..]);
    command
}

fn stdout_json(command: &mut Command) -> Value {
    let output = command.output().expect("run scalinglaws");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "failed: {stderr}");
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).expect("the file is JSON")
}

/// Asserts exit code 2, an `error` message holding every `expected` piece, and no panic.
fn fails(command: &mut Command, expected: &[&str]) {
    let output = command.output().expect("run scalinglaws");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{command:?} should exit 2: {stderr}"
    );
    assert!(stderr.contains("error"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for needle in expected {
        assert!(stderr.contains(needle), "expected {needle:?} in: {stderr}");
    }
}

fn pair(value: &Value) -> [f64; 2] {
    let list = value
        .as_array()
        .unwrap_or_else(|| panic!("not a pair: {value}"));
    assert_eq!(list.len(), 2, "{value}");
    [list[0].as_f64().unwrap(), list[1].as_f64().unwrap()]
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

/// The 60-replicate bootstrap fit of the Chinchilla data with seed 3, run once for the file:
/// (the JSON text it wrote, its report on stdout).
fn bootstrap_fit() -> &'static (String, String) {
    static FIT: OnceLock<(String, String)> = OnceLock::new();
    FIT.get_or_init(|| run_bootstrap_fit(&[]))
}

/// `fit ... --bootstrap 60 --seed 3 --json PATH` plus `extra`: (JSON text, stdout).
fn run_bootstrap_fit(extra: &[&str]) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fit.json");
    let output = chinchilla("fit")
        .args(["--bootstrap", "60", "--seed", "3"])
        .args(extra)
        .arg("--json")
        .arg(&path)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "failed: {stderr}");
    (
        std::fs::read_to_string(&path).unwrap(),
        String::from_utf8(output.stdout).unwrap(),
    )
}

fn bootstrap_json() -> Value {
    serde_json::from_str(&bootstrap_fit().0).unwrap()
}

/// Writes `text` as `fit.json` in a fresh directory.
fn fit_file(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fit.json");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

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
fn zero_bootstrap_replicates_exit_2() {
    fails(
        chinchilla("fit").args(["--bootstrap", "0"]),
        &["--bootstrap 0"],
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

// ---------------------------------------------------------------------------------------------
// compare-laws
// ---------------------------------------------------------------------------------------------

/// Hoffmann et al.'s published Chinchilla fit, every parameter held.
const HOFFMANN: &str =
    "chinchilla[E=exp(0.5267228),A=exp(6.0073404),B=exp(6.0179186),alpha=0.33917084,beta=0.2849083]";

#[test]
fn compare_laws_reproduces_epochs_likelihood_ratio() {
    let comparison =
        stdout_json(compare_laws().args(["--law", "chinchilla", "--law", HOFFMANN, "--json", "-"]));
    let tests = comparison["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 1, "{}", comparison["tests"]);
    assert_eq!(tests[0]["df"], 5);
    assert_eq!(tests[0]["restricted"], HOFFMANN);
    assert_eq!(tests[0]["general"], "chinchilla");
    // Epoch AI (Besiroglu et al. 2024) report λ = 84.00.
    let statistic = tests[0]["statistic"].as_f64().unwrap();
    assert!((statistic - 84.0).abs() < 0.02, "λ = {statistic}");
    let held = comparison["laws"][1]["log_likelihood"].as_f64().unwrap();
    assert!((held - 837.78).abs() < 0.01, "ℓ = {held}");
}

#[test]
fn compare_laws_backtests_each_law_with_free_parameters() {
    let comparison = stdout_json(compare_laws().args([
        "--law",
        "chinchilla",
        "--law",
        HOFFMANN,
        "--by",
        "C",
        "--json",
        "-",
    ]));
    let laws = comparison["laws"].as_array().unwrap();
    assert_eq!(laws.len(), 2);
    for law in laws {
        if law["free_params"].as_u64().unwrap() > 0 {
            assert!(law["backtest"].is_object(), "{law}");
            assert_eq!(law["backtest"]["points"], 48, "{law}");
        }
    }
}

#[test]
fn compare_laws_table_lists_the_likelihood_ratio_tests() {
    compare_laws()
        .args(["--law", "chinchilla", "--law", HOFFMANN])
        .assert()
        .success()
        .stdout(predicate::str::contains("Likelihood-ratio tests"))
        .stdout(predicate::str::contains("AIC"));
}

#[test]
fn compare_laws_with_one_law_exits_2() {
    fails(
        compare_laws().args(["--law", "chinchilla"]),
        &["at least two laws"],
    );
}

#[test]
fn compare_laws_unclosed_bracket_exits_2() {
    fails(
        compare_laws().args(["--law", "chinchilla", "--law", "chinchilla[E=1.69"]),
        &["--law 'chinchilla[E=1.69'", "']'"],
    );
}

#[test]
fn compare_laws_unknown_held_parameter_exits_2() {
    fails(
        compare_laws().args(["--law", "chinchilla", "--law", "chinchilla[Q=1]"]),
        &["'Q' is not a parameter", "E, A, alpha, B, beta"],
    );
}

// ---------------------------------------------------------------------------------------------
// Found in review: each of these once panicked, misread a file or discarded finished work
// ---------------------------------------------------------------------------------------------

/// `fit` with a formula instead of the README's law, on the README's data and columns.
fn chinchilla_formula(formula: &str) -> Command {
    let mut command = scalinglaws();
    command
        .current_dir(root())
        .args(["fit", CHINCHILLA[1], "--formula", formula])
        .args(&CHINCHILLA[4..]);
    command
}

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
    let warnings = fit["warnings"].to_string();
    assert!(warnings.contains("--profile E"), "{warnings}");
    assert!(fit.get("profiles").is_none(), "{}", fit["profiles"]);
}

#[test]
fn compare_laws_says_why_a_loss_without_density_has_no_tests() {
    compare_laws()
        .args([
            "--law",
            "chinchilla",
            "--law",
            HOFFMANN,
            "--loss",
            "soft_l1",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("the loss defines no likelihood"));
}

#[test]
fn compare_laws_fails_when_no_law_can_be_fitted() {
    let output = compare_laws()
        .args(["--formula", "log(F - N)", "--formula", "log(G - N)"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no law could be fitted"), "{stderr}");
}

// ---------------------------------------------------------------------------------------------
// optimal (issue 5, first part): allocation from a saved fit, intervals from its replicates
// ---------------------------------------------------------------------------------------------

#[test]
fn optimal_allocates_a_budget_with_intervals_from_the_replicates() {
    let (_dir, path) = fit_file(&bootstrap_fit().0);
    let frontier = stdout_json(scalinglaws().arg("optimal").arg(&path).args([
        "--budget",
        "5.88e23,1e26",
        "--json",
        "-",
    ]));
    assert_eq!(frontier["method"], "closed form");
    assert_eq!(frontier["draws"], 60);
    let first = &frontier["allocations"][0];
    let (n, d) = (first["N"].as_f64().unwrap(), first["D"].as_f64().unwrap());
    // The budget is spent: 6·N·D = C.
    assert!(relative(6.0 * n * d, 5.88e23) < 1e-9);
    // Chinchilla's own answer for this data is about 70B parameters and 20 tokens per parameter.
    assert!((5e10..1e11).contains(&n), "N* = {n:e}");
    let [lo, hi] = pair(&first["ci"]["N"]);
    assert!(lo < n && n < hi, "{lo:e} < {n:e} < {hi:e}");
    assert!(frontier["exponents"]["a"].as_f64().unwrap() > 0.4);
}

#[test]
fn optimal_needs_every_other_variable_of_the_law() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dc.json");
    scalinglaws()
        .current_dir(root())
        .args([
            "fit",
            "examples/datablations/datablations_fit182.csv",
            "--law",
            "data_constrained",
            "--target",
            "loss",
            "--fix",
            "E=exp(0.6254804)",
            "--fix",
            "A=exp(6.255414)",
            "--fix",
            "B=exp(7.3049974)",
            "--fix",
            "alpha=0.3526596",
            "--fix",
            "beta=0.3526596",
            "--json",
        ])
        .arg(&path)
        .assert()
        .success();
    fails(
        scalinglaws()
            .arg("optimal")
            .arg(&path)
            .args(["--budget", "1e22"]),
        &["--set U=VALUE"],
    );
    let frontier = stdout_json(
        scalinglaws()
            .arg("optimal")
            .arg(&path)
            .args(["--budget", "1e22", "--set", "U=25e9", "--json", "-"]),
    );
    assert_eq!(frontier["method"], "numerical");
    let d = frontier["allocations"][0]["D"].as_f64().unwrap();
    assert!((1e11..1e12).contains(&d), "D* = {d:e}");
}

#[test]
fn optimal_rejects_bad_budgets_and_flops() {
    let (_dir, path) = fit_file(&bootstrap_fit().0);
    fails(
        scalinglaws()
            .arg("optimal")
            .arg(&path)
            .args(["--budget", "-1e20"]),
        &["--budget -1e20: a budget is a positive number"],
    );
    fails(
        scalinglaws()
            .arg("optimal")
            .arg(&path)
            .args(["--budget", "1e22", "--flops", "6*N*T"]),
        &["--flops", "'T' is not known here"],
    );
}

// ---------------------------------------------------------------------------------------------
// isoflop (issue 5, second part), on Porian et al. 2024's IsoFLOP points (testdata, MIT)
// ---------------------------------------------------------------------------------------------

fn porian() -> PathBuf {
    root().join("testdata/porian2024/isoflop_points.csv")
}

#[test]
fn isoflop_analyses_each_configuration_of_porian_et_al() {
    let mut command = scalinglaws();
    command.arg("isoflop").arg(porian()).args([
        "--compute",
        "flops",
        "--size",
        "n",
        "--target",
        "loss",
        "--tokens",
        "t",
    ]);
    for group in [
        "dataset",
        "hparams",
        "warmup",
        "decay",
        "param_count",
        "val",
    ] {
        command.args(["--group", group]);
    }
    let result = stdout_json(command.args(["--bootstrap", "50", "--json", "-"]));
    let groups = result["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 15);
    for group in groups {
        let a = group["n_star"]["exponent"].as_f64().unwrap();
        let [lo, hi] = pair(&group["n_star"]["ci"]);
        assert!(
            lo < a && a < hi && (0.4..0.95).contains(&a),
            "{}: {a}",
            group["group"]
        );
        assert_eq!(group["shape"], "cubic");
    }
}

#[test]
fn isoflop_input_errors_exit_2() {
    fails(
        scalinglaws().arg("isoflop").arg(porian()).args([
            "--compute",
            "flops",
            "--size",
            "n",
            "--target",
            "loss",
            "--shape",
            "spline",
        ]),
        &["--shape 'spline'", "cubic, parabola, parabola3"],
    );
    fails(
        scalinglaws().arg("isoflop").arg(porian()).args([
            "--compute",
            "budget",
            "--size",
            "n",
            "--target",
            "loss",
        ]),
        &["budget"],
    );
}

#[test]
fn optimal_respects_caps_on_size_and_tokens() {
    let (_dir, path) = fit_file(&bootstrap_fit().0);
    let frontier = stdout_json(scalinglaws().arg("optimal").arg(&path).args([
        "--budget",
        "5.88e23",
        "--max-params",
        "3e10",
        "--json",
        "-",
    ]));
    let a = &frontier["allocations"][0];
    assert!(relative(a["N"].as_f64().unwrap(), 3e10) < 1e-9, "{a}");
    assert_eq!(a["binding"], "max_params");
    fails(
        scalinglaws().arg("optimal").arg(&path).args([
            "--budget",
            "1e25",
            "--max-params",
            "1e11",
            "--max-tokens",
            "2e12",
        ]),
        &["no allocation meets the caps"],
    );
}

// ---------------------------------------------------------------------------------------------
// optimal and isoflop (issue 5, third part): published parameters, MoE experts under a memory
// cap, inference tokens, and Chinchilla's approach 1 on checkpoints
// ---------------------------------------------------------------------------------------------

/// Ludziejewski et al. 2025, Table 3.
const MOE_PUBLISHED: &str = "moe[a=35.91,alpha=-0.1889,delta=-0.2285,gamma=0.0098,b=35.98,beta=-0.1775,omega=0.5529,zeta=-0.0259,c=1.3637,E_start=2.0732,E_max=290.4521]";

/// Sardana et al. 2024's Chinchilla constants.
const SARDANA_CHINCHILLA: &str = "chinchilla[E=1.69,A=406.4,alpha=0.336,B=410.7,beta=0.283]";

#[test]
fn optimal_takes_published_parameters_and_chooses_experts_under_a_memory_cap() {
    let dense = stdout_json(scalinglaws().args([
        "optimal",
        "--law",
        MOE_PUBLISHED,
        "--budget",
        "1e20",
        "--set",
        "E=1",
        "--json",
        "-",
    ]));
    let a = &dense["allocations"][0];
    assert!(relative(a["N"].as_f64().unwrap(), 1.7e9) < 0.03, "{a}");
    assert!(relative(a["D"].as_f64().unwrap(), 9.7e9) < 0.03, "{a}");
    let capped = stdout_json(scalinglaws().args([
        "optimal",
        "--law",
        MOE_PUBLISHED,
        "--budget",
        "1e21",
        "--set",
        "E=1,4,16,64",
        "--total-params",
        "N*(4+9*E)/13",
        "--max-params",
        "2e10",
        "--json",
        "-",
    ]));
    let a = &capped["allocations"][0];
    assert_eq!(a["binding"], "max_params", "{a}");
    assert!(
        relative(a["total_params"].as_f64().unwrap(), 2e10) < 1e-6,
        "{a}"
    );
    assert!(a["chosen"]["E"].as_f64().is_some(), "{a}");
    assert_eq!(capped["choices"]["E"].as_array().unwrap().len(), 4);
    let active = stdout_json(scalinglaws().args([
        "optimal",
        "--law",
        MOE_PUBLISHED,
        "--budget",
        "1e21",
        "--set",
        "E=8",
        "--max-active",
        "5e8",
        "--json",
        "-",
    ]));
    assert_eq!(active["allocations"][0]["binding"], "max_active");
}

#[test]
fn optimal_minimises_lifetime_compute_for_a_target_loss_with_inference() {
    let frontier = stdout_json(scalinglaws().args([
        "optimal",
        "--law",
        SARDANA_CHINCHILLA,
        "--target-loss",
        "2.0453",
        "--inference-tokens",
        "2e12",
        "--json",
        "-",
    ]));
    assert_eq!(frontier["goal"], "target_loss");
    let a = &frontier["allocations"][0];
    assert!(relative(a["N"].as_f64().unwrap(), 6.97e9) < 0.01, "{a}");
    let savings = a["reference"]["savings"].as_f64().unwrap();
    assert!((savings - 0.174).abs() < 0.005, "{a}");
    let sum = a["training_flops"].as_f64().unwrap() + a["inference_flops"].as_f64().unwrap();
    assert!(relative(sum, a["budget"].as_f64().unwrap()) < 1e-9);
    let output = scalinglaws()
        .args([
            "optimal",
            "--law",
            SARDANA_CHINCHILLA,
            "--target-loss",
            "2.0453",
        ])
        .args(["--inference-tokens", "2e12"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("saves 17.4%"), "{text}");
}

#[test]
fn optimal_input_errors_exit_2() {
    fails(
        scalinglaws().args(["optimal", "--law", "chinchilla[E=1.69]", "--budget", "1e22"]),
        &["give every parameter", "'A' is missing"],
    );
    fails(
        scalinglaws().args(["optimal", "--law", SARDANA_CHINCHILLA]),
        &["--budget", "--target-loss"],
    );
    fails(
        scalinglaws().args([
            "optimal",
            "--law",
            SARDANA_CHINCHILLA,
            "--target-loss",
            "1.5",
        ]),
        &["target"],
    );
    fails(
        scalinglaws().args([
            "optimal",
            "--law",
            MOE_PUBLISHED,
            "--budget",
            "1e21",
            "--set",
            "E=8",
            "--total-params",
            "N*experts",
        ]),
        &["--total-params", "experts"],
    );
    fails(
        scalinglaws().args([
            "optimal",
            "--law",
            SARDANA_CHINCHILLA,
            "--budget",
            "1e22",
            "--inference-tokens",
            "-1",
        ]),
        &["--inference-tokens"],
    );
}

fn gemstones() -> PathBuf {
    root().join("testdata/gemstones/wandb_dfs/wandb_df_for_fitting_hot_477.jsonl")
}

#[test]
fn isoflop_envelope_finds_the_frontier_of_checkpoints() {
    let analysis = stdout_json(scalinglaws().arg("isoflop").arg(gemstones()).args([
        "--target",
        "final_loss",
        "--where",
        "step > 0",
        "--derive",
        "C=6*params_active_precise*tokens",
        "--compute",
        "C",
        "--size",
        "params_active_precise",
        "--tokens",
        "tokens",
        "--envelope",
        "hull",
        "--run",
        "run_name",
        "--bootstrap",
        "100",
        "--json",
        "-",
    ]));
    let group = &analysis["groups"][0];
    assert_eq!(group["approach"], "envelope");
    assert_eq!(group["runs"], 22);
    let a = group["n_star"]["exponent"].as_f64().unwrap();
    let [lo, hi] = pair(&group["n_star"]["ci"]);
    assert!(
        lo < a && a < hi && (0.4..0.65).contains(&a),
        "{a} [{lo}, {hi}]"
    );
    let points = group["points"].as_array().unwrap();
    assert!(points
        .windows(2)
        .all(|w| w[1]["loss"].as_f64() < w[0]["loss"].as_f64()));
}

#[test]
fn isoflop_envelope_errors_exit_2() {
    let base = |method: &str| {
        let mut command = scalinglaws();
        command.arg("isoflop").arg(gemstones()).args([
            "--target",
            "final_loss",
            "--derive",
            "C=6*params_active_precise*tokens",
            "--compute",
            "C",
            "--size",
            "params_active_precise",
            "--envelope",
            method,
        ]);
        command
    };
    fails(&mut base("grid"), &["--run"]);
    fails(&mut base("convex"), &["--envelope 'convex'", "hull"]);
    fails(base("hull").args(["--bootstrap", "10"]), &["--run"]);
}

// ---------------------------------------------------------------------------------------------
// compare (issue 6): recipes fitted side by side on examples/tracks (synthetic; `new` is worth
// exactly 2× the compute of `baseline`)
// ---------------------------------------------------------------------------------------------

fn compare_tracks() -> Command {
    let mut command = scalinglaws();
    command.current_dir(root()).args([
        "compare",
        "examples/tracks/two_recipes.csv",
        "--law",
        "chinchilla",
        "--target",
        "loss",
        "--track",
        "recipe",
    ]);
    command
}

#[test]
fn compare_recovers_the_compute_multiplier_of_the_example() {
    let result = stdout_json(compare_tracks().args([
        "--budget",
        "1e20,1e22",
        "--bootstrap",
        "100",
        "--json",
        "-",
    ]));
    assert_eq!(result["tracks"].as_array().unwrap().len(), 2);
    let pair = &result["pairs"][0];
    assert_eq!(pair["baseline"], "baseline");
    assert_eq!(pair["track"], "new");
    for at in pair["budgets"].as_array().unwrap() {
        let [lo, hi] = pair_of(&at["multiplier"]["ci"]);
        assert!(lo < 2.0 && 2.0 < hi, "{at}");
        let [lo, hi] = pair_of(&at["track_needs"]["ci"]);
        assert!(lo < 0.5 && 0.5 < hi, "{at}");
        assert!(at["p_track_better"].as_f64().unwrap() > 0.95, "{at}");
    }
    assert_eq!(pair["cells"]["shared"], 40);
    assert_eq!(pair["cells"]["track_wins"], 40);
    let allocation = &result["tracks"][0]["allocations"][0];
    assert!(
        allocation["ci"]["tokens_per_param"].is_array(),
        "{allocation}"
    );
}

fn pair_of(value: &Value) -> [f64; 2] {
    pair(value)
}

#[test]
fn compare_report_says_who_wins_and_by_how_much() {
    let output = compare_tracks()
        .args(["--budget", "1e22", "--bootstrap", "50"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for needle in [
        "[[Tracks]]",
        "new against baseline",
        "new needs",
        "the compute of baseline",
        "paired cells: new wins 40 of 40",
        "intervals: 95% percentiles over",
    ] {
        assert!(text.contains(needle), "{needle:?} in:\n{text}");
    }
}

#[test]
fn compare_shares_named_parameters_in_a_joint_fit() {
    let result = stdout_json(compare_tracks().args([
        "--shared",
        "E,alpha,beta",
        "--budget",
        "1e21",
        "--json",
        "-",
    ]));
    assert_eq!(result["shared"], serde_json::json!(["E", "alpha", "beta"]));
    let (a, b) = (
        &result["tracks"][0]["params"],
        &result["tracks"][1]["params"],
    );
    assert_eq!(a[2]["value"], b[2]["value"], "alpha is shared");
    assert_ne!(a[1]["value"], b[1]["value"], "A is per track");
    let names: Vec<&str> = result["pairs"][0]["differences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d[0].as_str().unwrap())
        .collect();
    assert_eq!(names, ["A", "B"]);
}

#[test]
fn compare_input_errors_exit_2() {
    fails(
        scalinglaws().current_dir(root()).args([
            "compare",
            "examples/tracks/two_recipes.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--track",
            "recipes",
        ]),
        &["recipes"],
    );
    fails(
        compare_tracks().args(["--shared", "gamma"]),
        &["--shared gamma"],
    );
    fails(
        compare_tracks().args(["--baseline", "old"]),
        &["--baseline", "baseline 'old'", "baseline, new"],
    );
    fails(
        compare_tracks().args(["--cell-tolerance", "0"]),
        &["--cell-tolerance"],
    );
    fails(
        scalinglaws().current_dir(root()).args([
            "compare",
            "examples/chinchilla/chinchilla_epoch.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--map",
            "N=Model Size",
            "--map",
            "C=Training FLOP",
            "--derive",
            "D=C/(6*N)",
            "--track",
            "N",
        ]),
        &["track"],
    );
}

// ---------------------------------------------------------------------------------------------
// optimal (issue 18, part 4): the closed form is never clamped; a numerical search widens its
// range of N and fails (exit 2) rather than report its edge; compare, plot frontier and report
// inherit it
// ---------------------------------------------------------------------------------------------

/// The issue's law: α = 0.1, β = 0.5 put N* beyond 1e16 at 1e22 FLOPs.
const ISSUE_18: [f64; 5] = [1.69, 406.4, 0.1, 410.7, 0.5];
/// Hoffmann et al. 2022's fit, whose N* passes 1e16 near 1e36 FLOPs.
const HOFFMANN_FIT: [f64; 5] = [1.69, 406.4, 0.34, 410.7, 0.28];

/// Hoffmann et al. 2022, eq. 4: N* = G·(C/6)^(β/(α+β)), G = (αA/(βB))^(1/(α+β)), and the
/// loss there (E, A, alpha, B, beta in `p`).
fn eq4(p: [f64; 5], c: f64) -> (f64, f64) {
    let [e, a, alpha, b, beta] = p;
    let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
    let n = g * (c / 6.0).powf(beta / (alpha + beta));
    (n, e + a * n.powf(-alpha) + b * (c / (6.0 * n)).powf(-beta))
}

/// `chinchilla[E=..,A=..,alpha=..,B=..,beta=..]`.
fn given(p: [f64; 5]) -> String {
    format!(
        "chinchilla[E={},A={},alpha={},B={},beta={}]",
        p[0], p[1], p[2], p[3], p[4]
    )
}

/// `--fix` for A, alpha, B and beta of `p` (E is left to the fit).
fn fix_all_but_e(p: [f64; 5]) -> Vec<String> {
    [("A", p[1]), ("alpha", p[2]), ("B", p[3]), ("beta", p[4])]
        .iter()
        .flat_map(|(name, value)| ["--fix".to_string(), format!("{name}={value}")])
        .collect()
}

/// Each allocation of `frontier` against eq. 4 with `p`: N* to `tolerance`, the loss to 1e-9.
fn agrees_with_eq4(frontier: &Value, p: [f64; 5], tolerance: f64) {
    for a in frontier["allocations"].as_array().unwrap() {
        let c = a["budget"].as_f64().unwrap();
        let (n, loss) = eq4(p, c);
        let (got_n, got_loss) = (a["N"].as_f64().unwrap(), a["loss"].as_f64().unwrap());
        assert!(
            relative(got_n, n) < tolerance,
            "at {c:e}: N* {got_n:e} vs {n:e}"
        );
        assert!(
            relative(got_loss, loss) < 1e-9,
            "at {c:e}: {got_loss} vs {loss}"
        );
    }
}

#[test]
fn optimal_gives_the_closed_form_beyond_1e16_parameters() {
    // The issue's command: N* 3.25e16 and 1.51e18, losses 12.58 and 9.11, not 1e16.
    let frontier = stdout_json(scalinglaws().args([
        "optimal",
        "--law",
        "chinchilla[E=1.69,A=406.4,alpha=0.1,B=410.7,beta=0.5]",
        "--budget",
        "1e22,1e24",
        "--json",
        "-",
    ]));
    assert_eq!(frontier["method"], "closed form");
    let at = |i: usize, key: &str| frontier["allocations"][i][key].as_f64().unwrap();
    assert!(relative(at(0, "N"), 3.25e16) < 0.005, "{:e}", at(0, "N"));
    assert!(relative(at(1, "N"), 1.51e18) < 0.005, "{:e}", at(1, "N"));
    assert!((at(0, "loss") - 12.58).abs() < 0.005 && (at(1, "loss") - 9.11).abs() < 0.005);
    agrees_with_eq4(&frontier, ISSUE_18, 1e-12);
    let exponent = frontier["exponents"]["a"].as_f64().unwrap();
    assert!((exponent - 0.5 / 0.6).abs() < 1e-9, "a = {exponent}");
    // Hoffmann's fit at 1e36 and 1e40 FLOPs.
    let frontier = stdout_json(scalinglaws().args([
        "optimal",
        "--law",
        &given(HOFFMANN_FIT),
        "--budget",
        "1e36,1e40",
        "--json",
        "-",
    ]));
    assert_eq!(frontier["method"], "closed form");
    agrees_with_eq4(&frontier, HOFFMANN_FIT, 1e-12);
    assert!(frontier["allocations"][1]["N"].as_f64().unwrap() > 6e17);
}

/// A fit of `formula` on the README's data with the `fixed` arguments, written to a fresh
/// directory.
fn formula_fit(formula: &str, fixed: &[String]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fit.json");
    chinchilla_formula(formula)
        .args(fixed)
        .arg("--json")
        .arg(&path)
        .assert()
        .success();
    (dir, path)
}

#[test]
fn optimal_of_a_formula_law_searches_as_far_as_the_optimum() {
    // The same Chinchilla as a formula has no closed form: the numerical search agrees with
    // eq. 4 at 1e24 and 1e40 FLOPs (E is the fit's; N* does not depend on it).
    for p in [ISSUE_18, HOFFMANN_FIT] {
        let (_dir, path) = formula_fit("E + A*N^-alpha + B*D^-beta", &fix_all_but_e(p));
        let e = read_json(&path)["params"]["E"]["value"].as_f64().unwrap();
        let frontier = stdout_json(scalinglaws().arg("optimal").arg(&path).args([
            "--budget",
            "1e24,1e40",
            "--json",
            "-",
        ]));
        assert_eq!(frontier["method"], "numerical");
        agrees_with_eq4(&frontier, [e, p[1], p[2], p[3], p[4]], 1e-4);
    }
    // A law whose loss keeps falling with N along the budget: exit 2, naming the budget and
    // the range searched, instead of an allocation at its edge.
    let (_dir, path) = formula_fit("A*N^-alpha + 0*D", &["--fix".into(), "alpha=0.34".into()]);
    fails(
        scalinglaws()
            .arg("optimal")
            .arg(&path)
            .args(["--budget", "1e22"]),
        &[
            "at the budget 1e22",
            "still falls",
            "N from 1.000e-10 to 1.000e100",
        ],
    );
}

#[test]
fn compare_plot_frontier_and_report_inherit_the_unclamped_closed_form() {
    let fixed = fix_all_but_e(ISSUE_18);
    // compare: every track's allocation is the closed form's.
    let result = stdout_json(
        compare_tracks()
            .args(["--budget", "1e22,1e24", "--json", "-"])
            .args(&fixed),
    );
    for track in result["tracks"].as_array().unwrap() {
        for a in track["allocations"].as_array().unwrap() {
            let (c, n) = (a["budget"].as_f64().unwrap(), a["N"].as_f64().unwrap());
            assert!(relative(n, eq4(ISSUE_18, c).0) < 1e-12, "{track}");
        }
    }
    // plot frontier: the exponent of the true frontier, β/(α+β) = 0.833, not 0.
    let dir = tempfile::tempdir().unwrap();
    let fit = dir.path().join("fit.json");
    chinchilla("fit")
        .args(&fixed)
        .arg("--json")
        .arg(&fit)
        .assert()
        .success();
    let svg = dir.path().join("frontier.svg");
    scalinglaws()
        .args(["plot", "frontier", "--from", "1e22", "--to", "1e24", "-o"])
        .arg(&svg)
        .arg(&fit)
        .assert()
        .success();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("N* ∝ C^0.833, D* ∝ C^0.167"), "{text}");
    // report: the allocation table and its frontier plot, the same.
    let html = dir.path().join("report.html");
    chinchilla("report")
        .args(&fixed)
        .arg("-o")
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("N* ∝ C^0.833"), "{page}");
    assert!(!page.contains("<td>1.000e16</td>"), "{page}");
}
