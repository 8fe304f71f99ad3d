//! Laws side by side: several laws (or one law with some parameters held at published values)
//! fitted to the same rows, with their likelihoods, information criteria, backtest errors and
//! likelihood-ratio tests between nested laws (the library's `CompareLawsJob`, deserialised
//! from the request the Python layer sends; its outcome is the document
//! `scalinglaws compare-laws --json` writes).

use pyo3::prelude::*;

use scalinglaws::job::CompareLawsJob;
use scalinglaws_report::analyses::compare_laws::CompareLawsReport;

use crate::data::{table, Data};
use crate::errors::{interruptible, py, request};
use crate::report::{reported, Reported};

/// Fits every law of the request to the data and compares them; returns the JSON of
/// `scalinglaws compare-laws --json` and its text report.
#[pyfunction]
pub(crate) fn compare_laws(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<Reported> {
    let mut job: CompareLawsJob = request(request_json)?;
    py(job.check())?;
    let table = py(table(data, &job.recipe))?;
    job.settings.settings.max_work = crate::fit::max_work();
    let interrupt = job.settings.settings.interrupt.clone();
    let comparison = interruptible(py_, &interrupt, || job.run(&table))?;
    reported(&CompareLawsReport {
        comparison: &comparison,
        by: job.by.as_deref(),
        level: job.level,
    })
}
