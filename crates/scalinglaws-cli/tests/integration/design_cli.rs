//! `scalinglaws design` through the command line, on the bundled Chinchilla data (the README's
//! recipe): the report's sections and runs, the JSON within the spend, the CSV of the runs to
//! launch, a planned campaign, candidates from a file, the picture, and bad input refused with
//! exit 2 naming the option.

use crate::common;

use common::{fails, stdout, with_chinchilla};
use serde_json::Value;

const GOALS: &[&str] = &[
    "--goal",
    "optimal_loss@1e23",
    "--goal",
    "tokens_per_param@1e23",
];

/// `design` on the README's data with the two goals and `extra`.
fn design(extra: &[&str]) -> std::process::Command {
    let mut command = with_chinchilla(&["design"]);
    command.args(GOALS).args(extra);
    command
}

/// The grid, spend and batch size of every test but the file's, with `extra`.
fn design_grid(extra: &[&str]) -> std::process::Command {
    let mut command = design(&[
        "--candidates",
        "N=1e8..1e11,D=1e9..1e13",
        "--spend",
        "1e21",
        "--runs",
        "8",
    ]);
    command.args(extra);
    command
}

/// The lines of the section `title` of a text report (up to the next blank line).
fn section<'a>(report: &'a str, title: &str) -> Vec<&'a str> {
    let start = report
        .find(&format!("[[{title}]]\n"))
        .unwrap_or_else(|| panic!("no [[{title}]] in:\n{report}"));
    report[start..]
        .lines()
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .collect()
}

#[test]
fn the_report_shows_the_design_its_runs_and_its_targets() {
    let report = stdout(&mut design_grid(&["--simulations", "20", "--draws", "8"]));
    for title in ["[[Design]]", "[[Runs to launch]]", "[[Targets]]"] {
        assert!(report.contains(title), "{title} missing:\n{report}");
    }
    assert!(!report.contains("[[Campaign]]"), "{report}");
    let runs = section(&report, "Runs to launch");
    let header: Vec<&str> = runs[0].split_whitespace().collect();
    assert_eq!(
        header,
        [
            "#",
            "N",
            "D",
            "cost",
            "optimal_loss@1e23",
            "tokens_per_param@1e23"
        ]
    );
    let rows = runs[1..]
        .iter()
        .take_while(|line| line.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .count();
    assert!((1..=8).contains(&rows), "{rows} runs:\n{report}");
    let targets = section(&report, "Targets");
    assert!(targets[1].trim_start().starts_with("optimal_loss@1e23"));
    assert!(targets[2].trim_start().starts_with("tokens_per_param@1e23"));
    assert!(
        !targets[1].contains(" - "),
        "20 simulations give a simulated width: {report}"
    );
    // The loss goal lies beyond the fitted runs: the notes add the law's form error there,
    // which the widths (of the parameters) leave out (issue 48); D*/N* gets no such note.
    let notes = section(&report, "Notes").join("\n");
    assert!(
        notes.contains("optimal_loss@1e23 lies 0.89 decades beyond the fitted runs")
            && notes.contains("also carries the law's form error"),
        "{report}"
    );
    assert!(!notes.contains("tokens_per_param@1e23 lies"), "{report}");
}

#[test]
fn the_json_stays_within_the_spend_and_the_csv_lists_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("runs.csv");
    let mut command = design_grid(&["--simulations", "20", "--draws", "8", "--json", "-"]);
    command.arg("--csv").arg(&csv);
    let result: Value = serde_json::from_str(&stdout(&mut command)).expect("JSON on stdout");
    let runs = result["runs"].as_array().unwrap();
    assert!((1..=8).contains(&runs.len()), "{result}");
    let total = result["cost"].as_f64().unwrap();
    assert!(total > 0.0 && total <= 1e21, "total cost {total}");
    let sum: f64 = runs.iter().map(|r| r["cost"].as_f64().unwrap()).sum();
    assert!((sum / total - 1.0).abs() < 1e-9, "{sum} against {total}");
    assert_eq!(result["targets"].as_array().unwrap().len(), 2);

    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "N,D,cost,width_after_optimal_loss@1e23,width_after_tokens_per_param@1e23"
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|line| line.split(',').map(|c| c.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), runs.len());
    for (row, run) in rows.iter().zip(runs) {
        assert_eq!(row.len(), 5);
        assert_eq!(row[0], run["point"]["N"].as_f64().unwrap());
        assert_eq!(row[1], run["point"]["D"].as_f64().unwrap());
        assert_eq!(row[2], run["cost"].as_f64().unwrap());
    }
}

