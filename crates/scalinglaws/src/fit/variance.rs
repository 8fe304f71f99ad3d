//! Heteroscedastic fits: a residual scale that varies with scale, σ(x) = σ0·(x/x0)^s.
//!
//! Small runs are noisier than large ones (fewer tokens, more seed variance), so one residual
//! σ̂ makes prediction intervals too wide at the large scales users extrapolate to and too
//! narrow at the small ones. This module fits the power-of-x variance function of Carroll &
//! Ruppert 1988 ("Transformation and Weighting in Regression", ch. 2–3; also Davidian &
//! Carroll 1987, "Variance function estimation", JASA 82) by maximum likelihood:
//!
//!   rᵢ ~ N(0, σ0²·(xᵢ/x0)^(2s)) in the fitted space,  x0 = weighted geometric mean of x,
//!
//! so σ0 is the scale at the data's centre. For fixed s the likelihood in θ is weighted least
//! squares with weights wᵢ·(xᵢ/x0)^(−2s) (user weights times inverse variances) and σ0²(s) is
//! closed form, Σwᵢrᵢ²(xᵢ/x0)^(−2s)/W. The profile negative log-likelihood
//!
//!   L(s) = (W/2)·ln σ0²(s) + s·Σwᵢ ln(xᵢ/x0)   (+ const)
//!
//! has the exact derivative dL/ds = ∂L/∂s at θ̂(s) (envelope theorem: θ̂(s) minimises L at
//! fixed s), no derivative of θ̂ needed. ŝ is the root of dL/ds found by a deterministic
//! safeguarded 1-D search (bracket by doubling steps, then Illinois regula falsi, Dowell &
//! Jarratt 1971), refitting θ warm-started at each s; the final weights get the full global
//! search again. The standard error of ŝ is from the observed information of the joint
//! likelihood in (θ, ln σ0², s) (its inverse's s entry equals the inverse curvature of L(s));
//! H0: s = 0 is tested by the likelihood ratio 2(L(0) − L(ŝ)) ~ χ²₁ (Carroll & Ruppert §3.4).
//!
//! Only the linear (least-squares) loss has this Gaussian likelihood; robust losses are
//! refused with a settings error rather than mixed with a variance model they do not imply.

use nalgebra::{DMatrix, DVector};

use super::variance_model::{reweighted, scale_of_rows, user_weights};
pub use super::variance_model::{Heteroscedastic, VarianceModel};
use super::{fit_best_plain, fit_with_starts_plain, prepare, run_search, with_warm_starts};
use super::{with_threads, FamilyKind, FitData, FitResult, FitSettings, LossKind};
use crate::error::{Error, Result};
use crate::fit::result::Stats;
use crate::law::Law;
use crate::stats::chi2_sf;

/// The setting key of the heteroscedastic option (in errors).
pub const SETTING: &str = "heteroscedastic";

/// Largest |s| tried, and at most this many e-folds of weight between the data's extremes
/// (weights beyond e^40 apart would let a few rows decide the fit).
const S_LIMIT: f64 = 5.0;
const MAX_LOG_WEIGHT_RATIO: f64 = 40.0;
/// Profile evaluations of one search for ŝ.
const MAX_EVALUATIONS: usize = 60;
/// ŝ is known once its bracket is this narrow.
const S_TOLERANCE: f64 = 1e-7;

/// One point of the profile likelihood in s.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfilePoint {
    pub s: f64,
    /// L(s), the negative log-likelihood with θ and σ0 profiled out (without the 2π constant).
    pub nll: f64,
    /// dL/ds, exact (envelope theorem).
    pub derivative: f64,
    /// θ̂(s), every parameter in the law's order.
    pub params: Vec<f64>,
    /// The weighted objective ½Σωᵢrᵢ² at θ̂(s).
    pub objective: f64,
    pub converged: bool,
}

/// The profile likelihood in s of one law, data set and settings.
struct ProfileNll<'a> {
    law: &'a Law,
    data: &'a FitData,
    /// The settings without the variance model (and without threads: the caller installed
    /// the pool once).
    plain: FitSettings,
    by: Heteroscedastic,
    weights: Vec<f64>,
    /// ln(xᵢ/x0).
    log_ratio: Vec<f64>,
    x0: f64,
    total_weight: f64,
    /// Σwᵢ ln(xᵢ/x0) (zero up to rounding, x0 being the weighted geometric mean).
    weighted_log_ratio: f64,
    limit: f64,
}

