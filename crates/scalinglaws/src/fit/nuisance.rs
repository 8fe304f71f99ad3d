//! Fitting a likelihood family's nuisance values (a dispersion, Student's ν) with the law, by
//! alternation: the law's parameters at fixed nuisance values (the full search), then the
//! nuisance values at fixed predictions (a one- or two-dimensional maximisation of ℓ, no
//! refit), repeated until ℓ stops rising. Each step raises ℓ, so the alternation converges to
//! a joint maximum; it is fast where the mean and the dispersion are orthogonal (NB2,
//! Student-t: Cox & Reid 1987), as the statsmodels references in the tests check. The start
//! is the family without its nuisance (`poisson` for `negative_binomial`, `binomial` for
//! `beta_binomial`, least squares for `student_t`), which has the same mean model.

use super::family::{AtPredictions, Family, FamilyFit, FamilyKind, Nuisance};
use super::{BestOptimum, FitData, FitResult, FitSettings, LossKind, Space};
use crate::error::Result;
use crate::law::Law;

/// Most alternations of the nuisance fit.
const MAX_ALTERNATIONS: usize = 60;

/// ℓ rising by less than this (relative) ends the alternation.
const RISE_TOLERANCE: f64 = 1e-14;

/// A family's nuisance values fitted with the law.
pub(super) struct Resolved {
    /// The settings with every nuisance value held at its fitted value.
    pub settings: FitSettings,
    pub params: Vec<f64>,
    pub nuisance: Nuisance,
    pub alternations: usize,
    pub converged: bool,
}

/// The settings of the family's start: the same mean model without the nuisance.
fn start_settings(settings: &FitSettings, family: Family) -> FitSettings {
    let start = match family.kind {
        FamilyKind::NegativeBinomial => Some(Family::new(FamilyKind::Poisson)),
        FamilyKind::BetaBinomial => Some(Family::new(FamilyKind::Binomial)),
        _ => Some(Family::new(FamilyKind::Gaussian)),
    };
    FitSettings {
        family: start,
        ..settings.clone()
    }
}

/// `settings` with the nuisance values held at `nuisance`.
pub(crate) fn holding(settings: &FitSettings, nuisance: &Nuisance) -> FitSettings {
    let mut held = settings.clone();
    if let Some(family) = held.family.as_mut() {
        family.dispersion = nuisance.dispersion.or(family.dispersion);
        family.nu = nuisance.nu.or(family.nu);
    }
    held
}

/// The law's predictions at `params` on every row.
fn predictions(law: &Law, params: &[f64], data: &FitData) -> Vec<f64> {
    let columns: Vec<&[f64]> = data.variables.iter().map(Vec::as_slice).collect();
    let tape = law.bind(&columns);
    tape.forward_columns(params, &mut tape.scratch()).to_vec()
}

/// The nuisance values that maximise ℓ at the law's parameters `params` (those `settings`
/// gives are kept), with ℓ there; None where ℓ is not finite.
pub(crate) fn best_nuisance(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    params: &[f64],
) -> Option<Nuisance> {
    let family = settings.family?;
    at_fit(law, data, settings, params, |at| at.maximise(&family))
}

/// `then` applied to the law's predictions at `params` on every row, with the rows' targets
/// (in the fitted space), weights and sizes.
fn at_fit<R>(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    params: &[f64],
    then: impl FnOnce(&AtPredictions) -> R,
) -> R {
    let predicted = predictions(law, params, data);
    let target: Vec<f64> = match settings.space {
        Space::Log => data.target.iter().map(|y| y.ln()).collect(),
        Space::Linear => data.target.clone(),
    };
    let weights = data
        .weights
        .clone()
        .unwrap_or_else(|| vec![1.0; data.target.len()]);
    let size = super::family::row_family(settings, data)
        .map(|f| f.size)
        .unwrap_or_else(|| vec![1.0; data.target.len()]);
    then(&AtPredictions {
        predictions: &predicted,
        target: &target,
        weights: &weights,
        size: &size,
        space: settings.space,
    })
}

