//! Choosing and averaging laws by how well they extrapolate: every candidate law is scored by
//! rolling-origin backtests over scale (fit on the scale groups up to an origin, predict every
//! run beyond it, for several origins; Tashman 2000, with scale in the role of time) — the very
//! fits that calibrate its prediction intervals (`uncertainty::calibration`), so selection costs
//! no extra fits.
//!
//! **Score.** A held-out run's error is its residual in the fitted space (log y for log
//! residuals). Runs at one scale share their error, so each (origin, scale group) unit counts
//! once: a candidate's score is the mean over units of the unit's mean absolute error (for log
//! residuals about the mean absolute relative error, the backtests' headline figure; absolute,
//! not squared, so that one origin whose fit extrapolates wildly does not decide alone). Every
//! candidate is scored on the same units (the origins whose fits succeeded for all).
//!
//! **Winner.** Among the candidates whose score is within one standard error of the lowest
//! (the one-standard-error rule of Breiman et al. 1984, *Classification and Regression Trees*,
//! §3.4; Hastie, Tibshirani & Friedman 2009, *The Elements of Statistical Learning*, §7.10), the
//! one the data support best in-sample: the lowest BIC (Schwarz 1978), with the likelihood of
//! `law_comparison` at the fitted parameters (maximised over the error scale; for `huber` not
//! re-maximised over the parameters, which `compare-laws` does and which costs dozens of
//! refits); without a likelihood (a loss with no error density), the fewest free parameters. The standard error is the best score's over the rolling origins (each origin is
//! one fit, and its units share it), as in the rule's original form. Backtests alone
//! cannot separate nested laws whose difference shows only farther out than the origins reach:
//! at 1 % noise a tied-exponent law often extrapolates a true Chinchilla law's data as well as
//! Chinchilla's own form over 1.5 decades (tests/integration/selection.rs); the in-sample evidence decides
//! those ties.
//!
//! **Average.** Stacking (Wolpert 1992; Breiman 1996, "Stacked regressions"; for predictive
//! distributions Yao, Vehtari, Simpson & Gelman 2018, "Using stacking to average Bayesian
//! predictive distributions"): weights a ≥ 0, Σa = 1 minimise the score (unit-weighted mean
//! absolute error) of the combined prediction Σ aₖ ŷₖ on the backtests' held-out runs. The averaged
//! prediction is Σ aₖ ŷₖ in the fitted space, and its interval is the quantile interval of the
//! mixture Σ aₖ N(ŷₖ, sdₖ²), where sdₖ is candidate k's (calibrated) prediction sd: the interval
//! holds both each law's own uncertainty and the spread between laws.
//!
//! [`evaluate`] checks the whole procedure out of sample: nested rolling origins, where each
//! outer training set runs its own selection (and calibrations) and the outer held-out runs
//! score the winner, the average and every candidate alike.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::law_comparison::{blank_score, information, Candidate, LawScore};
use crate::error::{Error, Result, Setting, Text};
use crate::fit::{fit, Space};
use crate::stats::{normal_quantile, weighted_normal_mixture_quantile};
use crate::uncertainty::calibration::{
    calibrate_with_predictions, origin_sizes, scale_groups, OriginPredictions, MIN_GROUPS,
};
use crate::uncertainty::intervals::{back, forward, predict_with_intervals, PointPrediction};
use crate::uncertainty::{CalibrationOptions, FitRecord};

/// Iterations of the projected-gradient stacking solve (a handful of candidates: cheap).
const STACKING_ITERATIONS: usize = 5_000;

#[derive(Debug, Clone, PartialEq)]
pub struct SelectionOptions {
    /// Level of the prediction intervals (and of their calibration).
    pub level: f64,
    /// Most rolling origins.
    pub origins: usize,
    /// Attach each candidate's calibration to its fit, widening its intervals beyond the data.
    pub calibrate: bool,
}

impl Default for SelectionOptions {
    fn default() -> Self {
        SelectionOptions {
            level: crate::uncertainty::DEFAULT_LEVEL,
            origins: crate::uncertainty::calibration::DEFAULT_ORIGINS,
            calibrate: true,
        }
    }
}

/// A candidate's rolling-backtest score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CandidateScore {
    /// The candidate's label (its catalog name with held values, or its formula).
    pub label: String,
    /// The law's formula.
    pub formula: String,
    /// Parameters fitted (not held).
    pub free_params: usize,
    /// The score: unit-weighted mean absolute held-out error in the fitted space (for log
    /// residuals, about the mean absolute relative error).
    pub score: Option<f64>,
    /// Unit-weighted root mean squared held-out error in the fitted space.
    pub rmse: Option<f64>,
    /// Unit-weighted mean absolute relative error (ŷ − y)/y of the held-out runs.
    pub are_mean: Option<f64>,
    /// Standard error of (this score − the best score), paired over the rolling origins.
    pub gap_se: Option<f64>,
    /// Log-likelihood at the fitted parameters on all the data, maximised over the error scale
    /// (for `huber` a lower bound on the joint maximum).
    pub log_likelihood: Option<f64>,
    /// Bayesian information criterion on all the data.
    pub bic: Option<f64>,
    /// Within one standard error of the best score (the best candidate's score's standard
    /// error over the rolling origins, reported as its `score_se`).
    pub tied_with_best: bool,
    /// The standard error of the score over the rolling origins (the best candidate's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_se: Option<f64>,
    /// Stacking weight.
    pub weight: f64,
    /// Whether its prediction intervals are calibrated beyond the data (and τ when they are).
    pub calibrated: bool,
    /// The calibration's widening per decade beyond the data.
    pub tau_per_decade: Option<f64>,
    /// Why its intervals are not calibrated beyond the data.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration_reason: Option<String>,
    /// Parameters fitted to all the data, by name.
    #[serde(with = "crate::fit::result::ordered")]
    #[schemars(with = "BTreeMap<String, f64>")]
    pub params: Vec<(String, f64)>,
    /// Why the candidate could not be scored, when it could not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Text>,
}

