//! Backtests: does the law extrapolate? Fit on the smaller scales (ordered by a column such as
//! compute), predict the held-out larger ones, and score the predictions: per-point relative
//! errors, their mean and median absolute value (ARE), the RMSE of log residuals, and how often
//! the prediction (and confidence) intervals cover the held-out runs. A rollout repeats this at
//! every step of scale: fit up to a scale, predict the next; rolling origins predict every run
//! beyond each of several origins, and a calibrated backtest widens each split's intervals by a
//! calibration nested inside its training rows (`uncertainty::calibration`), so that the
//! measured coverage is honest.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::data::sweep::Frontier;
use crate::error::{Error, Mention, Result, Setting, Text};
use crate::fit::{fit, FitData, FitSettings, Space};
use crate::law::Law;
use crate::text;
use crate::uncertainty::bootstrap::attach;
use crate::uncertainty::calibration::{origin_sizes, scale_groups};
use crate::uncertainty::intervals::{predict_fit_intervals, PointPrediction};
use crate::uncertainty::FitRecord;
use crate::uncertainty::{
    bootstrap, calibrate, BootstrapOptions, CalibrationOptions, IntervalSource, Resampling,
};

/// Which rows are held out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Holdout {
    /// The rows at the K largest distinct values of the scale column.
    Top(usize),
    /// The largest fraction F of rows by scale (ties held out together).
    Fraction(f64),
    /// The distinct scales split into G groups by rank: fit on groups 1..i, predict group i+1.
    Rollout(usize),
    /// Rolling origins over scale groups (see `uncertainty::calibration::scale_groups`): fit on
    /// the groups up to an origin, predict every run beyond it, for at most K origins from
    /// half the groups to all but the last.
    Rolling(usize),
}

/// A rollout's groups of scales when none are given.
pub const DEFAULT_ROLLOUT_GROUPS: usize = 6;
/// Rolling origins' most origins when none are given.
pub const DEFAULT_ROLLING_ORIGINS: usize = 5;

impl Holdout {
    /// The one rule of each scheme's number: at least one scale held out, a fraction strictly
    /// between 0 and 1, a rollout over at least 2 groups, at least 1 rolling origin.
    pub fn check(&self) -> Result<()> {
        let refused = |setting: Setting, mention: Mention, rule: &str| {
            Err(Error::setting(setting, text![mention, format!(": {rule}")]))
        };
        match *self {
            Holdout::Top(0) => refused(
                Setting::HoldoutTop,
                Setting::HoldoutTop.number(0),
                "hold out at least 1 scale",
            ),
            Holdout::Fraction(f) if !(f > 0.0 && f < 1.0) => refused(
                Setting::HoldoutFrac,
                Setting::HoldoutFrac.number(f),
                "give a fraction strictly between 0 and 1, e.g. 0.2",
            ),
            Holdout::Rollout(g) if g < 2 => refused(
                Setting::Rollout,
                Setting::Rollout.number(g),
                "give at least 2 groups of scales",
            ),
            Holdout::Rolling(0) => refused(
                Setting::Rolling,
                Setting::Rolling.number(0),
                "give at least 1 origin",
            ),
            _ => Ok(()),
        }
    }

    /// The scheme of the one number given: the rows at the `top` largest scales, the largest
    /// `fraction` of rows, a `rollout` over groups or `rolling` origins (each checked by
    /// [`Holdout::check`]); none or several given are refused.
    pub fn one_of(
        top: Option<usize>,
        fraction: Option<f64>,
        rollout: Option<usize>,
        rolling: Option<usize>,
    ) -> Result<Holdout> {
        match (top, fraction, rollout, rolling) {
            (Some(k), None, None, None) => Ok(Holdout::Top(k)),
            (None, Some(f), None, None) => Ok(Holdout::Fraction(f)),
            (None, None, Some(g), None) => Ok(Holdout::Rollout(g)),
            (None, None, None, Some(k)) => Ok(Holdout::Rolling(k)),
            // No one setting is at fault: the error is the choice's.
            _ => Err(Error::settings(text![
                "say what to hold out: give exactly one of ",
                Setting::HoldoutTop,
                ", ",
                Setting::HoldoutFrac,
                ", ",
                Setting::Rollout,
                " and ",
                Setting::Rolling
            ])),
        }
    }

