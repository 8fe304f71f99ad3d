//! End-to-end tests of the `scalinglaws` binary: every subcommand, the Chinchilla reference fit
//! through the command line, the predict round trip, and every input error (exit code 2, a
//! message naming the row, column or character position, never a panic).

use crate::common;

use std::path::Path;

use assert_cmd::prelude::*;
use predicates::prelude::*;
use serde_json::Value;

use common::{relative, root, scalinglaws, stdout_json, CHINCHILLA};

/// Epoch AI's published optimum (Besiroglu et al. 2024).
const EPOCH: [(&str, f64); 5] = [
    ("E", 1.81721),
    ("A", 477.86),
    ("alpha", 0.347315),
    ("B", 2142.56),
    ("beta", 0.367153),
];
const EPOCH_OBJECTIVE: f64 = 0.0010182740;

fn epoch_prediction(n: f64, d: f64) -> f64 {
    1.81721 + 477.86 * n.powf(-0.347315) + 2142.56 * d.powf(-0.367153)
}

fn chinchilla_json() -> Value {
    stdout_json(
        scalinglaws()
            .current_dir(root())
            .args(CHINCHILLA)
            .args(["--json", "-"]),
    )
}

// ---------------------------------------------------------------------------------------------
// laws
// ---------------------------------------------------------------------------------------------

#[test]
fn laws_lists_every_builtin_law_with_formula_and_citation() {
    scalinglaws()
        .arg("laws")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "chinchilla: loss in parameters N and tokens D",
        ))
        .stdout(predicate::str::contains("y = E + A*N^-alpha + B*D^-beta"))
        .stdout(predicate::str::contains("Hoffmann et al. 2022"))
        .stdout(predicate::str::contains("data_constrained"))
        .stdout(predicate::str::contains("Muennighoff et al. 2023"))
        .stdout(predicate::str::contains("bnsl"));
}

#[test]
fn laws_as_json() {
    let listing = stdout_json(scalinglaws().args(["laws", "--json", "-"]));
    let laws = listing["laws"].as_array().expect("a list of laws");
    assert!(laws.len() >= 8, "{listing}");
    let chinchilla = laws
        .iter()
        .find(|law| law["name"] == "chinchilla")
        .expect("chinchilla is listed");
    assert_eq!(chinchilla["formula"], "E + A*N^-alpha + B*D^-beta");
    assert_eq!(chinchilla["variables"], serde_json::json!(["N", "D"]));
    assert_eq!(chinchilla["default_space"], "log");
    assert!(chinchilla["citation"]
        .as_str()
        .unwrap()
        .contains("Hoffmann"));
}

// ---------------------------------------------------------------------------------------------
// fit
// ---------------------------------------------------------------------------------------------

#[test]
fn chinchilla_epoch_protocol_reproduces_the_reference_fit() {
    let fit = chinchilla_json();
    let objective = fit["objective"].as_f64().unwrap();
    assert!(
        relative(objective, EPOCH_OBJECTIVE) < 1e-3,
        "objective {objective:e}"
    );
    for (name, expected) in EPOCH {
        let value = fit["params"][name]["value"].as_f64().unwrap();
        assert!(
            relative(value, expected) < 1e-3,
            "{name} = {value} vs Epoch's {expected}"
        );
    }
    assert_eq!(fit["n_obs"], 240);
    assert_eq!(fit["converged"], true);
}

#[test]
fn fit_json_has_every_documented_key() {
    let fit = chinchilla_json();
    assert_eq!(fit["schema_version"], 1);
    for key in [
        "law",
        "formula",
        "target",
        "variables",
        "n_obs",
        "settings",
        "params",
        "objective",
        "converged",
        "optima",
        "stats",
        "warnings",
    ] {
        assert!(fit.get(key).is_some(), "missing key '{key}' in {fit}");
    }
    assert_eq!(fit["law"], "chinchilla");
    assert_eq!(fit["formula"], "E + A*N^-alpha + B*D^-beta");
    assert_eq!(fit["target"], "loss");
    assert_eq!(fit["variables"]["N"], "Model Size");
    assert_eq!(fit["variables"]["D"], "D=C/(6*N)");
    assert_eq!(fit["settings"]["loss"], "huber");
    assert_eq!(fit["settings"]["space"], "log");
    let params = fit["params"].as_object().unwrap();
    assert_eq!(params.len(), 5);
    for (name, param) in params {
        for key in ["value", "stderr", "at_bound"] {
            assert!(param.get(key).is_some(), "params.{name} lacks '{key}'");
        }
    }
    for key in ["starts", "distinct", "gap"] {
        assert!(fit["optima"].get(key).is_some(), "optima lacks '{key}'");
    }
    for key in ["r2", "rmse", "aic", "bic"] {
        assert!(fit["stats"].get(key).is_some(), "stats lacks '{key}'");
    }
    assert!(fit["warnings"].is_array());
}

