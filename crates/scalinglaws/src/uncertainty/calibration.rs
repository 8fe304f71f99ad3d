//! Prediction intervals calibrated where they are used: beyond the data.
//!
//! A fit's own prediction interval (parameter uncertainty plus the residual scatter σ̂) ignores
//! the error of the law's *form*, which grows with the distance of the extrapolation and is
//! shared by every run at one scale. This module measures what the user's own data say of it by
//! rolling-origin backtests (Tashman 2000, "Out-of-sample tests of forecasting accuracy";
//! Hyndman & Athanasopoulos, *Forecasting: Principles and Practice*, §5.10 "time series
//! cross-validation", with scale in the role of time): fit on the scales up to an origin,
//! predict every run beyond it, for several origins ([`calibration_origins`], from three scale
//! groups on), each (origin, scale group) weighing one in total whatever its number of runs (a
//! budget with 20 runs is one observation of the form error, not twenty). Those scores update
//! the cross-study prior ([`super::prior`]), and a new point's interval is the posterior
//! predictive of its error at its signed distance from the fitted range, in decades of the
//! law's own scale ([`ScaleRule::of_law`]: 6·N·D, or its one variable), beyond the largest fitted
//! run or below the smallest; inside the data the fit's own interval stands. Each prediction
//! carries its [`Regime`].
//!
//! Fit files written before the prior carry the conformal widening of that time,
//! sd² = sd_fit² + (τ·d^g)² with g = [`GROWTH`] and τ the weighted split-conformal quantile
//! (Vovk, Gammerman & Shafer 2005; Lei et al. 2018) of the scores √(max(0, (e/z)² − sd²))/d^g;
//! [`Calibration::widen_at_level`] still reads them that way ([`Regime::Backtests`]).

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::intervals::{forward, predict_fit_intervals_of, IntervalSource, PointPrediction};
pub use super::prediction::{regime_name, Regime, OWN_BLENDED, OWN_DOMINATES};
pub(crate) use super::prior::weighted_quantile;
use super::prior::Point;
use super::widening::SCORE_VALUES;
pub use super::widening::{tau_quantile, Calibration, CalibrationOrigin, PriorUpdate, Score};
use super::FitRecord;
use crate::error::{Error, Result};
pub use crate::fit::ScaleRule;
use crate::fit::{fit, FitData, FitSettings, Space};
use crate::law::Law;
use crate::stats::normal_quantile;

/// Fewest distinct scale groups a calibration runs on.
pub const MIN_GROUPS: usize = 5;
/// Fewest (origin, scale group) units a calibration is computed from.
pub const MIN_UNITS: usize = 6;
/// Exponent of the form error's growth with decades of extrapolation, sd_form = τ·d^GROWTH.
/// 1 (linear) over-covered at 100× in the synthetic studies of tests/integration/extrapolation.rs (2.2× the
/// oracle width with a misspecified law, 1.37× the fit's own width with a well-specified one);
/// 1/2 stays within 2× and 1.3× there while giving the same coverage on the real backtests.
pub const GROWTH: f64 = 0.5;
/// Rolling origins by default.
pub const DEFAULT_ORIGINS: usize = 5;
/// Scales closer than this (in decades) to the previous one belong to its group.
pub const GROUP_GAP_DECADES: f64 = 0.1;
/// A group spans at most this many decades.
pub const GROUP_SPAN_DECADES: f64 = 0.25;

#[derive(Debug, Clone, PartialEq)]
pub struct CalibrationOptions {
    /// Level of the intervals being calibrated.
    pub level: f64,
    /// Most rolling origins.
    pub origins: usize,
}

impl Default for CalibrationOptions {
    fn default() -> Self {
        CalibrationOptions {
            level: crate::uncertainty::DEFAULT_LEVEL,
            origins: DEFAULT_ORIGINS,
        }
    }
}