    /// Which scheme, as a value (its number is in [`Holdout::describe`]).
    pub fn scheme(&self) -> HoldoutScheme {
        match self {
            Holdout::Top(_) => HoldoutScheme::Top,
            Holdout::Fraction(_) => HoldoutScheme::Fraction,
            Holdout::Rollout(_) => HoldoutScheme::Rollout,
            Holdout::Rolling(_) => HoldoutScheme::Rolling,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Holdout::Top(k) => format!("the {k} largest scales"),
            Holdout::Fraction(f) => format!("the largest {:.0}% of rows", f * 100.0),
            Holdout::Rollout(g) => format!("rollout over {g} groups of scales"),
            Holdout::Rolling(k) => format!("every run beyond each of {k} rolling origins"),
        }
    }
}

/// How the rows were held out: the largest scales once (`top`, `fraction`), or step by step
/// (`rollout`, `rolling`: several splits, each training on the scales below its held-out ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HoldoutScheme {
    /// The rows at the K largest distinct scales.
    Top,
    /// The largest fraction of rows by scale.
    Fraction,
    /// Fit up to each group of scales, predict the next.
    Rollout,
    /// Fit up to each rolling origin, predict every run beyond it.
    Rolling,
}

impl HoldoutScheme {
    /// Whether the splits step through the scales (each split's runs are then summed up, not
    /// listed one by one).
    pub fn steps(self) -> bool {
        matches!(self, HoldoutScheme::Rollout | HoldoutScheme::Rolling)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct BacktestOptions {
    pub holdout: Holdout,
    /// Level of the intervals whose coverage is scored.
    pub level: f64,
    /// Bootstrap replicates per training fit (None: delta-method intervals).
    pub bootstrap: Option<usize>,
    /// Calibrate each training fit's prediction intervals by nested rolling-origin backtests
    /// on its own training rows only (never on the runs it is scored on).
    pub calibrate: Option<CalibrationOptions>,
    /// Seed of the training fits' bootstraps (the fits themselves are deterministic).
    pub seed: u64,
}

/// A held-out run and its prediction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BacktestPoint {
    /// Index of the row in the data given to the backtest.
    pub row: usize,
    /// Its value of the scale column.
    pub scale: f64,
    /// The observed value.
    pub actual: f64,
    /// The training fit's prediction.
    pub predicted: f64,
    /// Confidence interval of the mean there.
    pub ci: Option<[f64; 2]>,
    /// The prediction interval scored: calibrated when the backtest calibrates.
    pub pi: Option<[f64; 2]>,
    /// The training fit's own prediction interval (before any calibration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pi_fit: Option<[f64; 2]>,
    /// Decades beyond the training data.
    pub distance_decades: f64,
    /// Whether `pi` was widened by a calibration.
    #[serde(default)]
    pub calibrated: bool,
    /// (predicted − actual) / actual.
    pub relative_error: f64,
    /// ln predicted − ln actual (None unless both are positive).
    pub log_residual: Option<f64>,
}

/// Scores of a set of held-out predictions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "BacktestMetrics")]
pub struct Metrics {
    /// Held-out runs scored.
    pub points: usize,
    /// Mean absolute relative error.
    pub are_mean: f64,
    /// Median absolute relative error.
    pub are_median: f64,
    /// Largest absolute relative error.
    pub are_max: f64,
    /// Root mean square of the log residuals.
    pub rmse_log: Option<f64>,
    /// Mean signed relative error (> 0: the law over-predicts).
    pub bias: f64,
    /// Share of held-out runs inside their prediction interval (of those with one).
    pub pi_coverage: Option<f64>,
    /// Held-out runs with a prediction interval (a training fit without a covariance has none).
    pub with_intervals: usize,
    /// Share of held-out runs inside the confidence interval of the mean (expected to be lower
    /// than the level: runs scatter around the mean).
    pub ci_coverage: Option<f64>,
    /// Coverage of the training fits' own prediction intervals (before calibration).
    #[serde(default)]
    pub pi_fit_coverage: Option<f64>,
    /// Mean relative width (hi − lo) / predicted of the scored and of the fits' own intervals.
    #[serde(default)]
    pub pi_width: Option<f64>,
    /// Mean relative width of the training fits' own intervals.
    #[serde(default)]
    pub pi_fit_width: Option<f64>,
    /// Held-out runs whose interval was calibrated, and the coverage and mean width of those
    /// calibrated intervals and of the fits' own intervals on the same runs.
    #[serde(default)]
    pub calibrated: usize,
    /// Coverage of the calibrated intervals.
    #[serde(default)]
    pub calibrated_coverage: Option<f64>,
    /// Coverage of the fits' own intervals on the same runs.
    #[serde(default)]
    pub calibrated_fit_coverage: Option<f64>,
    /// Mean relative width of the calibrated intervals.
    #[serde(default)]
    pub calibrated_width: Option<f64>,
    /// Mean relative width of the fits' own intervals on the same runs.
    #[serde(default)]
    pub calibrated_fit_width: Option<f64>,
}

/// One training set and its held-out rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "BacktestSplit")]
pub struct Split {
    /// Largest scale in the training set.
    pub trained_up_to: f64,
    /// Rows the fit was trained on.
    pub train_rows: usize,
    /// Rows held out and scored.
    pub test_rows: usize,
    /// The training fit's objective (None when it failed; see `error`).
    pub objective: Option<f64>,
    /// Whether the training fit converged.
    pub converged: Option<bool>,
    /// The training fit's parameters by name.
    #[serde(with = "crate::fit::result::ordered")]
    #[schemars(with = "std::collections::BTreeMap<String, f64>")]
    pub params: Vec<(String, f64)>,
    /// The held-out runs and their predictions.
    pub points: Vec<BacktestPoint>,
    /// The split's scores.
    pub metrics: Option<Metrics>,
    /// The nested calibration of this split's intervals (when the backtest calibrates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<SplitCalibration>,
    /// Why the training fit failed, when it did (the split is then left out of the scores).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<Text>,
}

/// What a split's nested calibration found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SplitCalibration {
    /// Whether the split's intervals were widened.
    pub calibrated: bool,
    /// The calibration's form error sd one decade beyond the data.
    pub tau_per_decade: f64,
    /// Held-out runs inside the training rows it used.
    pub held_out: usize,
    /// (origin, scale group) units inside the training rows it used.
    pub units: usize,
    /// Why not, when not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Every split's fit and scores, and the scores over all held-out runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Backtest {
    /// How rows were held out, in words.
    pub holdout: String,
    /// The intervals' level (e.g. 0.95).
    pub level: f64,
    /// Where the training fits' intervals come from.
    pub intervals: IntervalSource,
    /// Each split's fit and scores.
    pub splits: Vec<Split>,
    /// Over every held-out point of every split.
    pub metrics: Option<Metrics>,
    /// The sweep's frontier whose rows were backtested (each row a cell's frontier).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Frontier>,
}

