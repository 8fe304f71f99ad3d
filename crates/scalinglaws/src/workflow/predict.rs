//! A saved fit at new points, with confidence and prediction intervals: the workflow
//! `predict`, so that a fit written once answers "what loss at N, D?" without refitting. The
//! points come per law variable (`N` with one value or a list); one value is used at every
//! point. [`PredictJob::run`] checks the names against the law (with a "did you mean" hint),
//! the values (finite, positive where the law takes a log), that every variable has values and
//! that the lists have one length, and refuses a point where the law has no finite value. Its
//! document ([`Predictions`]) holds what its report says beside the table: the fit's target and
//! variables, what the intervals rest on ([`IntervalBasis`]) and how they are calibrated beyond
//! the data. Python's `Fit.predict` runs [`PredictColumns`]: the same checks and values on
//! borrowed columns, predicted block by block (in parallel, handed over in order) so that
//! memory is the columns and a few blocks, whatever the number of points, and a Ctrl-C stops
//! it between blocks.

use rayon::prelude::*;
use schemars::JsonSchema;
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use super::{Ctx, Workflow};
use crate::data::recipe::why_positive;
use crate::document::Document;
use crate::error::{short_number, Error, Result, Setting};
use crate::fit::FitCaveat;
use crate::interrupt::Interrupt;
use crate::job::fit::{named_numbers, OneOrManyNumbers};
use crate::law::{Law, NonFinite};
use crate::suggest::closest;
use crate::text;
use crate::uncertainty::calibration::Regime;
use crate::uncertainty::{
    check_level, predict_with_intervals_of, Calibration, FitRecord, IntervalSource,
    PointPrediction, DEFAULT_LEVEL,
};

/// The workflow.
pub struct PredictWorkflow;

/// Where to predict and at what level, as a face sends it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct PredictRequest {
    /// The points: values by law variable, in order, each one value (for every point) or one
    /// per point (`{"N": [7e10, 1e12], "D": 1.4e12}`).
    #[serde(deserialize_with = "named_numbers")]
    #[schemars(with = "std::collections::BTreeMap<String, OneOrManyNumbers>")]
    pub at: Vec<(String, Vec<f64>)>,
    /// The intervals' confidence level.
    #[serde(default = "default_level")]
    pub level: f64,
}

fn default_level() -> f64 {
    DEFAULT_LEVEL
}

/// Points to predict at, by variable, in the order given, and the intervals' level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PredictJob {
    /// The values of each variable (`N` → `[7e10]`, `D` → `[1e12, 2e12]`): lists of one
    /// length, or one value to use at every point.
    pub points: Vec<(String, Vec<f64>)>,
    pub level: f64,
}

impl From<PredictRequest> for PredictJob {
    fn from(request: PredictRequest) -> PredictJob {
        PredictJob {
            points: request.at,
            level: request.level,
        }
    }
}

/// Input values in the law's variable order, serialised as an object in that order.
#[derive(Debug, Clone, PartialEq)]
pub struct Inputs(pub Vec<(String, f64)>);