#[test]
fn rows_removed_by_where_are_counted() {
    let fit = chinchilla_json();
    let data = &fit["data"];
    assert_eq!(data["rows_read"], 245);
    assert_eq!(data["rows_filtered"], 5);
    assert_eq!(data["filters"], serde_json::json!(["loss < 3.44"]));
    assert_eq!(data["derived"], serde_json::json!(["D=C/(6*N)"]));
    assert_eq!(data["source"], "examples/chinchilla/chinchilla_epoch.csv");
    // Two filters AND together; both are recorded.
    let fit = stdout_json(
        scalinglaws()
            .current_dir(root())
            .args(CHINCHILLA)
            .args(["--where", "N >= 1e8", "--json", "-"]),
    );
    let kept = fit["n_obs"].as_u64().unwrap();
    assert!(kept < 240, "{kept}");
    assert_eq!(fit["data"]["rows_filtered"].as_u64().unwrap(), 245 - kept);
    assert_eq!(fit["data"]["filters"].as_array().unwrap().len(), 2);
}

#[test]
fn human_report_goes_to_stdout() {
    scalinglaws()
        .current_dir(root())
        .args(CHINCHILLA)
        .assert()
        .success()
        .stdout(predicate::str::contains("[[Fit statistics]]"))
        .stdout(predicate::str::contains("[[Parameters]]"))
        .stdout(predicate::str::contains("240 used of 245 read"))
        .stdout(predicate::str::contains("C(B, beta)"));
}

/// The catalog law written as a plain formula (unbounded parameters, the default user grid)
/// finds the same optimum.
#[test]
fn formula_fit_matches_the_catalog_law() {
    let fit = stdout_json(
        scalinglaws()
            .current_dir(root())
            .args(&CHINCHILLA[..2])
            .args(["--formula", "E + A*N^-alpha + B*D^-beta"])
            .args(&CHINCHILLA[4..])
            .args(["--json", "-"]),
    );
    assert_eq!(fit["law"], "formula");
    assert_eq!(fit["settings"]["space"], "log");
    assert_eq!(fit["variables"]["N"], "Model Size");
    let objective = fit["objective"].as_f64().unwrap();
    assert!(
        relative(objective, EPOCH_OBJECTIVE) < 1e-3,
        "objective {objective:e}"
    );
    for (name, expected) in EPOCH {
        let value = fit["params"][name]["value"].as_f64().unwrap();
        assert!(relative(value, expected) < 1e-3, "{name} = {value}");
    }
}

