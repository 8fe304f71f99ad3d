//! Golden tests of the catalog laws added from 2024-25 papers (issue 51): each law evaluated
//! with its published coefficients reproduces the published values, and where the paper's data
//! is at hand the library's own fit of it comes back to the published fit.
//!
//! - `vocab` (Tao et al. 2024): the authors' 1,200 runs (`../shared/data/vocab_scaling_tao2024`,
//!   no licence, so read in place and skipped when absent) and a synthetic recovery on their
//!   design that runs everywhere.
//! - `parscale` (Chen et al. 2025): the 48 losses the authors released with their fitting
//!   script (`parametric_fit.py` of QwenLM/ParScale, the losses of the paper's pre-training runs),
//!   kept here as constants.
//! - `m4` (Alabdulmohsin et al. 2022): the paper's implicit equation and the authors' own solver
//!   checked by evaluation, a synthetic recovery, and the 5 NMT curves of the authors' benchmark
//!   (Apache License 2.0, kept here as constants) extrapolated one doubling.
//! - `farseer` (Li et al. 2025) and `distillation` (Busbridge et al. 2025): forms and
//!   coefficients known only second-hand, so the printed form checked by evaluation and synthetic
//!   recoveries of the curve beyond the data (neither design identifies every parameter).
//! - `mixture_additive` (Shukor et al. 2025): form second-hand, no coefficients published that
//!   we found, so a synthetic recovery of the loss beyond the data and of the best mixture.

use crate::common;

use scalinglaws::fit::{fit, problem_for, FitData, FitResult, FitSettings, LossKind, Space};
use scalinglaws::law::catalog;
use scalinglaws::rng::Rng;
use scalinglaws::Law;

fn values(law: &Law, given: &[(&str, f64)]) -> Vec<f64> {
    law.params
        .iter()
        .map(|p| {
            given
                .iter()
                .find(|(n, _)| *n == p.name)
                .unwrap_or_else(|| panic!("no value for {}", p.name))
                .1
        })
        .collect()
}

fn data(points: &[Vec<f64>], target: Vec<f64>) -> FitData {
    let n_vars = points[0].len();
    FitData {
        variables: (0..n_vars)
            .map(|v| points.iter().map(|p| p[v]).collect())
            .collect(),
        target,
        weights: None,
        trials: None,
        exposure: None,
    }
}

/// R² and RMSE of `params` on the data, in the target's own (linear) units.
fn r2_rmse(law: &Law, params: &[f64], points: &[Vec<f64>], target: &[f64]) -> (f64, f64) {
    let mean = target.iter().sum::<f64>() / target.len() as f64;
    let (mut ss_res, mut ss_tot) = (0.0, 0.0);
    for (point, y) in points.iter().zip(target) {
        ss_res += (law.eval(params, point) - y).powi(2);
        ss_tot += (y - mean).powi(2);
    }
    (1.0 - ss_res / ss_tot, (ss_res / target.len() as f64).sqrt())
}

fn objective_at(law: &Law, data: &FitData, settings: &FitSettings, params: &[f64]) -> f64 {
    let problem = problem_for(law, data, settings).unwrap();
    problem.objective_natural(params, &mut problem.tape().scratch())
}

fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

// ---------------------------------------------------------------------------------------------
// vocab: Tao et al. 2024
// ---------------------------------------------------------------------------------------------

/// The shipped Approach-3 coefficients (`optimal_Nv_predict.py` of sail-sg/scaling-with-vocab),
/// in the authors' normalised units: N_nv in millions, N_v = (V/1e3)·(d/1e3), D in billions of
/// tokens.
const TAO_PUBLISHED: &[(&str, f64)] = &[
    ("A1", 1.8313851559554126),
    ("A2", 0.19584238398665638),
    ("B", 2.1241123120064955),
    ("E", 5.5327846803337435),
    ("alpha1", 0.44660634152009615),
    ("alpha2", 0.6707374679896795),
];

/// Tokens per character at vocabulary size `v` (the authors' `H_to_D`, `utils.py`).
fn tokens_per_character(v: f64) -> f64 {
    let l = v.min(200_000.0).ln();
    0.00639222 * l * l - 0.15811069 * l + 1.20470122
}

/// One run of `exp_data.csv`: (N_nv, N_v, D) in the authors' units and L_u. `quirk`: evaluate
/// the characters-to-tokens polynomial at V/1000, as `approach3_isoloss.py` does (PROVENANCE.md,
/// "Traps"); the published coefficients were fitted that way.
fn tao_point(row: &[f64], quirk: bool) -> Vec<f64> {
    let (v, d, h, n_nv) = (row[0], row[1], row[2], row[3]);
    let per_char = tokens_per_character(if quirk { v / 1e3 } else { v });
    vec![n_nv / 1e6, (v / 1e3) * (d / 1e3), h / 1e9 * per_char]
}

/// The rows the authors fit (FLOPs ≥ 2.18e17: 1,054 of 1,200), as (row, L_u).
fn tao_rows(path: &std::path::Path) -> Vec<(Vec<f64>, f64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "vocab_size,embed_dim,num_characters,Non_vocab_parameters,FLOPs,Lossu"
    );
    let rows: Vec<Vec<f64>> = lines
        .map(|line| line.split(',').map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 1200);
    rows.into_iter()
        .filter(|row| row[4] >= 2.18e17)
        .map(|row| {
            let lossu = row[5];
            (row, lossu)
        })
        .collect()
}