/// A sweep's frontier under the backtest's rows: row `i` of the data is the frontier row of
/// `frontier.cells[cell_of_row[i]]`. Each training fit records the frontier of its own cells,
/// so that its intervals add the choice sd of those cells alone (`crate::data::sweep`).
#[derive(Debug, Clone, PartialEq)]
pub struct SweptRows {
    pub frontier: Frontier,
    pub cell_of_row: Vec<usize>,
}

/// Backtests `law` on `data`, ordering scale by `scale` (one value per row).
pub fn backtest(
    law: &Law,
    data: &FitData,
    scale: &[f64],
    settings: &FitSettings,
    options: &BacktestOptions,
) -> Result<Backtest> {
    backtest_swept(law, data, scale, settings, options, None)
}

/// [`backtest`] on the frontier rows of a sweep (`sweep`: which cell each row stands for).
pub fn backtest_swept(
    law: &Law,
    data: &FitData,
    scale: &[f64],
    settings: &FitSettings,
    options: &BacktestOptions,
    sweep: Option<&SweptRows>,
) -> Result<Backtest> {
    crate::uncertainty::check_level(options.level)?;
    // Before any split: a refused count is the caller's, not a training fit's failure.
    if let Some(replicates) = options.bootstrap {
        crate::limits::check_replicates(replicates, options.level)?;
    }
    if scale.len() != data.target.len() {
        return Err(Error::settings(format!(
            "the scale column has {} values for {} rows",
            scale.len(),
            data.target.len()
        )));
    }
    if let Some(row) = scale.iter().position(|v| !v.is_finite()) {
        return Err(Error::settings(format!(
            "the scale column is not a finite number at row {}: {}",
            row + 1,
            scale[row]
        )));
    }
    let partitions = partitions(scale, options.holdout)?;
    let free = law
        .params
        .iter()
        .filter(|p| !settings.fixed.contains_key(&p.name))
        .count();
    if !matches!(options.holdout, Holdout::Rollout(_) | Holdout::Rolling(_)) {
        let train = partitions[0].0.len();
        if train <= free {
            return Err(Error::settings(format!(
                "holding out {} leaves {train} training rows, but a fit of {free} free parameters needs at least {}; hold out less",
                options.holdout.describe(),
                free + 1
            )));
        }
    }
    let mut intervals = IntervalSource::None;
    let mut splits = Vec::with_capacity(partitions.len());
    let run = SplitRun {
        law,
        data,
        scale,
        settings,
        options,
        sweep,
    };
    for (train, test) in partitions {
        let (split, source) = run.split(&train, &test);
        if split.error.is_none() {
            intervals = source;
        }
        splits.push(split);
    }
    // A split whose fit was interrupted reads as failed: refuse the whole backtest.
    settings.interrupt.check()?;
    let all: Vec<&BacktestPoint> = splits.iter().flat_map(|s| &s.points).collect();
    if splits.iter().all(|s| s.error.is_some()) {
        let reasons = Text::join(splits.iter().filter_map(|s| s.error.clone()), "; ");
        return Err(Error::fit(
            reasons.after("no training fit of the backtest succeeded: "),
        ));
    }
    Ok(Backtest {
        holdout: options.holdout.describe(),
        level: options.level,
        intervals,
        metrics: metrics(&all),
        splits,
        sweep: sweep.map(|s| s.frontier.clone()),
    })
}