impl Serialize for Inputs {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

/// The law at one point, with its intervals.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "PredictedPoint")]
pub struct Prediction {
    /// The point: each law variable's value, in the law's order.
    #[schemars(with = "std::collections::BTreeMap<String, f64>")]
    pub inputs: Inputs,
    /// The law's value there.
    pub value: f64,
    /// Confidence interval of the law's mean.
    pub ci: Option<[f64; 2]>,
    /// Prediction interval of a new run (calibrated beyond the data when `calibrated`).
    pub pi: Option<[f64; 2]>,
    /// The fit's own prediction interval, before the extrapolation calibration.
    pub pi_fit: Option<[f64; 2]>,
    /// Whether `pi` is widened beyond the data by the fit's calibration.
    pub calibrated: bool,
    /// Signed decades from the fitted range in the law's own scale: beyond the largest fitted
    /// run (> 0), below the smallest (< 0), inside (0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance_decades: Option<f64>,
    /// How `pi` was made: inside the data, or beyond it governed by the cross-study prior, by
    /// the fit's own backtests, or both.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regime: Option<Regime>,
}

/// How the prediction intervals were calibrated beyond the data (the fit's calibration
/// without its per-run scores).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct CalibrationNote {
    /// Whether `pi` is widened beyond the data.
    pub calibrated: bool,
    /// One sentence: the calibration described, or why there is none.
    pub description: String,
    /// The calibration's method, in a sentence.
    pub method: String,
    /// The column scale is measured by.
    pub by: String,
    /// Why `pi` is not calibrated, when it is not.
    pub reason: Option<String>,
    /// The law's form error one decade beyond the data (fitted space, sd).
    pub tau_per_decade: f64,
    /// How the form error grows with the distance d in decades: as d^growth.
    pub growth: f64,
    /// The largest fitted scale (distances beyond are measured from it).
    pub largest_scale: f64,
    /// Held-out runs the backtests scored.
    pub held_out: usize,
    /// The (origin, scale group) units they make.
    pub units: usize,
    /// The furthest a backtest reached beyond its training runs, in decades.
    pub max_distance_decades: f64,
    /// The weighted share of the scored runs inside the fit's own intervals.
    pub coverage_fit: Option<f64>,
    /// Their share inside the calibrated intervals (the level by construction).
    pub coverage_calibrated: Option<f64>,
    /// The smallest fitted scale (distances below are measured from it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smallest_scale: Option<f64>,
    /// The cross-study prior's version (None: a fit file written before the prior).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prior_version: Option<String>,
    /// The share of the prior's uncertainty the fit's own backtests removed (None: as
    /// `prior_version`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub own_weight: Option<f64>,
}

impl CalibrationNote {
    pub fn of(c: &Calibration) -> CalibrationNote {
        CalibrationNote {
            calibrated: c.calibrated,
            description: c.describe(),
            method: c.method.clone(),
            by: c.by.clone(),
            reason: c.reason.clone(),
            tau_per_decade: c.tau_per_decade,
            growth: c.growth,
            largest_scale: c.largest_scale,
            held_out: c.held_out,
            units: c.units,
            max_distance_decades: c.max_distance_decades,
            coverage_fit: c.coverage_fit,
            coverage_calibrated: c.coverage_calibrated,
            smallest_scale: c.smallest_scale,
            prior_version: c.prior.as_ref().map(|p| p.version.clone()),
            own_weight: c.prior.as_ref().map(|p| p.posterior.own_weight),
        }
    }
}

/// The document `predict` writes: the law at each point with its intervals, and what the
/// note beside them says.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Predictions {
    /// The fit's target (the column or derivation it was fitted to).
    pub target: String,
    /// The law's variables, in its order.
    pub variables: Vec<String>,
    /// The intervals' confidence level.
    pub level: f64,
    /// Where the intervals come from: "bootstrap", "delta" or "none".
    pub intervals: IntervalSource,
    /// What the fit's own intervals rest on.
    pub basis: IntervalBasis,
    /// How `pi` was calibrated beyond the data (None: the fit has no calibration).
    pub calibration: Option<CalibrationNote>,
    /// The law at each point.
    pub predictions: Vec<Prediction>,
    /// What the predictions inherit from the fit's diagnostics (a parameter at a bound, a
    /// barely determined combination, ...); not written when there is none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fit_caveats: Vec<FitCaveat>,
}

/// What a fit's own intervals rest on, for the note beside its predictions: its bootstrap
/// replicates or its covariance, and what a new run adds to the law's mean.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct IntervalBasis {
    /// The fit's bootstrap replicates (None: it has none).
    pub replicates: Option<usize>,
    /// The covariance the delta method uses (`sandwich`, ...).
    pub covariance: String,
    /// What a new run's interval adds to the law's mean.
    pub new_run: NewRunSpread,
}

