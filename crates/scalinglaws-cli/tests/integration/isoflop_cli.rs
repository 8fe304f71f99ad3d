//! `isoflop --budget` and `isoflop --backtest` (issue 18) on the bundled synthetic IsoFLOP
//! study (examples/isoflop/runs.csv, drawn from Hoffmann et al. 2022's law): the predicted N*
//! and D* one and two decades beyond the largest budget hold the true optimum in their
//! intervals, the default shape is chosen and explained, the backtest scores the held-out
//! budgets, and options that cannot act are refused with exit code 2; `isoflop` on Porian et
//! al. 2024's IsoFLOP points (testdata, MIT) and `isoflop --envelope` on checkpoints, with
//! their input errors.

use crate::common;

use std::path::PathBuf;
use std::process::Command;

use common::{fails, pair, root, scalinglaws, stdout_json};

const HOFFMANN: (f64, f64, f64, f64) = (406.4, 0.34, 410.7, 0.28);

fn runs() -> PathBuf {
    root().join("examples/isoflop/runs.csv")
}

fn isoflop(extra: &[&str]) -> Command {
    let mut command = scalinglaws();
    command
        .arg("isoflop")
        .arg(runs())
        .args(["--compute", "C", "--size", "N", "--target", "loss"])
        .args(extra);
    command
}

fn true_n_star(c: f64) -> f64 {
    let (a, alpha, b, beta) = HOFFMANN;
    let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
    g * (c / 6.0).powf(beta / (alpha + beta))
}

/// Hoffmann et al.'s loss at (N, D).
fn true_loss(n: f64, d: f64) -> f64 {
    let (a, alpha, b, beta) = HOFFMANN;
    1.69 + a * n.powf(-alpha) + b * d.powf(-beta)
}

/// `--method auto`: the choice between the joint law's best window and the per-budget minima
/// is reported with its numbers, and what predicts holds the true N* and D*.
#[test]
fn auto_says_what_it_chose_and_why() {
    let result = stdout_json(&mut isoflop(&[
        "--budget",
        "3.16e22,3.16e23",
        "--method",
        "auto",
        "--json",
        "-",
    ]));
    let group = &result["groups"][0];
    let choice = &group["method_choice"];
    assert_eq!(choice["method"], "auto");
    let reason = choice["reason"].as_str().unwrap();
    assert!(reason.contains("standard error"), "{reason}");
    assert!(choice["standard_error"].as_f64().unwrap() > 0.0);
    let joint = choice["chosen"]["method"] == "joint";
    assert_eq!(group.get("joint").is_some(), joint, "{choice}");
    for p in group["predictions"].as_array().unwrap() {
        let c = p["budget"].as_f64().unwrap();
        let (n, d) = (true_n_star(c), c / (6.0 * true_n_star(c)));
        for (key, truth) in [("N", n), ("D", d)] {
            let [lo, hi] = pair(&p[key]["interval"]);
            assert!(
                lo <= truth && truth <= hi,
                "{key} {truth:e} outside [{lo:e}, {hi:e}]"
            );
        }
    }
}

#[test]
fn budget_predictions_by_the_joint_law_hold_the_true_optimum() {
    let result = stdout_json(&mut isoflop(&[
        "--budget",
        "3.16e22,3.16e23",
        "--method",
        "joint",
        "--json",
        "-",
    ]));
    let group = &result["groups"][0];
    assert_eq!(group["approach"], "profiles");
    assert_eq!(group["method_choice"]["method"], "joint");
    assert_eq!(group["method_choice"]["chosen"]["method"], "joint");
    assert!(group["joint"]["calibrated"].as_bool().unwrap());
    assert_eq!(group["profile_predictions"].as_array().unwrap().len(), 2);
    let predictions = group["predictions"].as_array().unwrap();
    assert_eq!(predictions.len(), 2);
    for p in predictions {
        let c = p["budget"].as_f64().unwrap();
        let (n, d) = (true_n_star(c), c / (6.0 * true_n_star(c)));
        for (key, truth) in [("N", n), ("D", d), ("loss", true_loss(n, d))] {
            let [lo, hi] = pair(&p[key]["interval"]);
            assert!(
                lo <= truth && truth <= hi,
                "{key} {truth:e} outside [{lo:e}, {hi:e}] at {c:e}"
            );
        }
        assert!(p["decades_out"].as_f64().unwrap() > 0.9);
    }
}