#[test]
fn a_sequential_campaign_has_a_row_per_round() {
    let report = stdout(&mut design_grid(&[
        "--sequential",
        "2",
        "--simulations",
        "0",
        "--draws",
        "8",
    ]));
    let rounds = section(&report, "Campaign");
    assert!(rounds[0].contains("total cost"), "{report}");
    assert!(rounds[1].trim_start().starts_with("1 "), "{report}");
    assert!(rounds[2].trim_start().starts_with("2 "), "{report}");
}

#[test]
fn candidates_from_a_file_are_the_only_runs_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("candidates.csv");
    std::fs::write(
        &file,
        "name,N,D\nsmall,1e8,2e9\nmiddle,4e8,8e9\nlarge,1e9,2e10\n",
    )
    .unwrap();
    let mut command = design(&["--simulations", "0", "--draws", "8", "--json", "-"]);
    command.arg("--candidates-file").arg(&file);
    let result: Value = serde_json::from_str(&stdout(&mut command)).unwrap();
    assert_eq!(result["candidates"], 3);
    let listed = [(1e8, 2e9), (4e8, 8e9), (1e9, 2e10)];
    for run in result["runs"].as_array().unwrap() {
        let point = (
            run["point"]["N"].as_f64().unwrap(),
            run["point"]["D"].as_f64().unwrap(),
        );
        assert!(listed.contains(&point), "{run}");
    }

    std::fs::write(&file, "N,tokens\n1e8,2e9\n").unwrap();
    let mut command = design(&["--simulations", "0", "--draws", "8"]);
    command.arg("--candidates-file").arg(&file);
    fails(&mut command, &["--candidates-file", "'D'"]);
}

#[test]
fn bad_input_is_refused_naming_the_option() {
    let quick = ["--simulations", "0", "--draws", "8"];
    let mut goal = with_chinchilla(&["design"]);
    goal.args([
        "--goal",
        "optimal_loss1e23",
        "--candidates",
        "N=1e8..1e11,D=1e9..1e13",
    ]);
    fails(&mut goal, &["--goal", "'@'"]);
    let grid = ["--candidates", "N=1e8..1e11,D=1e9..1e13"];
    fails(design(&grid).args(["--runs", "0"]), &["--runs"]);
    fails(
        &mut design(&["--candidates", "N1e8..1e11,D=1e9..1e13"]),
        &["--candidates", "'='"],
    );
    let mut missing_d = design(&["--candidates", "N=1e8..1e11"]);
    missing_d.args(quick);
    fails(&mut missing_d, &["--candidates", "'D'"]);
    fails(
        design(&grid).args(["--spend", "-1"]),
        &["--spend", "positive"],
    );
    fails(
        &mut design_grid(&["--tokens-per-param", "500..2"]),
        &["--tokens-per-param"],
    );
    fails(&mut design(&[]), &["--candidates"]);
    fails(
        &mut design_grid(&["--json", "-", "--csv", "-"]),
        &["--json -", "--csv -"],
    );
}

/// What a reviewer found accepted or misread, now refused before any work: a name that is
/// not a variable of the law, a key given twice, a bound misread as `.1e13`, a goal undefined
/// at the estimate, and work beyond the caps on memory and search time.
#[test]
fn misread_input_and_unbounded_work_are_refused() {
    let quick = ["--simulations", "0", "--draws", "8"];
    let goal = |g: &str| {
        let mut c = with_chinchilla(&["design"]);
        c.args(["--goal", g, "--candidates", "N=1e8..1e11,D=1e9..1e13"]);
        c.args(quick);
        c
    };
    fails(&mut goal("optimal_loss@1e23,X=3"), &["--goal", "'X'"]);
    fails(&mut goal("loss@N=1e9,N=2e9,D=1e10"), &["--goal", "twice"]);
    fails(&mut goal("loss@N=0,D=1e10"), &["--goal", "not finite"]);
    let mut extra = design(&["--candidates", "N=1e8..1e11,D=1e9..1e13,X=5"]);
    extra.args(quick);
    fails(&mut extra, &["--candidates", "'X'"]);
    let mut dots = design(&["--candidates", "N=1e8..1e11,D=1e9...1e13"]);
    dots.args(quick);
    fails(&mut dots, &["--candidates", "1e9...1e13"]);
    fails(
        &mut design(&[
            "--candidates",
            "N=1e8..1e11,D=1e9..1e13",
            "--runs",
            "1000",
            "--draws",
            "200",
        ]),
        &["--runs", "scorings"],
    );
    fails(
        &mut design(&[
            "--candidates",
            "N=1e8..1e11,D=1e9..1e13",
            "--draws",
            "4096",
            "--per-decade",
            "100",
        ]),
        &["--draws", "in memory"],
    );
}

