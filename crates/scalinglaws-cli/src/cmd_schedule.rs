//! `scalinglaws schedule`: loss curves under learning-rate schedules. `fit` fits a curve law
//! to logged runs and scores every run; `predict`, `compare`, `optimize` and `cooldown` use a
//! saved fit (the JSON `fit --json` writes) to answer what a schedule would do.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use scalinglaws::analysis::schedule::optimize::{CooldownRow, OptimizedSchedule};
use scalinglaws::analysis::schedule::{
    predict, spec, Comparison, Curve, ParsedSpec, Prediction, Schedule, ScheduleFit,
};
use scalinglaws::job::schedule::{ScheduleCompareJob, ScheduleOptimizeJob};
use scalinglaws_plot::kinds::schedules_page;

use crate::cmd_plot::{self, Output};
use crate::config::{ScheduleConfig, ScheduleFitConfig};
use crate::input;
use crate::output::{self, Destination};
use scalinglaws_report::text::{columns, number};

pub fn run(config: ScheduleConfig) -> Result<()> {
    match config {
        ScheduleConfig::Fit(c) => run_fit(c),
        ScheduleConfig::Predict { fit, job, json } => {
            let prediction = job.run(&load_fit(&fit)?)?;
            let mut out = String::from("[[Schedule prediction]]\n");
            out.push_str(&render_prediction(&prediction));
            let json_text = || Ok(serde_json::to_string_pretty(&prediction)?);
            output::emit(json.as_ref(), json_text, &out)
        }
        ScheduleConfig::Compare {
            fit,
            job,
            plot,
            json,
        } => run_compare(&load_fit(&fit)?, &job, plot.as_deref(), json),
        ScheduleConfig::Optimize {
            fit,
            job,
            schedule_csv,
            plot,
            json,
        } => run_optimize(
            &load_fit(&fit)?,
            &job,
            schedule_csv.as_deref(),
            plot.as_deref(),
            json,
        ),
        ScheduleConfig::Cooldown { fit, job, json } => {
            let table = job.run(&load_fit(&fit)?)?;
            let out = render_cooldowns(&table.rows, table.peak, table.last, job.decay.name());
            let json_text = || Ok(serde_json::to_string_pretty(&table.rows)?);
            output::emit(json.as_ref(), json_text, &out)
        }
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
    let fitted = config.job.run(&logs)?;
    if let Some(target) = &config.plot {
        plot_runs(&fitted.fit, &fitted.curves, target)?;
    }
    let files: Vec<String> = config
        .files
        .iter()
        .map(|r| r.path.display().to_string())
        .collect();
    let text = render_fit(&fitted.fit, &files);
    output::emit(
        config.json.as_ref(),
        || Ok(serde_json::to_string_pretty(&fitted.fit)?),
        &text,
    )
}

fn render_fit(fit: &ScheduleFit, files: &[String]) -> String {
    let mut out = String::from("[[Schedule fit]]\n");
    let _ = writeln!(out, "    law       {} ({})", fit.law.name(), fit.citation);
    let _ = writeln!(out, "              {}", fit.formula);
    let _ = writeln!(
        out,
        "    data      {} ({} runs)",
        files.join(", "),
        fit.runs.len()
    );
    let _ = writeln!(
        out,
        "    trained   {} ({} points); objective {} (Huber δ = 1e-3 on log loss, summed); {} after {} iterations from the best of {} starts",
        fit.train.join(", "),
        fit.train_points,
        number(fit.objective, 6),
        fit.termination,
        fit.iterations,
        fit.starts
    );
    let _ = writeln!(
        out,
        "    schedule  specs default to peak {}, warmup {}, {} steps",
        fit.defaults.peak, fit.defaults.warmup, fit.defaults.steps
    );
    out.push_str("\n  Parameters\n");
    let mut rows = vec![vec!["name".to_string(), "value".into(), "se".into()]];
    for p in &fit.params {
        rows.push(vec![
            p.name.clone(),
            number(p.value, 6),
            p.se.map_or("fixed".into(), |s| number(s, 3)),
        ]);
    }
    out.push_str(&columns(&rows, &[0], "    "));
    out.push_str("\n  Runs (R² of the predicted curve; error of the last logged loss)\n");
    let mut rows = vec![vec![
        "run".to_string(),
        "role".into(),
        "points".into(),
        "last step".into(),
        "R²".into(),
        "final error".into(),
    ]];
    for r in &fit.runs {
        rows.push(vec![
            r.run.clone(),
            if r.train {
                "train".into()
            } else {
                "test".into()
            },
            r.points.to_string(),
            r.last_step.to_string(),
            r.r2.map_or("-".into(), |r2| format!("{r2:.5}")),
            format!("{:+.3}%", 100.0 * r.final_error),
        ]);
    }
    out.push_str(&columns(&rows, &[0, 1], "    "));
    if let Some(mean) = fit.mean_test_r2 {
        let _ = writeln!(out, "    mean R² over the test runs: {mean:.5}");
    }
    if !fit.warnings.is_empty() {
        out.push_str("\n  Warnings\n");
        for w in &fit.warnings {
            let _ = writeln!(out, "    - {w}");
        }
    }
    out
}

fn load_fit(path: &Path) -> Result<ScheduleFit> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    Ok(ScheduleFit::from_json(&text).map_err(|e| e.within(path.display().to_string()))?)
}

