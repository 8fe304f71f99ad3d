//! End-to-end tests of `scalinglaws optimal`: the compute-optimal allocation from a saved
//! bootstrap fit (intervals from its replicates), caps on size and tokens, published
//! parameters, MoE experts under a memory cap, inference tokens, the closed form beyond 1e16
//! parameters (never clamped; a numerical search widens its range), what `compare`,
//! `plot frontier` and `report` inherit of it, and its input errors (exit code 2, a message
//! naming the offending thing, never a panic).

use crate::common;

use std::path::PathBuf;

use assert_cmd::prelude::*;
use serde_json::Value;

use common::{
    bootstrap_fit, chinchilla, chinchilla_formula, compare_tracks, fails, fit_file, pair,
    read_json, relative, root, scalinglaws, stdout_json,
};

// ---------------------------------------------------------------------------------------------
// optimal (issue 5, first part): allocation from a saved fit, intervals from its replicates
// ---------------------------------------------------------------------------------------------

#[test]
fn optimal_allocates_a_budget_with_intervals_from_the_replicates() {
    let (_dir, path) = fit_file(&bootstrap_fit().0);
    let frontier = stdout_json(scalinglaws().arg("optimal").arg(&path).args([
        "--budget",
        "5.88e23,1e26",
        "--json",
        "-",
    ]));
    assert_eq!(frontier["method"], "closed form");
    assert_eq!(frontier["draws"], 60);
    let first = &frontier["allocations"][0];
    let (n, d) = (first["N"].as_f64().unwrap(), first["D"].as_f64().unwrap());
    // The budget is spent: 6·N·D = C.
    assert!(relative(6.0 * n * d, 5.88e23) < 1e-9);
    // Chinchilla's own answer for this data is about 70B parameters and 20 tokens per parameter.
    assert!((5e10..1e11).contains(&n), "N* = {n:e}");
    let [lo, hi] = pair(&first["ci"]["N"]);
    assert!(lo < n && n < hi, "{lo:e} < {n:e} < {hi:e}");
    assert!(frontier["exponents"]["a"].as_f64().unwrap() > 0.4);
}

#[test]
fn optimal_needs_every_other_variable_of_the_law() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dc.json");
    scalinglaws()
        .current_dir(root())
        .args([
            "fit",
            "examples/datablations/datablations_fit182.csv",
            "--law",
            "data_constrained",
            "--target",
            "loss",
            "--fix",
            "E=exp(0.6254804)",
            "--fix",
            "A=exp(6.255414)",
            "--fix",
            "B=exp(7.3049974)",
            "--fix",
            "alpha=0.3526596",
            "--fix",
            "beta=0.3526596",
            "--json",
        ])
        .arg(&path)
        .assert()
        .success();
    fails(
        scalinglaws()
            .arg("optimal")
            .arg(&path)
            .args(["--budget", "1e22"]),
        &["--set U=VALUE"],
    );
    let frontier = stdout_json(
        scalinglaws()
            .arg("optimal")
            .arg(&path)
            .args(["--budget", "1e22", "--set", "U=25e9", "--json", "-"]),
    );
    assert_eq!(frontier["method"], "numerical");
    let d = frontier["allocations"][0]["D"].as_f64().unwrap();
    assert!((1e11..1e12).contains(&d), "D* = {d:e}");
}

#[test]
fn optimal_rejects_bad_budgets_and_flops() {
    let (_dir, path) = fit_file(&bootstrap_fit().0);
    fails(
        scalinglaws()
            .arg("optimal")
            .arg(&path)
            .args(["--budget", "-1e20"]),
        &["--budget -1e20: a budget is a positive number"],
    );
    fails(
        scalinglaws()
            .arg("optimal")
            .arg(&path)
            .args(["--budget", "1e22", "--flops", "6*N*T"]),
        &["--flops", "'T' is not known here"],
    );
}

#[test]
fn optimal_respects_caps_on_size_and_tokens() {
    let (_dir, path) = fit_file(&bootstrap_fit().0);
    let frontier = stdout_json(scalinglaws().arg("optimal").arg(&path).args([
        "--budget",
        "5.88e23",
        "--max-params",
        "3e10",
        "--json",
        "-",
    ]));
    let a = &frontier["allocations"][0];
    assert!(relative(a["N"].as_f64().unwrap(), 3e10) < 1e-9, "{a}");
    assert_eq!(a["binding"], "max_params");
    fails(
        scalinglaws().arg("optimal").arg(&path).args([
            "--budget",
            "1e25",
            "--max-params",
            "1e11",
            "--max-tokens",
            "2e12",
        ]),
        &["no allocation meets the caps"],
    );
}

