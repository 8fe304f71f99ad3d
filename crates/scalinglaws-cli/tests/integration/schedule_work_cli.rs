//! The schedule commands' work bounded before it starts (exit 2, naming the option and the fix):
//! a curve's reported points (`--every`), the steps of the schedules predicted or compared, a
//! cooldown study's lengths, the refits of `predict --bootstrap` and `--interval profile`, a
//! schedule fit's training steps, each estimated against `--max-work`; and a cooldown study's
//! figure and JSON refused on one standard output. Each refusal would otherwise have run for
//! minutes or held gigabytes.

use crate::common;

use std::path::PathBuf;

use common::{fails, scalinglaws_in_root};

/// A multi_power fit of the bundled 400M curves trained on cosine_24000, saved.
fn saved_fit(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "scalinglaws-schedule-work-{}-{name}.json",
        std::process::id()
    ));
    let output = scalinglaws_in_root()
        .args(common::SCHEDULE_FIT)
        .arg("--json")
        .arg(&path)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    path
}

fn schedule(fit: &PathBuf, command: &str) -> std::process::Command {
    let mut c = scalinglaws_in_root();
    c.args(["schedule", command]).arg(fit);
    c
}

#[test]
fn a_curve_of_more_points_than_the_cap_is_refused_naming_every() {
    let fit = saved_fit("points");
    let expected = [
        "--every 1",
        "100,000,000 points, more than the limit of 1,000,000",
        "give --every 101 or more",
    ];
    fails(
        schedule(&fit, "predict").args(["--schedule", "constant:steps=100000000", "--every", "1"]),
        &expected,
    );
    let csv = std::env::temp_dir().join(format!(
        "scalinglaws-schedule-work-{}.csv",
        std::process::id()
    ));
    fails(
        schedule(&fit, "optimize")
            .args([
                "--steps",
                "10000000",
                "--max-iterations",
                "4",
                "--schedule-csv",
            ])
            .arg(&csv),
        &[
            "--schedule-csv",
            "a value per step, more than the limit of 1,000,000",
            "or leave out --schedule-csv",
            "--steps 1000000 or fewer",
        ],
    );
    fails(
        schedule(&fit, "compare").args([
            "--schedule",
            "constant:steps=100000000",
            "--schedule",
            "cosine",
            "--every",
            "1",
        ]),
        &expected,
    );
    let _ = std::fs::remove_file(fit);
}

#[test]
fn predictions_and_comparisons_over_the_budget_are_refused() {
    let fit = saved_fit("steps");
    fails(
        schedule(&fit, "predict").args([
            "--schedule",
            "cooldowns:every=1000,len=1000,steps=100000000",
        ]),
        &[
            "schedule steps evaluated",
            "shrink it with --schedule",
            "--max-work",
        ],
    );
    let mut compare = schedule(&fit, "compare");
    for k in 1..=200 {
        compare.args(["--schedule", &format!("cosine:steps={}", k * 500_000)]);
    }
    fails(
        &mut compare,
        &[
            "over the 200 schedules",
            "shrink it with --schedule",
            "--max-work",
        ],
    );
    let _ = std::fs::remove_file(fit);
}

#[test]
fn prediction_intervals_over_the_budget_are_refused() {
    let fit = saved_fit("intervals");
    let cosine = ["--schedule", "cosine:steps=24000"];
    for replicates in ["2000", "1000000"] {
        fails(
            schedule(&fit, "predict")
                .args(cosine)
                .args(["--bootstrap", replicates]),
            &[
                "bootstrap replicates",
                "shrink it with --bootstrap",
                "--max-work",
            ],
        );
    }
    fails(
        schedule(&fit, "predict")
            .args(cosine)
            .args(["--bootstrap", "50", "--max-work", "10"]),
        &["more than the budget of 10", "--bootstrap"],
    );
    fails(
        schedule(&fit, "predict")
            .args(cosine)
            .args(["--interval", "profile", "--max-work", "10"]),
        &["profile refits", "more than the budget of 10", "--max-work"],
    );
    let _ = std::fs::remove_file(fit);
}

#[test]
fn cooldown_studies_over_the_budget_or_on_one_stdout_are_refused() {
    let fit = saved_fit("study");
    fails(
        schedule(&fit, "cooldown-study").args(["--steps", "100000000"]),
        &[
            "steps over the training lengths",
            "shrink it with --steps",
            "--max-work",
        ],
    );
    let lengths: Vec<String> = (1..=1000).map(|k| (k * 100_000).to_string()).collect();
    fails(
        schedule(&fit, "cooldown-study").args(["--steps", &lengths.join(",")]),
        &["--steps", "--max-work"],
    );
    fails(
        schedule(&fit, "cooldown-study").args(["--bootstrap", "20000"]),
        &[
            "40,002 schedules evaluated at each",
            "--bootstrap",
            "--max-work",
        ],
    );
    fails(
        schedule(&fit, "cooldown-study").args(["--plot", "-", "--json", "-"]),
        &["--json - and --plot - both write to stdout"],
    );
    let _ = std::fs::remove_file(fit);
}

#[test]
fn a_schedule_fit_over_the_budget_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("long.csv");
    let mut rows = String::from("run,step,lr,loss\n");
    for run in 0..9 {
        let last = 2_200_000 * (run + 1) / 9;
        for i in 1..=100 {
            let step = last * i / 100;
            let loss = 3.0 + 1.5 * (step as f64 / 1000.0 + 1.0).powf(-0.3);
            rows += &format!("r{run},{step},0.0003,{loss:.5}\n");
        }
    }
    std::fs::write(&log, rows).unwrap();
    fails(
        scalinglaws_in_root()
            .args(["schedule", "fit"])
            .arg(&log)
            .args(["--run", "run"]),
        &[
            "steps of the training runs' schedules",
            "shrink it with --train",
            "--max-work",
        ],
    );
}
