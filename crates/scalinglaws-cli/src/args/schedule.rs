//! Arguments of `schedule` and its subcommands: loss curves under learning-rate schedules.
//! `--fix` and `--where` are parsed by the same code as every other command's (`config/`).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::names::{CooldownShape, ScheduleLaw};
use scalinglaws::workflow::schedule_fit;

#[derive(Debug, Args)]
pub struct ScheduleArgs {
    #[command(subcommand)]
    pub kind: ScheduleKind,
}

#[derive(Debug, Subcommand)]
pub enum ScheduleKind {
    /// Fit a curve law (multi_power, lr_annealing, power_area, fsl) to logged loss curves and score
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
    /// Constant learning rate with a cooldown against cosine at each training length: both
    /// final losses and their difference (the constant-plus-cooldowns regime at each compute).
    CooldownStudy(CooldownStudyArgs),
}

#[derive(Debug, Args)]
pub struct FitArgs {
    #[command(flatten)]
    pub work: super::WorkArgs,

    /// Logs: one file with a run column (--run), or one file per run (the run is the file's
    /// name without extension).
    #[arg(value_name = "DATA", required = true)]
    pub data: Vec<PathBuf>,
    /// The column naming each row's run [default: the file name].
    #[arg(long, value_name = "COLUMN")]
    pub run: Option<String>,
    /// The column of the optimizer step.
    #[arg(long, value_name = "COLUMN", default_value = schedule_fit::STEP_COLUMN)]
    pub step: String,
    /// The column of the learning rate at that step (interpolated between logged steps).
    #[arg(long, value_name = "COLUMN", default_value = schedule_fit::LR_COLUMN)]
    pub lr: String,
    /// The column of the loss.
    #[arg(long, value_name = "COLUMN", default_value = schedule_fit::LOSS_COLUMN)]
    pub target: String,
    /// The curve law.
    #[arg(long, value_name = "NAME", value_enum, default_value = schedule_fit::DEFAULT_LAW.name())]
    pub law: ScheduleLaw,
    /// The runs to fit on, comma separated [default: all]; the others are scored only.
    #[arg(long, value_name = "RUN,...", value_delimiter = ',')]
    pub train: Vec<String>,
    /// Linear warmup rebuilt before the first logged step: steps 0 to STEPS−1 rise from 0 to
    /// the first logged lr (numpy linspace), which then holds until the first logged step. With
    /// 0 (no warmup), every step before the first logged one takes the first logged lr.
    #[arg(long, value_name = "STEPS", default_value_t = 0)]
    pub warmup: usize,
    /// Hold a parameter at a value: gamma=0.6.
    #[arg(long = "fix", value_name = "NAME=VALUE")]
    pub fixes: Vec<String>,
    /// Keep only the rows where a comparison holds: "step >= 1000".
    #[arg(long = "where", value_name = "EXPR", allow_hyphen_values = true)]
    pub filters: Vec<String>,
    /// Field delimiter (one character, or "tab"); overrides the file extension.
    #[arg(long, value_name = "C")]
    pub delimiter: Option<String>,
    /// Also draw the schedules and their loss curves: FILE.svg, FILE.png or - (SVG on stdout).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<String>,
    /// Write the fit as JSON ('-' for stdout), the FIT.json the other subcommands read.
    #[arg(long, value_name = "FILE|-")]
    pub json: Option<String>,
}

#[derive(Debug, Args)]
pub struct SavedFit {
    /// A fit written by `schedule fit --json`.
    #[arg(value_name = "FIT.json")]
    pub fit: PathBuf,
}

#[derive(Debug, Args)]
pub struct PredictArgs {
    #[command(flatten)]
    pub work: super::WorkArgs,