/// The scored candidates, the winner and the stacking weights.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Selection {
    /// Rows of data used.
    pub rows: usize,
    /// The scale column of the rolling origins.
    pub by: String,
    /// The intervals' level (e.g. 0.95).
    pub level: f64,
    /// How the candidates were scored and weighted, in words.
    pub method: String,
    /// Training scale groups of the rolling origins every candidate was scored on.
    pub origins: Vec<usize>,
    /// Distinct scales in the data.
    pub scale_groups: usize,
    /// (origin, scale group) units scored.
    pub units: usize,
    /// Held-out runs scored.
    pub held_out: usize,
    /// Every candidate's score, in the order given.
    pub candidates: Vec<CandidateScore>,
    /// The candidate of the lowest score.
    pub best: String,
    /// The candidate the one-standard-error rule picks: the lowest BIC among those tied with
    /// the best.
    pub winner: String,
    /// Each candidate's fit on all the data (with its calibration when calibrating).
    #[serde(skip)]
    pub fits: Vec<Option<FitRecord>>,
}

/// One candidate's prediction at a point.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LawPrediction {
    /// The candidate's label (its catalog name with held values, or its formula).
    pub label: String,
    /// The stacking weight.
    pub weight: f64,
    /// The law's prediction.
    #[serde(flatten)]
    pub prediction: PointPrediction,
}

/// The winner's and the stacked prediction at a point, with every candidate's (flattened in
/// the document's `SelectedPrediction`, which adds the point).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "StackedPrediction")]
pub struct SelectedPrediction {
    /// Stacked value Σ aₖ ŷₖ (in the fitted space, mapped back).
    pub value: f64,
    /// Quantile interval of the weighted mixture of the candidates' predictive normals.
    pub pi: Option<[f64; 2]>,
    /// Standard deviation between the weighted candidates' predictions, in the fitted space.
    pub between_sd: f64,
    /// Whether every weighted candidate's interval was calibrated beyond the data.
    pub calibrated: bool,
    /// The winner's own prediction.
    pub winner: LawPrediction,
    /// Every candidate's prediction, in the order given.
    pub laws: Vec<LawPrediction>,
}

/// Scores `candidates` (same rows and target, same fitted space) by rolling-origin backtests
/// ordered by `scale` (the column `by`), picks the winner and the stacking weights.
/// `Err(Error::Interrupted)` when any candidate's fits were interrupted (a failed fit of an
/// origin or a split is otherwise recorded and the selection goes on).
fn interrupted(candidates: &[Candidate]) -> Result<()> {
    candidates
        .iter()
        .try_for_each(|c| c.settings.interrupt.check())
}

pub fn select(
    candidates: &[Candidate],
    by: &str,
    scale: &[f64],
    options: &SelectionOptions,
) -> Result<Selection> {
    check_options(options)?;
    check_candidates(candidates, scale)?;
    let calibration = CalibrationOptions {
        level: options.level,
        origins: options.origins,
    };
    let mut runs: Vec<CandidateRun> = candidates
        .iter()
        .map(|c| run_candidate(c, by, scale, &calibration, options.calibrate))
        .collect();
    interrupted(candidates)?;
    let (groups, count) = scale_groups(scale);
    let common = common_origins(&runs);
    if common.len() < 2 {
        return Err(too_few_origins(&runs, candidates, count, options.origins));
    }
    let units = Units::new(&common, &runs, &groups);
    let space = candidates[0].settings.space;
    for (run, candidate) in runs.iter_mut().zip(candidates) {
        run.errors = units.errors(run, &candidate.data.target, space);
    }
    let mut scores: Vec<CandidateScore> = runs
        .iter()
        .zip(candidates)
        .map(|(run, c)| base_score(run, c, &units))
        .collect();
    let eligible: Vec<usize> = (0..runs.len())
        .filter(|&k| scores[k].score.is_some())
        .collect();
    if eligible.is_empty() {
        return Err(Error::fit(
            reasons(&scores).after("no law could be scored: "),
        ));
    }
    let best = *eligible
        .iter()
        .min_by(|&&a, &&b| {
            scores[a]
                .score
                .unwrap()
                .total_cmp(&scores[b].score.unwrap())
        })
        .unwrap();
    mark_ties(&mut scores, &runs, &units, &eligible, best);
    let winner = one_standard_error_winner(&scores, &eligible);
    let weights = stacking_weights(&runs, &eligible);
    for (&k, w) in eligible.iter().zip(&weights) {
        scores[k].weight = *w;
    }
    Ok(Selection {
        rows: scale.len(),
        by: by.to_string(),
        level: options.level,
        method: "rolling-origin backtests by scale; score: mean over (origin, scale group) units of the absolute held-out error in the fitted space; winner: lowest BIC among the laws within one standard error (over origins) of the best score; average: stacking weights on the simplex minimising the same score of the combined prediction".into(),
        origins: common,
        scale_groups: count,
        units: units.count,
        held_out: units.rows.iter().map(Vec::len).sum(),
        best: scores[best].label.clone(),
        winner: scores[winner].label.clone(),
        candidates: scores,
        fits: runs.into_iter().map(|r| r.fit).collect(),
    })
}

impl Selection {
    /// Predictions at new points: `points[k]` holds the points in candidate k's variables
    /// (one list per candidate, all of the same length).
    pub fn predict(&self, points: &[Vec<Vec<f64>>]) -> Result<Vec<SelectedPrediction>> {
        if self.fits.len() != self.candidates.len() {
            return Err(Error::settings(
                "this selection carries no fits (it was read back from JSON); run the selection to predict",
            ));
        }
        if points.len() != self.candidates.len() {
            return Err(Error::settings(format!(
                "points are given for {} laws, but {} were selected among",
                points.len(),
                self.candidates.len()
            )));
        }
        let count = points.first().map_or(0, Vec::len);
        let mut per_law: Vec<Option<(Vec<PointPrediction>, Space)>> = Vec::new();
        for (k, fit) in self.fits.iter().enumerate() {
            match fit {
                Some(fit) if self.candidates[k].score.is_some() => {
                    if points[k].len() != count {
                        return Err(Error::settings(format!(
                            "'{}' is given {} points, the first law {count}",
                            self.candidates[k].label,
                            points[k].len()
                        )));
                    }
                    let (p, _) = predict_with_intervals(fit, &points[k], self.level)?;
                    per_law.push(Some((p, fit.settings.space)));
                }
                _ => per_law.push(None),
            }
        }
        Ok((0..count).map(|i| self.combine(&per_law, i)).collect())
    }