/// (training rows, held-out rows) of every split.
fn partitions(scale: &[f64], holdout: Holdout) -> Result<Vec<(Vec<usize>, Vec<usize>)>> {
    holdout.check()?;
    let mut distinct: Vec<f64> = scale.to_vec();
    distinct.sort_by(f64::total_cmp);
    distinct.dedup();
    let too_few = |what: Mention| {
        Error::settings(text![
            what,
            format!(
                ": the scale column has only {} distinct values, so nothing would be left to \
                 train on",
                distinct.len()
            )
        ])
    };
    match holdout {
        Holdout::Top(k) => {
            if k >= distinct.len() {
                return Err(too_few(Setting::HoldoutTop.number(k)));
            }
            let cut = distinct[distinct.len() - k];
            Ok(vec![split_at(scale, cut)])
        }
        Holdout::Fraction(f) => {
            let mut sorted = scale.to_vec();
            sorted.sort_by(f64::total_cmp);
            // ceil with a little slack: 0.07 × 100 is 7.000000000000001 in floating point.
            let n_test = ((f * scale.len() as f64 - 1e-9).ceil() as usize).clamp(1, scale.len());
            let cut = sorted[scale.len() - n_test];
            if cut <= distinct[0] {
                return Err(too_few(Setting::HoldoutFrac.number(f)));
            }
            Ok(vec![split_at(scale, cut)])
        }
        Holdout::Rollout(groups) => {
            let groups = groups.min(distinct.len());
            if groups < 2 {
                return Err(too_few(Setting::Rollout.subject()));
            }
            Ok(rollout_splits(scale, &distinct, groups))
        }
        Holdout::Rolling(most) => rolling_splits(scale, most),
    }
}

