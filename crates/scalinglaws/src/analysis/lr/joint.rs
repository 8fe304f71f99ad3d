//! The joint fit of the LR law over every run near each cell's optimum, an alternative to
//! fitting the law to per-cell argmins (issue 9): within cell c,
//!
//!   L = m_c + k(N_c, D_c)·(ln lr − ln lr*(N_c, D_c; θ))²,
//!   ln k(N, D) = k0 + kN·ln(N/N₀) + kD·ln(D/D₀),
//!
//! where ln lr*(N, D; θ) is the law (`law.rs`), each cell keeps its own floor m_c = L*(N, D),
//! and the curvature (the loss paid per squared e-fold of LR away from the optimum, which falls
//! tenfold from small short runs to large long ones) follows a power law of its own. A free
//! curvature per cell would let every weak cell (long horizons, where the profile rises by
//! about the noise) bend its parabola to any vertex: on the curved synthetic sweeps of
//! tests/integration/lr.rs (at the real data's noise) the 95% interval of b then covered the truth in 86%
//! of seeds and its standard error was 72% of its scatter; with the curvature law, 95%. For a given (θ, k-law) the model is linear in the floors, so they are
//! solved in closed form per cell (variable projection, Golub & Pereyra 1973) and
//! Levenberg–Marquardt runs on the rest with Kaufman's (1975) Jacobian −P⊥·∂(model)/∂θ, which
//! is exact for the covariance σ²(JᵀJ)⁻¹ at the optimum (the Schur complement of the full
//! problem).
//!
//! `Curvature::Cell` frees the curvature of every cell instead (m_c and k_c ≥ 0 both solved in
//! closed form; a cell whose best k_c would be negative gets k_c = 0 and says nothing about θ).
//! It fits sweeps whose curvatures do not follow a power law (on the real sweep of Li et al.
//! 2025 its residual scale is two thirds of the curvature law's), at the price of the
//! calibration above.
//!
//! Edge cells take part: with the curvature known, a monotone profile's slope says how far
//! beyond the sweep its optimum lies, which a per-cell argmin cannot.

use super::cells::CellWork;
use super::law::{assemble, Design, Form, Linear, LrLaw, Method, Param};

/// One cell's window as the fit sees it.
struct JointCell<'a> {
    x: &'a [f64],
    y: &'a [f64],
    /// The law's regressors and the curvature law's.
    features: Vec<f64>,
    curve: Vec<f64>,
}

/// Residuals and Jacobian rows at (θ, κ), and the number of closed-form (linear) parameters
/// in use.
struct Evaluation {
    residuals: Vec<f64>,
    jacobian: Vec<Vec<f64>>,
    linear: usize,
}

/// Fits the law jointly from each of `starts` (law coefficients then curvature-law
/// coefficients), keeping the lowest residual sum of squares; None when no start gives a finite
/// fit or there are no spare degrees of freedom.
pub(crate) fn joint_fit(
    cells: &[&CellWork],
    (design, curve): (Design, Option<Design>),
    form: Form,
    starts: &[Vec<f64>],
    level: f64,
) -> Option<LrLaw> {
    let joint: Vec<JointCell> = cells
        .iter()
        .map(|c| JointCell {
            x: &c.x,
            y: &c.y,
            features: design.features(c.cell.n, c.cell.d),
            curve: curve
                .as_ref()
                .map_or_else(Vec::new, |curve| curve.features(c.cell.n, c.cell.d)),
        })
        .collect();
    let (theta, rss) = starts
        .iter()
        .filter_map(|start| levenberg_marquardt(&joint, start.clone()))
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let evaluation = evaluate(&joint, &theta);
    let runs: usize = joint.iter().map(|c| c.x.len()).sum();
    let dof = runs.checked_sub(theta.len() + evaluation.linear)?;
    if dof == 0 {
        return None;
    }
    let sigma2 = rss / dof as f64;
    let p = theta.len();
    let normal = normal_matrix(&evaluation.jacobian, p);
    let inverse = nalgebra::DMatrix::from_fn(p, p, |i, j| normal[i][j]).try_inverse()?;
    let covariance: Vec<Vec<f64>> = (0..p)
        .map(|i| (0..p).map(|j| inverse[(i, j)] * sigma2).collect())
        .collect();
    let law_terms = design.len();
    let fit = Linear {
        beta: theta[..law_terms].to_vec(),
        covariance: covariance[..law_terms]
            .iter()
            .map(|row| row[..law_terms].to_vec())
            .collect(),
        objective: rss,
        dof,
    };
    let mut law = assemble(
        (Method::Joint, form),
        design,
        fit,
        (joint.len(), Some(runs)),
        (sigma2.sqrt(), level),
    );
    if let Some(curve) = &curve {
        law.curvature_law = curvature_params(curve, &theta[law_terms..], &covariance, law.quantile);
    }
    Some(law)
}

