//! Property tests with seeded random inputs: exact derivatives (reverse sweep, hyper-duals,
//! objective gradients and Hessians) match central finite differences on random formulas and
//! points, and a fixed seed gives bit-identical fits for any thread count.

#![allow(clippy::needless_range_loop)] // parallel arrays indexed together read best by index

use crate::common;

use scalinglaws::fit::{fit, problem_for, FitSettings, LossKind, Space};
use scalinglaws::law::catalog;
use scalinglaws::law::real::{HyperDual, SecondOrder};
use scalinglaws::rng::Rng;
use scalinglaws::Law;

const PARAMS: [&str; 3] = ["a", "b", "c"];
const VARS: [&str; 2] = ["x", "y"];

/// A random formula over variables x, y and parameters a, b, c.
fn random_formula(rng: &mut Rng, depth: usize) -> String {
    let leaf = |rng: &mut Rng| match rng.below(5) {
        0 | 1 => PARAMS[rng.below(3)].to_string(),
        2 | 3 => VARS[rng.below(2)].to_string(),
        _ => format!("{:.3}", 0.1 + 2.0 * rng.uniform()),
    };
    if depth == 0 {
        return leaf(rng);
    }
    let sub = |rng: &mut Rng| random_formula(rng, depth - 1);
    match rng.below(12) {
        0 => format!("({} + {})", sub(rng), sub(rng)),
        1 => format!("({} - {})", sub(rng), sub(rng)),
        2 | 3 => format!("({} * {})", sub(rng), sub(rng)),
        4 => format!("({} / {})", sub(rng), sub(rng)),
        5 => format!("{}^-{}", VARS[rng.below(2)], PARAMS[rng.below(3)]),
        6 => format!("exp({})", sub(rng)),
        7 => format!("log(1 + {}^2)", sub(rng)),
        8 => format!("sqrt(1 + {}^2)", sub(rng)),
        9 => format!("sigmoid({})", sub(rng)),
        10 => format!(
            "{}(x*{}, y*{})",
            ["min", "max"][rng.below(2)],
            sub(rng),
            sub(rng)
        ),
        _ => format!("(-{})^2", sub(rng)),
    }
}

fn law_of(formula: &str) -> Law {
    Law::from_formula(formula, &|id| VARS.contains(&id))
        .unwrap_or_else(|e| panic!("{formula}: {e}"))
}

/// Central difference of `f` in coordinate `i`; None near a kink, where central differences
/// with steps h and h/4 disagree (on smooth functions they agree to O(h²)).
fn central(f: &dyn Fn(&[f64]) -> f64, p: &[f64], i: usize) -> Option<f64> {
    let at = |delta: f64| {
        let mut q = p.to_vec();
        q[i] += delta;
        f(&q)
    };
    let difference = |h: f64| (at(h) - at(-h)) / (2.0 * h);
    let h = 1e-5 * p[i].abs().max(1.0);
    let (coarse, fine) = (difference(h), difference(h / 4.0));
    let scale = coarse.abs().max(fine.abs()).max(1e-3);
    let smooth = coarse.is_finite() && fine.is_finite() && (coarse - fine).abs() <= 1e-4 * scale;
    smooth.then_some(fine)
}

fn close(exact: f64, numeric: f64, scale: f64) -> bool {
    (exact - numeric).abs() <= 1e-5 * exact.abs().max(numeric.abs()).max(scale)
}

