//! Arguments of `predict`: a saved fit and the points to evaluate it at.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
pub struct PredictArgs {
    /// A fit written by `scalinglaws fit --json PATH`.
    #[arg(value_name = "FIT.json")]
    pub fit: PathBuf,

    /// Values of every law variable: N=7e10 D=1.4e12, or lists N=1e9,1e10 D=2e10 (lists of
    /// equal length; a single value is used for every point).
    #[arg(value_name = "VAR=VALUE", required = true)]
    pub points: Vec<String>,

    /// Confidence level of the intervals.
    #[arg(long, value_name = "P", default_value_t = scalinglaws::uncertainty::DEFAULT_LEVEL)]
    pub level: f64,

    /// Write the predictions as JSON to PATH instead of the table ('-' for stdout).
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}