#[test]
fn fit_settings_reach_the_library() {
    let dir = tempfile::tempdir().unwrap();
    write_synthetic(dir.path(), "runs.csv");
    let fit = stdout_json(scalinglaws().current_dir(dir.path()).args([
        "fit",
        "runs.csv",
        "--law",
        "chinchilla",
        "--target",
        "loss",
        "--fix",
        "E=exp(log(1.7))",
        "--bound",
        "alpha=0:inf",
        "--bound",
        "beta=:2",
        "--grid",
        "alpha=0.2,0.4",
        "--grid",
        "beta=exp(-1),0.5",
        "--loss",
        "linear",
        "--space",
        "linear",
        "--seed",
        "7",
        "--threads",
        "1",
        "--json",
        "-",
    ]));
    let settings = &fit["settings"];
    assert_eq!(settings["loss"], "linear");
    assert_eq!(settings["space"], "linear");
    assert_eq!(settings["seed"], 7);
    assert!((settings["fixed"]["E"].as_f64().unwrap() - 1.7).abs() < 1e-12);
    assert_eq!(settings["bounds"]["alpha"]["lower"], 0.0);
    assert_eq!(settings["bounds"]["alpha"]["upper"], Value::Null);
    assert_eq!(settings["bounds"]["beta"]["lower"], Value::Null);
    assert_eq!(settings["bounds"]["beta"]["upper"], 2.0);
    assert_eq!(settings["grids"]["alpha"], serde_json::json!([0.2, 0.4]));
    assert_eq!(fit["params"]["E"]["fixed"], true);
    assert_eq!(fit["optima"]["starts"], 4);
    // Exact synthetic data: the fit recovers the generating parameters.
    for (name, expected) in [("A", 400.0), ("alpha", 0.34), ("B", 410.0), ("beta", 0.28)] {
        let value = fit["params"][name]["value"].as_f64().unwrap();
        assert!(relative(value, expected) < 1e-6, "{name} = {value}");
    }
}

#[test]
fn tsv_jsonl_delimiter_and_weights() {
    let dir = tempfile::tempdir().unwrap();
    let rows = synthetic_rows();
    let mut tsv = String::from("N\tD\tloss\tw\n");
    let mut jsonl = String::new();
    let mut semicolons = String::from("N;D;loss\n");
    for (n, d, loss) in &rows {
        tsv.push_str(&format!("{n}\t{d}\t{loss}\t1\n"));
        jsonl.push_str(&format!(
            "{{\"N\": {n}, \"D\": {d}, \"loss\": {loss}, \"run\": \"r\"}}\n"
        ));
        semicolons.push_str(&format!("{n};{d};{loss}\n"));
    }
    std::fs::write(dir.path().join("runs.tsv"), tsv).unwrap();
    std::fs::write(dir.path().join("runs.jsonl"), jsonl).unwrap();
    std::fs::write(dir.path().join("runs.txt"), semicolons).unwrap();
    for extra in [
        vec!["runs.tsv", "--weights", "w"],
        vec!["runs.jsonl"],
        vec!["runs.txt", "--delimiter", ";"],
    ] {
        let fit = stdout_json(
            scalinglaws()
                .current_dir(dir.path())
                .arg("fit")
                .args(&extra)
                .args(["--law", "chinchilla", "--target", "loss", "--json", "-"]),
        );
        let beta = fit["params"]["beta"]["value"].as_f64().unwrap();
        assert!(relative(beta, 0.28) < 1e-6, "{extra:?}: beta = {beta}");
    }
}

#[test]
fn json_to_a_file_is_written_whole_and_the_report_still_prints() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fit.json");
    scalinglaws()
        .current_dir(root())
        .args(CHINCHILLA)
        .arg("--json")
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("[[Parameters]]"))
        .stderr(predicate::str::contains("wrote"));
    let fit: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(fit["n_obs"], 240);
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["fit.json"], "no temporary file is left behind");
}

#[test]
fn a_fit_that_cannot_be_done_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    write_synthetic(dir.path(), "runs.csv");
    // Log space needs positive predictions; this law is never positive.
    scalinglaws()
        .current_dir(dir.path())
        .args([
            "fit",
            "runs.csv",
            "--formula",
            "0 - b*exp(a*N)",
            "--target",
            "loss",
        ])
        .args(["--bound", "b=0:inf"])
        .assert()
        .code(1)
        .stderr(predicate::str::starts_with("error: fit failed"));
}

// ---------------------------------------------------------------------------------------------
// predict
// ---------------------------------------------------------------------------------------------

