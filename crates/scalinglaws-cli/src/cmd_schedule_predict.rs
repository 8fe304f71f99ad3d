//! `scalinglaws schedule predict`: the curve a saved fit predicts for a schedule spec, with
//! prediction intervals under `--bootstrap K` (a moving-block bootstrap of the fit's training
//! curves) or `--interval profile` (its profile-likelihood band), run as the library's
//! workflow `schedule_predict` by the one runner (`workflow.rs`); this file builds its spec
//! (syntax only: every default and rule is the spec's) and draws its `--plot`.

use anyhow::Result;
use scalinglaws::analysis::schedule::ScheduleFit;
use scalinglaws::workflow::schedule_predict::{
    IntervalMethod, SchedulePredict, SchedulePredictSpec, SchedulePrediction,
};
use scalinglaws::workflow::Ctx;
use scalinglaws_report::plots::schedules_page_with_bands;

use crate::args::schedule::PredictArgs;
use crate::figure::{self, Output};
use crate::input_error;
use crate::workflow::{run_drawing, Io};

/// The prediction's spec (the library's), where its fit comes from and its outputs go.
#[derive(Debug)]
pub struct PredictConfig {
    pub spec: SchedulePredictSpec,
    pub io: Io,
    pub plot: Option<Output>,
    /// `--max-work`.
    pub max_work: f64,
}

/// The arguments as the library's spec.
pub fn config(args: PredictArgs) -> Result<PredictConfig> {
    let (plot, json) =
        crate::config::schedule::plot_and_json(args.plot.as_deref(), args.json.as_deref())?;
    let intervals = args.intervals;
    let interval = match intervals.interval.as_deref() {
        None => None,
        Some("bootstrap") => Some(IntervalMethod::Bootstrap),
        Some("profile") => Some(IntervalMethod::Profile),
        Some(other) => {
            return Err(input_error(format!(
                "--interval {other}: give bootstrap or profile"
            )))
        }
    };
    Ok(PredictConfig {
        max_work: args.work.budget()?,
        io: Io {
            path: args.saved.fit,
            delimiter: None,
            json,
        },
        spec: SchedulePredictSpec {
            schedule: args.schedule,
            every: args.every,
            bootstrap: intervals.bootstrap.unwrap_or(0),
            interval,
            level: intervals.level,
            seed: intervals.seed,
        },
        plot,
    })
}

pub fn run(c: &PredictConfig) -> Result<()> {
    let ctx = Ctx {
        max_work: Some(c.max_work),
        ..Ctx::default()
    };
    run_drawing::<SchedulePredict>(&c.io, &c.spec, &ctx, |fit, prediction| match &c.plot {
        Some(target) => draw(fit, prediction, target),
        None => Ok(()),
    })
}

/// The schedule and its predicted curve, with the band when there are intervals.
fn draw(fit: &ScheduleFit, prediction: &SchedulePrediction, target: &Output) -> Result<()> {
    let curve = &prediction.curve;
    let band = prediction.band.as_ref();
    let title = match band {
        Some(b) => format!(
            "{} under the fitted {} ({}% prediction interval)",
            curve.schedule,
            fit.law.name(),
            b.level * 100.0
        ),
        None => format!("{} under the fitted {}", curve.schedule, fit.law.name()),
    };
    let page = schedules_page_with_bands(&title, std::slice::from_ref(curve), &[None], &[band])?;
    figure::write(&page, target)
}