// ---------------------------------------------------------------------------------------------
// optimal (issue 5, third part): published parameters, MoE experts under a memory cap and
// inference tokens
// ---------------------------------------------------------------------------------------------

/// Ludziejewski et al. 2025, Table 3.
const MOE_PUBLISHED: &str = "moe[a=35.91,alpha=-0.1889,delta=-0.2285,gamma=0.0098,b=35.98,beta=-0.1775,omega=0.5529,zeta=-0.0259,c=1.3637,E_start=2.0732,E_max=290.4521]";

/// Sardana et al. 2024's Chinchilla constants.
const SARDANA_CHINCHILLA: &str = "chinchilla[E=1.69,A=406.4,alpha=0.336,B=410.7,beta=0.283]";

#[test]
fn optimal_takes_published_parameters_and_chooses_experts_under_a_memory_cap() {
    let dense = stdout_json(scalinglaws().args([
        "optimal",
        "--law",
        MOE_PUBLISHED,
        "--budget",
        "1e20",
        "--set",
        "E=1",
        "--json",
        "-",
    ]));
    let a = &dense["allocations"][0];
    assert!(relative(a["N"].as_f64().unwrap(), 1.7e9) < 0.03, "{a}");
    assert!(relative(a["D"].as_f64().unwrap(), 9.7e9) < 0.03, "{a}");
    let capped = stdout_json(scalinglaws().args([
        "optimal",
        "--law",
        MOE_PUBLISHED,
        "--budget",
        "1e21",
        "--set",
        "E=1,4,16,64",
        "--total-params",
        "N*(4+9*E)/13",
        "--max-params",
        "2e10",
        "--json",
        "-",
    ]));
    let a = &capped["allocations"][0];
    assert_eq!(a["binding"], "max_params", "{a}");
    assert!(
        relative(a["total_params"].as_f64().unwrap(), 2e10) < 1e-6,
        "{a}"
    );
    assert!(a["chosen"]["E"].as_f64().is_some(), "{a}");
    assert_eq!(capped["choices"]["E"].as_array().unwrap().len(), 4);
    let active = stdout_json(scalinglaws().args([
        "optimal",
        "--law",
        MOE_PUBLISHED,
        "--budget",
        "1e21",
        "--set",
        "E=8",
        "--max-active",
        "5e8",
        "--json",
        "-",
    ]));
    assert_eq!(active["allocations"][0]["binding"], "max_active");
}