/// What a command's prediction intervals are, for its output: their level, where the fit's
/// own intervals come from, and whether (by which method) they were calibrated beyond the data,
/// or why not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct IntervalNote {
    /// The intervals' level (e.g. 0.95).
    pub level: f64,
    /// Where the fit's own intervals (`ci`, `pi_fit`) come from.
    pub source: IntervalSource,
    /// Whether `pi` is widened beyond the data by a calibration.
    pub calibrated: bool,
    /// The calibration's method and scale column (None: the fit carries no calibration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The column scale is measured by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// Why `pi` is not calibrated, when it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// One sentence: the calibration described (`Calibration::describe`), or why there is
    /// no calibration.
    pub description: String,
}

/// Why a fit without a calibration has none.
pub const NO_CALIBRATION: &str =
    "no calibration was computed for this fit (calibration was turned off, or the fit predates it)";

impl IntervalNote {
    /// The note for intervals at `level` from `result` (whose own intervals came from `source`).
    pub fn of(result: &FitRecord, source: IntervalSource, level: f64) -> IntervalNote {
        match &result.calibration {
            Some(c) => IntervalNote {
                level,
                source,
                calibrated: c.calibrated,
                method: Some(c.method.clone()),
                by: Some(c.by.clone()),
                reason: c.reason.clone(),
                description: c.describe(),
            },
            None => IntervalNote {
                level,
                source,
                calibrated: false,
                method: None,
                by: None,
                reason: Some(NO_CALIBRATION.into()),
                description: format!("not calibrated beyond the data: {NO_CALIBRATION}"),
            },
        }
    }
}

/// Group id (0, 1, ... in increasing scale) of every row: sorted scales are chained while the
/// gap to the previous one is below [`GROUP_GAP_DECADES`] and the group's span stays below
/// [`GROUP_SPAN_DECADES`]. Digitised IsoFLOP budgets (scatter of a few percent) become one
/// group each; a continuous sweep is cut into quarter-decade groups.
pub fn scale_groups(scale: &[f64]) -> (Vec<usize>, usize) {
    // (scale, row), sorted in parallel by both: a total order, so the same at any thread count
    // (a million rows sorted through an index took a quarter of a second).
    let mut order: Vec<(f64, usize)> = scale.iter().copied().zip(0..).collect();
    order.par_sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut groups = vec![0; scale.len()];
    let mut group = 0;
    let mut first = f64::NAN;
    let mut previous = f64::NAN;
    for (rank, &(value, row)) in order.iter().enumerate() {
        let s = value.log10();
        if rank > 0 && (s - previous > GROUP_GAP_DECADES || s - first > GROUP_SPAN_DECADES) {
            group += 1;
            first = s;
        }
        if rank == 0 {
            first = s;
        }
        previous = s;
        groups[row] = group;
    }
    (groups, if scale.is_empty() { 0 } else { group + 1 })
}

/// Training-group counts of the rolling origins among `groups` scale groups: from about half
/// of them (at least 3) to all but the last, evenly spaced, at most `most`.
pub fn origin_sizes(groups: usize, most: usize) -> Vec<usize> {
    if groups < MIN_GROUPS || most == 0 {
        return Vec::new();
    }
    let first = groups.div_ceil(2).max(3);
    let last = groups - 1;
    if first > last {
        return Vec::new();
    }
    let count = most.min(last - first + 1);
    let mut sizes: Vec<usize> = (0..count)
        .map(|i| {
            if count == 1 {
                last
            } else {
                first + (i * (last - first) + (count - 1) / 2) / (count - 1)
            }
        })
        .collect();
    sizes.dedup();
    sizes
}

/// Calibrates prediction intervals of `law` fitted to `data` beyond the largest `scale`.
/// Data that cannot be calibrated give a calibration with `calibrated: false` and a reason;
/// only bad settings are errors.
pub fn calibrate(
    law: &Law,
    data: &FitData,
    by: &str,
    scale: &[f64],
    settings: &FitSettings,
    options: &CalibrationOptions,
) -> Result<Calibration> {
    calibrated(law, data, by, scale, settings, options, Keep::Scores).map(|(c, _)| c)
}