/// The published coefficients reproduce the 1,054 fitted runs with R² = 0.972 and RMSE 0.091
/// (the re-check in PROVENANCE.md) only under the authors' V/1000 quirk; with the tokens
/// counted at the true V the same numbers explain almost nothing (R² ≈ 0.04). The library's
/// fit under the authors' protocol (Huber δ = 1e-3 on linear residuals, the exponents of N_nv
/// and D tied) reaches an objective no worse than the published coefficients', with E, A1,
/// alpha1 and B within 0.5 % of theirs, alpha2 within 2 %, A2 within 5 %, and every
/// prediction within 0.01 nats.
#[test]
fn vocab_reproduces_the_published_fit_of_tao_2024() {
    let Some(path) = common::skip::shared(
        "vocab_scaling_tao2024/exp_data.csv",
        "Tao et al. 2024 golden fit",
    ) else {
        return;
    };
    let rows = tao_rows(&path);
    assert_eq!(rows.len(), 1054);
    let law = catalog::lookup("vocab").unwrap();
    let published = values(&law, TAO_PUBLISHED);
    let target: Vec<f64> = rows.iter().map(|(_, y)| *y).collect();
    let quirk: Vec<Vec<f64>> = rows.iter().map(|(r, _)| tao_point(r, true)).collect();
    let (r2, rmse) = r2_rmse(&law, &published, &quirk, &target);
    eprintln!("published coefficients, quirk: R2 {r2:.4}, RMSE {rmse:.4}");
    assert!((r2 - 0.972).abs() < 5e-4, "R2 {r2}");
    assert!((rmse - 0.091).abs() < 5e-4, "RMSE {rmse}");
    let true_v: Vec<Vec<f64>> = rows.iter().map(|(r, _)| tao_point(r, false)).collect();
    let (r2_true_v, _) = r2_rmse(&law, &published, &true_v, &target);
    eprintln!("published coefficients, tokens at the true V: R2 {r2_true_v:.4}");
    assert!(r2_true_v < 0.1, "R2 at the true V {r2_true_v}");

    let settings = FitSettings {
        space: Space::Linear,
        loss: LossKind::Huber,
        f_scale: 1e-3,
        ..FitSettings::default()
    };
    let fit_data = data(&quirk, target.clone());
    let result = fit(&law, &fit_data, &settings).unwrap();
    eprintln!("{}", result.to_json());
    assert!(result.converged, "{}", result.termination);
    let at_published = objective_at(&law, &fit_data, &settings, &published);
    assert!(
        result.objective <= at_published * (1.0 + 1e-9),
        "objective {} above the published coefficients' {at_published}",
        result.objective
    );
    check_vocab_fit(&law, &result, &published, &quirk);
}

fn check_vocab_fit(law: &Law, result: &FitResult, published: &[f64], points: &[Vec<f64>]) {
    // Measured: E 5.5349, A1 1.8289, alpha1 0.4453, A2 0.1907, alpha2 0.6637, B 2.1220. The
    // published numbers are the best of 486 L-BFGS-B starts chosen by a relative MSE, not the
    // exact Huber optimum, hence tolerances of a few parts in a thousand (alpha2 and A2, the
    // vocabulary term, are the least determined: standard errors 0.14 and 0.06).
    for (name, tolerance) in [
        ("E", 0.005),
        ("A1", 0.005),
        ("alpha1", 0.005),
        ("A2", 0.05),
        ("alpha2", 0.02),
        ("B", 0.005),
    ] {
        let got = result.param(name).unwrap().value;
        let want = published[law.param_index(name).unwrap()];
        assert!(
            relative(got, want) < tolerance,
            "{name} {got} vs published {want}"
        );
    }
    let fitted = result.param_values();
    let worst = points
        .iter()
        .map(|p| (law.eval(&fitted, p) - law.eval(published, p)).abs())
        .fold(0.0, f64::max);
    eprintln!("largest difference from the published predictions: {worst:.4}");
    assert!(worst < 0.01, "a prediction {worst} nats from the published");
}

/// Synthetic recovery on the authors' design (6 sizes × 10 vocabularies × 10 points along
/// training, the sizes, widths and vocabularies of exp_data.csv), from the published
/// coefficients with additive noise of 0.01 nats (a tenth of the published fit's RMSE): every
/// parameter comes back within 3 of its reported standard errors, alpha1 within 0.01, the
/// weakly determined alpha2 (the vocabulary term is the smallest) within 0.05 and E within 1 %.
/// Runs without ../shared.
#[test]
fn vocab_recovers_the_published_coefficients_from_synthetic_runs() {
    let law = catalog::lookup("vocab").unwrap();
    let truth = values(&law, TAO_PUBLISHED);
    let sizes = [
        (33.2, 0.512),
        (84.8, 0.768),
        (150.8, 0.768),
        (316.4, 1.024),
        (631.7, 1.536),
        (1129.9, 2.048),
    ];
    let vocabularies = [
        4.096, 6.144, 8.192, 10.24, 16.384, 24.576, 32.768, 48.128, 64.512, 96.256,
    ];
    let mut rng = Rng::new(51);
    let (mut points, mut target) = (Vec::new(), Vec::new());
    for (n_nv, d) in sizes {
        for v in vocabularies {
            // Tokens from 20 to 400 per non-vocabulary parameter (in the authors' units,
            // millions of parameters and billions of tokens).
            for i in 0..10 {
                let tokens = n_nv * 1e-3 * 20.0 * 20f64.powf(i as f64 / 9.0);
                let point = vec![n_nv, v * d, tokens];
                target.push(law.eval(&truth, &point) + 0.01 * rng.normal());
                points.push(point);
            }
        }
    }
    let settings = FitSettings {
        space: Space::Linear,
        ..FitSettings::default()
    };
    let result = fit(&law, &data(&points, target), &settings).unwrap();
    assert!(result.converged, "{}", result.termination);
    for (name, want) in TAO_PUBLISHED {
        let got = result.param(name).unwrap();
        let stderr = got.stderr.expect("a standard error");
        eprintln!("{name}: {} ± {stderr} (truth {want})", got.value);
        assert!(
            (got.value - want).abs() < 3.0 * stderr,
            "{name} {} vs {want}: beyond 3 standard errors ({stderr})",
            got.value
        );
    }
    for (name, tolerance) in [("alpha1", 0.01), ("alpha2", 0.05)] {
        let got = result.param(name).unwrap().value;
        let want = truth[law.param_index(name).unwrap()];
        assert!((got - want).abs() < tolerance, "{name} {got} vs {want}");
    }
    let e = result.param("E").unwrap().value;
    assert!(relative(e, 5.5328) < 0.01, "E {e}");
}

// ---------------------------------------------------------------------------------------------
// parscale: Chen et al. 2025
// ---------------------------------------------------------------------------------------------

/// Non-embedding parameters of the runs, one row per P = 1, 2, 4, 8 (parametric_fit.py).
const PARSCALE_N: [[f64; 6]; 4] = [
    [
        535813376.0,
        693753856.0,
        1088376320.0,
        1571472384.0,
        2774773760.0,
        4353203200.0,
    ],
    [
        538195842.0,
        696738818.0,
        1092762882.0,
        1577522690.0,
        2784937986.0,
        4368529922.0,
    ],
    [
        540577412.0,
        699722756.0,
        1097148164.0,
        1583571460.0,
        2795100164.0,
        4383854084.0,
    ],
    [
        545340552.0,
        705690632.0,
        1105918728.0,
        1595669000.0,
        2815424520.0,
        4414502408.0,
    ],
];

