//! Arguments of `compare-laws`: several laws fitted to the same data.

use clap::Args;

use super::{DataArgs, SettingsArgs, SweepArgs};

#[derive(Debug, Args)]
pub struct CompareLawsArgs {
    #[command(flatten)]
    pub data: DataArgs,

    #[command(flatten)]
    pub sweep: SweepArgs,

    /// A law to compare (repeat): a catalog name, optionally with parameters held at values,
    /// e.g. "chinchilla[E=1.69,A=406.4,B=410.7,alpha=0.34,beta=0.28]".
    #[arg(long = "law", value_name = "NAME[P=V,...]")]
    pub laws: Vec<String>,

    /// A formula to compare (repeat).
    #[arg(long = "formula", value_name = "TEXT", allow_hyphen_values = true)]
    pub formulas: Vec<String>,

    #[command(flatten)]
    pub settings: SettingsArgs,

    /// Score each law by a backtest that holds out the largest --holdout-frac of rows by this
    /// column.
    #[arg(long, value_name = "COLUMN")]
    pub by: Option<String>,

    /// Fraction of rows the backtest holds out.
    #[arg(long = "holdout-frac", value_name = "F", default_value_t = scalinglaws::job::compare_laws::DEFAULT_HOLDOUT_FRAC)]
    pub holdout_frac: f64,

    /// Level of the backtest's prediction intervals.
    #[arg(long, value_name = "P", default_value_t = scalinglaws::uncertainty::DEFAULT_LEVEL)]
    pub level: f64,

    /// Write the comparison as JSON to PATH (the table still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}