/// What a new run adds to the law's mean: the residual scatter, or a count or proportion
/// family's own distribution at the size every fitted row shared.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NewRunSpread {
    /// The residual standard deviation: one value, or σ(x) = sd·(x/x0)^s of a
    /// heteroscedastic fit; and the sweep's choice sd, when the fit has one.
    #[schemars(title = "ResidualSpread")]
    Residual {
        /// One σ (None: not known).
        sd: Option<f64>,
        /// σ(x) of a heteroscedastic fit (None: one σ).
        varying: Option<VaryingSd>,
        /// The standard deviation a sweep's choice adds.
        choice_sd: Option<f64>,
    },
    /// The family's distribution at the size (trials or exposure) every fitted row shared.
    #[schemars(title = "FamilySpread")]
    Family {
        /// The family's name.
        family: String,
        /// `trials` (proportions) or `exposure` (counts).
        size_of: String,
        /// The size every fitted row shared (None: the rows' sizes differ, so a new run's is
        /// not known and there is no interval of a new run).
        size: Option<f64>,
        /// The dispersion's name and value, fitted (Cox–Reid adjusted) or held.
        dispersion: Option<Dispersion>,
    },
}

/// σ(x) = sd·(x/x0)^s: the residual standard deviation of a heteroscedastic fit.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct VaryingSd {
    /// σ at x0.
    pub sd: f64,
    /// The column or expression x.
    pub by: String,
    /// Where σ is `sd`.
    pub x0: f64,
    /// The power of x that σ grows with.
    pub s: f64,
}

/// A count or proportion family's dispersion as a new run's interval draws at it.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Dispersion {
    /// Its name (`alpha`, `rho`, ...).
    pub name: String,
    /// Its value.
    pub value: f64,
    /// Fitted and adjusted for the law's fit (Cox–Reid), or held at a given value.
    pub adjusted: bool,
}

impl IntervalBasis {
    /// The basis of `fit`'s intervals.
    pub fn of(fit: &FitRecord) -> IntervalBasis {
        IntervalBasis {
            replicates: fit.bootstrap.as_ref().map(|b| b.draws.len()),
            covariance: fit.covariance_kind.clone(),
            new_run: NewRunSpread::of(fit),
        }
    }
}

impl NewRunSpread {
    fn of(fit: &FitRecord) -> NewRunSpread {
        let Some(family) = fit.settings.family.filter(|f| !f.kind.location_scale()) else {
            return NewRunSpread::Residual {
                sd: fit.stats.residual_scale,
                varying: fit.variance.as_ref().map(|v| VaryingSd {
                    sd: v.sigma0,
                    by: v.by.clone(),
                    x0: v.x0,
                    s: v.s,
                }),
                choice_sd: fit.sweep.as_ref().and_then(|s| s.choice_sd),
            };
        };
        let fitted = fit.family.as_ref();
        let name = family
            .kind
            .dispersion_name()
            .unwrap_or("dispersion")
            .to_string();
        let dispersion = match (
            fitted.and_then(|f| f.adjusted_dispersion),
            family.dispersion,
        ) {
            (Some((value, _)), _) => Some(Dispersion {
                name,
                value,
                adjusted: true,
            }),
            (None, Some(value)) => Some(Dispersion {
                name,
                value,
                adjusted: false,
            }),
            (None, None) => None,
        };
        NewRunSpread::Family {
            family: family.kind.name().to_string(),
            size_of: if family.kind.proportions() {
                "trials"
            } else {
                "exposure"
            }
            .to_string(),
            size: fitted.and_then(|f| f.size),
            dispersion,
        }
    }
}

