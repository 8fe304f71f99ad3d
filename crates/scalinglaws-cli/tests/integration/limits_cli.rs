//! The hard limits and the hostile inputs of issue 21 through the command line: a table cell of
//! any length prints (the formatter's widths stop at 65,535); replicates, grid budgets,
//! schedule steps and a formula's size and parameters are capped, each refused with exit 2
//! naming the option and the limit before anything is allocated; more threads than a few per
//! core are capped with a warning; a formula at the caps is analysed in moments; and constants
//! that cannot be finite, or a schedule whose losses are not, are refused where they are
//! written, never exit 1 or a NaN prediction.

use crate::common;

use std::path::Path;
use std::time::Duration;

use common::{
    chinchilla, chinchilla_formula, compare_tracks, fails, isoflop_runs, root, scalinglaws_in_root,
};

/// A cell far beyond the formatter's 65,535-character width limit.
fn long_name() -> String {
    "x".repeat(70_000)
}

/// `text` with every `from` replaced, written to `name` in `dir`.
fn rewritten(dir: &Path, source: &str, from: &str, to: &str, name: &str) -> String {
    let text = std::fs::read_to_string(root().join(source)).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text.replace(from, to)).unwrap();
    path.to_str().unwrap().to_string()
}

/// Runs `command`, asserts exit 0 and no panic, and returns (stdout, stderr).
fn succeeds(command: &mut std::process::Command) -> (String, String) {
    succeeds_within(command, Duration::from_secs(600))
}

/// [`succeeds`], killed (and failed) after `limit`.
fn succeeds_within(command: &mut std::process::Command, limit: Duration) -> (String, String) {
    let output = assert_cmd::Command::from_std(std::mem::replace(
        command,
        std::process::Command::new("true"),
    ))
    .timeout(limit)
    .output()
    .expect("run scalinglaws");
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    (String::from_utf8(output.stdout).unwrap(), stderr)
}

/// [`fails`] within `limit` seconds: exit 2 with every `expected` piece, killed after.
fn fails_within(command: &mut std::process::Command, limit: u64, expected: &[&str]) {
    let output = assert_cmd::Command::from_std(std::mem::replace(
        command,
        std::process::Command::new("true"),
    ))
    .timeout(Duration::from_secs(limit))
    .output()
    .expect("run scalinglaws");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "should exit 2: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    for needle in expected {
        assert!(stderr.contains(needle), "expected {needle:?} in: {stderr}");
    }
}

/// Item: a track value and a run name of 70,000 characters are table cells like any other.
#[test]
fn cells_longer_than_the_formatters_width_limit_print() {
    let dir = tempfile::tempdir().unwrap();
    let long = long_name();
    let tracks = rewritten(
        dir.path(),
        "examples/tracks/two_recipes.csv",
        "baseline",
        &long,
        "tracks.csv",
    );
    let (text, _) = succeeds(scalinglaws_in_root().args([
        "compare",
        &tracks,
        "--law",
        "chinchilla",
        "--target",
        "loss",
        "--track",
        "recipe",
    ]));
    assert!(text.contains(&long), "the long track is in the report");

    let runs = rewritten(
        dir.path(),
        "examples/schedule/runs_400m.csv",
        "constant_24000",
        &long,
        "runs.csv",
    );
    let (text, _) = succeeds(scalinglaws_in_root().args([
        "schedule",
        "fit",
        &runs,
        "--run",
        "run",
        "--warmup",
        "2160",
        "--train",
        "cosine_24000",
    ]));
    assert!(text.contains(&long), "the long run is in the table");
}

/// Item: replicates beyond 1e6 (u64::MAX, 2^32) are refused before any allocation by every
/// command that bootstraps, and too few for the level's percentile interval too.
#[test]
fn replicates_are_capped_in_every_command_that_bootstraps() {
    for count in ["18446744073709551615", "4294967296", "1000001"] {
        fails(
            chinchilla("fit").args(["--bootstrap", count]),
            &["--bootstrap", "at most 1,000,000 replicates"],
        );
        fails(
            chinchilla("backtest").args(["--by", "N", "--holdout-top", "3", "--bootstrap", count]),
            &["--bootstrap", "at most 1,000,000 replicates"],
        );
        fails(
            compare_tracks().args(["--bootstrap", count]),
            &["--bootstrap", "at most 1,000,000 replicates"],
        );
        fails(
            isoflop_runs().args(["--bootstrap", count]),
            &["--bootstrap", "at most 1,000,000 replicates"],
        );
    }
    fails(
        chinchilla("fit").args(["--bootstrap", "1"]),
        &["--bootstrap 1", "at least 20 replicates"],
    );
    fails(
        chinchilla("fit").args(["--bootstrap", "50", "--level", "0.99"]),
        &[
            "--bootstrap 50",
            "99% percentile interval needs at least 100",
        ],
    );
}

/// Item: `--envelope grid:K` at most 1e6 budgets (u64::MAX used never to end).
#[test]
fn grid_envelope_budgets_are_capped() {
    for k in ["18446744073709551615", "100000000"] {
        let envelope = format!("grid:{k}");
        fails(
            scalinglaws_in_root().args([
                "isoflop",
                "testdata/gemstones/wandb_dfs/wandb_df_for_fitting_hot_477.jsonl",
                "--target",
                "final_loss",
                "--derive",
                "C=6*params_active_precise*tokens",
                "--compute",
                "C",
                "--size",
                "params_active_precise",
                "--run",
                "run_name",
                "--envelope",
                &envelope,
            ]),
            &["--envelope", "at most 1,000,000 budgets"],
        );
    }
}