/// The residual sums of L(s) at fixed θ: S = Σωr², S' = dS/ds, S'' = d²S/ds².
struct Sums {
    s0: f64,
    s1: f64,
    s2: f64,
}

impl<'a> ProfileNll<'a> {
    fn new(law: &'a Law, data: &'a FitData, settings: &FitSettings) -> Result<ProfileNll<'a>> {
        let by = settings
            .heteroscedastic
            .as_ref()
            .ok_or_else(|| Error::settings(format!("{SETTING}: no variance model asked")))?;
        // The `gaussian` family is least squares: the same likelihood as the linear loss.
        let gaussian = match settings.family {
            None => false,
            Some(f) if f.kind == FamilyKind::Gaussian => true,
            Some(f) => {
                return Err(Error::settings(format!(
                    "{SETTING}: the variance model σ(x) = σ0·(x/x0)^s is a Gaussian likelihood; the {} family has a variance of its own, so fit it without a variance model (or use the gaussian family)",
                    f.kind.name()
                )))
            }
        };
        if settings.loss != LossKind::Linear && !gaussian {
            return Err(Error::settings(format!(
                "{SETTING}: the variance model σ(x) = σ0·(x/x0)^s is a Gaussian likelihood, so it needs the linear (least-squares) loss, not '{}'; set the loss to linear",
                settings.loss.name()
            )));
        }
        let x = scale_of_rows(law, data, by)?;
        let weights = user_weights(data);
        let total_weight: f64 = weights.iter().sum();
        if total_weight.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return Err(Error::settings(format!("{SETTING}: every weight is zero")));
        }
        let ln_x0 = weights.iter().zip(&x).map(|(w, x)| w * x.ln()).sum::<f64>() / total_weight;
        let x0 = ln_x0.exp();
        let log_ratio: Vec<f64> = x.iter().map(|v| v.ln() - ln_x0).collect();
        let widest = weights
            .iter()
            .zip(&log_ratio)
            .filter(|(w, _)| **w > 0.0)
            .fold(0.0f64, |m, (_, l)| m.max(l.abs()));
        if widest.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return Err(Error::settings(format!(
                "{SETTING}: '{}' takes one value on every row, so no variation of σ with it can be fitted; let σ vary with a column that varies",
                by.by
            )));
        }
        let weighted_log_ratio = weights.iter().zip(&log_ratio).map(|(w, l)| w * l).sum();
        Ok(ProfileNll {
            law,
            data,
            plain: FitSettings {
                heteroscedastic: None,
                threads: None,
                family: None,
                loss: LossKind::Linear,
                ..settings.clone()
            },
            by: by.clone(),
            weights,
            log_ratio,
            x0,
            total_weight,
            weighted_log_ratio,
            limit: S_LIMIT.min(MAX_LOG_WEIGHT_RATIO / (4.0 * widest)),
        })
    }

    fn data_at(&self, s: f64) -> FitData {
        reweighted(self.data, &self.weights, &self.log_ratio, s)
    }

    fn sums(&self, s: f64, residuals: &[f64]) -> Sums {
        let mut sums = Sums {
            s0: 0.0,
            s1: 0.0,
            s2: 0.0,
        };
        for ((w, l), r) in self.weights.iter().zip(&self.log_ratio).zip(residuals) {
            let term = w * (-2.0 * s * l).exp() * r * r;
            sums.s0 += term;
            sums.s1 += -2.0 * l * term;
            sums.s2 += 4.0 * l * l * term;
        }
        sums
    }

    /// L(s) and ∂L/∂s at fixed residuals (at θ̂(s) the latter is dL/ds).
    fn nll_and_slope(&self, s: f64, residuals: &[f64]) -> (f64, f64) {
        let sums = self.sums(s, residuals);
        let w = self.total_weight;
        let nll = 0.5 * w * (sums.s0 / w).ln() + s * self.weighted_log_ratio;
        let slope = 0.5 * w * sums.s1 / sums.s0 + self.weighted_log_ratio;
        (nll, slope)
    }

    /// ∂²L/∂s² at fixed θ: an upper bound of the profile's curvature (profiling θ out only
    /// flattens it), for the first step.
    fn fixed_curvature(&self, s: f64, residuals: &[f64]) -> f64 {
        let sums = self.sums(s, residuals);
        let ratio = sums.s1 / sums.s0;
        0.5 * self.total_weight * (sums.s2 / sums.s0 - ratio * ratio)
    }

    fn residuals(&self, s: f64, params: &[f64]) -> Result<Vec<f64>> {
        let problem = super::problem_for(self.law, &self.data_at(s), &self.plain)?;
        Ok(problem.residuals(params))
    }

    /// The profile point at `s` from the weighted fit at `params` (a solved θ̂(s)).
    fn point(
        &self,
        s: f64,
        params: Vec<f64>,
        objective: f64,
        converged: bool,
    ) -> Result<ProfilePoint> {
        let residuals = self.residuals(s, &params)?;
        let (nll, derivative) = self.nll_and_slope(s, &residuals);
        if !(nll.is_finite() && derivative.is_finite()) {
            return Err(Error::fit(format!(
                "{SETTING}: the likelihood is not finite at s = {s} (every residual zero?)"
            )));
        }
        Ok(ProfilePoint {
            s,
            nll,
            derivative,
            params,
            objective,
            converged,
        })
    }

    /// θ̂(s) by a local search from `warm` only (no start grid).
    fn evaluate(&self, s: f64, warm: &[f64]) -> Result<ProfilePoint> {
        let data = self.data_at(s);
        let mut prepared = prepare(self.law, &data, &self.plain)?;
        with_warm_starts(&mut prepared, &[warm.to_vec()]);
        prepared.starts.truncate(1);
        let outcome = run_search(&prepared, &self.plain)?;
        let best = &outcome.optima[0];
        let params = prepared.problem.natural(&best.u);
        self.point(s, params, best.value, best.termination.converged())
    }

    /// θ̂(s) by the full global search (warm starts first).
    fn evaluate_global(&self, s: f64, warm: &[Vec<f64>]) -> Result<ProfilePoint> {
        let best = fit_best_plain(self.law, &self.data_at(s), &self.plain, warm)?;
        self.point(s, best.params, best.objective, best.converged)
    }
}

