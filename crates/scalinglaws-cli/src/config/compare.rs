//! `compare`'s configuration (also `plot tracks`'): the arguments as the library's
//! `CompareJob`, with `--budget`, `--flops` and `--set` parsed, and the comparison run from it
//! (both commands run the same one).

use anyhow::{Context, Result};
use scalinglaws::analysis::allocation::Flops;
use scalinglaws::analysis::tracks::{Track, TrackComparison};
use scalinglaws::job::compare::CompareJob;
use scalinglaws::job::fit::check_enough_rows;
use scalinglaws::job::{LawChoice, SettingsJob};
use scalinglaws::Law;

use super::values::{budget_values, held_values};
use super::{destination, law_choice, level, recipe, settings_config};
use crate::args::CompareArgs;
use crate::input::{self, Recipe};
use crate::output::Destination;

/// Everything `compare` and `plot tracks` need: the data, the law, how to fit it, the
/// comparison job, and the FLOPs formula parsed (the job keeps it as text, as Python sends
/// it).
#[derive(Debug)]
pub struct CompareConfig {
    pub recipe: Recipe,
    pub law: LawChoice,
    pub settings: SettingsJob,
    pub job: CompareJob,
    pub flops: Flops,
    pub json: Option<Destination>,
}

impl CompareConfig {
    /// The comparison, with the tracks and the law: at the --budget values, or with `grid` at
    /// 25 budgets from the smallest run's compute to 100× the largest (for plots).
    pub fn run(&self, grid: bool) -> Result<(TrackComparison, Vec<Track>, Law)> {
        let table = input::load(&self.recipe)?;
        let law = self.law.build(&table)?;
        let fit_settings = self.settings.for_law(&self.law);
        check_enough_rows(&law, &fit_settings, &table)?;
        let job = CompareJob {
            grid,
            ..self.job.clone()
        };
        let compared = job.run(&table, &self.recipe, &law, fit_settings)?;
        Ok((compared.comparison, compared.tracks, law))
    }
}

pub fn compare_config(args: CompareArgs) -> Result<CompareConfig> {
    let flops = Flops::parse(&args.flops).context("--flops")?;
    let seed = args.settings.seed.unwrap_or(0);
    let job = CompareJob {
        track: args.track.trim().to_string(),
        shared: args
            .shared
            .iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect(),
        baseline: args.baseline.map(|b| b.trim().to_string()),
        budgets: budget_values(&args.budgets)?,
        grid: false,
        flops: flops.text.clone(),
        held: held_values(&args.held)?,
        bootstrap: args.bootstrap,
        level: level(args.level)?,
        cell_tolerance: args.cell_tolerance,
        calibrate: !args.no_calibration,
        by: args.by.map(|b| b.trim().to_string()),
        seed,
    };
    Ok(CompareConfig {
        recipe: recipe(args.data)?,
        law: law_choice(args.law)?,
        settings: settings_config(args.settings, None)?,
        job,
        flops,
        json: destination(args.json.as_deref()),
    })
}