    fn combine(
        &self,
        per_law: &[Option<(Vec<PointPrediction>, Space)>],
        i: usize,
    ) -> SelectedPrediction {
        let laws: Vec<LawPrediction> = per_law
            .iter()
            .zip(&self.candidates)
            .filter_map(|(p, c)| {
                p.as_ref().map(|(p, _)| LawPrediction {
                    label: c.label.clone(),
                    weight: c.weight,
                    prediction: p[i].clone(),
                })
            })
            .collect();
        let space = per_law
            .iter()
            .flatten()
            .map(|(_, s)| *s)
            .next()
            .unwrap_or(Space::Log);
        let winner = laws
            .iter()
            .find(|l| l.label == self.winner)
            .cloned()
            .expect("the winner is always predicted");
        let (value, pi, between_sd) = mixture(&laws, space, self.level);
        SelectedPrediction {
            value,
            pi,
            between_sd,
            calibrated: laws
                .iter()
                .filter(|l| l.weight > 0.0)
                .all(|l| l.prediction.calibrated),
            winner,
            laws,
        }
    }
}

/// The i-th of a list of point values given as one value for every point or one per point.
pub fn value_at(values: &[f64], i: usize) -> f64 {
    if values.len() == 1 {
        values[0]
    } else {
        values[i]
    }
}

/// The rules of the points to predict at that need no law: each variable once, with values,
/// each positive and finite, and lists of one length (one value stands for every point).
pub fn check_points(at: &[(String, Vec<f64>)]) -> Result<()> {
    for (i, (name, values)) in at.iter().enumerate() {
        if at[..i].iter().any(|(other, _)| other == name) {
            return Err(at_error(format!(
                "'{name}' is given twice; give each variable once"
            )));
        }
        if values.is_empty() {
            return Err(at_error(format!("'{name}' has no values")));
        }
        if let Some(bad) = values.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
            let bad = crate::error::short_number(*bad);
            return Err(at_error(format!(
                "{name}={bad}: give a positive finite number"
            )));
        }
    }
    let lengths: Vec<usize> = at.iter().map(|(_, v)| v.len()).filter(|&l| l > 1).collect();
    if lengths.windows(2).any(|w| w[0] != w[1]) {
        return Err(at_error(
            "lists of values must have the same length (or one value for every point)".into(),
        ));
    }
    Ok(())
}

/// An error of the points to predict at, naming the setting.
fn at_error(message: String) -> Error {
    Error::setting(
        Setting::At,
        crate::text![Setting::At.subject(), ": ", message],
    )
}

/// The points `at` (values by variable name, each list of length 1 or a common length) in
/// each candidate's own variable order, for [`Selection::predict`]. Errors name the setting
/// `at` and the variable.
pub fn points_by_name(
    candidates: &[Candidate],
    at: &[(String, Vec<f64>)],
) -> Result<Vec<Vec<Vec<f64>>>> {
    check_points(at)?;
    for (name, _) in at {
        if !candidates.iter().any(|c| c.law.variables.contains(name)) {
            let mut all: Vec<&str> = Vec::new();
            for v in candidates.iter().flat_map(|c| &c.law.variables) {
                if !all.contains(&v.as_str()) {
                    all.push(v);
                }
            }
            return Err(at_error(format!(
                "'{name}' is a variable of none of the laws; they read {}",
                all.join(", ")
            )));
        }
    }
    let count = at.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
    candidates
        .iter()
        .map(|c| {
            let columns: Vec<&Vec<f64>> = c
                .law
                .variables
                .iter()
                .map(|v| {
                    at.iter()
                        .find(|(n, _)| n == v)
                        .map(|(_, values)| values)
                        .ok_or_else(|| {
                            at_error(format!(
                                "no value for {v}, which '{}' reads; give {v} as well",
                                c.label
                            ))
                        })
                })
                .collect::<Result<_>>()?;
            Ok((0..count)
                .map(|i| columns.iter().map(|values| value_at(values, i)).collect())
                .collect())
        })
        .collect()
}

/// The stacked value, mixture interval and between-law sd of weighted predictions.
fn mixture(laws: &[LawPrediction], space: Space, level: f64) -> (f64, Option<[f64; 2]>, f64) {
    let z = normal_quantile(0.5 + level / 2.0);
    let weighted: Vec<&LawPrediction> = laws.iter().filter(|l| l.weight > 0.0).collect();
    let centre: f64 = weighted
        .iter()
        .map(|l| l.weight * forward(space, l.prediction.value))
        .sum();
    let between = weighted
        .iter()
        .map(|l| l.weight * (forward(space, l.prediction.value) - centre).powi(2))
        .sum::<f64>()
        .sqrt();
    let components: Option<Vec<(f64, f64, f64)>> = weighted
        .iter()
        .map(|l| {
            // Each law's interval as a normal in the fitted space, centred on the interval
            // (beyond the data it leans where the law's form error does).
            let [lo, hi] = l.prediction.pi?;
            let (lo, hi) = (forward(space, lo), forward(space, hi));
            Some((l.weight, 0.5 * (lo + hi), (hi - lo) / (2.0 * z)))
        })
        .collect();
    let pi = components.and_then(|c| {
        let tail = (1.0 - level) / 2.0;
        let lo = back(space, weighted_normal_mixture_quantile(&c, tail));
        let hi = back(space, weighted_normal_mixture_quantile(&c, 1.0 - tail));
        (lo.is_finite() && hi.is_finite()).then_some([lo, hi])
    });
    (back(space, centre), pi, between)
}

/// The most rolling origins a selection scores (each is a fit of every law).
pub const MAX_ORIGINS: usize = 50;