#[test]
fn predict_round_trip_from_a_fit_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("chinchilla.json");
    scalinglaws()
        .current_dir(root())
        .args(CHINCHILLA)
        .arg("--json")
        .arg(&path)
        .assert()
        .success();
    let predictions = stdout_json(scalinglaws().arg("predict").arg(&path).args([
        "N=7e10,1e12",
        "D=1.4e12,2e13",
        "--json",
        "-",
    ]));
    let list = predictions["predictions"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    for (entry, (n, d)) in list.iter().zip([(7e10, 1.4e12), (1e12, 2e13)]) {
        assert_eq!(entry["inputs"]["N"], n);
        assert_eq!(entry["inputs"]["D"], d);
        let value = entry["value"].as_f64().unwrap();
        let epoch = epoch_prediction(n, d);
        assert!(relative(value, epoch) < 1e-3, "{value} vs {epoch}");
    }
    // Inputs keep the law's variable order.
    let output = scalinglaws()
        .arg("predict")
        .arg(&path)
        .args(["D=1.4e12", "N=7e10", "--json", "-"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.find("\"N\"") < text.find("\"D\""), "{text}");
    // A single value broadcasts; the table names the target.
    scalinglaws()
        .arg("predict")
        .arg(&path)
        .args(["N=7e10", "D=1e11,1.4e12"])
        .assert()
        .success()
        .stdout(predicate::str::contains("loss"))
        .stdout(predicate::str::contains("1.4e12"))
        .stdout(predicate::str::contains("1.97"));
}

#[test]
fn predict_input_errors_name_the_variables() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fit.json");
    write_synthetic(dir.path(), "runs.csv");
    scalinglaws()
        .current_dir(dir.path())
        .args([
            "fit",
            "runs.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--json",
        ])
        .arg(&path)
        .assert()
        .success();
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["N=1e9"],
            &["no value for D", "a value of every variable: N, D"],
        ),
        (
            &["N=1e9", "D=1e10", "Q=3"],
            &["'Q' is not a variable", "N, D"],
        ),
        (
            &["N=1e9,2e9", "D=1e10,2e10,3e10"],
            &["N has 2 values but D has 3"],
        ),
        (&["N=0", "D=1e10"], &["N must be positive"]),
        (&["N=1e9", "D=(1"], &["character 5", "D=(1\n      ^"]),
        (&["N=1e9", "N=2e9", "D=1"], &["'N' is given twice"]),
        (&["N", "D=1"], &["VAR=VALUE"]),
    ];
    for (arguments, expected) in cases {
        let assert = scalinglaws()
            .arg("predict")
            .arg(&path)
            .args(*arguments)
            .assert()
            .code(2);
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        for needle in *expected {
            assert!(stderr.contains(needle), "{arguments:?}: {stderr}");
        }
    }
    // Not a fit file, and no file at all.
    let bogus = dir.path().join("bogus.json");
    std::fs::write(&bogus, "{\"hello\": 1}").unwrap();
    scalinglaws()
        .arg("predict")
        .arg(&bogus)
        .arg("N=1")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("schema_version"));
    scalinglaws()
        .arg("predict")
        .arg(dir.path().join("missing.json"))
        .arg("N=1")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.json"));
}

// ---------------------------------------------------------------------------------------------
// Input errors: exit code 2, the place of the problem, never a panic
// ---------------------------------------------------------------------------------------------

/// (N, D, loss) rows of an exact Chinchilla law, enough for a 5-parameter fit.
fn synthetic_rows() -> Vec<(f64, f64, f64)> {
    let mut rows = Vec::new();
    for n in [1e7, 3e7, 1e8, 3e8, 1e9] {
        for d in [1e9, 3e9, 1e10] {
            let loss: f64 = 1.7 + 400.0 * f64::powf(n, -0.34) + 410.0 * f64::powf(d, -0.28);
            rows.push((n, d, loss));
        }
    }
    rows
}

fn write_synthetic(dir: &Path, name: &str) {
    let mut text = String::from("N,D,loss\n");
    for (n, d, loss) in synthetic_rows() {
        text.push_str(&format!("{n},{d},{loss}\n"));
    }
    std::fs::write(dir.join(name), text).unwrap();
}

/// Runs `fit FILE ARGS` on `contents` written to `file` in a fresh directory; asserts exit code
/// 2, an `error:` line, every `expected` piece, and no panic.
fn fit_fails(file: &str, contents: &str, args: &[&str], expected: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(file), contents).unwrap();
    let output = scalinglaws()
        .current_dir(dir.path())
        .args(["fit", file])
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{args:?} should exit 2; stderr: {stderr}"
    );
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for needle in expected {
        assert!(
            stderr.contains(needle),
            "{args:?}: expected {needle:?} in: {stderr}"
        );
    }
}

