//! `compare-laws`' configuration: the laws to compare, checked.

use anyhow::Result;

use super::{destination, level, recipe, settings_config, LawSpec};
use crate::args::CompareLawsArgs;
use crate::cmd_compare_laws;
use crate::input_error;

pub fn compare_laws_config(args: CompareLawsArgs) -> Result<cmd_compare_laws::Config> {
    let laws = LawSpec::all(&args.laws, &args.formulas)?;
    if laws.len() < 2 {
        return Err(input_error(
            "compare-laws needs at least two laws: repeat --law NAME (or --formula TEXT)",
        ));
    }
    if !(args.holdout_frac > 0.0 && args.holdout_frac < 1.0) {
        return Err(input_error(format!(
            "--holdout-frac {}: give a fraction strictly between 0 and 1, e.g. 0.2",
            args.holdout_frac
        )));
    }
    Ok(cmd_compare_laws::Config {
        recipe: recipe(args.data)?,
        laws,
        settings: settings_config(args.settings)?,
        by: args.by.map(|b| b.trim().to_string()),
        holdout_frac: args.holdout_frac,
        level: level("--level", args.level)?,
        json: destination(args.json.as_deref()),
    })
}