/// The curvature law's coefficients (k0, kN, kD) with intervals.
fn curvature_params(
    curve: &Design,
    kappa: &[f64],
    covariance: &[Vec<f64>],
    quantile: f64,
) -> Vec<Param> {
    let offset = covariance.len() - kappa.len();
    curve
        .names()
        .into_iter()
        .zip(kappa)
        .enumerate()
        .map(|(i, (name, value))| {
            let se = covariance[offset + i][offset + i].max(0.0).sqrt();
            Param {
                name: match name {
                    "c" => "k0",
                    "a" => "kN",
                    _ => "kD",
                }
                .to_string(),
                value: *value,
                se,
                ci: [value - quantile * se, value + quantile * se],
            }
        })
        .collect()
}

fn evaluate(cells: &[JointCell], theta: &[f64]) -> Evaluation {
    let mut evaluation = Evaluation {
        residuals: Vec::new(),
        jacobian: Vec::new(),
        linear: 0,
    };
    let split = cells.first().map_or(0, |c| c.features.len());
    let (law, kappa) = theta.split_at(split);
    for cell in cells {
        let optimum: f64 = cell.features.iter().zip(law).map(|(f, t)| f * t).sum();
        if cell.curve.is_empty() {
            project_free_cell(cell, optimum, &mut evaluation);
        } else {
            let log_k: f64 = cell.curve.iter().zip(kappa).map(|(g, t)| g * t).sum();
            project_cell(cell, (optimum, log_k.exp()), &mut evaluation);
        }
    }
    evaluation
}

/// A cell with its own curvature: closed-form (m, k ≥ 0) at ln lr* = `optimum`, residuals, and
/// Kaufman rows ∂model/∂ln lr* = −2k(x − ln lr*) projected off span{1, q}.
fn project_free_cell(cell: &JointCell, optimum: f64, out: &mut Evaluation) {
    let n = cell.x.len() as f64;
    let q: Vec<f64> = cell.x.iter().map(|x| (x - optimum).powi(2)).collect();
    let (sq, sqq) = (q.iter().sum::<f64>(), q.iter().map(|v| v * v).sum::<f64>());
    let sy: f64 = cell.y.iter().sum();
    let sqy: f64 = q.iter().zip(cell.y).map(|(a, b)| a * b).sum();
    let determinant = n * sqq - sq * sq;
    let free_k = if determinant > 1e-12 * (n * sqq).max(1e-300) {
        (n * sqy - sq * sy) / determinant
    } else {
        0.0
    };
    let k = free_k.max(0.0);
    let m = (sy - k * sq) / n;
    out.linear += if k > 0.0 { 2 } else { 1 };
    let w: Vec<f64> = cell.x.iter().map(|x| -2.0 * k * (x - optimum)).collect();
    let sw = w.iter().sum::<f64>();
    let sqw = q.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>();
    let (alpha, beta) = if k > 0.0 {
        (
            (sqq * sw - sq * sqw) / determinant,
            (n * sqw - sq * sw) / determinant,
        )
    } else {
        (0.0, 0.0)
    };
    for i in 0..cell.x.len() {
        out.residuals.push(cell.y[i] - m - k * q[i]);
        let projected = w[i] - alpha - beta * q[i];
        out.jacobian
            .push(cell.features.iter().map(|f| -projected * f).collect());
    }
}