const GOOD: &str = "N,D,loss\n1e9,1e10,2.5\n2e9,2e10,2.4\n3e9,3e10,2.3\n4e9,4e10,2.2\n5e9,5e10,2.1\n6e9,6e10,2.05\n";
const CHINCHILLA_ARGS: &[&str] = &["--law", "chinchilla", "--target", "loss"];

#[test]
fn missing_column_with_did_you_mean() {
    fit_fails(
        "runs.csv",
        GOOD,
        &["--law", "chinchilla", "--target", "lss"],
        &[
            "runs.csv, column 'lss'",
            "did you mean 'loss'?",
            "'N', 'D', 'loss'",
        ],
    );
    fit_fails(
        "runs.csv",
        "Model Size,D,loss\n1,2,3\n",
        &[
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--map",
            "N=Model Siz",
        ],
        &["column 'Model Siz'", "did you mean 'Model Size'?"],
    );
}

#[test]
fn missing_law_variable_suggests_map_or_derive() {
    fit_fails(
        "runs.csv",
        "params,D,loss\n1,2,3\n",
        CHINCHILLA_ARGS,
        &[
            "column 'N'",
            "variable 'N'",
            "--map N=COLUMN",
            "--derive N=EXPR",
        ],
    );
}

/// A 50 MB cell was quoted whole (a 52 MB line of stderr): long cells and column names are
/// cut, with their length stated.
#[test]
fn long_cells_and_names_are_cut_in_messages() {
    let cell = "x".repeat(200_000);
    let name = "n".repeat(100_000);
    let cases = [
        (
            format!("N,D,loss\n1e9,1e10,2.5\n2e9,{cell},2.4\n"),
            "(200,000 characters) is not a number",
        ),
        (
            format!("N,D,loss,{name},{name}\n1e9,1e10,2.5,1,1\n"),
            "(100,000 characters)' twice",
        ),
    ];
    for (contents, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("runs.csv"), contents).unwrap();
        let output = scalinglaws()
            .current_dir(dir.path())
            .args(["fit", "runs.csv"])
            .args(CHINCHILLA_ARGS)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{}",
            &stderr[..stderr.len().min(500)]
        );
        assert!(
            stderr.len() < 1000,
            "{} bytes: {}",
            stderr.len(),
            &stderr[..500]
        );
        assert!(stderr.contains(expected), "{stderr}");
    }
}

#[test]
fn non_numeric_cell() {
    fit_fails(
        "runs.csv",
        "N,D,loss\n1e9,1e10,2.5\n2e9,abc,2.4\n",
        CHINCHILLA_ARGS,
        &[
            "runs.csv, row 2 (line 3), column 'D'",
            "\"abc\" is not a number",
        ],
    );
}

#[test]
fn nan_and_inf_cells() {
    fit_fails(
        "runs.csv",
        "N,D,loss\n1e9,1e10,2.5\n2e9,NaN,2.4\n",
        CHINCHILLA_ARGS,
        &["row 2 (line 3), column 'D'", "not a finite number"],
    );
    fit_fails(
        "runs.csv",
        "N,D,loss\n1e9,1e10,2.5\n2e9,2e10,inf\n",
        CHINCHILLA_ARGS,
        &[
            "row 2 (line 3), column 'loss'",
            "inf is not a finite number",
        ],
    );
}

