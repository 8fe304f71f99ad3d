//! `scalinglaws isoflop`: IsoFLOP analysis of runs grouped by compute budget: each budget's
//! loss-optimal model size from a local curve in log N, and the power laws N* ∝ C^a and
//! D* ∝ C^b through the minima, with bootstrap intervals on request. With `--envelope`, the same
//! power laws from Chinchilla's approach 1: the lowest loss over the runs' checkpoints at each
//! compute. With `--budget`, predictions of N*, D* and the loss at new budgets with calibrated
//! intervals; with `--backtest K`, the same scored on the K largest budgets held out. The
//! workflow, its defaults and its rules are the library's (`scalinglaws::workflow::isoflop`);
//! this file holds the arguments and turns them into its spec.

use anyhow::Result;
use clap::Args;
use scalinglaws::analysis::isoflop::{Method, Shape};
use scalinglaws::work::default_max_work;
use scalinglaws::workflow::isoflop::{parse_envelope, IsoflopJob, IsoflopSpec, IsoflopWorkflow};
use scalinglaws::workflow::Ctx;

use crate::args::{DataArgs, SweepArgs, WorkArgs};
use crate::config::values::budget_values;
use crate::config::{destination, recipe};
use crate::workflow::{run as run_workflow, Io};

#[derive(Debug, Args)]
pub struct IsoflopArgs {
    #[command(flatten)]
    pub data: DataArgs,

    #[command(flatten)]
    pub work: WorkArgs,

    #[command(flatten)]
    pub sweep: SweepArgs,

    /// The column of each run's compute budget in FLOPs (runs within --tolerance share one).
    #[arg(long, value_name = "COLUMN")]
    pub compute: String,

    /// Analyse the runs of each value of this column separately (repeat to group by several).
    #[arg(long = "group", value_name = "COLUMN")]
    pub groups: Vec<String>,

    /// The column of model size N.
    #[arg(long, value_name = "COLUMN")]
    pub size: String,

    /// The column of training tokens D [default: D* = C/(6 N*)].
    #[arg(long, value_name = "COLUMN")]
    pub tokens: Option<String>,

    /// The local curve through each budget's minimum: auto (the parabola through every point
    /// unless a lack-of-fit test rejects it, then the cubic), cubic (5 nearest points),
    /// parabola (5), parabola3, parabola:all, cubic:all.
    #[arg(long, value_name = "NAME", default_value = "auto")]
    pub shape: String,

    /// Chinchilla's approach 1 on checkpoints instead of per-budget profiles: the lowest loss
    /// at each compute, from the lower convex hull of the checkpoints (hull) or from every
    /// run's interpolated curve at K log-spaced budgets (grid, grid:K; K = 1500 by default).
    #[arg(long, value_name = "hull|grid[:K]")]
    pub envelope: Option<String>,

    /// The column naming each checkpoint's run (the grid envelope and its bootstrap need it).
    #[arg(long, value_name = "COLUMN")]
    pub run: Option<String>,

    /// Budgets closer than this (relative) are one budget.
    #[arg(long, value_name = "X", default_value_t = scalinglaws::analysis::isoflop::DEFAULT_TOLERANCE)]
    pub tolerance: f64,

    /// Bootstrap replicates for intervals on N*, the exponents and the predictions
    /// [default: 0; 1000 with --budget or --backtest].
    #[arg(long, value_name = "K")]
    pub bootstrap: Option<usize>,

    /// Seed of the bootstrap.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,

    /// Level of the intervals.
    #[arg(long, value_name = "P", default_value_t = scalinglaws::uncertainty::DEFAULT_LEVEL)]
    pub level: f64,

    /// Predict N*, D* and the loss at these budgets in FLOPs, with intervals: 1e22, or a list
    /// 1e22,1e23 (repeatable).
    #[arg(long = "budget", value_name = "C[,C2,...]", allow_hyphen_values = true)]
    pub budgets: Vec<String>,

    /// Fit on all but the K largest budgets, predict their N* and D*, and report the errors
    /// and the intervals' coverage.
    #[arg(long, value_name = "K")]
    pub backtest: Option<usize>,

    /// What predicts at --budget (and in --backtest): profiles (power laws through the
    /// per-budget minima; approach 2), auto (the joint law, Chinchilla's law fitted to the
    /// window of the runs chosen by a backtest over the data's own budgets, when it beats the
    /// per-budget minima there by more than a standard error, else the minima; the report says
    /// which and why) or joint (that best window always; approach 3) [default: profiles].
    #[arg(long, value_name = "auto|joint|profiles")]
    pub method: Option<String>,

    /// Keep the bootstrap's intervals beyond the data (no rolling-origin calibration).
    #[arg(long = "no-calibration")]
    pub no_calibration: bool,

    /// Write the analysis as JSON to PATH (the table still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}

pub fn run(args: IsoflopArgs) -> Result<()> {
    let data = recipe(args.data)?;
    let trimmed = |texts: &[String]| texts.iter().map(|t| t.trim().to_string()).collect();
    let spec = IsoflopSpec {
        recipe: data.recipe,
        job: IsoflopJob {
            compute: args.compute.trim().to_string(),
            size: args.size.trim().to_string(),
            tokens: args.tokens.map(|t| t.trim().to_string()),
            groups: trimmed(&args.groups),
            run: args.run.map(|r| r.trim().to_string()),
            envelope: args
                .envelope
                .as_deref()
                .map(|text| parse_envelope(text.trim()))
                .transpose()?,
            backtest: args.backtest,
            shape: Shape::parse(args.shape.trim())?,
            tolerance: args.tolerance,
            bootstrap: args.bootstrap,
            seed: args.seed,
            level: args.level,
            budgets: budget_values(&args.budgets)?,
            method: args
                .method
                .as_deref()
                .map(|m| Method::parse(m.trim()))
                .transpose()?,
            calibrate: !args.no_calibration,
            max_work: default_max_work(),
            sweep: args.sweep.columns(),
            interrupt: Default::default(),
        },
    };
    let ctx = Ctx {
        max_work: Some(args.work.budget()?),
        ..Ctx::default()
    };
    let io = Io {
        path: data.path,
        delimiter: data.delimiter,
        json: destination(args.json.as_deref()),
    };
    run_workflow::<IsoflopWorkflow>(&io, &spec, &ctx)
}
