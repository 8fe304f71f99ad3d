//! End-to-end tests of `scalinglaws compare-laws` on the bundled Chinchilla data (the README's
//! data and columns): Epoch AI's likelihood-ratio test against Hoffmann et al.'s published
//! fit, a backtest of each law, the table, and its input errors (exit code 2, a message naming
//! the offending thing, never a panic; exit code 1 when no law can be fitted).

use crate::common;

use std::process::Command;

use assert_cmd::prelude::*;
use predicates::prelude::*;

use common::{fails, scalinglaws_in_root, stdout_json, CHINCHILLA};

/// `compare-laws` with the README's data and column arguments, without `--law`.
fn compare_laws() -> Command {
    let mut command = scalinglaws_in_root();
    command
        .arg("compare-laws")
        .arg(CHINCHILLA[1])
        .args(&CHINCHILLA[4..]);
    command
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

/// A held-out fraction out of range is refused before any fit (it was each law's failed
/// backtest, exit 0), by the backtest's one rule.
#[test]
fn compare_laws_refuses_a_fraction_out_of_range_exits_2() {
    fails(
        compare_laws().args([
            "--law",
            "chinchilla",
            "--law",
            "power_offset",
            "--by",
            "C",
            "--holdout-frac",
            "1.5",
        ]),
        &["--holdout-frac 1.5: give a fraction strictly between 0 and 1"],
    );
    // Without --by there is no backtest for the fraction to act on: once accepted and unused.
    fails(
        compare_laws().args([
            "--law",
            "chinchilla",
            "--law",
            "power_offset",
            "--holdout-frac",
            "0.3",
        ]),
        &["--holdout-frac 0.3 sets the backtest's held-out rows, and there is no backtest: give --by"],
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

/// Nothing in a comparison is drawn at random: a seed would change nothing, so it is refused.
#[test]
fn compare_laws_refuses_a_seed_exits_2() {
    fails(
        compare_laws().args(["--law", "chinchilla", "--law", HOFFMANN, "--seed", "1"]),
        &["compare-laws draws nothing at random; drop --seed"],
    );
}
