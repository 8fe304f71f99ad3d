//! `scalinglaws schedule`: loss curves under learning-rate schedules. `fit` fits a curve law
//! to logged runs and scores every run; `predict`, `compare`, `optimize` and `cooldown` use a
//! saved fit (the JSON `fit --json` writes) to answer what a schedule would do.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use scalinglaws::analysis::schedule::optimize::OptimizedSchedule;
use scalinglaws::analysis::schedule::{
    predict, spec, Curve, ParsedSpec, Prediction, Schedule, ScheduleFit,
};
use scalinglaws::job::schedule::{ScheduleCompareJob, ScheduleOptimizeJob};
use scalinglaws::workflow::schedule_cooldown::ScheduleCooldown;
use scalinglaws::workflow::Ctx;

use crate::config::{ScheduleConfig, ScheduleFitConfig};
use crate::figure::{self, Output};
use crate::input;
use crate::output::{self, Destination};
use crate::saved;
use scalinglaws_report::analyses::schedule;
use scalinglaws_report::plots::schedules_page;

pub fn run(config: ScheduleConfig) -> Result<()> {
    match config {
        ScheduleConfig::Fit(c) => run_fit(c),
        ScheduleConfig::Predict(c) => crate::cmd_schedule_predict::run(&c),
        ScheduleConfig::Compare {
            fit,
            job,
            plot,
            json,
        } => run_compare(&saved::schedule_fit(&fit)?, &job, plot.as_ref(), json),
        ScheduleConfig::Optimize {
            fit,
            job,
            schedule_csv,
            plot,
            json,
        } => run_optimize(
            &saved::schedule_fit(&fit)?,
            &job,
            schedule_csv.as_deref(),
            plot.as_ref(),
            json,
        ),
        ScheduleConfig::Cooldown { io, spec } => {
            crate::workflow::run::<ScheduleCooldown>(&io, &spec, &Ctx::default())
        }
        ScheduleConfig::CooldownStudy(c) => crate::cmd_schedule_study::run(&c),
    }
}

fn run_fit(config: ScheduleFitConfig) -> Result<()> {
    let mut logs = Vec::new();
    for recipe in &config.files {
        let table = input::load(recipe)?;
        let stem = recipe
            .path
            .file_stem()
            .map_or("run".into(), |s| s.to_string_lossy().to_string());
        logs.extend(config.job.logs(&table, &stem)?);
    }
    let fitted = config.job.run_within(&logs, config.max_work)?;
    if let Some(target) = &config.plot {
        plot_runs(&fitted.fit, &fitted.curves, target)?;
    }
    let files: Vec<String> = config
        .files
        .iter()
        .map(|r| r.path.display().to_string())
        .collect();
    let report = schedule::FitReport {
        fit: &fitted.fit,
        files,
    };
    output::emit(config.json.as_ref(), &report)
}

fn run_compare(
    fit: &ScheduleFit,
    job: &ScheduleCompareJob,
    plot: Option<&Output>,
    json: Option<Destination>,
) -> Result<()> {
    let comparison = job.run(fit)?;
    if let Some(target) = plot {
        let title = format!("schedules under the fitted {}", fit.law.name());
        let observed = vec![None; comparison.schedules.len()];
        figure::write(
            &schedules_page(&title, &comparison.schedules, &observed)?,
            target,
        )?;
    }
    output::emit(json.as_ref(), &schedule::ComparisonReport(&comparison))
}

fn run_optimize(
    fit: &ScheduleFit,
    job: &ScheduleOptimizeJob,
    schedule_csv: Option<&Path>,
    plot: Option<&Output>,
    json: Option<Destination>,
) -> Result<()> {
    let steps = job.settings(fit).steps;
    let limit = scalinglaws::limits::MAX_CURVE_POINTS;
    if schedule_csv.is_some() && steps > limit {
        return Err(crate::input_error(format!(
            "--schedule-csv: a {}-step schedule is a row per step, more than the limit of {} \
             rows; give --steps {} or fewer, or leave out --schedule-csv (the report shows the \
             schedule's shape)",
            scalinglaws::limits::thousands(steps),
            scalinglaws::limits::thousands(limit),
            limit
        )));
    }
    let best = job.run(fit)?;
    if let Some(path) = schedule_csv {
        let mut csv = String::from("step,lr\n");
        for (s, lr) in best.lrs.iter().enumerate() {
            let _ = writeln!(csv, "{s},{lr:e}");
        }
        output::write_file(path, csv.as_bytes())?;
    }
    if let Some(target) = plot {
        plot_optimized(fit, &best, target)?;
    }
    output::emit(json.as_ref(), &schedule::OptimizedReport(&best))
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