/// The default, as `--method profiles`: the per-budget minima's power laws predict, with no
/// `method_choice` and no joint law, as before `--method` existed.
#[test]
fn the_default_predicts_by_the_profiles_as_before() {
    for method in [&[][..], &["--method", "profiles"][..]] {
        let mut args = vec!["--budget", "3.16e22,3.16e23", "--json", "-"];
        args.extend_from_slice(method);
        let result = stdout_json(&mut isoflop(&args));
        let group = &result["groups"][0];
        assert_eq!(group["approach"], "profiles");
        assert_eq!(group["shape"], "parabola:all");
        assert!(group["shape_choice"]["reason"]
            .as_str()
            .unwrap()
            .contains("not rejected"));
        assert!(group["calibration"]["calibrated"].as_bool().unwrap());
        assert!(
            group.get("method_choice").is_none() && group.get("joint").is_none(),
            "{method:?}"
        );
        assert!(group.get("profile_predictions").is_none(), "{method:?}");
        let predictions = group["predictions"].as_array().unwrap();
        assert_eq!(predictions.len(), 2);
        for p in predictions {
            let c = p["budget"].as_f64().unwrap();
            let (n, d) = (true_n_star(c), c / (6.0 * true_n_star(c)));
            let [lo, hi] = pair(&p["N"]["interval"]);
            assert!(lo <= n && n <= hi, "N* {n:e} outside [{lo:e}, {hi:e}]");
            let [lo, hi] = pair(&p["D"]["interval"]);
            assert!(lo <= d && d <= hi, "D* {d:e} outside [{lo:e}, {hi:e}]");
            assert!(p["loss"].get("interval").is_none());
            assert!(p["decades_out"].as_f64().unwrap() > 0.9);
        }
    }
}