/// The options' level and rolling origins in range (before any data are read).
pub fn check_options(options: &SelectionOptions) -> Result<()> {
    crate::uncertainty::check_level(options.level)?;
    if !(2..=MAX_ORIGINS).contains(&options.origins) {
        return Err(Error::setting(
            Setting::Origins,
            crate::text![
                Setting::Origins.number(options.origins),
                format!(
                    ": give between 2 and {MAX_ORIGINS} rolling origins (scoring laws needs at \
                     least 2; default {})",
                    SelectionOptions::default().origins
                )
            ],
        ));
    }
    Ok(())
}

fn check_candidates(candidates: &[Candidate], scale: &[f64]) -> Result<()> {
    let Some(first) = candidates.first() else {
        return Err(Error::settings(
            "law selection needs at least one candidate law",
        ));
    };
    for (i, c) in candidates.iter().enumerate() {
        if candidates[..i].iter().any(|o| o.label == c.label) {
            return Err(Error::settings(format!(
                "'{}' is a candidate twice; give each law once",
                c.label
            )));
        }
    }
    for other in candidates {
        if other.data.target != first.data.target {
            return Err(Error::settings(format!(
                "'{}' and '{}' are fitted to different rows or targets; select among laws on the same data",
                first.label, other.label
            )));
        }
        if other.settings.space != first.settings.space {
            return Err(Error::settings(format!(
                "'{}' fits in {} space but '{}' in {} space; scores compare only in one space",
                first.label,
                first.settings.space.name(),
                other.label,
                other.settings.space.name()
            )));
        }
    }
    if scale.len() != first.data.target.len() {
        return Err(Error::settings(format!(
            "the scale column has {} values for {} rows",
            scale.len(),
            first.data.target.len()
        )));
    }
    if let Some(row) = scale.iter().position(|s| !(s.is_finite() && *s > 0.0)) {
        return Err(Error::settings(format!(
            "the scale column is not a positive number at row {}: {}",
            row + 1,
            scale[row]
        )));
    }
    Ok(())
}

/// A candidate's fit on all rows and its rolling origins' held-out predictions.
struct CandidateRun {
    fit: Option<FitRecord>,
    information: Option<LawScore>,
    origins: Vec<OriginPredictions>,
    /// Per common unit: the held-out rows' errors in the fitted space (filled by `select`).
    errors: Vec<Vec<f64>>,
    error: Option<Text>,
    /// The failure was the input's (too few rows, a bad value), not the search's.
    input_fault: bool,
}

fn run_candidate(
    candidate: &Candidate,
    by: &str,
    scale: &[f64],
    options: &CalibrationOptions,
    attach: bool,
) -> CandidateRun {
    let mut run = CandidateRun {
        fit: None,
        information: None,
        origins: Vec::new(),
        errors: Vec::new(),
        error: None,
        input_fault: false,
    };
    let result = fit(&candidate.law, &candidate.data, &candidate.settings).and_then(|f| {
        let mut f = FitRecord::from(f);
        let (calibration, origins) = calibrate_with_predictions(
            &candidate.law,
            &candidate.data,
            by,
            scale,
            &candidate.settings,
            options,
        )?;
        if attach {
            f.calibration = Some(calibration.require_rule());
        }
        Ok((f, origins))
    });
    match result {
        Ok((fit, origins)) => {
            let mut score = blank_score(candidate);
            if information(candidate, fit.param_values(), &mut score, false).is_ok() {
                run.information = Some(score);
            }
            run.fit = Some(fit);
            run.origins = origins;
        }
        Err(error) => {
            run.input_fault = error.is_input_error();
            run.error = Some(error.text());
        }
    }
    run
}

/// The origins (training group counts) at which every fitted candidate predicted.
fn common_origins(runs: &[CandidateRun]) -> Vec<usize> {
    let fitted: Vec<&CandidateRun> = runs.iter().filter(|r| r.fit.is_some()).collect();
    let Some(first) = fitted.first() else {
        return Vec::new();
    };
    first
        .origins
        .iter()
        .map(|o| o.trained_groups)
        .filter(|g| {
            fitted
                .iter()
                .all(|r| r.origins.iter().any(|o| o.trained_groups == *g))
        })
        .collect()
}

fn too_few_origins(
    runs: &[CandidateRun],
    candidates: &[Candidate],
    groups: usize,
    most: usize,
) -> Error {
    if runs.iter().all(|r| r.fit.is_none()) {
        let reasons = runs.iter().zip(candidates).map(|(r, c)| {
            let error = r.error.clone().unwrap_or_else(|| "failed".into());
            error.after(format!("{}: ", c.label))
        });
        let message = Text::join(reasons, "; ").after("no law could be fitted: ");
        // When every law failed on the input (too few rows, a bad value, over the work
        // budget), the input is at fault, not the search.
        return match runs.iter().all(|r| r.input_fault) {
            true => Error::settings(message),
            false => Error::fit(message),
        };
    }
    if origin_sizes(groups, most).len() < 2 {
        return Error::settings(format!(
            "the data form {groups} scale groups; scoring laws by rolling origins needs at least {MIN_GROUPS} (add runs at more scales, or order by another scale column)"
        ));
    }
    let fitted: Vec<String> = runs
        .iter()
        .zip(candidates)
        .filter(|(r, _)| r.fit.is_some())
        .map(|(r, c)| {
            let origins: Vec<String> = r
                .origins
                .iter()
                .map(|o| o.trained_groups.to_string())
                .collect();
            format!("{} at {} groups", c.label, origins.join(", "))
        })
        .collect();
    Error::fit(format!(
        "fewer than 2 rolling origins were fitted by every law (fitted origins: {}); leave out the law that fails",
        fitted.join("; ")
    ))
}

/// The (origin, scale group) units every candidate is scored on, with their rows.
struct Units {
    count: usize,
    /// Training group counts of the common origins.
    trained: Vec<usize>,
    /// Per unit: the index of its origin in `trained`, and its held-out rows.
    origin: Vec<usize>,
    rows: Vec<Vec<usize>>,
}

