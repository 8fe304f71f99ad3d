//! Silent drops and contradictions through the command line (issue 21): an option a command
//! accepted and then ignored either acts or is refused with exit 2, a message naming both
//! settings (or the file, row and column) and the fix. A fit file that was edited into
//! nonsense, or is another command's output, is refused naming the file and the key; numbers
//! a message echoes read as typed.

use crate::common;

use std::path::Path;
use std::sync::OnceLock;

use serde_json::Value;

use common::{
    chinchilla, chinchilla_formula, compare_tracks, fails, fit_file, isoflop_runs, read_json, root,
    scalinglaws_in_root, stdout, stdout_json, with_chinchilla,
};

/// `plot residuals --json PATH` writes the fit it draws (as `fit --json` does), `plot tracks
/// --json PATH` the comparison it draws, and `--json -` beside `-o -` is refused.
#[test]
fn pictures_and_pages_write_the_json_they_show() {
    let dir = tempfile::tempdir().unwrap();
    let (picture, json) = (dir.path().join("r.svg"), dir.path().join("r.json"));
    let output = with_chinchilla(&["plot", "residuals"])
        .arg("-o")
        .arg(&picture)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(picture.exists());
    let fit = read_json(&json);
    assert_eq!(fit["law"], "chinchilla");
    assert!(
        fit["params"]["alpha"]["value"].as_f64().unwrap() > 0.0,
        "{fit}"
    );

    let tracks = dir.path().join("tracks.json");
    let mut command = scalinglaws_in_root();
    command.args([
        "plot",
        "tracks",
        "examples/tracks/two_recipes.csv",
        "--law",
        "chinchilla",
        "--target",
        "loss",
        "--track",
        "recipe",
        "-o",
    ]);
    let output = command
        .arg(dir.path().join("t.svg"))
        .arg("--json")
        .arg(&tracks)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(read_json(&tracks).get("tracks").is_some(), "no tracks");

    for words in [&["plot", "fit"][..], &["report"]] {
        fails(
            with_chinchilla(words).args(["-o", "-", "--json", "-"]),
            &[
                "--json - and -o - both write to stdout",
                "give one of them a file",
            ],
        );
    }
}

/// A run with an empty track cell is refused with its file, row and column (it used to be a
/// track named "" and the baseline).
#[test]
fn an_empty_track_cell_is_refused_with_its_row() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("examples/tracks/two_recipes.csv")).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[5] = lines[5].replacen("baseline", "", 1);
    let path = dir.path().join("runs.csv");
    std::fs::write(&path, lines.join("\n")).unwrap();
    fails(
        &mut compare_in(&path),
        &[
            "runs.csv, row 5",
            "column 'recipe'",
            "the run has no track (the --track cell is empty)",
            "give every run a track name",
        ],
    );
}

fn compare_in(path: &Path) -> std::process::Command {
    let mut command = scalinglaws_in_root();
    command.arg("compare").arg(path).args([
        "--law",
        "chinchilla",
        "--target",
        "loss",
        "--track",
        "recipe",
    ]);
    command
}

/// A misspelt baseline names the file, the track column and the nearest track.
#[test]
fn a_misspelt_baseline_names_the_column_and_the_nearest_track() {
    fails(
        compare_tracks().args(["--baseline", "nwe"]),
        &[
            "two_recipes.csv, column 'recipe'",
            "--baseline 'nwe' is no run's track",
            "did you mean 'new'?",
        ],
    );
}

/// `compare --set` of a name no allocation reads is refused, as `optimal` refuses it (it was
/// ignored).
#[test]
fn compare_refuses_a_held_variable_the_law_does_not_read() {
    fails(
        compare_tracks().args(["--set", "U=5"]),
        &[
            "--set U",
            "not one of the law's variables besides N and D",
            "remove it",
        ],
    );
}

