//! Several schedules side by side under a saved schedule fit: each one's predicted curve, the
//! one with the lowest final loss and every other's gap to it (`analysis::schedule::
//! compare_rates`; the laws are those of `analysis::schedule`, each citing its source). Every
//! default and rule of its settings is here, once: the command line's `schedule compare` and
//! Python's `schedule_compare` only build this spec.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Ctx, Workflow};
use crate::analysis::schedule::{
    check_compared, compare_rates, cost, spec, Comparison, Rates, ScheduleFit,
};
use crate::document::Document;
use crate::error::Result;

/// The workflow.
pub struct ScheduleCompare;

/// The schedules compared; each one's keys left out are the fit's training run's.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
pub struct ScheduleCompareSpec {
    /// The schedules, each KIND:KEY=VALUE,... as `schedule_predict` takes one (at least two).
    pub schedules: Vec<String>,
    /// Report each curve every K steps (0: about 200 points).
    #[serde(default)]
    pub every: usize,
}

impl Document for Comparison {
    const KIND: &'static str = "schedule_compare";
}

impl Workflow for ScheduleCompare {
    const NAME: &'static str = "schedule_compare";
    const SUMMARY: &'static str =
        "Several schedules' curves and final losses under a saved schedule fit, side by side: the schedule with the lowest final loss and each one's gap to it";
    type Request = ScheduleCompareSpec;
    type Spec = ScheduleCompareSpec;
    type Output = Comparison;
    type Input = ScheduleFit;

    fn spec(request: ScheduleCompareSpec) -> Result<ScheduleCompareSpec> {
        Ok(request)
    }

    /// At least two schedules, before the fit is read.
    fn check(spec: &ScheduleCompareSpec) -> Result<()> {
        check_compared(spec.schedules.len())
    }

    /// The curves, refused before any is computed when their points or their estimate
    /// ([`cost::predictions`], the steps of every schedule) are over the limits.
    fn run(spec: &ScheduleCompareSpec, fit: &ScheduleFit, ctx: &Ctx) -> Result<Comparison> {
        let mut parsed = spec
            .schedules
            .iter()
            .map(|s| spec::parse_rates(s, Some(fit.defaults)))
            .collect::<Result<Vec<_>>>()?;
        for schedule in &mut parsed {
            crate::limits::check_curve_points(schedule.main.len(), spec.every)?;
            schedule.stop_on(&ctx.interrupt);
        }
        cost::predictions(&parsed).check(ctx.work_budget())?;
        let comparison = compare_rates(fit, &parsed, spec.every);
        // A stopped pass compared nothing: whatever it gave (or refused) is not the answer.
        ctx.interrupt.check()?;
        comparison
    }
}
