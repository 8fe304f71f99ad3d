//! `scalinglaws isoflop`: IsoFLOP analysis of runs grouped by compute budget: each budget's
//! loss-optimal model size from a local curve in log N, and the power laws N* ∝ C^a and
//! D* ∝ C^b through the minima, with bootstrap intervals on request. With `--envelope`, the same
//! power laws from Chinchilla's approach 1: the lowest loss over the runs' checkpoints at each
//! compute. With `--budget`, predictions of N*, D* and the loss at new budgets with calibrated
//! intervals; with `--backtest K`, the same scored on the K largest budgets held out.

use anyhow::Result;
use scalinglaws::job::isoflop::IsoflopJob;

use crate::input::{self, Recipe};
use crate::input_error;
use crate::output::{self, Destination};
use scalinglaws_report::analyses::isoflop::{Columns, IsoflopReport};

#[derive(Debug)]
pub struct Config {
    pub recipe: Recipe,
    pub job: IsoflopJob,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    if config.recipe.weights.is_some() {
        return Err(input_error(
            "isoflop does not use --weights: every run counts once in its budget's profile",
        ));
    }
    let table = input::load(&config.recipe)?;
    let result = config.job.run(&table, &config.recipe.target)?;
    let report = IsoflopReport {
        result: &result,
        columns: Columns {
            compute: &config.job.compute,
            size: &config.job.size,
            run: config.job.run.as_deref(),
        },
    };
    output::emit(config.json.as_ref(), &report)
}