#[test]
fn the_plot_draws_the_candidates_and_the_runs_to_launch() {
    let dir = tempfile::tempdir().unwrap();
    let svg = dir.path().join("design.svg");
    let mut command = design_grid(&["--simulations", "0", "--draws", "8"]);
    command.arg("--plot").arg(&svg);
    stdout(&mut command);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.starts_with("<svg") || text.starts_with("<?xml"),
        "{}",
        &text[..80.min(text.len())]
    );
    for label in [
        "candidates",
        "runs so far",
        "runs to launch",
        "model size N",
    ] {
        assert!(text.contains(label), "{label} missing");
    }
}

/// Before any run: `--prior` instead of DATA and `--target`, the noise given; a formula's
/// variables are the names the candidates give; the widths rest on the prior and are not
/// refit-checked, and what cannot act with a prior is refused.
#[test]
fn a_design_before_any_run_reads_a_prior_instead_of_data() {
    let lr_law = [
        "design",
        "--formula",
        "E + A*N^-alpha + B*D^-beta + c*(log(lr) - l0 + g*log(N))^2",
        "--prior",
        "E=1.8,A=480,alpha=0.3..0.4,B=2100,beta=0.37,c=0.02,l0=1,g=0.3..0.5",
        "--noise",
        "0.005",
        "--goal",
        "argmin_lr@N=1e9,D=2e10",
        "--candidates",
        "N=1e7..1e8,D=2e8..2e9,lr=1e-4..1e-1",
        "--per-decade",
        "4",
        "--runs",
        "6",
        "--draws",
        "8",
    ];
    let mut command = common::scalinglaws();
    command.args(lr_law).args(["--json", "-"]);
    let result: Value = serde_json::from_str(&stdout(&mut command)).unwrap();
    assert!(result.get("simulation").is_none(), "{result}");
    let target = &result["targets"][0];
    assert_eq!(target["target"], "argmin_lr@D=2e10,N=1e9");
    // The prior's centre: a formula's g is unbounded, so its range's middle is arithmetic
    // (g = 0.4), and lr* = e^(1 − g·ln 1e9).
    let g = 0.4;
    let lr = (1.0 - g * 1e9f64.ln()).exp();
    let value = target["value"].as_f64().unwrap();
    assert!((value / lr - 1.0).abs() < 1e-5, "{value} vs {lr}");
    assert!(target["width_after"].as_f64().unwrap() < target["width_now"].as_f64().unwrap());
    let notes = result["notes"].to_string();
    assert!(
        notes.contains("from the prior") && notes.contains("rest on the prior"),
        "{notes}"
    );

    let with = |extra: &[&str]| {
        let mut c = common::scalinglaws();
        c.args(lr_law).args(extra);
        c
    };
    fails(
        &mut with(&["--simulations", "20"]),
        &["--simulations", "--prior"],
    );
    fails(
        &mut with(&["--sequential", "2"]),
        &["--sequential", "before any run"],
    );
    fails(
        &mut with(&["--target", "loss"]),
        &["--prior", "drop --target"],
    );
    fails(&mut with(&["--prior-sd", "0"]), &["--prior-sd"]);
    let mut no_noise = common::scalinglaws();
    no_noise.args(lr_law.iter().filter(|a| !["--noise", "0.005"].contains(a)));
    fails(&mut no_noise, &["--noise", "unknown"]);
    let mut missing = common::scalinglaws();
    missing.args(lr_law.iter().map(|a| {
        if a.starts_with("E=1.8") {
            "E=1.8,A=480"
        } else {
            a
        }
    }));
    fails(&mut missing, &["--prior", "has no prior"]);
    let mut neither = common::scalinglaws();
    neither.args([
        "design",
        "--law",
        "chinchilla",
        "--goal",
        "optimal_loss@1e23",
        "--candidates",
        "N=1e7..1e9,D=1e8..1e11",
    ]);
    fails(
        &mut neither,
        &["their data and --target", "--prior and --noise"],
    );
    let mut both = with_chinchilla(&["design"]);
    both.args([
        "--goal",
        "optimal_loss@1e23",
        "--candidates",
        "N=1e8..1e11,D=1e9..1e13",
        "--prior",
        "E=1.8",
    ]);
    fails(
        &mut both,
        &["--prior", "reads and fits no runs: drop --target, --map"],
    );
    // DATA alone (no recipe) is refused by the library's rule for runs given with a prior.
    let mut data_alone = common::scalinglaws_in_root();
    data_alone.args(["design", common::CHINCHILLA[1]]).args([
        "--law",
        "chinchilla",
        "--goal",
        "optimal_loss@1e23",
        "--candidates",
        "N=1e8..1e11,D=1e9..1e13",
        "--prior",
        "E=1.8",
        "--noise",
        "0.01",
    ]);
    fails(&mut data_alone, &["--prior", "drop the data"]);
}

