//! `--family`, `--trials`, `--exposure`, `--nu` and `--dispersion` through the command line:
//! the report names the family and its fitted dispersion, the saved fit carries them, options
//! that do not combine are refused with exit 2 naming the option, and commands without a
//! family refuse the options instead of ignoring them.

mod common;

use common::{fails, scalinglaws_in_root};

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
