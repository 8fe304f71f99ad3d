//! `scalinglaws predict`: evaluates a saved fit at new points, so that a fit written once by
//! `fit --json` answers "what loss at N, D?" without refitting. Points are given per law
//! variable (`N=7e10 D=1.4e12`), as lists for several points; the library's `PredictJob`
//! checks them and predicts.

use std::path::PathBuf;

use anyhow::Result;
use scalinglaws::job::PredictJob;

use crate::output::{self, Destination};
use crate::saved;
use scalinglaws_report::analyses::predict::PredictReport;
use scalinglaws_report::{export, Format};

#[derive(Debug)]
pub struct Config {
    pub fit: PathBuf,
    /// The points (values of each variable given, in the order given) and the level.
    pub job: PredictJob,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let (result, law) = saved::fit(&config.fit)?;
    let predictions = config.job.run(&result, &law)?;
    let report = PredictReport {
        predictions: &predictions,
        result: &result,
        variables: &law.variables,
    };
    match &config.json {
        Some(destination) => output::write(
            destination,
            &export(&report, Format::Json, &crate::wording::CommandLine)?,
        ),
        None => output::print_report(&report),
    }
}
