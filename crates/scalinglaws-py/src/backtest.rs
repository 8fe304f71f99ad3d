//! Backtests: fits on the smaller scales, scored on the larger ones (the library's
//! `BacktestJob`, deserialised from the request the Python layer sends).

use pyo3::prelude::*;

use scalinglaws::job::backtest::{BacktestJob, BacktestRequest};

use crate::data::{table, Data};
use crate::errors::{interruptible, json_document, py, request};

/// Fits on the smaller scales and scores the predictions of the larger ones; returns the
/// backtest's JSON (as `scalinglaws backtest --json`).
#[pyfunction]
pub(crate) fn backtest(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<String> {
    let request: BacktestRequest = request(request_json)?;
    let mut job = py(BacktestJob::try_from(request))?;
    let table = py(table(data, &job.recipe))?;
    job.settings.settings.max_work = crate::fit::max_work();
    let interrupt = job.settings.settings.interrupt.clone();
    let result = interruptible(py_, &interrupt, || job.run(&table))?;
    json_document(&result)
}
