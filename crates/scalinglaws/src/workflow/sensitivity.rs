//! How much does a prediction rest on one scale? The fit of every run predicts at a target
//! point; then each scale group (the runs of one scale, grouped as the calibration groups
//! them) is dropped in turn, the law refitted on the rest and the prediction repeated. A
//! prediction that moves by more than its own interval when one scale goes is resting on that
//! scale, whatever the interval says: leave-one-out influence (Cook 1977; jackknife-after-fit,
//! Efron 1982, ch. 2) applied to scale groups instead of rows, since the runs of one scale share
//! its quirks (the tuning at that size, one data order).

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::predict::PredictJob;
use super::{Ctx, Workflow};
use crate::data::recipe::{Recipe, Table};
use crate::document::Document;
use crate::error::{Error, Result, Setting, Text};
use crate::fit::{FitData, FitSettings};
use crate::job::fit::{ModelRequest, RecipeRequest, UncertaintyRequest};
use crate::job::qc::QcMode;
use crate::job::FitJob;
use crate::law::Law;
use crate::text;
use crate::uncertainty::calibration::scale_groups;
use crate::uncertainty::predict_with_intervals_of;

/// The workflow.
pub struct Sensitivity;

/// What to refit and where to predict, as a face sends it: `fit`'s recipe, law and settings,
/// the full fit's uncertainty (no profiles, and no variance model: neither acts here), the
/// scale column and the point.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SensitivityRequest {
    /// `target`, `map`, `derive`, `where`, `weights`, `trials` and `exposure`.
    #[serde(flatten)]
    pub recipe: RecipeRequest,
    /// The law and how it is fitted.
    #[serde(flatten)]
    pub model: ModelRequest,
    /// The full fit's intervals: `bootstrap`, `cluster`, `level`, `calibrate`.
    #[serde(flatten)]
    pub uncertainty: UncertaintyRequest,
    /// Quality control of the runs before the fits: `warn`, `exclude` or `off`.
    #[serde(default)]
    pub qc: QcMode,
    /// The column that orders scale (e.g. compute): its groups are dropped one at a time.
    pub by: String,
    /// The point to predict at: a value for each of the law's variables.
    pub at: BTreeMap<String, f64>,
    /// Refuse a point more than this many decades beyond the largest run (in the law's own
    /// scale; None: no limit).
    #[serde(default)]
    pub max_decades: Option<f64>,
}

/// What to refit and where to predict, parsed.
#[derive(Debug, Clone)]
pub struct SensitivitySpec {
    /// The runs' columns, the law and how it is fitted, as `fit` takes them.
    pub fit: FitJob,
    /// The column that orders scale (e.g. compute): its groups are dropped one at a time.
    pub by: String,
    /// The point to predict at: a value for each of the law's variables.
    pub at: BTreeMap<String, f64>,
    /// Refuse a point more than this many decades beyond the largest run (None: no limit).
    pub max_decades: Option<f64>,
}

impl TryFrom<SensitivityRequest> for SensitivitySpec {
    type Error = Error;

    fn try_from(request: SensitivityRequest) -> Result<SensitivitySpec> {
        let seed = request.model.law.seed;
        let (law, settings) = request.model.model()?;
        let by = request.by.trim().to_string();
        // `run` orders the full fit's calibration by `by`.
        let uncertainty = request.uncertainty.settings(seed, None);
        Ok(SensitivitySpec {
            fit: FitJob {
                recipe: Recipe::try_from(request.recipe)?,
                law,
                settings,
                uncertainty,
                qc: request.qc,
            },
            by,
            at: request.at,
            max_decades: request.max_decades,
        })
    }
}

impl SensitivitySpec {
    /// Refuses what a fit takes and this workflow does not use: a variance model, profiles.
    fn check_unused(&self) -> Result<()> {
        let unused = [
            (
                self.fit.settings.heteroscedastic.is_some(),
                Setting::Heteroscedastic,
            ),
            (!self.fit.uncertainty.profiles.is_empty(), Setting::Profile),
        ];
        match unused.into_iter().find(|(given, _)| *given) {
            None => Ok(()),
            Some((_, setting)) => Err(Error::setting(
                setting,
                text!["sensitivity does not take ", setting, ": drop it"],
            )),
        }
    }

    /// `max_decades`, when given, is a positive number of decades, and the fit is calibrated
    /// (the calibration measures a point's distance from the runs).
    fn check_max_decades(&self) -> Result<()> {
        if self.max_decades.is_some() && !self.fit.uncertainty.calibrate {
            return Err(Error::setting(
                Setting::MaxDecades,
                text![
                    Setting::MaxDecades.subject(),
                    " needs the calibration that measures a point's distance from the runs, \
                     which is turned off: keep it, or drop the limit"
                ],
            ));
        }
        match self.max_decades {
            Some(limit) if !(limit > 0.0 && limit.is_finite()) => Err(Error::setting(
                Setting::MaxDecades,
                text![
                    Setting::MaxDecades.number(limit),
                    ": give a positive number of decades"
                ],
            )),
            _ => Ok(()),
        }
    }

