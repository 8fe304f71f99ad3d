//! `scalinglaws backtest`: does the law extrapolate on this data? Fits on the smaller scales,
//! predicts the held-out larger ones, and reports every held-out run with its error and
//! intervals, and the scores (ARE, RMSE of log residuals, interval coverage). The workflow is
//! the library's `BacktestJob`.

use std::path::PathBuf;

use anyhow::Result;
use scalinglaws::job::BacktestJob;

use crate::input;
use crate::output::{self, Destination};
use scalinglaws_report::analyses::backtest::BacktestReport;

#[derive(Debug)]
pub struct Config {
    pub path: PathBuf,
    pub delimiter: Option<u8>,
    pub job: BacktestJob,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let job = &config.job;
    let table = input::read(&config.path, config.delimiter, &job.recipe)?;
    let result = job.run(&table)?;
    let law = job.law.build(&table)?;
    let report = BacktestReport {
        result: &result,
        law: law.label(),
        source: table.dataset.source(),
        by: &job.by,
        holdout: job.holdout,
    };
    output::emit(config.json.as_ref(), &report)
}
