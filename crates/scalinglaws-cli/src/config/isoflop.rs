//! `isoflop`'s configuration: the arguments as the library's `IsoflopJob`.

use anyhow::Result;

use scalinglaws::analysis::envelope::EnvelopeMethod;
use scalinglaws::analysis::isoflop::{Method, Shape};
use scalinglaws::job::isoflop::IsoflopJob;

use super::values::budget_values;
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
    let predict_at = positive_budgets(&args.budgets)?;
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
    if args.method.is_some() && !forecasting {
        return Err(input_error(
            "--method chooses what predicts at new budgets: give --budget C or --backtest K",
        ));
    }
    let method = args
        .method
        .as_deref()
        .map(|m| Method::parse(m.trim()))
        .transpose()?
        .unwrap_or_default();
    let bootstrap = args.bootstrap.unwrap_or(if forecasting { 1000 } else { 0 });
    let envelope = args
        .envelope
        .as_deref()
        .map(|text| {
            EnvelopeMethod::parse(text.trim()).ok_or_else(|| {
                input_error(format!(
                    "--envelope '{text}': use hull, grid, or grid:K with K >= 2 budgets"
                ))
            })
        })
        .transpose()?;
    Ok(cmd_isoflop::Config {
        recipe: recipe(args.data)?,
        job: IsoflopJob {
            compute: args.compute.trim().to_string(),
            size: args.size.trim().to_string(),
            tokens: args.tokens.map(|t| t.trim().to_string()),
            groups: args.groups.iter().map(|g| g.trim().to_string()).collect(),
            run: args.run.map(|r| r.trim().to_string()),
            envelope,
            backtest: args.backtest,
            shape: shape(args.shape.trim())?,
            tolerance: args.tolerance,
            bootstrap,
            seed: args.seed,
            level: level(args.level)?,
            budgets: predict_at,
            method,
            calibrate: !args.no_calibration,
            max_work: args.work.budget()?,
            sweep: args.sweep.columns(),
            interrupt: Default::default(),
        },
        json: destination(args.json.as_deref()),
    })
}

/// The budgets of `--budget` (each a number or a comma list), each positive.
pub fn positive_budgets(texts: &[String]) -> Result<Vec<f64>> {
    let values = budget_values(texts)?;
    if let Some(bad) = values.iter().find(|c| !(c.is_finite() && **c > 0.0)) {
        return Err(input_error(format!(
            "--budget {bad}: give positive budgets in FLOPs, e.g. --budget 1e22,1e23"
        )));
    }
    Ok(values)
}

/// `--shape NAME`.
pub fn shape(name: &str) -> Result<Shape> {
    Shape::from_name(name).ok_or_else(|| {
        input_error(format!(
            "--shape '{name}': use one of {}",
            Shape::ALL.map(Shape::name).join(", ")
        ))
    })
}