/// The held-out predictions of one rolling origin: the rows beyond it and their predictions
/// in the fitted space (NaN where the law is undefined), so that law selection
/// (`analysis::selection`) scores laws on the very fits that calibrate them.
#[derive(Debug, Clone, PartialEq)]
pub struct OriginPredictions {
    /// Scale groups the origin trained on.
    pub trained_groups: usize,
    pub rows: Vec<usize>,
    pub predicted: Vec<f64>,
}

/// [`calibrate`], also returning every successful origin's held-out predictions.
pub fn calibrate_with_predictions(
    law: &Law,
    data: &FitData,
    by: &str,
    scale: &[f64],
    settings: &FitSettings,
    options: &CalibrationOptions,
) -> Result<(Calibration, Vec<OriginPredictions>)> {
    calibrated(law, data, by, scale, settings, options, Keep::Predictions)
}

/// What a rolling origin keeps of its held-out rows besides their scores: the rows and their
/// predictions (law selection), or nothing (a fit's calibration: a million held-out rows
/// would hold 15 MB of them for nothing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keep {
    Scores,
    Predictions,
}

/// [`calibrate_with_predictions`], the held-out predictions kept as `keep` says.
fn calibrated(
    law: &Law,
    data: &FitData,
    by: &str,
    scale: &[f64],
    settings: &FitSettings,
    options: &CalibrationOptions,
    keep: Keep,
) -> Result<(Calibration, Vec<OriginPredictions>)> {
    super::check_level(options.level)?;
    let mut calibration = blank(by, options.level);
    // A refused calibration still says where the data end (a saved fit holds no NaN).
    calibration.largest_scale = scale.iter().copied().fold(f64::NAN, f64::max);
    if !calibration.largest_scale.is_finite() {
        calibration.largest_scale = 0.0;
    }
    let scored = match scores_kept(law, data, by, scale, settings, options, keep)? {
        Scored::Refused(reason) => {
            calibration.reason = Some(reason);
            return Ok((calibration, Vec::new()));
        }
        Scored::Done(scored) => scored,
    };
    calibration.rule = scored.rule.clone();
    calibration.largest_scale = scored.largest_scale;
    calibration.smallest_scale = Some(scored.smallest_scale);
    calibration.scale_groups = scored.scale_groups;
    calibration.origins = scored.origins;
    let z = normal_quantile(0.5 + options.level / 2.0);
    finish(&mut calibration, scored.scores, options.level, z);
    Ok((calibration, scored.held_out))
}

/// A calibration that has not run yet (nothing widened).
fn blank(by: &str, level: f64) -> Calibration {
    Calibration {
        method: "cross-study prior on the law's form error beyond the data, updated by the fit's rolling-origin backtests (one unit per (origin, scale group)); d = decades beyond the largest or below the smallest fitted run in the law's own scale".into(),
        by: by.into(),
        rule: None,
        level,
        largest_scale: f64::NAN,
        scale_groups: 0,
        calibrated: false,
        reason: None,
        tau_per_decade: 0.0,
        growth: GROWTH,
        origins: Vec::new(),
        held_out: 0,
        units: 0,
        max_distance_decades: 0.0,
        coverage_fit: None,
        coverage_calibrated: None,
        scores: Vec::new(),
        smallest_scale: None,
        prior: None,
    }
}

/// What the rolling origins of a fit's own data measured: every held-out run's score in the
/// fitted space, distances in the law's own scale ([`ScaleRule::of_law`]).
#[derive(Debug, Clone)]
pub struct BacktestScores {
    /// How a point's scale is computed from the law's variables (None: only from the column).
    pub rule: Option<ScaleRule>,
    /// Smallest and largest scale of the data, in the rule's units.
    pub smallest_scale: f64,
    pub largest_scale: f64,
    /// Distinct scale groups of the ordering column.
    pub scale_groups: usize,
    pub origins: Vec<CalibrationOrigin>,
    pub scores: Vec<Score>,
    pub held_out: Vec<OriginPredictions>,
}