impl PredictJob {
    /// `fit` (a fit of `law`) at every point, with intervals at the job's level.
    pub fn run(&self, fit: &FitRecord, law: &Law) -> Result<Predictions> {
        let points = self.points_of(fit, law)?;
        let (predicted, source) = predict_with_intervals_of(law, fit, &points, self.level)?;
        if let Some((point, _)) = points
            .iter()
            .zip(&predicted)
            .find(|(_, p)| !p.value.is_finite())
        {
            return Err(Error::settings(not_finite_message(fit, law, point)));
        }
        let predictions = points
            .iter()
            .zip(predicted)
            .map(|(point, p)| Prediction {
                inputs: Inputs(law.variables.iter().cloned().zip(point.clone()).collect()),
                value: p.value,
                ci: p.ci,
                pi: p.pi,
                pi_fit: p.pi_fit,
                calibrated: p.calibrated,
                distance_decades: p.distance_decades,
                regime: p.regime,
            })
            .collect();
        Ok(Predictions {
            target: fit.target.clone(),
            variables: law.variables.clone(),
            level: self.level,
            intervals: source,
            basis: IntervalBasis::of(fit),
            calibration: fit.calibration.as_ref().map(CalibrationNote::of),
            predictions,
            fit_caveats: fit.caveats(),
        })
    }

    /// The points, each in the law's variable order: the lists of one value broadcast to the
    /// common length.
    pub fn points_of(&self, fit: &FitRecord, law: &Law) -> Result<Vec<Vec<f64>>> {
        let points: Vec<(&str, &[f64])> = self
            .points
            .iter()
            .map(|(name, values)| (name.as_str(), values.as_slice()))
            .collect();
        let columns = checked_columns(&points, fit, law)?;
        Ok(block_points(&columns, 0..point_count(&columns)))
    }
}

impl Document for Predictions {
    const KIND: &'static str = "predict";
}

impl Workflow for PredictWorkflow {
    const NAME: &'static str = "predict";
    const SUMMARY: &'static str =
        "A saved fit at new points, with confidence intervals of the law's mean and prediction intervals of a new run, calibrated beyond the data by the fit's backtests";
    type Request = PredictRequest;
    type Spec = PredictJob;
    type Output = Predictions;
    type Input = FitRecord;

    fn spec(request: PredictRequest) -> Result<PredictJob> {
        Ok(PredictJob::from(request))
    }

    /// The level; the points are checked against the fit's law when it is read.
    fn check(spec: &PredictJob) -> Result<()> {
        check_level(spec.level)
    }

    fn run(spec: &PredictJob, fit: &FitRecord, ctx: &Ctx) -> Result<Predictions> {
        let mut fit = fit.clone();
        ctx.apply(&mut fit.settings);
        spec.run(&fit, &fit.law()?)
    }
}

/// Which interval a columnar prediction hands back with its values (Python's
/// `Fit.predict(interval=...)`): the law's mean's, or a new run's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntervalChoice {
    Confidence,
    Prediction,
}

impl IntervalChoice {
    /// `confidence` or `prediction`, else a refusal naming both.
    pub fn parse(text: &str) -> Result<IntervalChoice> {
        match text {
            "confidence" => Ok(IntervalChoice::Confidence),
            "prediction" => Ok(IntervalChoice::Prediction),
            other => Err(Error::setting(
                Setting::Interval,
                text![
                    Setting::Interval.text(other),
                    ": give \"confidence\" (the law's mean) or \"prediction\" (a new run)"
                ],
            )),
        }
    }

    /// The interval's bounds at a point (None: the fit gives none).
    pub fn of(self, prediction: &PointPrediction) -> Option<[f64; 2]> {
        match self {
            IntervalChoice::Confidence => prediction.ci,
            IntervalChoice::Prediction => prediction.pi,
        }
    }

    /// The refusal of an interval the fit cannot give: it has neither bootstrap replicates
    /// nor a covariance.
    pub fn missing(self) -> Error {
        let name = match self {
            IntervalChoice::Confidence => "confidence",
            IntervalChoice::Prediction => "prediction",
        };
        Error::setting(
            Setting::Interval,
            text![
                format!("no {name} interval: the fit has neither bootstrap replicates nor a covariance (refit with "),
                Setting::Bootstrap.number("K"),
                ")"
            ],
        )
    }
}