#[test]
fn optimal_minimises_lifetime_compute_for_a_target_loss_with_inference() {
    let frontier = stdout_json(scalinglaws().args([
        "optimal",
        "--law",
        SARDANA_CHINCHILLA,
        "--target-loss",
        "2.0453",
        "--inference-tokens",
        "2e12",
        "--json",
        "-",
    ]));
    assert_eq!(frontier["goal"], "target_loss");
    let a = &frontier["allocations"][0];
    assert!(relative(a["N"].as_f64().unwrap(), 6.97e9) < 0.01, "{a}");
    let savings = a["reference"]["savings"].as_f64().unwrap();
    assert!((savings - 0.174).abs() < 0.005, "{a}");
    let sum = a["training_flops"].as_f64().unwrap() + a["inference_flops"].as_f64().unwrap();
    assert!(relative(sum, a["budget"].as_f64().unwrap()) < 1e-9);
    let output = scalinglaws()
        .args([
            "optimal",
            "--law",
            SARDANA_CHINCHILLA,
            "--target-loss",
            "2.0453",
        ])
        .args(["--inference-tokens", "2e12"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.contains("saves 17.4%"), "{text}");
}

#[test]
fn optimal_input_errors_exit_2() {
    fails(
        scalinglaws().args(["optimal", "--law", "chinchilla[E=1.69]", "--budget", "1e22"]),
        &["give every parameter", "'A' is missing"],
    );
    fails(
        scalinglaws().args(["optimal", "--law", SARDANA_CHINCHILLA]),
        &["--budget", "--target-loss"],
    );
    fails(
        scalinglaws().args([
            "optimal",
            "--law",
            SARDANA_CHINCHILLA,
            "--target-loss",
            "1.5",
        ]),
        &["target"],
    );
    fails(
        scalinglaws().args([
            "optimal",
            "--law",
            MOE_PUBLISHED,
            "--budget",
            "1e21",
            "--set",
            "E=8",
            "--total-params",
            "N*experts",
        ]),
        &["--total-params", "experts"],
    );
    fails(
        scalinglaws().args([
            "optimal",
            "--law",
            SARDANA_CHINCHILLA,
            "--budget",
            "1e22",
            "--inference-tokens",
            "-1",
        ]),
        &["--inference-tokens"],
    );
}

// ---------------------------------------------------------------------------------------------
// optimal (issue 18, part 4): the closed form is never clamped; a numerical search widens its
// range of N and fails (exit 2) rather than report its edge; compare, plot frontier and report
// inherit it
// ---------------------------------------------------------------------------------------------

/// The issue's law: α = 0.1, β = 0.5 put N* beyond 1e16 at 1e22 FLOPs.
const ISSUE_18: [f64; 5] = [1.69, 406.4, 0.1, 410.7, 0.5];
/// Hoffmann et al. 2022's fit, whose N* passes 1e16 near 1e36 FLOPs.
const HOFFMANN_FIT: [f64; 5] = [1.69, 406.4, 0.34, 410.7, 0.28];

/// Hoffmann et al. 2022, eq. 4: N* = G·(C/6)^(β/(α+β)), G = (αA/(βB))^(1/(α+β)), and the
/// loss there (E, A, alpha, B, beta in `p`).
fn eq4(p: [f64; 5], c: f64) -> (f64, f64) {
    let [e, a, alpha, b, beta] = p;
    let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
    let n = g * (c / 6.0).powf(beta / (alpha + beta));
    (n, e + a * n.powf(-alpha) + b * (c / (6.0 * n)).powf(-beta))
}

/// `chinchilla[E=..,A=..,alpha=..,B=..,beta=..]`.
fn given(p: [f64; 5]) -> String {
    format!(
        "chinchilla[E={},A={},alpha={},B={},beta={}]",
        p[0], p[1], p[2], p[3], p[4]
    )
}

/// `--fix` for A, alpha, B and beta of `p` (E is left to the fit).
fn fix_all_but_e(p: [f64; 5]) -> Vec<String> {
    [("A", p[1]), ("alpha", p[2]), ("B", p[3]), ("beta", p[4])]
        .iter()
        .flat_map(|(name, value)| ["--fix".to_string(), format!("{name}={value}")])
        .collect()
}

/// Each allocation of `frontier` against eq. 4 with `p`: N* to `tolerance`, the loss to 1e-9.
fn agrees_with_eq4(frontier: &Value, p: [f64; 5], tolerance: f64) {
    for a in frontier["allocations"].as_array().unwrap() {
        let c = a["budget"].as_f64().unwrap();
        let (n, loss) = eq4(p, c);
        let (got_n, got_loss) = (a["N"].as_f64().unwrap(), a["loss"].as_f64().unwrap());
        assert!(
            relative(got_n, n) < tolerance,
            "at {c:e}: N* {got_n:e} vs {n:e}"
        );
        assert!(
            relative(got_loss, loss) < 1e-9,
            "at {c:e}: {got_loss} vs {loss}"
        );
    }
}

#[test]
fn optimal_gives_the_closed_form_beyond_1e16_parameters() {
    // The issue's command: N* 3.25e16 and 1.51e18, losses 12.58 and 9.11, not 1e16.
    let frontier = stdout_json(scalinglaws().args([
        "optimal",
        "--law",
        "chinchilla[E=1.69,A=406.4,alpha=0.1,B=410.7,beta=0.5]",
        "--budget",
        "1e22,1e24",
        "--json",
        "-",
    ]));
    assert_eq!(frontier["method"], "closed form");
    let at = |i: usize, key: &str| frontier["allocations"][i][key].as_f64().unwrap();
    assert!(relative(at(0, "N"), 3.25e16) < 0.005, "{:e}", at(0, "N"));
    assert!(relative(at(1, "N"), 1.51e18) < 0.005, "{:e}", at(1, "N"));
    assert!((at(0, "loss") - 12.58).abs() < 0.005 && (at(1, "loss") - 9.11).abs() < 0.005);
    agrees_with_eq4(&frontier, ISSUE_18, 1e-12);
    let exponent = frontier["exponents"]["a"].as_f64().unwrap();
    assert!((exponent - 0.5 / 0.6).abs() < 1e-9, "a = {exponent}");
    // Hoffmann's fit at 1e36 and 1e40 FLOPs.
    let frontier = stdout_json(scalinglaws().args([
        "optimal",
        "--law",
        &given(HOFFMANN_FIT),
        "--budget",
        "1e36,1e40",
        "--json",
        "-",
    ]));
    assert_eq!(frontier["method"], "closed form");
    agrees_with_eq4(&frontier, HOFFMANN_FIT, 1e-12);
    assert!(frontier["allocations"][1]["N"].as_f64().unwrap() > 6e17);
}

/// A fit of `formula` on the README's data with the `fixed` arguments, written to a fresh
/// directory.
fn formula_fit(formula: &str, fixed: &[String]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fit.json");
    chinchilla_formula(formula)
        .args(fixed)
        .arg("--json")
        .arg(&path)
        .assert()
        .success();
    (dir, path)
}

#[test]
fn optimal_of_a_formula_law_searches_as_far_as_the_optimum() {
    // The same Chinchilla as a formula has no closed form: the numerical search agrees with
    // eq. 4 at 1e24 and 1e40 FLOPs (E is the fit's; N* does not depend on it).
    for p in [ISSUE_18, HOFFMANN_FIT] {
        let (_dir, path) = formula_fit("E + A*N^-alpha + B*D^-beta", &fix_all_but_e(p));
        let e = read_json(&path)["params"]["E"]["value"].as_f64().unwrap();
        let frontier = stdout_json(scalinglaws().arg("optimal").arg(&path).args([
            "--budget",
            "1e24,1e40",
            "--json",
            "-",
        ]));
        assert_eq!(frontier["method"], "numerical");
        agrees_with_eq4(&frontier, [e, p[1], p[2], p[3], p[4]], 1e-4);
    }
    // A law whose loss keeps falling with N along the budget: exit 2, naming the budget and
    // the range searched, instead of an allocation at its edge.
    let (_dir, path) = formula_fit("A*N^-alpha + 0*D", &["--fix".into(), "alpha=0.34".into()]);
    fails(
        scalinglaws()
            .arg("optimal")
            .arg(&path)
            .args(["--budget", "1e22"]),
        &[
            "at the budget 1e22",
            "still falls",
            "N from 1.000e-10 to 1.000e100",
        ],
    );
}

#[test]
fn compare_plot_frontier_and_report_inherit_the_unclamped_closed_form() {
    let fixed = fix_all_but_e(ISSUE_18);
    // compare: every track's allocation is the closed form's.
    let result = stdout_json(
        compare_tracks()
            .args(["--budget", "1e22,1e24", "--json", "-"])
            .args(&fixed),
    );
    for track in result["tracks"].as_array().unwrap() {
        for a in track["allocations"].as_array().unwrap() {
            let (c, n) = (a["budget"].as_f64().unwrap(), a["N"].as_f64().unwrap());
            assert!(relative(n, eq4(ISSUE_18, c).0) < 1e-12, "{track}");
        }
    }
    // plot frontier: the exponent of the true frontier, β/(α+β) = 0.833, not 0.
    let dir = tempfile::tempdir().unwrap();
    let fit = dir.path().join("fit.json");
    chinchilla("fit")
        .args(&fixed)
        .arg("--json")
        .arg(&fit)
        .assert()
        .success();
    let svg = dir.path().join("frontier.svg");
    scalinglaws()
        .args(["plot", "frontier", "--from", "1e22", "--to", "1e24", "-o"])
        .arg(&svg)
        .arg(&fit)
        .assert()
        .success();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("N* ∝ C^0.833, D* ∝ C^0.167"), "{text}");
    // report: the allocation table and its frontier plot, the same.
    let html = dir.path().join("report.html");
    chinchilla("report")
        .args(&fixed)
        .arg("-o")
        .arg(&html)
        .assert()
        .success();
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("N* ∝ C^0.833"), "{page}");
    assert!(!page.contains("<td>1.000e16</td>"), "{page}");
}
