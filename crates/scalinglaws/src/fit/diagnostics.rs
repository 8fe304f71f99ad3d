//! From the optimum of a search to a readable verdict: standard errors (for the linear loss the
//! Gauss–Newton σ²(JᵀWJ)⁻¹ that NIST's StRD certifies and scipy's `curve_fit`, lmfit and
//! MINPACK report, or σ²·H⁻¹ with the exact Hessian on request; for robust losses the sandwich
//! of an M-estimator, Huber 1967, with a kernel-smoothed bread and an HC3 meat,
//! [`super::smoothed`], or the plain H⁻¹BH⁻¹ on request), the correlation matrix and the
//! scaled condition number, fit statistics in the fitted space, and warnings as values: not
//! converged, parameters at a bound, rival optima, parameters the data cannot separate,
//! variables that move together in the design.

use nalgebra::DMatrix;
use serde::{Deserialize, Serialize};

use super::likelihood;
use super::numerics::{constant_target, finite, r_squared, scaled_inverse};
use super::result::{FitResult, Matrix, Optima, ParamResult, Stats, SCHEMA_VERSION};
use super::search::SearchOutcome;
use super::solver::{eigenvalues, Termination};
use super::{FitData, FitSettings, LossKind, Problem};
use crate::law::Law;

const STRONG_CORRELATION: f64 = 0.99;
/// Any pair of parameters correlated at |ρ| ≥ 0.999 (linear ones included: a scale and its
/// exponent) is nearly unidentifiable: each one's variance is inflated 1/(1 − ρ²) ≥ 500 times
/// over what it would be were the other known (its interval ≥ 22× wider), against the usual
/// alarm at a variance inflation factor of 10 (Marquardt 1970, "Generalized inverses, ridge
/// regression, biased linear estimation"; Kutner et al., Applied Linear Statistical Models,
/// 5th ed., §10.5). A scale and its own exponent reach ρ ≈ 0.99 in well-determined fits (the
/// scale is the law at x = 1, far from the data), hence the higher bar; Besiroglu et al. 2024
/// (the Epoch replication of Chinchilla) report such near-degenerate pairs.
const UNIDENTIFIABLE_CORRELATION: f64 = 0.999;
const COLLINEAR_DESIGN: f64 = 0.98;
/// A scaled Hessian's condition number above which some parameter combination is barely
/// determined (a warning, and a [`super::caveats::FitCaveat`]).
pub const ILL_CONDITIONED: f64 = 1e12;
/// A rival optimum's relative gap below which the parameters are not uniquely determined.
pub const NEAR_TIE: f64 = 1e-3;

/// Whether a scaled Hessian's condition number says a combination is barely determined.
pub(super) fn ill_conditioned(condition: f64) -> bool {
    condition > ILL_CONDITIONED
}

/// Whether a rival optimum's relative gap is a near tie with the best.
pub(super) fn near_tie(relative_gap: f64) -> bool {
    relative_gap < NEAR_TIE
}

/// Which covariance of the parameters a fit reports (its standard errors).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Covariance {
    /// Gauss–Newton for the linear loss (what users compare with), the smoothed sandwich for
    /// robust losses, the inverse observed information under a likelihood family.
    #[default]
    Auto,
    /// σ²(JᵀWJ)⁻¹, σ² = Σwr²/(n − k): NIST's certified standard deviations, scipy, lmfit.
    GaussNewton,
    /// σ²H⁻¹ with the exact Hessian of ½Σwr² (includes the residual-curvature term).
    Hessian,
    /// H⁻¹BH⁻¹·n/(n − k) with the exact Hessian H: the M-estimator's covariance, valid for
    /// any loss (Huber 1967), but too narrow when the loss bends inside a band much narrower
    /// than the residuals (Huber's δ = 10⁻³ on log residuals of 10⁻²: see [`super::smoothed`]).
    Sandwich,
    /// B̃⁻¹M₃B̃⁻¹: the sandwich with each row's ρ'' in the bread smoothed by a Gaussian kernel
    /// (Powell 1991; Silverman's bandwidth) and the HC3 meat (MacKinnon & White 1985), robust
    /// losses' default ([`super::smoothed`]). Under a likelihood family, the plain sandwich.
    SmoothedSandwich,
}

