//! Downstream accuracy at scale: from the evaluations of smaller models (and a larger
//! model's own early checkpoints) to a task's accuracy at a larger model. Three methods side
//! by side, each with intervals calibrated by replaying it inside the data
//! (`calibrate.rs`):
//!
//! - `logistic`: per task, a sigmoid in log compute from the chance level to a fitted ceiling
//!   (`laws.rs`), the baseline of Ruan et al. 2024 and Gadre et al. 2024;
//! - `two_stage`: a Chinchilla loss law in N and D, then per task a sigmoid in that loss
//!   (Llama 3, the OLMo ladder, Gadre et al. 2024), when the evaluations carry a loss;
//! - `pooled`: the pooled trajectory model (`pooled.rs`), which extends each task's local
//!   trend with what every task's replays teach (a shrinkage prior on slopes and a learned
//!   damping).
//!
//! Each task is first diagnosed (`diagnose.rs`): a task at chance for every observed model
//! gets no number, only that verdict.

pub mod calibrate;
pub mod data;
pub mod diagnose;
mod engine;
mod forecast;
pub mod laws;
pub mod pooled;
mod replay;
pub mod trend;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use calibrate::Calibration;
pub use data::{DownstreamData, Evaluation, ModelInfo, TaskInfo};
pub use diagnose::Shape;

use crate::error::{Error, Result, Setting};
use crate::fit::FitSettings;
use crate::interrupt::Interrupt;

/// How the forecasts are made; each default once, in [`Default`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct DownstreamSettings {
    /// Level of the intervals.
    pub level: f64,
    /// How many of the largest model sizes the pooled model's trend runs through (2 to 64).
    pub anchors: usize,
    /// Tasks whose names start with this are unseen by the pooled model: its slope prior, γ
    /// and σ are learned from the other tasks only (a zero-shot transfer check).
    #[serde(default)]
    pub unseen: Option<String>,
    /// Worker threads (None: all cores). The result does not depend on it.
    #[serde(default)]
    pub threads: Option<usize>,
    /// Stops the fits and replays ([`Error::Interrupted`]).
    #[serde(skip)]
    #[schemars(skip)]
    pub interrupt: Interrupt,
}

impl Default for DownstreamSettings {
    fn default() -> Self {
        DownstreamSettings {
            level: crate::uncertainty::DEFAULT_LEVEL,
            anchors: 4,
            unseen: None,
            threads: None,
            interrupt: Interrupt::default(),
        }
    }
}

impl DownstreamSettings {
    /// What every fit of the analysis runs with: its threads and its interrupt.
    fn fit_run(&self) -> FitSettings {
        FitSettings {
            threads: self.threads,
            interrupt: self.interrupt.clone(),
            ..FitSettings::default()
        }
    }
}

/// The three methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// A sigmoid in log compute per task.
    Logistic,
    /// A loss law in N and D, then a sigmoid in the loss per task.
    TwoStage,
    /// The pooled trajectory model.
    Pooled,
}

impl Method {
    pub const ALL: [Method; 3] = [Method::Logistic, Method::TwoStage, Method::Pooled];

    pub fn name(self) -> &'static str {
        match self {
            Method::Logistic => "logistic",
            Method::TwoStage => "two-stage",
            Method::Pooled => "pooled",
        }
    }
}

/// How a forecast reaches its target: a model not yet trained (across sizes), or a model's
/// later checkpoints from its own earlier ones (across checkpoints).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// A model not yet trained.
    AcrossSizes,
    /// A model's later checkpoints from its own earlier ones.
    AcrossCheckpoints,
}

/// Where to forecast: a model of `params` parameters at `tokens` tokens. A `model` already
/// in the data is forecast across checkpoints from its own evaluations.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Target {
    pub model: String,
    pub params: f64,
    pub tokens: f64,
}

/// One method's forecast: its value and interval at the settings' level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "DownstreamForecast")]
pub struct Forecast {
    /// The forecast accuracy.
    pub value: f64,
    /// At the analysis' level, calibrated by replays inside the data.
    pub interval: [f64; 2],
}

/// Every method's forecast of one task at one target (None: the method could not be used;
/// the result's notes say why), and the observed accuracy in a backtest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskForecast {
    pub task: String,
    /// The task's diagnosis.
    pub shape: Shape,
    /// The target model.
    pub model: String,
    /// Its parameters N.
    pub params: f64,
    /// Its tokens D.
    pub tokens: f64,
    pub mode: Mode,
    /// The logistic law's forecast.
    pub logistic: Option<Forecast>,
    /// The two-stage chain's forecast (needs a loss).
    pub two_stage: Option<Forecast>,
    /// The pooled trajectory model's forecast.
    pub pooled: Option<Forecast>,
    /// The held-out accuracy, in a backtest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<f64>,
}