fn render_prediction(p: &Prediction) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "    schedule  {}", p.schedule);
    let _ = writeln!(
        out,
        "    final     loss {} at step {} (lr {} → {})",
        number(p.final_loss, 6),
        p.steps_total - 1,
        number(p.peak_lr, 3),
        number(p.final_lr, 3)
    );
    let mut rows = vec![vec!["step".to_string(), "lr".into(), "loss".into()]];
    let stride = (p.steps.len() / 12).max(1);
    for i in (0..p.steps.len())
        .step_by(stride)
        .chain([p.steps.len() - 1])
    {
        rows.push(vec![
            p.steps[i].to_string(),
            number(p.lr[i], 4),
            number(p.loss[i], 6),
        ]);
    }
    rows.dedup();
    out.push_str(&columns(&rows, &[], "    "));
    if !p.cooldowns.is_empty() {
        out.push_str("    cooldowns (branch from the constant run)\n");
        let mut rows = vec![vec![
            "start".to_string(),
            "length".into(),
            "end".into(),
            "loss".into(),
            "constant".into(),
        ]];
        for c in &p.cooldowns {
            rows.push(vec![
                c.start.to_string(),
                c.length.to_string(),
                c.end_step.to_string(),
                number(c.loss, 6),
                number(c.constant_loss, 6),
            ]);
        }
        out.push_str(&columns(&rows, &[], "    "));
    }
    out
}

fn run_compare(
    fit: &ScheduleFit,
    job: &ScheduleCompareJob,
    plot: Option<&str>,
    json: Option<Destination>,
) -> Result<()> {
    let comparison = job.run(fit)?;
    if let Some(target) = plot {
        let title = format!("schedules under the fitted {}", fit.law.name());
        let observed = vec![None; comparison.schedules.len()];
        draw(
            &schedules_page(&title, &comparison.schedules, &observed)?,
            target,
        )?;
    }
    let out = render_comparison(&comparison);
    output::emit(
        json.as_ref(),
        || Ok(serde_json::to_string_pretty(&comparison)?),
        &out,
    )
}

fn render_comparison(c: &Comparison) -> String {
    let mut out = String::from("[[Schedule comparison]]\n");
    let _ = writeln!(out, "    law       {}", c.law.name());
    let mut rows = vec![vec![
        "schedule".to_string(),
        "steps".into(),
        "final loss".into(),
        "gap to best".into(),
    ]];
    for (p, gap) in c.schedules.iter().zip(&c.final_gap) {
        rows.push(vec![
            p.schedule.clone(),
            p.steps_total.to_string(),
            number(p.final_loss, 6),
            format!("{gap:+.5}"),
        ]);
    }
    out.push_str(&columns(&rows, &[0], "    "));
    let _ = writeln!(out, "    best      {}", c.best);
    out.push_str("\n  Curves (loss at the same steps)\n");
    let longest = c.schedules.iter().map(|p| p.steps.len()).max().unwrap_or(0);
    let reference = c
        .schedules
        .iter()
        .find(|p| p.steps.len() == longest)
        .expect("schedules");
    let mut header = vec!["step".to_string()];
    header.extend((1..=c.schedules.len()).map(|i| format!("#{i}")));
    let mut rows = vec![header];
    let stride = (longest / 10).max(1);
    for i in (0..longest).step_by(stride).chain([longest - 1]) {
        let step = reference.steps[i];
        let mut row = vec![step.to_string()];
        for p in &c.schedules {
            row.push(
                p.steps
                    .iter()
                    .position(|&s| s == step)
                    .map_or("-".into(), |j| number(p.loss[j], 6)),
            );
        }
        rows.push(row);
    }
    rows.dedup();
    out.push_str(&columns(&rows, &[], "    "));
    out
}