impl Units {
    fn new(common: &[usize], runs: &[CandidateRun], groups: &[usize]) -> Units {
        let reference = runs.iter().find(|r| r.fit.is_some()).expect("a fitted run");
        let mut origin = Vec::new();
        let mut rows = Vec::new();
        for (o, trained) in common.iter().enumerate() {
            let mut by_group: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
            for &row in &origin_of(reference, *trained).rows {
                by_group.entry(groups[row]).or_default().push(row);
            }
            for (_, members) in by_group {
                origin.push(o);
                rows.push(members);
            }
        }
        Units {
            count: rows.len(),
            trained: common.to_vec(),
            origin,
            rows,
        }
    }

    /// The run's held-out errors per unit (empty when the candidate was not fitted).
    fn errors(&self, run: &CandidateRun, target: &[f64], space: Space) -> Vec<Vec<f64>> {
        if run.fit.is_none() {
            return Vec::new();
        }
        let lookups: Vec<BTreeMap<usize, f64>> = self
            .trained
            .iter()
            .map(|&trained| {
                let p = origin_of(run, trained);
                p.rows
                    .iter()
                    .copied()
                    .zip(p.predicted.iter().copied())
                    .collect()
            })
            .collect();
        self.rows
            .iter()
            .zip(&self.origin)
            .map(|(rows, &o)| {
                rows.iter()
                    .map(|&row| lookups[o][&row] - forward(space, target[row]))
                    .collect()
            })
            .collect()
    }
}

fn origin_of(run: &CandidateRun, trained: usize) -> &OriginPredictions {
    run.origins
        .iter()
        .find(|p| p.trained_groups == trained)
        .expect("a common origin")
}

/// Mean over units of the unit's mean of `f(row errors)`.
fn unit_mean(errors: &[Vec<f64>], f: impl Fn(f64) -> f64) -> f64 {
    let total: f64 = errors
        .iter()
        .map(|unit| unit.iter().map(|&e| f(e)).sum::<f64>() / unit.len() as f64)
        .sum();
    total / errors.len() as f64
}

/// Per-unit mean absolute errors (the units' terms of the score).
fn unit_scores(errors: &[Vec<f64>]) -> Vec<f64> {
    errors
        .iter()
        .map(|unit| unit.iter().map(|e| e.abs()).sum::<f64>() / unit.len() as f64)
        .collect()
}

fn base_score(run: &CandidateRun, candidate: &Candidate, units: &Units) -> CandidateScore {
    let law = &candidate.law;
    let free_params = law
        .params
        .iter()
        .filter(|p| !candidate.settings.fixed.contains_key(&p.name))
        .count();
    let calibration = run.fit.as_ref().and_then(|f| f.calibration.as_ref());
    let mut score = CandidateScore {
        label: candidate.label.clone(),
        formula: law.formula.clone(),
        free_params,
        score: None,
        rmse: None,
        are_mean: None,
        gap_se: None,
        log_likelihood: run.information.as_ref().and_then(|i| i.log_likelihood),
        bic: run.information.as_ref().and_then(|i| i.bic),
        tied_with_best: false,
        score_se: None,
        weight: 0.0,
        calibrated: calibration.is_some_and(|c| c.calibrated),
        tau_per_decade: calibration
            .filter(|c| c.calibrated)
            .map(|c| c.tau_per_decade),
        calibration_reason: calibration.and_then(|c| c.reason.clone()),
        params: run
            .fit
            .as_ref()
            .map(|f| f.params.iter().map(|(n, p)| (n.clone(), p.value)).collect())
            .unwrap_or_default(),
        error: run.error.clone(),
    };
    if run.fit.is_none() {
        return score;
    }
    if run.errors.iter().flatten().any(|e| !e.is_finite()) {
        score.error = Some(
            "its prediction is undefined (not finite) at a held-out run of a rolling origin".into(),
        );
        return score;
    }
    let mse = unit_mean(&run.errors, |e| e * e);
    score.score = Some(unit_mean(&run.errors, f64::abs));
    let space = candidate.settings.space;
    let are = unit_mean(&run.errors, |e| match space {
        Space::Log => e.exp_m1().abs(),
        Space::Linear => f64::NAN,
    });
    score.rmse = Some(mse.sqrt());
    score.are_mean = are.is_finite().then_some(are);
    if space == Space::Linear {
        score.are_mean = Some(linear_are(run, candidate, units));
    }
    score
}

/// Mean absolute relative error for linear residuals (the error is ŷ − y, so |e|/|y|).
fn linear_are(run: &CandidateRun, candidate: &Candidate, units: &Units) -> f64 {
    let target = &candidate.data.target;
    let relative: Vec<Vec<f64>> = run
        .errors
        .iter()
        .zip(&units.rows)
        .map(|(errors, rows)| {
            errors
                .iter()
                .zip(rows)
                .map(|(e, &row)| e / target[row])
                .collect()
        })
        .collect();
    unit_mean(&relative, f64::abs)
}

/// Standard errors of each eligible candidate's gap to the best, and whether it is within one.
fn mark_ties(
    scores: &mut [CandidateScore],
    runs: &[CandidateRun],
    units: &Units,
    eligible: &[usize],
    best: usize,
) {
    let best_units = unit_scores(&runs[best].errors);
    let origins = units.trained.len();
    for &k in eligible {
        // Per origin: the mean over its units of the gap, weighted as the score weights them.
        let mut per_origin = vec![0.0; origins];
        for ((gap, &o), _) in unit_scores(&runs[k].errors)
            .iter()
            .zip(&best_units)
            .map(|(a, b)| a - b)
            .zip(&units.origin)
            .zip(0..)
        {
            per_origin[o] += gap / units.count as f64;
        }
        let n = origins as f64;
        // The score gap is the sum of the per-origin terms; its se from their scatter.
        let mean = per_origin.iter().sum::<f64>() / n;
        let variance =
            per_origin.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
        scores[k].gap_se = Some(n * (variance / n).sqrt());
    }
    let tolerance = score_se(&best_units, units);
    for &k in eligible {
        let gap = scores[k].score.unwrap() - scores[best].score.unwrap();
        scores[k].tied_with_best = k == best || gap <= tolerance;
    }
    scores[best].score_se = Some(tolerance);
}

