//! `compare-laws`' configuration: the library's `CompareLawsJob`, with the laws checked.

use anyhow::Result;
use scalinglaws::job::CompareLawsJob;

use super::{destination, level, recipe, settings_config, LawSpec};
use crate::args::CompareLawsArgs;
use crate::cmd_compare_laws;
use crate::input_error;

pub fn compare_laws_config(args: CompareLawsArgs) -> Result<cmd_compare_laws::Config> {
    if args.settings.seed.is_some() {
        return Err(input_error(
            "compare-laws draws nothing at random; drop --seed",
        ));
    }
    let laws = LawSpec::all(&args.laws, &args.formulas)?;
    let mut data = recipe(args.data)?;
    data.recipe.sweep = args.sweep.columns();
    let settings = settings_config(args.settings, Some(&mut data.recipe))?;
    Ok(cmd_compare_laws::Config {
        path: data.path,
        delimiter: data.delimiter,
        job: CompareLawsJob {
            recipe: data.recipe,
            laws: laws.into_iter().map(LawSpec::candidate).collect(),
            settings,
            by: args.by.map(|b| b.trim().to_string()),
            holdout_frac: args.holdout_frac,
            level: level(args.level)?,
        },
        json: destination(args.json.as_deref()),
    })
}