impl Covariance {
    pub fn is_auto(&self) -> bool {
        *self == Covariance::Auto
    }

    /// The covariance actually computed for a loss.
    pub fn resolve(self, loss: LossKind) -> Covariance {
        match (self, loss) {
            (Covariance::Auto, LossKind::Linear) => Covariance::GaussNewton,
            (Covariance::Auto, _) => Covariance::SmoothedSandwich,
            (other, _) => other,
        }
    }

    /// The name a report shows (and `covariance_kind` holds).
    pub fn name(self) -> &'static str {
        match self {
            Covariance::Auto => "auto",
            Covariance::GaussNewton => "gauss_newton",
            Covariance::Hessian => "hessian",
            Covariance::Sandwich => "sandwich",
            Covariance::SmoothedSandwich => "smoothed_sandwich",
        }
    }

    /// Parses a setting value (`auto`, `gauss_newton`, `hessian`, `sandwich`,
    /// `smoothed_sandwich`).
    pub fn parse(text: &str) -> crate::error::Result<Covariance> {
        let all = [
            Covariance::Auto,
            Covariance::GaussNewton,
            Covariance::Hessian,
            Covariance::Sandwich,
            Covariance::SmoothedSandwich,
        ];
        all.into_iter()
            .find(|c| c.name() == text || c.name().replace('_', "-") == text)
            .ok_or_else(|| {
                crate::error::Error::settings(format!(
                    "covariance: unknown kind '{text}'; use auto, gauss_newton, hessian, sandwich or smoothed_sandwich"
                ))
            })
    }
}

struct Uncertainty {
    covariance: Option<DMatrix<f64>>,
    condition_number: Option<f64>,
    kind: &'static str,
    /// No residual degrees of freedom (rows <= free parameters).
    no_dof: bool,
}

pub fn summarize(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    problem: &Problem,
    outcome: &SearchOutcome,
    lower: &[f64],
    upper: &[f64],
) -> FitResult {
    let best = &outcome.optima[0];
    let p = problem.natural(&best.u);
    let loss = super::nuisance::objective_loss(settings);
    let residuals = problem.residuals(&p);
    let uncertainty = uncertainty(problem, &p, &residuals, loss, settings.covariance);
    let names: Vec<String> = problem
        .free()
        .iter()
        .map(|&i| law.params[i].name.clone())
        .collect();
    let params = param_results(
        law,
        problem,
        &p,
        lower,
        upper,
        uncertainty.covariance.as_ref(),
    );
    let correlation = uncertainty.covariance.as_ref().map(correlation);
    let stats = stats(problem, &p, &residuals, settings);
    let mut warnings = Vec::new();
    warn_constant_target(data, &mut warnings);
    warn_convergence(best.termination, &mut warnings);
    warn_bounds(&params, &mut warnings);
    warn_optima(outcome, objective_floor(problem), &mut warnings);
    warn_uncertainty(
        &uncertainty,
        &names,
        correlation.as_ref(),
        &params,
        &mut warnings,
    );
    warn_design(law, data, &mut warnings);
    let gap = outcome
        .optima
        .get(1)
        .map(|second| second.value - best.value);
    FitResult {
        schema_version: SCHEMA_VERSION,
        law: law.label().to_string(),
        formula: law.formula.clone(),
        citation: law.citation.clone(),
        target: "y".into(),
        variables: law
            .variables
            .iter()
            .map(|v| (v.clone(), v.clone()))
            .collect(),
        n_obs: problem.n_rows(),
        settings: settings.clone(),
        params,
        objective: best.value,
        converged: best.termination.converged(),
        termination: best.termination.describe().to_string(),
        iterations: best.iterations,
        optima: Optima {
            starts: outcome.starts,
            failed: outcome.failed,
            diverged: outcome.diverged,
            unconverged: outcome.unconverged,
            stalled: outcome.stalled,
            screened: outcome.screened.len(),
            iterations: outcome.iterations,
            distinct: outcome.optima.len(),
            best_starts: best.starts,
            gap,
            relative_gap: gap.map(|g| g / best.value.abs().max(objective_floor(problem))),
        },
        stats,
        covariance_kind: uncertainty.kind.to_string(),
        covariance: uncertainty.covariance.as_ref().map(|c| labelled(&names, c)),
        correlation: correlation.as_ref().map(|c| labelled(&names, c)),
        condition_number: uncertainty.condition_number,
        warnings: warnings.into_iter().map(crate::error::Text::from).collect(),
        variance: None,
        family: None,
    }
}

