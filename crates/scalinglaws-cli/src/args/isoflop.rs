//! Arguments of `isoflop`: per-budget profiles, envelopes, predictions and backtests.

use clap::Args;

use super::{DataArgs, SweepArgs, WorkArgs};

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
    #[arg(
        long = "budget",
        value_name = "C[,C2,...]",
        allow_hyphen_values = true,
        conflicts_with = "envelope"
    )]
    pub budgets: Vec<String>,

    /// Fit on all but the K largest budgets, predict their N* and D*, and report the errors
    /// and the intervals' coverage.
    #[arg(long, value_name = "K", conflicts_with_all = ["envelope", "budgets"])]
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
