//! Arguments of `lr`: the optimal learning rate (and batch size) at a target scale.

use clap::Args;

use super::names::{LrCurvature, LrForm, LrMethod};
use super::DataArgs;

#[derive(Debug, Args)]
#[command(
    after_help = "Example:\n  scalinglaws lr sweep.csv --lr peak_lr --size N --tokens D --target loss \\\n      --predict N=7e9,D=1.4e12"
)]
pub struct LrArgs {
    #[command(flatten)]
    pub data: DataArgs,

    /// The column of each run's (peak) learning rate.
    #[arg(long, value_name = "COLUMN")]
    pub lr: String,

    /// The column of model size N.
    #[arg(long, value_name = "COLUMN")]
    pub size: String,

    /// The column of training tokens D.
    #[arg(long, value_name = "COLUMN")]
    pub tokens: String,

    /// The column of batch size: cells become (N, D, B), and B* = c·D^b is fitted too.
    #[arg(long, value_name = "COLUMN")]
    pub batch: Option<String>,

    /// The law of the optimal LR: loglinear (ln lr* linear in ln N, ln D) or curved (adds
    /// squared logs).
    #[arg(long, value_name = "FORM", value_enum, default_value_t = LrForm::Loglinear)]
    pub law: LrForm,

    /// joint: one fit over every run near each cell's optimum (edge cells count as bounds);
    /// cells: weighted least squares on the per-cell optima.
    #[arg(long, value_name = "METHOD", value_enum, default_value_t = LrMethod::Joint)]
    pub method: LrMethod,

    /// The joint fit's profile curvatures: law (ln k linear in ln N, ln D; calibrated) or cell
    /// (a free curvature per cell).
    #[arg(long, value_name = "KIND", value_enum, default_value_t = LrCurvature::Law)]
    pub curvature: LrCurvature,

    /// Predict lr* (and B*) at this scale (repeatable).
    #[arg(long = "predict", value_name = "N=V,D=V")]
    pub predict: Vec<String>,

    /// Distinct LRs on each side of a cell's best one that its parabola uses.
    #[arg(long, value_name = "K", default_value_t = 2)]
    pub window: usize,

    /// Runs whose loss is more than this fraction above their cell's best are left out of the
    /// parabola (diverged, or too far from the optimum).
    #[arg(long = "max-rise", value_name = "F", default_value_t = 0.15)]
    pub max_rise: f64,

    /// The loss noise (seed-to-seed standard deviation) [default: estimated].
    #[arg(long, value_name = "SIGMA", allow_hyphen_values = true)]
    pub noise: Option<f64>,

    /// Fraction of horizons (per N) and of model sizes the backtests hold out.
    #[arg(long, value_name = "F", default_value_t = 0.25)]
    pub holdout: f64,

    /// Level of the intervals.
    #[arg(long, value_name = "P", default_value_t = scalinglaws::uncertainty::DEFAULT_LEVEL)]
    pub level: f64,

    /// Write the analysis as JSON to PATH (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}