/// Why no scores could be computed, or the scores.
#[derive(Debug, Clone)]
pub enum Scored {
    Refused(String),
    Done(BacktestScores),
}

/// Rolling-origin backtests of `law` on `data` ordered by `scale` (the column `by`): fit the
/// smallest scale groups, predict the rest, for each origin of [`calibration_origins`].
/// Distances are decades beyond the origin's largest training run in the law's own scale
/// when the law defines one (6·N·D, or its one variable), else in the column's.
pub fn backtest_scores(
    law: &Law,
    data: &FitData,
    by: &str,
    scale: &[f64],
    settings: &FitSettings,
    options: &CalibrationOptions,
) -> Result<Scored> {
    scores_kept(law, data, by, scale, settings, options, Keep::Predictions)
}

/// [`backtest_scores`], the held-out predictions kept as `keep` says.
fn scores_kept(
    law: &Law,
    data: &FitData,
    by: &str,
    scale: &[f64],
    settings: &FitSettings,
    options: &CalibrationOptions,
    keep: Keep,
) -> Result<Scored> {
    if scale.len() != data.target.len() {
        return Err(Error::settings(format!(
            "the scale column has {} values for {} rows",
            scale.len(),
            data.target.len()
        )));
    }
    if let Some(reason) = refusal(law, data, by, scale, settings) {
        return Ok(Scored::Refused(reason));
    }
    let rule = ScaleRule::of_law(law).or_else(|| ScaleRule::infer(law, data, by, scale));
    // Collected from a slice, not in place: the 16-byte options' buffer would stay twice the size.
    let distance_scale: Vec<f64> = match &rule {
        Some(rule) => rule
            .of_rows(law, data)
            .iter()
            .map(|s| s.unwrap_or(f64::NAN))
            .collect(),
        None => scale.to_vec(),
    };
    if let Some(row) = distance_scale
        .iter()
        .position(|s| !(s.is_finite() && *s > 0.0))
    {
        return Ok(Scored::Refused(format!(
            "the law's scale ({}) is not a positive number at row {}",
            rule.as_ref().map_or(by.to_string(), ScaleRule::describe),
            row + 1
        )));
    }
    let (groups, count) = scale_groups(scale);
    let mut scored = BacktestScores {
        rule,
        smallest_scale: distance_scale.iter().copied().fold(f64::INFINITY, f64::min),
        largest_scale: distance_scale
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max),
        scale_groups: count,
        origins: Vec::new(),
        scores: Vec::new(),
        held_out: Vec::new(),
    };
    let backtest = Backtest {
        law,
        data,
        settings,
        options,
        order: &groups,
        distance: &distance_scale,
    };
    backtest.run(
        calibration_origins(count, options.origins),
        keep,
        &mut scored,
    );
    // An origin whose fit was interrupted reads as failed: refuse the whole calibration.
    settings.interrupt.check()?;
    Ok(Scored::Done(scored))
}

/// Why the data cannot be scored at all (a family that is not location-scale, a scale that is
/// not positive), or None.
fn refusal(
    law: &Law,
    data: &FitData,
    by: &str,
    scale: &[f64],
    settings: &FitSettings,
) -> Option<String> {
    let _ = (law, data);
    if let Some(family) = settings.family.filter(|f| !f.kind.location_scale()) {
        // The widening adds a variance in the fitted space to a location-scale error; a count
        // or a proportion has the family's own variance, which that rule does not model.
        return Some(format!(
            "the {} family's prediction intervals are its own distribution at the fit's trials or exposure, mixed over the parameters' uncertainty, and are not widened beyond the data: the rolling-origin widening models a location-scale error",
            family.kind.name()
        ));
    }
    let row = scale.iter().position(|s| !(s.is_finite() && *s > 0.0))?;
    Some(format!(
        "the scale '{by}' is not a positive number at row {}: {}",
        row + 1,
        scale[row]
    ))
}

