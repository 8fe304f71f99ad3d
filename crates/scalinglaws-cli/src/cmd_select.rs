//! `scalinglaws select`: scores candidate laws by rolling-origin backtests over scale, names
//! the winner, stacks them, and predicts at new points from the winner and from the stacked
//! average, with intervals that hold the spread between laws (`analysis::selection`). With
//! `--check`, the whole procedure is checked by nested rolling origins.

use anyhow::Result;
use scalinglaws::analysis::selection::{
    evaluate, points_by_name, select, value_at, SelectionOptions,
};

use crate::candidates;
use crate::config::{LawSpec, SettingsJob};
use crate::input::{self, Recipe};
use crate::output::{self, Destination};
use scalinglaws_report::analyses::select::{Output, PointOut};

#[derive(Debug)]
pub struct Config {
    pub recipe: Recipe,
    pub laws: Vec<LawSpec>,
    pub settings: SettingsJob,
    pub by: Option<String>,
    pub origins: usize,
    pub level: f64,
    pub calibrate: bool,
    /// The `--at` values by variable name (checked against the laws by the library).
    pub at: Vec<(String, Vec<f64>)>,
    pub check: bool,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let table = input::load(&config.recipe)?;
    let candidates = candidates::build(&table, &config.recipe, &config.laws, &config.settings)?;
    let first = &candidates[0];
    let (by, scale) = table.scale(&first.law, &first.data, config.by.as_deref(), "--by")?;
    let options = SelectionOptions {
        level: config.level,
        origins: config.origins,
        calibrate: config.calibrate,
    };
    let at = &config.at;
    let points = if at.is_empty() {
        Vec::new()
    } else {
        points_by_name(&candidates, at)?
    };
    let selection = select(&candidates, &by, &scale, &options)?;
    let predictions = if at.is_empty() {
        Vec::new()
    } else {
        selection
            .predict(&points)?
            .into_iter()
            .enumerate()
            .map(|(i, prediction)| PointOut {
                inputs: at
                    .iter()
                    .map(|(n, c)| (n.clone(), value_at(c, i)))
                    .collect(),
                prediction,
            })
            .collect()
    };
    let check = if config.check {
        Some(evaluate(&candidates, &by, &scale, &options)?)
    } else {
        None
    };
    let out = Output {
        selection: &selection,
        predictions,
        check,
    };
    output::emit(config.json.as_ref(), &out)
}