/// The search for the root of dL/ds: its best point, the evaluations it took, and whether ŝ
/// sits at the limit of s.
struct Minimum {
    point: ProfilePoint,
    evaluations: usize,
    at_limit: bool,
}

/// dL/ds that counts as zero (L is a sum over W rows; its slope's rounding grows with W).
fn slope_tolerance(profile: &ProfileNll) -> f64 {
    1e-10 * profile.total_weight.max(1.0)
}

/// Brackets the root of dL/ds from `start` by doubling steps downhill, then closes it by
/// Illinois regula falsi. Deterministic: every step depends only on the values seen.
fn minimise(profile: &ProfileNll, start: ProfilePoint) -> Result<Minimum> {
    let tolerance = slope_tolerance(profile);
    let mut evaluations = 0;
    if start.derivative.abs() <= tolerance {
        return Ok(Minimum {
            point: start,
            evaluations,
            at_limit: false,
        });
    }
    let direction = -start.derivative.signum();
    let residuals = profile.residuals(start.s, &start.params)?;
    let curvature = profile.fixed_curvature(start.s, &residuals);
    let newton = start.derivative.abs() / curvature.max(f64::MIN_POSITIVE);
    let mut step = (1.5 * newton).clamp(0.02, 1.0);
    let mut a = start;
    let b = loop {
        let s = (a.s + direction * step).clamp(-profile.limit, profile.limit);
        let b = profile.evaluate(s, &a.params)?;
        evaluations += 1;
        if b.derivative.abs() <= tolerance {
            return Ok(Minimum {
                point: b,
                evaluations,
                at_limit: false,
            });
        }
        if b.derivative.signum() != a.derivative.signum() {
            break b;
        }
        if s.abs() >= profile.limit || evaluations >= MAX_EVALUATIONS {
            return Ok(Minimum {
                point: b,
                evaluations,
                at_limit: s.abs() >= profile.limit,
            });
        }
        a = b;
        step *= 2.0;
    };
    let (lo, hi) = if a.s < b.s { (a, b) } else { (b, a) };
    close_bracket(profile, lo, hi, evaluations)
}

