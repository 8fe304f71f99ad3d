//! `select`'s configuration: the candidate laws and the rolling origins, checked.

use anyhow::Result;

use super::{destination, level, recipe, settings_config};
use crate::args::SelectArgs;
use crate::input_error;
use crate::{cmd_compare_laws, cmd_select};

pub fn select_config(args: SelectArgs) -> Result<cmd_select::Config> {
    let mut laws = args
        .laws
        .iter()
        .map(|text| cmd_compare_laws::LawSpec::parse(text))
        .collect::<Result<Vec<_>>>()?;
    laws.extend(
        args.formulas
            .iter()
            .map(|text| cmd_compare_laws::LawSpec::formula(text)),
    );
    if laws.is_empty() {
        return Err(input_error(
            "select needs candidate laws: repeat --law NAME (or --formula TEXT)",
        ));
    }
    if !(2..=50).contains(&args.origins) {
        return Err(input_error(format!(
            "--origins {}: give between 2 and 50 rolling origins (default 5)",
            args.origins
        )));
    }
    Ok(cmd_select::Config {
        recipe: recipe(args.data)?,
        laws,
        settings: settings_config(args.settings)?,
        by: args.by.map(|b| b.trim().to_string()),
        origins: args.origins,
        level: level("--level", args.level)?,
        calibrate: !args.no_calibration,
        at: args.at,
        check: args.check,
        json: destination(args.json.as_deref()),
    })
}
