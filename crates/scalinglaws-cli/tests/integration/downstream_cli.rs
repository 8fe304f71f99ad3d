//! `scalinglaws downstream` through the command line: a backtest on the bundled Pythia evals
//! writes its scores as JSON, a forecast at a new model gives every informative task a value
//! inside its interval, and bad input is refused with exit 2 naming the option, row or column.

use crate::common;

use common::{fails, scalinglaws_in_root};

const PYTHIA: &str = "examples/downstream/pythia_zero_shot.csv";

fn downstream(extra: &[&str]) -> std::process::Command {
    let mut command = scalinglaws_in_root();
    command.args([
        "downstream",
        PYTHIA,
        "--target",
        "accuracy",
        "--size",
        "params",
        "--tokens",
        "tokens",
        "--trials",
        "questions",
        "--chance",
        "chance",
        "--loss",
        "loss",
    ]);
    command.args(extra);
    command
}

#[test]
fn a_backtest_scores_every_method_in_its_json() {
    let output = downstream(&["--holdout", "pythia-12b,pythia-12b-deduped", "--json", "-"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let methods: Vec<&str> = result["scores"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["method"].as_str().unwrap())
        .collect();
    assert_eq!(methods, ["logistic", "two_stage", "pooled"]);
    for s in result["scores"].as_array().unwrap() {
        let mae = s["mae"].as_f64().unwrap();
        assert!(mae > 0.0 && mae < 20.0, "{s}");
    }
    let at_chance = result["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["shape"] == "at_chance")
        .count();
    assert!(at_chance > 0);
    assert!(result["forecasts"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["observed"].is_number()));
}

/// `--threads` above a few per core is capped with the one warning every command gives.
#[test]
fn threads_beyond_a_few_per_core_warn_once() {
    let output = downstream(&["--at", "N=3e10,D=6e11", "--threads", "100000"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("warning: --threads 100000").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn a_new_model_gets_a_forecast_inside_its_interval() {
    let output = downstream(&["--at", "N=3e10,D=6e11", "--json", "-"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let forecasts = result["forecasts"].as_array().unwrap();
    assert!(!forecasts.is_empty());
    for f in forecasts {
        let p = &f["pooled"];
        let (v, lo, hi) = (
            p["value"].as_f64().unwrap(),
            p["interval"][0].as_f64().unwrap(),
            p["interval"][1].as_f64().unwrap(),
        );
        assert!(
            (0.0..=1.0).contains(&lo) && lo <= v && v <= hi && hi <= 1.0,
            "{f}"
        );
        assert_eq!(f["mode"], "across_sizes");
    }
}

#[test]
fn bad_input_is_refused_naming_what_to_fix() {
    fails(&mut downstream(&[]), &["--at", "--holdout"]);
    fails(
        &mut downstream(&["--holdout", "pythia-13b"]),
        &["--holdout", "pythia-12b"],
    );
    fails(
        &mut downstream(&["--at", "N=1e9"]),
        &["--at", "both N and D"],
    );
    fails(
        &mut downstream(&["--at", "N=-1,D=1e9"]),
        &["--at", "positive"],
    );
    // A data model's N under a misspelt name is that model, not a new one (issue 50).
    fails(
        &mut downstream(&["--at", "N=1414647808,D=3e11,model=pythia-1.4B"]),
        &["--at", "'pythia-1.4b' has its N", "name it exactly"],
    );
    fails(
        &mut downstream(&["--holdout", "pythia-12b", "--own-until", "1e3"]),
        &["--own-until"],
    );
    fails(
        &mut downstream(&["--holdout", "pythia-12b", "--anchors", "1"]),
        &["--anchors"],
    );
    fails(
        &mut downstream(&["--holdout", "pythia-12b", "--chance", "1.5"]),
        &["--chance"],
    );
    let mut command = scalinglaws_in_root();
    command.args([
        "downstream",
        PYTHIA,
        "--target",
        "accuracy",
        "--size",
        "params",
        "--holdout",
        "pythia-12b",
    ]);
    fails(&mut command, &["'D'", "--tokens"]);
}

#[test]
fn a_non_positive_token_count_names_its_row() {
    let dir = std::env::temp_dir().join(format!("downstream_cli_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("evals.csv");
    std::fs::write(
        &file,
        "model,N,D,task,accuracy\nm1,1e8,0,t,0.3\nm1,1e8,1e9,t,0.4\n",
    )
    .unwrap();
    let mut command = scalinglaws_in_root();
    command.args([
        "downstream",
        file.to_str().unwrap(),
        "--target",
        "accuracy",
        "--at",
        "N=1e9,D=1e10",
    ]);
    fails(&mut command, &["row 1", "'D'"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_plot_has_a_panel_per_informative_task() {
    let dir = std::env::temp_dir().join(format!("downstream_plot_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("tasks.svg");
    let output = downstream(&["--holdout", "pythia-12b", "--plot", svg.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.starts_with("<svg") || text.starts_with("<?xml"),
        "{}",
        &text[..80.min(text.len())]
    );
    for task in ["arc_easy (monotone)", "lambada_openai (monotone)", "piqa"] {
        assert!(text.contains(task), "{task} missing");
    }
    assert!(!text.contains("wsc ("), "an at-chance task has no panel");
    let _ = std::fs::remove_dir_all(&dir);
}
