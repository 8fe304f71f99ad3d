//! `scalinglaws select` on the bundled Chinchilla data: every candidate is scored by rolling
//! origins, the winner and the stacking weights are reported, predictions beyond the data hold
//! the spread between laws, `--check` scores the procedure by nested rolling origins, and bad
//! input exits with code 2 and a message naming the fix.

use std::process::{Command, Output};

use serde_json::Value;

use crate::common;

use common::{fails, scalinglaws_in_root};

/// `select` with the README's Chinchilla data and recipe: the first command's arguments
/// without `fit` and its `--law chinchilla`.
fn data_args() -> Vec<&'static str> {
    let fit = common::CHINCHILLA;
    let law = fit
        .iter()
        .position(|a| *a == "--law")
        .expect("the recipe names a law");
    let mut args = vec!["select"];
    args.extend(fit[1..law].iter().chain(&fit[law + 2..]));
    args
}

fn select(extra: &[&str]) -> Command {
    let mut command = scalinglaws_in_root();
    command.args(data_args()).args(extra);
    command
}

fn run(extra: &[&str]) -> Output {
    select(extra).output().expect("run scalinglaws")
}

fn json(extra: &[&str]) -> Value {
    let output = run(&[extra, &["--json", "-"]].concat());
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

const LAWS: &[&str] = &[
    "--law",
    "chinchilla",
    "--formula",
    "E + A*N^-eta + B*D^-eta",
    "--formula",
    "A*N^-alpha + B*D^-beta",
];

#[test]
fn select_scores_every_law_and_predicts_with_the_spread_between_laws() {
    let out = json(&[LAWS, &["--at", "N=7e10,1e12", "--at", "D=1.4e12,2e13"]].concat());
    let selection = &out["selection"];
    let candidates = selection["candidates"].as_array().unwrap();
    assert_eq!(candidates.len(), 3);
    let weights: f64 = candidates
        .iter()
        .map(|c| c["weight"].as_f64().unwrap())
        .sum();
    assert!((weights - 1.0).abs() < 1e-9, "weights sum to {weights}");
    for c in candidates {
        assert!(c["score"].as_f64().unwrap() > 0.0);
        assert!(c["bic"].as_f64().is_some());
        assert_eq!(c["calibrated"], true);
    }
    let winner = selection["winner"].as_str().unwrap();
    assert!(candidates.iter().any(|c| c["label"] == winner));
    assert!(selection["units"].as_u64().unwrap() >= 6);
    let predictions = out["predictions"].as_array().unwrap();
    assert_eq!(predictions.len(), 2);
    for p in predictions {
        let value = p["value"].as_f64().unwrap();
        let pi = p["pi"].as_array().unwrap();
        let (lo, hi) = (pi[0].as_f64().unwrap(), pi[1].as_f64().unwrap());
        assert!(lo < value && value < hi, "{p}");
        assert!(p["between_sd"].as_f64().unwrap() >= 0.0);
        assert_eq!(p["laws"].as_array().unwrap().len(), 3);
        assert_eq!(p["winner"]["label"], winner);
    }
    // The spread between laws grows with the distance of the extrapolation.
    let spread = |i: usize| predictions[i]["between_sd"].as_f64().unwrap();
    assert!(spread(1) > spread(0), "{} vs {}", spread(1), spread(0));
}

#[test]
fn select_check_scores_the_procedure_out_of_sample() {
    let out = json(&[LAWS, &["--check", "--origins", "3"]].concat());
    let check = &out["check"];
    for way in ["winner", "average"] {
        let score = &check[way];
        assert!(score["points"].as_u64().unwrap() > 0, "{check}");
        let coverage = score["pi_coverage"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&coverage));
        assert!(score["are_mean"].as_f64().unwrap() < 0.1);
    }
    assert_eq!(check["candidates"].as_array().unwrap().len(), 3);
}

#[test]
fn select_text_names_the_winner_and_the_method() {
    let output = run(LAWS);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("[[Laws]]"), "{text}");
    assert!(text.contains("* winner: the lowest BIC"), "{text}");
    assert!(text.contains("rolling origins by 'C'"), "{text}");
}

fn fails_with(extra: &[&str], needle: &str) {
    fails(&mut select(extra), &[needle]);
}

#[test]
fn select_refuses_bad_input_with_the_fix() {
    fails_with(&[], "select needs candidate laws");
    fails_with(&[LAWS, &["--origins", "1"]].concat(), "--origins 1");
    fails_with(
        &[LAWS, &["--at", "Q=1"]].concat(),
        "'Q' is a variable of none",
    );
    fails_with(&[LAWS, &["--at", "N=7e10"]].concat(), "no value for D");
    fails_with(
        &[LAWS, &["--at", "N=-1", "--at", "D=1"]].concat(),
        "positive",
    );
    fails_with(&[LAWS, &["--by", "nope"]].concat(), "nope");
    fails_with(&[LAWS, &["--level", "1.5"]].concat(), "--level");
    fails_with(
        &["--law", "chinchilla", "--law", "chinchilla"],
        "a candidate twice",
    );
    // Runs below 3e18 FLOPs form too few scale groups to score by rolling origins.
    fails_with(
        &[LAWS, &["--where", "C < 3e18"]].concat(),
        "scoring laws by rolling origins needs at least 5",
    );
}

/// Nothing in a selection is drawn at random: a seed would change nothing, so it is refused.
#[test]
fn select_refuses_a_seed() {
    fails_with(
        &[LAWS, &["--seed", "3"]].concat(),
        "select draws nothing at random; drop --seed",
    );
}
