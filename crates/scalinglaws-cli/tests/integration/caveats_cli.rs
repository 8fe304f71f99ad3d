//! A fit's caveats travel: a fit of the README's data with E held above its optimum by
//! `--bound E=1.9:3` ends with E at its lower bound, and every command that uses its
//! predictions (`predict`, `optimal`, `design`, the report's page) repeats the warning, as a
//! line of text and as `fit_caveats` in the JSON; a fit without caveats prints no such line.

use crate::common;

use std::path::{Path, PathBuf};

use common::{chinchilla, number, stdout, stdout_json, with_chinchilla, CHINCHILLA};
use serde_json::Value;

const AT_BOUND: &str =
    "warning: the fit's E is at its lower bound (1.9): predictions beyond the data lean on a boundary value";

/// The README's fit with E bounded to [1.9, 3], saved in `dir`.
fn bounded_fit(dir: &Path) -> PathBuf {
    let path = dir.join("bounded.json");
    let fit = stdout(
        chinchilla("fit")
            .args(["--bound", "E=1.9:3", "--json"])
            .arg(&path),
    );
    assert!(fit.contains("E = 1.900000e0 sits at a bound"), "{fit}");
    path
}

/// The caveat at E's lower bound among `caveats` (a JSON list).
fn assert_at_bound(caveats: &Value) {
    let list = caveats
        .as_array()
        .unwrap_or_else(|| panic!("no fit_caveats list: {caveats}"));
    let at_bound = list
        .iter()
        .find(|c| c["kind"] == "at_bound")
        .unwrap_or_else(|| panic!("no at_bound caveat: {caveats}"));
    assert_eq!(at_bound["param"], "E", "{at_bound}");
    assert_eq!(at_bound["side"], "lower", "{at_bound}");
    assert!(
        (number(&at_bound["bound"]) - 1.9).abs() < 1e-12,
        "{at_bound}"
    );
    assert!(
        (number(&at_bound["value"]) - 1.9).abs() < 1e-5,
        "{at_bound}"
    );
}

#[test]
fn predict_and_optimal_repeat_a_bounded_parameter() {
    let dir = tempfile::tempdir().unwrap();
    let fit = bounded_fit(dir.path());
    let predict = || {
        let mut command = common::scalinglaws();
        command
            .arg("predict")
            .arg(&fit)
            .args(["N=7e11", "D=1.4e13"]);
        command
    };
    let text = stdout(&mut predict());
    assert_eq!(text.matches(AT_BOUND).count(), 1, "{text}");
    let markdown = stdout(predict().args(["--format", "markdown"]));
    assert!(markdown.contains(AT_BOUND), "{markdown}");
    let json = stdout_json(predict().args(["--json", "-"]));
    assert_at_bound(&json["fit_caveats"]);

    let optimal = || {
        let mut command = common::scalinglaws();
        command
            .arg("optimal")
            .arg(&fit)
            .args(["--budget", "1e24,1e25"]);
        command
    };
    let text = stdout(&mut optimal());
    assert!(text.contains(&format!("    {AT_BOUND}\n")), "{text}");
    let markdown = stdout(optimal().args(["--format", "markdown"]));
    assert!(markdown.contains(AT_BOUND), "{markdown}");
    let json = stdout_json(optimal().args(["--json", "-"]));
    assert_at_bound(&json["fit_caveats"]);
}

#[test]
fn design_and_the_report_repeat_a_bounded_parameter() {
    let design = || {
        let mut command = with_chinchilla(&["design"]);
        command.args([
            "--bound",
            "E=1.9:3",
            "--goal",
            "optimal_loss@1e23",
            "--candidates",
            "N=1e8..1e11,D=1e9..1e13",
            "--runs",
            "2",
            "--simulations",
            "4",
            "--draws",
            "4",
        ]);
        command
    };
    let text = stdout(&mut design());
    assert!(text.contains(AT_BOUND), "{text}");
    assert_at_bound(&stdout_json(design().args(["--json", "-"]))["fit_caveats"]);

    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("report.html");
    stdout(
        with_chinchilla(&["report"])
            .args(["--bound", "E=1.9:3", "-o"])
            .arg(&page),
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains(&format!("<p class=\"warning\">{AT_BOUND}</p>")),
        "no caveat in the page's allocation"
    );
}

/// The README's fit has no caveat: its predictions print no warning and write no
/// `fit_caveats`.
#[test]
fn a_fit_without_caveats_adds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let fit = dir.path().join("fit.json");
    stdout(
        common::scalinglaws_in_root()
            .args(CHINCHILLA)
            .arg("--json")
            .arg(&fit),
    );
    let mut predict = common::scalinglaws();
    predict
        .arg("predict")
        .arg(&fit)
        .args(["N=7e10", "D=1.4e12"]);
    let text = stdout(&mut predict);
    assert!(!text.contains("warning:"), "{text}");
    let json = stdout_json(predict.args(["--json", "-"]));
    assert!(json.get("fit_caveats").is_none(), "{json}");
    let mut optimal = common::scalinglaws();
    optimal.arg("optimal").arg(&fit).args(["--budget", "1e24"]);
    let text = stdout(&mut optimal);
    assert!(!text.contains("warning:"), "{text}");
    let json = stdout_json(optimal.args(["--json", "-"]));
    assert!(json.get("fit_caveats").is_none(), "{json}");
}
