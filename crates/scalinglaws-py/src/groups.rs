//! One law fitted to every group of rows (one learning curve per run, one law per task): the
//! library's `GroupedFitJob`, deserialised from the request of a fit (`FitRequest`, the keywords
//! `scalinglaws.fit` takes) with the grouping columns beside it; as `scalinglaws fit DATA
//! --group COLUMN --json`.

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::job::{FitJob, FitRequest, GroupedFitJob};

use crate::data::{table, Data};
use crate::errors::{interruptible, json_out, py, request};

/// A grouped fit's request: a fit's (the same keywords mean the same), and the grouping
/// columns.
#[derive(Deserialize)]
struct GroupsRequest {
    #[serde(flatten)]
    fit: FitRequest,
    group: Vec<String>,
}

/// Fits the law to every group of the `group` columns' labels, on the worker pool. Returns the
/// groups' records as a JSON list (each a line of `scalinglaws fit --group --json`: the
/// labels, rows, status and the reason a group has no fit) with each fit taken out, and each
/// record's fit apart, as the text `fit --json` writes (None for a failed group): the Python
/// layer reads each fit once, straight into its `Fit`.
#[pyfunction]
pub(crate) fn fit_groups(
    py_: Python<'_>,
    data: Data,
    request_json: &str,
) -> PyResult<(String, Vec<Option<String>>)> {
    let request: GroupsRequest = request(request_json)?;
    let mut fit = py(FitJob::try_from(request.fit))?;
    // Calibration beyond the data when asked for, or when `by` asks for it: the grouped job
    // refuses either, naming it (as it refuses profiles, clusters and a variance model).
    fit.uncertainty.calibrate |= fit.uncertainty.by.is_some();
    let mut job = GroupedFitJob {
        fit,
        groups: request.group,
    };
    job.fit.settings.settings.max_work = crate::fit::max_work();
    py(job.check())?;
    let table = py(table(data, &job.fit.recipe))?;
    let interrupt = job.fit.settings.settings.interrupt.clone();
    let mut records = interruptible(py_, &interrupt, || job.run(&table, &|_, _| {}))?;
    let fits = records
        .iter_mut()
        .map(|record| record.fit.take().map(|fit| fit.to_json()))
        .collect();
    Ok((json_out(&records)?, fits))
}