/// Points per block of [`PredictColumns::run`]: a block's points and predictions (a few
/// hundred bytes a point) are what it holds besides the columns, a few blocks at a time.
pub const PREDICT_BLOCK: usize = 1024;

/// A prediction at points given as borrowed columns (Python's arrays), for a front end that
/// keeps the results as columns: [`PredictJob`]'s checks and values, without a record per
/// point.
#[derive(Debug, Clone)]
pub struct PredictColumns<'a> {
    /// The values of each variable, as in [`PredictJob::points`].
    pub points: Vec<(&'a str, &'a [f64])>,
    pub level: f64,
    /// Stops the prediction between blocks ([`Error::Interrupted`]).
    pub interrupt: Interrupt,
}

impl PredictColumns<'_> {
    /// The number of points, once the columns are checked as [`PredictJob::run`] checks them.
    pub fn count(&self, fit: &FitRecord, law: &Law) -> Result<usize> {
        Ok(point_count(&checked_columns(&self.points, fit, law)?))
    }

    /// Predicts block by block of [`PREDICT_BLOCK`] points, a batch of blocks in parallel,
    /// and hands each block to `visit(first, predictions)` in order (the predictions of points
    /// `first..first + predictions.len()`); returns where the intervals come from. The values
    /// are [`PredictJob::run`]'s, and so is the error at its first point without a finite value.
    pub fn run(
        &self,
        fit: &FitRecord,
        law: &Law,
        mut visit: impl FnMut(usize, &[PointPrediction]),
    ) -> Result<IntervalSource> {
        let columns = checked_columns(&self.points, fit, law)?;
        let n = point_count(&columns);
        let block = |first: usize| -> Result<(Vec<PointPrediction>, IntervalSource)> {
            self.interrupt.check()?;
            let points = block_points(&columns, first..n.min(first + PREDICT_BLOCK));
            let (predicted, source) = predict_with_intervals_of(law, fit, &points, self.level)?;
            if let Some((point, _)) = points
                .iter()
                .zip(&predicted)
                .find(|(_, p)| !p.value.is_finite())
            {
                return Err(Error::settings(not_finite_message(fit, law, point)));
            }
            Ok((predicted, source))
        };
        let firsts: Vec<usize> = (0..n).step_by(PREDICT_BLOCK).collect();
        let batch = 2 * rayon::current_num_threads().max(1);
        let mut source = None;
        for firsts in firsts.chunks(batch) {
            let done: Vec<_> = firsts.par_iter().map(|&first| block(first)).collect();
            for (&first, result) in firsts.iter().zip(done) {
                let (predicted, from) = result?;
                visit(first, &predicted);
                source = Some(from);
            }
        }
        self.interrupt.check()?;
        match source {
            Some(source) => Ok(source),
            None => Ok(predict_with_intervals_of(law, fit, &[], self.level)?.1),
        }
    }
}

/// The common length of checked columns: a column of one value is used at every point, so
/// the length of the others (an empty one makes no points), else one point.
fn point_count(columns: &[&[f64]]) -> usize {
    let mut lengths = columns.iter().map(|c| c.len());
    match lengths.find(|length| *length != 1) {
        Some(length) => length,
        None if columns.is_empty() => 0,
        None => 1,
    }
}

/// Points `range` of checked columns, each in the columns' (the law's variable) order.
fn block_points(columns: &[&[f64]], range: std::ops::Range<usize>) -> Vec<Vec<f64>> {
    range
        .map(|i| {
            columns
                .iter()
                .map(|values| {
                    if values.len() == 1 {
                        values[0]
                    } else {
                        values[i]
                    }
                })
                .collect()
        })
        .collect()
}

