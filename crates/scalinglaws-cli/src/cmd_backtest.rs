//! `scalinglaws backtest`: does the law extrapolate on this data? Fits on the smaller scales,
//! predicts the held-out larger ones, and reports every held-out run with its error and
//! intervals, and the scores (ARE, RMSE of log residuals, interval coverage).

use anyhow::{Context, Result};
use scalinglaws::analysis::backtest::{backtest, BacktestOptions, Holdout};
use scalinglaws::uncertainty::CalibrationOptions;

use crate::config::{LawChoice, SettingsJob};
use crate::input::{self, Recipe};
use crate::output::{self, Destination};
use scalinglaws::job::fit::check_enough_rows;
use scalinglaws::job::UncertaintySettings;
use scalinglaws_report::analyses::backtest::BacktestReport;

#[derive(Debug)]
pub struct Config {
    pub recipe: Recipe,
    pub law: LawChoice,
    pub settings: SettingsJob,
    pub by: String,
    pub holdout: Holdout,
    /// The level of the scored intervals, the replicates of each training fit's bootstrap,
    /// whether its intervals are calibrated, and the seed of its draws.
    pub uncertainty: UncertaintySettings,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let table = input::load(&config.recipe)?;
    let law = config.law.build(&table)?;
    let mut settings = config.settings.for_law(&config.law);
    // The library's backtest reads the seed of its bootstraps from the fit settings.
    settings.seed = config.uncertainty.seed;
    let data = table.fit_data(&law, &config.recipe, settings.space)?;
    check_enough_rows(&law, &settings, &table)?;
    let scale = table.values(&config.by, "--by")?;
    let uncertainty = &config.uncertainty;
    let options = BacktestOptions {
        holdout: config.holdout,
        level: uncertainty.level,
        bootstrap: uncertainty.bootstrap,
        calibrate: uncertainty.calibrate.then(|| CalibrationOptions {
            level: uncertainty.level,
            ..CalibrationOptions::default()
        }),
    };
    let mut result = backtest(&law, &data, &scale, &settings, &options)
        .with_context(|| format!("backtest by '{}'", config.by))?;
    // Report rows as the file numbers them, not as indices of the kept rows.
    for point in result.splits.iter_mut().flat_map(|s| s.points.iter_mut()) {
        point.row = table.file_row(point.row).unwrap_or(point.row + 1);
    }
    let report = BacktestReport {
        result: &result,
        law: law.label(),
        source: table.dataset.source(),
        by: &config.by,
        holdout: config.holdout,
    };
    output::emit(config.json.as_ref(), &report)
}