fn run_optimize(
    fit: &ScheduleFit,
    job: &ScheduleOptimizeJob,
    schedule_csv: Option<&Path>,
    plot: Option<&str>,
    json: Option<Destination>,
) -> Result<()> {
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
    let out = render_optimized(&best);
    output::emit(
        json.as_ref(),
        || Ok(serde_json::to_string_pretty(&best)?),
        &out,
    )
}

fn render_optimized(b: &OptimizedSchedule) -> String {
    let mut out = String::from("[[Optimised schedule]]\n");
    let _ = writeln!(out, "    law          {}", b.law.name());
    let _ = writeln!(out, "    constraints  {}", b.constraints);
    let _ = writeln!(
        out,
        "    final loss   {} (best standard schedule {}: {}; gain {})",
        number(b.final_loss, 6),
        b.best_baseline,
        number(b.final_loss + b.gain, 6),
        number(b.gain, 3)
    );
    let _ = writeln!(
        out,
        "    shape        at the peak until step {}, then falls over {} steps to {} ({} iterations)",
        b.stable_until,
        b.decay_steps,
        number(b.final_lr, 3),
        b.iterations
    );
    let mut rows = vec![vec!["step".to_string(), "lr".into()]];
    for (s, lr) in b.shape.iter().step_by(4) {
        rows.push(vec![s.to_string(), number(*lr, 4)]);
    }
    out.push_str(&columns(&rows, &[], "    "));
    out.push_str("\n  Standard schedules at the same budget\n");
    let mut rows = vec![vec!["schedule".to_string(), "final loss".into()]];
    for base in &b.baselines {
        rows.push(vec![base.schedule.clone(), number(base.final_loss, 6)]);
    }
    out.push_str(&columns(&rows, &[0], "    "));
    if !b.warnings.is_empty() {
        out.push_str("\n  Warnings\n");
        for w in &b.warnings {
            let _ = writeln!(out, "    - {w}");
        }
    }
    out
}

/// Writes a picture to FILE.svg, FILE.png or - (SVG on stdout).
fn draw(page: &scalinglaws_plot::Page, target: &str) -> Result<()> {
    let output = Output {
        destination: Destination::parse(target.trim()),
        size: None,
    };
    cmd_plot::write(page, &output)
}

/// Each run's logged losses and the fitted curve (the first 8 runs; the rest are named).
fn plot_runs(fit: &ScheduleFit, curves: &[Curve], target: &str) -> Result<()> {
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
    draw(&schedules_page(&title, &predictions, &observed)?, target)
}

/// The optimised schedule against the best standard one and the constant schedule.
fn plot_optimized(fit: &ScheduleFit, best: &OptimizedSchedule, target: &str) -> Result<()> {
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
    draw(&schedules_page(&title, &predictions, &observed)?, target)
}

fn render_cooldowns(rows: &[CooldownRow], peak: f64, last: f64, decay: &str) -> String {
    let mut out = String::from("[[Cooldowns]]\n");
    let _ = writeln!(
        out,
        "    from a constant run at {peak}, {decay} cooldowns to {last}"
    );
    let mut table = vec![vec![
        "start".to_string(),
        "length".into(),
        "end step".into(),
        "loss".into(),
        "constant run".into(),
        "gain".into(),
    ]];
    for r in rows {
        table.push(vec![
            r.start.to_string(),
            r.length.to_string(),
            r.end_step.to_string(),
            number(r.loss, 6),
            number(r.constant_loss, 6),
            number(r.gain, 4),
        ]);
    }
    out.push_str(&columns(&table, &[], "    "));
    out
}
