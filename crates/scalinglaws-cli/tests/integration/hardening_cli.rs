//! Issue 50's defects through the command line, each refused with exit 2 (or, where the answer
//! is right but extreme, warned) instead of a panic, a silent wrong answer or a success that
//! computed nothing: saved fits and schedule fits whose values no fit writes, given parameters
//! outside the law's range, a design grid over 400 decades, a formula 12,000 terms long, a
//! peak 1e300, two outputs on one stdout, commands with nothing to compute.

use crate::common;

use common::{bootstrap_fit, chinchilla, chinchilla_formula, fails, fit_file, scalinglaws_in_root};
use serde_json::Value;

/// The text of the number at `pointer` in `json` (as the file spells it), checked to occur once.
fn number_text(json: &str, pointer: &str) -> String {
    let value: Value = serde_json::from_str(json).unwrap();
    let text = serde_json::to_string(value.pointer(pointer).unwrap()).unwrap();
    assert_eq!(
        json.matches(&text).count(),
        1,
        "{text} is not unique in the file"
    );
    text
}

/// `predict FIT N=7e10 D=1.4e12` on `text` written to a file, expected to fail naming `needles`.
fn predict_fails(text: &str, needles: &[&str]) {
    let (_dir, path) = fit_file(text);
    fails(
        scalinglaws_in_root()
            .arg("predict")
            .arg(&path)
            .args(["N=7e10", "D=1.4e12"]),
        needles,
    );
}