/// Illinois regula falsi on dL/ds over [lo, hi] (dL/ds < 0 at lo, > 0 at hi).
fn close_bracket(
    profile: &ProfileNll,
    mut lo: ProfilePoint,
    mut hi: ProfilePoint,
    mut evaluations: usize,
) -> Result<Minimum> {
    let tolerance = slope_tolerance(profile);
    let (mut g_lo, mut g_hi) = (lo.derivative, hi.derivative);
    // Which end the last step replaced (-1 lo, +1 hi): the Illinois halving of the other.
    let mut last_side = 0i8;
    while hi.s - lo.s > S_TOLERANCE * hi.s.abs().max(1.0) && evaluations < MAX_EVALUATIONS {
        let width = hi.s - lo.s;
        let secant = lo.s - g_lo * width / (g_hi - g_lo);
        let inside = secant > lo.s + 1e-3 * width && secant < hi.s - 1e-3 * width;
        let s = if inside { secant } else { lo.s + 0.5 * width };
        let warm = if s - lo.s < hi.s - s {
            &lo.params
        } else {
            &hi.params
        };
        let point = profile.evaluate(s, warm)?;
        evaluations += 1;
        let g = point.derivative;
        if g.abs() <= tolerance {
            return Ok(Minimum {
                point,
                evaluations,
                at_limit: false,
            });
        }
        if g < 0.0 {
            lo = point;
            g_lo = g;
            if last_side == -1 {
                g_hi *= 0.5;
            }
            last_side = -1;
        } else {
            hi = point;
            g_hi = g;
            if last_side == 1 {
                g_lo *= 0.5;
            }
            last_side = 1;
        }
    }
    let point = if lo.derivative.abs() <= hi.derivative.abs() {
        lo
    } else {
        hi
    };
    Ok(Minimum {
        point,
        evaluations,
        at_limit: false,
    })
}

/// L(s) and its exact derivative at `s`, θ refitted from `warm` (a full parameter vector, e.g.
/// a homoscedastic fit's) by a local search: the profile a heteroscedastic fit minimises.
pub fn profile_point(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    s: f64,
    warm: &[f64],
) -> Result<ProfilePoint> {
    let profile = ProfileNll::new(law, data, settings)?;
    with_threads(settings.threads, || profile.evaluate(s, warm))?
}

/// ŝ's profile point, the homoscedastic point it started from, and the search's record.
struct Solved {
    best: ProfilePoint,
    homoscedastic: ProfilePoint,
    evaluations: usize,
    at_limit: bool,
}

/// Global search at s = 0, the 1-D search for ŝ, then `global` (the full search at ŝ, warm
/// from the continuation's θ, with whatever else the caller keeps of it, `T`); when that finds a
/// better θ than the continuation did, the 1-D search resumes from there (once).
fn solve<T>(
    profile: &ProfileNll,
    warm: &[Vec<f64>],
    global: impl Fn(f64, &[f64]) -> Result<(ProfilePoint, T)>,
) -> Result<(Solved, T)> {
    let homoscedastic = profile.evaluate_global(0.0, warm)?;
    let mut start = homoscedastic.clone();
    let mut evaluations = 1;
    for round in 0..2 {
        let found = minimise(profile, start)?;
        evaluations += found.evaluations + 1;
        let (best, kept) = global(found.point.s, &found.point.params)?;
        let better = best.objective < found.point.objective * (1.0 - 1e-9);
        if !better || round == 1 || found.at_limit {
            let solved = Solved {
                best,
                homoscedastic,
                evaluations,
                at_limit: found.at_limit,
            };
            return Ok((solved, kept));
        }
        start = best;
    }
    unreachable!("the loop returns in its second round")
}