/// The Cox–Reid adjusted dispersion and its standard error on ln α or logit ρ at the law's
/// fitted parameters `params` ([`AtPredictions::adjusted_dispersion`]); None for a dispersion
/// that was given, or a family without one.
fn adjusted_dispersion(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    params: &[f64],
) -> Option<(f64, f64)> {
    let family = settings.family?;
    let has_dispersion = matches!(
        family.kind,
        FamilyKind::NegativeBinomial | FamilyKind::BetaBinomial
    );
    if family.dispersion.is_some() || !has_dispersion {
        return None;
    }
    let free: Vec<usize> = law
        .param_names()
        .iter()
        .enumerate()
        .filter(|(_, name)| !settings.fixed.contains_key(**name))
        .map(|(i, _)| i)
        .collect();
    let columns: Vec<&[f64]> = data.variables.iter().map(Vec::as_slice).collect();
    let tape = law.bind(&columns);
    let mut scratch = tape.scratch();
    let mut full = vec![0.0; params.len()];
    let gradients: Vec<Vec<f64>> = (0..data.target.len())
        .map(|row| {
            full.iter_mut().for_each(|g| *g = 0.0);
            tape.gradient_row_sparse(params, row, &mut scratch, |i, g| full[i] += g);
            free.iter().map(|&i| full[i]).collect()
        })
        .collect();
    at_fit(law, data, settings, params, |at| {
        at.adjusted_dispersion(family.kind, &gradients)
    })
}

/// ℓ of a problem's family at natural parameters `p`, its nuisance values as held.
pub(crate) fn best_nuisance_of(problem: &super::Problem, p: &[f64]) -> Option<Nuisance> {
    let family = problem.family()?;
    let mut scratch = problem.tape().scratch();
    let predicted = problem.tape().forward_columns(p, &mut scratch).to_vec();
    let at = AtPredictions {
        predictions: &predicted,
        target: problem.target(),
        weights: problem.weights(),
        size: &family.size,
        space: problem.space(),
    };
    let value = at.log_likelihood(family);
    value.is_finite().then_some(Nuisance {
        dispersion: None,
        nu: None,
        log_likelihood: value,
    })
}

/// Fits the nuisance values `settings`' family leaves free; None when there are none.
pub(super) fn resolve(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    warm: &[Vec<f64>],
) -> Result<Option<Resolved>> {
    let Some(family) = settings.family else {
        return Ok(None);
    };
    if family.nuisance_fixed() || family.kind == FamilyKind::Gaussian {
        return Ok(None);
    }
    // The start's settings drop the nuisance values: check the ones given here.
    super::family::validate_settings(settings)?;
    let start = super::fit_best_plain(law, data, &start_settings(settings, family), warm)?;
    let fit_error = || {
        crate::error::Error::fit(format!(
            "the {} family's likelihood is not finite at the law's fit (the predictions leave the family's domain, or every residual is zero)",
            family.kind.name()
        ))
    };
    let mut nuisance = best_nuisance(law, data, settings, &start.params).ok_or_else(fit_error)?;
    let mut params = start.params;
    let mut converged = false;
    let mut alternations = 0;
    while alternations < MAX_ALTERNATIONS {
        alternations += 1;
        let held = holding(settings, &nuisance);
        // The first step searches the whole grid again (the family's optimum need not be in
        // the start's basin); later steps only follow it.
        let step = if alternations == 1 {
            super::fit_best_plain(law, data, &held, &[params.clone()])?
        } else {
            super::fit_best_local(law, data, &held, &params)?
        };
        let next = best_nuisance(law, data, settings, &step.params).ok_or_else(fit_error)?;
        let rise = next.log_likelihood - nuisance.log_likelihood;
        let improved = rise > 0.0 || alternations == 1;
        if improved {
            params = step.params;
            nuisance = next;
        }
        if rise <= RISE_TOLERANCE * nuisance.log_likelihood.abs().max(1.0) {
            converged = true;
            break;
        }
    }
    Ok(Some(Resolved {
        settings: holding(settings, &nuisance),
        params,
        nuisance,
        alternations,
        converged,
    }))
}

/// −ℓ of the family at `params` (nuisance values as `settings` hold them).
pub(super) fn negative_log_likelihood(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    params: &[f64],
) -> f64 {
    best_nuisance(law, data, settings, params).map_or(f64::INFINITY, |n| -n.log_likelihood)
}

/// [`super::fit_best`] under a family whose nuisance values are fitted: the best optimum
/// with −ℓ as its objective (so a profile's rise is a likelihood ratio).
pub(super) fn fit_best(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    warm: &[Vec<f64>],
) -> Result<BestOptimum> {
    match resolve(law, data, settings, warm)? {
        Some(resolved) => Ok(BestOptimum {
            objective: -resolved.nuisance.log_likelihood,
            params: resolved.params,
            converged: resolved.converged,
        }),
        None => {
            let mut best = super::fit_best_plain(law, data, settings, warm)?;
            if settings
                .family
                .is_some_and(|f| f.kind != FamilyKind::Gaussian)
            {
                best.objective = negative_log_likelihood(law, data, settings, &best.params);
            }
            Ok(best)
        }
    }
}