/// The rows below `cut` (training) and from `cut` up (held out).
fn split_at(scale: &[f64], cut: f64) -> (Vec<usize>, Vec<usize>) {
    let below = (0..scale.len()).filter(|&i| scale[i] < cut).collect();
    let from = (0..scale.len()).filter(|&i| scale[i] >= cut).collect();
    (below, from)
}

/// `groups` groups of the distinct scale values; split g trains on the groups below g and
/// predicts group g (group g holds the distinct values of rank [g·m/G, (g+1)·m/G)).
fn rollout_splits(scale: &[f64], distinct: &[f64], groups: usize) -> Vec<(Vec<usize>, Vec<usize>)> {
    let first = |g: usize| distinct[g * distinct.len() / groups];
    (1..groups)
        .map(|g| {
            let test_end = if g + 1 < groups {
                first(g + 1)
            } else {
                f64::INFINITY
            };
            let test = (0..scale.len())
                .filter(|&i| scale[i] >= first(g) && scale[i] < test_end)
                .collect();
            (split_at(scale, first(g)).0, test)
        })
        .collect()
}

/// Up to `most` rolling origins over the scale groups: each trains on the groups below its
/// origin and predicts every run from it up.
fn rolling_splits(scale: &[f64], most: usize) -> Result<Vec<(Vec<usize>, Vec<usize>)>> {
    let (groups, count) = scale_groups(scale);
    let sizes = origin_sizes(count, most);
    if sizes.is_empty() {
        return Err(Error::setting(
            Setting::Rolling,
            text![
                Setting::Rolling.number(most),
                format!(
                    ": the scale column forms {count} scale groups; rolling origins \
                     need at least {}",
                    crate::uncertainty::calibration::MIN_GROUPS
                )
            ],
        ));
    }
    Ok(sizes
        .into_iter()
        .map(|size| {
            let train = (0..scale.len()).filter(|&i| groups[i] < size).collect();
            let test = (0..scale.len()).filter(|&i| groups[i] >= size).collect();
            (train, test)
        })
        .collect())
}

fn training_fit(
    law: &Law,
    train: &FitData,
    settings: &FitSettings,
    options: &BacktestOptions,
) -> Result<FitRecord> {
    let mut result = FitRecord::from(fit(law, train, settings)?);
    if let Some(replicates) = options.bootstrap {
        let boot = BootstrapOptions {
            replicates,
            level: options.level,
            seed: options.seed,
            resampling: Resampling::Rows,
        };
        let summary = bootstrap(law, train, settings, &result, &boot, &|_| {})?;
        attach(&mut result, summary);
    }
    Ok(result)
}

/// What every split of one backtest shares.
struct SplitRun<'a> {
    law: &'a Law,
    data: &'a FitData,
    scale: &'a [f64],
    settings: &'a FitSettings,
    options: &'a BacktestOptions,
    sweep: Option<&'a SweptRows>,
}