/// The smallest objective difference that means anything (see `search::OBJECTIVE_FLOOR`).
fn objective_floor(problem: &Problem) -> f64 {
    super::search::OBJECTIVE_FLOOR * problem.total_weight()
}

fn labelled(names: &[String], m: &DMatrix<f64>) -> Matrix {
    Matrix {
        names: names.to_vec(),
        values: (0..m.nrows())
            .map(|i| m.row(i).iter().copied().collect())
            .collect(),
    }
}

/// Covariance of the free parameters, or None when its matrix (JᵀWJ or the Hessian) is not
/// positive definite.
/// `residuals`: the problem's residuals at `p`.
fn uncertainty(
    problem: &Problem,
    p: &[f64],
    residuals: &[f64],
    loss: LossKind,
    choice: Covariance,
) -> Uncertainty {
    // Under a likelihood family the objective is −ℓ itself: its inverse Hessian (the observed
    // information) is the covariance, with no residual scale to estimate.
    let likelihood = problem.family().is_some();
    let choice = match choice {
        Covariance::Auto if likelihood => Covariance::Hessian,
        // A family's costs are smooth: its ρ'' needs no smoothing.
        Covariance::SmoothedSandwich if likelihood => Covariance::Sandwich,
        other => other.resolve(loss),
    };
    let kind = choice.name();
    let none = Uncertainty {
        covariance: None,
        condition_number: None,
        kind,
        no_dof: problem.n_rows() <= problem.dim(),
    };
    let Some(model) = problem.exact_natural(p) else {
        return none;
    };
    let hessian = model.curvature;
    let k = hessian.nrows();
    let scale: Vec<f64> = (0..k)
        .map(|i| hessian[(i, i)].abs().sqrt().max(f64::MIN_POSITIVE))
        .collect();
    let scaled = DMatrix::from_fn(k, k, |i, j| hessian[(i, j)] / (scale[i] * scale[j]));
    let eig = eigenvalues(&scaled);
    let condition_number = match (eig.first(), eig.last()) {
        (Some(&lo), Some(&hi)) if lo > 0.0 => finite(hi / lo),
        _ => None,
    };
    let n = problem.n_rows();
    if n <= k {
        // No residual degrees of freedom: the data cannot say how uncertain the fit is.
        return Uncertainty {
            condition_number,
            ..none
        };
    }
    let dof = (n - k) as f64;
    let covariance = match choice {
        Covariance::GaussNewton if likelihood => problem
            .normal_matrix(p)
            .and_then(|information| scaled_inverse(&information)),
        Covariance::Hessian if likelihood => scaled_inverse(&hessian),
        Covariance::GaussNewton => {
            let ssr: f64 = problem
                .weights()
                .iter()
                .zip(residuals)
                .map(|(w, r)| w * r * r)
                .sum();
            problem
                .normal_matrix(p)
                .and_then(|normal| scaled_inverse(&normal))
                .map(|inverse| inverse * (ssr / dof))
        }
        Covariance::Hessian | Covariance::Auto => {
            scaled_inverse(&hessian).map(|inverse| inverse * (2.0 * model.value / dof))
        }
        Covariance::Sandwich => sandwich(problem, p, &hessian, dof),
        Covariance::SmoothedSandwich => {
            super::smoothed::covariance(problem, p, &hessian, residuals)
        }
    };
    let Some(covariance) = covariance else {
        return Uncertainty {
            condition_number,
            ..none
        };
    };
    let valid =
        covariance.iter().all(|v| v.is_finite()) && (0..k).all(|i| covariance[(i, i)] > 0.0);
    Uncertainty {
        covariance: valid.then_some(covariance),
        condition_number,
        kind,
        no_dof: false,
    }
}

