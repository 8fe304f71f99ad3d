//! `scalinglaws select`: scores candidate laws by rolling-origin backtests over scale, names
//! the winner, stacks them, and predicts at new points from the winner and from the stacked
//! average, with intervals that hold the spread between laws. With `--check`, the whole
//! procedure is checked by nested rolling origins. The workflow, its defaults and its rules
//! are the library's (`scalinglaws::workflow::select`); this file holds the arguments and turns
//! them into its spec (the `NAME[P=V,...]` syntax of a law with held values, `--at VAR=V,...`).

use anyhow::Result;
use clap::Args;
use scalinglaws::workflow::select::{SelectJob, SelectWorkflow};
use scalinglaws::workflow::Ctx;

use crate::args::{CandidateArgs, DataArgs, SettingsArgs, SweepArgs};
use crate::config::values::named_lists;
use crate::config::{destination, recipe, refuse_seed, settings_config, LawSpec};
use crate::workflow::{run as run_workflow, Io};

#[derive(Debug, Args)]
pub struct SelectArgs {
    #[command(flatten)]
    pub data: DataArgs,

    #[command(flatten)]
    pub sweep: SweepArgs,

    #[command(flatten)]
    pub candidates: CandidateArgs,

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

pub fn run(args: SelectArgs) -> Result<()> {
    refuse_seed(&args.settings, "select")?;
    let candidates = LawSpec::candidates(&args.candidates)?;
    let mut data = recipe(args.data)?;
    data.recipe.sweep = args.sweep.columns();
    let spec = SelectJob {
        recipe: data.recipe,
        candidates,
        settings: settings_config(args.settings, None)?,
        by: args.by.map(|b| b.trim().to_string()),
        origins: args.origins,
        level: args.level,
        calibrate: !args.no_calibration,
        at: named_lists("--at", "VAR=VALUE, e.g. N=7e10", &args.at)?,
        check: args.check,
    };
    let io = Io {
        path: data.path,
        delimiter: data.delimiter,
        json: destination(args.json.as_deref()),
    };
    run_workflow::<SelectWorkflow>(&io, &spec, &Ctx::default())
}
