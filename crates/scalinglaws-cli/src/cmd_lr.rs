//! `scalinglaws lr`: the learning rate (and batch size) to use at a target scale, from LR
//! sweeps on smaller runs: each cell's optimum with its interval and flags, the law over cells
//! (loglinear or curved) by the joint fit or over per-cell optima, the curvature test, the
//! batch-size law, predictions, and the D- against N-extrapolation backtest.

use anyhow::Result;
use scalinglaws::job::lr::LrJob;

use crate::input::{self, Recipe};
use crate::input_error;
use crate::output::{self, Destination};
use scalinglaws_report::analyses::lr::{LrReport, Provenance};

#[derive(Debug)]
pub struct Config {
    pub recipe: Recipe,
    pub job: LrJob,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    if config.recipe.weights.is_some() {
        return Err(input_error(
            "lr does not use --weights: each run counts once in its cell's profile",
        ));
    }
    let table = input::load(&config.recipe)?;
    let analysis = config.job.run(&table, &config.recipe.target)?;
    let report = LrReport {
        analysis: &analysis,
        provenance: provenance(&table, config),
    };
    output::emit(config.json.as_ref(), &report)
}

/// Where the runs came from, in the command line's words.
fn provenance<'a>(table: &'a input::Table, config: &Config) -> Provenance<'a> {
    Provenance {
        source: table.dataset.source(),
        rows_read: table.rows_read,
        rows_filtered: table.rows_filtered,
        filters: config
            .recipe
            .filters
            .iter()
            .map(|f| format!("--where \"{}\"", f.text))
            .collect(),
        columns: [
            table.describe(&config.job.size),
            table.describe(&config.job.tokens),
            table.describe(&config.job.lr),
            table.describe(&config.recipe.target),
        ],
        batch: config.job.batch.as_deref().map(|b| table.describe(b)),
    }
}
