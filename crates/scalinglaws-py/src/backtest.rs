//! Backtests: fits on the smaller scales, scored on the larger ones (the library's
//! `BacktestJob`, deserialised from the request the Python layer sends).

use pyo3::prelude::*;

use scalinglaws::job::backtest::{BacktestJob, BacktestRequest};
use scalinglaws_report::analyses::backtest::BacktestReport;

use crate::data::{table, Data};
use crate::errors::{interruptible, py, request};
use crate::report::{reported, Reported};

/// Fits on the smaller scales and scores the predictions of the larger ones; returns the
/// backtest's JSON (as `scalinglaws backtest --json`) and its text report.
#[pyfunction]
pub(crate) fn backtest(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<Reported> {
    let request: BacktestRequest = request(request_json)?;
    let mut job = py(BacktestJob::try_from(request))?;
    let table = py(table(data, &job.recipe))?;
    job.settings.settings.max_work = crate::fit::max_work();
    let interrupt = job.settings.settings.interrupt.clone();
    let result = interruptible(py_, &interrupt, || job.run(&table))?;
    let law = py(job.law.build(&table))?;
    reported(&BacktestReport {
        result: &result,
        law: law.label(),
        source: table.dataset.source(),
        by: &job.by,
        holdout: job.holdout,
    })
}
