//! `scalinglaws compare`: fit every track (recipe) of the data with one law, separately or with
//! named parameters shared, and say which recipe wins at which budget and by how much compute,
//! with intervals from a bootstrap that resamples within tracks. Each track's compute-optimal
//! loss gets the prediction interval of a new run there, calibrated beyond the data by
//! rolling-origin backtests of the track's fit (by `--by`, as `fit` does) unless
//! `--no-calibration`, the fit's own beside it.

use anyhow::Result;
use scalinglaws::analysis::tracks::{Track, TrackComparison};
use scalinglaws::job::compare::CompareJob;

use crate::config::{LawChoice, SettingsJob};
use crate::input::{self, Recipe};
use crate::output::{self, Destination};
use scalinglaws::job::fit::check_enough_rows;
use scalinglaws::Law;
use scalinglaws_report::analyses::compare::CompareReport;

#[derive(Debug)]
pub struct Config {
    pub recipe: Recipe,
    pub law: LawChoice,
    pub settings: SettingsJob,
    pub job: CompareJob,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let (comparison, _, _) = compare(config, false)?;
    let report = CompareReport {
        result: &comparison,
        track: &config.job.track,
    };
    output::emit(config.json.as_ref(), &report)
}

/// The comparison, with the tracks and the law: at the --budget values, or with `grid` at 25
/// budgets from the smallest run's compute to 100× the largest (for plots).
pub fn compare(config: &Config, grid: bool) -> Result<(TrackComparison, Vec<Track>, Law)> {
    let table = input::load(&config.recipe)?;
    let law = config.law.build(&table)?;
    let fit_settings = config.settings.for_law(&config.law);
    check_enough_rows(&law, &fit_settings, &table)?;
    let job = CompareJob {
        grid,
        ..config.job.clone()
    };
    let compared = job.run(&table, &config.recipe, &law, fit_settings)?;
    Ok((compared.comparison, compared.tracks, law))
}

/// The --budget values, in order.
pub fn given_budgets(config: &Config) -> Result<Vec<f64>> {
    Ok(config.job.budgets.clone())
}
