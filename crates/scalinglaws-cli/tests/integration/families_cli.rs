//! `--family`, `--trials`, `--exposure`, `--nu` and `--dispersion` through the command line:
//! the report names the family and its fitted dispersion, the saved fit carries them, options
//! that do not combine are refused with exit 2 naming the option, and commands without a
//! family refuse the options instead of ignoring them.

use crate::common;

use common::{fails, scalinglaws_in_root, CHINCHILLA};

const NEURONS: &str = "examples/families/neurons.csv";

fn neurons(extra: &[&str]) -> std::process::Command {
    let mut command = scalinglaws_in_root();
    command.args([
        "fit",
        NEURONS,
        "--law",
        "count_power",
        "--map",
        "N=params",
        "--target",
        "rosetta",
    ]);
    command.args(extra);
    command
}

#[test]
fn a_family_fit_reports_its_likelihood_and_dispersion() {
    let output = neurons(&["--family", "negative_binomial", "--json", "-"])
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let fit: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(fit["family"]["name"], "negative_binomial");
    assert_eq!(fit["family"]["dispersion"][0], "alpha");
    assert_eq!(fit["covariance_kind"], "hessian");
    let calibration = &fit["calibration"];
    assert_eq!(calibration["calibrated"], false);
    assert!(calibration["reason"]
        .as_str()
        .unwrap()
        .contains("negative_binomial"));
    let text = neurons(&["--family", "poisson", "--no-calibration"])
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&text.stdout);
    assert!(
        report.contains("negative log-likelihood, poisson family of counts"),
        "{report}"
    );
}

#[test]
fn options_that_do_not_combine_are_refused() {
    fails(
        &mut neurons(&["--family", "poisson", "--loss", "linear"]),
        &["--loss"],
    );
    fails(
        &mut neurons(&["--family", "poison"]),
        &["--family poison", "did you mean 'poisson'"],
    );
    fails(
        &mut neurons(&["--family", "poisson", "--space", "log"]),
        &["--space linear"],
    );
    fails(
        &mut neurons(&["--family", "poisson", "--trials", "10"]),
        &["--trials"],
    );
    fails(
        &mut neurons(&["--family", "poisson", "--nu", "4"]),
        &["--nu"],
    );
    fails(
        &mut neurons(&["--family", "binomial"]),
        &["--trials COLUMN"],
    );
    fails(
        &mut neurons(&["--family", "negative_binomial", "--dispersion=-1"]),
        &["--dispersion -1"],
    );
    fails(
        &mut neurons(&["--family", "poisson", "--exposure", "nope"]),
        &["--exposure", "nope"],
    );
}

#[test]
fn commands_without_a_family_refuse_its_options() {
    let mut command = scalinglaws_in_root();
    command.args([
        "select",
        NEURONS,
        "--law",
        "count_power",
        "--law",
        "power",
        "--map",
        "N=params",
        "--map",
        "x=params",
        "--target",
        "rosetta",
        "--family",
        "poisson",
    ]);
    fails(&mut command, &["--family"]);
}

/// The epoch data, fitted with a residual scale that varies with compute.
fn heteroscedastic(extra: &[&str]) -> std::process::Command {
    let mut command = scalinglaws_in_root();
    command.args(CHINCHILLA);
    command.args(["--heteroscedastic", "C", "--no-calibration", "--json", "-"]);
    command.args(extra);
    command
}

#[test]
fn the_gaussian_family_takes_a_variance_model_and_other_families_refuse_it() {
    let run = |extra: &[&str]| {
        let output = heteroscedastic(extra).output().unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap()
    };
    // The gaussian family is least squares: the same fit as --loss linear.
    let gaussian = run(&["--family", "gaussian"]);
    let linear = run(&["--loss", "linear"]);
    for name in ["E", "A", "alpha", "B", "beta"] {
        let (a, b) = (
            gaussian["params"][name]["value"].as_f64().unwrap(),
            linear["params"][name]["value"].as_f64().unwrap(),
        );
        assert!((a - b).abs() <= 1e-9 * b.abs(), "{name}: {a} vs {b}");
    }
    let (a, b) = (
        gaussian["variance"]["s"].as_f64().unwrap(),
        linear["variance"]["s"].as_f64().unwrap(),
    );
    assert!((a - b).abs() <= 1e-9 * b.abs().max(1e-3), "s: {a} vs {b}");
    fails(
        &mut heteroscedastic(&["--family", "poisson"]),
        &["--heteroscedastic C", "poisson", "--family gaussian"],
    );
}
