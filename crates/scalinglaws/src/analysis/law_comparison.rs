//! Several laws fitted to the same data, side by side: objective, the likelihood under the
//! loss's error density, maximised over the law's parameters and the error scale (see
//! `fit::likelihood` and [`maximised_log_likelihood`]), AIC and BIC, an
//! optional backtest, and the likelihood-ratio test between every pair where one law nests the
//! other (Wilks 1938: λ = 2(ℓ_general − ℓ_restricted) ~ χ² with as many degrees of freedom as
//! parameters the restriction removes). A candidate may hold parameters at values, so published
//! parameters can be tested against a fit, as Besiroglu et al. 2024 test Hoffmann et al.'s.
//!
//! Nesting is decided on the data, not by name: law R is nested in law G when G, with R's
//! parameters where the names agree and 0 for the rest, reproduces R's predictions on every row
//! (to 1e-9), with those values allowed in G (inside its bounds, equal to its fixed values). So
//! `E + A*N^-alpha` is found nested in Chinchilla's law (B = 0) and a law with published
//! parameters held fixed in the same law fitted freely.

use serde::{Deserialize, Serialize};

use super::backtest::{backtest, BacktestOptions, Holdout, Metrics};
use crate::error::{Error, Result, Text};
use crate::fit::likelihood::log_likelihood;
use crate::fit::{fit, fit_best, problem_for, FitData, FitSettings};
use crate::law::Law;
use crate::stats::chi2_sf;

/// A law to compare, with the settings it is fitted with (its fixed parameters included) and
/// its data: the same rows and target for every candidate, each with the variables its law reads.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub label: String,
    pub law: Law,
    pub settings: FitSettings,
    pub data: FitData,
}

/// One law of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LawScore {
    /// The law as named (its label) or its formula's text.
    pub label: String,
    /// The law's formula.
    pub formula: String,
    /// Fitted parameters (those held at values not counted, nor the error scale).
    pub free_params: usize,
    /// The fit's objective (None where the law could not be fitted: see `error`).
    pub objective: Option<f64>,
    /// Log-likelihood under the loss's error density, maximised over the parameters and the
    /// error scale (None for a loss that defines no density).
    pub log_likelihood: Option<f64>,
    /// Akaike's and the Bayesian information criteria (the scale counted as a parameter).
    pub aic: Option<f64>,
    pub bic: Option<f64>,
    /// Whether the fit converged.
    pub converged: Option<bool>,
    /// Every parameter's value (fitted or held), in the law's order.
    #[serde(with = "crate::fit::result::ordered")]
    #[schemars(with = "std::collections::BTreeMap<String, f64>")]
    pub params: Vec<(String, f64)>,
    /// Scores on the held-out largest rows (with a scale column).
    pub backtest: Option<Metrics>,
    /// Why the law could not be fitted, where it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Text>,
}

/// A likelihood-ratio test of a restricted law against a law that nests it (Wilks 1938).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NestedTest {
    /// The nested law's label.
    pub restricted: String,
    /// The nesting law's label.
    pub general: String,
    /// Degrees of freedom: the parameters the general law frees.
    pub df: usize,
    /// λ = 2(ℓ_general − ℓ_restricted).
    pub statistic: f64,
    pub p_value: f64,
    /// The restriction puts a parameter on a bound of the general law: the χ² reference is then
    /// only approximate (the null distribution is a χ̄² mixture, Self & Liang 1987, and a
    /// parameter the restriction switches off, such as β when B = 0, is not identified under the
    /// null, Davies 1987).
    pub on_boundary: bool,
}

/// The laws fitted to the same rows, side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Comparison {
    /// Rows every law was fitted to.
    pub rows: usize,
    pub laws: Vec<LawScore>,
    /// Likelihood-ratio tests between nested laws.
    pub tests: Vec<NestedTest>,
    /// Which rows the backtests held out (with a scale column).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backtest_holdout: Option<String>,
}

/// A candidate's fit: every parameter, its predictions on the data, and the free count.
pub(crate) struct Fitted {
    params: Vec<f64>,
    predictions: Vec<f64>,
    free: usize,
}

