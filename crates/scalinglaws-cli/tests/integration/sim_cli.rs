//! `scalinglaws sim`: the lab's simulators write their CSV datasets (stdout or a file written
//! whole) and, with `--plot`, their figures, bit-identical for any number of threads, and refuse
//! bad settings with exit 2 naming the option.

use crate::common;

use common::{fails, scalinglaws, stdout};

fn lines(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .map(|line| line.split(',').map(str::to_string).collect())
        .collect()
}

#[test]
fn nvfp4_writes_four_cases_per_dimension_the_same_at_any_thread_count() {
    let run = |threads: &str| {
        stdout(scalinglaws().env("RAYON_NUM_THREADS", threads).args([
            "sim",
            "nvfp4",
            "--dimensions",
            "64,512",
            "--pairs",
            "200",
        ]))
    };
    let (one, two) = (run("1"), run("2"));
    assert_eq!(one, two, "the dataset depends on the thread count");
    let rows = lines(&one);
    assert_eq!(rows[0][0], "dimension");
    assert_eq!(rows.len(), 1 + 2 * 4);
    let column = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    let (case, snr) = (column("case"), column("snr"));
    let snr_of = |d: &str, which: &str| -> f64 {
        let row = rows.iter().find(|r| r[0] == d && r[case] == which).unwrap();
        row[snr].parse().unwrap()
    };
    // Correlated products: the SNR grows with the dimension; independent ones: it does not.
    assert!(snr_of("512", "sphere_correlated") > 1.5 * snr_of("64", "sphere_correlated"));
    let flat = snr_of("512", "sphere_independent") / snr_of("64", "sphere_independent");
    assert!((0.6..1.6).contains(&flat), "independent SNR ratio {flat}");
}

#[test]
fn sgd_writes_the_exact_recursion_and_the_monte_carlo_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sgd.csv");
    let args = [
        "sim",
        "sgd",
        "--steps",
        "200",
        "--seeds",
        "400",
        "--dimension",
        "16",
    ];
    stdout(
        scalinglaws()
            .args(args)
            .args(["-o", path.to_str().unwrap()]),
    );
    let rows = lines(&std::fs::read_to_string(&path).unwrap());
    assert_eq!(
        rows[0].join(","),
        "optimizer,step,risk,excess_risk,stderr,seeds"
    );
    let risk_at = |optimizer: &str, step: &str| -> (f64, f64) {
        let row = rows
            .iter()
            .find(|r| r[0] == optimizer && r[1] == step)
            .unwrap_or_else(|| panic!("no {optimizer} row at step {step}"));
        (row[2].parse().unwrap(), row[4].parse().unwrap())
    };
    // Monte Carlo SGD agrees with the exact recursion within its sampling error.
    let (exact, _) = risk_at("sgd_exact", "200");
    let (monte_carlo, stderr) = risk_at("sgd_mc", "200");
    assert!(
        (exact - monte_carlo).abs() < 4.0 * stderr + 1e-3 * exact,
        "{exact} vs {monte_carlo} ± {stderr}"
    );
    assert!(rows.iter().any(|r| r[0] == "signsgd_mc"));
    let again = std::process::Command::new(env!("CARGO_BIN_EXE_scalinglaws"))
        .args(args)
        .env("RAYON_NUM_THREADS", "1")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(again.stdout).unwrap(),
        std::fs::read_to_string(&path).unwrap()
    );
}

#[test]
fn editing_and_multi_index_write_their_datasets() {
    let editing = stdout(scalinglaws().args(["sim", "editing", "--edits", "60", "--seeds", "4"]));
    let rows = lines(&editing);
    assert_eq!(rows[0][0], "variant");
    assert_eq!(rows.len(), 1 + 2 * 60);
    let norm = |variant: &str, edit: &str| -> f64 {
        let row = rows
            .iter()
            .find(|r| r[0] == variant && r[1] == edit)
            .unwrap();
        row[3].parse().unwrap()
    };
    // The norm feedback: the standard stream's weights grow, Norm-Anchor Scaling's do not.
    assert!(norm("standard", "60") > 1.5 * norm("standard", "1"));
    assert!(norm("nas", "60") < 1.2 * norm("nas", "1"));
    let recovery = stdout(scalinglaws().args([
        "sim",
        "multi-index",
        "--dimensions",
        "32",
        "--kappas",
        "1,64",
        "--seeds",
        "4",
    ]));
    let rows = lines(&recovery);
    assert_eq!(rows.len(), 1 + 2 * 3, "{recovery}");
    let overlap = |kappa: &str| -> f64 {
        let row = rows.iter().find(|r| r[1] == kappa && r[3] == "1").unwrap();
        row[6].parse().unwrap()
    };
    assert!(overlap("64") > 0.8 && overlap("1") < overlap("64"));
}

#[test]
fn recall_capacity_stays_above_its_lower_bound() {
    let text = stdout(scalinglaws().args(["sim", "recall", "--state-sizes", "8,16,24"]));
    let rows = lines(&text);
    assert_eq!(rows.len(), 4, "{text}");
    let column = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    let (capacity, bound) = (column("capacity_mc"), column("capacity_bound"));
    for row in &rows[1..] {
        let (mc, lower): (f64, f64) = (row[capacity].parse().unwrap(), row[bound].parse().unwrap());
        assert!(lower <= mc, "bound {lower} above the capacity {mc}");
    }
}

