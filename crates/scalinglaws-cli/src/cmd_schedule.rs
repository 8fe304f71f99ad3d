//! `scalinglaws schedule`: loss curves under learning-rate schedules. `fit` fits a curve law
//! to logged runs and scores every run; `predict`, `compare`, `optimize` and `cooldown` use a
//! saved fit (the JSON `fit --json` writes) to answer what a schedule would do, each run as
//! the library's workflow by the one runner (`workflow.rs`), with its figure and files drawn
//! here.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use scalinglaws::analysis::schedule::intervals::saved_curves;
use scalinglaws::analysis::schedule::optimize::OptimizedSchedule;
use scalinglaws::analysis::schedule::{
    predict, spec, Curve, ParsedSpec, Prediction, Schedule, ScheduleFit,
};
use scalinglaws::workflow::schedule_compare::{ScheduleCompare, ScheduleCompareSpec};
use scalinglaws::workflow::schedule_cooldown::ScheduleCooldown;
use scalinglaws::workflow::schedule_fit::{LogTable, LogTables, ScheduleFitWorkflow};
use scalinglaws::workflow::schedule_optimize::{ScheduleOptimize, ScheduleOptimizeSpec};
use scalinglaws::workflow::{Ctx, Workflow};

use crate::config::{ScheduleConfig, ScheduleFitConfig};
use crate::figure::{self, Output};
use crate::input;
use crate::output;
use crate::workflow::{run_drawing, run_loaded, Io};
use scalinglaws_report::plots::schedules_page;

pub fn run(config: ScheduleConfig) -> Result<()> {
    match config {
        ScheduleConfig::Fit(c) => run_fit(&c),
        ScheduleConfig::Predict(c) => crate::cmd_schedule_predict::run(&c),
        ScheduleConfig::Compare {
            io,
            spec,
            plot,
            max_work,
        } => run_compare(&io, &spec, plot.as_ref(), max_work),
        ScheduleConfig::Optimize {
            io,
            spec,
            schedule_csv,
            plot,
        } => run_optimize(&io, &spec, schedule_csv.as_deref(), plot.as_ref()),
        ScheduleConfig::Cooldown { io, spec } => {
            crate::workflow::run::<ScheduleCooldown>(&io, &spec, &Ctx::default())
        }
        ScheduleConfig::CooldownStudy(c) => crate::cmd_schedule_study::run(&c),
    }
}

fn run_fit(config: &ScheduleFitConfig) -> Result<()> {
    let spec = &config.spec;
    ScheduleFitWorkflow::check(spec)?;
    let tables = config
        .files
        .iter()
        .map(|path| {
            let table = input::read(path, config.delimiter, &spec.recipe)?;
            Ok(LogTable::from_file(table, path))
        })
        .collect::<Result<Vec<_>>>()?;
    let ctx = Ctx {
        max_work: Some(config.max_work),
        ..Ctx::default()
    };
    let logs = LogTables(tables);
    run_loaded::<ScheduleFitWorkflow>(&logs, spec, &ctx, config.json.as_ref(), |_, fit| {
        match &config.plot {
            Some(target) => plot_runs(fit, &saved_curves(fit)?, target),
            None => Ok(()),
        }
    })
}

fn run_compare(
    io: &Io,
    spec: &ScheduleCompareSpec,
    plot: Option<&Output>,
    max_work: f64,
) -> Result<()> {
    let ctx = Ctx {
        max_work: Some(max_work),
        ..Ctx::default()
    };
    run_drawing::<ScheduleCompare>(io, spec, &ctx, |fit, comparison| match plot {
        Some(target) => {
            let title = format!("schedules under the fitted {}", fit.law.name());
            let observed = vec![None; comparison.schedules.len()];
            let page = schedules_page(&title, &comparison.schedules, &observed)?;
            figure::write(&page, target)
        }
        None => Ok(()),
    })
}

fn run_optimize(
    io: &Io,
    spec: &ScheduleOptimizeSpec,
    schedule_csv: Option<&Path>,
    plot: Option<&Output>,
) -> Result<()> {
    run_drawing::<ScheduleOptimize>(io, spec, &Ctx::default(), |fit, best| {
        if let Some(path) = schedule_csv {
            // The spec asks for the whole schedule whenever a CSV is asked for.
            let lrs = best.lr.as_ref().ok_or_else(|| {
                anyhow::anyhow!("--schedule-csv: the document holds no whole schedule")
            })?;
            let mut csv = String::from("step,lr\n");
            for (s, lr) in lrs.iter().enumerate() {
                let _ = writeln!(csv, "{s},{lr:e}");
            }
            output::write_file(path, csv.as_bytes())?;
        }
        match plot {
            Some(target) => plot_optimized(fit, &best.result, target),
            None => Ok(()),
        }
    })
}

/// Each run's logged losses and the fitted curve (the first 8 runs; the rest are named).
fn plot_runs(fit: &ScheduleFit, curves: &[Curve], target: &Output) -> Result<()> {
    let params = fit.values();
    let shown = &curves[..curves.len().min(8)];
    if curves.len() > 8 {
        let left: Vec<&str> = curves[8..].iter().map(|c| c.run.as_str()).collect();
        eprintln!("--plot: 8 runs drawn; not drawn: {}", left.join(", "));
    }
    let predictions: Vec<Prediction> = shown
        .iter()
        .map(|c| {
            let loss = fit.law.evaluate(&params, &c.lrs, &c.steps, false).values;
            let role = if fit.train.contains(&c.run) {
                "train"
            } else {
                "test"
            };
            Prediction {
                schedule: format!("{} ({role})", c.run),
                steps_total: c.lrs.len(),
                peak_lr: Schedule { lrs: c.lrs.clone() }.peak(),
                final_lr: c.lrs[c.lrs.len() - 1],
                final_loss: *loss.last().unwrap_or(&f64::NAN),
                lr: c.steps.iter().map(|&s| c.lrs[s]).collect(),
                steps: c.steps.clone(),
                loss,
                cooldowns: Vec::new(),
            }
        })
        .collect();
    let observed: Vec<_> = shown
        .iter()
        .map(|c| Some((c.steps.clone(), c.loss.clone())))
        .collect();
    let title = format!(
        "{}: logged losses (points) and the fitted curves",
        fit.law.name()
    );
    figure::write(&schedules_page(&title, &predictions, &observed)?, target)
}

/// The optimised schedule against the best standard one and the constant schedule.
fn plot_optimized(fit: &ScheduleFit, best: &OptimizedSchedule, target: &Output) -> Result<()> {
    let optimised = ParsedSpec {
        text: "optimised".into(),
        main: Schedule {
            lrs: best.lrs.clone(),
        },
        branches: Vec::new(),
    };
    let mut predictions = vec![predict(fit, &optimised, 0)?];
    let constant = best.baselines.first().map(|b| b.schedule.clone());
    for text in [Some(best.best_baseline.clone()), constant]
        .into_iter()
        .flatten()
    {
        predictions.push(predict(fit, &spec::parse(&text, None)?, 0)?);
    }
    let observed = vec![None; predictions.len()];
    let title = format!(
        "the schedule minimising the final loss under {}",
        fit.law.name()
    );
    figure::write(&schedules_page(&title, &predictions, &observed)?, target)
}