/// Standard error of a score over the rolling origins. The score is Σₒ wₒ·mₒ, the per-origin
/// mean unit errors mₒ weighted by their share of units wₒ; its variance is estimated from the
/// origins' scatter, Var ≈ O/(O−1) · Σₒ wₒ² (mₒ − score)².
fn score_se(unit_scores: &[f64], units: &Units) -> f64 {
    let origins = units.trained.len();
    let mut sums = vec![0.0; origins];
    let mut counts = vec![0usize; origins];
    for (value, &o) in unit_scores.iter().zip(&units.origin) {
        sums[o] += value;
        counts[o] += 1;
    }
    let total = units.count as f64;
    let score: f64 = sums.iter().sum::<f64>() / total;
    let n = origins as f64;
    let spread: f64 = sums
        .iter()
        .zip(&counts)
        .filter(|(_, &c)| c > 0)
        .map(|(s, &c)| {
            let share = c as f64 / total;
            (share * (s / c as f64 - score)).powi(2)
        })
        .sum();
    (spread * n / (n - 1.0).max(1.0)).sqrt()
}

/// Among the candidates tied with the best, the lowest BIC when every tied candidate has one,
/// else the fewest free parameters (then the lowest score).
fn one_standard_error_winner(scores: &[CandidateScore], eligible: &[usize]) -> usize {
    let tied: Vec<usize> = eligible
        .iter()
        .copied()
        .filter(|&k| scores[k].tied_with_best)
        .collect();
    let by_bic = tied.iter().all(|&k| scores[k].bic.is_some());
    *tied
        .iter()
        .min_by(|&&a, &&b| {
            let first = if by_bic {
                scores[a].bic.unwrap().total_cmp(&scores[b].bic.unwrap())
            } else {
                scores[a].free_params.cmp(&scores[b].free_params)
            };
            first.then(
                scores[a]
                    .score
                    .unwrap()
                    .total_cmp(&scores[b].score.unwrap()),
            )
        })
        .expect("the best candidate is tied with itself")
}

/// Stacking weights of the eligible candidates: the point a of the simplex that minimises the
/// score of the combined prediction, the mean over units of the unit's mean |Σ aₖ eₖ|, found by
/// iteratively reweighted least squares (each step a quadratic on the simplex with row weights
/// 1/|combined error|; Schlossmacher 1973), so that the weights minimise the very score the
/// candidates are ranked by.
fn stacking_weights(runs: &[CandidateRun], eligible: &[usize]) -> Vec<f64> {
    let k = eligible.len();
    let errors: Vec<&Vec<Vec<f64>>> = eligible.iter().map(|&j| &runs[j].errors).collect();
    let units = errors[0].len();
    let scale = errors.iter().map(|e| unit_mean(e, f64::abs)).sum::<f64>() / k as f64;
    if !(scale > 0.0 && scale.is_finite()) {
        return vec![1.0 / k as f64; k];
    }
    let mut weights = vec![1.0 / k as f64; k];
    for _ in 0..IRLS_ITERATIONS {
        let mut m = vec![vec![0.0; k]; k];
        for u in 0..units {
            let rows = errors[0][u].len();
            for r in 0..rows {
                let combined: f64 = (0..k).map(|a| weights[a] * errors[a][u][r]).sum();
                let omega = 1.0 / (rows as f64 * combined.abs().max(1e-6 * scale));
                for a in 0..k {
                    for b in 0..k {
                        m[a][b] += omega * errors[a][u][r] * errors[b][u][r];
                    }
                }
            }
        }
        let next = quadratic_on_simplex(&m, &weights);
        let moved = next
            .iter()
            .zip(&weights)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        weights = next;
        if moved < 1e-10 {
            break;
        }
    }
    // The reweighting can stall on ill-conditioned errors: keep the best of its result and
    // every single law (a vertex of the simplex).
    let combined_score = |w: &[f64]| {
        let combined: Vec<Vec<f64>> = (0..units)
            .map(|u| {
                (0..errors[0][u].len())
                    .map(|r| (0..k).map(|a| w[a] * errors[a][u][r]).sum())
                    .collect()
            })
            .collect();
        unit_mean(&combined, f64::abs)
    };
    let mut best = (combined_score(&weights), weights);
    for a in 0..k {
        let mut vertex = vec![0.0; k];
        vertex[a] = 1.0;
        let score = combined_score(&vertex);
        if score < best.0 {
            best = (score, vertex);
        }
    }
    best.1
}

/// Reweighting steps of the stacking solve.
const IRLS_ITERATIONS: usize = 100;

/// argmin aᵀMa on the simplex by projected gradient descent from `start`.
fn quadratic_on_simplex(m: &[Vec<f64>], start: &[f64]) -> Vec<f64> {
    let k = start.len();
    let lipschitz = 2.0
        * m.iter()
            .map(|row| row.iter().map(|v| v.abs()).sum::<f64>())
            .fold(0.0, f64::max);
    if !(lipschitz > 0.0 && lipschitz.is_finite()) {
        return start.to_vec();
    }
    let mut weights = start.to_vec();
    for _ in 0..STACKING_ITERATIONS {
        let step: Vec<f64> = (0..k)
            .map(|a| {
                let gradient = 2.0 * (0..k).map(|b| m[a][b] * weights[b]).sum::<f64>();
                weights[a] - gradient / lipschitz
            })
            .collect();
        let next = project_to_simplex(&step);
        let moved = next
            .iter()
            .zip(&weights)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        weights = next;
        if moved < 1e-15 {
            break;
        }
    }
    weights
}