    /// Refuses a point beyond `max_decades` (and one whose distance is not measured).
    fn check_distance(&self, distance: Option<f64>) -> Result<()> {
        let Some(limit) = self.max_decades else {
            return Ok(());
        };
        match distance {
            Some(d) if d <= limit => Ok(()),
            Some(d) => Err(Error::setting(
                Setting::MaxDecades,
                text![
                    format!("the point is {d:.2} decades beyond the largest run, more than "),
                    Setting::MaxDecades.number(limit),
                    ": predict nearer, or raise the limit"
                ],
            )),
            None => Err(Error::setting(
                Setting::MaxDecades,
                text![
                    Setting::MaxDecades.subject(),
                    " needs the point's distance from the runs, which only a calibrated fit \
                     measures, and this fit has no calibration: drop the limit"
                ],
            )),
        }
    }
}

/// The prediction of the fit of every run at the point, with its intervals.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct FullPrediction {
    /// The law's prediction.
    pub value: f64,
    /// Confidence interval of the law's mean.
    pub ci: Option<[f64; 2]>,
    /// Prediction interval of a new run (calibrated beyond the data when the fit is).
    pub pi: Option<[f64; 2]>,
    /// Signed decades from the fitted range (beyond the largest run > 0).
    pub distance_decades: Option<f64>,
}

/// The prediction without one scale group.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct DroppedGroup {
    /// The smallest value of the scale column in the group.
    pub scale_low: f64,
    /// The largest value of the scale column in the group.
    pub scale_high: f64,
    /// Runs in the group (left out of this refit).
    pub rows: usize,
    /// The refit's prediction at the point (None: the refit failed).
    pub value: Option<f64>,
    /// value / full prediction − 1.
    pub change: Option<f64>,
    /// Whether the refit's prediction lies inside the full fit's prediction interval.
    pub within_pi: Option<bool>,
    /// Whether the refit converged.
    pub converged: Option<bool>,
    /// Why the refit failed.
    pub error: Option<Text>,
}

/// How far the prediction at a point moves when each scale group is left out of the fit.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct SensitivityResult {
    /// The law as reports name it.
    pub law: String,
    /// Where the runs came from.
    pub data: String,
    /// The column that orders scale.
    pub by: String,
    /// The point, by the law's variables.
    pub at: BTreeMap<String, f64>,
    /// The level of the intervals.
    pub level: f64,
    /// The prediction of the fit of every run.
    pub full: FullPrediction,
    /// One entry per scale group, from the smallest scale up.
    pub groups: Vec<DroppedGroup>,
    /// The largest |change| over the groups refitted.
    pub max_change: Option<f64>,
    /// The scale group whose dropping moves the prediction most (its index in `groups`).
    pub most_influential: Option<usize>,
}

impl Document for SensitivityResult {
    const KIND: &'static str = "sensitivity";
}

impl Workflow for Sensitivity {
    const NAME: &'static str = "sensitivity";
    const SUMMARY: &'static str =
        "How far the prediction at a point moves when each scale group is left out of the fit";
    type Request = SensitivityRequest;
    type Spec = SensitivitySpec;

    fn spec(request: SensitivityRequest) -> Result<SensitivitySpec> {
        SensitivitySpec::try_from(request)
    }
    type Output = SensitivityResult;

    fn check(spec: &SensitivitySpec) -> Result<()> {
        spec.check_unused()?;
        spec.check_max_decades()
    }

    type Input = Table;

    fn recipe(spec: &SensitivitySpec) -> Option<&Recipe> {
        Some(&spec.fit.recipe)
    }

