//! Arguments of `backtest`: what to hold out and how to score the predictions.

use clap::Args;

use super::{DataArgs, LawArgs, SettingsArgs, SweepArgs};

#[derive(Debug, Args)]
pub struct BacktestArgs {
    #[command(flatten)]
    pub data: DataArgs,

    #[command(flatten)]
    pub law: LawArgs,

    #[command(flatten)]
    pub settings: SettingsArgs,

    #[command(flatten)]
    pub sweep: SweepArgs,

    /// The column that orders scale (e.g. compute): fit on small values, predict large ones.
    #[arg(long, value_name = "COLUMN")]
    pub by: String,

    /// Hold out the rows at the K largest distinct values of --by.
    #[arg(long = "holdout-top", value_name = "K", group = "holdout")]
    pub holdout_top: Option<usize>,

    /// Hold out the largest fraction F of rows by --by (ties held out together).
    #[arg(long = "holdout-frac", value_name = "F", group = "holdout")]
    pub holdout_frac: Option<f64>,

    /// Fit up to each scale and predict the next, for every step of --steps groups.
    #[arg(long, group = "holdout")]
    pub rollout: bool,

    /// Rollout: split the distinct values of --by into this many groups of scales [default: 6].
    // Checked in `config/backtest.rs`: clap's `requires` counts a flag's default as given.
    #[arg(long, value_name = "G")]
    pub steps: Option<usize>,

    /// Rolling origins: fit on the scale groups up to each of --origins origins (from half the
    /// groups to all but the last) and predict every run beyond it.
    #[arg(long, group = "holdout")]
    pub rolling: bool,

    /// Rolling: the most origins [default: 5]. Refused without --rolling.
    #[arg(long, value_name = "K")]
    pub origins: Option<usize>,

    /// Score the training fits' own prediction intervals instead of the ones `predict` would
    /// print (which add the law's form error beyond the data: the cross-study prior updated by
    /// rolling-origin backtests nested inside each split's own training rows).
    #[arg(long = "no-calibration")]
    pub no_calibration: bool,

    /// Level of the prediction intervals whose coverage is scored.
    #[arg(long, value_name = "P", default_value_t = scalinglaws::uncertainty::DEFAULT_LEVEL)]
    pub level: f64,

    /// Bootstrap replicates per training fit for the intervals (default: delta method).
    #[arg(long, value_name = "K")]
    pub bootstrap: Option<usize>,

    /// Write the backtest as JSON to PATH (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}