impl TaskForecast {
    pub fn of(&self, method: Method) -> Option<&Forecast> {
        match method {
            Method::Logistic => self.logistic.as_ref(),
            Method::TwoStage => self.two_stage.as_ref(),
            Method::Pooled => self.pooled.as_ref(),
        }
    }
}

/// A task's diagnosis and what it rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TaskDiagnosis {
    pub task: String,
    /// What its accuracy does as models grow.
    pub shape: Shape,
    /// Its chance level.
    pub chance: f64,
    /// Its number of questions, when given.
    pub questions: Option<f64>,
    /// The best accuracy any model scored (at any checkpoint).
    pub best: f64,
    /// Each model's last checkpoint on the task: [compute 6·N·D, accuracy], by compute.
    pub points: Vec<[f64; 2]>,
}

/// The mean over the forecast tasks at one target. Its interval is the mean of the tasks'
/// bounds: exact if the tasks' errors move together, wider than needed if they do not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "DownstreamAverage")]
pub struct Average {
    /// The target model.
    pub model: String,
    /// Its tokens D.
    pub tokens: f64,
    /// Tasks averaged.
    pub tasks: usize,
    pub logistic: Option<Forecast>,
    pub two_stage: Option<Forecast>,
    pub pooled: Option<Forecast>,
    /// The mean held-out accuracy, in a backtest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<f64>,
}

/// One method's calibration in one mode, and the replays it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "DownstreamCalibration")]
pub struct MethodCalibration {
    pub mode: Mode,
    pub method: Method,
    /// Where the replays came from (the origins, or the models whose checkpoints were hidden).
    pub replayed: String,
    #[serde(flatten)]
    pub calibration: Calibration,
}

/// A backtest's score of one method: mean absolute error in accuracy points, and the share of
/// observed accuracies inside the intervals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "DownstreamScore")]
pub struct Score {
    pub method: Method,
    /// Forecasts scored.
    pub forecasts: usize,
    /// Mean absolute error, in accuracy points.
    pub mae: f64,
    /// Share of observed accuracies inside their intervals.
    pub coverage: f64,
    /// Mean width of the intervals, in accuracy points.
    pub width: f64,
}

/// Everything a downstream analysis returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DownstreamResult {
    /// The intervals' level (e.g. 0.95).
    pub level: f64,
    /// Each task's diagnosis.
    pub tasks: Vec<TaskDiagnosis>,
    /// Every informative task's forecasts at every target.
    pub forecasts: Vec<TaskForecast>,
    /// The mean over the forecast tasks at each target.
    pub averages: Vec<Average>,
    /// How each method's intervals were calibrated, by mode.
    pub calibration: Vec<MethodCalibration>,
    /// A backtest's scores (empty for plain forecasts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scores: Vec<Score>,
    /// What could not be done, and why.
    pub notes: Vec<String>,
}

/// Forecasts every informative task at `targets` from all of `data`.
pub fn forecast(
    data: &DownstreamData,
    targets: &[Target],
    settings: &DownstreamSettings,
) -> Result<DownstreamResult> {
    check(settings)?;
    data.validate()?;
    if targets.is_empty() {
        return Err(refuse(
            Setting::At,
            "no target to forecast; give a model size and token count",
        ));
    }
    let result = crate::fit::with_threads(settings.threads, || {
        forecast::run(data, targets, None, settings)
    })?;
    // Interrupted, the fits left failed at once: what the run found is not the analysis's.
    settings.interrupt.check()?;
    result
}

/// Holds out the evaluations of the `holdout` models (all of them, or those after
/// `own_until` tokens), forecasts them from the rest, and scores every method.
pub fn backtest(
    data: &DownstreamData,
    holdout: &[String],
    own_until: Option<f64>,
    settings: &DownstreamSettings,
) -> Result<DownstreamResult> {
    check(settings)?;
    data.validate()?;
    let (training, targets, observed) = replay::holdout_split(data, holdout, own_until)?;
    let result = crate::fit::with_threads(settings.threads, || {
        forecast::run(&training, &targets, Some(&observed), settings)
    })?;
    settings.interrupt.check()?;
    result
}

/// An error of the setting `key`, led by the setting as each front end names it.
fn refuse(key: Setting, message: impl Into<String>) -> Error {
    Error::setting(key, crate::text![key.subject(), ": ", message.into()])
}

impl DownstreamSettings {
    /// The level and the anchors in range.
    pub fn check(&self) -> Result<()> {
        check(self)
    }
}

fn check(settings: &DownstreamSettings) -> Result<()> {
    crate::uncertainty::check_level(settings.level)?;
    if !(2..=64).contains(&settings.anchors) {
        return Err(refuse(
            Setting::Anchors,
            format!(
                "{} anchor sizes; the trend needs at least 2 (and at most 64)",
                settings.anchors
            ),
        ));
    }
    Ok(())
}