/// Training-group counts of the calibration's rolling origins among `groups` scale groups:
/// [`origin_sizes`] from [`MIN_GROUPS`] groups on; with 3 or 4 groups, every count from 2 to
/// all but the last (a short hop from two groups still says something about the law's form,
/// and the cross-study prior weighs it by how little it says).
pub fn calibration_origins(groups: usize, most: usize) -> Vec<usize> {
    if groups >= MIN_GROUPS || most == 0 {
        return origin_sizes(groups, most);
    }
    if groups < 3 {
        return Vec::new();
    }
    (2..groups).rev().take(most).rev().collect()
}

/// The rolling origins' common ground: the law, the data and the settings, each row's scale
/// group (`order`) and the scale distances are measured in.
struct Backtest<'a> {
    law: &'a Law,
    data: &'a FitData,
    settings: &'a FitSettings,
    options: &'a CalibrationOptions,
    order: &'a [usize],
    distance: &'a [f64],
}

/// An origin's fit, and what each of its scores carries of it.
struct Fitted {
    record: FitRecord,
    at_bound: bool,
    /// Decades the training rows span, and their largest scale.
    span: f64,
    trained_up_to: f64,
}

impl Backtest<'_> {
    /// Scores the origins that train on `sizes` scale groups into `scored`, keeping their
    /// held-out predictions as `keep` says. Every origin is fitted before any is scored: a
    /// fit's working memory and a million held-out rows' scores are never held at once, and
    /// the scores get their room at once.
    fn run(&self, sizes: Vec<usize>, keep: Keep, scored: &mut BacktestScores) {
        let fits: Vec<_> = sizes.iter().map(|&size| self.fit(size)).collect();
        scored
            .scores
            .reserve_exact(fits.iter().map(|(origin, _)| origin.held_out).sum());
        for (size, (mut origin, fitted)) in sizes.into_iter().zip(fits) {
            let before = scored.scores.len();
            match fitted.and_then(|fitted| self.score(size, &fitted, &mut scored.scores)) {
                Ok(predictions) => {
                    if scored.scores.len() == before {
                        origin.error = Some("the training fit gave no prediction intervals".into());
                    }
                    if keep == Keep::Predictions {
                        scored.held_out.push(predictions);
                    }
                }
                Err(error) => origin.error = Some(error.text()),
            }
            scored.origins.push(origin);
        }
    }

    /// The origin that trains on the smallest `size` scale groups, and its fit.
    fn fit(&self, size: usize) -> (CalibrationOrigin, Result<Fitted>) {
        let groups = self.order;
        let train: Vec<usize> = (0..groups.len()).filter(|&i| groups[i] < size).collect();
        let trained_up_to = train
            .iter()
            .map(|&i| self.distance[i])
            .fold(f64::NAN, f64::max);
        let origin = CalibrationOrigin {
            trained_up_to,
            train_rows: train.len(),
            held_out: groups.len() - train.len(),
            groups: groups.iter().copied().max().map_or(0, |g| g + 1) - size,
            error: None,
        };
        let span = span_of(&train, self.distance);
        let subset = self.data.subset(&train);
        drop(train); // 8 MB of row numbers at a million rows, not held through the fit
        let fitted = fit(self.law, &subset, self.settings).map(|result| Fitted {
            at_bound: result.params.iter().any(|(_, p)| p.at_bound),
            record: FitRecord::from(result),
            span,
            trained_up_to,
        });
        (origin, fitted)
    }

    /// Appends the scores of the rows beyond the smallest `size` scale groups, predicted by
    /// `fitted`, to `scores` (none when a prediction fails); their predictions.
    fn score(
        &self,
        size: usize,
        fitted: &Fitted,
        scores: &mut Vec<Score>,
    ) -> Result<OriginPredictions> {
        let groups = self.order;
        let test: Vec<usize> = (0..groups.len()).filter(|&i| groups[i] >= size).collect();
        let per_group = rows_per_group(&test, groups);
        let before = scores.len();
        let mut predicted = Vec::with_capacity(test.len());
        // Block by block (a few blocks in parallel at a time, joined in block order), so a
        // million held-out rows never hold a million points, or a second copy of their scores.
        for group in test.chunks(SCORE_BLOCK * BLOCKS_AT_ONCE) {
            let blocks = group
                .par_chunks(SCORE_BLOCK)
                .map(|block| self.score_block(block, fitted, &per_group))
                .collect::<Result<Vec<_>>>();
            let blocks = blocks.inspect_err(|_| scores.truncate(before))?;
            for (block_predicted, block_scores) in blocks {
                predicted.extend(block_predicted);
                scores.extend(block_scores);
            }
        }
        Ok(OriginPredictions {
            trained_groups: size,
            rows: test,
            predicted,
        })
    }

    /// The predictions of the held-out rows `block` in the fitted space, and their scores.
    fn score_block(
        &self,
        block: &[usize],
        fitted: &Fitted,
        per_group: &std::collections::BTreeMap<usize, usize>,
    ) -> Result<(Vec<f64>, Vec<Score>)> {
        let (level, space) = (self.options.level, self.settings.space);
        let z = normal_quantile(0.5 + level / 2.0);
        let points: Vec<Vec<f64>> = block
            .iter()
            .map(|&i| self.data.variables.iter().map(|c| c[i]).collect())
            .collect();
        let (predictions, _) = predict_fit_intervals_of(self.law, &fitted.record, &points, level)?;
        let mut predicted = Vec::with_capacity(block.len());
        let mut scores = Vec::new();
        for (&i, p) in block.iter().zip(&predictions) {
            predicted.push(forward(space, p.value));
            let weight = 1.0 / per_group[&self.order[i]] as f64;
            let ratio = self.distance[i] / fitted.trained_up_to;
            let score = score_of(p, self.data.target[i], ratio, weight, space, z);
            scores.extend(score.map(|s| Score {
                span: fitted.span,
                at_bound: fitted.at_bound,
                ..s
            }));
        }
        Ok((predicted, scores))
    }
}

