//! `scalinglaws schedule` end to end on the bundled 400M curves of Luo et al. 2025
//! (examples/schedule, MIT): the fit's JSON layout (`runs` with `run`, `train`, `r2`,
//! `final_error`), predict / compare / optimize / cooldown on the saved fit, and input errors
//! (exit code 2, a message naming the row, the spec key or the run, never a panic).

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use assert_cmd::prelude::*;
use predicates::prelude::*;
use serde_json::Value;

use common::{fails, scalinglaws_in_root};

fn json_of(command: &mut Command) -> Value {
    let output = command.args(["--json", "-"]).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// `schedule fit` on the bundled 400M curves, trained on cosine_24000.
const FIT_EXAMPLE: [&str; 9] = common::SCHEDULE_FIT;

/// A fit of power_area (fast) or multi_power on the 400M example, saved to a temporary file.
fn saved_fit(law: &str, name: &str) -> (PathBuf, Value) {
    let fit = json_of(scalinglaws_in_root().args(FIT_EXAMPLE).args(["--law", law]));
    let path = std::env::temp_dir().join(format!(
        "scalinglaws-schedule-{}-{name}.json",
        std::process::id()
    ));
    std::fs::write(&path, serde_json::to_string(&fit).unwrap()).unwrap();
    (path, fit)
}

#[test]
fn fit_scores_every_run_and_the_saved_fit_answers_schedule_questions() {
    let (path, fit) = saved_fit("multi_power", "mp");
    let runs = fit["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 9);
    for r in runs {
        let train = r["train"].as_bool().unwrap();
        assert_eq!(train, r["run"] == "cosine_24000");
        assert!(r["r2"].as_f64().unwrap() > 0.9, "{r}");
        assert!(r["final_error"].as_f64().unwrap().abs() < 0.05, "{r}");
    }
    assert_eq!(fit["params"].as_array().unwrap().len(), 7);
    let p = path.to_str().unwrap();

    let predicted = json_of(scalinglaws_in_root().args([
        "schedule",
        "predict",
        p,
        "--schedule",
        "wsd:decay_start=20000,final=3e-5",
    ]));
    let loss = predicted["loss"].as_array().unwrap();
    assert_eq!(predicted["steps"].as_array().unwrap().len(), loss.len());
    assert!(predicted["final_loss"].as_f64().unwrap() < loss[0].as_f64().unwrap());

    let compared = json_of(scalinglaws_in_root().args([
        "schedule",
        "compare",
        p,
        "--schedule",
        "constant",
        "--schedule",
        "wsd:decay_start=20000,final=3e-5",
    ]));
    assert_eq!(compared["best"], "wsd:decay_start=20000,final=3e-5");

    let optimized = json_of(scalinglaws_in_root().args([
        "schedule",
        "optimize",
        p,
        "--steps",
        "24000",
        "--peak",
        "3e-4",
        "--max-iterations",
        "50",
    ]));
    let best_baseline = optimized["baselines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["final_loss"].as_f64().unwrap())
        .fold(f64::INFINITY, f64::min);
    assert!(optimized["final_loss"].as_f64().unwrap() <= best_baseline);
    assert!(optimized["constraints"]
        .as_str()
        .unwrap()
        .contains("non-increasing"));

    let cooldowns = json_of(scalinglaws_in_root().args([
        "schedule",
        "cooldown",
        p,
        "--at",
        "8000,16000",
        "--len",
        "1000,4000",
    ]));
    assert_eq!(cooldowns["kind"], "schedule_cooldown");
    assert_eq!(cooldowns["rows"].as_array().unwrap().len(), 4);
    scalinglaws_in_root()
        .args([
            "schedule",
            "predict",
            p,
            "--schedule",
            "cooldowns:every=5000,len=1000,steps=24000",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "cooldowns (branch from the constant run)",
        ));
    std::fs::remove_file(path).ok();
}

#[test]
fn text_report_names_runs_and_roles() {
    scalinglaws_in_root()
        .args(FIT_EXAMPLE)
        .args(["--law", "power_area"])
        .assert()
        .success()
        .stdout(predicate::str::contains("[[Schedule fit]]"))
        .stdout(predicate::str::contains("wsdcon_3           test"))
        .stdout(predicate::str::contains("mean R² over the test runs"));
}

#[test]
fn a_fit_on_one_schedule_shape_says_it_does_not_identify_the_law() {
    // The text report words the fit record's warning; the JSON carries it.
    scalinglaws_in_root()
        .args(FIT_EXAMPLE)
        .assert()
        .success()
        .stdout(predicate::str::contains("\n  Warnings\n"))
        .stdout(predicate::str::contains(
            "one schedule shape (cosine_24000) does not identify the multi_power law: B, C, beta sit at a bound or in a limit",
        ));
    let two = json_of(
        scalinglaws_in_root()
            .args(&FIT_EXAMPLE[..8])
            .arg("cosine_24000,constant_24000"),
    );
    let warnings = two["warnings"].as_array().unwrap();
    assert!(
        !warnings
            .iter()
            .any(|w| w.as_str().unwrap().contains("schedule shape")),
        "{warnings:?}"
    );
}

fn fails_with(args: &[&str], message: &str) {
    fails(scalinglaws_in_root().args(args), &[message]);
}

#[test]
fn input_errors_name_the_problem() {
    let (path, _) = saved_fit("power_area", "pa");
    let p = path.to_str().unwrap();
    fails_with(
        &["schedule", "predict", p, "--schedule", "triangle"],
        "unknown kind 'triangle'",
    );
    fails_with(
        &["schedule", "predict", p, "--schedule", "cosine:fianl=1e-5"],
        "unknown key 'fianl'",
    );
    fails_with(
        &["schedule", "predict", p, "--schedule", "wsd:final=1e-5"],
        "'decay_start' is required",
    );
    fails_with(
        &["schedule", "compare", p, "--schedule", "constant"],
        "at least two",
    );
    // Before the fit is read.
    fails_with(
        &[
            "schedule",
            "compare",
            "absent.json",
            "--schedule",
            "constant",
        ],
        "at least two",
    );
    fails_with(
        &["schedule", "predict", "README.md", "--schedule", "constant"],
        "not a schedule fit",
    );
    let data = "examples/schedule/runs_400m.csv";
    fails_with(
        &[
            "schedule", "fit", data, "--run", "run", "--train", "cosine_9",
        ],
        "--train names run 'cosine_9'",
    );
    fails_with(&["schedule", "fit", data, "--run", "nope"], "nope");
    fails_with(
        &["schedule", "fit", data, "--run", "run", "--fix", "delta=1"],
        "not a parameter of multi_power",
    );
    // A log with a repeated step and one with a negative loss: the row is named.
    let dir = std::env::temp_dir();
    let dup = dir.join(format!(
        "scalinglaws-schedule-dup-{}.csv",
        std::process::id()
    ));
    std::fs::write(
        &dup,
        "step,lr,loss\n10,1e-3,3.0\n20,1e-3,2.9\n20,1e-3,2.8\n",
    )
    .unwrap();
    fails_with(&["schedule", "fit", dup.to_str().unwrap()], "row 3");
    std::fs::write(
        &dup,
        "step,lr,loss\n10,1e-3,3.0\n20,1e-3,-2.9\n30,1e-3,2.8\n",
    )
    .unwrap();
    fails_with(&["schedule", "fit", dup.to_str().unwrap()], "row 2");
    std::fs::remove_file(dup).ok();
    std::fs::remove_file(path).ok();
}

#[test]
fn cooldown_study_tabulates_cooldown_and_cosine_and_refuses_bad_options() {
    // lr_annealing (fast) on the constant run and its two-stage branches.
    let fit = json_of(scalinglaws_in_root().args(&FIT_EXAMPLE[..8]).args([
        "constant_24000,wsdcon_3,wsdcon_9,wsdcon_18",
        "--law",
        "lr_annealing",
    ]));
    let path = std::env::temp_dir().join(format!(
        "scalinglaws-schedule-{}-study.json",
        std::process::id()
    ));
    std::fs::write(&path, serde_json::to_string(&fit).unwrap()).unwrap();
    let p = path.to_str().unwrap();
    let study = json_of(scalinglaws_in_root().args([
        "schedule",
        "cooldown-study",
        p,
        "--steps",
        "12000,24000",
        "--fraction",
        "0.25",
    ]));
    let rows = study["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["cooldown_start"], 9000);
    assert_eq!(rows[1]["cooldown_start"], 18000);
    for r in rows {
        let (a, b) = (
            r["cooldown_loss"].as_f64().unwrap(),
            r["cosine_loss"].as_f64().unwrap(),
        );
        assert!((r["difference"].as_f64().unwrap() - (a - b)).abs() < 1e-12);
        assert!(a < r["constant_loss"].as_f64().unwrap(), "{r}");
        assert!(r.get("difference_interval").is_none(), "{r}");
    }
    assert_eq!(study["settings"]["decay"], "linear");
    assert_eq!(study["replicates"], 0);
    // The same study as `schedule predict` sees the cosine.
    let cosine = json_of(scalinglaws_in_root().args([
        "schedule",
        "predict",
        p,
        "--schedule",
        "cosine:steps=24000,final=3e-5",
    ]));
    let want = cosine["final_loss"].as_f64().unwrap();
    assert!((rows[1]["cosine_loss"].as_f64().unwrap() - want).abs() < 1e-9);
    scalinglaws_in_root()
        .args(["schedule", "cooldown-study", p, "--steps", "24000"])
        .assert()
        .success()
        .stdout(predicate::str::contains("[[Cooldown study]]"))
        .stdout(predicate::str::contains("intervals none (no replicates)"))
        .stdout(predicate::str::contains("cooldown from"));
    scalinglaws_in_root()
        .args([
            "schedule",
            "cooldown-study",
            p,
            "--steps",
            "24000",
            "--bootstrap",
            "20",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "95.00 % percentile intervals over 20 replicates",
        ));
    let study = ["schedule", "cooldown-study", p];
    for (extra, message) in [
        (["--fraction", "1.5"], "--fraction 1.5"),
        (["--level", "0.9"], "--bootstrap"),
        (["--steps", "2000"], "--steps 2000"),
        (["--final", "0.01"], "--final"),
        (["--decay", "quadratic"], "--decay"),
    ] {
        let args: Vec<&str> = study.iter().copied().chain(extra).collect();
        fails_with(&args, message);
    }
    // `--bootstrap 0` is no bootstrap: what only a bootstrap uses is refused, not ignored.
    for (extra, message) in [
        (["--bootstrap", "0", "--level", "0.9"], "--level sets"),
        (["--bootstrap", "0", "--seed", "1"], "--seed seeds"),
    ] {
        let args: Vec<&str> = study.iter().copied().chain(extra).collect();
        fails_with(&args, message);
    }
    std::fs::remove_file(path).ok();
}

/// `schedule predict --bootstrap`: prediction intervals around the predicted curve, how they
/// were made, their coverage of the held-out runs, and the refusal of bad values (exit 2).
#[test]
fn predict_bootstrap_gives_intervals_and_refuses_bad_values() {
    let (path, fit) = saved_fit("power_area", "pa-intervals");
    let p = path.to_str().unwrap();
    let args = [
        "schedule",
        "predict",
        p,
        "--schedule",
        "constant",
        "--bootstrap",
        "20",
        "--seed",
        "3",
    ];
    let out = json_of(scalinglaws_in_root().args(args));
    let loss = out["loss"].as_array().unwrap();
    let (low, high) = (
        out["band"]["low"].as_array().unwrap(),
        out["band"]["high"].as_array().unwrap(),
    );
    assert_eq!(low.len(), loss.len());
    for i in 0..loss.len() {
        let (l, y, h) = (
            low[i].as_f64().unwrap(),
            loss[i].as_f64().unwrap(),
            high[i].as_f64().unwrap(),
        );
        assert!(l < y && y < h, "step {i}: {l} {y} {h}");
    }
    assert_eq!(
        out["bootstrap"]["replicates"].as_u64().unwrap()
            + out["bootstrap"]["failed"].as_u64().unwrap(),
        20
    );
    assert_eq!(out["held_out"].as_array().unwrap().len(), 8);
    assert_eq!(out["bootstrap"]["seed"].as_u64(), Some(3));
    scalinglaws_in_root()
        .args(args)
        .assert()
        .success()
        .stdout(predicate::str::contains("pi low"))
        .stdout(predicate::str::contains("moving-block bootstrap"))
        .stdout(predicate::str::contains(
            "of the held-out runs' logged points",
        ));
    // --plot draws the band under --bootstrap: more filled shapes than the plain curve.
    let svg = |extra: &[&str]| -> String {
        let out = scalinglaws_in_root()
            .args([
                "schedule",
                "predict",
                p,
                "--schedule",
                "constant",
                "--plot",
                "-",
            ])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let shapes = |s: &str| s.matches("<polygon").count() + s.matches("<path").count();
    let (plain, banded) = (svg(&[]), svg(&["--bootstrap", "20"]));
    assert!(plain.starts_with("<svg") || plain.contains("<svg"));
    assert!(banded.contains("prediction interval"), "the title says so");
    assert!(
        shapes(&banded) > shapes(&plain),
        "{} vs {}",
        shapes(&banded),
        shapes(&plain)
    );
    let predict = ["schedule", "predict", p, "--schedule", "constant"];
    let with =
        |extra: &[&'static str]| -> Vec<&str> { predict.iter().chain(extra).copied().collect() };
    // 0 replicates is no bootstrap, as everywhere: a level then has nothing to apply to.
    fails_with(
        &with(&["--bootstrap", "0", "--level", "0.9"]),
        "--bootstrap",
    );
    fails_with(&with(&["--bootstrap", "0", "--seed", "1"]), "--seed seeds");
    fails_with(
        &with(&["--bootstrap", "0", "--interval", "profile", "--seed", "1"]),
        "--seed seeds",
    );
    fails_with(&with(&["--bootstrap", "5"]), "at least 20");
    fails_with(&with(&["--bootstrap", "20", "--level", "1.5"]), "--level");
    fails_with(&with(&["--level", "0.9"]), "--bootstrap");
    fails_with(&with(&["--seed", "1"]), "--bootstrap");
    // A fit saved before the curves were kept still predicts, and says why it cannot bootstrap.
    let mut old = fit.clone();
    old.as_object_mut().unwrap().remove("curves");
    old.as_object_mut().unwrap().remove("held");
    let old_path = std::env::temp_dir().join(format!(
        "scalinglaws-schedule-old-{}.json",
        std::process::id()
    ));
    std::fs::write(&old_path, serde_json::to_string(&old).unwrap()).unwrap();
    let o = old_path.to_str().unwrap();
    scalinglaws_in_root()
        .args(["schedule", "predict", o, "--schedule", "constant"])
        .assert()
        .success();
    fails_with(
        &[
            "schedule",
            "predict",
            o,
            "--schedule",
            "constant",
            "--bootstrap",
            "20",
        ],
        "does not carry",
    );
    std::fs::remove_file(old_path).ok();
    std::fs::remove_file(path).ok();
}

/// `schedule predict --interval profile`: the profile-likelihood band around the predicted
/// curve, how it was made, its coverage of the held-out runs, and the refusal of bad values
/// (exit 2, naming the option).
#[test]
fn predict_profile_gives_a_band_and_refuses_bad_values() {
    let (path, _) = saved_fit("power_area", "pa-profile");
    let p = path.to_str().unwrap();
    let args = [
        "schedule",
        "predict",
        p,
        "--schedule",
        "constant",
        "--interval",
        "profile",
        "--level",
        "0.9",
    ];
    let out = json_of(scalinglaws_in_root().args(args));
    let loss = out["loss"].as_array().unwrap();
    let (low, high) = (
        out["band"]["low"].as_array().unwrap(),
        out["band"]["high"].as_array().unwrap(),
    );
    assert_eq!(low.len(), loss.len());
    for i in 0..loss.len() {
        let (l, y, h) = (
            low[i].as_f64().unwrap(),
            loss[i].as_f64().unwrap(),
            high[i].as_f64().unwrap(),
        );
        assert!(l < y && y < h, "step {i}: {l} {y} {h}");
    }
    assert_eq!(out["band"]["level"].as_f64(), Some(0.9));
    assert!(out["profile"]["fits"].as_u64().unwrap() >= 1);
    assert!(out["profile"]["calibration"]["factor"].as_f64().unwrap() >= 1.0);
    assert_eq!(out["held_out"].as_array().unwrap().len(), 8);
    scalinglaws_in_root()
        .args(args)
        .assert()
        .success()
        .stdout(predicate::str::contains("profile likelihood"))
        .stdout(predicate::str::contains("pi low"))
        .stdout(predicate::str::contains(
            "of the held-out runs' logged points",
        ));
    let predict = ["schedule", "predict", p, "--schedule", "constant"];
    let with =
        |extra: &[&'static str]| -> Vec<&str> { predict.iter().chain(extra).copied().collect() };
    fails_with(&with(&["--interval", "jackknife"]), "--interval jackknife");
    fails_with(&with(&["--interval", "bootstrap"]), "--interval bootstrap");
    fails_with(
        &with(&["--interval", "profile", "--bootstrap", "20"]),
        "--interval profile",
    );
    fails_with(
        &with(&["--interval", "profile", "--level", "1.5"]),
        "--level",
    );
    std::fs::remove_file(path).ok();
}

#[test]
fn fsl_fits_and_its_saved_fit_predicts_and_optimizes() {
    // The functional scaling law (ours, see analysis::schedule::fsl) on two shapes.
    let fit = json_of(scalinglaws_in_root().args([
        "schedule",
        "fit",
        "examples/schedule/runs_400m.csv",
        "--run",
        "run",
        "--warmup",
        "2160",
        "--train",
        "cosine_24000,constant_24000",
        "--law",
        "fsl",
    ]));
    assert_eq!(fit["law"], "fsl");
    let names: Vec<&str> = fit["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["L0", "A", "alpha", "C", "b", "gamma"]);
    assert!(fit["citation"]
        .as_str()
        .unwrap()
        .contains("arXiv:2509.19189"));
    for r in fit["runs"].as_array().unwrap() {
        assert!(r["r2"].as_f64().unwrap() > 0.9, "{r}");
    }
    let path = std::env::temp_dir().join(format!(
        "scalinglaws-schedule-{}-fsl.json",
        std::process::id()
    ));
    std::fs::write(&path, serde_json::to_string(&fit).unwrap()).unwrap();
    let p = path.to_str().unwrap();
    let predicted = json_of(scalinglaws_in_root().args([
        "schedule",
        "predict",
        p,
        "--schedule",
        "wsd:decay_start=20000,final=3e-5",
    ]));
    let loss = predicted["loss"].as_array().unwrap();
    assert!(predicted["final_loss"].as_f64().unwrap() < loss[0].as_f64().unwrap());
    let optimized = json_of(scalinglaws_in_root().args([
        "schedule",
        "optimize",
        p,
        "--steps",
        "24000",
        "--peak",
        "3e-4",
        "--max-iterations",
        "30",
    ]));
    let best_baseline = optimized["baselines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["final_loss"].as_f64().unwrap())
        .fold(f64::INFINITY, f64::min);
    assert!(optimized["final_loss"].as_f64().unwrap() <= best_baseline);
    let cooldowns = json_of(
        scalinglaws_in_root().args(["schedule", "cooldown", p, "--at", "8000", "--len", "1000"]),
    );
    assert_eq!(cooldowns["rows"].as_array().unwrap().len(), 1);
    std::fs::remove_file(path).ok();
}
