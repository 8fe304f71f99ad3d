//! `compare`'s configuration (also `plot tracks`').

use anyhow::Result;

use super::{destination, law_choice, level, recipe, settings_config};
use crate::args::CompareArgs;
use crate::cmd_compare;
use crate::input_error;

pub fn compare_config(args: CompareArgs) -> Result<cmd_compare::Config> {
    if !(args.cell_tolerance > 0.0 && args.cell_tolerance < 1.0) {
        return Err(input_error(format!(
            "--cell-tolerance {}: give a relative tolerance in (0, 1), e.g. 1e-3",
            args.cell_tolerance
        )));
    }
    Ok(cmd_compare::Config {
        recipe: recipe(args.data)?,
        law: law_choice(args.law)?,
        settings: settings_config(args.settings)?,
        track: args.track.trim().to_string(),
        shared: args
            .shared
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        baseline: args.baseline.map(|b| b.trim().to_string()),
        budgets: args.budgets,
        flops: args.flops,
        held: args.held,
        bootstrap: args.bootstrap,
        level: level("--level", args.level)?,
        cell_tolerance: args.cell_tolerance,
        calibrate: !args.no_calibration,
        by: args.by.map(|b| b.trim().to_string()),
        json: destination(args.json.as_deref()),
    })
}