#[test]
fn zero_or_negative_value_under_a_log() {
    // The target in log space.
    fit_fails(
        "runs.csv",
        "N,D,loss\n1e9,1e10,2.5\n2e9,2e10,0\n",
        CHINCHILLA_ARGS,
        &[
            "row 2 (line 3), column 'loss'",
            "0 is not positive",
            "log(loss)",
            "--space linear",
        ],
    );
    // A law variable raised to a fitted power, named by its column through --map.
    fit_fails(
        "runs.csv",
        "params,D,loss\n1e9,1e10,2.5\n2e9,2e10,2.4\n-3e9,3e10,2.3\n",
        &[
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--map",
            "N=params",
        ],
        &[
            "row 3 (line 4), column 'params'",
            "is not positive",
            "raises N to a fitted power",
        ],
    );
    // Under log() in a user formula.
    fit_fails(
        "runs.csv",
        "x,y\n1,2\n0,3\n2,4\n",
        &["--formula", "a + b*log(x)", "--target", "y"],
        &["row 2 (line 3), column 'x'", "takes log(x)"],
    );
    // Inside m4root (NaN below 0), as the M4 learning curve uses it.
    fit_fails(
        "runs.csv",
        "x,y\n1,0.5\n2,0.4\n-3,0.3\n4,0.25\n5,0.2\n6,0.18\n",
        &["--formula", "E + m4root(x, a)", "--target", "y"],
        &[
            "row 3 (line 4), column 'x'",
            "-3 is not positive",
            "passes x to m4root, whose arguments must be positive",
        ],
    );
}

#[test]
fn fewer_rows_than_parameters() {
    fit_fails(
        "runs.csv",
        "N,D,loss\n1e9,1e10,2.5\n2e9,2e10,2.4\n",
        CHINCHILLA_ARGS,
        &[
            "runs.csv",
            "2 rows",
            "fewer than the 5 free parameters",
            "--fix",
        ],
    );
    // Counting after --where, which is mentioned.
    fit_fails(
        "runs.csv",
        GOOD,
        &[
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--where",
            "loss > 2.35",
        ],
        &["2 rows", "4 removed by --where"],
    );
}

#[test]
fn empty_file_and_header_only() {
    fit_fails(
        "runs.csv",
        "",
        CHINCHILLA_ARGS,
        &["runs.csv", "no data rows", "empty"],
    );
    fit_fails(
        "runs.csv",
        "N,D,loss\n",
        CHINCHILLA_ARGS,
        &["runs.csv", "no data rows"],
    );
    fit_fails(
        "runs.jsonl",
        "\n",
        CHINCHILLA_ARGS,
        &["runs.jsonl", "no data rows"],
    );
}

#[test]
fn ragged_row() {
    fit_fails(
        "runs.csv",
        "N,D,loss\n1e9,1e10,2.5\n2e9,2e10\n",
        CHINCHILLA_ARGS,
        &[
            "runs.csv, row 2 (line 3)",
            "the row has 2 fields but the header has 3",
        ],
    );
}

#[test]
fn bad_json_lines() {
    fit_fails(
        "runs.jsonl",
        "{\"N\": 1, \"D\": 2, \"loss\": 3}\n{\"N\": 1, \"D\": }\n",
        CHINCHILLA_ARGS,
        &["runs.jsonl, row 2 (line 2)", "not valid JSON"],
    );
}

#[test]
fn unknown_extension_suggests_delimiter() {
    fit_fails(
        "runs.txt",
        GOOD,
        CHINCHILLA_ARGS,
        &["runs.txt", "--delimiter"],
    );
    fit_fails(
        "runs.txt",
        GOOD,
        &[
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--delimiter",
            ";;",
        ],
        &["--delimiter ';;'", "one character"],
    );
}

#[test]
fn missing_data_file() {
    let dir = tempfile::tempdir().unwrap();
    scalinglaws()
        .current_dir(dir.path())
        .args(["fit", "nowhere.csv"])
        .args(CHINCHILLA_ARGS)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nowhere.csv"));
}

#[test]
fn formula_syntax_error_shows_its_position() {
    fit_fails(
        "runs.csv",
        GOOD,
        &["--formula", "E + A*N^-alpha + B*D^", "--target", "loss"],
        &[
            "--formula",
            "character 22",
            "  E + A*N^-alpha + B*D^\n                       ^",
        ],
    );
    fit_fails(
        "runs.csv",
        GOOD,
        &["--formula", "E + A*N^-alpha $ 2", "--target", "loss"],
        &["character 16", "unexpected character '$'"],
    );
}

#[test]
fn unknown_law_with_did_you_mean() {
    fit_fails(
        "runs.csv",
        GOOD,
        &["--law", "chinchila", "--target", "loss"],
        &[
            "unknown law 'chinchila'",
            "did you mean 'chinchilla'?",
            "scalinglaws laws",
        ],
    );
}