/// H⁻¹BH⁻¹·n/(n − k), B = Σ (wᵢ ρ'(rᵢ))² ∇rᵢ∇rᵢᵀ.
fn sandwich(
    problem: &Problem,
    p: &[f64],
    hessian: &DMatrix<f64>,
    dof: f64,
) -> Option<DMatrix<f64>> {
    let n = problem.n_rows();
    let h_inverse = scaled_inverse(hessian)?;
    let meat = problem.sandwich_meat(p)?;
    Some(&h_inverse * meat * &h_inverse * (n as f64 / dof))
}

fn correlation(covariance: &DMatrix<f64>) -> DMatrix<f64> {
    let k = covariance.nrows();
    DMatrix::from_fn(k, k, |i, j| {
        let scale = (covariance[(i, i)] * covariance[(j, j)])
            .sqrt()
            .max(f64::MIN_POSITIVE);
        (covariance[(i, j)] / scale).clamp(-1.0, 1.0)
    })
}

/// Distance from a bound below which a parameter counts as at it: a millionth of the bound,
/// or of `scale` (the target's size for a linear parameter, 1 for others) near 0.
fn near(value: f64, bound: f64, scale: f64) -> bool {
    bound.is_finite() && (value - bound).abs() <= 1e-6 * bound.abs().max(scale)
}

fn param_results(
    law: &Law,
    problem: &Problem,
    p: &[f64],
    lower: &[f64],
    upper: &[f64],
    covariance: Option<&DMatrix<f64>>,
) -> Vec<(String, ParamResult)> {
    let target_scale = problem.target_scale();
    law.params
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            let slot = problem.free().iter().position(|&f| f == i);
            let scale = if spec.linear { target_scale } else { 1.0 };
            let stderr = slot
                .and_then(|s| covariance.map(|c| c[(s, s)].sqrt()))
                .and_then(finite);
            let result = ParamResult {
                value: p[i],
                stderr,
                rel_stderr: stderr.and_then(|s| finite(s / p[i].abs())),
                at_bound: slot.is_some()
                    && (near(p[i], lower[i], scale) || near(p[i], upper[i], scale)),
                fixed: slot.is_none(),
                linear: spec.linear,
                lower: finite(lower[i]),
                upper: finite(upper[i]),
                ci: None,
                boot_stderr: None,
            };
            (spec.name.clone(), result)
        })
        .collect()
}

