//! `scalinglaws compare-laws`: fits several laws (or one law with some parameters held at
//! published values) to the same data and prints them side by side: objective, likelihood,
//! AIC/BIC, backtest error, and likelihood-ratio tests between nested laws. The workflow is
//! the library's `CompareLawsJob`.

use std::path::PathBuf;

use anyhow::Result;
use scalinglaws::job::CompareLawsJob;

use crate::input;
use crate::output::{self, Destination};
use scalinglaws_report::analyses::compare_laws::CompareLawsReport;

#[derive(Debug)]
pub struct Config {
    pub path: PathBuf,
    pub delimiter: Option<u8>,
    pub job: CompareLawsJob,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let job = &config.job;
    job.check()?;
    let table = input::read(&config.path, config.delimiter, &job.recipe)?;
    let comparison = job.run(&table)?;
    let report = CompareLawsReport {
        comparison: &comparison,
        by: job.by.as_deref(),
        level: job.level,
    };
    output::emit(config.json.as_ref(), &report)
}
