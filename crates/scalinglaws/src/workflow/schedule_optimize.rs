//! The schedule with the lowest final loss a saved schedule fit predicts, within a constraint
//! set (a linear warmup to the peak, then any non-increasing learning rate down to a floor):
//! accelerated projected gradient descent from the best of the standard schedules
//! (`analysis::schedule::optimize`, after §5 of Luo et al. 2025, arXiv:2503.12811, for every
//! curve law). Every default and rule of its settings is
//! here, once: the command line's `schedule optimize` and Python's `schedule_optimize` only
//! build this spec.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Workflow};
use crate::analysis::schedule::optimize::{optimize, OptimizeSettings, OptimizedSchedule};
use crate::analysis::schedule::ScheduleFit;
use crate::document::Document;
use crate::error::thousands;
use crate::error::{Error, Result, Setting};
use crate::limits::MAX_CURVE_POINTS;
use crate::text;

/// The workflow.
pub struct ScheduleOptimize;

/// The iterations of the search when none are given.
pub const MAX_ITERATIONS: usize = 400;

fn max_iterations() -> usize {
    MAX_ITERATIONS
}

/// The constraint set; each bound left out is the fit's training run's (the floor: peak/1000).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
pub struct ScheduleOptimizeSpec {
    /// Steps of the schedule (None: the fit's training run's).
    #[serde(default)]
    pub steps: Option<usize>,
    /// The peak learning rate (None: the fit's training run's).
    #[serde(default)]
    pub peak: Option<f64>,
    /// Linear warmup steps (None: the fit's training run's).
    #[serde(default)]
    pub warmup: Option<usize>,
    /// The lowest learning rate allowed (None: peak/1000).
    #[serde(default)]
    pub floor: Option<f64>,
    /// Iterations of projected gradient descent at most.
    #[serde(default = "max_iterations")]
    pub max_iterations: usize,
    /// Put the whole schedule in the document, one learning rate per step (up to the limit of
    /// points of a curve, 1,000,000 steps); without it the document has 41 samples of its
    /// shape.
    #[serde(default)]
    pub whole_schedule: bool,
}

impl ScheduleOptimizeSpec {
    /// The constraints with the fit's defaults filled in.
    pub fn settings(&self, fit: &ScheduleFit) -> OptimizeSettings {
        let peak = self.peak.unwrap_or(fit.defaults.peak);
        OptimizeSettings {
            steps: self.steps.unwrap_or(fit.defaults.steps),
            peak,
            warmup: self.warmup.unwrap_or(fit.defaults.warmup),
            floor: self.floor.unwrap_or(peak / 1000.0),
            max_iterations: self.max_iterations,
        }
    }
}

/// The optimised schedule, with every step's learning rate when they were asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "OptimizedSchedule")]
pub struct Optimized {
    /// The result of the search.
    #[serde(flatten)]
    pub result: OptimizedSchedule,
    /// The whole schedule, one learning rate per step (present when `whole_schedule` was
    /// asked for).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lr: Option<Vec<f64>>,
}

impl Document for Optimized {
    const KIND: &'static str = "schedule_optimize";
}

/// Refuses the whole schedule of more steps than a document may list, before the search.
fn check_whole_schedule(spec: &ScheduleOptimizeSpec, steps: usize) -> Result<()> {
    if !spec.whole_schedule || steps <= MAX_CURVE_POINTS {
        return Ok(());
    }
    Err(Error::setting(
        Setting::WholeSchedule,
        text![
            Setting::WholeSchedule.subject(),
            format!(
                ": a {}-step schedule is a value per step, more than the limit of {}; give ",
                thousands(steps),
                thousands(MAX_CURVE_POINTS)
            ),
            Setting::Steps.number(MAX_CURVE_POINTS),
            " or fewer, or leave out ",
            Setting::WholeSchedule.named(),
            " (41 samples of the schedule's shape are reported without it)"
        ],
    ))
}

impl Workflow for ScheduleOptimize {
    const NAME: &'static str = "schedule_optimize";
    const SUMMARY: &'static str =
        "The schedule with the lowest final loss a saved schedule fit predicts: a linear warmup to the peak, then any non-increasing learning rate down to the floor, searched from the best of the standard schedules (constant, cosine, WSD), so never worse than those";
    type Request = ScheduleOptimizeSpec;
    type Spec = ScheduleOptimizeSpec;
    type Output = Optimized;
    type Input = ScheduleFit;

    fn spec(request: ScheduleOptimizeSpec) -> Result<ScheduleOptimizeSpec> {
        Ok(request)
    }

    /// Bounded by the search's own limit of step-iterations (`limits::MAX_OPTIMIZE_WORK`,
    /// seconds on two cores), not by the work budget.
    fn run(spec: &ScheduleOptimizeSpec, fit: &ScheduleFit, ctx: &Ctx) -> Result<Optimized> {
        let settings = spec.settings(fit);
        check_whole_schedule(spec, settings.steps)?;
        let result = optimize(fit, &settings, &ctx.interrupt)?;
        let lr = spec.whole_schedule.then(|| result.lrs.clone());
        Ok(Optimized { result, lr })
    }
}