/// The number of `rows` in each scale group.
fn rows_per_group(rows: &[usize], groups: &[usize]) -> std::collections::BTreeMap<usize, usize> {
    let mut per_group = std::collections::BTreeMap::new();
    for &i in rows {
        *per_group.entry(groups[i]).or_default() += 1;
    }
    per_group
}

/// Decades of `scale` that `rows` span.
fn span_of(rows: &[usize], scale: &[f64]) -> f64 {
    let values = rows.iter().map(|&i| scale[i]);
    let smallest = values.clone().fold(f64::INFINITY, f64::min);
    let largest = values.fold(f64::NEG_INFINITY, f64::max);
    (largest / smallest).log10()
}

/// Held-out rows predicted at a time while scoring an origin ...
const SCORE_BLOCK: usize = 1 << 14;
/// ... and blocks scored in parallel at a time.
const BLOCKS_AT_ONCE: usize = 8;

/// The score of one held-out row: its error and the fit's own sd in the fitted space, at
/// `ratio` = its scale over the training data's largest. None where the fit gives no interval
/// or the row is not beyond the training data.
fn score_of(
    p: &PointPrediction,
    target: f64,
    ratio: f64,
    weight: f64,
    space: Space,
    z: f64,
) -> Option<Score> {
    let [lo, hi] = p.pi?;
    let error = forward(space, p.value) - forward(space, target);
    let sd = (forward(space, hi) - forward(space, lo)) / (2.0 * z);
    let distance = ratio.log10();
    (error.is_finite() && sd.is_finite() && distance > 0.0).then_some(Score {
        error,
        sd,
        distance,
        weight,
        span: 0.0,
        at_bound: false,
        saved: SCORE_VALUES,
    })
}