/// Contradictory options: a fixed parameter with bounds or start values, a name both mapped and
/// derived, `--steps` without `--rollout`, the same log file twice.
#[test]
fn contradictory_options_are_refused_naming_both() {
    fails(
        with_chinchilla(&["fit"]).args(["--fix", "alpha=0.3", "--grid", "alpha=0.1,0.5"]),
        &[
            "--fix 'alpha=0.3' and --grid 'alpha=0.1,0.5' both set alpha",
            "drop one",
        ],
    );
    fails(
        with_chinchilla(&["fit"]).args(["--bound", "E=2:3", "--fix", "E=1"]),
        &["--fix 'E=1' and --bound 'E=2:3' both set E", "drop one"],
    );
    fails(
        with_chinchilla(&["fit"]).args(["--map", "D=Model Size"]),
        &[
            "--map D=\"Model Size\" and --derive \"D=C/(6*N)\" both define D",
            "rename one",
        ],
    );
    fails(
        with_chinchilla(&["backtest"]).args(["--by", "C", "--holdout-top", "1", "--steps", "3"]),
        &[
            "--steps 3 sets the groups of --rollout, which is not given",
            "add --rollout",
        ],
    );
    fails(
        with_chinchilla(&["backtest"]).args(["--by", "C", "--holdout-top", "1", "--origins", "3"]),
        &["--origins 3 sets the origins of --rolling", "add --rolling"],
    );
    fails(
        scalinglaws_in_root().args([
            "schedule",
            "fit",
            "examples/schedule/runs_400m.csv",
            "./examples/schedule/runs_400m.csv",
        ]),
        &[
            "is given twice",
            "its runs would count twice",
            "give each file once",
        ],
    );
}

/// `schedule cooldown --final` above the peak is refused, naming both.
#[test]
fn a_cooldown_ending_above_its_peak_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("examples/schedule/runs_400m.csv")).unwrap();
    let mut logs = String::from("step,lr,loss\n");
    for line in text
        .lines()
        .filter(|l| l.starts_with("cosine_24000,"))
        .step_by(3)
    {
        logs.push_str(line.split_once(',').unwrap().1);
        logs.push('\n');
    }
    std::fs::write(dir.path().join("cosine.csv"), logs).unwrap();
    let fit = scalinglaws_in_root()
        .current_dir(dir.path())
        .args(["schedule", "fit", "cosine.csv", "--warmup", "2160"])
        .args(["--json", "fit.json"])
        .output()
        .unwrap();
    assert_eq!(fit.status.code(), Some(0), "{fit:?}");
    fails(
        scalinglaws_in_root().current_dir(dir.path()).args([
            "schedule", "cooldown", "fit.json", "--at", "8000", "--len", "1000", "--final", "1",
        ]),
        &[
            "--final 1 is not below --peak",
            "give --final between 0 and the peak",
        ],
    );
}

/// The README's fit as `fit --json` writes it, run once per test binary (text: a `Value`
/// would sort the parameters, which the file keeps in the law's order).
fn saved_fit() -> &'static str {
    static FIT: OnceLock<String> = OnceLock::new();
    FIT.get_or_init(|| stdout(chinchilla("fit").args(["--json", "-"])))
}

/// The saved fit with `from` (which it holds) replaced by `to`, written to a fresh `fit.json`.
fn edited_fit(from: &str, to: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let text = saved_fit();
    assert!(text.contains(from), "{from:?} not in {text}");
    fit_file(&text.replacen(from, to, 1))
}

/// The value of `"key": ` on the saved fit's first line holding it, through the comma.
fn line_of(key: &str) -> String {
    let needle = format!("\"{key}\": ");
    let line = saved_fit()
        .lines()
        .find(|line| line.contains(&needle))
        .unwrap_or_else(|| panic!("no {needle}"));
    line.trim().trim_end_matches(',').to_string()
}

/// `predict FIT N=7e10 D=1.4e12`.
fn predict(path: &Path) -> std::process::Command {
    let mut command = scalinglaws_in_root();
    command
        .arg("predict")
        .arg(path)
        .args(["N=7e10", "D=1.4e12"]);
    command
}

/// A hand-edited `formula` of a catalog law was ignored (the catalog's law was evaluated): it is
/// refused naming the file and the key; the catalog's formula, no formula, or law "formula"
/// with the edited text are read.
#[test]
fn an_edited_formula_of_a_catalog_law_is_refused_naming_the_key() {
    let catalog = "\"formula\": \"E + A*N^-alpha + B*D^-beta\"";
    let edited = "\"formula\": \"E + A*N^-alpha + B*D^-beta + 0*D\"";
    let (_dir, path) = edited_fit(catalog, edited);
    let expected = [
        "fit.json: the key `formula` is \"E + A*N^-alpha + B*D^-beta + 0*D\"",
        "the file's law 'chinchilla' is the catalog's \"E + A*N^-alpha + B*D^-beta\"",
        "restore the catalog's formula (or remove the key), or set `law` to \"formula\"",
    ];
    fails(&mut predict(&path), &expected);
    let mut optimal = scalinglaws_in_root();
    fails(
        optimal.arg("optimal").arg(&path).args(["--budget", "1e24"]),
        &expected,
    );
    // Spacing is no edit; a file without the key, or of law "formula", is read.
    let (_dir, path) = edited_fit(catalog, "\"formula\": \"E+A*N^-alpha +  B*D^-beta\"");
    stdout(&mut predict(&path));
    let (_dir, path) = edited_fit(&format!("{catalog},"), "");
    assert!(stdout(&mut predict(&path)).contains("1.97"));
    let formula_law = saved_fit().replacen(catalog, edited, 1).replacen(
        "\"law\": \"chinchilla\"",
        "\"law\": \"formula\"",
        1,
    );
    let (_dir, path) = fit_file(&formula_law);
    stdout(&mut predict(&path));
}