#[test]
fn unknown_fix_parameter() {
    fit_fails(
        "runs.csv",
        GOOD,
        &["--law", "chinchilla", "--target", "loss", "--fix", "Ee=1.7"],
        &["--fix", "'Ee'", "did you mean 'E'?", "E, A, alpha, B, beta"],
    );
    fit_fails(
        "runs.csv",
        GOOD,
        &["--law", "chinchilla", "--target", "loss", "--fix", "E=1.7*"],
        &["--fix 'E=1.7*'", "character 7"],
    );
}

#[test]
fn malformed_where() {
    fit_fails(
        "runs.csv",
        GOOD,
        &[
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--where",
            "loss 3.44",
        ],
        &[
            "--where",
            "character 10",
            "expected a comparison",
            "< <= > >= == !=",
        ],
    );
    fit_fails(
        "runs.csv",
        GOOD,
        &[
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--where",
            "loss = 3.44",
        ],
        &["character 6", "'=='"],
    );
    fit_fails(
        "runs.csv",
        GOOD,
        &[
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--where",
            "loss < (3",
        ],
        &["character 10", "')'"],
    );
    fit_fails(
        "runs.csv",
        GOOD,
        &[
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--where",
            "los < 3",
        ],
        &[
            "character 1",
            "'los' is not a column",
            "did you mean 'loss'?",
        ],
    );
    fit_fails(
        "runs.csv",
        GOOD,
        &[
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--where",
            "loss > 100",
        ],
        &["removed all 6 rows"],
    );
}

#[test]
fn bad_bound() {
    let fails = |bound: &str, expected: &[&str]| {
        fit_fails(
            "runs.csv",
            GOOD,
            &["--law", "chinchilla", "--target", "loss", "--bound", bound],
            expected,
        )
    };
    fails("E=0", &["--bound 'E=0'", "NAME=LO:HI"]);
    fails(
        "E=2:1",
        &[
            "--bound 'E=2:1'",
            "lower bound 2 must be below the upper bound 1",
        ],
    );
    fails("E=a:1", &["--bound 'E=a:1'", "character 3"]);
    fails("Q=0:1", &["--bound", "'Q'", "not a parameter"]);
    fails("2=0:1", &["--bound '2=0:1'", "not a name"]);
}

#[test]
fn bad_grid() {
    fit_fails(
        "runs.csv",
        GOOD,
        &[
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--grid",
            "alpha=0.1,,0.3",
        ],
        &["--grid 'alpha=0.1,,0.3'", "character 11"],
    );
}

#[test]
fn derive_errors_name_position_and_row() {
    // An unknown name in the expression: its position.
    fit_fails(
        "runs.csv",
        "Model Size,C,loss\n1e9,1e19,2.5\n",
        &[
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--map",
            "N=Model Size",
            "--derive",
            "D=Cc/(6*N)",
        ],
        &["--derive", "character 3", "'Cc' is not a column"],
    );
    // A column with a space used directly: the hint says to --map it.
    fit_fails(
        "runs.csv",
        "Model Size,C,loss\n1e9,1e19,2.5\n",
        &[
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--derive",
            "D=C/(6*Model)",
        ],
        &["character 8", "--map VAR=\"Model Size\""],
    );
    // A result that is not finite: the row and the inputs.
    fit_fails(
        "runs.csv",
        "N,C,loss\n1e9,1e19,2.5\n0,2e19,2.4\n",
        &[
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--derive",
            "D=C/(6*N)",
        ],
        &["row 2 (line 3), column 'D'", "D=C/(6*N) gives inf", "N = 0"],
    );
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    write_synthetic(dir.path(), "runs.csv");
    for args in [
        vec!["fit", "runs.csv", "--law", "chinchilla"],
        vec!["fit", "runs.csv", "--target", "loss"],
        vec![
            "fit",
            "runs.csv",
            "--law",
            "chinchilla",
            "--formula",
            "a*N",
            "--target",
            "loss",
        ],
        vec![
            "fit",
            "runs.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--loss",
            "hubber",
        ],
        vec![
            "fit",
            "runs.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--threads",
            "0",
        ],
        vec![
            "fit",
            "runs.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--map",
            "N",
        ],
        vec![
            "fit",
            "runs.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--f-scale",
            "-1",
        ],
        vec!["predict"],
        vec!["frobnicate"],
    ] {
        let output = scalinglaws()
            .current_dir(dir.path())
            .args(&args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("error"), "{args:?}: {stderr}");
    }
}