/// One list of values per law variable (length 1 or the common length), in the law's order:
/// each value finite, positive where the law takes a log, every variable given, the lists of
/// one length.
fn checked_columns<'a>(
    points: &[(&str, &'a [f64])],
    fit: &FitRecord,
    law: &Law,
) -> Result<Vec<&'a [f64]>> {
    for (i, (name, values)) in points.iter().enumerate() {
        if points[..i].iter().any(|(earlier, _)| earlier == name) {
            return Err(Error::settings(format!(
                "'{name}' is given twice; give each variable once"
            )));
        }
        if let Some(bad) = values.iter().find(|v| !v.is_finite()) {
            let bad = short_number(*bad);
            return Err(Error::settings(format!(
                "'{name}={bad}': {bad} is not a finite number"
            )));
        }
    }
    let variables = &law.variables;
    let positive = law.positive_variables();
    let mut given: Vec<Option<&[f64]>> = vec![None; variables.len()];
    for &(name, values) in points {
        let Some(index) = variables.iter().position(|v| v == name) else {
            return Err(unknown_variable(fit, law, name));
        };
        if positive.contains(&name) {
            if let Some(value) = values.iter().find(|v| **v <= 0.0) {
                let value = short_number(*value);
                return Err(Error::settings(format!(
                    "'{name}={value}': {name} must be positive: {}",
                    why_positive(law, name)
                )));
            }
        }
        given[index] = Some(values);
    }
    let missing: Vec<&str> = variables
        .iter()
        .zip(&given)
        .filter(|(_, values)| values.is_none())
        .map(|(name, _)| name.as_str())
        .collect();
    if !missing.is_empty() {
        // Worded for every face: the command line's N=VALUE is Python's N= or at={"N": ...}.
        return Err(Error::settings(format!(
            "no value for {}; the law '{}' needs a value of every variable: {}",
            missing.join(", "),
            fit.law,
            describe_variables(fit, variables),
        )));
    }
    let columns: Vec<&[f64]> = given.into_iter().flatten().collect();
    same_lengths(&columns, variables)?;
    Ok(columns)
}

/// `name` is none of the law's variables: the closest one, and all of them.
fn unknown_variable(fit: &FitRecord, law: &Law, name: &str) -> Error {
    let variables = &law.variables;
    let hint = closest(name, variables.iter().map(String::as_str))
        .map(|s| format!(" (did you mean '{s}'?)"))
        .unwrap_or_default();
    Error::settings(format!(
        "'{name}' is not a variable of the law '{}'{hint}; its variables are {}",
        fit.law,
        describe_variables(fit, variables)
    ))
}

/// Every list of other than one value has the same length (one value is used at every point).
fn same_lengths(columns: &[&[f64]], variables: &[String]) -> Result<()> {
    let lengths: Vec<(usize, &String)> = columns
        .iter()
        .map(|c| c.len())
        .zip(variables)
        .filter(|(length, _)| *length != 1)
        .collect();
    let Some(&(first, first_name)) = lengths.first() else {
        return Ok(());
    };
    match lengths.iter().find(|l| l.0 != first) {
        Some(&(other, other_name)) => Err(Error::settings(format!(
            "{first_name} has {first} values but {other_name} has {other}; give lists of the \
             same length, or one value to use at every point"
        ))),
        None => Ok(()),
    }
}

/// Why there is no number at `point`: a value beyond the largest double is not an undefined
/// law, and a formula that overflows on the way to a moderate value needs rewriting.
fn not_finite_message(fit: &FitRecord, law: &Law, point: &[f64]) -> String {
    let at: Vec<String> = law
        .variables
        .iter()
        .zip(point)
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    let at = at.join(" ");
    match law.non_finite(&fit.param_values(), point) {
        Some(reason @ NonFinite::Overflow { .. }) => format!(
            "the law's value at {at} {reason}: it is finite but cannot be written as a 64-bit \
             number; predict nearer to the data"
        ),
        Some(reason @ NonFinite::Intermediate { .. }) => {
            format!("the law's value at {at} {reason}")
        }
        _ => format!(
            "the law is undefined at {at} (it evaluates to a non-finite number); predict inside \
             the law's domain"
        ),
    }
}

