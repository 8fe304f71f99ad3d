//! `scalinglaws compare-laws`: fits several laws (or one law with some parameters held at
//! published values) to the same data and prints them side by side: objective, likelihood,
//! AIC/BIC, backtest error, and likelihood-ratio tests between nested laws. The workflow, its
//! defaults and its rules are the library's (`scalinglaws::workflow::compare_laws`); this file
//! holds the arguments and turns them into its spec (the `NAME[P=V,...]` syntax of a law
//! with held values).

use anyhow::Result;
use clap::Args;
use scalinglaws::workflow::compare_laws::{CompareLawsJob, CompareLawsWorkflow};
use scalinglaws::workflow::Ctx;

use crate::args::{CandidateArgs, DataArgs, SettingsArgs, SweepArgs};
use crate::config::{destination, recipe, refuse_seed, settings_config, LawSpec};
use crate::workflow::{run as run_workflow, Io};

#[derive(Debug, Args)]
pub struct CompareLawsArgs {
    #[command(flatten)]
    pub data: DataArgs,

    #[command(flatten)]
    pub sweep: SweepArgs,

    #[command(flatten)]
    pub candidates: CandidateArgs,

    #[command(flatten)]
    pub settings: SettingsArgs,

    /// Score each law by a backtest that holds out the largest --holdout-frac of rows by this
    /// column.
    #[arg(long, value_name = "COLUMN")]
    pub by: Option<String>,

    /// Fraction of rows the backtest holds out (with --by) [default: 0.2].
    #[arg(long = "holdout-frac", value_name = "F")]
    pub holdout_frac: Option<f64>,

    /// Level of the backtest's prediction intervals.
    #[arg(long, value_name = "P", default_value_t = scalinglaws::uncertainty::DEFAULT_LEVEL)]
    pub level: f64,

    /// Write the comparison as JSON to PATH (the table still prints), or to stdout with '-'.
    #[arg(long, value_name = "PATH|-")]
    pub json: Option<String>,
}

pub fn run(args: CompareLawsArgs) -> Result<()> {
    refuse_seed(&args.settings, "compare-laws")?;
    let candidates = LawSpec::candidates(&args.candidates)?;
    let mut data = recipe(args.data)?;
    data.recipe.sweep = args.sweep.columns();
    let settings = settings_config(args.settings, Some(&mut data.recipe))?;
    let spec = CompareLawsJob {
        recipe: data.recipe,
        laws: candidates,
        settings,
        by: args.by.map(|b| b.trim().to_string()),
        holdout_frac: args.holdout_frac,
        level: args.level,
    };
    let io = Io {
        path: data.path,
        delimiter: data.delimiter,
        json: destination(args.json.as_deref()),
    };
    run_workflow::<CompareLawsWorkflow>(&io, &spec, &Ctx::default())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// The help's default of `--holdout-frac` is the library's (clap cannot show an optional
    /// value's default, so the help says it in words).
    #[test]
    fn the_help_shows_the_librarys_held_out_fraction() {
        let command = crate::Cli::command();
        let compare = command
            .find_subcommand("compare-laws")
            .expect("the compare-laws command");
        let option = compare
            .get_arguments()
            .find(|a| a.get_long() == Some("holdout-frac"))
            .expect("--holdout-frac");
        let help = option.get_help().expect("its help").to_string();
        let default = scalinglaws::workflow::compare_laws::DEFAULT_HOLDOUT_FRAC;
        assert!(help.contains(&format!("[default: {default}]")), "{help}");
    }
}