/// An edited value outside its bounds or far from its own bootstrap interval, a covariance that is not positive semi-definite or
/// not symmetric, and a bootstrap draw outside its bounds are refused naming the key (issue
/// 50: a negative alpha predicted 3.34e13 with a confidence interval of [1.95, 2.00]).
#[test]
fn saved_fits_whose_values_no_fit_writes_are_refused() {
    let text = &bootstrap_fit().0;
    let alpha = number_text(text, "/params/alpha/value");
    predict_fails(
        &text.replacen(&format!("\"value\": {alpha}"), "\"value\": -0.3", 1),
        &[
            "`params.alpha.value` is -0.3",
            "inside its bounds",
            "was the file edited?",
        ],
    );
    // Inside the bounds but far from the file's own bootstrap interval (it predicted outside
    // its own confidence interval).
    predict_fails(
        &text.replacen(&format!("\"value\": {alpha}"), "\"value\": 1e300", 1),
        &[
            "`params.alpha.value` is 1e300",
            "near its own bootstrap interval",
        ],
    );
    let value: Value = serde_json::from_str(text).unwrap();
    let cov = &value["covariance"]["values"];
    let scale = (cov[0][0].as_f64().unwrap() * cov[1][1].as_f64().unwrap()).sqrt();
    let large = format!("{}", 10.0 * scale);
    let not_psd = text
        .replacen(&number_text(text, "/covariance/values/0/1"), &large, 1)
        .replacen(&number_text(text, "/covariance/values/1/0"), &large, 1);
    predict_fails(&not_psd, &["`covariance` is not positive semi-definite"]);
    let not_symmetric = text.replacen(&number_text(text, "/covariance/values/0/1"), &large, 1);
    predict_fails(&not_symmetric, &["`covariance of A and E`", "symmetric"]);
    // A value fixed outside the bounds is what the fit wrote (with a warning): it loads.
    let dir = tempfile::tempdir().unwrap();
    let fixed = dir.path().join("fixed.json");
    let output = chinchilla("fit")
        .args(["--fix", "E=-0.5", "--bootstrap", "20", "--json"])
        .arg(&fixed)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let output = scalinglaws_in_root()
        .arg("predict")
        .arg(&fixed)
        .args(["N=7e10", "D=1.4e12"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let draw = number_text(text, "/bootstrap/draws/0/2");
    predict_fails(
        &text.replacen(&draw, "-1.0", 1),
        &["`bootstrap.draws[0] (alpha)` is -1", "inside its bounds"],
    );
    // Draws inside their bounds but apart from the interval the file gives them.
    let value: Value = serde_json::from_str(text).unwrap();
    let draws = value["bootstrap"]["draws"].as_array().unwrap().len();
    let mut apart = text.to_string();
    for i in 0..draws {
        let draw = number_text(&apart, &format!("/bootstrap/draws/{i}/2"));
        apart = apart.replacen(&format!("{draw},"), "7.5,", 1);
    }
    predict_fails(
        &apart,
        &[
            "`params.alpha.ci` is",
            "its bootstrap draws range over [7.5, 7.5]",
        ],
    );
    // An exponent edited to two widths below its interval: inside its bounds and near its
    // interval, but the law it makes predicts far from what the file's own draws predict
    // (issue 50: beta = 1e-300 beside [0.36, 0.56] predicted 12,848 beside a ci of [2.62, 2.63]).
    let beta = number_text(text, "/params/beta/value");
    let ci = &value["params"]["beta"]["ci"];
    let (lo, hi) = (ci[0].as_f64().unwrap(), ci[1].as_f64().unwrap());
    predict_fails(
        &text.replacen(
            &format!("\"value\": {beta}"),
            &format!("\"value\": {}", lo - 2.0 * (hi - lo)),
            1,
        ),
        &[
            "the fit's parameters predict",
            "where its own bootstrap draws predict",
            "the file was edited",
        ],
    );
}

/// A schedule fit cut short or relabelled as another law is refused naming its parameters
/// (issue 50: an index out of bounds, and a relabelled fit predicting 91.2).
#[test]
fn schedule_fits_with_another_laws_parameters_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fit.json");
    let output = scalinglaws_in_root()
        .args(common::SCHEDULE_FIT)
        .arg("--json")
        .arg(&path)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let mut fit: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let edited = dir.path().join("edited.json");
    let predict = |needles: &[&str]| {
        fails(
            scalinglaws_in_root()
                .args(["schedule", "predict"])
                .arg(&edited)
                .args(["--schedule", "constant:steps=1000"]),
            needles,
        )
    };
    let mut short = fit.clone();
    short["params"].as_array_mut().unwrap().truncate(4);
    std::fs::write(&edited, short.to_string()).unwrap();
    predict(&["not a consistent schedule fit", "law 'multi_power' has"]);
    let mut negative = fit.clone();
    negative["params"][0]["se"] = Value::from(-1.0);
    std::fs::write(&edited, negative.to_string()).unwrap();
    predict(&["`params (L0).se` is -1", "was the file edited?"]);
    fit["law"] = Value::from("fsl");
    std::fs::write(&edited, fit.to_string()).unwrap();
    predict(&["law 'fsl' has", "was the file edited?"]);
    // A parameter held outside the law's bounds (`--fix beta=10`) is what the fit wrote: it
    // loads.
    let held = dir.path().join("held.json");
    let output = scalinglaws_in_root()
        .args(common::SCHEDULE_FIT)
        .args(["--fix", "beta=10", "--json"])
        .arg(&held)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let output = scalinglaws_in_root()
        .args(["schedule", "predict"])
        .arg(&held)
        .args(["--schedule", "constant:steps=10000"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    // An unknown kind is named before its keys are read; a cooldown of no steps names --len.
    fails(
        scalinglaws_in_root()
            .args(["schedule", "predict"])
            .arg(&held)
            .args(["--schedule", "nosuch:steps=10"]),
        &["unknown kind 'nosuch'"],
    );
    fails(
        scalinglaws_in_root()
            .args(["schedule", "cooldown"])
            .arg(&held)
            .args(["--at", "10000", "--len", "0"]),
        &["--len 0: cooldown lengths must be positive"],
    );
}

/// Published parameters outside the law's range are refused with exit 2 (issue 50: A < 0 exited
/// 1, E < 0 gave an optimal loss of -0.677).
#[test]
fn given_parameters_outside_the_laws_range_are_refused() {
    for (law, needle) in [
        (
            "chinchilla[E=1.69,A=-406.4,B=410.7,alpha=0.34,beta=0.28]",
            "A = -406.4 is outside",
        ),
        (
            "chinchilla[E=-1.69,A=406.4,B=410.7,alpha=0.34,beta=0.28]",
            "E = -1.69 is outside",
        ),
    ] {
        fails(
            scalinglaws_in_root().args(["optimal", "--law", law, "--budget", "1e24"]),
            &[needle, "give a value inside it"],
        );
    }
}

/// A law or FLOPs formula without an optimum says which part is at fault (issue 50: an
/// exponent held at 0, or FLOPs of 6·N or 0·N·D, gave "no finite optimum ... check the law and
/// the FLOPs formula" without naming either).
#[test]
fn laws_and_flops_without_an_optimum_name_the_part_at_fault() {
    for (law, needles) in [
        (
            "chinchilla[E=1.82,A=482,alpha=0,B=2085,beta=0.366]",
            ["does not fall as N grows", "alpha = 0"],
        ),
        (
            "chinchilla[E=1.82,A=482,alpha=0.348,B=2085,beta=0]",
            ["does not fall as D grows", "beta = 0"],
        ),
    ] {
        fails(
            scalinglaws_in_root().args(["optimal", "--law", law, "--budget", "1e22"]),
            &needles,
        );
    }
    let law = "chinchilla[E=1.82,A=482,alpha=0.348,B=2085,beta=0.366]";
    for (flops, needle) in [("6*N", "does not grow with D"), ("0*N*D", "gives 0")] {
        fails(
            scalinglaws_in_root()
                .args(["optimal", "--law", law, "--budget", "1e22"])
                .args(["--flops", flops]),
            &["--flops", needle, "grow with both"],
        );
    }
}

/// A candidate range over 400 decades is counted before it is built (issue 50: capacity
/// overflow); one too large for the cap is refused naming the count.
#[test]
fn design_grids_are_counted_before_they_are_built() {
    let design = |candidates: &str| {
        let mut command = scalinglaws_in_root();
        command
            .args([
                "design",
                "--law",
                "chinchilla",
                "--noise",
                "0.01",
                "--prior",
            ])
            .args(["E=1.82,A=482,alpha=0.25..0.45,B=2085,beta=0.25..0.45"])
            .args([
                "--goal",
                "tokens_per_param@1e23",
                "--candidates",
                candidates,
            ])
            .args(["--max-cost", "1e19", "--spend", "1e20", "--runs", "2"]);
        command
    };
    let output = design("N=1e-200..1e200,D=1e8..1e10").output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    fails(
        &mut design("N=1e-300..1e300,D=1e-300..1e300"),
        &["candidate runs, more than 1000000", "narrow the ranges"],
    );
}

/// A formula whose tree is deeper than 1,000 is refused before any worker recurses into it
/// (issue 50: a 12,000-term sum with --bootstrap 20 overflowed a worker's stack), and the
/// message shows a window of it, not 24 KB.
#[test]
fn formulas_too_deep_are_refused_with_a_short_message() {
    let formula = format!("a*N{}", "+N".repeat(12_000));
    let output = chinchilla_formula(&formula)
        .args(["--bootstrap", "20"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("12002 operations deep"), "{stderr}");
    assert!(stderr.contains("(24003 characters in all)"), "{stderr}");
    let longest = stderr.lines().map(str::len).max().unwrap();
    assert!(longest < 400, "a line of {longest} bytes");
    // Eleven exponents' default grids: the refusal names the product and both ways to shrink
    // it (it said "use fewer --grid values" when no --grid was given).
    let terms: Vec<String> = (0..11).map(|i| format!("a{i}*N^-b{i}")).collect();
    fails(
        &mut chinchilla_formula(&terms.join("+")),
        &[
            "the start grid has 4194304 points",
            "4 × 4",
            "with --grid or hold some parameters",
        ],
    );
}

/// Two outputs on one stdout, `--schedule-csv -` and a peak far above the fit's are refused
/// (issue 50: SVG then JSON in one stream, a file named '-', a schedule at lr 1e300).
#[test]
fn schedule_outputs_and_rates_are_checked() {
    fails(
        scalinglaws_in_root().args([
            "schedule",
            "fit",
            "examples/schedule/runs_400m.csv",
            "--run",
            "run",
            "--plot",
            "-",
            "--json",
            "-",
        ]),
        &["--json - and --plot - both write to stdout"],
    );
    let dir = tempfile::tempdir().unwrap();
    fails(
        scalinglaws_in_root().current_dir(dir.path()).args([
            "schedule",
            "optimize",
            "fit.json",
            "--schedule-csv",
            "-",
        ]),
        &["--schedule-csv -: the report is on standard output"],
    );
    assert!(!dir.path().join("-").exists());
}

/// Commands that would compute nothing fail instead of printing an empty table with exit 0:
/// IsoFLOP profiles without a budget minimum, compare-laws where every law fails on the rows,
/// a grouped fit where no group is fitted, downstream holding out every model.
#[test]
fn commands_that_compute_nothing_fail() {
    let dir = tempfile::tempdir().unwrap();
    let two = dir.path().join("two.csv");
    std::fs::write(&two, "C,N,loss\n1e18,1.3e7,3.84\n1e18,1.8e7,3.72\n").unwrap();
    fails(
        scalinglaws_in_root().arg("isoflop").arg(&two).args([
            "--target",
            "loss",
            "--compute",
            "C",
            "--size",
            "N",
        ]),
        &["no budget has a minimum", "3 or more sizes"],
    );
    let one = dir.path().join("one.csv");
    std::fs::write(&one, "N,D,loss\n1e8,2e9,3.1\n").unwrap();
    fails(
        scalinglaws_in_root()
            .arg("compare-laws")
            .arg(&one)
            .args([
                "--target",
                "loss",
                "--law",
                "chinchilla",
                "--law",
                "overtraining",
            ])
            .args(["--derive", "M=D/N"]),
        &["no law could be fitted"],
    );
    let groups = dir.path().join("groups.csv");
    std::fs::write(
        &groups,
        "curve,x,loss\na,1,2.0\na,2,1.9\nb,1,2.0\nb,2,1.9\n",
    )
    .unwrap();
    let output = scalinglaws_in_root()
        .arg("fit")
        .arg(&groups)
        .args([
            "--law",
            "power_offset",
            "--target",
            "loss",
            "--group",
            "curve",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("none of the 2 groups could be fitted"),
        "{stderr}"
    );
    let models = [
        "pythia-1.4b",
        "pythia-1.4b-deduped",
        "pythia-12b",
        "pythia-12b-deduped",
        "pythia-160m",
        "pythia-160m-deduped",
        "pythia-1b-bf16",
        "pythia-1b-deduped",
        "pythia-2.8b",
        "pythia-2.8b-deduped",
        "pythia-410m",
        "pythia-410m-deduped",
        "pythia-6.9b",
        "pythia-6.9b-deduped",
        "pythia-70m",
        "pythia-70m-deduped",
    ];
    fails(
        scalinglaws_in_root()
            .args(["downstream", "examples/downstream/pythia_zero_shot.csv"])
            .args([
                "--target", "accuracy", "--size", "params", "--tokens", "tokens",
            ])
            .args(["--holdout", &models.join(",")]),
        &["leaves no evaluation to fit on", "--own-until"],
    );
}

/// `report` writes HTML whatever --format says, so markdown is refused (issue 50: `report
/// --format markdown -o r.md` wrote HTML); `sim sgd` past its stable rate warns.
#[test]
fn report_format_and_diverging_simulations_are_not_silent() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("r.md");
    let mut report = chinchilla("report");
    fails(
        report.args(["--format", "markdown", "-o"]).arg(&page),
        &["--format markdown: report writes a self-contained HTML page"],
    );
    assert!(!page.exists());
    // Nor is HTML written under another format's name.
    fails(
        chinchilla("report").arg("-o").arg(&page),
        &["r.md: the report is an HTML page; name the file .html"],
    );
    assert!(!page.exists());
    let output = scalinglaws_in_root()
        .args([
            "sim", "sgd", "--lr", "100", "--seeds", "10", "--steps", "100", "-o",
        ])
        .arg(dir.path().join("sgd.csv"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("warning: sgd_exact diverged"), "{stderr}");
}

/// A target of 1e-200 (every start's objective overflowed, no row named) or a denormal one (a
/// relative error of inf %) is refused naming the row and the column (issue 50).
#[test]
fn numbers_too_small_or_large_to_fit_are_refused_naming_the_row() {
    let dir = tempfile::tempdir().unwrap();
    for (value, shown) in [
        ("1e-200", "1e-200"),
        ("1e-310", "1e-310"),
        ("3e120", "3e120"),
    ] {
        let path = dir.path().join("tiny.csv");
        let rows: String = (1..=8)
            .map(|x| format!("{x},{}\n", 2.0 + 1.0 / x as f64))
            .collect();
        std::fs::write(&path, format!("x,y\n{rows}9,{value}\n")).unwrap();
        fails(
            scalinglaws_in_root().arg("fit").arg(&path).args([
                "--law",
                "power_offset",
                "--target",
                "y",
            ]),
            &[
                "row 9",
                "column 'y'",
                &format!("{shown} is outside the range the fits compute in"),
            ],
        );
    }
}

/// A picture on stdout (`--plot -`) is all that goes there: the report is not printed after
/// it, and stderr says so (issue 50: `schedule fit --plot -` printed the SVG, then the text).
#[test]
fn a_picture_on_stdout_is_all_that_goes_there() {
    let output = scalinglaws_in_root()
        .args(common::SCHEDULE_FIT)
        .args(["--plot", "-"])
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.trim_start().starts_with("<svg") || stdout.starts_with("<?xml"));
    assert!(stdout.trim_end().ends_with("</svg>"), "only the SVG");
    assert!(!stdout.contains("[[Schedule fit]]"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("the report is not printed"), "{stderr}");
}

/// Inputs that cannot answer what is asked are refused with exit 2 naming why: a schedule of
/// unknown kind (not its keys), a cooldown of length 0 (naming --len), a huge --max-work echoed
/// short, a select on one row (every law fails on the input), a downstream forecast of a new
/// model at another size when the data hold one size, a schedule fit with a negative standard
/// error (issue 50's second hostile pass).
#[test]
fn inputs_that_cannot_answer_are_refused_naming_why() {
    fails(
        scalinglaws_in_root().args([
            "fit",
            "examples/isoflop/runs.csv",
            "--law",
            "chinchilla",
            "--target",
            "loss",
            "--max-work",
            "1e308",
        ]),
        &["--max-work 1.00e308: give a budget"],
    );
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.csv");
    std::fs::write(&one, "C,N,D,loss\n1e18,1.3e7,1.28e10,3.84\n").unwrap();
    fails(
        scalinglaws_in_root()
            .arg("select")
            .arg(&one)
            .args(["--target", "loss", "--law", "chinchilla"])
            .args(["--formula", "E + A*(N*D)^-alpha"]),
        &["no law could be fitted", "fewer than the 5 parameters"],
    );
    let pythia =
        std::fs::read_to_string(common::root().join("examples/downstream/pythia_zero_shot.csv"))
            .unwrap();
    let mut lines = pythia.lines();
    let header = lines.next().unwrap();
    let model = header.split(',').position(|c| c == "model").unwrap();
    let first = lines
        .clone()
        .next()
        .unwrap()
        .split(',')
        .nth(model)
        .unwrap()
        .to_string();
    let kept: Vec<&str> = lines
        .filter(|l| l.split(',').nth(model) == Some(first.as_str()))
        .collect();
    let single = dir.path().join("single.csv");
    std::fs::write(&single, format!("{header}\n{}\n", kept.join("\n"))).unwrap();
    fails(
        scalinglaws_in_root().arg("downstream").arg(&single).args([
            "--size",
            "params",
            "--tokens",
            "tokens",
            "--target",
            "accuracy",
            "--at",
            "N=6.9e9,D=3e11",
        ]),
        &["--at", "how accuracy moves with model size is not measured"],
    );
}