    #[command(flatten)]
    pub saved: SavedFit,
    /// The schedule, KIND:KEY=VALUE,... (e.g.
    /// cosine:peak=3e-4,warmup=2160,steps=24000,final=3e-5), one of:
    /// cosine:peak=P,warmup=W,steps=T,final=F;
    /// wsd:peak=P,warmup=W,steps=T,decay_start=D,final=F,decay=exp|linear|cosine (decay
    /// default exp); constant:peak=P,warmup=W,steps=T;
    /// step:peak=P,warmup=W,steps=T,at=S1/S2/...,factor=G (the lr is multiplied by G at each
    /// of S1, S2, ...; G default 0.1);
    /// cooldowns:peak=P,warmup=W,steps=T,every=E,len=K,final=F,decay=exp|linear|cosine (a
    /// constant run with a K-step cooldown branching off every E steps; decay default linear).
    /// Left out, peak, warmup and steps take the fit's training run's values and final is
    /// peak/10; decay_start, at, every and len are required. The warmup rises linearly from 0.
    #[arg(long, value_name = "SPEC", allow_hyphen_values = true)]
    pub schedule: String,
    /// Report the curve every K steps [default: about 200 points].
    #[arg(long, value_name = "K", default_value_t = 0, hide_default_value = true)]
    pub every: usize,
    #[command(flatten)]
    pub intervals: IntervalArgs,
    /// Also draw the schedule and its loss curve (with the prediction interval under
    /// --bootstrap): FILE.svg, FILE.png or - (SVG on stdout).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<String>,
    /// Write the prediction as JSON to FILE (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "FILE|-")]
    pub json: Option<String>,
}

/// Prediction intervals of a curve: a moving-block bootstrap of the fit's training curves, or
/// the profile-likelihood band.
#[derive(Debug, Args)]
pub struct IntervalArgs {
    /// Refit K block-resampled copies of the training curves for prediction intervals of each
    /// logged point (pi low, pi high), with their coverage of the fit's held-out runs.
    #[arg(long, value_name = "K")]
    pub bootstrap: Option<usize>,
    /// How the prediction intervals are made: bootstrap (needs --bootstrap K, the default
    /// with it) or profile (the envelope of every refit the training curve does not reject by
    /// a likelihood-ratio test, widened by a factor measured on its later half; deterministic).
    #[arg(long, value_name = "METHOD")]
    pub interval: Option<String>,
    /// Level of the prediction intervals [default: 0.95].
    #[arg(long, value_name = "P")]
    pub level: Option<f64>,
    /// Seed of the bootstrap draws [default: 0].
    #[arg(long, value_name = "N", requires = "bootstrap")]
    pub seed: Option<u64>,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub work: super::WorkArgs,

    #[command(flatten)]
    pub saved: SavedFit,
    /// A schedule spec, as in `schedule predict --schedule` (repeat, at least twice).
    #[arg(long = "schedule", value_name = "SPEC", required = true)]
    pub schedules: Vec<String>,
    /// Report each schedule's curve every K steps [default: about 200 points per schedule].
    #[arg(long, value_name = "K", default_value_t = 0, hide_default_value = true)]
    pub every: usize,
    /// Also draw the schedules and their loss curves: FILE.svg, FILE.png or - (SVG on stdout).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<String>,
    /// Write the comparison as JSON to FILE (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "FILE|-")]
    pub json: Option<String>,
}

#[derive(Debug, Args)]
pub struct OptimizeArgs {
    #[command(flatten)]
    pub saved: SavedFit,
    /// Total steps [default: the fit's training run].
    #[arg(long, value_name = "T")]
    pub steps: Option<usize>,
    /// Peak learning rate [default: the fit's training run].
    #[arg(long, value_name = "LR")]
    pub peak: Option<f64>,
    /// Warmup steps [default: the fit's training run].
    #[arg(long, value_name = "STEPS")]
    pub warmup: Option<usize>,
    /// The lowest learning rate allowed [default: peak/1000].
    #[arg(long, value_name = "LR")]
    pub floor: Option<f64>,
    /// Iterations of accelerated projected gradient descent (FISTA).
    #[arg(
        long = "max-iterations",
        value_name = "N",
        default_value_t = scalinglaws::workflow::schedule_optimize::MAX_ITERATIONS
    )]
    pub max_iterations: usize,
    /// Also write the whole optimised schedule (step,lr) as CSV, and put every step's lr in the
    /// JSON as `lr` (at most 1,000,000 steps).
    #[arg(long = "schedule-csv", value_name = "FILE")]
    pub schedule_csv: Option<PathBuf>,
    /// Also draw the schedules and their loss curves: FILE.svg, FILE.png or - (SVG on stdout).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<String>,
    /// Write the optimised schedule as JSON to FILE (the report still prints), or to stdout
    /// with '-'.
    #[arg(long, value_name = "FILE|-")]
    pub json: Option<String>,
}

