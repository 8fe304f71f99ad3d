//! End-to-end tests of `scalinglaws qc` and `fit --qc`: the report and document list every flag
//! with its row, rule, value and threshold; `fit --qc exclude` removes the flagged rows and
//! says which; bad settings exit 2 naming the option.

use std::io::Write as _;

use crate::common;

use common::{fails, scalinglaws, stdout, stdout_json};

/// A file of runs of L = 1.7 + 400 N^-0.34, six seeds at each of eight sizes, with a diverged
/// seed (row 21), a repeated row (row 49) and a missing loss (row 50).
fn dirty_file() -> tempfile::NamedTempFile {
    let mut file = tempfile::Builder::new().suffix(".csv").tempfile().unwrap();
    writeln!(file, "N,loss").unwrap();
    let mut lines = Vec::new();
    for k in 0..8 {
        let n = 1e7 * 2.5f64.powi(k);
        for seed in 0..6 {
            let i = lines.len();
            let jitter = ((i * 7919 + 13) % 201) as f64 / 100.0 - 1.0;
            let loss = if i == 20 {
                9.5
            } else {
                (1.7 + 400.0 * n.powf(-0.34)) * (1.0 + 0.003 * jitter)
            };
            let _ = seed;
            lines.push(format!("{n},{loss}"));
        }
    }
    lines.push(lines[3].clone());
    lines.push("1e7,".to_string());
    writeln!(file, "{}", lines.join("\n")).unwrap();
    file
}

#[test]
fn qc_lists_every_flag_with_its_rule_value_and_threshold() {
    let file = dirty_file();
    let path = file.path().to_str().unwrap();
    let report = stdout(scalinglaws().args(["qc", path, "--target", "loss", "--scale", "N"]));
    assert!(report.starts_with("[[Quality control]]"), "{report}");
    assert!(report.contains("row 21: neighbour_outlier"), "{report}");
    assert!(
        report.contains("row 49: duplicate: repeats row 4 exactly"),
        "{report}"
    );
    assert!(
        report.contains("row 50: non_finite: the loss is empty"),
        "{report}"
    );
    let document = stdout_json(scalinglaws().args([
        "qc",
        path,
        "--target",
        "loss",
        "--law",
        "power_offset",
        "--map",
        "x=N",
        "--json",
        "-",
    ]));
    assert_eq!(document["kind"], "qc");
    let flags = document["flags"].as_array().unwrap();
    let law = flags
        .iter()
        .find(|f| f["rule"] == "law_outlier")
        .expect("the diverged seed is far from the law");
    assert_eq!(law["row"], 21);
    assert!(law["value"].as_f64().unwrap() > 3.5);
    assert_eq!(law["threshold"], 3.5);
}

#[test]
fn fit_warns_by_default_and_exclude_removes_and_lists_the_rows() {
    let file = dirty_file();
    let path = file.path().to_str().unwrap();
    let fit = [
        "fit",
        path,
        "--target",
        "loss",
        "--law",
        "power_offset",
        "--map",
        "x=N",
    ];
    // The default keeps every row, so the missing loss stops the fit with the table's own
    // message (file, row, line and column), as without QC.
    fails(
        scalinglaws().args(fit),
        &["row 50 (line 51), column 'loss'"],
    );
    let report = stdout(scalinglaws().args(fit).args(["--qc", "exclude"]));
    assert!(
        report.contains("47 used of 50 read; 3 removed by --qc exclude"),
        "{report}"
    );
    assert!(
        report.contains("removed before the fit: 3 rows (21, 49, 50)"),
        "{report}"
    );
    let json = stdout_json(
        scalinglaws()
            .args(fit)
            .args(["--qc", "exclude", "--json", "-"]),
    );
    assert_eq!(json["qc"]["removed"], serde_json::json!([21, 49, 50]));
    assert_eq!(json["n_obs"], 47);
    let off = stdout_json(
        scalinglaws()
            .args(fit)
            .args(["--qc", "off", "--where", "loss > 0", "--json", "-"]),
    );
    assert!(off.get("qc").is_none());
}

#[test]
fn bad_qc_settings_exit_2_naming_the_option() {
    let file = dirty_file();
    let path = file.path().to_str().unwrap();
    let qc = ["qc", path, "--target", "loss"];
    fails(
        scalinglaws().args(qc).args(["--cutoff", "0"]),
        &["--cutoff 0"],
    );
    fails(
        scalinglaws().args(qc).args(["--duplicate-tolerance", "2"]),
        &["--duplicate-tolerance 2"],
    );
    fails(
        scalinglaws().args(qc).args(["--warmup", "100"]),
        &["--warmup", "--step COLUMN"],
    );
    fails(
        scalinglaws().args(qc).args(["--scale", "Nx"]),
        &["'Nx'", "did you mean 'N'"],
    );
    fails(
        scalinglaws().args(qc).args(["--budget", "nosuch"]),
        &["nosuch"],
    );
    fails(
        scalinglaws().args([
            "fit",
            path,
            "--target",
            "loss",
            "--law",
            "power_offset",
            "--map",
            "x=N",
            "--qc",
            "drop",
        ]),
        &["--qc drop", "warn", "exclude"],
    );
}

#[test]
fn the_bundled_synthetic_examples_give_no_flag() {
    for args in [
        &[
            "fit",
            "examples/isoflop/runs.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
        ][..],
        &[
            "fit",
            "examples/tracks/two_recipes.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
        ][..],
    ] {
        let json = stdout_json(common::scalinglaws_in_root().args(args).args([
            "--no-calibration",
            "--json",
            "-",
        ]));
        assert!(json.get("qc").is_none(), "{args:?}: {}", json["qc"]);
    }
}