/// A negative residual scale printed "σ −1.00"; a level outside (0, 1) and a negative standard
/// error are refused the same way, naming the file and the key. σ = 0 (an exact fit) is read.
#[test]
fn values_no_fit_writes_are_refused_naming_the_key() {
    let cases = [
        ("stats.residual_scale", "residual_scale", "-1", "-1"),
        ("calibration.level", "level", "1.5", "1.5"),
        ("params.E.stderr", "stderr", "-0.1", "-0.1"),
        ("calibration.tau_per_decade", "tau_per_decade", "-2.0", "-2"),
        // A negative compute factor put every point inside the data (0 decades out).
        ("calibration.rule.factor", "factor", "-6.0", "-6"),
        ("calibration.largest_scale", "largest_scale", "0.0", "0"),
        ("calibration.prior.model.bias_sd", "bias_sd", "-1.5", "-1.5"),
        (
            "calibration.prior.evidence_weight",
            "evidence_weight",
            "-1",
            "-1",
        ),
    ];
    for (key, field, value, shown) in cases {
        let line = line_of(field);
        let (_dir, path) = edited_fit(&line, &format!("\"{field}\": {value}"));
        fails(
            &mut predict(&path),
            &[
                "fit.json: not a consistent fit file",
                &format!("`{key}` is {shown}, and a fit writes"),
                "was the file edited? Restore the value or fit again",
            ],
        );
    }
    let (_dir, path) = edited_fit(&line_of("residual_scale"), "\"residual_scale\": 0.0");
    assert!(stdout(&mut predict(&path)).contains("residual σ 0"));
}

/// A file that is not a fit said "unsupported fit file schema_version None": it says what the
/// file is (another command's output by its `kind`, not JSON, not an object, nested too deep).
/// Every document starts with its `kind` and `schema_version` (issue 49).
#[test]
fn a_file_that_is_not_a_fit_says_what_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let isoflop = dir.path().join("isoflop.json");
    let output = isoflop_runs().arg("--json").arg(&isoflop).output().unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let written = std::fs::read_to_string(&isoflop).unwrap();
    assert!(
        written.starts_with("{\n  \"kind\": \"isoflop\",\n  \"schema_version\": 1,"),
        "{}",
        &written[..80]
    );
    let fix = "give the JSON written by `scalinglaws fit --json`";
    fails(
        &mut predict(&isoflop),
        &[
            "isoflop.json: not a fit file: it is the JSON written by `scalinglaws isoflop --json`",
            fix,
        ],
    );
    let compare = r#"{"kind": "compare", "schema_version": 1, "tracks": [], "pairs": []}"#;
    let cases = [
        (
            compare,
            "it is the JSON written by `scalinglaws compare --json`",
        ),
        (
            r#"{"kind": "schedule_fit", "schema_version": 1}"#,
            "it is the JSON written by `scalinglaws schedule fit --json`",
        ),
        (
            r#"{"kind": "cooldown_study"}"#,
            "it is the JSON written by `scalinglaws schedule cooldown-study --json`",
        ),
        ("{}", "not a fit file: it has no `schema_version`; give"),
        (
            "[1, 2]",
            "not a fit file: it is a JSON array, not an object",
        ),
        (
            "N,D,loss\n",
            "not a fit file: it is not JSON (expected value at line 1 column 1)",
        ),
    ];
    for (text, expected) in cases {
        let (_dir, path) = fit_file(text);
        fails(&mut predict(&path), &["fit.json: ", expected, fix]);
    }
    let (_dir, path) = fit_file(&"[".repeat(100_000));
    fails(
        &mut predict(&path),
        &[
            "fit.json: not a fit file: its JSON nests more than 128 levels deep",
            fix,
        ],
    );
}