/// Losses on Stack-V2-Python, rows as in [`PARSCALE_N`].
const PARSCALE_STACK: [[f64; 6]; 4] = [
    [1.1722, 1.1496, 1.1131, 1.0817, 1.0451, 1.0213],
    [1.1507, 1.1262, 1.094, 1.0623, 1.0244, 1.0025],
    [1.1354, 1.1124, 1.0808, 1.049, 1.0126, 0.9906],
    [1.1231, 1.0997, 1.0688, 1.0383, 1.0016, 0.9794],
];

/// Losses on the Pile.
const PARSCALE_PILE: [[f64; 6]; 4] = [
    [2.1113, 2.0671, 2.0027, 1.9539, 1.8876, 1.8451],
    [2.0772, 2.0363, 1.973, 1.9266, 1.861, 1.8137],
    [2.0544, 2.0128, 1.9509, 1.904, 1.8394, 1.7938],
    [2.0364, 1.9933, 1.9318, 1.8856, 1.8218, 1.7772],
];

/// The authors' fit (their parametric_fit.py: Huber δ = 1e-3 on log residuals, L-BFGS-B from
/// 300 starts, re-run with scipy 1.17) as (E, A, alpha, k, R²); their A is printed in units of
/// 1e9 parameters. The Stack-V2-Python values are those of the authors' online calculator
/// (parscale-parallel-scaling-law.hf.space), which prints L(2.8B, P = 4) = 1.01548.
const PARSCALE_STACK_FIT: [f64; 5] = [0.69123678, 0.01130616e9, 0.18937067, 0.393463, 0.99783];
const PARSCALE_PILE_FIT: [f64; 5] = [1.28876563, 0.19735203e9, 0.19633308, 0.33445557, 0.99868];

fn parscale_data(losses: &[[f64; 6]; 4]) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut points = Vec::new();
    let mut target = Vec::new();
    for (row, p) in [1.0, 2.0, 4.0, 8.0].into_iter().enumerate() {
        for col in 0..6 {
            points.push(vec![PARSCALE_N[row][col], p]);
            target.push(losses[row][col]);
        }
    }
    (points, target)
}

fn parscale_params(law: &Law, fit: &[f64; 5]) -> Vec<f64> {
    let given = [
        ("E", fit[0]),
        ("A", fit[1]),
        ("alpha", fit[2]),
        ("k", fit[3]),
    ];
    values(law, &given)
}

