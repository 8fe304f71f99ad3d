//! `scalinglaws compare-laws`: fits several laws (or one law with some parameters held at
//! published values) to the same data and prints them side by side: objective, likelihood,
//! AIC/BIC, backtest error, and likelihood-ratio tests between nested laws.

use anyhow::Result;
use scalinglaws::analysis::law_comparison::compare_laws;

use crate::candidates;
use crate::config::{LawSpec, SettingsJob};
use crate::input::{self, Recipe};
use crate::output::{self, Destination};
use scalinglaws_report::analyses::compare_laws::CompareLawsReport;

#[derive(Debug)]
pub struct Config {
    pub recipe: Recipe,
    pub laws: Vec<LawSpec>,
    pub settings: SettingsJob,
    pub by: Option<String>,
    pub holdout_frac: f64,
    pub level: f64,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let table = input::load(&config.recipe)?;
    let candidates = candidates::build(&table, &config.recipe, &config.laws, &config.settings)?;
    let scale = config
        .by
        .as_deref()
        .map(|by| anyhow::Ok(table.values(by, "--by")?))
        .transpose()?;
    let comparison = compare_laws(
        &candidates,
        scale.as_deref(),
        config.holdout_frac,
        config.level,
    )?;
    let report = CompareLawsReport {
        comparison: &comparison,
        by: config.by.as_deref(),
        level: config.level,
    };
    output::emit(config.json.as_ref(), &report)
}