/// Tracks coded in one law (an indicator column): the candidates list the indicator's
/// values, the multiplier goal is the effective-compute ratio (e^s for N worth e^s·N), and a
/// malformed multiplier is refused.
#[test]
fn a_multiplier_between_tracks_is_a_goal() {
    let law = "E + A*N^-alpha*exp(-alpha*s*track) + B*D^-beta";
    let prior = "E=1.8,A=480,alpha=0.35,s=0.3,B=2100,beta=0.37";
    let run = |goal: &str, candidates: &str| {
        let mut c = common::scalinglaws();
        c.args([
            "design",
            "--formula",
            law,
            "--prior",
            prior,
            "--noise",
            "0.005",
            "--goal",
            goal,
            "--candidates",
            candidates,
            "--per-decade",
            "2",
            "--runs",
            "4",
            "--draws",
            "4",
        ]);
        c
    };
    let grid = "N=1e7..1e9,D=2e8..2e10,track=0|1";
    let mut command = run("multiplier@1e22,track=0:1", grid);
    command.args(["--json", "-"]);
    let result: Value = serde_json::from_str(&stdout(&mut command)).unwrap();
    let value = result["targets"][0]["value"].as_f64().unwrap();
    assert!((value / 0.3f64.exp() - 1.0).abs() < 1e-6, "{value}");
    let tracks: Vec<f64> = result["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["point"]["track"].as_f64().unwrap())
        .collect();
    assert!(tracks.iter().all(|t| *t == 0.0 || *t == 1.0), "{tracks:?}");
    fails(
        &mut run("multiplier@1e22,track=1", grid),
        &["--goal", "BASELINE:OTHER"],
    );
    fails(
        &mut run("multiplier@1e22,track=0:0", grid),
        &["--goal", "two different"],
    );
    fails(
        &mut run("multiplier@1e22,N=0:1", grid),
        &["--goal", "other than N and D"],
    );
    fails(
        &mut run(
            "multiplier@1e22,track=0:1",
            "N=1e7..1e9,D=2e8..2e10,track=0..1",
        ),
        &["--candidates", "V1|V2"],
    );
    fails(
        &mut run("multiplier@1e22,track=0:1", "N=0|1e9,D=2e8..2e10,track=0|1"),
        &["--candidates", "N must be positive"],
    );
    // The tracks' 0/1 column in a candidates file.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("candidates.csv");
    std::fs::write(
        &file,
        "N,D,track\n1e8,2e9,0\n1e8,2e9,1\n1e9,2e10,0\n1e9,2e10,1\n",
    )
    .unwrap();
    let mut listed = common::scalinglaws();
    listed.args([
        "design",
        "--formula",
        law,
        "--prior",
        prior,
        "--noise",
        "0.005",
        "--goal",
        "multiplier@1e22,track=0:1",
        "--runs",
        "2",
        "--draws",
        "4",
        "--json",
        "-",
    ]);
    listed.arg("--candidates-file").arg(&file);
    let result: Value = serde_json::from_str(&stdout(&mut listed)).unwrap();
    assert_eq!(result["candidates"], 4);
    let mut bounded = run("multiplier@1e22,track=0:1", grid);
    bounded.args(["--bound", "E=0:5"]);
    fails(&mut bounded, &["reads and fits no runs: drop --bound"]);
}
