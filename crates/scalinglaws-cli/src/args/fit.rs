//! Arguments of `fit` and of `report` (a fit and the page that shows it).

use clap::Args;

use super::{DataArgs, LawArgs, SettingsArgs, SweepArgs};

/// `fit`'s own arguments: a fit's, and the grouping that makes it one fit per group.
#[derive(Debug, Args)]
pub struct FitCommandArgs {
    #[command(flatten)]
    pub fit: FitArgs,

    /// Fit the law to every group of rows sharing this column's label (repeat for combinations
    /// of several columns), on every core; writes a row per group (the --table, on stdout by
    /// default) or a JSON Lines record per group (--json).
    #[arg(long = "group", value_name = "COLUMN")]
    pub groups: Vec<String>,

    /// With --group: write the table of the groups' fits (CSV: labels, rows, status,
    /// objective, each parameter's value and standard error) to PATH, or to stdout with '-'.
    #[arg(long, value_name = "PATH|-", requires = "groups")]
    pub table: Option<String>,
}

#[derive(Debug, Args)]
pub struct FitArgs {
    #[command(flatten)]
    pub data: DataArgs,

    #[command(flatten)]
    pub sweep: SweepArgs,

    #[command(flatten)]
    pub law: LawArgs,

    #[command(flatten)]
    pub settings: SettingsArgs,

    /// Refit K resampled copies of the data (each with the full search) for percentile
    /// intervals; the replicates are kept in the JSON for later intervals (0: no bootstrap).
    #[arg(long, value_name = "K")]
    pub bootstrap: Option<usize>,

    /// Resample whole runs named by this column instead of rows (for checkpoints of runs).
    #[arg(long, value_name = "COLUMN", requires = "bootstrap")]
    pub cluster: Option<String>,

    /// Confidence level of bootstrap and profile intervals.
    #[arg(long, value_name = "P", default_value_t = scalinglaws::uncertainty::DEFAULT_LEVEL)]
    pub level: f64,

    /// Profile-likelihood interval of a parameter (repeat for several).
    #[arg(long = "profile", value_name = "PARAM")]
    pub profiles: Vec<String>,

    /// The column that orders scale for the extrapolation calibration of prediction intervals
    /// [default: C if the data have it, else 6*N*D, else the law's first variable].
    #[arg(long, value_name = "COLUMN")]
    pub by: Option<String>,

    /// Keep the fit's own prediction intervals beyond the data (no rolling-origin calibration).
    #[arg(long = "no-calibration", conflicts_with = "by")]
    pub no_calibration: bool,

    /// Fit a residual scale that varies with COLUMN, sigma(x) = sigma0*(x/x0)^s (a variable of
    /// the law, or compute C = 6*N*D); prediction intervals use sigma at each point. Needs
    /// --loss linear or --family gaussian.
    #[arg(long, value_name = "COLUMN")]
    pub heteroscedastic: Option<String>,

    /// Quality control of the runs before the fit: warn (flag diverged, duplicated and
    /// out-of-line rows, fit every row), exclude (remove the flagged rows; the report lists
    /// them) or off [default: warn].
    #[arg(long, value_name = "warn|exclude|off")]
    pub qc: Option<String>,

    /// Write the fit as JSON to PATH (the report still prints), or to stdout instead of the
    /// report with '-'. With --group: one JSON Lines record per group (the table then prints
    /// only when --table asks for it).
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(flatten)]
    pub fit: FitArgs,

    /// The HTML file to write ('-' for stdout).
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE.html|-",
        default_value = "report.html"
    )]
    pub output: String,
}
