//! `backtest`'s configuration: the library's `BacktestJob`, with which rows are held out.

use anyhow::Result;
use scalinglaws::analysis::backtest::Holdout;
use scalinglaws::job::{BacktestJob, UncertaintySettings};

use super::{destination, law_choice, level, recipe, replicates, settings_config};
use crate::args::BacktestArgs;
use crate::cmd_backtest;
use crate::input_error;

pub fn backtest_config(args: BacktestArgs) -> Result<cmd_backtest::Config> {
    let holdout = holdout(&args)?;
    let uncertainty = UncertaintySettings {
        bootstrap: replicates(args.bootstrap),
        level: level(args.level)?,
        calibrate: !args.no_calibration,
        seed: args.settings.seed.unwrap_or(0),
        ..UncertaintySettings::default()
    };
    let mut data = recipe(args.data)?;
    data.recipe.sweep = args.sweep.columns();
    let settings = settings_config(args.settings, Some(&mut data.recipe))?;
    Ok(cmd_backtest::Config {
        path: data.path,
        delimiter: data.delimiter,
        job: BacktestJob {
            recipe: data.recipe,
            law: law_choice(args.law)?,
            settings,
            by: args.by.trim().to_string(),
            holdout,
            uncertainty,
        },
        json: destination(args.json.as_deref()),
    })
}

/// Which rows are held out: exactly one of `--holdout-top`, `--holdout-frac`, `--rollout`
/// and `--rolling`, checked.
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
    let steps = args.steps.unwrap_or(6);
    let origins = args.origins.unwrap_or(5);
    Ok(match (args.holdout_top, args.holdout_frac, args.rollout) {
        (Some(0), _, _) => return Err(input_error("--holdout-top 0: hold out at least 1 scale")),
        (Some(k), _, _) => Holdout::Top(k),
        (None, Some(f), _) if f > 0.0 && f < 1.0 => Holdout::Fraction(f),
        (None, Some(f), _) => {
            return Err(input_error(format!(
                "--holdout-frac {f}: give a fraction strictly between 0 and 1, e.g. 0.2"
            )))
        }
        (None, None, true) if steps >= 2 => Holdout::Rollout(steps),
        (None, None, true) => return Err(input_error("--steps: give at least 2 groups")),
        (None, None, false) if args.rolling && origins >= 1 => Holdout::Rolling(origins),
        (None, None, false) if args.rolling => {
            return Err(input_error("--origins: give at least 1 origin"))
        }
        (None, None, false) => {
            return Err(input_error(
                "say what to hold out: --holdout-top K, --holdout-frac F, --rollout or --rolling",
            ))
        }
    })
}
