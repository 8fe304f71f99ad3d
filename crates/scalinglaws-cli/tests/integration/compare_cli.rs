//! End-to-end tests of `scalinglaws compare`: recipes fitted side by side on the bundled
//! examples/tracks (synthetic; `new` is worth exactly 2× the compute of `baseline`), the
//! report of who wins and by how much, shared parameters in a joint fit, and its input errors
//! (exit code 2, a message naming the offending thing, never a panic).

use crate::common;

use serde_json::Value;

use common::{compare_tracks, fails, pair, root, scalinglaws, stdout_json};

// ---------------------------------------------------------------------------------------------
// compare (issue 6): recipes fitted side by side on examples/tracks (synthetic; `new` is worth
// exactly 2× the compute of `baseline`)
// ---------------------------------------------------------------------------------------------

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
