//! `select`'s configuration: the library's `SelectJob`, with the candidate laws and the
//! rolling origins checked.

use anyhow::Result;
use scalinglaws::job::SelectJob;

use super::values::named_lists;
use super::{destination, level, recipe, settings_config, LawSpec};
use crate::args::SelectArgs;
use crate::cmd_select;
use crate::input_error;

pub fn select_config(args: SelectArgs) -> Result<cmd_select::Config> {
    if args.settings.seed.is_some() {
        return Err(input_error("select draws nothing at random; drop --seed"));
    }
    let laws = LawSpec::all(&args.laws, &args.formulas)?;
    let mut data = recipe(args.data)?;
    data.recipe.sweep = args.sweep.columns();
    Ok(cmd_select::Config {
        path: data.path,
        delimiter: data.delimiter,
        job: SelectJob {
            recipe: data.recipe,
            candidates: laws.into_iter().map(LawSpec::candidate).collect(),
            settings: settings_config(args.settings, None)?,
            by: args.by.map(|b| b.trim().to_string()),
            origins: args.origins,
            level: level(args.level)?,
            calibrate: !args.no_calibration,
            // Points are checked before any fit, so that a typo costs nothing.
            at: named_lists("--at", "VAR=VALUE, e.g. N=7e10", &args.at)?,
            check: args.check,
        },
        json: destination(args.json.as_deref()),
    })
}
