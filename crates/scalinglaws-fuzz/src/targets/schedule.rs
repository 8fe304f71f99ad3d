//! The schedule target: each input line is a learning-rate schedule spec as `--schedule`
//! takes it (an optional first line `@every=K` sets the curve's step), with keys left out
//! taken from a saved fit of the bundled 400M curves (`fixtures/schedule_fit.json`). One spec
//! is predicted as `schedule predict` does, several compared as `schedule compare` does.
//! Specs are parsed first on their own; a schedule longer than [`MAX_EVALUATED_STEPS`] in all
//! is parsed but not evaluated (a long run is slow, not wrong: the caps belong to the library).

use std::sync::OnceLock;

use scalinglaws::analysis::schedule::{spec, ScheduleFit};
use scalinglaws::job::schedule::SchedulePredictJob;
use scalinglaws::workflow::schedule_compare::{ScheduleCompare, ScheduleCompareSpec};
use scalinglaws::workflow::{Ctx, Workflow};

use super::text;
use crate::Signature;

/// Steps, over every spec and its cooldown branches, above which the curves are not computed.
pub const MAX_EVALUATED_STEPS: usize = 2_000_000;
/// At most this many specs (a comparison has a handful).
const MAX_SPECS: usize = 6;

fn saved_fit() -> Option<&'static ScheduleFit> {
    static FIT: OnceLock<Option<ScheduleFit>> = OnceLock::new();
    FIT.get_or_init(|| {
        ScheduleFit::from_json(include_str!("../../fixtures/schedule_fit.json")).ok()
    })
    .as_ref()
}

pub fn run(input: &[u8]) -> Signature {
    let Some(text) = text(input) else {
        return Signature::tag("not utf-8");
    };
    let Some(fit) = saved_fit() else {
        return Signature::tag("no saved fit");
    };
    let mut lines: Vec<&str> = text.lines().collect();
    let mut every = 0;
    if let Some(first) = lines.first().and_then(|l| l.strip_prefix("@every=")) {
        every = first.trim().parse().unwrap_or(0);
        lines.remove(0);
    }
    lines.truncate(MAX_SPECS);
    let mut total = 0usize;
    for line in &lines {
        match spec::parse(line, Some(fit.defaults)) {
            Ok(parsed) => {
                total = total.saturating_add(parsed.main.lrs.len());
                for (_, branch) in &parsed.branches {
                    total = total.saturating_add(branch.lrs.len());
                }
            }
            Err(error) => return Signature::of_error("spec", &error),
        }
    }
    if total > MAX_EVALUATED_STEPS {
        return Signature::tag("long schedule");
    }
    match lines.as_slice() {
        [] => Signature::tag("no spec"),
        [one] => {
            let job = SchedulePredictJob {
                schedule: one.to_string(),
                every,
                interrupt: Default::default(),
            };
            Signature::of_result("predict", &job.run(fit))
        }
        many => {
            let spec = ScheduleCompareSpec {
                schedules: many.iter().map(|s| s.to_string()).collect(),
                every,
            };
            let compared = ScheduleCompare::run(&spec, fit, &Ctx::default());
            Signature::of_result("compare", &compared)
        }
    }
}