/// The cell's closed-form floor m at (ln lr*, k), its residuals and Kaufman rows (the
/// derivatives of the model centred within the cell, i.e. projected off the floor).
fn project_cell(cell: &JointCell, (optimum, k): (f64, f64), out: &mut Evaluation) {
    let n = cell.x.len() as f64;
    let q: Vec<f64> = cell.x.iter().map(|x| (x - optimum).powi(2)).collect();
    let m = cell.y.iter().zip(&q).map(|(y, q)| y - k * q).sum::<f64>() / n;
    // ∂model/∂ln lr* = −2k(x − ln lr*), ∂model/∂ln k = k·q.
    let slope: Vec<f64> = cell.x.iter().map(|x| -2.0 * k * (x - optimum)).collect();
    let bend: Vec<f64> = q.iter().map(|q| k * q).collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / n;
    let (slope_mean, bend_mean) = (mean(&slope), mean(&bend));
    out.linear += 1;
    for i in 0..cell.x.len() {
        out.residuals.push(cell.y[i] - m - k * q[i]);
        let (s, b) = (slope[i] - slope_mean, bend[i] - bend_mean);
        out.jacobian.push(
            cell.features
                .iter()
                .map(|f| -s * f)
                .chain(cell.curve.iter().map(|g| -b * g))
                .collect(),
        );
    }
}

fn normal_matrix(jacobian: &[Vec<f64>], p: usize) -> Vec<Vec<f64>> {
    let mut normal = vec![vec![0.0; p]; p];
    for row in jacobian {
        for i in 0..p {
            for j in 0..p {
                normal[i][j] += row[i] * row[j];
            }
        }
    }
    normal
}

fn sum_of_squares(values: &[f64]) -> f64 {
    values.iter().map(|v| v * v).sum()
}

/// Levenberg–Marquardt (Marquardt 1963, diagonal scaling) on θ: (θ, RSS) at convergence.
fn levenberg_marquardt(cells: &[JointCell], mut theta: Vec<f64>) -> Option<(Vec<f64>, f64)> {
    let p = theta.len();
    let mut evaluation = evaluate(cells, &theta);
    let mut rss = sum_of_squares(&evaluation.residuals);
    if !rss.is_finite() {
        return None;
    }
    let mut lambda = 1e-3;
    for _ in 0..300 {
        let normal = normal_matrix(&evaluation.jacobian, p);
        let gradient: Vec<f64> = (0..p)
            .map(|j| {
                evaluation
                    .jacobian
                    .iter()
                    .zip(&evaluation.residuals)
                    .map(|(row, r)| row[j] * r)
                    .sum()
            })
            .collect();
        let damped = nalgebra::DMatrix::from_fn(p, p, |i, j| {
            normal[i][j]
                + if i == j {
                    lambda * normal[i][i].max(1e-12)
                } else {
                    0.0
                }
        });
        let step = damped.lu().solve(&nalgebra::DVector::from_iterator(
            p,
            gradient.iter().map(|g| -g),
        ));
        let Some(step) = step else {
            lambda *= 10.0;
            if lambda > 1e14 {
                break;
            }
            continue;
        };
        let candidate: Vec<f64> = theta.iter().zip(step.iter()).map(|(t, s)| t + s).collect();
        let trial = evaluate(cells, &candidate);
        let trial_rss = sum_of_squares(&trial.residuals);
        if trial_rss.is_finite() && trial_rss <= rss {
            let decrease = rss - trial_rss;
            theta = candidate;
            evaluation = trial;
            rss = trial_rss;
            lambda = (lambda / 3.0).max(1e-12);
            if decrease <= 1e-14 * rss.max(1e-300) || step.norm() < 1e-12 {
                break;
            }
        } else {
            lambda *= 4.0;
            if lambda > 1e14 {
                break;
            }
        }
    }
    Some((theta, rss))
}
