//! `scalinglaws schedule`: loss curves under learning-rate schedules. `fit` fits a curve law
//! to logged runs and scores every run; `predict`, `compare`, `optimize` and `cooldown` use a
//! saved fit (the JSON `fit --json` writes) to answer what a schedule would do.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use scalinglaws::analysis::schedule::optimize::{
    cooldown_table, optimize, CooldownRow, OptimizeSettings, OptimizedSchedule,
};
use scalinglaws::analysis::schedule::{
    compare, curves_from_logs, fit_curves, predict, spec, Comparison, Curve, CurveLaw, ParsedSpec,
    Prediction, RunLog, Schedule, ScheduleFit,
};
use scalinglaws::data::recipe::{Dialect, Filter, Recipe as LibraryRecipe};
use scalinglaws_plot::kinds::schedules_page;

use crate::cmd_plot::{self, Output};
use crate::config::{parse_delimiter, split_name};
use crate::input::{self, Recipe};
use crate::input_error;
use crate::output::{self, Destination};
use scalinglaws_report::text::{columns, number};

#[derive(Debug, Args)]
pub struct ScheduleArgs {
    #[command(subcommand)]
    kind: ScheduleKind,
}

#[derive(Debug, Subcommand)]
enum ScheduleKind {
    /// Fit a curve law (multi_power, lr_annealing, power_area) to logged loss curves and score
    /// it on every run, trained on or not (R², error of the last logged loss).
    Fit(FitArgs),
    /// The curve a saved fit predicts for a schedule spec.
    Predict(PredictArgs),
    /// Several schedules' predicted curves and final losses side by side.
    Compare(CompareArgs),
    /// The schedule with the lowest predicted final loss (warmup fixed, then non-increasing
    /// between --floor and --peak), against cosine, WSD and constant at the same budget.
    Optimize(OptimizeArgs),
    /// Predicted loss after a cooldown of each length started at each step, from a constant
    /// run at the peak (the constant-plus-cooldowns regime).
    Cooldown(CooldownArgs),
}

#[derive(Debug, Args)]
struct FitArgs {
    /// Logs: one file with a run column (--run), or one file per run (the run is the file's
    /// name without extension).
    #[arg(value_name = "DATA", required = true)]
    data: Vec<PathBuf>,
    /// The column naming each row's run [default: the file name].
    #[arg(long, value_name = "COLUMN")]
    run: Option<String>,
    /// The column of the optimizer step.
    #[arg(long, value_name = "COLUMN", default_value = "step")]
    step: String,
    /// The column of the learning rate at that step (interpolated between logged steps).
    #[arg(long, value_name = "COLUMN", default_value = "lr")]
    lr: String,
    /// The column of the loss.
    #[arg(long, value_name = "COLUMN", default_value = "loss")]
    target: String,
    /// The curve law.
    #[arg(long, value_name = "NAME", default_value = "multi_power",
          value_parser = clap::builder::PossibleValuesParser::new(["multi_power", "lr_annealing", "power_area"]))]
    law: String,
    /// The runs to fit on, comma separated [default: all]; the others are scored only.
    #[arg(long, value_name = "RUN,...", value_delimiter = ',')]
    train: Vec<String>,
    /// Linear warmup steps before the first logged step (0 → first logged lr, from step 0 to
    /// warmup−1, numpy linspace); 0: the first logged lr from step 0.
    #[arg(long, value_name = "STEPS", default_value_t = 0)]
    warmup: usize,
    /// Hold a parameter at a value: gamma=0.6.
    #[arg(long = "fix", value_name = "NAME=VALUE")]
    fixes: Vec<String>,
    /// Keep only the rows where a comparison holds: "step >= 1000".
    #[arg(long = "where", value_name = "EXPR", allow_hyphen_values = true)]
    filters: Vec<String>,
    /// Field delimiter (one character, or "tab"); overrides the file extension.
    #[arg(long, value_name = "C")]
    delimiter: Option<String>,
    /// Also draw the schedules and their loss curves: FILE.svg, FILE.png or - (SVG on stdout).
    #[arg(long, value_name = "FILE")]
    plot: Option<String>,
    /// Write the fit as JSON ('-' for stdout), the FIT.json the other subcommands read.
    #[arg(long, value_name = "FILE|-")]
    json: Option<String>,
}

#[derive(Debug, Args)]
struct SavedFit {
    /// A fit written by `schedule fit --json`.
    #[arg(value_name = "FIT.json")]
    fit: PathBuf,
}

#[derive(Debug, Args)]
struct PredictArgs {
    #[command(flatten)]
    saved: SavedFit,
    /// The schedule: cosine:peak=3e-4,warmup=2160,steps=24000,final=3e-5 (keys left out take the
    /// fit's training run values; see `schedule predict --help`).
    #[arg(long, value_name = "SPEC", allow_hyphen_values = true)]
    schedule: String,
    /// Report the curve every K steps [default: about 200 points].
    #[arg(long, value_name = "K", default_value_t = 0)]
    every: usize,
    #[arg(long, value_name = "FILE|-")]
    json: Option<String>,
}

