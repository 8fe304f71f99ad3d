//! End-to-end tests of `--sweep`: `fit` reports and writes each cell's frontier and the runs
//! it set aside, `select` weighs laws on the same frontier, `design` plans from it, and what a
//! frontier cannot act with exits 2 naming the option.

use std::io::Write as _;

use crate::common;

use common::{fails, scalinglaws, stdout, stdout_json};

/// The law every test file is drawn from.
fn law(n: f64, d: f64) -> f64 {
    1.8 + 400.0 * n.powf(-0.34) + 2000.0 * d.powf(-0.36)
}

/// A run's loss at learning rate `lr`: the law × exp(0.05 (ln lr − ln 2.8e-3)²), so the log
/// loss is exactly quadratic in log lr and every cell's frontier is the law.
fn swept_loss(n: f64, d: f64, lr: f64) -> f64 {
    law(n, d) * (0.05 * (lr / 2.8e-3f64).ln().powi(2)).exp()
}

/// Runs of L = 1.8 + 400 N^-0.34 + 2000 D^-0.36 at 4 sizes × 3 token counts, each swept over
/// 4 learning rates a factor 2 apart, the loss × exp(0.05 (ln lr − ln lr*)²), lr* between the
/// second and third rates; a group column for `--group`.
fn sweep_file() -> tempfile::NamedTempFile {
    let mut file = tempfile::Builder::new().suffix(".csv").tempfile().unwrap();
    writeln!(file, "N,D,lr,loss,g").unwrap();
    for i in 0..4 {
        let n = 2e7 * 3f64.powi(i);
        for j in 0..3 {
            let d = 20.0 * n * 2f64.powi(j);
            for k in 0..4 {
                let lr = 1e-3 * 2f64.powi(k);
                writeln!(file, "{n},{d},{lr},{},a", swept_loss(n, d, lr)).unwrap();
            }
        }
    }
    file
}