/// Fits and backtests each candidate on the same data; the reasons a law could not be fitted
/// or backtested are stored in its score, for the front end to word.
pub fn compare_laws(
    candidates: &[Candidate],
    scale: Option<&[f64]>,
    holdout_frac: f64,
    level: f64,
) -> Result<Comparison> {
    let Some(first) = candidates.first() else {
        return Err(Error::settings("compare-laws needs at least two laws"));
    };
    if let Some(other) = candidates
        .iter()
        .find(|c| c.data.target != first.data.target)
    {
        return Err(Error::settings(format!(
            "'{}' and '{}' are fitted to different rows or targets; compare laws on the same data",
            first.label, other.label
        )));
    }
    let mut scores = Vec::with_capacity(candidates.len());
    let mut fitted = Vec::with_capacity(candidates.len());
    let mut input_faults = 0;
    for candidate in candidates {
        let (score, fit) = score(candidate, scale, holdout_frac, level);
        scores.push(score);
        match fit {
            Ok(fit) => fitted.push(Some(fit)),
            Err(input_fault) => {
                input_faults += usize::from(input_fault);
                fitted.push(None);
            }
        }
    }
    if fitted.iter().all(Option::is_none) {
        let reasons = scores.iter().map(|s| {
            let error = s.error.clone().unwrap_or_else(|| "failed".into());
            error.after(format!("{}: ", s.label))
        });
        let message = Text::join(reasons, "; ").after("no law could be fitted: ");
        // When every law failed on the input (too few rows, a bad value), the input is at
        // fault, not the search: an input error.
        return Err(match input_faults == candidates.len() {
            true => Error::settings(message),
            false => Error::fit(message),
        });
    }
    let mut tests = Vec::new();
    for (g, general) in candidates.iter().enumerate() {
        for (r, restricted) in candidates.iter().enumerate() {
            let (Some(fg), Some(fr)) = (&fitted[g], &fitted[r]) else {
                continue;
            };
            if fg.free <= fr.free {
                continue;
            }
            let Some(on_boundary) = nests(general, restricted, fr) else {
                continue;
            };
            let (Some(lg), Some(lr)) = (scores[g].log_likelihood, scores[r].log_likelihood) else {
                continue;
            };
            let df = fg.free - fr.free;
            let statistic = (2.0 * (lg - lr)).max(0.0);
            tests.push(NestedTest {
                restricted: restricted.label.clone(),
                general: general.label.clone(),
                df,
                statistic,
                p_value: chi2_sf(statistic, df as f64),
                on_boundary,
            });
        }
    }
    candidates
        .iter()
        .try_for_each(|c| c.settings.interrupt.check())?;
    Ok(Comparison {
        rows: first.data.target.len(),
        laws: scores,
        tests,
        backtest_holdout: scale.map(|_| Holdout::Fraction(holdout_frac).describe()),
    })
}

/// An empty score of `candidate` (nothing fitted yet).
pub(crate) fn blank_score(candidate: &Candidate) -> LawScore {
    LawScore {
        label: candidate.label.clone(),
        formula: candidate.law.formula.clone(),
        free_params: candidate
            .law
            .params
            .iter()
            .filter(|p| !candidate.settings.fixed.contains_key(&p.name))
            .count(),
        objective: None,
        log_likelihood: None,
        aic: None,
        bic: None,
        converged: None,
        params: Vec::new(),
        backtest: None,
        error: None,
    }
}

/// A candidate's score and its fit; when the fit fails, whether the input was at fault.
fn score(
    candidate: &Candidate,
    scale: Option<&[f64]>,
    holdout_frac: f64,
    level: f64,
) -> (LawScore, std::result::Result<Fitted, bool>) {
    let law = &candidate.law;
    let mut score = blank_score(candidate);
    let fitted = match fit_or_evaluate(candidate, &mut score) {
        Ok(fitted) => fitted,
        Err(error) => {
            score.error = Some(error.text());
            return (score, Err(error.is_input_error()));
        }
    };
    if let (Some(scale), true) = (scale, score.free_params > 0) {
        let options = BacktestOptions {
            holdout: Holdout::Fraction(holdout_frac),
            level,
            bootstrap: None,
            calibrate: None,
            seed: 0,
        };
        match backtest(law, &candidate.data, scale, &candidate.settings, &options) {
            Ok(result) => score.backtest = result.metrics,
            Err(error) => score.error = Some(error.text().after("backtest: ")),
        }
    }
    (score, Ok(fitted))
}

/// Fits the candidate (or, with every parameter fixed, evaluates it) and fills the score.
fn fit_or_evaluate(candidate: &Candidate, score: &mut LawScore) -> Result<Fitted> {
    let law = &candidate.law;
    let data = &candidate.data;
    let settings = &candidate.settings;
    let params: Vec<f64> = if score.free_params == 0 {
        law.params.iter().map(|p| settings.fixed[&p.name]).collect()
    } else {
        let result = fit(law, data, settings)?;
        score.converged = Some(result.converged);
        result.param_values()
    };
    information(candidate, params, score, true)
}