impl SplitRun<'_> {
    /// The frontier of the training rows' cells, as their fit records it.
    fn training_sweep(&self, train: &[usize]) -> Option<Frontier> {
        let sweep = self.sweep?;
        let mut cells: Vec<usize> = train.iter().map(|&i| sweep.cell_of_row[i]).collect();
        cells.sort_unstable();
        cells.dedup();
        let log = self.settings.space == Space::Log;
        Some(sweep.frontier.of_cells(&cells, log))
    }

    /// The split that trains on `train` and scores `test`.
    fn split(&self, train: &[usize], test: &[usize]) -> (Split, IntervalSource) {
        let (law, data, scale) = (self.law, self.data, self.scale);
        let (settings, options) = (self.settings, self.options);
        let trained_up_to = train
            .iter()
            .map(|&i| scale[i])
            .fold(f64::NEG_INFINITY, f64::max);
        let mut split = Split::empty(trained_up_to, train.len(), test.len());
        let train_data = data.subset(train);
        let outcome = training_fit(law, &train_data, settings, options).and_then(|mut result| {
            result.sweep = self.training_sweep(train);
            let points: Vec<Vec<f64>> = test
                .iter()
                .map(|&i| data.variables.iter().map(|c| c[i]).collect())
                .collect();
            let (mut predictions, source) = predict_fit_intervals(&result, &points, options.level)?;
            if let Some(calibration_options) = &options.calibrate {
                let train_scale: Vec<f64> = train.iter().map(|&i| scale[i]).collect();
                let calibration = calibrate(
                    law,
                    &train_data,
                    "scale",
                    &train_scale,
                    settings,
                    calibration_options,
                )?;
                for (prediction, &row) in predictions.iter_mut().zip(test) {
                    let at_bound = result.has_param_at_bound();
                    calibration.widen_at_level(
                        prediction,
                        scale[row],
                        settings.space,
                        options.level,
                        at_bound,
                    );
                }
                split.calibration = Some(SplitCalibration {
                    calibrated: calibration.calibrated,
                    tau_per_decade: calibration.tau_per_decade,
                    held_out: calibration.held_out,
                    units: calibration.units,
                    reason: calibration.reason,
                });
            }
            Ok((result, predictions, source))
        });
        let (result, predictions, source) = match outcome {
            Ok(parts) => parts,
            Err(error) => {
                split.error = Some(error.text());
                return (split, IntervalSource::None);
            }
        };
        split.objective = Some(result.objective);
        split.converged = Some(result.converged);
        split.params = result
            .params
            .iter()
            .map(|(n, p)| (n.clone(), p.value))
            .collect();
        split.points = test
            .iter()
            .zip(predictions)
            .map(|(&row, prediction)| held_out_point(data, scale, row, &prediction, trained_up_to))
            .collect();
        split.metrics = metrics(&split.points.iter().collect::<Vec<_>>());
        (split, source)
    }
}

/// Held-out run `row` against its prediction by a fit trained up to `trained_up_to`.
fn held_out_point(
    data: &FitData,
    scale: &[f64],
    row: usize,
    prediction: &PointPrediction,
    trained_up_to: f64,
) -> BacktestPoint {
    let actual = data.target[row];
    let predicted = prediction.value;
    BacktestPoint {
        row,
        scale: scale[row],
        actual,
        predicted,
        ci: prediction.ci,
        pi: prediction.pi,
        pi_fit: prediction.pi_fit,
        calibrated: prediction.calibrated,
        distance_decades: (scale[row] / trained_up_to).log10(),
        relative_error: (predicted - actual) / actual,
        log_residual: (predicted > 0.0 && actual > 0.0).then(|| predicted.ln() - actual.ln()),
    }
}

impl Split {
    /// A split before its fit: sizes and scale known, nothing fitted.
    fn empty(trained_up_to: f64, train_rows: usize, test_rows: usize) -> Split {
        Split {
            trained_up_to,
            train_rows,
            test_rows,
            objective: None,
            converged: None,
            params: Vec::new(),
            points: Vec::new(),
            metrics: None,
            calibration: None,
            error: None,
        }
    }
}

/// Share of the points with an interval that lie inside it (None when no point has one).
fn coverage(
    points: &[&BacktestPoint],
    interval: impl Fn(&BacktestPoint) -> Option<[f64; 2]>,
) -> Option<f64> {
    let inside: Vec<bool> = points
        .iter()
        .filter_map(|p| interval(p).map(|[lo, hi]| lo <= p.actual && p.actual <= hi))
        .collect();
    (!inside.is_empty()).then(|| inside.iter().filter(|b| **b).count() as f64 / inside.len() as f64)
}