/// Euclidean projection onto the probability simplex (Duchi, Shalev-Shwartz, Singer & Chandra
/// 2008, "Efficient projections onto the l1-ball", Fig. 1).
fn project_to_simplex(v: &[f64]) -> Vec<f64> {
    let mut sorted = v.to_vec();
    sorted.sort_by(|a, b| b.total_cmp(a));
    let mut running = 0.0;
    let mut theta = 0.0;
    for (i, &u) in sorted.iter().enumerate() {
        running += u;
        let t = (running - 1.0) / (i as f64 + 1.0);
        if u - t > 0.0 {
            theta = t;
        }
    }
    v.iter().map(|x| (x - theta).max(0.0)).collect()
}

fn reasons(scores: &[CandidateScore]) -> Text {
    let reasons = scores.iter().map(|s| {
        let error = s.error.clone().unwrap_or_else(|| "not scored".into());
        error.after(format!("{}: ", s.label))
    });
    Text::join(reasons, "; ")
}

/// Held-out scores of one way of predicting (a candidate, the winner, the average) over the
/// outer splits of the nested check (`check`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HeldOutScore {
    /// The candidate's label, or `winner` or `average`.
    pub label: String,
    /// Held-out runs scored.
    pub points: usize,
    /// (outer origin, scale group) units scored.
    pub units: usize,
    /// Unit-weighted mean absolute relative error (None when a prediction was undefined at a
    /// held-out run).
    pub are_mean: Option<f64>,
    /// Unit-weighted root mean squared error in the fitted space (None as `are_mean`).
    pub rmse: Option<f64>,
    /// Unit-weighted share of held-out runs inside the prediction interval.
    pub pi_coverage: Option<f64>,
    /// Unit-weighted mean relative width (hi − lo)/ŷ of the prediction intervals.
    pub pi_width: Option<f64>,
}

/// One outer split of the nested check (`check`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EvaluationSplit {
    /// Scale groups the split trained on.
    pub trained_groups: usize,
    /// The largest scale of the training rows.
    pub trained_up_to: f64,
    /// Rows the selection was trained on.
    pub train_rows: usize,
    /// Rows held out and scored.
    pub test_rows: usize,
    /// The candidate the inner selection picked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub winner: Option<String>,
    /// The inner stacking weights, by label.
    #[serde(with = "crate::fit::result::ordered")]
    #[schemars(with = "BTreeMap<String, f64>")]
    pub weights: Vec<(String, f64)>,
    /// Why the split failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Text>,
}

/// The selection procedure checked out of sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Evaluation {
    /// The intervals' level (e.g. 0.95).
    pub level: f64,
    /// The outer splits.
    pub splits: Vec<EvaluationSplit>,
    /// Each candidate's held-out scores.
    pub candidates: Vec<HeldOutScore>,
    /// The scores of predicting with each split's winner.
    pub winner: HeldOutScore,
    /// The scores of predicting with each split's stacked average.
    pub average: HeldOutScore,
}

/// Per scorer, per unit: (|relative error|, squared fitted error, covered, relative width).
type UnitRecords = Vec<Vec<(f64, f64, Option<bool>, Option<f64>)>>;

/// Nested rolling-origin check of [`select`]: at each outer origin the candidates are selected,
/// weighted and calibrated on the training runs only, and every held-out run beyond the origin
/// scores each candidate, the winner and the stacked average.
pub fn evaluate(
    candidates: &[Candidate],
    by: &str,
    scale: &[f64],
    options: &SelectionOptions,
) -> Result<Evaluation> {
    check_options(options)?;
    check_candidates(candidates, scale)?;
    let (groups, count) = scale_groups(scale);
    let sizes = origin_sizes(count, options.origins);
    // The largest outer training set (all but the last group) must itself hold 2 origins.
    if sizes.is_empty() || origin_sizes(count - 1, options.origins).len() < 2 {
        return Err(Error::settings(format!(
            "the data form {count} scale groups; checking a selection by nested rolling origins needs at least {}",
            MIN_GROUPS + 1
        )));
    }
    let scorers = candidates.len() + 2;
    let mut records: Vec<UnitRecords> = vec![Vec::new(); scorers];
    let mut splits = Vec::with_capacity(sizes.len());
    for size in sizes {
        let train: Vec<usize> = (0..scale.len()).filter(|&i| groups[i] < size).collect();
        let test: Vec<usize> = (0..scale.len()).filter(|&i| groups[i] >= size).collect();
        let split = outer_split(candidates, by, scale, options, (&train, &test), &groups);
        match split {
            Ok((info, found)) => {
                for (all, mut new) in records.iter_mut().zip(found) {
                    all.append(&mut new);
                }
                splits.push(info.with(size, scale, &train, &test));
            }
            Err(error) => splits.push(
                EvaluationSplit {
                    winner: None,
                    weights: Vec::new(),
                    error: Some(error.text()),
                    ..EvaluationSplit::empty()
                }
                .with(size, scale, &train, &test),
            ),
        }
    }
    interrupted(candidates)?;
    if splits.iter().all(|s| s.error.is_some()) {
        let reasons = distinct_reasons(splits.iter().filter_map(|s| s.error.as_ref()));
        return Err(Error::fit(
            reasons.after("no outer split could run a selection: "),
        ));
    }
    let mut labels: Vec<String> = candidates.iter().map(|c| c.label.clone()).collect();
    labels.push("winner".into());
    labels.push("average".into());
    let mut scores: Vec<HeldOutScore> = labels
        .into_iter()
        .zip(&records)
        .map(|(label, units)| held_out_score(label, units))
        .collect();
    let average = scores.pop().expect("the average's score");
    let winner = scores.pop().expect("the winner's score");
    Ok(Evaluation {
        level: options.level,
        splits,
        candidates: scores,
        winner,
        average,
    })
}

/// The distinct `reasons`, in first-seen order, each with how many splits gave it when more
/// than one: 40 splits failing alike read as one reason, not 40.
fn distinct_reasons<'a>(reasons: impl Iterator<Item = &'a Text>) -> Text {
    let mut counted: Vec<(&Text, usize)> = Vec::new();
    for reason in reasons {
        match counted.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => counted.push((reason, 1)),
        }
    }
    let worded = counted.into_iter().map(|(r, n)| match n {
        1 => r.clone(),
        _ => r.clone().around("", format!(" (in {n} splits)")),
    });
    Text::join(worded, "; ")
}