/// A heteroscedastic fit: ŝ by the profile likelihood, then the weighted fit's diagnostics
/// (the covariance is the weighted one, σ0²(JᵀΩJ)⁻¹ for Gauss–Newton), its statistics under
/// the variance model, and the model itself.
pub(super) fn fit(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    warm: &[Vec<f64>],
) -> Result<FitResult> {
    let profile = ProfileNll::new(law, data, settings)?;
    let diagnosed = |s: f64, params: &[f64]| {
        let result =
            fit_with_starts_plain(law, &profile.data_at(s), &profile.plain, &[params.to_vec()])?;
        let point = profile.point(s, result.param_values(), result.objective, result.converged)?;
        Ok((point, result))
    };
    with_threads(settings.threads, || {
        let (solved, mut result) = solve(&profile, warm, diagnosed)?;
        // The gaussian family is recorded as what it is here: least squares.
        result.settings = FitSettings {
            loss: LossKind::Linear,
            ..settings.clone()
        };
        let model = variance_model(&profile, &solved, &result)?;
        result.stats = stats(&profile, &solved.best, &result, model.s)?;
        if model.at_limit {
            result.warnings.push(format!(
                "the variance exponent s = {:.3} sits at the limit of the values tried (±{:.3}): the data push it further, so σ(x) is not well determined",
                model.s, profile.limit
            ).into());
        }
        result.variance = Some(model);
        Ok(result)
    })?
}

/// The best θ of a heteroscedastic fit (what a bootstrap replicate needs).
pub(super) fn fit_best(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    warm: &[Vec<f64>],
) -> Result<super::BestOptimum> {
    let profile = ProfileNll::new(law, data, settings)?;
    let global = |s: f64, params: &[f64]| Ok((profile.evaluate_global(s, &[params.to_vec()])?, ()));
    with_threads(settings.threads, || {
        let (solved, ()) = solve(&profile, warm, global)?;
        Ok(super::BestOptimum {
            params: solved.best.params,
            objective: solved.best.objective,
            converged: solved.best.converged,
        })
    })?
}

fn variance_model(
    profile: &ProfileNll,
    solved: &Solved,
    result: &FitResult,
) -> Result<VarianceModel> {
    let by = profile.by.clone();
    let best = &solved.best;
    let residuals = profile.residuals(best.s, &best.params)?;
    let sums = profile.sums(best.s, &residuals);
    let k = result.stats.n_params as f64;
    let dof = profile.total_weight - k;
    let lr_statistic = (2.0 * (solved.homoscedastic.nll - best.nll)).max(0.0);
    let constant = 0.5 * profile.total_weight * (1.0 + (2.0 * std::f64::consts::PI).ln());
    Ok(VarianceModel {
        method: "Gaussian likelihood, Var(r) = sigma0^2 (x/x0)^(2s); s by the profile likelihood (exact derivative), se from the observed information; LR test of s = 0 (chi2, 1 df)".into(),
        by: by.by,
        rule: by.rule,
        x0: profile.x0,
        sigma0: if dof > 0.0 { (sums.s0 / dof).sqrt() } else { f64::NAN },
        s: best.s,
        s_stderr: s_stderr(profile, best),
        lr_statistic,
        lr_p_value: chi2_sf(lr_statistic, 1.0),
        log_likelihood_homoscedastic: -solved.homoscedastic.nll - constant,
        evaluations: solved.evaluations,
        at_limit: solved.at_limit,
    })
}

/// √(I⁻¹)ₛₛ from the observed information of the joint negative log-likelihood in
/// (θ free, ψ = ln σ0², s) at the optimum:
///
///   L = ½Wψ + sΣwl + ½e^(−ψ)Σωr²,  ω = w·e^(−2sl),
///
/// with blocks H_θθ = e^(−ψ)∇²(½Σωr²) (exact Hessian), H_θs = −2e^(−ψ)Σωl·r∇r,
/// H_θψ = −e^(−ψ)Σωr∇r, H_ψψ = ½e^(−ψ)Σωr², H_ψs = e^(−ψ)Σωlr², H_ss = 2e^(−ψ)Σωl²r².
fn s_stderr(profile: &ProfileNll, best: &ProfilePoint) -> Option<f64> {
    let information = joint_information(profile, best)?;
    let k = information.nrows();
    let inverse = super::numerics::scaled_inverse(&information)?;
    let variance = inverse[(k - 1, k - 1)];
    (variance.is_finite() && variance > 0.0).then(|| variance.sqrt())
}