    fn run(spec: &SensitivitySpec, table: &Table, ctx: &Ctx) -> Result<SensitivityResult> {
        let mut job = spec.fit.clone();
        job.uncertainty.by = Some(spec.by.clone());
        ctx.apply(&mut job.settings.settings);
        let (_, (_, count)) = scale_of(table, &spec.by)?;
        let refits = |shape: &crate::work::FitShape| {
            shape.estimate().repeated(
                count as f64,
                "refits without a scale group",
                Some(Setting::By),
            )
        };
        let outcome = job.run_adding(table, &|_| {}, &refits)?;
        // The scale of the rows fitted (a sweep's frontier rows, or those QC kept).
        let (scale, (group_of, count)) =
            scale_of(outcome.rows.as_ref().unwrap_or(table), &spec.by)?;
        let (law, record) = (&outcome.law, &outcome.result);
        let level = job.uncertainty.level;
        let points = PredictJob {
            points: spec.at.iter().map(|(k, v)| (k.clone(), vec![*v])).collect(),
            level,
        }
        .points_of(record, law)?;
        let (predicted, _) = predict_with_intervals_of(law, record, &points, level)?;
        let full = &predicted[0];
        spec.check_distance(full.distance_decades)?;
        let scales = Groups {
            of_row: &group_of,
            scale: &scale,
            count,
        };
        let refit = Refit {
            law,
            data: &outcome.data,
            settings: &record.settings,
            point: &points[0],
        };
        let groups = crate::fit::with_threads(job.settings.settings.threads, || {
            scales.dropped(&refit, full.value, full.pi)
        })??;
        let (most_influential, max_change) = most_influential(&groups);
        Ok(SensitivityResult {
            law: law.label().to_string(),
            data: table.dataset.source().to_string(),
            by: spec.by.clone(),
            at: spec.at.clone(),
            level,
            full: FullPrediction {
                value: full.value,
                ci: full.ci,
                pi: full.pi,
                distance_decades: full.distance_decades,
            },
            groups,
            max_change,
            most_influential,
        })
    }
}

/// The rows by scale group.
struct Groups<'a> {
    of_row: &'a [usize],
    scale: &'a [f64],
    count: usize,
}

/// A refit of the law without some rows, and the point it predicts at.
struct Refit<'a> {
    law: &'a Law,
    data: &'a FitData,
    settings: &'a FitSettings,
    point: &'a [f64],
}

impl Groups<'_> {
    /// Every group dropped in turn, from the smallest scale up.
    fn dropped(&self, refit: &Refit, full: f64, pi: Option<[f64; 2]>) -> Result<Vec<DroppedGroup>> {
        if self.of_row.len() != refit.data.target.len() {
            return Err(Error::settings(format!(
                "the scale column has {} values for {} rows",
                self.of_row.len(),
                refit.data.target.len()
            )));
        }
        (0..self.count)
            .map(|group| {
                refit.settings.interrupt.check()?;
                let rows: Vec<usize> = (0..self.of_row.len())
                    .filter(|&row| self.of_row[row] != group)
                    .collect();
                let left_out: Vec<f64> = (0..self.of_row.len())
                    .filter(|&row| self.of_row[row] == group)
                    .map(|row| self.scale[row])
                    .collect();
                let low = left_out.iter().copied().fold(f64::INFINITY, f64::min);
                let high = left_out.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let mut dropped = DroppedGroup {
                    scale_low: low,
                    scale_high: high,
                    rows: left_out.len(),
                    value: None,
                    change: None,
                    within_pi: None,
                    converged: None,
                    error: None,
                };
                match refit.without(&rows) {
                    Ok((value, converged)) => {
                        dropped.value = Some(value);
                        dropped.change = (full != 0.0).then(|| value / full - 1.0);
                        dropped.within_pi = pi.map(|[lo, hi]| lo <= value && value <= hi);
                        dropped.converged = Some(converged);
                    }
                    Err(e) if e.is_interrupted() => return Err(e),
                    Err(e) => dropped.error = Some(e.text()),
                }
                Ok(dropped)
            })
            .collect()
    }
}

impl Refit<'_> {
    /// The law fitted to `rows` alone, at the point, and whether the fit converged.
    fn without(&self, rows: &[usize]) -> Result<(f64, bool)> {
        let free = self.law.params.len() - self.settings.fixed.len();
        if rows.len() <= free {
            return Err(Error::settings(format!(
                "{} rows are left to fit {free} free parameters",
                rows.len()
            )));
        }
        let fit = crate::fit::fit(self.law, &self.data.subset(rows), self.settings)?;
        let value = self.law.eval(&fit.param_values(), self.point);
        Ok((value, fit.converged))
    }
}

/// The group whose dropping moves the prediction most, and by how much.
fn most_influential(groups: &[DroppedGroup]) -> (Option<usize>, Option<f64>) {
    groups
        .iter()
        .enumerate()
        .filter_map(|(index, g)| g.change.map(|c| (index, c.abs())))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map_or((None, None), |(index, change)| (Some(index), Some(change)))
}

/// The scale column `by` of `table` and its scale groups, refused below 3 groups (leaving one
/// out needs at least 3).
fn scale_of(table: &Table, by: &str) -> Result<(Vec<f64>, (Vec<usize>, usize))> {
    let scale = table.values(by, Setting::By)?;
    let (group_of, count) = scale_groups(&scale);
    if count < 3 {
        return Err(Error::setting(
            Setting::By,
            text![format!(
                "'{by}' forms {count} scale group(s); leaving one out needs at least 3"
            )],
        ));
    }
    Ok((scale, (group_of, count)))
}