#[test]
fn bad_settings_are_refused_naming_the_option() {
    let sim = |words: &[&str]| {
        let mut command = scalinglaws();
        command.arg("sim").args(words);
        command
    };
    fails(&mut sim(&["nvfp4", "--pairs", "1"]), &["--pairs"]);
    fails(
        &mut sim(&["nvfp4", "--correlation", "1.5"]),
        &["--correlation"],
    );
    fails(&mut sim(&["nvfp4", "--dimensions", "0"]), &["--dimensions"]);
    fails(&mut sim(&["sgd", "--steps", "99999999999"]), &["--steps"]);
    fails(&mut sim(&["sgd", "--per-decade", "0"]), &["--per-decade"]);
    fails(&mut sim(&["sgd", "--a", "0.5"]), &["--a"]);
    fails(&mut sim(&["sgd", "--noise", "nan"]), &["--noise"]);
    fails(
        &mut sim(&["sgd", "--optimizer", "adam"]),
        &["--optimizer", "adam"],
    );
    fails(
        &mut sim(&["sgd", "--dimension", "1000000000"]),
        &["--dimension"],
    );
    let refused: [(&[&str], &str); 14] = [
        (&["recall", "--plot", "-"], "--plot"),
        (
            &["recall", "--plot", "figure.txt", "-o", "r.csv"],
            "--plot figure.txt",
        ),
        (
            &["editing", "--plot", "same.svg", "-o", "same.svg"],
            "same.svg",
        ),
        (&["sgd", "--steps", "0"], "--steps"),
        (
            &["sgd-scaling", "--horizons", "1,2,100000000"],
            "--horizons",
        ),
        (&["editing", "--threshold", "2"], "--threshold"),
        (&["editing", "--rows", "0"], "--rows"),
        (
            &[
                "editing", "--rows", "4096", "--cols", "4096", "--seeds", "50000",
            ],
            "--seeds",
        ),
        (&["multi-index", "--kappas", "2,1"], "--kappas"),
        (&["multi-index", "--directions", "0"], "--directions"),
        (&["recall", "--delta", "0"], "--delta"),
        (&["recall", "--state-sizes", "8,8"], "--state-sizes"),
        (
            &["recall", "--state-sizes", "4096", "--embedding", "65536"],
            "--embedding",
        ),
        (&["nvfp4", "--format", "markdown"], "--format"),
    ];
    for (words, option) in refused {
        fails(&mut sim(words), &[option]);
    }
}

#[test]
fn every_simulator_draws_its_figure_the_same_at_any_thread_count() {
    let dir = tempfile::tempdir().unwrap();
    let runs: [(&str, &[&str], &str); 6] = [
        (
            "sgd",
            &["--steps", "100", "--seeds", "20", "--dimension", "8"],
            "SGD vs signSGD",
        ),
        (
            "sgd-scaling",
            &[
                "--dimension",
                "16",
                "--horizons",
                "16,32,64",
                "--seeds",
                "3",
            ],
            "Data scaling",
        ),
        (
            "nvfp4",
            &["--dimensions", "64,256", "--pairs", "50"],
            "NVFP4 with its tensor scale",
        ),
        (
            "editing",
            &["--edits", "30", "--seeds", "3"],
            "Rank-one edits",
        ),
        (
            "recall",
            &["--state-sizes", "8,12", "--trials", "8"],
            "Associative recall",
        ),
        (
            "multi-index",
            &["--dimensions", "16", "--kappas", "1,4", "--seeds", "3"],
            "d = 16",
        ),
    ];
    for (simulator, options, title) in runs {
        let draw = |threads: &str| {
            let path = dir.path().join(format!("{simulator}-{threads}.svg"));
            let csv = stdout(
                scalinglaws()
                    .env("RAYON_NUM_THREADS", threads)
                    .args(["sim", simulator])
                    .args(options)
                    .args(["--plot", path.to_str().unwrap()]),
            );
            (csv, std::fs::read_to_string(&path).unwrap())
        };
        let (one, two) = (draw("1"), draw("2"));
        assert_eq!(
            one, two,
            "{simulator}: the output depends on the thread count"
        );
        assert!(
            one.1.starts_with("<svg") && one.1.contains(title),
            "{simulator}: {title}"
        );
        // The dataset is the one written without --plot.
        let plain = stdout(scalinglaws().args(["sim", simulator]).args(options));
        assert_eq!(one.0, plain, "{simulator}");
    }
}

#[test]
fn a_figure_goes_to_stdout_or_png_and_the_tensor_scale_can_be_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("nvfp4.csv");
    let base = ["sim", "nvfp4", "--dimensions", "64,4096", "--pairs", "40"];
    let svg = stdout(
        scalinglaws()
            .args(base)
            .args(["-o", csv.to_str().unwrap(), "--plot", "-"]),
    );
    assert!(svg.starts_with("<svg") && svg.contains("with its tensor scale"));
    let png = dir.path().join("nvfp4.png");
    stdout(
        scalinglaws()
            .args(base)
            .args(["--no-tensor-scale", "--plot", png.to_str().unwrap()]),
    );
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..4], b"\x89PNG");
    // Block scales alone: unit vectors at d = 4096 lose SNR, standard ones do not.
    let snr = |text: &str, case: &str| -> f64 {
        let rows = lines(text);
        let row = rows
            .iter()
            .find(|r| r[0] == "4096" && r[1] == case)
            .unwrap();
        row[5].parse().unwrap()
    };
    let with = std::fs::read_to_string(&csv).unwrap();
    let without = stdout(scalinglaws().args(base).arg("--no-tensor-scale"));
    assert!(snr(&without, "sphere_correlated") < 0.8 * snr(&with, "sphere_correlated"));
    let standard = snr(&without, "gaussian_independent") / snr(&with, "gaussian_independent");
    assert!((0.7..1.4).contains(&standard), "{standard}");
}
