//! `optimal` and `compare` report the prediction interval of a new run's loss at the
//! compute-optimal allocation calibrated beyond the data (issue 17), the fit's own beside it:
//! on the bundled Chinchilla fit (`optimal`) and the bundled two-recipe tracks (`compare`), the
//! calibrated interval is wider than the fit's own beyond the data, and with `--no-calibration`
//! the output says it is not calibrated and why.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use common::{pair, root, scalinglaws, stdout, stdout_json, CHINCHILLA};

/// The README's Chinchilla fit (plus `extra`) written to a fresh directory.
fn chinchilla_fit(extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fit.json");
    stdout(
        scalinglaws()
            .current_dir(root())
            .args(CHINCHILLA)
            .args(extra)
            .arg("--json")
            .arg(&path),
    );
    (dir, path)
}

/// `compare` on the bundled two-recipe example at a budget about 1.7 decades beyond its
/// largest run (1.9e23 FLOPs).
fn compare(extra: &[&str]) -> Command {
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
        "--budget",
        "1e20,1e25",
    ]);
    command.args(extra);
    command
}

/// An allocation's calibrated interval holds its loss and, beyond the data, holds the fit's
/// own strictly inside it; returns its width over the fit's own.
fn widened(allocation: &Value) -> f64 {
    let loss = allocation["loss"].as_f64().unwrap();
    let [lo, hi] = pair(&allocation["pi"]);
    let [flo, fhi] = pair(&allocation["pi_fit"]);
    assert!(lo < loss && loss < hi, "{allocation}");
    assert_eq!(allocation["calibrated"], true, "{allocation}");
    assert!(
        allocation["distance_decades"].as_f64().unwrap() > 0.5,
        "{allocation}"
    );
    assert!(
        lo < flo && fhi < hi,
        "calibrated {lo}..{hi} vs fit's {flo}..{fhi}"
    );
    (hi - lo) / (fhi - flo)
}

/// The interval is the fit's own: `pi` equals `pi_fit`, and no allocation says calibrated.
fn unwidened(allocation: &Value) {
    let [lo, hi] = pair(&allocation["pi"]);
    let [flo, fhi] = pair(&allocation["pi_fit"]);
    assert!((lo - flo).abs() <= 1e-12 * flo.abs() && (hi - fhi).abs() <= 1e-12 * fhi.abs());
    assert!(allocation.get("calibrated").is_none_or(|c| c == false));
}

#[test]
fn optimal_widens_the_loss_interval_beyond_the_data_by_the_fits_calibration() {
    let (_dir, path) = chinchilla_fit(&[]);
    let frontier = stdout_json(scalinglaws().arg("optimal").arg(&path).args([
        "--budget",
        "5.88e23,1e25",
        "--json",
        "-",
    ]));
    let note = &frontier["prediction_intervals"];
    assert_eq!(note["calibrated"], true, "{note}");
    assert!(note["method"].as_str().unwrap().contains("rolling-origin"));
    assert_eq!(note["by"], "C");
    let ratios: Vec<f64> = frontier["allocations"]
        .as_array()
        .unwrap()
        .iter()
        .map(widened)
        .collect();
    // Farther beyond the data, wider still relative to the fit's own.
    assert!(ratios[1] > ratios[0] && ratios[0] > 1.2, "{ratios:?}");
    let text = stdout(
        scalinglaws()
            .arg("optimal")
            .arg(&path)
            .args(["--budget", "1e25"]),
    );
    for needle in [
        "loss pi",
        "fit's pi",
        "decades out",
        "regime",
        "cross-study prior",
        "the fit's own",
    ] {
        assert!(text.contains(needle), "{needle:?} in {text}");
    }
}

