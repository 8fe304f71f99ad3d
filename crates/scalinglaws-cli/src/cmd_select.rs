//! `scalinglaws select`: scores candidate laws by rolling-origin backtests over scale, names
//! the winner, stacks them, and predicts at new points from the winner and from the stacked
//! average, with intervals that hold the spread between laws (`analysis::selection`). With
//! `--check`, the whole procedure is checked by nested rolling origins. The workflow is the
//! library's `SelectJob`.

use std::path::PathBuf;

use anyhow::Result;
use scalinglaws::job::SelectJob;

use crate::input;
use crate::output::{self, Destination};

#[derive(Debug)]
pub struct Config {
    pub path: PathBuf,
    pub delimiter: Option<u8>,
    pub job: SelectJob,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let job = &config.job;
    job.check()?;
    let table = input::read(&config.path, config.delimiter, &job.recipe)?;
    let outcome = job.run(&table)?;
    output::emit(config.json.as_ref(), &outcome)
}
