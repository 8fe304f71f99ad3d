//! Law selection: candidates scored by rolling-origin backtests, stacked, and checked (the
//! library's `SelectJob`, deserialised from the request the Python layer sends; its outcome
//! is the document `scalinglaws select --json` writes).

use pyo3::prelude::*;

use scalinglaws::job::select::{SelectJob, SelectRequest};

use crate::data::{table, Data};
use crate::errors::{interruptible, py, request};
use crate::report::{reported, Reported};

/// Scores candidate laws by rolling-origin backtests, picks the winner, stacks them and
/// predicts at `at`; returns the JSON of `scalinglaws select --json` and its text report.
#[pyfunction]
pub(crate) fn select(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<Reported> {
    let request: SelectRequest = request(request_json)?;
    let mut job = py(SelectJob::try_from(request))?;
    py(job.check())?;
    let table = py(table(data, &job.recipe))?;
    job.settings.settings.max_work = crate::fit::max_work();
    let interrupt = job.settings.settings.interrupt.clone();
    let outcome = interruptible(py_, &interrupt, || job.run(&table))?;
    reported(&outcome)
}