#[derive(Debug, Args)]
struct CompareArgs {
    #[command(flatten)]
    saved: SavedFit,
    /// A schedule spec (repeat, at least twice).
    #[arg(long = "schedule", value_name = "SPEC", required = true)]
    schedules: Vec<String>,
    #[arg(long, value_name = "K", default_value_t = 0)]
    every: usize,
    /// Also draw the schedules and their loss curves: FILE.svg, FILE.png or - (SVG on stdout).
    #[arg(long, value_name = "FILE")]
    plot: Option<String>,
    #[arg(long, value_name = "FILE|-")]
    json: Option<String>,
}

#[derive(Debug, Args)]
struct OptimizeArgs {
    #[command(flatten)]
    saved: SavedFit,
    /// Total steps [default: the fit's training run].
    #[arg(long, value_name = "T")]
    steps: Option<usize>,
    /// Peak learning rate [default: the fit's training run].
    #[arg(long, value_name = "LR")]
    peak: Option<f64>,
    /// Warmup steps [default: the fit's training run].
    #[arg(long, value_name = "STEPS")]
    warmup: Option<usize>,
    /// The lowest learning rate allowed [default: peak/1000].
    #[arg(long, value_name = "LR")]
    floor: Option<f64>,
    /// Iterations of accelerated projected gradient descent (FISTA).
    #[arg(long = "max-iterations", value_name = "N", default_value_t = 400)]
    max_iterations: usize,
    /// Also write the whole optimised schedule (step,lr) as CSV.
    #[arg(long = "schedule-csv", value_name = "FILE")]
    schedule_csv: Option<PathBuf>,
    /// Also draw the schedules and their loss curves: FILE.svg, FILE.png or - (SVG on stdout).
    #[arg(long, value_name = "FILE")]
    plot: Option<String>,
    #[arg(long, value_name = "FILE|-")]
    json: Option<String>,
}

#[derive(Debug, Args)]
struct CooldownArgs {
    #[command(flatten)]
    saved: SavedFit,
    /// Steps where a cooldown starts, comma separated.
    #[arg(long, value_name = "STEP,...", value_delimiter = ',', required = true)]
    at: Vec<usize>,
    /// Cooldown lengths in steps, comma separated.
    #[arg(
        long = "len",
        value_name = "STEPS,...",
        value_delimiter = ',',
        required = true
    )]
    lengths: Vec<usize>,
    /// Peak (constant) learning rate [default: the fit's training run].
    #[arg(long, value_name = "LR")]
    peak: Option<f64>,
    /// Warmup steps [default: the fit's training run].
    #[arg(long, value_name = "STEPS")]
    warmup: Option<usize>,
    /// Learning rate at the end of a cooldown [default: peak/100].
    #[arg(long = "final", value_name = "LR")]
    last: Option<f64>,
    /// Shape of the cooldown.
    #[arg(long, value_name = "SHAPE", default_value = "linear",
          value_parser = clap::builder::PossibleValuesParser::new(["linear", "exp", "cosine"]))]
    decay: String,
    #[arg(long, value_name = "FILE|-")]
    json: Option<String>,
}

pub fn run(args: ScheduleArgs) -> Result<()> {
    match args.kind {
        ScheduleKind::Fit(a) => run_fit(a),
        ScheduleKind::Predict(a) => run_predict(a),
        ScheduleKind::Compare(a) => run_compare(a),
        ScheduleKind::Optimize(a) => run_optimize(a),
        ScheduleKind::Cooldown(a) => run_cooldown(a),
    }
}

fn destination(json: &Option<String>) -> Option<Destination> {
    json.as_deref().map(Destination::parse)
}

fn run_fit(args: FitArgs) -> Result<()> {
    let law = CurveLaw::from_name(&args.law)?;
    let mut logs = Vec::new();
    for path in &args.data {
        logs.extend(read_logs(path, &args)?);
    }
    let curves = curves_from_logs(&logs, args.warmup)?;
    let mut fixed = Vec::new();
    for text in &args.fixes {
        let (name, value) = split_name("--fix", text, "NAME=VALUE, e.g. gamma=0.6")?;
        let value: f64 = value
            .trim()
            .parse()
            .map_err(|_| input_error(format!("--fix {text}: '{value}' is not a number")))?;
        fixed.push((name.trim().to_string(), value));
    }
    let fit = fit_curves(law, &curves, &args.train, &fixed)?;
    if let Some(target) = &args.plot {
        plot_runs(&fit, &curves, target)?;
    }
    let text = render_fit(&fit, &args);
    output::emit(
        destination(&args.json).as_ref(),
        || Ok(serde_json::to_string_pretty(&fit)?),
        &text,
    )
}

