//! Arguments of `select`: choosing and averaging laws by rolling-origin backtests.

use clap::Args;

use super::{DataArgs, SettingsArgs, SweepArgs};

#[derive(Debug, Args)]
pub struct SelectArgs {
    #[command(flatten)]
    pub data: DataArgs,

    #[command(flatten)]
    pub sweep: SweepArgs,

    /// A candidate law (repeat): a catalog name, optionally with parameters held at values.
    #[arg(long = "law", value_name = "NAME[P=V,...]")]
    pub laws: Vec<String>,

    /// A candidate formula (repeat).
    #[arg(long = "formula", value_name = "TEXT", allow_hyphen_values = true)]
    pub formulas: Vec<String>,

    #[command(flatten)]
    pub settings: SettingsArgs,

    /// The column that orders scale (default: a column C, else 6·N·D, else the first law's
    /// first variable).
    #[arg(long, value_name = "COLUMN")]
    pub by: Option<String>,

    /// Most rolling origins.
    #[arg(long, value_name = "K", default_value_t = scalinglaws::analysis::selection::SelectionOptions::default().origins)]
    pub origins: usize,

    /// Level of the prediction intervals.
    #[arg(long, value_name = "P", default_value_t = scalinglaws::uncertainty::DEFAULT_LEVEL)]
    pub level: f64,

    /// Keep each law's own prediction intervals beyond the data (no calibration).
    #[arg(long = "no-calibration")]
    pub no_calibration: bool,

    /// Predict at these values (repeat per variable): N=7e10 or a list N=1e10,7e10.
    #[arg(long = "at", value_name = "VAR=VALUE[,...]")]
    pub at: Vec<String>,

    /// Check the selection by nested rolling origins (each outer split selects on its own
    /// training runs and scores the winner, the average and every law on the runs beyond).
    #[arg(long)]
    pub check: bool,

    /// Write the selection as JSON to PATH (the table still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}