/// The joint observed information matrix (see [`s_stderr`]), θ first, then ψ, then s.
fn joint_information(profile: &ProfileNll, best: &ProfilePoint) -> Option<DMatrix<f64>> {
    let problem = super::problem_for(profile.law, &profile.data_at(best.s), &profile.plain).ok()?;
    let exact = problem.exact_natural(&best.params)?;
    let (jacobian, _) = problem.residual_jacobian(&best.params);
    let residuals = problem.residuals(&best.params);
    let k = problem.dim();
    let omega = problem.weights();
    let squares: f64 = omega.iter().zip(&residuals).map(|(w, r)| w * r * r).sum();
    let scale = profile.total_weight / squares; // e^(−ψ) at the ML σ0²
    let mut theta_s = DVector::zeros(k);
    let mut theta_psi = DVector::zeros(k);
    let (mut psi_s, mut s_s) = (0.0, 0.0);
    for (row, ((w, r), l)) in omega
        .iter()
        .zip(&residuals)
        .zip(&profile.log_ratio)
        .enumerate()
    {
        let j = jacobian.row(row).transpose();
        theta_s += &j * (-2.0 * scale * w * l * r);
        theta_psi += &j * (-scale * w * r);
        psi_s += scale * w * l * r * r;
        s_s += 2.0 * scale * w * l * l * r * r;
    }
    let mut h = DMatrix::zeros(k + 2, k + 2);
    h.view_mut((0, 0), (k, k))
        .copy_from(&(exact.curvature * scale));
    for a in 0..k {
        h[(a, k)] = theta_psi[a];
        h[(k, a)] = theta_psi[a];
        h[(a, k + 1)] = theta_s[a];
        h[(k + 1, a)] = theta_s[a];
    }
    h[(k, k)] = 0.5 * scale * squares;
    h[(k, k + 1)] = psi_s;
    h[(k + 1, k)] = psi_s;
    h[(k + 1, k + 1)] = s_s;
    Some(h)
}

/// The fit statistics under the variance model: r² and rmse of the unscaled residuals (with
/// the user's weights, as a homoscedastic fit reports them), the Gaussian log-likelihood with
/// σ(x), AIC/BIC counting σ0 and s, and σ0 as the residual scale.
fn stats(profile: &ProfileNll, best: &ProfilePoint, result: &FitResult, s: f64) -> Result<Stats> {
    let problem = super::problem_for(profile.law, profile.data, &profile.plain)?;
    let residuals = problem.residuals(&best.params);
    let target = problem.target();
    let weights = &profile.weights;
    let total = profile.total_weight;
    let mean = weights.iter().zip(target).map(|(w, y)| w * y).sum::<f64>() / total;
    let ss_res: f64 = weights.iter().zip(&residuals).map(|(w, r)| w * r * r).sum();
    let ss_tot: f64 = weights
        .iter()
        .zip(target)
        .map(|(w, y)| w * (y - mean).powi(2))
        .sum();
    let sums = profile.sums(s, &residuals);
    let k = result.stats.n_params as f64;
    let log_likelihood = -0.5 * total * ((2.0 * std::f64::consts::PI * sums.s0 / total).ln() + 1.0)
        - s * profile.weighted_log_ratio;
    let finite = |x: f64| x.is_finite().then_some(x);
    let log_likelihood = finite(log_likelihood);
    let with_scale = k + 2.0;
    Ok(Stats {
        r2: super::numerics::r_squared(target, weights, ss_res, ss_tot),
        rmse: finite((ss_res / total).sqrt()),
        log_likelihood,
        aic: log_likelihood.and_then(|l| finite(2.0 * with_scale - 2.0 * l)),
        bic: log_likelihood.and_then(|l| finite(with_scale * total.ln() - 2.0 * l)),
        residual_scale: (total > k)
            .then(|| (sums.s0 / (total - k)).sqrt())
            .and_then(finite),
        n_params: result.stats.n_params,
        dof: result.stats.dof,
    })
}