#[test]
fn fit_reports_and_writes_each_cells_frontier() {
    let file = sweep_file();
    let path = file.path().to_str().unwrap();
    let fit = [
        "fit",
        path,
        "--target",
        "loss",
        "--law",
        "chinchilla",
        "--sweep",
        "lr",
    ];
    let report = stdout(scalinglaws().args(fit).arg("--no-calibration"));
    assert!(report.contains("[[Sweep frontier]]"), "{report}");
    assert!(report.contains("(--sweep lr)"), "{report}");
    assert!(
        report.contains("12 cells (one per value of N, D) from 48 runs"),
        "{report}"
    );
    assert!(report.contains("set aside: 36 runs"), "{report}");
    let json = stdout_json(
        scalinglaws()
            .args(fit)
            .args(["--no-calibration", "--json", "-"]),
    );
    assert_eq!(json["n_obs"], 12);
    let cells = json["sweep"]["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 12);
    for cell in cells {
        assert_eq!(cell["method"], "curve", "{cell}");
        assert_eq!(cell["rows"].as_array().unwrap().len(), 4);
        let lr = cell["optimum"][0].as_f64().unwrap();
        assert!((lr / 2.8e-3 - 1.0).abs() < 1e-9, "{cell}");
    }
}

#[test]
fn select_weighs_laws_on_one_frontier() {
    let file = sweep_file();
    let path = file.path().to_str().unwrap();
    let json = stdout_json(scalinglaws().args([
        "select",
        path,
        "--target",
        "loss",
        "--law",
        "chinchilla",
        "--law",
        "chinchilla[E=1.8]",
        "--sweep",
        "lr",
        "--no-calibration",
        "--json",
        "-",
    ]));
    let text = json.to_string();
    assert!(text.contains("chinchilla[E=1.8]"), "{text}");
    // Laws of different variables have different cells: refused, naming the option.
    fails(
        scalinglaws().args([
            "select",
            path,
            "--target",
            "loss",
            "--law",
            "chinchilla",
            "--formula",
            "E + A*N^-alpha",
            "--sweep",
            "lr",
        ]),
        &["--sweep", "cells and frontiers differ"],
    );
}

#[test]
fn what_a_frontier_cannot_act_with_is_refused_by_name() {
    let file = sweep_file();
    let path = file.path().to_str().unwrap();
    let fit = |extra: &[&str]| {
        let mut c = scalinglaws();
        c.args(["fit", path, "--target", "loss", "--law", "chinchilla"])
            .args(extra);
        c
    };
    fails(
        &mut fit(&["--sweep", "N"]),
        &["--sweep N", "law's variable N"],
    );
    fails(
        &mut fit(&["--sweep", "loss"]),
        &["--sweep loss", "is the target"],
    );
    fails(
        &mut fit(&["--sweep", "rate"]),
        &["--sweep", "no such column"],
    );
    fails(
        &mut fit(&["--sweep", "lr", "--group", "g"]),
        &["--sweep", "not run per group"],
    );
    fails(
        scalinglaws().args([
            "design",
            "--law",
            "chinchilla",
            "--prior",
            "E=1.8,A=400,alpha=0.3..0.4,B=2000,beta=0.36",
            "--noise",
            "0.01",
            "--goal",
            "loss@N=1e9,D=2e10",
            "--candidates",
            "N=1e7..1e8,D=2e8..2e9",
            "--sweep",
            "lr",
        ]),
        &["--sweep", "--prior"],
    );
}

/// IsoFLOP profiles of a learning-rate sweep: 3 budgets × 5 sizes, each swept over 4 rates.
fn isoflop_sweep_file() -> tempfile::NamedTempFile {
    let mut file = tempfile::Builder::new().suffix(".csv").tempfile().unwrap();
    writeln!(file, "C,N,lr,loss").unwrap();
    for c in [1e17, 1e18, 1e19] {
        for k in -2..=2 {
            let n = (c / 120.0f64).sqrt() * 2f64.powf(k as f64 * 0.5);
            let d = c / (6.0 * n);
            for j in 0..4 {
                let lr = 1e-3 * 2f64.powi(j);
                writeln!(file, "{c},{n},{lr},{}", swept_loss(n, d, lr)).unwrap();
            }
        }
    }
    file
}

#[test]
fn isoflop_profiles_read_each_cells_frontier() {
    let file = isoflop_sweep_file();
    let path = file.path().to_str().unwrap();
    let args = [
        "isoflop",
        path,
        "--compute",
        "C",
        "--size",
        "N",
        "--target",
        "loss",
    ];
    let report = stdout(scalinglaws().args(args).args(["--sweep", "lr"]));
    assert!(
        report.contains("15 cells (one per value of C, N) from 60 runs"),
        "{report}"
    );
    assert!(
        report.contains("not added to the intervals here"),
        "{report}"
    );
    let json = stdout_json(
        scalinglaws()
            .args(args)
            .args(["--sweep", "lr", "--json", "-"]),
    );
    let budgets = json["groups"][0]["budgets"].as_array().unwrap();
    assert!(budgets.iter().all(|b| b["points"] == 5), "{budgets:?}");
    // Each profile's minimum is the law's (the frontier removes the penalty exactly).
    let first = &budgets[0];
    let (n, loss) = (
        first["N"].as_f64().unwrap(),
        first["loss"].as_f64().unwrap(),
    );
    let truth = law(n, 1e17 / (6.0 * n));
    assert!((loss / truth - 1.0).abs() < 0.01, "{loss} vs {truth}");
    fails(
        scalinglaws()
            .args(args)
            .args(["--sweep", "lr", "--group", "lr"]),
        &["--sweep", "not run per group"],
    );
}

#[test]
fn sensitivity_leaves_out_scale_groups_of_the_frontier() {
    let file = sweep_file();
    let path = file.path().to_str().unwrap();
    let json = stdout_json(scalinglaws().args([
        "sensitivity",
        path,
        "--target",
        "loss",
        "--law",
        "chinchilla",
        "--sweep",
        "lr",
        "--by",
        "N",
        "--at",
        "N=1e10",
        "--at",
        "D=2e11",
        "--json",
        "-",
    ]));
    assert_eq!(json["groups"].as_array().unwrap().len(), 4, "{json}");
}

#[test]
fn backtest_scores_the_frontier_of_the_held_out_sizes() {
    let file = sweep_file();
    let path = file.path().to_str().unwrap();
    let args = [
        "backtest",
        path,
        "--target",
        "loss",
        "--law",
        "chinchilla",
        "--by",
        "N",
        "--holdout-top",
        "1",
        "--no-calibration",
    ];
    let json = stdout_json(
        scalinglaws()
            .args(args)
            .args(["--sweep", "lr", "--json", "-"]),
    );
    // 12 cells, the 3 of the largest size held out, each scored against its frontier: the law.
    assert_eq!(json["sweep"]["cells"].as_array().unwrap().len(), 12);
    let points = json["splits"][0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 3);
    for point in points {
        let cell = json["sweep"]["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["best_row"] == point["row"])
            .unwrap();
        let (n, d) = (
            cell["values"][0].as_f64().unwrap(),
            cell["values"][1].as_f64().unwrap(),
        );
        let actual = point["actual"].as_f64().unwrap();
        assert!((actual / law(n, d) - 1.0).abs() < 1e-9, "{point}");
    }
    let text = stdout(scalinglaws().args(args).args(["--sweep", "lr"]));
    assert!(text.contains("[[Sweep frontier]]"), "{text}");
    // Without the sweep, every run of the largest size is scored.
    let every = stdout_json(scalinglaws().args(args).args(["--json", "-"]));
    assert_eq!(every["splits"][0]["points"].as_array().unwrap().len(), 12);
    assert!(every.get("sweep").is_none());
    // Ordering scale by the swept column is refused, naming both options.
    let mut by_lr = args.to_vec();
    by_lr[7] = "lr";
    fails(
        scalinglaws().args(&by_lr).args(["--sweep", "lr"]),
        &["--by lr", "is a swept column"],
    );
}