/// Completes `calibration` from the scores: the cross-study prior updated by them (every
/// location-scale fit with a scale is calibrated: with no scores the prior governs), the share
/// of the scored runs inside the fit's own and the new intervals, and the counts.
fn finish(calibration: &mut Calibration, scores: Vec<Score>, level: f64, z: f64) {
    let scored: Vec<&CalibrationOrigin> = calibration
        .origins
        .iter()
        .filter(|o| o.error.is_none())
        .collect();
    calibration.held_out = scores.len();
    calibration.units = scored.iter().map(|o| o.groups).sum();
    calibration.max_distance_decades = scores.iter().map(|s| s.distance).fold(0.0, f64::max);
    let prior = super::prior::shipped();
    let posterior = prior.posterior_of(scores.iter().map(Score::observed));
    let span = match calibration.smallest_scale {
        Some(smallest) if smallest > 0.0 => (calibration.largest_scale / smallest).log10(),
        _ => 0.0,
    };
    let update = PriorUpdate {
        version: prior.version.clone(),
        studies: prior.provenance.studies.len(),
        model: prior.model,
        levels: prior.levels.clone(),
        evidence_weight: prior.evidence_weight,
        span,
        own_units: scores.iter().map(|s| s.weight).sum(),
        posterior,
    };
    let one_decade = Point {
        sd: 0.0,
        distance: 1.0,
        at_bound: false,
        span,
    };
    calibration.tau_per_decade =
        update.posterior.median_tau() * update.model.spread_at(&one_decade);
    calibration.growth = update.model.growth;
    let total: f64 = scores.iter().map(|s| s.weight).sum();
    if total > 0.0 {
        let share = |inside: &dyn Fn(&Score) -> bool| {
            scores
                .iter()
                .filter(|s| inside(s))
                .map(|s| s.weight)
                .sum::<f64>()
                / total
        };
        calibration.coverage_fit = Some(share(&|s| s.error.abs() <= z * s.sd));
        // Inside the central interval at the calibrated level L* exactly when the error's
        // central level is at most L*: one distribution function per run, not two quantiles
        // (a million held-out runs took 24 s by quantiles).
        let calibrated_level = update.levels.at(level);
        calibration.coverage_calibrated = Some(share(&|s| {
            let at = s.observed().at;
            update.posterior.central_level(&update.model, &at, s.error) <= calibrated_level
        }));
    }
    calibration.scores = scores;
    calibration.prior = Some(update);
    calibration.calibrated = true;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digitised_budgets_form_one_group_each() {
        let scale = [1.0e18, 1.05e18, 0.97e18, 3e18, 3.2e18, 1e19, 1e20];
        let (groups, count) = scale_groups(&scale);
        assert_eq!(count, 4);
        assert_eq!(groups, vec![0, 0, 0, 1, 1, 2, 3]);
    }

    #[test]
    fn a_continuous_sweep_is_cut_into_bounded_groups() {
        let scale: Vec<f64> = (0..100).map(|i| 10f64.powf(i as f64 * 0.01)).collect();
        let (_, count) = scale_groups(&scale);
        // One decade in steps of 0.01: groups span at most 0.25 decades.
        assert!((4..=5).contains(&count), "{count}");
    }

    #[test]
    fn origins_run_from_half_the_groups_to_all_but_one() {
        assert_eq!(origin_sizes(10, 5), vec![5, 6, 7, 8, 9]);
        assert_eq!(origin_sizes(5, 5), vec![3, 4]);
        assert_eq!(origin_sizes(20, 3), vec![10, 15, 19]);
        assert!(origin_sizes(4, 5).is_empty());
    }
}