/// `residuals`: the problem's residuals at `p`.
fn stats(problem: &Problem, p: &[f64], residuals: &[f64], settings: &FitSettings) -> Stats {
    let weights = problem.weights();
    let target = problem.target();
    let total_weight: f64 = weights.iter().sum();
    let mean = weights.iter().zip(target).map(|(w, y)| w * y).sum::<f64>() / total_weight;
    let ss_res: f64 = weights.iter().zip(residuals).map(|(w, r)| w * r * r).sum();
    let ss_tot: f64 = weights
        .iter()
        .zip(target)
        .map(|(w, y)| w * (y - mean).powi(2))
        .sum();
    let k = problem.dim() as f64;
    let loss = crate::fit::Loss {
        kind: super::nuisance::objective_loss(settings),
        f_scale: settings.f_scale,
    };
    // A family's ℓ is its own (the nuisance values as the problem holds them; the caller
    // counts fitted ones); a loss's ℓ profiles one residual scale.
    let (log_likelihood, with_scale) = match problem.family() {
        Some(_) => (
            super::nuisance::best_nuisance_of(problem, p).map(|n| n.log_likelihood),
            k,
        ),
        None => (
            likelihood::log_likelihood(residuals, weights, loss).map(|l| l.value),
            k + 1.0,
        ),
    };
    Stats {
        r2: r_squared(target, weights, ss_res, ss_tot),
        rmse: finite((ss_res / total_weight).sqrt()),
        log_likelihood,
        aic: log_likelihood.and_then(|l| finite(2.0 * with_scale - 2.0 * l)),
        bic: log_likelihood.and_then(|l| finite(with_scale * total_weight.ln() - 2.0 * l)),
        residual_scale: (total_weight > k)
            .then(|| (ss_res / (total_weight - k)).sqrt())
            .and_then(finite),
        n_params: problem.dim(),
        dof: problem.n_rows().saturating_sub(problem.dim()),
    }
}

/// A constant target: R² is not reported, and the law has nothing to explain.
fn warn_constant_target(data: &FitData, warnings: &mut Vec<String>) {
    let ones = vec![1.0; data.target.len()];
    let weights = data.weights.as_deref().unwrap_or(&ones);
    if let Some(value) = constant_target(&data.target, weights) {
        warnings.push(format!(
            "the target is {} in every row: R² is undefined (not reported), and a law fitted \
             to a constant says nothing about how the target scales",
            crate::error::short_number(value)
        ));
    }
}

fn warn_convergence(termination: Termination, warnings: &mut Vec<String>) {
    if !termination.converged() {
        warnings.push(format!(
            "the best optimum did not converge ({}); treat its parameters as approximate",
            termination.describe()
        ));
    }
}

fn warn_bounds(params: &[(String, ParamResult)], warnings: &mut Vec<String>) {
    for (name, p) in params.iter().filter(|(_, p)| p.at_bound) {
        warnings.push(format!(
            "{name} = {:.6e} sits at a bound: the data push it there, so its standard error is not meaningful",
            p.value
        ));
    }
}

fn warn_optima(outcome: &SearchOutcome, floor: f64, warnings: &mut Vec<String>) {
    if (outcome.failed + outcome.diverged) * 2 > outcome.starts {
        warnings.push(format!(
            "{} of {} starts gave no finite objective or diverged; the start grid may not suit this data",
            outcome.failed + outcome.diverged,
            outcome.starts
        ));
    }
    let (Some(best), Some(second)) = (outcome.optima.first(), outcome.optima.get(1)) else {
        return;
    };
    let relative = (second.value - best.value) / best.value.abs().max(floor);
    if near_tie(relative) {
        warnings.push(format!(
            "a different optimum is within {:.2e} (relative) of the best: the law's parameters are not uniquely determined by this data",
            relative
        ));
    }
}