/// The authors' calculator: a 2.8B model with P = 4 has loss 1.01548 and is worth a 4.33B
/// model with P = 1, 3.4B with P = 2 and 2.38B with P = 8 (N·(k·log P + 1) held).
#[test]
fn parscale_reproduces_the_published_calculator() {
    let law = catalog::lookup("parscale").unwrap();
    let params = parscale_params(&law, &PARSCALE_STACK_FIT);
    let loss = law.eval(&params, &[2.8e9, 4.0]);
    assert!((loss - 1.01548).abs() < 5e-6, "{loss}");
    for (p, equivalent) in [(1.0, 4.33e9), (2.0, 3.4e9), (8.0, 2.38e9)] {
        // The size with P streams whose loss equals the 2.8B model's at P = 4, by bisection.
        let (mut lo, mut hi) = (1e8f64, 1e11f64);
        for _ in 0..200 {
            let mid = (lo * hi).sqrt();
            if law.eval(&params, &[mid, p]) > loss {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        // The calculator prints two or three significant digits.
        assert!(
            relative(lo, equivalent) < 5e-3,
            "P={p}: {lo:e} vs {equivalent:e}"
        );
    }
}

/// The library's default fit (the same Huber δ = 1e-3 on log residuals) of each corpus's 24
/// runs reaches an objective no worse than the authors' fit and its parameters: E, alpha and
/// k within 0.2 %, A (which moves with alpha along a ridge) within 1 %, and R² to 1e-4 of
/// theirs.
#[test]
fn parscale_fit_reproduces_the_authors_fit() {
    let law = catalog::lookup("parscale").unwrap();
    for (name, losses, published) in [
        ("Stack-V2-Python", &PARSCALE_STACK, &PARSCALE_STACK_FIT),
        ("Pile", &PARSCALE_PILE, &PARSCALE_PILE_FIT),
    ] {
        let (points, target) = parscale_data(losses);
        let fit_data = data(&points, target.clone());
        let settings = FitSettings::default();
        let result = fit(&law, &fit_data, &settings).unwrap();
        eprintln!("{name}: {}", result.to_json());
        assert!(result.converged, "{name}: {}", result.termination);
        let theirs = parscale_params(&law, published);
        let at_theirs = objective_at(&law, &fit_data, &settings, &theirs);
        assert!(
            result.objective <= at_theirs * (1.0 + 1e-6),
            "{name}: objective {} above the authors' {at_theirs}",
            result.objective
        );
        // The same optimum of the same objective: measured differences are below 1e-3
        // relative (scipy's L-BFGS-B stops early along the ridge of A and alpha, whose
        // relative standard errors are 7-20 %).
        for (param, want, tolerance) in [
            ("E", published[0], 2e-3),
            ("A", published[1], 1e-2),
            ("alpha", published[2], 2e-3),
            ("k", published[3], 2e-3),
        ] {
            let got = result.param(param).unwrap().value;
            assert!(
                relative(got, want) < tolerance,
                "{name}: {param} {got} vs the authors' {want}"
            );
        }
        let (r2, _) = r2_rmse(&law, &result.param_values(), &points, &target);
        assert!((r2 - published[4]).abs() < 1e-4, "{name}: R2 {r2}");
    }
}

// ---------------------------------------------------------------------------------------------
// precision: Kumar et al. 2024 (published coefficients not found: synthetic recovery)
// ---------------------------------------------------------------------------------------------

/// Plausible values, not the paper's (whose fitted constants we could not find): a Chinchilla
/// base and precision scales like those the paper's figures show (weights more sensitive than
/// activations, the KV cache least).
const PRECISION_TRUTH: &[(&str, f64)] = &[
    ("E", 2.0),
    ("A", 500.0),
    ("alpha", 0.35),
    ("B", 1000.0),
    ("beta", 0.32),
    ("gamma_w", 2.7),
    ("gamma_a", 2.2),
    ("gamma_kv", 1.0),
];

/// The paper's design in small: 4 sizes (30M to 220M) × 4 token counts (1.5B to 26B) × 19
/// precision settings (each part alone at 3, 4, 5, 6 or 8 bits with the others at 16, all
/// three at 4, 6 and 8, and all at 16), with 1 % multiplicative noise. Every parameter comes
/// back within 3 of its reported standard errors; the exponents within 0.03, and gamma_w and
/// gamma_a within 10 % (gamma_kv = 1 moves the loss by under 5 % even at 3 bits, so only its
/// standard-error test applies).
#[test]
fn precision_recovers_its_parameters_from_synthetic_runs() {
    let law = catalog::lookup("precision").unwrap();
    let truth = values(&law, PRECISION_TRUTH);
    let mut settings_p = vec![[16.0, 16.0, 16.0], [4.0; 3], [6.0; 3], [8.0; 3]];
    for part in 0..3 {
        for bits in [3.0, 4.0, 5.0, 6.0, 8.0] {
            let mut p = [16.0; 3];
            p[part] = bits;
            settings_p.push(p);
        }
    }
    let mut rng = Rng::new(2024);
    let (mut points, mut target) = (Vec::new(), Vec::new());
    for n in [30e6, 60e6, 120e6, 220e6] {
        for d in [1.5e9, 5e9, 13e9, 26e9] {
            for p in &settings_p {
                let point = vec![n, d, p[0], p[1], p[2]];
                target.push(law.eval(&truth, &point) * (1.0 + 0.01 * rng.normal()));
                points.push(point);
            }
        }
    }
    let result = fit(&law, &data(&points, target), &FitSettings::default()).unwrap();
    assert!(result.converged, "{}", result.termination);
    for (name, want) in PRECISION_TRUTH {
        let got = result.param(name).unwrap();
        let stderr = got.stderr.expect("a standard error");
        eprintln!("{name}: {} ± {stderr} (truth {want})", got.value);
        assert!(
            (got.value - want).abs() < 3.0 * stderr,
            "{name} {} vs {want}: beyond 3 standard errors ({stderr})",
            got.value
        );
    }
    for (name, tolerance) in [("alpha", 0.03), ("beta", 0.03)] {
        let got = result.param(name).unwrap().value;
        let want = truth[law.param_index(name).unwrap()];
        assert!((got - want).abs() < tolerance, "{name} {got} vs {want}");
    }
    for name in ["gamma_w", "gamma_a"] {
        let got = result.param(name).unwrap().value;
        let want = truth[law.param_index(name).unwrap()];
        assert!(relative(got, want) < 0.1, "{name} {got} vs {want}");
    }
}

// ---------------------------------------------------------------------------------------------
// mixing:K: Ye et al. 2024 (no published coefficients to evaluate: synthetic recovery)
// ---------------------------------------------------------------------------------------------

/// Three domains on the simplex in steps of 0.1 (the 66 mixtures, each domain from 0 to 1),
/// from c = 1.5, k = 1.2, t2 = −0.8 (the second domain helps), t3 = 0.6 (the third hurts),
/// with 0.5 % multiplicative noise: every parameter within 3 standard errors and 0.05 of the
/// truth, and the fitted law's best mixture is the truth's (all of the second domain).
#[test]
fn mixing_recovers_its_parameters_from_synthetic_mixtures() {
    let law = catalog::lookup("mixing:3").unwrap();
    assert_eq!(law.variables, ["r2", "r3"]);
    let truth_named = [("c", 1.5), ("k", 1.2), ("t2", -0.8), ("t3", 0.6)];
    let truth = values(&law, &truth_named);
    let mut rng = Rng::new(2403);
    let (mut points, mut target) = (Vec::new(), Vec::new());
    for i in 0..=10 {
        for j in 0..=(10 - i) {
            let point = vec![i as f64 / 10.0, j as f64 / 10.0];
            target.push(law.eval(&truth, &point) * (1.0 + 0.005 * rng.normal()));
            points.push(point);
        }
    }
    assert_eq!(points.len(), 66);
    let result = fit(&law, &data(&points, target), &FitSettings::default()).unwrap();
    assert!(result.converged, "{}", result.termination);
    for (name, want) in truth_named {
        let got = result.param(name).unwrap();
        let stderr = got.stderr.expect("a standard error");
        assert!(
            (got.value - want).abs() < (3.0 * stderr).min(0.05),
            "{name} {} vs {want} (standard error {stderr})",
            got.value
        );
    }
    let fitted = result.param_values();
    let best = points
        .iter()
        .min_by(|a, b| law.eval(&fitted, a).total_cmp(&law.eval(&fitted, b)))
        .unwrap();
    assert_eq!(best, &vec![1.0, 0.0], "the fitted law's best mixture");
}

// ---------------------------------------------------------------------------------------------
// m4: Alabdulmohsin, Neyshabur & Zhai 2022 (no fitted parameters published: the benchmark's NMT
// curves, a synthetic recovery and the paper's implicit equation checked by evaluation)
// ---------------------------------------------------------------------------------------------

/// The paper's (β, c, α, ε∞, ε₀) of a catalog `m4` parameter vector: β = x0^c·d^(1−α), the
/// paper's exponent is −c and ε₀ = ε∞ + d.
fn m4_paper_form(law: &Law, p: &[f64]) -> (f64, f64, f64, f64, f64) {
    let get = |name: &str| p[law.param_index(name).unwrap()];
    let (eps_inf, d, x0, c, alpha) = (get("eps_inf"), get("d"), get("x0"), get("c"), get("alpha"));
    (
        x0.powf(c) * d.powf(1.0 - alpha),
        -c,
        alpha,
        eps_inf,
        eps_inf + d,
    )
}

/// The catalog law is the paper's implicit M4, (ε − ε∞)/(ε₀ − ε)^α = β·x^c, to rounding, at
/// learning-curve settings from the plateau to the power-law tail, and agrees with the grid the
/// authors' solver searches (10,000 points over [ε∞, ε₀]) to its resolution. (At α = 0 their
/// code skips the grid and returns ε∞ + β·x^c uncapped; the catalog law, like the grid, stops at
/// the plateau ε₀.)
#[test]
fn m4_is_the_papers_implicit_equation() {
    let law = catalog::lookup("m4").unwrap();
    for (eps_inf, d, x0, c, alpha) in [
        (0.3, 0.6, 2e6, 0.55, 1.3),
        (0.05, 0.95, 1e7, 0.3, 0.4),
        (1.8, 2.0, 3e3, 0.9, 3.0),
        (0.2, 0.7, 5e4, 0.45, 0.0),
    ] {
        let given = [
            ("eps_inf", eps_inf),
            ("d", d),
            ("x0", x0),
            ("c", c),
            ("alpha", alpha),
        ];
        let p = values(&law, &given);
        let (beta, c_paper, alpha, eps_inf, eps_0) = m4_paper_form(&law, &p);
        for k in 0..30 {
            let x = 1e2 * 2f64.powi(k);
            let eps = law.eval(&p, &[x]);
            assert!(eps > eps_inf && eps <= eps_0, "x {x}: {eps}");
            let lhs = (eps - eps_inf) / (eps_0 - eps).powf(alpha);
            let rhs = beta * x.powf(c_paper);
            if eps_0 - eps > 1e-9 * d {
                assert!(relative(lhs, rhs) < 1e-9, "x {x}: {lhs} vs {rhs}");
            }
            // The authors' predict_loss: the grid point of [0, b] closest to solving
            // w = f·(b − w)^α, with b = ε₀ − ε∞ and f = β·x^c.
            let b = eps_0 - eps_inf;
            let grid = (0..10_000).map(|i| b * i as f64 / 9_999.0);
            let w = grid
                .min_by(|u, v| {
                    let miss = |w: f64| (w - rhs * (b - w).powf(alpha)).abs();
                    miss(*u).total_cmp(&miss(*v))
                })
                .unwrap();
            assert!(
                (eps - eps_inf - w).abs() <= b / 9_999.0,
                "x {x}: {eps} vs {}",
                w + eps_inf
            );
        }
    }
}

/// A learning curve of 14 sizes doubling from 5e5 (the NMT benchmark's spacing) from
/// ε∞ = 0.3, d = 0.6, x0 = 2e6, c = 0.55, α = 1.3 with 0.3 % noise: each parameter within 3 of
/// its standard errors, and the curve one decade beyond the data within 1 %.
#[test]
fn m4_recovers_its_parameters_from_a_synthetic_learning_curve() {
    let law = catalog::lookup("m4").unwrap();
    let truth_named = [
        ("eps_inf", 0.3),
        ("d", 0.6),
        ("x0", 2e6),
        ("c", 0.55),
        ("alpha", 1.3),
    ];
    let truth = values(&law, &truth_named);
    let mut rng = Rng::new(2022);
    let points: Vec<Vec<f64>> = (0..14).map(|k| vec![5e5 * 2f64.powi(k)]).collect();
    let target = points
        .iter()
        .map(|p| law.eval(&truth, p) * (1.0 + 0.003 * rng.normal()))
        .collect();
    let result = fit(&law, &data(&points, target), &FitSettings::default()).unwrap();
    assert!(result.converged, "{}", result.termination);
    for (name, want) in truth_named {
        let got = result.param(name).unwrap();
        let stderr = got.stderr.expect("a standard error");
        assert!(
            (got.value - want).abs() < 3.0 * stderr,
            "{name} {} vs {want} (standard error {stderr})",
            got.value
        );
    }
    let beyond = [5e5 * 2f64.powi(13) * 10.0];
    let fitted = result.param_values();
    assert!(relative(law.eval(&fitted, &beyond), law.eval(&truth, &beyond)) < 0.01);
}

/// The NMT learning curves of the authors' benchmark (google-research/google-research,
/// `revisiting_neural_scaling_laws/data/benchmark.lang.csv`, Apache License 2.0): log-perplexity
/// against examples seen for 5 architectures, each curve's last point (5.12e8) held out as the
/// paper holds it out. (model, examples seen, loss, 1 = fitted / 0 = held out.)
const M4_NMT: &[(&str, f64, f64, u8)] = &[
    ("6 Enc, 6 Dec", 500000.0, 0.9311752923076924, 1),
    ("6 Enc, 6 Dec", 1000000.0, 0.7439282076923077, 1),
    ("6 Enc, 6 Dec", 2000000.0, 0.6362391538461539, 1),
    ("6 Enc, 6 Dec", 4000000.0, 0.5567884999999999, 1),
    ("6 Enc, 6 Dec", 8000000.0, 0.4820073461538462, 1),
    ("6 Enc, 6 Dec", 16000000.0, 0.40960946153846156, 1),
    ("6 Enc, 6 Dec", 32000000.0, 0.3737405153846154, 1),
    ("6 Enc, 6 Dec", 64000000.0, 0.3531731307692308, 1),
    ("6 Enc, 6 Dec", 128000000.0, 0.34907098076923077, 1),
    ("6 Enc, 6 Dec", 256000000.0, 0.3402780576923077, 1),
    ("6 Enc, 6 Dec", 512000000.0, 0.3401562576923077, 0),
    ("28 Enc, 6 Dec", 1000000.0, 0.759195326923077, 1),
    ("28 Enc, 6 Dec", 2000000.0, 0.6557881538461537, 1),
    ("28 Enc, 6 Dec", 4000000.0, 0.5905543076923077, 1),
    ("28 Enc, 6 Dec", 8000000.0, 0.5085194230769231, 1),
    ("28 Enc, 6 Dec", 16000000.0, 0.43818853846153843, 1),
    ("28 Enc, 6 Dec", 32000000.0, 0.38691630769230767, 1),
    ("28 Enc, 6 Dec", 64000000.0, 0.35276568846153844, 1),
    ("28 Enc, 6 Dec", 128000000.0, 0.32963344615384615, 1),
    ("28 Enc, 6 Dec", 256000000.0, 0.31268725, 1),
    ("28 Enc, 6 Dec", 512000000.0, 0.30665264615384613, 0),
    ("6 Enc, 28 Dec", 500000.0, 0.9903227692307692, 1),
    ("6 Enc, 28 Dec", 1000000.0, 0.8178963653846154, 1),
    ("6 Enc, 28 Dec", 2000000.0, 0.6847281153846153, 1),
    ("6 Enc, 28 Dec", 4000000.0, 0.596147423076923, 1),
    ("6 Enc, 28 Dec", 8000000.0, 0.5069471923076923, 1),
    ("6 Enc, 28 Dec", 16000000.0, 0.42430973076923073, 1),
    ("6 Enc, 28 Dec", 32000000.0, 0.37750491538461534, 1),
    ("6 Enc, 28 Dec", 64000000.0, 0.3420281192307692, 1),
    ("6 Enc, 28 Dec", 128000000.0, 0.31908395384615384, 1),
    ("6 Enc, 28 Dec", 256000000.0, 0.3003186461538462, 1),
    ("6 Enc, 28 Dec", 512000000.0, 0.2968776230769231, 0),
    ("Dec-only", 500000.0, 0.8737086153846153, 1),
    ("Dec-only", 1000000.0, 0.7362287307692307, 1),
    ("Dec-only", 2000000.0, 0.6165888076923077, 1),
    ("Dec-only", 4000000.0, 0.5085202692307692, 1),
    ("Dec-only", 8000000.0, 0.4542861923076923, 1),
    ("Dec-only", 16000000.0, 0.40974884615384616, 1),
    ("Dec-only", 32000000.0, 0.3964682692307692, 1),
    ("Dec-only", 64000000.0, 0.3865734615384615, 1),
    ("Dec-only", 128000000.0, 0.3861453846153846, 1),
    ("Dec-only", 256000000.0, 0.38069770769230765, 1),
    ("Dec-only", 512000000.0, 0.3823245269230769, 0),
    ("TEnc-LSTM", 1000000.0, 0.7960001153846155, 1),
    ("TEnc-LSTM", 2000000.0, 0.6451591538461537, 1),
    ("TEnc-LSTM", 4000000.0, 0.555179576923077, 1),
    ("TEnc-LSTM", 8000000.0, 0.5057018846153847, 1),
    ("TEnc-LSTM", 16000000.0, 0.44988049999999996, 1),
    ("TEnc-LSTM", 32000000.0, 0.40848719230769226, 1),
    ("TEnc-LSTM", 64000000.0, 0.39109538461538457, 1),
    ("TEnc-LSTM", 128000000.0, 0.38673849999999993, 1),
    ("TEnc-LSTM", 256000000.0, 0.37468914615384613, 1),
    ("TEnc-LSTM", 512000000.0, 0.3724219692307692, 0),
];

/// The log error at each NMT curve's held-out point of a law fitted to the rest of the curve.
fn nmt_held_out_log_errors(name: &str) -> Vec<f64> {
    let law = catalog::lookup(name).unwrap();
    let models = [
        "6 Enc, 6 Dec",
        "28 Enc, 6 Dec",
        "6 Enc, 28 Dec",
        "Dec-only",
        "TEnc-LSTM",
    ];
    models
        .iter()
        .map(|model| {
            let rows: Vec<_> = M4_NMT.iter().filter(|r| r.0 == *model).collect();
            let train: Vec<_> = rows.iter().filter(|r| r.3 == 1).collect();
            let points: Vec<Vec<f64>> = train.iter().map(|r| vec![r.1]).collect();
            let target = train.iter().map(|r| r.2).collect();
            let result = fit(&law, &data(&points, target), &FitSettings::default()).unwrap();
            let held = rows.iter().find(|r| r.3 == 0).unwrap();
            let predicted = law.eval(&result.param_values(), &[held.1]);
            eprintln!(
                "{name} {model}: {predicted} vs {} ({:?})",
                held.2,
                result.param_values()
            );
            (predicted / held.2).ln()
        })
        .collect()
}

/// On the 5 NMT curves, M4 fitted by the library predicts each held-out point (one doubling
/// beyond the fitted curve) within 3.5 % (measured: 0.5 % to 3.0 %, all below the truth) and
/// with less than half the log RMSE of the saturating power law, the paper's M2 (measured: a
/// third, 0.0155 against 0.0466), as the paper reports for its own M4 fits. Measured, not
/// asserted: two of the five fits run off (d and alpha without bound) and still extrapolate
/// (the curve, not each parameter, is identified); one stops at alpha = 0, where M4 is M2.
#[test]
fn m4_extrapolates_the_benchmarks_nmt_curves() {
    let rmse =
        |errors: &[f64]| (errors.iter().map(|e| e * e).sum::<f64>() / errors.len() as f64).sqrt();
    let m4 = nmt_held_out_log_errors("m4");
    let m2 = nmt_held_out_log_errors("power_offset");
    assert!(m4.iter().all(|e| e.abs() < 0.035), "{m4:?}");
    assert!(rmse(&m4) < 0.5 * rmse(&m2), "m4 {m4:?} power_offset {m2:?}");
}

// ---------------------------------------------------------------------------------------------
// farseer: Li et al. 2025 (coefficients second-hand: evaluation of the paper's form and a
// synthetic recovery from other values than the starts are centred on)
// ---------------------------------------------------------------------------------------------

/// The fit as the benchmark of PlanarG/active-sl carries it (farseer_scaling_law/laws.py):
/// (a3, gamma, b3, a2, beta, b2, a1, alpha, b1).
const FARSEER_SECOND_HAND: [f64; 9] = [
    -0.062465473,
    0.13,
    0.1284880679442551,
    230.73437075885855,
    -0.1729,
    -1.544209554,
    -1.665630816,
    0.0459,
    3.133347198805445,
];

/// The paper's form, L = exp(a3 N^γ + b3) + exp(a2 N^β + b2)·D^(−exp(a1 N^α + b1)).
fn farseer_as_printed(c: &[f64; 9], n: f64, d: f64) -> f64 {
    let [a3, gamma, b3, a2, beta, b2, a1, alpha, b1] = *c;
    (a3 * n.powf(gamma) + b3).exp()
        + (a2 * n.powf(beta) + b2).exp() * d.powf(-(a1 * n.powf(alpha) + b1).exp())
}

/// The catalog's parameters (A3 = exp(b3), A2 = exp(b2)) of the paper's nine.
fn farseer_params(law: &Law, c: &[f64; 9]) -> Vec<f64> {
    let [a3, gamma, b3, a2, beta, b2, a1, alpha, b1] = *c;
    let given = [
        ("A3", b3.exp()),
        ("a3", a3),
        ("gamma", gamma),
        ("A2", b2.exp()),
        ("a2", a2),
        ("beta", beta),
        ("a1", a1),
        ("alpha", alpha),
        ("b1", b1),
    ];
    values(law, &given)
}

/// The catalog law with A3 = exp(b3) and A2 = exp(b2) is the printed form, to rounding, over the
/// benchmark's range (N 1e8 to 2.5e10, D 1e9 to 5e11: 0.41 to 0.74 bits per character).
#[test]
fn farseer_is_the_printed_form() {
    let law = catalog::lookup("farseer").unwrap();
    let params = farseer_params(&law, &FARSEER_SECOND_HAND);
    for n in [9.96e7, 1e9, 2.51e10] {
        for d in [1e9, 1e11, 5.12e11] {
            let printed = farseer_as_printed(&FARSEER_SECOND_HAND, n, d);
            assert!((0.40..0.75).contains(&printed), "{n:e} {d:e}: {printed}");
            assert!(relative(law.eval(&params, &[n, d]), printed) < 1e-13);
        }
    }
}

/// A 6 × 6 design (N 1e8 to 1e10, D 1e9 to 3e11) from coefficients unlike those the starts are
/// centred on (a3 = −0.1, γ = 0.11, b3 = 0.3, a2 = 150, β = −0.15, b2 = −1, a1 = −1.2,
/// α = 0.06, b1 = 2.6), with 0.3 % noise: the search converges to an objective no worse than
/// the truth's, and the loss one decade beyond the data in N and D is within 1 %. The nine
/// parameters are not each identified by such a design: with α near 0, a1·N^α + b1 is nearly
/// linear in log N, and the floor's (A3, a3, γ) trade against each other (measured on this
/// draw, not asserted: a3 = −0.006 ± 0.028 against −0.1); the paper fits its law to about
/// 1,000 runs.
#[test]
fn farseer_recovers_a_synthetic_fit() {
    let law = catalog::lookup("farseer").unwrap();
    let truth_paper = [-0.1, 0.11, 0.3, 150.0, -0.15, -1.0, -1.2, 0.06, 2.6];
    let truth = farseer_params(&law, &truth_paper);
    let mut rng = Rng::new(2506);
    let (mut points, mut target) = (Vec::new(), Vec::new());
    for n in [1e8, 2.5e8, 6e8, 1.5e9, 4e9, 1e10] {
        for d in [1e9, 3e9, 1e10, 3e10, 1e11, 3e11] {
            target.push(law.eval(&truth, &[n, d]) * (1.0 + 0.003 * rng.normal()));
            points.push(vec![n, d]);
        }
    }
    let data = data(&points, target);
    let settings = FitSettings::default();
    let result = fit(&law, &data, &settings).unwrap();
    assert!(result.converged, "{}", result.termination);
    let fitted = result.param_values();
    assert!(
        objective_at(&law, &data, &settings, &fitted)
            <= objective_at(&law, &data, &settings, &truth)
    );
    let beyond = [1e11, 3e12];
    assert!(relative(law.eval(&fitted, &beyond), law.eval(&truth, &beyond)) < 0.01);
}

// ---------------------------------------------------------------------------------------------
// distillation: Busbridge et al. 2025 (the teacher-student coefficients not found: synthetic
// recovery, with the supervised part at its second-hand published fit)
// ---------------------------------------------------------------------------------------------

/// The supervised law of the paper (eq. 1) at its fit as the PlanarG/active-sl benchmark
/// carries it: E + (A N^−α + B D^−β)^γ, E = 1.220, A = 3355, α = 0.408, B = 18186, β = 0.431,
/// γ = 0.452.
fn distillation_supervised(n: f64, d: f64) -> f64 {
    1.220 + (3355.0 * n.powf(-0.408) + 18186.0 * d.powf(-0.431)).powf(0.452)
}

/// Teachers of loss 1.6 to 3.6, students of 1.4e8 to 7.75e9 parameters distilled on 4e9 to
/// 5e11 tokens (the paper's ranges), from c0 = 0.8, c1 = 1.5, d1 = 1.2, f1 = 0.6 and the
/// supervised fit's A, α, B, β, γ, with 0.3 % noise. The search reaches an objective below the
/// truth's, and the students' losses beyond the data (a 3e10 student on 2e12 tokens, a teacher
/// of 1.4) are within 0.5 %. The parameters are not each identified by such a design (measured,
/// not asserted): in this draw c1 and d1 run off together (the fit says so) to the law's limit
/// exp(−k·(L_T/L_sup)^(1/f1)), and c0 trades against γ, A and B.
#[test]
fn distillation_recovers_the_students_losses() {
    let law = catalog::lookup("distillation").unwrap();
    assert_eq!(law.variables, ["L_T", "L_sup", "N_S", "D_S"]);
    let truth_named = [
        ("c0", 0.8),
        ("c1", 1.5),
        ("d1", 1.2),
        ("f1", 0.6),
        ("A", 3355.0),
        ("alpha", 0.408),
        ("B", 18186.0),
        ("beta", 0.431),
        ("gamma", 0.452),
    ];
    let truth = values(&law, &truth_named);
    let point = |t: f64, n: f64, d: f64| vec![t, distillation_supervised(n, d), n, d];
    let mut rng = Rng::new(2502);
    let (mut points, mut target) = (Vec::new(), Vec::new());
    for teacher in [1.6, 1.9, 2.2, 2.5, 2.8, 3.2, 3.6] {
        for n in [1.4e8, 5e8, 1.8e9, 7.75e9] {
            for d in [4e9, 2e10, 1e11, 5e11] {
                let p = point(teacher, n, d);
                target.push(law.eval(&truth, &p) * (1.0 + 0.003 * rng.normal()));
                points.push(p);
            }
        }
    }
    let data = data(&points, target);
    let settings = FitSettings::default();
    let result = fit(&law, &data, &settings).unwrap();
    let fitted = result.param_values();
    assert!(
        objective_at(&law, &data, &settings, &fitted)
            <= objective_at(&law, &data, &settings, &truth)
    );
    for beyond in [
        point(1.6, 3e10, 2e12),
        point(1.4, 3e10, 2e12),
        point(2.5, 7.75e9, 2e12),
    ] {
        let (got, want) = (law.eval(&fitted, &beyond), law.eval(&truth, &beyond));
        assert!(relative(got, want) < 0.005, "{beyond:?}: {got} vs {want}");
    }
}

// ---------------------------------------------------------------------------------------------
// mixture_additive:K: Shukor et al. 2025 (form second-hand, no published coefficients:
// synthetic recovery)
// ---------------------------------------------------------------------------------------------

/// The truth of the recovery test: a floor and Chinchilla-like N and D terms, and three domains
/// whose best mixture is interior, (0.52, 0.28, 0.20) on a 1 % grid, with a mixture term of
/// 0.70 there against 0.87 to 1.22 near the corners.
const MIXTURE_TRUTH: &[(&str, f64)] = &[
    ("E", 1.8),
    ("C1", 1.0),
    ("g1", 0.5),
    ("C2", 0.8),
    ("g2", 0.4),
    ("C3", 0.6),
    ("g3", 0.6),
    ("A", 400.0),
    ("alpha", 0.34),
    ("B", 1200.0),
    ("beta", 0.28),
];

/// The mixture of a 1 % grid over the 3-domain simplex, every proportion at least `least`, that
/// the law at `params` predicts best, at any one scale (the additive law's best mixture does
/// not depend on scale).
fn best_mixture(law: &Law, params: &[f64], least: usize) -> Vec<f64> {
    let mut best = (f64::INFINITY, vec![]);
    for i in least..=(100 - 2 * least) {
        for j in least..=(100 - least - i) {
            let h = vec![
                i as f64 / 100.0,
                j as f64 / 100.0,
                (100 - i - j) as f64 / 100.0,
            ];
            let loss = law.eval(params, &[h[0], h[1], h[2], 1e9, 2e10]);
            if loss < best.0 {
                best = (loss, h);
            }
        }
    }
    best.1
}

/// A design like the paper's small ones: 10 mixtures spanning the simplex (every proportion
/// 0.1 to 0.8) × 4 sizes (1e8 to 1.4e9) × 3 token counts (10, 20 and 40 per parameter).
const MIXTURE_DESIGN: [[f64; 3]; 10] = [
    [0.8, 0.1, 0.1],
    [0.1, 0.8, 0.1],
    [0.1, 0.1, 0.8],
    [0.6, 0.2, 0.2],
    [0.2, 0.6, 0.2],
    [0.2, 0.2, 0.6],
    [0.4, 0.4, 0.2],
    [0.4, 0.2, 0.4],
    [0.2, 0.4, 0.4],
    [1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0],
];

/// One noisy draw of [`MIXTURE_DESIGN`] at 0.3 % multiplicative noise, and the mixture whose
/// four runs have the lowest mean log loss (what a user picks without a law).
fn mixture_runs(law: &Law, truth: &[f64], seed: u64) -> (FitData, [f64; 3]) {
    let mut rng = Rng::new(seed);
    let (mut points, mut target) = (Vec::new(), Vec::new());
    let mut observed_best = (f64::INFINITY, MIXTURE_DESIGN[0]);
    for h in MIXTURE_DESIGN {
        let mut sum_log = 0.0;
        for n in [1e8, 2.5e8, 6e8, 1.4e9] {
            for tokens_per_parameter in [10.0, 20.0, 40.0] {
                let point = vec![h[0], h[1], h[2], n, tokens_per_parameter * n];
                let loss = law.eval(truth, &point) * (1.0 + 0.003 * rng.normal());
                sum_log += loss.ln();
                target.push(loss);
                points.push(point);
            }
        }
        if sum_log < observed_best.0 {
            observed_best = (sum_log, h);
        }
    }
    (data(&points, target), observed_best.1)
}

/// 12 noisy draws of [`MIXTURE_DESIGN`]. Each fit reaches an objective no worse than the
/// truth's and predicts a model 10 times the largest at 20 tokens per parameter (2.8e11 tokens,
/// 5 times the most in the data), at a mixture not in the data, within 1 % (measured: 0.03 to
/// 0.54 %). Within the design's range (every proportion
/// at least 10 %) the fitted law's best mixture loses under 0.2 % against the truth's best
/// (measured: at most 0.13 %), and over the whole simplex the upper median draw's (7th of
/// 12) loses less than the best mixture in the data does (measured: 0.008 % against 0.08 %). Not asserted, since
/// the design cannot see it: in 3 of the 12 draws the fit puts the third domain's exponent
/// near 1 and its best mixture at the 1 % edge, where no run has less than 10 % of any domain
/// (a loss 0.78 % above the best).
#[test]
fn mixture_additive_recovers_the_best_mixture_from_synthetic_runs() {
    let law = catalog::lookup("mixture_additive:3").unwrap();
    assert_eq!(law.variables, ["h1", "h2", "h3", "N", "D"]);
    let truth = values(&law, MIXTURE_TRUTH);
    let settings = FitSettings::default();
    let at = |h: &[f64]| law.eval(&truth, &[h[0], h[1], h[2], 1e9, 2e10]);
    let true_best = best_mixture(&law, &truth, 1);
    let (mut simplex_gaps, mut observed_gaps) = (Vec::new(), Vec::new());
    for seed in 2507..2519 {
        let (data, observed_best) = mixture_runs(&law, &truth, seed);
        let fitted = fit(&law, &data, &settings).unwrap().param_values();
        assert!(
            objective_at(&law, &data, &settings, &fitted)
                <= objective_at(&law, &data, &settings, &truth)
        );
        let beyond = [0.3, 0.5, 0.2, 1.4e10, 2.8e11];
        let (got, want) = (law.eval(&fitted, &beyond), law.eval(&truth, &beyond));
        assert!(relative(got, want) < 0.01, "draw {seed}: {got} vs {want}");
        let inside = best_mixture(&law, &fitted, 10);
        let gap = relative(at(&inside), at(&best_mixture(&law, &truth, 10)));
        assert!(
            gap < 2e-3,
            "draw {seed}: best mixture {inside:?}, loss {gap} above"
        );
        simplex_gaps.push(relative(
            at(&best_mixture(&law, &fitted, 1)),
            at(&true_best),
        ));
        observed_gaps.push(relative(at(&observed_best), at(&true_best)));
    }
    simplex_gaps.sort_by(f64::total_cmp);
    observed_gaps.sort_by(f64::total_cmp);
    eprintln!("gaps over the simplex {simplex_gaps:?}; best mixture in the data {observed_gaps:?}");
    assert!(simplex_gaps[6] < observed_gaps[6]);
}
