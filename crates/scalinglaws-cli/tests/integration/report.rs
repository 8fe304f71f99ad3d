//! Snapshot tests of what people read: the human fit report, the prediction table and a few
//! error messages. (The law listing is not snapshotted: it follows the library's catalog, and
//! `cli.rs` checks its content.) A change to any of them shows up as a reviewed diff of the
//! `.snap` files under `tests/snapshots/` (`INSTA_UPDATE=always cargo test` rewrites them).
//!
//! The search's internals (termination reason, iteration count, how many distinct optima the
//! starts found, the gap to the runner-up) are redacted: they move with every change to the
//! solver, not with what the report means. The unit test `report::tests::report_of_a_saved_fit`
//! snapshots a whole report, those lines included, from a fixture.

use crate::common;

use common::{scalinglaws, CHINCHILLA};

use std::path::Path;
use std::process::Output;

fn run_in(dir: &Path, args: &[&str]) -> Output {
    scalinglaws()
        .current_dir(dir)
        .args(args)
        .output()
        .expect("run scalinglaws")
}

/// The stdout of `scalinglaws ARGS` in the workspace root, the search's internals redacted.
fn stdout_of(args: &[&str]) -> String {
    redact_search(&common::stdout_of(args))
}

/// Replaces the values of the report's `converged`, `search` and `gap to next` lines.
fn redact_search(text: &str) -> String {
    text.lines()
        .map(|line| {
            let label = line.trim_start();
            let redacted = ["converged ", "search ", "gap to next "]
                .iter()
                .any(|prefix| label.starts_with(prefix));
            if !redacted {
                return line.to_string();
            }
            let width = line.len() - label.len();
            let name_end = ["converged", "search", "gap to next"]
                .iter()
                .find(|name| label.starts_with(*name))
                .map_or(0, |name| name.len());
            let value_start = label[name_end..]
                .find(|c: char| c != ' ')
                .map_or(label.len(), |i| name_end + i);
            format!("{}{}[solver]", " ".repeat(width), &label[..value_start])
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn chinchilla_report() {
    let report = stdout_of(CHINCHILLA);
    insta::assert_snapshot!("chinchilla_report", report);
}

#[test]
fn predict_table() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fit.json");
    let path_text = path.to_str().expect("a UTF-8 temp path");
    stdout_of(&[CHINCHILLA, &["--json", path_text]].concat());
    let table = stdout_of(&["predict", path_text, "N=7e10,1e12", "D=1.4e12,2e13"]);
    insta::assert_snapshot!("predict_table", table);
}

#[test]
fn error_messages() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("runs.csv"),
        "N,D,loss\n1e9,1e10,2.5\n2e9,abc,2.4\n-3e9,3e10,2.3\n",
    )
    .unwrap();
    let cases: &[&[&str]] = &[
        &["fit", "runs.csv", "--law", "chinchilla", "--target", "loss"],
        &["fit", "runs.csv", "--law", "chinchila", "--target", "loss"],
        &["fit", "runs.csv", "--law", "chinchilla", "--target", "lss"],
        &[
            "fit",
            "runs.csv",
            "--formula",
            "E + A*N^-alpha + B*D^",
            "--target",
            "loss",
        ],
        &[
            "fit",
            "runs.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--where",
            "loss 3",
        ],
        &[
            "fit",
            "runs.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--where",
            "D < 1e11",
        ],
        &[
            "fit",
            "runs.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--derive",
            "M=N/Q",
        ],
        &[
            "fit",
            "runs.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--bound",
            "E=1",
        ],
    ];
    let mut transcript = String::new();
    for args in cases {
        let output = run_in(dir.path(), args);
        transcript.push_str(&format!(
            "$ scalinglaws {}\n[exit {}]\n{}\n",
            args.iter()
                .map(|a| if a.contains(' ') {
                    format!("\"{a}\"")
                } else {
                    a.to_string()
                })
                .collect::<Vec<_>>()
                .join(" "),
            output
                .status
                .code()
                .map_or("none".into(), |c| c.to_string()),
            String::from_utf8_lossy(&output.stderr).trim_end()
        ));
    }
    insta::assert_snapshot!("error_messages", transcript);
}