/// "N ('Model Size'), D (D=C/(6*N))": each variable with the column or derivation it was
/// fitted from.
fn describe_variables(fit: &FitRecord, variables: &[String]) -> String {
    variables
        .iter()
        .map(
            |variable| match fit.variables.iter().find(|(v, _)| v == variable) {
                Some((_, source)) if source.starts_with(&format!("{variable}=")) => {
                    format!("{variable} ({source})")
                }
                Some((_, source)) if source != variable => format!("{variable} ('{source}')"),
                _ => variable.clone(),
            },
        )
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fit::FitSettings;

    /// Chinchilla's law fitted to a 5 × 4 grid of runs drawn from Epoch AI's parameters with a
    /// little deterministic scatter (no bootstrap, no calibration).
    pub(crate) fn chinchilla_fit() -> (FitRecord, Law) {
        let (law, data) = crate::fit::caveats::tests::chinchilla_data();
        let fit = crate::fit::fit(&law, &data, &FitSettings::default()).unwrap();
        (FitRecord::from(fit), law)
    }

    /// The columns give the job's values and intervals, block by block in order; a set token
    /// stops them before the first block (and a record's own token stops its intervals).
    #[test]
    fn columns_predict_as_the_job_and_stop_when_interrupted() {
        let (fit, law) = chinchilla_fit();
        let n: Vec<f64> = (0..2_500).map(|i| 1e8 * 1.004f64.powi(i)).collect();
        let d = [2e11];
        let job = PredictJob {
            points: vec![("N".into(), n.clone()), ("D".into(), d.to_vec())],
            level: 0.9,
        };
        let whole = job.run(&fit, &law).unwrap();
        let columns = PredictColumns {
            points: vec![("D", &d), ("N", &n)],
            level: 0.9,
            interrupt: Interrupt::new(),
        };
        assert_eq!(columns.count(&fit, &law).unwrap(), 2_500);
        let mut seen: Vec<PointPrediction> = Vec::new();
        let source = columns
            .run(&fit, &law, |first, block| {
                assert_eq!(first, seen.len());
                seen.extend(block.iter().cloned());
            })
            .unwrap();
        assert_eq!(source, whole.intervals);
        assert_eq!(seen.len(), whole.predictions.len());
        for (p, q) in seen.iter().zip(&whole.predictions) {
            assert_eq!((p.value, p.ci, p.pi), (q.value, q.ci, q.pi));
        }
        columns.interrupt.interrupt();
        let stopped = columns.run(&fit, &law, |_, _| panic!("a block after the interrupt"));
        assert!(matches!(stopped, Err(Error::Interrupted)));
        fit.settings.interrupt.interrupt();
        assert!(matches!(job.run(&fit, &law), Err(Error::Interrupted)));
    }

    /// The workflow reads its request (one value or a list per variable), refuses a level
    /// out of range before the fit is read, and writes a document that holds what its report
    /// says beside the table: the target, the variables and what the intervals rest on.
    #[test]
    fn the_workflow_document_holds_what_its_report_says() {
        let (fit, _) = chinchilla_fit();
        let request: PredictRequest =
            serde_json::from_str(r#"{"at": {"D": [1e10, 1e11], "N": 7e9}}"#).unwrap();
        let spec = PredictWorkflow::spec(request).unwrap();
        assert!((spec.level - DEFAULT_LEVEL).abs() < 1e-15);
        PredictWorkflow::check(&spec).unwrap();
        let document = PredictWorkflow::run(&spec, &fit, &Ctx::default()).unwrap();
        assert_eq!(document.target, fit.target);
        assert_eq!(document.variables, ["N", "D"]);
        assert_eq!(document.predictions.len(), 2);
        assert_eq!(document.basis.replicates, None);
        assert_eq!(document.basis.covariance, fit.covariance_kind);
        match &document.basis.new_run {
            NewRunSpread::Residual { sd, varying, .. } => {
                assert_eq!(*sd, fit.stats.residual_scale);
                assert!(sd.is_some() && varying.is_none());
            }
            other => panic!("a least-squares fit adds its residual sd, not {other:?}"),
        }
        let written = serde_json::to_value(crate::document::envelope(&document)).unwrap();
        assert_eq!(written["kind"], "predict");
        let stopped = Ctx::default();
        stopped.interrupt.interrupt();
        assert!(matches!(
            PredictWorkflow::run(&spec, &fit, &stopped),
            Err(Error::Interrupted)
        ));
        let wide = PredictJob { level: 1.5, ..spec };
        assert!(PredictWorkflow::check(&wide).is_err());
    }

    /// Points by variable, and words the error must contain.
    type Case<'a> = (&'a [(&'a str, &'a [f64])], &'a str);

    fn job(points: &[(&str, &[f64])]) -> PredictJob {
        PredictJob {
            points: points
                .iter()
                .map(|(name, values)| (name.to_string(), values.to_vec()))
                .collect(),
            level: 0.9,
        }
    }

    /// An empty list beside one value makes no points (as empty arrays do in Python), not a
    /// point read from the empty list.
    #[test]
    fn an_empty_list_makes_no_points() {
        let (fit, law) = chinchilla_fit();
        let predictions = job(&[("N", &[]), ("D", &[1e10])]).run(&fit, &law).unwrap();
        assert!(predictions.predictions.is_empty());
    }

    #[test]
    fn one_value_is_used_at_every_point() {
        let (fit, law) = chinchilla_fit();
        let predictions = job(&[("D", &[1e10, 1e11, 1e12]), ("N", &[7e9])])
            .run(&fit, &law)
            .unwrap();
        assert_eq!(predictions.predictions.len(), 3);
        let params = fit.param_values();
        for (p, d) in predictions.predictions.iter().zip([1e10, 1e11, 1e12]) {
            // The inputs come in the law's order whatever order they were given in.
            let names: Vec<&str> = p.inputs.0.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(names, ["N", "D"]);
            let expected = law.eval(&params, &[7e9, d]);
            assert!((p.value / expected - 1.0).abs() < 1e-12, "{}", p.value);
            let [lo, hi] = p.ci.expect("a delta-method interval");
            assert!(lo < p.value && p.value < hi);
        }
        assert!((predictions.level - 0.9).abs() < 1e-15);
        assert_eq!(predictions.intervals, IntervalSource::Delta);
    }

    #[test]
    fn an_unknown_variable_gets_the_closest_name() {
        let (fit, law) = chinchilla_fit();
        let error = job(&[("N", &[7e9]), ("DD", &[1e10])])
            .run(&fit, &law)
            .unwrap_err();
        let message = error.to_string();
        assert!(message.contains("'DD' is not a variable"), "{message}");
        assert!(message.contains("(did you mean 'D'?)"), "{message}");
        assert!(error.is_input_error());
    }

    #[test]
    fn lists_of_different_lengths_missing_and_bad_values_are_refused() {
        let (fit, law) = chinchilla_fit();
        let cases: &[Case] = &[
            (
                &[("N", &[1e9, 2e9]), ("D", &[1e10, 2e10, 3e10])],
                "N has 2 values but D has 3",
            ),
            (&[("N", &[1e9])], "no value for D"),
            (
                &[("N", &[]), ("D", &[1e10, 2e10])],
                "N has 0 values but D has 2",
            ),
            (
                &[("N", &[1e9]), ("D", &[1e10]), ("N", &[2e9])],
                "'N' is given twice",
            ),
            (&[("N", &[0.0]), ("D", &[1e10])], "N must be positive"),
            (
                &[("N", &[f64::INFINITY]), ("D", &[1e10])],
                "inf is not a finite number",
            ),
        ];
        for (points, expected) in cases {
            let message = job(points).run(&fit, &law).unwrap_err().to_string();
            assert!(message.contains(expected), "{message}");
        }
    }
}
