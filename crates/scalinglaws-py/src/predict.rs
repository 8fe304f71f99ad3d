//! Predictions of a fit with confidence and prediction intervals.

use std::collections::HashMap;

use pyo3::prelude::*;

use scalinglaws::uncertainty::predict_with_intervals;
use scalinglaws::Error;

use crate::errors::{py, to_py};
use crate::fit::read_fit;

/// Predictions of a fit at points given per law variable (equal lengths), with confidence and
/// prediction intervals: (values, ci, pi, interval source).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(crate) fn predict(
    py_: Python<'_>,
    fit_json: &str,
    variables: HashMap<String, Vec<f64>>,
    level: f64,
) -> PyResult<(
    Vec<f64>,
    Option<Vec<[f64; 2]>>,
    Option<Vec<[f64; 2]>>,
    String,
)> {
    let (result, law) = py(read_fit(fit_json))?;
    let mut columns = Vec::with_capacity(law.variables.len());
    for name in &law.variables {
        columns.push(variables.get(name).ok_or_else(|| {
            to_py(Error::settings(format!(
                "predict needs every variable of the law ({}); '{name}' is missing",
                law.variables.join(", ")
            )))
        })?);
    }
    if let Some(extra) = variables.keys().find(|k| law.variable_index(k).is_none()) {
        return Err(to_py(Error::settings(format!(
            "'{extra}' is not a variable of the law; its variables are {}",
            law.variables.join(", ")
        ))));
    }
    let n = columns.first().map_or(0, |c| c.len());
    if let Some((name, c)) = law
        .variables
        .iter()
        .zip(&columns)
        .find(|(_, c)| c.len() != n)
    {
        return Err(to_py(Error::settings(format!(
            "'{name}' has {} values but '{}' has {n}; give every variable the same number",
            c.len(),
            law.variables[0]
        ))));
    }
    let points: Vec<Vec<f64>> = (0..n)
        .map(|i| columns.iter().map(|c| c[i]).collect())
        .collect();
    let (predicted, source) = py(py_.detach(|| predict_with_intervals(&result, &points, level)))?;
    let values = predicted.iter().map(|p| p.value).collect();
    let ci = predicted.iter().map(|p| p.ci).collect::<Option<Vec<_>>>();
    let pi = predicted.iter().map(|p| p.pi).collect::<Option<Vec<_>>>();
    let source = serde_json::to_value(source)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    Ok((values, ci, pi, source))
}