/// R² of a constant target was 1.0 (SS_tot was rounding): it is absent, with a warning.
#[test]
fn a_constant_target_has_no_r_squared_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("N,loss\n");
    for i in 0..12 {
        csv.push_str(&format!("{},2.5\n", 1e6 * 2f64.powi(i)));
    }
    std::fs::write(dir.path().join("flat.csv"), csv).unwrap();
    let mut fit = scalinglaws_in_root();
    fit.arg("fit").arg(dir.path().join("flat.csv")).args([
        "--formula",
        "E + A*N^-alpha",
        "--target",
        "loss",
    ]);
    let warning = "the target is 2.5 in every row: R² is undefined (not reported)";
    let report = stdout(&mut fit);
    assert!(report.contains(warning), "{report}");
    assert!(
        report.lines().any(|l| l.trim() == "R²           -"),
        "{report}"
    );
    let json = stdout_json(fit.args(["--json", "-"]));
    assert_eq!(json["stats"]["r2"], Value::Null, "{json}");
    assert!(
        json["warnings"][0].as_str().unwrap().starts_with(warning),
        "{json}"
    );
}

/// A formula that reads the target column fitted it perfectly, without a word: refused,
/// pointing at the name; a catalog law whose variable is mapped to the target likewise.
#[test]
fn a_law_reading_the_target_column_is_refused() {
    let why = "the formula uses the target column `loss` as a variable; a law predicts the \
               target from other columns";
    fails(
        &mut chinchilla_formula("a*loss"),
        &[
            "--formula: formula error at character 3",
            why,
            "choose another --target",
        ],
    );
    fails(
        &mut chinchilla_formula("E + A*N^-alpha + 0*loss"),
        &["--formula: formula error at character 20", why],
    );
    let mut power = scalinglaws_in_root();
    power.args([
        "fit",
        common::CHINCHILLA[1],
        "--law",
        "power",
        "--target",
        "loss",
    ]);
    fails(
        power.args(["--map", "x=loss"]),
        &[
            "the law 'power' reads the target column `loss` as a variable (named 'x')",
            "or name another column for the variable with --map x=COLUMN",
        ],
    );
}

/// Echoed numbers read as typed: `--budget=-1` said `-1e0`, a bound of 1e300 printed 301
/// digits.
#[test]
fn numbers_in_messages_read_as_typed() {
    let output = compare_tracks().arg("--budget=-1").output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("-1e0"), "{stderr}");
    fails(
        compare_tracks().arg("--budget=-1"),
        &["--budget -1: a budget is a positive number of FLOPs"],
    );
    fails(
        chinchilla("fit").args(["--bound", "E=1e300:0.1"]),
        &["--bound 'E=1e300:0.1': the lower bound 1e300 must be below the upper bound 0.1"],
    );
    let (_dir, path) = fit_file(saved_fit());
    let mut predict = scalinglaws_in_root();
    fails(
        predict.arg("predict").arg(&path).args(["N=-1e300", "D=1"]),
        &["'N=-1e300': N must be positive"],
    );
}

/// `--fix E=1e300` left no start with a finite objective and exited 1 (a fit that could not be
/// done): it is the fixed value's fault, so exit 2 naming it and the fix.
#[test]
fn a_fixed_value_that_leaves_no_finite_objective_is_refused() {
    fails(
        chinchilla("fit").args(["--fix", "E=1e300"]),
        &[
            "--fix E=1e300: with this value no start gives a finite objective",
            "while with it free the starts do; fix it at a value on the scale of the data, or \
             drop it",
        ],
    );
}

/// `soft_l1` and `cauchy` at a scale far above every residual are least squares: the fit moves
/// off its start to the least-squares optimum (their costs lost every digit to cancellation
/// from `--f-scale 1e8`, so the first start was returned as "converged").
#[test]
fn robust_losses_at_a_large_scale_fit_like_least_squares() {
    let alpha = |loss: &str, scale: &str| -> f64 {
        let fit = stdout_json(with_chinchilla(&["fit"]).args([
            "--loss",
            loss,
            "--f-scale",
            scale,
            "--no-calibration",
            "--json",
            "-",
        ]));
        assert_eq!(fit["converged"], true, "{fit}");
        fit["params"]["alpha"]["value"].as_f64().unwrap()
    };
    let least_squares = alpha("linear", "1");
    for loss in ["soft_l1", "cauchy"] {
        for scale in ["1e5", "1e8"] {
            let robust = alpha(loss, scale);
            assert!(
                (robust / least_squares - 1.0).abs() < 1e-4,
                "{loss} at f_scale {scale}: alpha {robust} vs least squares {least_squares}"
            );
        }
    }
}
