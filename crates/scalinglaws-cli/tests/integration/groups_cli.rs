//! `scalinglaws fit --group`: a row per group on stdout (or `--table PATH`), a JSON Lines
//! record per group with `--json`, a group that cannot be fitted reported and kept, and what
//! cannot act per group refused with exit 2 naming the option.

use crate::common;

use common::{fails, scalinglaws, stdout};
use serde_json::Value;

/// `curves` learning curves of 20 points (curve `short`, if any, of 2), `curve,x,loss`.
fn curves(dir: &std::path::Path, curves: usize, short: Option<usize>) -> std::path::PathBuf {
    let mut text = String::from("curve,x,loss\n");
    for c in 0..curves {
        let (e, a, alpha) = (1.5 + 0.1 * c as f64, 5.0 + c as f64, 0.3 + 0.02 * c as f64);
        let points = if Some(c) == short { 2 } else { 20 };
        for i in 0..points {
            let x = 10f64.powf(2.0 + 3.0 * i as f64 / 19.0);
            // A deterministic wiggle of about 1 % stands for noise.
            let y = (e + a * x.powf(-alpha)) * (1.0 + 0.01 * ((i * 7 + c * 3) as f64).sin());
            text.push_str(&format!("run-{c},{x},{y}\n"));
        }
    }
    let path = dir.join("curves.csv");
    std::fs::write(&path, text).unwrap();
    path
}

fn fit_groups(path: &std::path::Path, extra: &[&str]) -> std::process::Command {
    let mut command = scalinglaws();
    command
        .arg("fit")
        .arg(path)
        .args([
            "--law",
            "power_offset",
            "--target",
            "loss",
            "--group",
            "curve",
        ])
        .args(extra);
    command
}

#[test]
fn each_group_is_a_row_of_the_table_and_a_json_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = curves(dir.path(), 5, None);
    let table = stdout(&mut fit_groups(&path, &[]));
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 6, "{table}");
    assert_eq!(
        lines[0],
        "curve,rows,status,objective,converged,E,E_stderr,A,A_stderr,alpha,alpha_stderr,reason"
    );
    assert!(lines[1].starts_with("run-0,20,fitted,"), "{}", lines[1]);

    let json = dir.path().join("fits.jsonl");
    let csv = dir.path().join("fits.csv");
    let mut command = fit_groups(&path, &["--table"]);
    command.arg(&csv).arg("--json").arg(&json);
    assert_eq!(stdout(&mut command), "");
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), table);
    let records: Vec<Value> = std::fs::read_to_string(&json)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 5);
    assert_eq!(records[2]["group"]["curve"], "run-2");
    assert_eq!(records[2]["status"], "fitted");
    assert!(records[2]["fit"]["params"]["alpha"]["value"].is_f64());
    // The JSON on stdout instead of the table.
    let piped = stdout(&mut fit_groups(&path, &["--json", "-"]));
    assert_eq!(piped, std::fs::read_to_string(&json).unwrap());
}

#[test]
fn a_group_that_cannot_be_fitted_is_reported_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let path = curves(dir.path(), 4, Some(1));
    let output = fit_groups(&path, &[]).output().unwrap();
    assert!(output.status.success());
    let table = String::from_utf8(output.stdout).unwrap();
    let failed: Vec<&str> = table.lines().filter(|l| l.contains(",failed,")).collect();
    assert_eq!(failed.len(), 1, "{table}");
    assert!(failed[0].starts_with("run-1,2,failed,"), "{}", failed[0]);
    assert!(
        failed[0].contains("2 rows for 3 free parameters"),
        "{}",
        failed[0]
    );
    assert_eq!(table.matches(",fitted,").count(), 3);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("1 of 4 groups could not be fitted"),
        "{stderr}"
    );
}

#[test]
fn what_cannot_act_per_group_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = curves(dir.path(), 2, None);
    fails(
        &mut fit_groups(&path, &["--by", "x"]),
        &["--by", "per group"],
    );
    fails(
        &mut fit_groups(&path, &["--profile", "alpha"]),
        &["--profile", "per group"],
    );
    // QC does not run per group: the rows it would remove were once fitted in silence.
    fails(
        &mut fit_groups(&path, &["--qc", "exclude"]),
        &["--qc", "per group"],
    );
    fails(
        &mut fit_groups(&path, &["--json", "-", "--table", "-"]),
        &["--json -", "--table -"],
    );
    fails(&mut fit_groups(&path, &["--group", "nope"]), &["nope"]);
    // A setting every group fails by is the batch's error, not each group's.
    fails(&mut fit_groups(&path, &["--fix", "Z=1"]), &["--fix", "Z"]);
    let mut html = scalinglaws();
    html.args(["--format", "html", "fit"]).arg(&path).args([
        "--law",
        "power_offset",
        "--target",
        "loss",
        "--group",
        "curve",
    ]);
    fails(&mut html, &["--format"]);
    let mut no_group = scalinglaws();
    no_group.arg("fit").arg(&path).args([
        "--law",
        "power_offset",
        "--target",
        "loss",
        "--table",
        "-",
    ]);
    fails(&mut no_group, &["--group"]);
}