impl EvaluationSplit {
    fn empty() -> EvaluationSplit {
        EvaluationSplit {
            trained_groups: 0,
            trained_up_to: f64::NAN,
            train_rows: 0,
            test_rows: 0,
            winner: None,
            weights: Vec::new(),
            error: None,
        }
    }

    fn with(mut self, size: usize, scale: &[f64], train: &[usize], test: &[usize]) -> Self {
        self.trained_groups = size;
        self.trained_up_to = train.iter().map(|&i| scale[i]).fold(f64::NAN, f64::max);
        self.train_rows = train.len();
        self.test_rows = test.len();
        self
    }
}

/// Selection on `train`, scored on `test`: the split's summary and per-scorer unit records.
fn outer_split(
    candidates: &[Candidate],
    by: &str,
    scale: &[f64],
    options: &SelectionOptions,
    (train, test): (&[usize], &[usize]),
    groups: &[usize],
) -> Result<(EvaluationSplit, Vec<UnitRecords>)> {
    let trained: Vec<Candidate> = candidates
        .iter()
        .map(|c| Candidate {
            data: c.data.subset(train),
            ..c.clone()
        })
        .collect();
    let train_scale: Vec<f64> = train.iter().map(|&i| scale[i]).collect();
    let selection = select(&trained, by, &train_scale, options)?;
    let points: Vec<Vec<Vec<f64>>> = candidates
        .iter()
        .map(|c| {
            test.iter()
                .map(|&i| c.data.variables.iter().map(|v| v[i]).collect())
                .collect()
        })
        .collect();
    let predictions = selection.predict(&points)?;
    let space = candidates[0].settings.space;
    let target = &candidates[0].data.target;
    let mut by_group: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (position, &row) in test.iter().enumerate() {
        by_group.entry(groups[row]).or_default().push(position);
    }
    let mut records: Vec<UnitRecords> = vec![Vec::new(); candidates.len() + 2];
    // Every way of predicting is scored on the same runs: a law the split could not score
    // leaves the split out for all (and is named).
    let missing: Vec<String> = selection
        .candidates
        .iter()
        .filter(|c| c.score.is_none())
        .map(|c| match &c.error {
            Some(why) => format!("{} ({why})", c.label),
            None => c.label.clone(),
        })
        .collect();
    if !missing.is_empty() {
        return Err(Error::fit(format!(
            "{} could not be scored on this split's training runs",
            missing.join(", ")
        )));
    }
    for members in by_group.values() {
        for (scorer, unit) in records.iter_mut().enumerate() {
            let found: Vec<_> = members
                .iter()
                .filter_map(|&p| {
                    let (value, pi) = scorer_prediction(&predictions[p], scorer, candidates)?;
                    Some(record(value, pi, target[test[p]], space))
                })
                .collect();
            if !found.is_empty() {
                unit.push(found);
            }
        }
    }
    let info = EvaluationSplit {
        winner: Some(selection.winner.clone()),
        weights: selection
            .candidates
            .iter()
            .map(|c| (c.label.clone(), c.weight))
            .collect(),
        ..EvaluationSplit::empty()
    };
    Ok((info, records))
}

/// The value and interval of scorer `scorer` (a candidate, then the winner, then the average).
fn scorer_prediction(
    prediction: &SelectedPrediction,
    scorer: usize,
    candidates: &[Candidate],
) -> Option<(f64, Option<[f64; 2]>)> {
    if scorer < candidates.len() {
        let label = &candidates[scorer].label;
        let law = prediction.laws.iter().find(|l| &l.label == label)?;
        return Some((law.prediction.value, law.prediction.pi));
    }
    if scorer == candidates.len() {
        return Some((
            prediction.winner.prediction.value,
            prediction.winner.prediction.pi,
        ));
    }
    Some((prediction.value, prediction.pi))
}

fn record(
    value: f64,
    pi: Option<[f64; 2]>,
    actual: f64,
    space: Space,
) -> (f64, f64, Option<bool>, Option<f64>) {
    let relative = ((value - actual) / actual).abs();
    let fitted = forward(space, value) - forward(space, actual);
    let covered = pi.map(|[lo, hi]| lo <= actual && actual <= hi);
    let width = pi.map(|[lo, hi]| (hi - lo) / value.abs());
    (relative, fitted * fitted, covered, width)
}

fn held_out_score(label: String, units: &UnitRecords) -> HeldOutScore {
    let mean_of = |f: &dyn Fn(&(f64, f64, Option<bool>, Option<f64>)) -> Option<f64>| {
        let per_unit: Vec<f64> = units
            .iter()
            .filter_map(|unit| {
                let values: Vec<f64> = unit.iter().filter_map(f).collect();
                (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
            })
            .collect();
        (!per_unit.is_empty()).then(|| per_unit.iter().sum::<f64>() / per_unit.len() as f64)
    };
    // An undefined prediction leaves no honest error: no score rather than one without it.
    let finite = units
        .iter()
        .flatten()
        .all(|r| r.0.is_finite() && r.1.is_finite());
    HeldOutScore {
        label,
        points: units.iter().map(Vec::len).sum(),
        units: units.len(),
        are_mean: finite.then(|| mean_of(&|r| Some(r.0))).flatten(),
        rmse: finite
            .then(|| mean_of(&|r| Some(r.1)))
            .flatten()
            .map(f64::sqrt),
        pi_coverage: mean_of(&|r| r.2.map(|c| if c { 1.0 } else { 0.0 })),
        pi_width: mean_of(&|r| r.3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simplex_projection_keeps_the_sum_and_signs() {
        let p = project_to_simplex(&[0.9, 0.6, -0.2]);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(p.iter().all(|v| *v >= 0.0));
        assert!(
            (p[0] - 0.65).abs() < 1e-12 && (p[1] - 0.35).abs() < 1e-12,
            "{p:?}"
        );
        let inside = project_to_simplex(&[0.2, 0.8]);
        assert!((inside[0] - 0.2).abs() < 1e-12);
    }
}
