//! `isoflop`'s configuration.

use anyhow::Result;

use super::{destination, level, recipe};
use crate::args::IsoflopArgs;
use crate::cmd_isoflop;
use crate::input_error;

pub fn isoflop_config(args: IsoflopArgs) -> Result<cmd_isoflop::Config> {
    if !(args.tolerance >= 0.0 && args.tolerance < 1.0) {
        return Err(input_error(format!(
            "--tolerance {}: give a relative tolerance in [0, 1), e.g. 1e-3",
            args.tolerance
        )));
    }
    let predict_at = cmd_isoflop::budgets(&args.budgets)?;
    if args.backtest == Some(0) {
        return Err(input_error(
            "--backtest 0: hold out at least the largest budget, e.g. --backtest 2",
        ));
    }
    let forecasting = !predict_at.is_empty() || args.backtest.is_some();
    if args.no_calibration && !forecasting {
        return Err(input_error(
            "--no-calibration acts on predictions beyond the data: give --budget C or --backtest K",
        ));
    }
    let bootstrap = args.bootstrap.unwrap_or(if forecasting { 1000 } else { 0 });
    Ok(cmd_isoflop::Config {
        recipe: recipe(args.data)?,
        groups: args.groups.iter().map(|g| g.trim().to_string()).collect(),
        compute: args.compute.trim().to_string(),
        size: args.size.trim().to_string(),
        tokens: args.tokens.map(|t| t.trim().to_string()),
        envelope: args
            .envelope
            .as_deref()
            .map(|text| {
                scalinglaws::analysis::envelope::EnvelopeMethod::parse(text.trim()).ok_or_else(
                    || {
                        input_error(format!(
                            "--envelope '{text}': use hull, grid, or grid:K with K >= 2 budgets"
                        ))
                    },
                )
            })
            .transpose()?,
        run: args.run.map(|r| r.trim().to_string()),
        settings: scalinglaws::analysis::isoflop::IsoflopSettings {
            shape: cmd_isoflop::shape(args.shape.trim())?,
            tolerance: args.tolerance,
            bootstrap,
            seed: args.seed,
            level: level("--level", args.level)?,
            predict_at,
            calibrate: !args.no_calibration,
        },
        backtest: args.backtest,
        json: destination(args.json.as_deref()),
    })
}