/// Scores of held-out points (None when there are none).
pub fn metrics(points: &[&BacktestPoint]) -> Option<Metrics> {
    if points.is_empty() {
        return None;
    }
    let n = points.len() as f64;
    let mut absolute: Vec<f64> = points.iter().map(|p| p.relative_error.abs()).collect();
    absolute.sort_by(f64::total_cmp);
    let logs: Option<Vec<f64>> = points.iter().map(|p| p.log_residual).collect();
    Some(Metrics {
        points: points.len(),
        are_mean: absolute.iter().sum::<f64>() / n,
        are_median: crate::stats::quantile_sorted(&absolute, 0.5),
        are_max: *absolute.last().unwrap_or(&f64::NAN),
        rmse_log: logs.map(|l| (l.iter().map(|r| r * r).sum::<f64>() / n).sqrt()),
        bias: points.iter().map(|p| p.relative_error).sum::<f64>() / n,
        pi_coverage: coverage(points, |p| p.pi),
        with_intervals: points.iter().filter(|p| p.pi.is_some()).count(),
        ci_coverage: coverage(points, |p| p.ci),
        pi_fit_coverage: coverage(points, |p| p.pi_fit),
        pi_width: mean_width(points, |p| p.pi),
        pi_fit_width: mean_width(points, |p| p.pi_fit),
        calibrated: points.iter().filter(|p| p.calibrated).count(),
        calibrated_coverage: coverage(points, |p| p.pi.filter(|_| p.calibrated)),
        calibrated_fit_coverage: coverage(points, |p| p.pi_fit.filter(|_| p.calibrated)),
        calibrated_width: mean_width(points, |p| p.pi.filter(|_| p.calibrated)),
        calibrated_fit_width: mean_width(points, |p| p.pi_fit.filter(|_| p.calibrated)),
    })
}

/// Mean relative width (hi − lo) / predicted of the points' intervals (None when none has one).
fn mean_width(
    points: &[&BacktestPoint],
    interval: impl Fn(&BacktestPoint) -> Option<[f64; 2]>,
) -> Option<f64> {
    let widths: Vec<f64> = points
        .iter()
        .filter_map(|p| interval(p).map(|[lo, hi]| (hi - lo) / p.predicted.abs()))
        .filter(|w| w.is_finite())
        .collect();
    (!widths.is_empty()).then(|| widths.iter().sum::<f64>() / widths.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn top_holds_out_the_largest_distinct_scales() {
        let scale = [1.0, 2.0, 2.0, 3.0, 4.0, 4.0];
        let parts = partitions(&scale, Holdout::Top(2)).unwrap();
        assert_eq!(parts, vec![(vec![0, 1, 2], vec![3, 4, 5])]);
        assert!(partitions(&scale, Holdout::Top(4)).is_err());
    }

    #[test]
    fn fraction_keeps_ties_together() {
        let scale = [1.0, 2.0, 3.0, 3.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0];
        // 30% = 3 rows: 6, 7, 8.
        let parts = partitions(&scale, Holdout::Fraction(0.3)).unwrap();
        assert_eq!(parts[0].1, vec![7, 8, 9]);
        // 70% = 7 rows reaches into the tie at 3, which is held out whole.
        let parts = partitions(&scale, Holdout::Fraction(0.7)).unwrap();
        assert_eq!(parts[0].0, vec![0, 1]);
    }

    /// Holding out no scale indexed past the distinct values (a panic) before the rule.
    #[test]
    fn a_holdout_out_of_range_is_refused_before_any_split() {
        let scale: Vec<f64> = (1..=9).map(f64::from).collect();
        for bad in [
            Holdout::Top(0),
            Holdout::Fraction(0.0),
            Holdout::Fraction(-0.5),
            Holdout::Fraction(1.0),
            Holdout::Fraction(f64::NAN),
            Holdout::Rollout(1),
            Holdout::Rolling(0),
        ] {
            let error = partitions(&scale, bad).unwrap_err();
            assert!(error.key().is_some(), "{bad:?}: {error}");
        }
        assert!(Holdout::one_of(None, None, None, None).is_err());
        assert!(Holdout::one_of(Some(1), Some(0.2), None, None).is_err());
        assert_eq!(
            Holdout::one_of(None, None, Some(3), None).unwrap(),
            Holdout::Rollout(3)
        );
    }

    #[test]
    fn rollout_predicts_each_group_from_the_ones_below() {
        let scale: Vec<f64> = (1..=9).map(f64::from).collect();
        let parts = partitions(&scale, Holdout::Rollout(3)).unwrap();
        assert_eq!(parts.len(), 2);
        assert_eq!(parts[0], ((0..3).collect(), (3..6).collect()));
        assert_eq!(parts[1], ((0..6).collect(), (6..9).collect()));
    }
}
