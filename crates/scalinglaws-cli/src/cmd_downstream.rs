//! `scalinglaws downstream`: task accuracy at a larger model from the evaluations of smaller
//! models (and a model's own early checkpoints): each task diagnosed, then forecast by the
//! logistic law in log compute, the two-stage chain through a loss law, and the pooled
//! trajectory model, each with intervals calibrated by replays inside the data; with
//! `--holdout`, the same scored on held-out models.

use anyhow::Result;
use scalinglaws::job::downstream::DownstreamJob;

use crate::figure;
use crate::input::{self, Recipe};
use crate::input_error;
use crate::output::{self, Destination};
use scalinglaws_report::analyses::downstream::DownstreamReport;
use scalinglaws_report::plots::downstream_page;

#[derive(Debug)]
pub struct Config {
    pub recipe: Recipe,
    pub job: DownstreamJob,
    pub plot: Option<figure::Output>,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    if config.recipe.weights.is_some() {
        return Err(input_error(
            "downstream does not use --weights: each evaluation's weight is its binomial error (--trials)",
        ));
    }
    let table = input::load(&config.recipe)?;
    let result = config.job.run(&table, &config.recipe.target)?;
    if let Some(target) = &config.plot {
        figure::write(&downstream_page(&result), target)?;
    }
    let source = config.recipe.path.display().to_string();
    output::emit(
        config.json.as_ref(),
        &DownstreamReport {
            result: &result,
            source: &source,
        },
    )
}
