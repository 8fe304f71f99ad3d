//! Silent drops and contradictions through the command line (issue 21): an option a command
//! accepted and then ignored either acts or is refused with exit 2, a message naming both
//! settings (or the file, row and column) and the fix.

mod common;

use std::path::Path;

use common::{compare_tracks, fails, read_json, root, scalinglaws_in_root, with_chinchilla};

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
