//! One law fitted to every group of rows (one learning curve per run, one law per task): the
//! library's `GroupedFitJob`, deserialised from the request of a fit (`FitRequest`, the keywords
//! `scalinglaws.fit` takes) with the grouping columns beside it; as `scalinglaws fit DATA
//! --group COLUMN --json`.

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::job::{FitJob, FitRequest, GroupedFitJob};
use scalinglaws::workflow::fit::FitWorkflow;
use scalinglaws::workflow::refuse_unknown_settings;

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
    // A fit's settings and the grouping columns: a key that is neither is refused by name.
    let mut asked: serde_json::Value = crate::errors::request(request_json)?;
    if let Some(settings) = asked.as_object_mut() {
        settings.remove("group");
    }
    py(refuse_unknown_settings::<FitWorkflow>(&asked))?;
    // Whether calibration was asked for: the request's default is a single fit's.
    let calibrate = asked.get("calibrate").and_then(serde_json::Value::as_bool);
    let fit = py(FitJob::try_from(request.fit))?;
    let mut job = GroupedFitJob::new(fit, request.group, calibrate);
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