#[test]
fn optimal_of_a_fit_without_calibration_says_its_interval_is_not_calibrated() {
    let (_dir, path) = chinchilla_fit(&["--no-calibration"]);
    let frontier = stdout_json(
        scalinglaws()
            .arg("optimal")
            .arg(&path)
            .args(["--budget", "1e25", "--json", "-"]),
    );
    let note = &frontier["prediction_intervals"];
    assert_eq!(note["calibrated"], false, "{note}");
    assert!(note["reason"].as_str().unwrap().contains("no calibration"));
    unwidened(&frontier["allocations"][0]);
    let text = stdout(
        scalinglaws()
            .arg("optimal")
            .arg(&path)
            .args(["--budget", "1e25"]),
    );
    assert!(text.contains("not calibrated beyond the data"), "{text}");
    assert!(!text.contains("fit's pi"), "{text}");
}

#[test]
fn optimal_with_given_parameters_has_no_prediction_interval() {
    let frontier = stdout_json(scalinglaws().args([
        "optimal",
        "--law",
        "chinchilla[E=1.69,A=406.4,alpha=0.336,B=410.7,beta=0.283]",
        "--budget",
        "1e24",
        "--json",
        "-",
    ]));
    assert!(frontier.get("prediction_intervals").is_none());
    assert!(frontier["allocations"][0].get("pi").is_none());
}

#[test]
fn compare_calibrates_each_tracks_interval_beyond_the_data() {
    let comparison = stdout_json(&mut compare(&["--json", "-"]));
    for track in comparison["tracks"].as_array().unwrap() {
        let note = &track["prediction_intervals"];
        assert_eq!(note["calibrated"], true, "{note}");
        assert!(note["method"].as_str().unwrap().contains("rolling-origin"));
        // 1e20 lies inside the data: nothing to widen there.
        let inside = &track["allocations"][0];
        assert!(
            inside["distance_decades"].as_f64().unwrap() < 1e-9,
            "{inside}"
        );
        // Beyond the data the interval adds the law's form error to the fit's own: wider, and
        // holding the prediction (not necessarily the fit's own interval: the form error has a
        // sign, most laws predict a higher loss than the larger runs reach).
        let beyond = &track["allocations"][1];
        let [lo, hi] = pair(&beyond["pi"]);
        let [flo, fhi] = pair(&beyond["pi_fit"]);
        let loss = beyond["loss"].as_f64().unwrap();
        assert_eq!(beyond["calibrated"], true, "{beyond}");
        assert!(
            beyond["distance_decades"].as_f64().unwrap() > 0.5,
            "{beyond}"
        );
        assert!(
            hi - lo > fhi - flo && lo < loss && loss < hi,
            "calibrated {lo}..{hi} vs fit's {flo}..{fhi} around {loss}"
        );
    }
    let text = stdout(&mut compare(&["--bootstrap", "20"]));
    for needle in [
        "loss pi",
        "fit's pi",
        "cross-study prior",
        "a confidence interval of the law's mean",
    ] {
        assert!(text.contains(needle), "{needle:?} in {text}");
    }
}

#[test]
fn compare_with_shared_parameters_calibrates_the_joint_fit() {
    let comparison = stdout_json(&mut compare(&["--shared", "E,alpha,beta", "--json", "-"]));
    for track in comparison["tracks"].as_array().unwrap() {
        assert_eq!(track["prediction_intervals"]["calibrated"], true, "{track}");
        widened(&track["allocations"][1]);
    }
}

#[test]
fn compare_without_calibration_says_its_intervals_are_not_calibrated() {
    let comparison = stdout_json(&mut compare(&["--no-calibration", "--json", "-"]));
    for track in comparison["tracks"].as_array().unwrap() {
        assert_eq!(
            track["prediction_intervals"]["calibrated"], false,
            "{track}"
        );
        unwidened(&track["allocations"][1]);
    }
    let text = stdout(&mut compare(&["--no-calibration"]));
    assert!(text.contains("not calibrated beyond the data"), "{text}");
    let output = compare(&["--no-calibration", "--by", "N"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    // The library's rule, worded for the command line (it was clap's `conflicts_with`).
    assert!(
        stderr.contains(
            "--by N orders scale for the calibration, and --no-calibration turns it off: drop one"
        ),
        "{stderr}"
    );
}
