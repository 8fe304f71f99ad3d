//! `scalinglaws compare`: fit every track (recipe) of the data with one law, separately or with
//! named parameters shared, and say which recipe wins at which budget and by how much compute,
//! with intervals from a bootstrap that resamples within tracks. Each track's compute-optimal
//! loss gets the prediction interval of a new run there, calibrated beyond the data by
//! rolling-origin backtests of the track's fit (by `--by`, as `fit` does) unless
//! `--no-calibration`, the fit's own beside it.

use anyhow::Result;

use crate::config::CompareConfig;
use crate::output;
use scalinglaws_report::analyses::compare::CompareReport;

pub fn run(config: &CompareConfig) -> Result<()> {
    let (comparison, _, _) = config.run(false)?;
    let report = CompareReport {
        result: &comparison,
        track: &config.job.track,
    };
    output::emit(config.json.as_ref(), &report)
}