#[test]
fn gradients_and_hessians_match_finite_differences_on_random_formulas() {
    let mut rng = Rng::new(20261129);
    let mut checked = 0;
    for case in 0..300 {
        // `+ a` keeps at least one parameter in every formula.
        let formula = format!("{} + a", random_formula(&mut rng, 3));
        let law = law_of(&formula);
        let x = [0.5 + 3.0 * rng.uniform(), 1.5 + 2.0 * rng.uniform()];
        let columns: Vec<Vec<f64>> = law
            .variables
            .iter()
            .map(|v| vec![x[VARS.iter().position(|n| n == v).unwrap()]])
            .collect();
        let refs: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
        let bound = law.bind(&refs);
        let p: Vec<f64> = law.params.iter().map(|_| 0.2 + rng.uniform()).collect();
        let mut scratch = bound.scratch();
        let f = |q: &[f64]| bound.eval_row(q, 0, &mut bound.scratch());
        let value = f(&p);
        if !value.is_finite() || value.abs() > 1e8 {
            continue;
        }
        let mut gradient = vec![0.0; p.len()];
        let reverse_value = bound.gradient_row(&p, 0, &mut scratch, &mut gradient);
        let duals: Vec<HyperDual> = p
            .iter()
            .enumerate()
            .map(|(i, &v)| HyperDual::variable(v, i, p.len()))
            .collect();
        let (dual_value, dual_gradient, dual_hessian) = bound.eval_row_real(&duals, 0).into_parts();
        assert!(
            close(reverse_value, value, 1e-12) && close(dual_value, value, 1e-12),
            "case {case} {formula}"
        );
        for i in 0..p.len() {
            let Some(numeric) = central(&f, &p, i) else {
                continue;
            };
            let scale = value.abs().max(1.0) * 1e-3;
            assert!(
                close(gradient[i], numeric, scale),
                "case {case} {formula}: d/d{} reverse {} vs fd {numeric}",
                law.params[i].name,
                gradient[i]
            );
            assert!(
                close(dual_gradient[i], numeric, scale),
                "case {case} {formula}: d/d{} dual {} vs fd {numeric}",
                law.params[i].name,
                dual_gradient[i]
            );
            let g = |q: &[f64]| {
                let mut out = vec![0.0; q.len()];
                bound.gradient_row(q, 0, &mut bound.scratch(), &mut out);
                out
            };
            for j in 0..p.len() {
                let gj = |q: &[f64]| g(q)[j];
                if let Some(numeric) = central(&gj, &p, i) {
                    let h = dual_hessian[i * p.len() + j];
                    assert!(
                        close(h, numeric, scale.max(1e-2)),
                        "case {case} {formula}: H[{i}][{j}] dual {h} vs fd {numeric}"
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 300, "only {checked} derivatives checked");
}

/// The elementary functions (sin cos tan atan atan2 tanh abs pow log1p expm1 softplus m4root,
/// pi, and sigmoid far into its tail): reverse sweep, column sweep and hyper-dual gradients and Hessians
/// against central differences.
#[test]
fn elementary_functions_have_exact_derivatives() {
    let formulas = [
        "a + b*cos(2*pi*x/c) + sin(a*y)",
        "tan(a*x/4) + atan(b/(x - c))/pi",
        "atan2(a*y, b - x) * c",
        "tanh(a*x - b) + abs(c - y)",
        "pow(x, a) * b + pow(a + y, c)",
        "log1p(a*x) + expm1(b*y/5) * c",
        "softplus(a*x - b*y) + c*softplus(-8*a*x) + sigmoid(40*b - y)",
        "c*exp(-a*b*softplus(log(x/b)/(0.05*a)))",
        "c*m4root((a/x)^b, 3*c*y) + m4root(a*y, b)",
    ];
    let mut rng = Rng::new(20261201);
    let mut checked = 0;
    for formula in formulas {
        let law = law_of(formula);
        for case in 0..20 {
            let x = [0.5 + 3.0 * rng.uniform(), 1.5 + 2.0 * rng.uniform()];
            let columns: Vec<Vec<f64>> = law
                .variables
                .iter()
                .map(|v| vec![x[VARS.iter().position(|n| n == v).unwrap()]])
                .collect();
            let refs: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
            let bound = law.bind(&refs);
            let p: Vec<f64> = law.params.iter().map(|_| 0.2 + rng.uniform()).collect();
            let f = |q: &[f64]| bound.eval_row(q, 0, &mut bound.scratch());
            let value = f(&p);
            if !value.is_finite() {
                continue;
            }
            let mut scratch = bound.scratch();
            let mut gradient = vec![0.0; p.len()];
            bound.gradient_row(&p, 0, &mut scratch, &mut gradient);
            let columns_jacobian = bound.jacobian_columns(&p, &mut scratch).1.to_vec();
            let duals: Vec<HyperDual> = p
                .iter()
                .enumerate()
                .map(|(i, &v)| HyperDual::variable(v, i, p.len()))
                .collect();
            let (dual_value, dual_gradient, dual_hessian) =
                bound.eval_row_real(&duals, 0).into_parts();
            assert!(close(dual_value, value, 1e-12), "{formula} case {case}");
            let scale = value.abs().max(1.0) * 1e-3;
            for i in 0..p.len() {
                let Some(numeric) = central(&f, &p, i) else {
                    continue;
                };
                for (what, exact) in [
                    ("reverse", gradient[i]),
                    ("column", columns_jacobian[i]),
                    ("dual", dual_gradient[i]),
                ] {
                    assert!(
                        close(exact, numeric, scale),
                        "{formula} case {case}: d/d{} {what} {exact} vs fd {numeric}",
                        law.params[i].name
                    );
                }
                for j in 0..p.len() {
                    let gj = |q: &[f64]| {
                        let mut out = vec![0.0; q.len()];
                        bound.gradient_row(q, 0, &mut bound.scratch(), &mut out);
                        out[j]
                    };
                    if let Some(numeric) = central(&gj, &p, i) {
                        let h = dual_hessian[i * p.len() + j];
                        assert!(
                            close(h, numeric, scale.max(1e-2)),
                            "{formula} case {case}: H[{i}][{j}] dual {h} vs fd {numeric}"
                        );
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 200, "only {checked} derivatives checked");
}

#[test]
fn objective_gradient_and_hessian_match_finite_differences() {
    let data = common::chinchilla_epoch();
    let law = catalog::lookup("chinchilla").unwrap();
    for (loss, space) in [
        (LossKind::Huber, Space::Log),
        (LossKind::Linear, Space::Linear),
        (LossKind::SoftL1, Space::Log),
        (LossKind::Cauchy, Space::Log),
        (LossKind::Arctan, Space::Linear),
    ] {
        let settings = FitSettings {
            loss,
            space,
            f_scale: 0.05,
            ..FitSettings::default()
        };
        let problem = problem_for(&law, &data, &settings).unwrap();
        let p = [1.7, 420.0, 0.33, 1900.0, 0.36];
        let f = |q: &[f64]| problem.objective_natural(q, &mut problem.tape().scratch());
        let mut gradient = vec![0.0; 5];
        let value = problem.value_and_gradient(&p, &mut problem.tape().scratch(), &mut gradient);
        let exact = problem.exact_natural(&p).unwrap();
        assert!(close(value, f(&p), 1e-15) && close(exact.value, value, 1e-15));
        // The Gauss–Newton model (whole-column sweeps, with its fast path for Huber on log
        // residuals) has the same value and, through the transform, the same gradient.
        let u = problem.internal(&p);
        let model = problem
            .gauss_newton(&u, &mut problem.tape().scratch())
            .unwrap();
        assert!(close(model.value, value, 1e-15), "{loss:?}: GN value");
        for i in 0..5 {
            let dp_du = problem.transforms()[i].derivatives(u[i]).0;
            assert!(
                close(model.gradient[i], gradient[i] * dp_du, value * 1e-12),
                "{loss:?}: GN gradient {i}"
            );
            for j in 0..5 {
                let (a, b) = (model.curvature[(i, j)], model.curvature[(j, i)]);
                assert!(
                    a.to_bits() == b.to_bits(),
                    "{loss:?}: GN curvature not symmetric"
                );
            }
            assert!(
                model.curvature[(i, i)] >= 0.0,
                "{loss:?}: GN curvature diagonal"
            );
        }
        for i in 0..5 {
            let numeric = central(&f, &p, i)
                .unwrap_or_else(|| panic!("{loss:?}: objective not smooth in p{i}"));
            assert!(
                close(gradient[i], numeric, value * 1e-6),
                "{loss:?}: dF/dp{i} {} vs {numeric}",
                gradient[i]
            );
            assert!(
                close(exact.gradient[i], gradient[i], value * 1e-9),
                "{loss:?}: hyper-dual vs reverse gradient"
            );
            for j in 0..5 {
                let gj = |q: &[f64]| {
                    let mut g = vec![0.0; 5];
                    problem.value_and_gradient(q, &mut problem.tape().scratch(), &mut g);
                    g[j]
                };
                if let Some(numeric) = central(&gj, &p, i) {
                    let h = exact.curvature[(i, j)];
                    let scale = (exact.curvature[(i, i)].abs() * exact.curvature[(j, j)].abs())
                        .sqrt()
                        * 1e-4;
                    assert!(
                        close(h, numeric, scale),
                        "{loss:?}: H[{i}][{j}] {h} vs {numeric}"
                    );
                }
            }
        }
    }
}

#[test]
fn fits_are_bit_identical_for_any_thread_count() {
    let data = common::chinchilla_epoch();
    {
        let law = catalog::lookup("chinchilla").unwrap();
        let one = fit(
            &law,
            &data,
            &FitSettings {
                threads: Some(1),
                seed: 7,
                ..FitSettings::default()
            },
        )
        .unwrap();
        let two = fit(
            &law,
            &data,
            &FitSettings {
                threads: Some(2),
                seed: 7,
                ..FitSettings::default()
            },
        )
        .unwrap();
        let bits = |r: &scalinglaws::fit::FitResult| {
            r.param_values()
                .iter()
                .map(|v| v.to_bits())
                .collect::<Vec<_>>()
        };
        assert_eq!(bits(&one), bits(&two));
        assert_eq!(one.objective.to_bits(), two.objective.to_bits());
        let strip = |r: &scalinglaws::fit::FitResult| {
            let mut r = r.clone();
            r.settings.threads = None;
            r.to_json()
        };
        assert_eq!(strip(&one), strip(&two));
    }
}

/// Whole-column sweeps (every row at once, as the fits use them) give each row exactly what
/// the per-row sweeps give: values and gradients of random formulas over many rows.
#[test]
fn column_sweeps_match_row_sweeps() {
    let mut rng = Rng::new(2024);
    let mut compared = 0;
    for case in 0..300 {
        let formula = random_formula(&mut rng, 3);
        // A bound tape takes its row count from its columns: a law needs a variable and a
        // parameter for a column sweep to mean anything.
        let Ok(law) = Law::from_formula(&formula, &|id| VARS.contains(&id)) else {
            continue;
        };
        if law.variables.is_empty() {
            continue;
        }
        let rows = 1 + rng.below(20);
        let columns: Vec<Vec<f64>> = law
            .variables
            .iter()
            .map(|_| (0..rows).map(|_| 0.1 + 3.0 * rng.uniform()).collect())
            .collect();
        let refs: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
        let bound = law.bind(&refs);
        let p: Vec<f64> = law.params.iter().map(|_| 0.2 + rng.uniform()).collect();
        let mut scratch = bound.scratch();
        let (values, jacobian) = {
            let (v, j) = bound.jacobian_columns(&p, &mut scratch);
            (v.to_vec(), j.to_vec())
        };
        let forward = bound.forward_columns(&p, &mut bound.scratch()).to_vec();
        for row in 0..rows {
            let mut gradient = vec![0.0; p.len()];
            let value = bound.gradient_row(&p, row, &mut bound.scratch(), &mut gradient);
            let same = |a: f64, b: f64| (a.is_nan() && b.is_nan()) || close(a, b, 1e-12);
            assert!(
                same(values[row], value) && same(forward[row], value),
                "case {case} {formula} row {row}: {} / {} vs {value}",
                values[row],
                forward[row]
            );
            if !value.is_finite() {
                continue;
            }
            for i in 0..p.len() {
                let column = jacobian[i * rows + row];
                assert!(
                    same(column, gradient[i]),
                    "case {case} {formula} row {row} d/d{}: columns {column} vs row {}",
                    law.params[i].name,
                    gradient[i]
                );
            }
            compared += 1;
        }
    }
    assert!(compared > 1000, "only {compared} rows compared");
}
