//! `scalinglaws compare`: fit every track (recipe) of the data with one law, separately or with
//! named parameters shared, and say which recipe wins at which budget and by how much compute,
//! with intervals from a bootstrap that resamples within tracks. Each track's compute-optimal
//! loss gets the prediction interval of a new run there, calibrated beyond the data by
//! rolling-origin backtests of the track's fit (by `--by`, as `fit` does) unless
//! `--no-calibration`, the fit's own beside it. The workflow, its defaults and its rules are
//! the library's (`scalinglaws::workflow::compare`); this file holds the arguments (which
//! `plot tracks` takes too) and turns them into its spec (`--budget` expressions, `--set`).

use anyhow::Result;
use clap::Args;
use scalinglaws::workflow::compare::{CompareJob, CompareSpec, CompareWorkflow, DEFAULT_FLOPS};
use scalinglaws::workflow::Ctx;

use crate::args::{DataArgs, LawArgs, SettingsArgs};
use crate::config::values::{budget_values, held_values};
use crate::config::{destination, law_choice, recipe, settings_config};
use crate::workflow::{run as run_workflow, Io};

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
    #[arg(long, value_name = "FORMULA", default_value = DEFAULT_FLOPS)]
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
    #[arg(long = "no-calibration")]
    pub no_calibration: bool,

    /// Write the comparison as JSON to PATH (the report still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}

/// Where the runs come from and where the document goes, and the comparison's spec.
pub fn spec(args: CompareArgs) -> Result<(Io, CompareSpec)> {
    let data = recipe(args.data)?;
    let job = CompareJob {
        track: args.track.trim().to_string(),
        shared: args.shared.iter().map(|s| s.trim().to_string()).collect(),
        baseline: args.baseline.map(|b| b.trim().to_string()),
        budgets: budget_values(&args.budgets)?,
        grid: false,
        flops: args.flops,
        held: held_values(&args.held)?,
        bootstrap: args.bootstrap,
        level: args.level,
        cell_tolerance: args.cell_tolerance,
        calibrate: !args.no_calibration,
        by: args.by.map(|b| b.trim().to_string()),
        seed: args.settings.seed.unwrap_or(0),
    };
    let spec = CompareSpec {
        law: law_choice(args.law)?,
        settings: settings_config(args.settings, None)?,
        recipe: data.recipe,
        job,
    };
    let io = Io {
        path: data.path,
        delimiter: data.delimiter,
        json: destination(args.json.as_deref()),
    };
    Ok((io, spec))
}

pub fn run(args: CompareArgs) -> Result<()> {
    let (io, spec) = spec(args)?;
    run_workflow::<CompareWorkflow>(&io, &spec, &Ctx::default())
}