/// A schedule fit of the bundled curves, saved in `dir`.
fn schedule_fit(dir: &Path) -> String {
    let path = dir.join("fit.json");
    succeeds(
        scalinglaws_in_root()
            .args(common::SCHEDULE_FIT)
            .args(["--json", path.to_str().unwrap()]),
    );
    path.to_str().unwrap().to_string()
}

/// Items: schedule steps at most 1e8 (`steps=1e11` aborted on 800 GB), and a schedule whose
/// predicted losses are not finite is refused, not printed as NaN; a peak far above the fitted
/// runs' is refused before it (issue 50: `--peak 1e300` returned a schedule at that rate).
#[test]
fn schedule_steps_are_capped_and_losses_must_be_finite() {
    let dir = tempfile::tempdir().unwrap();
    let fit = schedule_fit(dir.path());
    fails(
        scalinglaws_in_root().args([
            "schedule",
            "predict",
            &fit,
            "--schedule",
            "constant:steps=100000000000",
        ]),
        &["100,000,000,000 steps", "limit of 100,000,000"],
    );
    fails(
        scalinglaws_in_root().args(["schedule", "optimize", &fit, "--steps", "100000000000"]),
        &["--steps 100000000000", "limit of 100,000,000"],
    );
    fails(
        scalinglaws_in_root().args([
            "schedule",
            "predict",
            &fit,
            "--schedule",
            "constant:peak=1e300",
        ]),
        &[
            "--schedule \"constant:peak=1e300\" reaches a learning rate of 1.000e300",
            "more than 10 times the largest of the fit's runs",
            "give a peak up to",
        ],
    );
    fails(
        scalinglaws_in_root().args(["schedule", "optimize", &fit, "--peak", "1e300"]),
        &["--peak reaches a learning rate of 1.000e300"],
    );
}

/// Item: more threads than 4 per core are capped, with one warning (100,000 ran past 600 s).
#[test]
fn threads_beyond_a_few_per_core_are_capped_with_a_warning() {
    let (text, stderr) = succeeds_within(
        chinchilla("fit").args(["--threads", "100000"]),
        Duration::from_secs(120),
    );
    assert!(text.contains("[[Fit Statistics]]") || !text.is_empty());
    assert_eq!(
        stderr.matches("warning: --threads 100000").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("per core; using"), "{stderr}");
}

/// `E + p1*N^-a1 + p2*N^-a2 + ...` with `count` pairs of parameters.
fn many_parameters(count: usize) -> String {
    let mut formula = String::from("E");
    for i in 0..count {
        formula.push_str(&format!(" + p{i}*N^-a{i}"));
    }
    formula
}

/// Item: a formula's parameters (1,000) and size (65,536 bytes) are capped; one at the caps
/// is analysed quickly (the linearity search was cubic: 4,000 parameters took 209 s just to
/// report a wrong target).
#[test]
fn formulas_are_capped_and_fast_at_the_caps() {
    // 1,001 parameters: refused, naming the option and the limit.
    fails_within(
        &mut chinchilla_formula(&many_parameters(500)),
        20,
        &["--formula", "1,001 parameters", "limit of 1,000"],
    );
    // 999 parameters (at the cap), more than the rows: the law is built and its linear
    // parameters found, and the fit refused, in moments.
    let mut command = scalinglaws_in_root();
    command
        .args([
            "fit",
            "examples/chinchilla/chinchilla_epoch.csv",
            "--formula",
            &many_parameters(499),
            "--target",
            "loss",
        ])
        .args(["--map", "N=Model Size"]);
    fails_within(&mut command, 20, &["fewer than the 999 free parameters"]);
    // Longer than 65,536 bytes.
    let long = format!("E + A*N^-alpha{}", " ".repeat(70_000));
    fails_within(
        &mut chinchilla_formula(&long),
        20,
        &["--formula", "65,536 bytes"],
    );
}

/// Item: user errors that exited 1: a non-positive budget, a number beyond f64 in a formula
/// and a constant division by zero (now named at their character, as `--fix E=1e400` is).
#[test]
fn user_errors_exit_2_naming_where() {
    for budget in ["--budget=-1", "--budget=0"] {
        fails(compare_tracks().arg(budget), &["--budget", "positive"]);
    }
    fails(
        &mut chinchilla_formula("E + A*N^-alpha*1e400 + B*D^-beta"),
        &[
            "formula error at character 16",
            "1e400 is beyond the largest double",
        ],
    );
    fails(
        &mut chinchilla_formula("E + A*N^-alpha + B*D^-beta + 1/0"),
        &["formula error at character 31", "whatever the parameters"],
    );
    fails(
        &mut chinchilla_formula("E + A*N^-alpha + log(0)*B*D^-beta"),
        &["formula error at character 18", "whatever the parameters"],
    );
}

/// Items: a schedule key given twice said "unknown key"; an empty key (`cosine:=,…`, found by
/// the fuzzer) was accepted up to the step count.
#[test]
fn schedule_keys_given_twice_or_empty_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let fit = schedule_fit(dir.path());
    for (spec, words) in [
        (
            "cosine:peak=1e-3,peak=2e-3",
            "key 'peak' is given twice: give it once",
        ),
        ("cosine:=,peak=1e-3", "'=' has no key before '='"),
    ] {
        fails(
            scalinglaws_in_root().args(["schedule", "predict", &fit, "--schedule", spec]),
            &[words, "schedule 'cosine:"],
        );
    }
}

/// Item: `--formula "5"` said "every name is a data column: )".
#[test]
fn a_formula_that_names_nothing_says_so() {
    fails(
        &mut chinchilla_formula("5"),
        &[
            "the formula has no parameter to fit and reads no data column",
            "E + A*N^-alpha",
        ],
    );
}