fn warn_uncertainty(
    uncertainty: &Uncertainty,
    names: &[String],
    correlation: Option<&DMatrix<f64>>,
    params: &[(String, ParamResult)],
    warnings: &mut Vec<String>,
) {
    let dof = params.iter().filter(|(_, p)| !p.fixed).count();
    if uncertainty.covariance.is_none() && uncertainty.no_dof {
        warnings.push(format!("as many parameters ({dof}) as rows: the law interpolates the data and standard errors are unavailable"));
    } else if uncertainty.covariance.is_none() {
        warnings.push("the Hessian at the optimum is not positive definite: standard errors are unavailable (a flat direction or a saddle)".into());
    }
    if let Some(c) = uncertainty.condition_number.filter(|c| ill_conditioned(*c)) {
        warnings.push(format!("the scaled Hessian is ill-conditioned (condition number {c:.2e}): some parameter combination is barely determined"));
    }
    if let Some(corr) = correlation {
        // A scale and its own exponent (A, alpha) are always strongly correlated: that is the
        // parametrisation, not the data. Below UNIDENTIFIABLE_CORRELATION, warn only for pairs
        // of nonlinear parameters, which is where the data fails to separate two effects (alpha
        // vs beta); above it, for every pair: their combination is all the data fixes.
        let nonlinear = |name: &str| params.iter().any(|(n, p)| n == name && !p.linear);
        for i in 0..names.len() {
            for j in 0..i {
                let rho = corr[(i, j)];
                if rho.abs() >= UNIDENTIFIABLE_CORRELATION {
                    warnings.push(format!(
                        "{} and {} are correlated at {rho:+.4}: the data pin down their combination, not each; their individual intervals are wide",
                        names[j], names[i]
                    ));
                } else if nonlinear(&names[i])
                    && nonlinear(&names[j])
                    && corr[(i, j)].abs() > STRONG_CORRELATION
                {
                    warnings.push(format!(
                        "{} and {} are strongly correlated ({:+.4}): the data cannot separate them well",
                        names[j], names[i], corr[(i, j)]
                    ));
                }
            }
        }
    }
    for (name, p) in params {
        if let Some(rel) = p.rel_stderr.filter(|r| *r > 1.0) {
            warnings.push(format!(
                "{name} is poorly determined: its standard error is {:.0}% of its value",
                rel * 100.0
            ));
        }
    }
}

/// Pearson correlation of two columns (on logs when both are positive).
fn design_correlation(a: &[f64], b: &[f64]) -> Option<f64> {
    let use_logs = a.iter().chain(b).all(|v| *v > 0.0);
    let f = |v: f64| if use_logs { v.ln() } else { v };
    let n = a.len() as f64;
    let (ma, mb) = (
        a.iter().map(|v| f(*v)).sum::<f64>() / n,
        b.iter().map(|v| f(*v)).sum::<f64>() / n,
    );
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        let (dx, dy) = (f(*x) - ma, f(*y) - mb);
        sab += dx * dy;
        saa += dx * dx;
        sbb += dy * dy;
    }
    (saa > 0.0 && sbb > 0.0).then(|| sab / (saa * sbb).sqrt())
}

fn warn_design(law: &Law, data: &FitData, warnings: &mut Vec<String>) {
    for i in 0..law.variables.len() {
        for j in 0..i {
            if let Some(rho) = design_correlation(&data.variables[j], &data.variables[i])
                .filter(|r| r.abs() > COLLINEAR_DESIGN)
            {
                warnings.push(format!(
                    "variables {} and {} are nearly collinear in the data (correlation {rho:+.3}): the effects that scale them cannot be separated reliably",
                    law.variables[j], law.variables[i]
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A constant target has no R² (it was 1.0: SS_tot was rounding), and the fit says why.
    #[test]
    fn a_constant_target_has_no_r_squared_and_a_warning() {
        assert_eq!(r_squared(&[0.9, 0.9, 0.9], &[1.0; 3], 0.0, 1e-33), None);
        // A row of zero weight does not count.
        assert_eq!(
            r_squared(&[0.9, 0.9, 5.0], &[1.0, 1.0, 0.0], 0.0, 0.0),
            None
        );
        assert_eq!(r_squared(&[1.0, 3.0], &[1.0; 2], 1.0, 2.0), Some(0.5));
        let law = Law::from_formula("E + A*N^-alpha", &|v| v == "N").unwrap();
        let data = FitData {
            variables: vec![(1..=12).map(|i| 1e6 * 2f64.powi(i)).collect()],
            target: vec![2.5; 12],
            weights: None,
            trials: None,
            exposure: None,
        };
        let result = crate::fit::fit(&law, &data, &FitSettings::default()).unwrap();
        assert_eq!(result.stats.r2, None, "{:?}", result.stats);
        assert!(
            result.warnings[0]
                .to_string()
                .starts_with("the target is 2.5 in every row: R² is undefined"),
            "{:?}",
            result.warnings
        );
    }
}
