//! `scalinglaws backtest`: does the law extrapolate on this data? Fits on the smaller scales,
//! predicts the held-out larger ones, and reports every held-out run with its error and
//! intervals, and the scores (ARE, RMSE of log residuals, interval coverage). The workflow is
//! the library's (`scalinglaws::workflow::backtest`); this file holds the arguments and turns
//! them into its spec (the `--rollout --steps G` and `--rolling --origins K` syntax); the
//! holdout's defaults and ranges are the library's.

use anyhow::Result;
use clap::Args;
use scalinglaws::analysis::backtest::{Holdout, DEFAULT_ROLLING_ORIGINS, DEFAULT_ROLLOUT_GROUPS};
use scalinglaws::job::UncertaintySettings;
use scalinglaws::workflow::backtest::{BacktestJob, BacktestWorkflow};
use scalinglaws::workflow::Ctx;

use crate::args::{DataArgs, LawArgs, SettingsArgs, SweepArgs};
use crate::config::{destination, law_choice, recipe, replicates, settings_config};
use crate::input_error;
use crate::workflow::{run as run_workflow, Io};

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
    // Refused without --rollout here: clap's `requires` counts a flag's default as given.
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

pub fn run(args: BacktestArgs) -> Result<()> {
    let holdout = holdout(&args)?;
    let uncertainty = UncertaintySettings {
        bootstrap: replicates(args.bootstrap),
        level: args.level,
        calibrate: !args.no_calibration,
        seed: args.settings.seed.unwrap_or(0),
        ..UncertaintySettings::default()
    };
    let mut data = recipe(args.data)?;
    data.recipe.sweep = args.sweep.columns();
    let settings = settings_config(args.settings, Some(&mut data.recipe))?;
    let spec = BacktestJob {
        recipe: data.recipe,
        law: law_choice(args.law)?,
        settings,
        by: args.by.trim().to_string(),
        holdout,
        uncertainty,
    };
    let io = Io {
        path: data.path,
        delimiter: data.delimiter,
        json: destination(args.json.as_deref()),
    };
    run_workflow::<BacktestWorkflow>(&io, &spec, &Ctx::default())
}

/// Which rows are held out: `--steps` only with `--rollout`, `--origins` only with `--rolling`
/// (this command's syntax); the choice of one and its number are the library's rules.
fn holdout(args: &BacktestArgs) -> Result<Holdout> {
    if let Some(steps) = args.steps.filter(|_| !args.rollout) {
        return Err(input_error(format!(
            "--steps {steps} sets the groups of --rollout, which is not given: add --rollout, or drop --steps"
        )));
    }
    if let Some(origins) = args.origins.filter(|_| !args.rolling) {
        return Err(input_error(format!(
            "--origins {origins} sets the origins of --rolling, which is not given: add --rolling, or drop --origins"
        )));
    }
    let rollout = args
        .rollout
        .then(|| args.steps.unwrap_or(DEFAULT_ROLLOUT_GROUPS));
    let rolling = args
        .rolling
        .then(|| args.origins.unwrap_or(DEFAULT_ROLLING_ORIGINS));
    Ok(Holdout::one_of(
        args.holdout_top,
        args.holdout_frac,
        rollout,
        rolling,
    )?)
}
