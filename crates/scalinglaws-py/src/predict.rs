//! Predictions of a fit with confidence and prediction intervals: the library's `PredictJob`
//! (the same checks and broadcasting as `scalinglaws predict`).

use std::collections::BTreeMap;

use pyo3::prelude::*;

use scalinglaws::job::PredictJob;

use crate::errors::py;
use crate::fit::read_fit;

/// Predictions of a fit at points given per law variable (lists of one length, or one value
/// for every point), with confidence and prediction intervals: (values, ci, pi, interval
/// source).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(crate) fn predict(
    py_: Python<'_>,
    fit_json: &str,
    variables: BTreeMap<String, Vec<f64>>,
    level: f64,
) -> PyResult<(
    Vec<f64>,
    Option<Vec<[f64; 2]>>,
    Option<Vec<[f64; 2]>>,
    String,
)> {
    let (result, law) = py(read_fit(fit_json))?;
    let job = PredictJob {
        points: variables.into_iter().collect(),
        level,
    };
    let predictions = py(py_.detach(|| job.run(&result, &law)))?;
    let predicted = &predictions.predictions;
    let values = predicted.iter().map(|p| p.value).collect();
    let ci = predicted.iter().map(|p| p.ci).collect::<Option<Vec<_>>>();
    let pi = predicted.iter().map(|p| p.pi).collect::<Option<Vec<_>>>();
    let source = serde_json::to_value(predictions.intervals)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    Ok((values, ci, pi, source))
}