#[test]
fn deeply_nested_formula_is_an_error_not_a_crash() {
    let deep = format!("{}N{}", "(".repeat(10_000), ")".repeat(10_000));
    fit_fails(
        "runs.csv",
        GOOD,
        &["--formula", &format!("a*{deep}"), "--target", "loss"],
        &["nests deeper than"],
    );
}

#[test]
fn predict_outside_the_laws_domain_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    write_synthetic(dir.path(), "runs.csv");
    let fit = dir.path().join("fit.json");
    scalinglaws()
        .current_dir(dir.path())
        .args([
            "fit",
            "runs.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--json",
        ])
        .arg(&fit)
        .assert()
        .success();
    let output = scalinglaws()
        .arg("predict")
        .arg(&fit)
        .args(["N=-5", "D=1e10"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("N must be positive"), "{stderr}");
    // A law whose domain is not a simple sign condition: (x - 1)^-a is undefined below x = 1.
    let formula_fit = dir.path().join("formula.json");
    scalinglaws()
        .current_dir(dir.path())
        .args([
            "fit",
            "runs.csv",
            "--formula",
            "E + A*(N/1e7 - 0.5)^-a",
            "--target",
            "loss",
            "--json",
        ])
        .arg(&formula_fit)
        .assert()
        .success();
    let output = scalinglaws()
        .arg("predict")
        .arg(&formula_fit)
        .arg("N=1e6")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("the law is undefined at N=1000000"),
        "{stderr}"
    );
}

#[test]
fn law_names_are_trimmed_before_choosing_the_residual_space() {
    let dir = tempfile::tempdir().unwrap();
    let rows: String = (0..20)
        .map(|i| {
            let x = 2.0 + 2.0 * f64::from(i) / 19.0;
            format!("{x},{}\n", 0.25 + 0.65 / (1.0 + (3.0 * (x - 2.8)).exp()))
        })
        .collect();
    std::fs::write(dir.path().join("acc.csv"), format!("x,acc\n{rows}")).unwrap();
    let fit = stdout_json(scalinglaws().current_dir(dir.path()).args([
        "fit",
        "acc.csv",
        "--law",
        " logistic ",
        "--target",
        "acc",
        "--json",
        "-",
    ]));
    assert_eq!(fit["settings"]["space"], "linear");
}

/// A flag of another command is named as such, not answered with clap's guess of a look-alike
/// (`--budget` → `--bound`) or its "use '-- -o'" (issue 52); a law's values in a fit's `--law`
/// point to `--fix`.
#[test]
fn misplaced_flags_and_values_say_where_they_belong() {
    let fit = ["fit", "runs.csv", "--law", "chinchilla", "--target", "loss"];
    common::fails(
        scalinglaws().args(fit).args(["--budget", "1e23"]),
        &[
            "'--budget' for `scalinglaws fit`",
            "`optimal`",
            "scalinglaws fit --help",
        ],
    );
    common::fails(
        scalinglaws().args(fit).args(["-o", "report.html"]),
        &["'-o' for `scalinglaws fit`", "other commands"],
    );
    common::fails(
        scalinglaws().args([
            "predict",
            "fit.json",
            "N=1e9",
            "D=2e10",
            "--bootstrap",
            "100",
        ]),
        &[
            "'--bootstrap' for `scalinglaws predict`",
            "an option of `fit`",
            "scalinglaws predict --help",
        ],
    );
    common::fails(
        common::scalinglaws_in_root().args(CHINCHILLA.iter().map(|a| match *a {
            "chinchilla" => "chinchilla[E=1.7]",
            other => other,
        })),
        &[
            "give the law's name alone ('chinchilla')",
            "--fix \"E=1.7\"",
        ],
    );
}