#[derive(Debug, Args)]
pub struct CooldownArgs {
    #[command(flatten)]
    pub saved: SavedFit,
    /// Steps where a cooldown starts, comma separated.
    #[arg(long, value_name = "STEP,...", value_delimiter = ',', required = true)]
    pub at: Vec<usize>,
    /// Cooldown lengths in steps, comma separated.
    #[arg(
        long = "len",
        value_name = "STEPS,...",
        value_delimiter = ',',
        required = true
    )]
    pub lengths: Vec<usize>,
    /// Peak (constant) learning rate [default: the fit's training run].
    #[arg(long, value_name = "LR")]
    pub peak: Option<f64>,
    /// Warmup steps [default: the fit's training run].
    #[arg(long, value_name = "STEPS")]
    pub warmup: Option<usize>,
    /// Learning rate at the end of a cooldown [default: peak/100].
    #[arg(long = "final", value_name = "LR")]
    pub last: Option<f64>,
    /// Shape of the cooldown.
    #[arg(long, value_name = "SHAPE", value_enum, default_value_t = CooldownShape::Linear)]
    pub decay: CooldownShape,
    /// Write the cooldowns as JSON to FILE (the table still prints), or to stdout with '-'.
    #[arg(long, value_name = "FILE|-")]
    pub json: Option<String>,
}

#[derive(Debug, Args)]
pub struct CooldownStudyArgs {
    #[command(flatten)]
    pub work: super::WorkArgs,

    #[command(flatten)]
    pub saved: SavedFit,
    /// Training lengths T in steps, comma separated [default: 0.5, 1, 2 and 4 times the fit's
    /// training run, to the nearest 100].
    #[arg(long, value_name = "T,...", value_delimiter = ',')]
    pub steps: Vec<usize>,
    /// The cooldown's share of each run: it starts at T − fraction·T.
    #[arg(long, value_name = "F",
          default_value_t = scalinglaws::analysis::schedule::cooldown::DEFAULT_FRACTION)]
    pub fraction: f64,
    /// Shape of the cooldown.
    #[arg(long, value_name = "SHAPE", value_enum, default_value_t = CooldownShape::Linear)]
    pub decay: CooldownShape,
    /// Refit K block-resampled copies of the fit's training curves (the bootstrap of `schedule
    /// predict --bootstrap`) for percentile intervals of each loss and of the difference.
    #[arg(long, value_name = "K")]
    pub bootstrap: Option<usize>,
    /// Coverage of the percentile intervals [default: 0.95].
    #[arg(long, value_name = "P", requires = "bootstrap")]
    pub level: Option<f64>,
    /// Seed of the bootstrap draws [default: 0].
    #[arg(long, value_name = "N", requires = "bootstrap")]
    pub seed: Option<u64>,
    /// Peak (constant) learning rate, also the cosine's [default: the fit's training run].
    #[arg(long, value_name = "LR")]
    pub peak: Option<f64>,
    /// Warmup steps [default: the fit's training run].
    #[arg(long, value_name = "STEPS")]
    pub warmup: Option<usize>,
    /// Learning rate at the end of the cooldown and of the cosine [default: peak/10].
    #[arg(long = "final", value_name = "LR")]
    pub last: Option<f64>,
    /// Also draw each length's two schedules and predicted curves (the first 4 lengths):
    /// FILE.svg, FILE.png or - (SVG on stdout).
    #[arg(long, value_name = "FILE")]
    pub plot: Option<String>,
    /// Write the study as JSON to FILE (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "FILE|-")]
    pub json: Option<String>,
}