#[test]
fn the_table_names_the_calibration_and_the_shape() {
    let output = isoflop(&["--budget", "3.16e22"]).output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("[[Predictions at new budgets]]"), "{text}");
    assert!(text.contains("shape auto: lack of fit"), "{text}");
    assert!(text.contains("widened beyond the data"), "{text}");
    assert!(!text.contains("method auto"), "{text}");
    let output = isoflop(&["--budget", "3.16e22", "--method", "auto"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("method auto: over "), "{text}");
    let output = isoflop(&["--budget", "3.16e22", "--method", "joint"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("method joint: mean |ln D* error|"), "{text}");
    assert!(text.contains("joint law: chinchilla fitted to"), "{text}");
    assert!(
        text.contains("[[Per-budget minima's predictions (diagnostic)]]"),
        "{text}"
    );
}

#[test]
fn backtest_scores_the_held_out_budgets() {
    let result = stdout_json(&mut isoflop(&["--backtest", "2", "--json", "-"]));
    let group = &result["groups"][0];
    assert_eq!(group["approach"], "backtest");
    let held = group["held_out"].as_array().unwrap();
    assert_eq!(held.len(), 2);
    for h in held {
        let error = h["ln_error_D"].as_f64().unwrap();
        let predicted = h["predicted"]["D"]["value"].as_f64().unwrap();
        let observed = h["observed_D"].as_f64().unwrap();
        assert!((observed.ln() - predicted.ln() - error).abs() < 1e-9);
    }
    let mean = group["mean_abs_ln_error_D"].as_f64().unwrap();
    assert!(mean > 0.0 && mean < 0.3, "{mean}");
    assert!(group["coverage_D"].as_f64().is_some());
}

#[test]
fn options_that_cannot_act_are_refused() {
    for (args, needle) in [
        (vec!["--no-calibration"], "--no-calibration"),
        (vec!["--budget", "-1e22"], "--budget"),
        (vec!["--budget", "abc"], "--budget"),
        (vec!["--backtest", "7"], "backtest"),
        (vec!["--backtest", "0"], "backtest"),
        (
            vec!["--budget", "1e22", "--method", "parabola"],
            "--method parabola",
        ),
        (vec!["--method", "joint"], "--method"),
        // The rules between options are the library's (exit 2, worded as options), not clap's.
        (
            vec!["--envelope", "hull", "--budget", "1e22"],
            "drop --envelope",
        ),
        (vec!["--budget", "1e22", "--backtest", "2"], "not both"),
        (vec!["--tolerance", "1.5"], "--tolerance 1.5"),
        (vec!["--level", "1.5"], "level"),
    ] {
        let output = isoflop(&args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
    }
}

// ---------------------------------------------------------------------------------------------
// isoflop (issue 5, second part), on Porian et al. 2024's IsoFLOP points (testdata, MIT)
// ---------------------------------------------------------------------------------------------

fn porian() -> PathBuf {
    root().join("testdata/porian2024/isoflop_points.csv")
}

#[test]
fn isoflop_analyses_each_configuration_of_porian_et_al() {
    let mut command = scalinglaws();
    command.arg("isoflop").arg(porian()).args([
        "--compute",
        "flops",
        "--size",
        "n",
        "--target",
        "loss",
        "--tokens",
        "t",
    ]);
    for group in [
        "dataset",
        "hparams",
        "warmup",
        "decay",
        "param_count",
        "val",
    ] {
        command.args(["--group", group]);
    }
    let result = stdout_json(command.args(["--bootstrap", "50", "--json", "-"]));
    let groups = result["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 15);
    for group in groups {
        let a = group["n_star"]["exponent"].as_f64().unwrap();
        let [lo, hi] = pair(&group["n_star"]["ci"]);
        assert!(
            lo < a && a < hi && (0.4..0.95).contains(&a),
            "{}: {a}",
            group["group"]
        );
        assert_eq!(group["shape"], "cubic");
    }
}

#[test]
fn isoflop_input_errors_exit_2() {
    fails(
        scalinglaws().arg("isoflop").arg(porian()).args([
            "--compute",
            "flops",
            "--size",
            "n",
            "--target",
            "loss",
            "--shape",
            "spline",
        ]),
        &["--shape spline", "cubic, parabola, parabola3"],
    );
    fails(
        scalinglaws().arg("isoflop").arg(porian()).args([
            "--compute",
            "budget",
            "--size",
            "n",
            "--target",
            "loss",
        ]),
        &["budget"],
    );
}

// ---------------------------------------------------------------------------------------------
// isoflop --envelope (issue 5, third part): Chinchilla's approach 1 on checkpoints
// ---------------------------------------------------------------------------------------------

fn gemstones() -> PathBuf {
    root().join("testdata/gemstones/wandb_dfs/wandb_df_for_fitting_hot_477.jsonl")
}

#[test]
fn isoflop_envelope_finds_the_frontier_of_checkpoints() {
    let analysis = stdout_json(scalinglaws().arg("isoflop").arg(gemstones()).args([
        "--target",
        "final_loss",
        "--where",
        "step > 0",
        "--derive",
        "C=6*params_active_precise*tokens",
        "--compute",
        "C",
        "--size",
        "params_active_precise",
        "--tokens",
        "tokens",
        "--envelope",
        "hull",
        "--run",
        "run_name",
        "--bootstrap",
        "100",
        "--json",
        "-",
    ]));
    let group = &analysis["groups"][0];
    assert_eq!(group["approach"], "envelope");
    assert_eq!(group["runs"], 22);
    let a = group["n_star"]["exponent"].as_f64().unwrap();
    let [lo, hi] = pair(&group["n_star"]["ci"]);
    assert!(
        lo < a && a < hi && (0.4..0.65).contains(&a),
        "{a} [{lo}, {hi}]"
    );
    let points = group["points"].as_array().unwrap();
    assert!(points
        .windows(2)
        .all(|w| w[1]["loss"].as_f64() < w[0]["loss"].as_f64()));
}

#[test]
fn isoflop_envelope_errors_exit_2() {
    let base = |method: &str| {
        let mut command = scalinglaws();
        command.arg("isoflop").arg(gemstones()).args([
            "--target",
            "final_loss",
            "--derive",
            "C=6*params_active_precise*tokens",
            "--compute",
            "C",
            "--size",
            "params_active_precise",
            "--envelope",
            method,
        ]);
        command
    };
    fails(&mut base("grid"), &["--run"]);
    fails(&mut base("convex"), &["--envelope convex", "hull"]);
    fails(base("hull").args(["--bootstrap", "10"]), &["--run"]);
}