/// [`super::fit_with_starts`] under a family: the fit at the fitted nuisance values, with the
/// family's record, −ℓ as the objective and AIC/BIC counting the fitted nuisance values.
pub(super) fn fit_with_starts(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    warm: &[Vec<f64>],
) -> Result<FitResult> {
    let Some(family) = settings.family else {
        return super::fit_with_starts_plain(law, data, settings, warm);
    };
    let resolved = resolve(law, data, settings, warm)?;
    let (held, alternations, converged, starts) = match &resolved {
        Some(r) => {
            let starts = std::iter::once(r.params.clone()).chain(warm.iter().cloned());
            (
                r.settings.clone(),
                r.alternations,
                r.converged,
                starts.collect(),
            )
        }
        None => (settings.clone(), 0, true, warm.to_vec()),
    };
    let mut result = super::fit_with_starts_plain(law, data, &held, &starts)?;
    let params = result.param_values();
    let nuisance = if family.kind == FamilyKind::Gaussian {
        None
    } else {
        best_nuisance(law, data, &held, &params)
    };
    if let Some(n) = nuisance {
        result.objective = -n.log_likelihood;
        let fitted = family.fitted_nuisance() as f64;
        let weight: f64 = data
            .weights
            .as_ref()
            .map_or(data.target.len() as f64, |w| w.iter().sum());
        result.stats.log_likelihood = Some(n.log_likelihood);
        let k = result.stats.n_params as f64 + fitted;
        result.stats.aic = Some(2.0 * k - 2.0 * n.log_likelihood);
        result.stats.bic = Some(k * weight.ln() - 2.0 * n.log_likelihood);
    }
    if !converged {
        result.warnings.push(format!(
            "the {} family's nuisance values did not settle in {alternations} alternations of the law and the dispersion; the fit may not be the joint maximum",
            family.kind.name()
        ).into());
    }
    result.family = Some(FamilyFit {
        name: family.kind.name().to_string(),
        space: held.space,
        dispersion: family_dispersion(&result, family, nuisance.as_ref()),
        nu: nuisance.and_then(|n| n.nu),
        fitted_nuisance: family.fitted_nuisance(),
        alternations,
        size: super::family::common_size(family.kind, data),
        adjusted_dispersion: adjusted_dispersion(law, data, settings, &params),
    });
    warn_dispersion_at_bound(&mut result, family, nuisance.as_ref());
    result.settings = settings.clone();
    Ok(result)
}

/// The dispersion a fit reports: the fitted or given one; `gaussian`'s maximum-likelihood σ.
fn family_dispersion(
    result: &FitResult,
    family: Family,
    nuisance: Option<&Nuisance>,
) -> Option<(String, f64)> {
    let name = family.kind.dispersion_name()?.to_string();
    match family.kind {
        FamilyKind::Gaussian => {
            let rmse = result.stats.rmse?;
            Some((name, rmse))
        }
        _ => nuisance.and_then(|n| n.dispersion).map(|d| (name, d)),
    }
}

/// A dispersion fitted to the edge of its range: the data show none (NB's α → 0 is Poisson,
/// β-binomial's ρ → 0 binomial), or ν → its upper end (Gaussian tails).
fn warn_dispersion_at_bound(result: &mut FitResult, family: Family, nuisance: Option<&Nuisance>) {
    let Some(n) = nuisance else { return };
    let edge = |value: f64, lo: f64| value <= lo * 1.01;
    if family.dispersion.is_none() {
        match (family.kind, n.dispersion) {
            (FamilyKind::NegativeBinomial, Some(alpha)) if edge(alpha, 1e-8) => result.warnings.push(
                "alpha is at its lower end (1e-8): the counts show no overdispersion, and the poisson family fits them as well with one parameter fewer".into(),
            ),
            (FamilyKind::BetaBinomial, Some(rho)) if edge(rho, crate::law::real::sigmoid(-14.0)) => result.warnings.push(
                "rho is at its lower end (8e-7): the proportions show no overdispersion, and the binomial family fits them as well with one parameter fewer".into(),
            ),
            _ => {}
        }
    }
    if family.kind == FamilyKind::StudentT && family.nu.is_none() {
        if let Some(nu) = n.nu {
            if nu >= 0.99 * super::family::NU_RANGE.1 {
                result.warnings.push(format!(
                    "nu is at its upper end ({}): the residuals show no heavy tails, and the gaussian family fits them as well",
                    super::family::NU_RANGE.1
                ).into());
            }
        }
    }
}

/// The loss the objective uses: the settings' own, the linear loss under a family.
pub(crate) fn objective_loss(settings: &FitSettings) -> LossKind {
    if settings.family.is_some() {
        LossKind::Linear
    } else {
        settings.loss
    }
}