/// One file's rows grouped into runs (by --run, or the whole file as one run).
fn read_logs(path: &Path, args: &FitArgs) -> Result<Vec<RunLog>> {
    let recipe = Recipe {
        path: path.to_path_buf(),
        delimiter: args.delimiter.as_deref().map(parse_delimiter).transpose()?,
        recipe: LibraryRecipe {
            maps: Vec::new(),
            derives: Vec::new(),
            filters: args
                .filters
                .iter()
                .map(|t| Filter::parse(t).context("--where"))
                .collect::<Result<_>>()?,
            target: args.target.clone(),
            weights: None,
            dialect: Dialect::Cli,
        },
    };
    let table = input::load(&recipe)?;
    let steps = table.values(&args.step, "--step")?;
    let lrs = table.values(&args.lr, "--lr")?;
    let loss = table.values(&args.target, "--target")?;
    let labels = match &args.run {
        Some(column) => table.labels(column, "--run")?,
        None => {
            let stem = path
                .file_stem()
                .map_or("run".into(), |s| s.to_string_lossy().to_string());
            vec![stem; steps.len()]
        }
    };
    let mut order: Vec<String> = Vec::new();
    for label in &labels {
        if !order.contains(label) {
            order.push(label.clone());
        }
    }
    if steps.is_empty() {
        return Err(input_error(format!("{}: no rows to fit", path.display())));
    }
    Ok(order
        .into_iter()
        .map(|run| {
            let rows: Vec<usize> = (0..labels.len()).filter(|&i| labels[i] == run).collect();
            RunLog {
                steps: rows.iter().map(|&i| steps[i]).collect(),
                lrs: rows.iter().map(|&i| lrs[i]).collect(),
                loss: rows.iter().map(|&i| loss[i]).collect(),
                locations: rows
                    .iter()
                    .map(|&i| table.dataset.location(i, None))
                    .collect(),
                run,
            }
        })
        .collect())
}

fn render_fit(fit: &ScheduleFit, args: &FitArgs) -> String {
    let mut out = String::from("[[Schedule fit]]\n");
    let files: Vec<String> = args.data.iter().map(|p| p.display().to_string()).collect();
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
    serde_json::from_str(&text).map_err(|e| {
        input_error(format!(
            "{}: not a fit written by `schedule fit --json` ({e})",
            path.display()
        ))
    })
}

fn run_predict(args: PredictArgs) -> Result<()> {
    let fit = load_fit(&args.saved.fit)?;
    let parsed = spec::parse(&args.schedule, Some(fit.defaults))?;
    let prediction = predict(&fit, &parsed, args.every)?;
    let mut out = String::from("[[Schedule prediction]]\n");
    out.push_str(&render_prediction(&prediction));
    output::emit(
        destination(&args.json).as_ref(),
        || Ok(serde_json::to_string_pretty(&prediction)?),
        &out,
    )
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

fn run_compare(args: CompareArgs) -> Result<()> {
    let fit = load_fit(&args.saved.fit)?;
    let parsed = args
        .schedules
        .iter()
        .map(|s| Ok(spec::parse(s, Some(fit.defaults))?))
        .collect::<Result<Vec<_>>>()?;
    let comparison = compare(&fit, &parsed, args.every)?;
    if let Some(target) = &args.plot {
        let title = format!("schedules under the fitted {}", fit.law.name());
        let observed = vec![None; comparison.schedules.len()];
        draw(
            &schedules_page(&title, &comparison.schedules, &observed)?,
            target,
        )?;
    }
    let out = render_comparison(&comparison);
    output::emit(
        destination(&args.json).as_ref(),
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

fn run_optimize(args: OptimizeArgs) -> Result<()> {
    let fit = load_fit(&args.saved.fit)?;
    let peak = args.peak.unwrap_or(fit.defaults.peak);
    let settings = OptimizeSettings {
        steps: args.steps.unwrap_or(fit.defaults.steps),
        peak,
        warmup: args.warmup.unwrap_or(fit.defaults.warmup),
        floor: args.floor.unwrap_or(peak / 1000.0),
        max_iterations: args.max_iterations,
    };
    let best = optimize(&fit, &settings)?;
    if let Some(path) = &args.schedule_csv {
        let mut csv = String::from("step,lr\n");
        for (s, lr) in best.lrs.iter().enumerate() {
            let _ = writeln!(csv, "{s},{lr:e}");
        }
        output::write_file(path, csv.as_bytes())?;
    }
    if let Some(target) = &args.plot {
        plot_optimized(&fit, &best, target)?;
    }
    let out = render_optimized(&best);
    output::emit(
        destination(&args.json).as_ref(),
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

fn run_cooldown(args: CooldownArgs) -> Result<()> {
    let fit = load_fit(&args.saved.fit)?;
    let peak = args.peak.unwrap_or(fit.defaults.peak);
    let warmup = args.warmup.unwrap_or(fit.defaults.warmup);
    let last = args.last.unwrap_or(peak / 100.0);
    let rows = cooldown_table(
        &fit,
        peak,
        warmup,
        &args.at,
        &args.lengths,
        &args.decay,
        last,
    )?;
    let out = render_cooldowns(&rows, peak, last, &args.decay);
    output::emit(
        destination(&args.json).as_ref(),
        || Ok(serde_json::to_string_pretty(&rows)?),
        &out,
    )
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