/// Fills the score of `candidate` at the fitted parameters `params`: objective,
/// log-likelihood, AIC, BIC and the parameters. With `maximise`, a Huber likelihood is
/// maximised jointly over parameters and scale (see [`maximised_log_likelihood`]); without,
/// over the scale only at the fitted parameters (exact for `linear`, a lower bound otherwise).
pub(crate) fn information(
    candidate: &Candidate,
    params: Vec<f64>,
    score: &mut LawScore,
    maximise: bool,
) -> Result<Fitted> {
    let law = &candidate.law;
    let data = &candidate.data;
    let settings = &candidate.settings;
    let family = settings
        .family
        .filter(|f| f.kind != crate::fit::FamilyKind::Gaussian);
    // A family's ℓ is its own, maximised over its nuisance values at these parameters (the
    // fit's own nuisance values when the parameters are the fit's), counting them.
    let (total_weight, objective, likelihood, with_scale) = match family {
        Some(f) => {
            let nuisance = crate::fit::nuisance::best_nuisance(law, data, settings, &params);
            let likelihood = nuisance.map(|n| n.log_likelihood);
            let objective = likelihood.map_or(f64::INFINITY, |l| -l);
            let k = score.free_params as f64 + f.fitted_nuisance() as f64;
            let total_weight = data
                .weights
                .as_ref()
                .map_or(data.target.len() as f64, |w| w.iter().sum());
            (total_weight, objective, likelihood, k)
        }
        None => {
            let problem = problem_for(law, data, settings)?;
            let mut scratch = problem.tape().scratch();
            let objective = problem.objective_natural(&params, &mut scratch);
            let free = if maximise { score.free_params } else { 0 };
            let likelihood = maximised_log_likelihood(candidate, &problem, &params, free);
            let k = score.free_params as f64 + 1.0;
            (problem.total_weight(), objective, likelihood, k)
        }
    };
    score.objective = objective.is_finite().then_some(objective);
    score.log_likelihood = likelihood;
    score.aic = score.log_likelihood.map(|l| 2.0 * with_scale - 2.0 * l);
    score.bic = score
        .log_likelihood
        .map(|l| with_scale * total_weight.ln() - 2.0 * l);
    score.params = law
        .param_names()
        .iter()
        .zip(&params)
        .map(|(n, v)| (n.to_string(), *v))
        .collect();
    let predictions = predictions(law, &params, data);
    Ok(Fitted {
        params,
        predictions,
        free: score.free_params,
    })
}

/// Most alternations of the likelihood maximisation.
pub const MAX_ALTERNATIONS: usize = 50;

/// The law's log-likelihood, maximised over its free parameters and the error scale.
///
/// For `linear` the least-squares fit is already the Gaussian maximum. For `huber` the fitted
/// parameters minimise Σρ_δ(r) with the kink at |r| = δ, while the density puts it at |r| = σδ;
/// since ρ_δ(r/σ) = ρ_σδ(r)/σ², the parameters that maximise ℓ at a given σ are the Huber fit
/// with `f_scale` σδ. Alternating that refit (the full search, warm-started) with the exact
/// σ-step raises ℓ monotonically to a maximum, as Besiroglu et al. 2024 maximise it jointly.
fn maximised_log_likelihood(
    candidate: &Candidate,
    problem: &crate::fit::Problem,
    start: &[f64],
    free: usize,
) -> Option<f64> {
    let loss = problem.loss();
    let weights = problem.weights();
    let mut best = log_likelihood(&problem.residuals(start), weights, loss)?;
    if free == 0 || loss.kind != crate::fit::LossKind::Huber {
        return Some(best.value);
    }
    let mut params = start.to_vec();
    for _ in 0..MAX_ALTERNATIONS {
        let settings = FitSettings {
            f_scale: loss.f_scale * best.scale,
            ..candidate.settings.clone()
        };
        let Ok(step) = fit_best(
            &candidate.law,
            &candidate.data,
            &settings,
            &[params.clone()],
        ) else {
            break;
        };
        match log_likelihood(&problem.residuals(&step.params), weights, loss) {
            Some(next) if next.value > best.value + 1e-12 * best.value.abs() => {
                best = next;
                params = step.params;
            }
            _ => break,
        }
    }
    Some(best.value)
}

fn predictions(law: &Law, params: &[f64], data: &FitData) -> Vec<f64> {
    (0..data.target.len())
        .map(|row| {
            let point: Vec<f64> = data.variables.iter().map(|c| c[row]).collect();
            law.eval(params, &point)
        })
        .collect()
}

/// Whether `general` nests `restricted` (see the module doc); Some(on_boundary) when it does.
fn nests(general: &Candidate, restricted: &Candidate, fr: &Fitted) -> Option<bool> {
    let mut values = Vec::with_capacity(general.law.params.len());
    let mut on_boundary = false;
    for spec in &general.law.params {
        let value = restricted
            .law
            .param_index(&spec.name)
            .map_or(0.0, |i| fr.params[i]);
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1.0);
        match general.settings.fixed.get(&spec.name) {
            Some(&fixed) if !close(fixed, value) => return None,
            Some(_) => {}
            None => {
                let bounds = general.settings.bounds.get(&spec.name);
                let lower = bounds.map_or(spec.lower, |b| b.lower.unwrap_or(f64::NEG_INFINITY));
                let upper = bounds.map_or(spec.upper, |b| b.upper.unwrap_or(f64::INFINITY));
                if value < lower || value > upper {
                    return None;
                }
                let on = |bound: f64| bound.is_finite() && close(value, bound);
                on_boundary |= on(lower) || on(upper);
            }
        }
        values.push(value);
    }
    let reproduced = predictions(&general.law, &values, &general.data);
    let same = reproduced
        .iter()
        .zip(&fr.predictions)
        .all(|(a, b)| (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-300));
    same.then_some(on_boundary)
}
