//! Arguments of `compare` (and `plot tracks`): recipes (tracks) fitted side by side.

use clap::Args;

use super::{DataArgs, LawArgs, SettingsArgs};

#[derive(Debug, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub data: DataArgs,

    #[command(flatten)]
    pub law: LawArgs,

    #[command(flatten)]
    pub settings: SettingsArgs,

    /// The column naming each run's track (recipe); the first track in the file is the
    /// baseline unless --baseline says otherwise.
    #[arg(long, value_name = "COLUMN")]
    pub track: String,

    /// Parameters common to every track (fitted jointly): E,alpha,beta.
    #[arg(long, value_name = "NAME[,NAME...]", value_delimiter = ',')]
    pub shared: Vec<String>,

    /// The track the others are compared with.
    #[arg(long, value_name = "TRACK")]
    pub baseline: Option<String>,

    /// Budgets in FLOPs for allocations, compute multipliers and loss gaps (repeatable).
    #[arg(long = "budget", value_name = "C[,C2,...]", allow_hyphen_values = true)]
    pub budgets: Vec<String>,

    /// Training FLOPs as a formula of N and D.
    #[arg(long, value_name = "FORMULA", default_value = "6*N*D")]
    pub flops: String,

    /// Hold another variable of the law at a value for the allocations, e.g. U=25e9.
    #[arg(long = "set", value_name = "VAR=V[,V2,...]")]
    pub held: Vec<String>,

    /// Bootstrap replicates (rows resampled within each track) for every interval.
    #[arg(long, value_name = "K", default_value_t = 0)]
    pub bootstrap: usize,

    /// Level of the intervals.
    #[arg(long, value_name = "P", default_value_t = scalinglaws::uncertainty::DEFAULT_LEVEL)]
    pub level: f64,

    /// Runs of two tracks whose law variables agree within this relative tolerance share a
    /// cell (for paired-cell wins).
    #[arg(long = "cell-tolerance", value_name = "X", default_value_t = scalinglaws::analysis::tracks::DEFAULT_CELL_TOLERANCE)]
    pub cell_tolerance: f64,

    /// The column that orders scale for the extrapolation calibration of each track's
    /// prediction intervals [default: C if the data have it, else 6*N*D, else the law's first
    /// variable].
    #[arg(long, value_name = "COLUMN")]
    pub by: Option<String>,

    /// Keep the fits' own prediction intervals beyond the data (no rolling-origin calibration).
    #[arg(long = "no-calibration", conflicts_with = "by")]
    pub no_calibration: bool,

    /// Write the comparison as JSON to PATH (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}
