//! Compute-optimal allocation of a fit, or of a catalog law with given parameters: the
//! library's `OptimalJob`, deserialised from the request `scalinglaws.optimal` sends.

use std::collections::HashMap;

use pyo3::prelude::*;

use scalinglaws::job::{OptimalJob, OptimalRequest, OptimalSource};
use scalinglaws::law::catalog;
use scalinglaws::Error;

use crate::errors::{interruptible, json_document, py, request, to_py};
use crate::fit::read_fit;

/// Compute-optimal allocation of a fit (`fit_json`) or of a catalog law with given parameters
/// (`law`, `params`); returns the frontier's JSON (as `scalinglaws optimal --json`).
#[pyfunction]
#[pyo3(signature = (request_json, fit_json=None, law=None, params=None))]
pub(crate) fn optimal(
    py_: Python<'_>,
    request_json: &str,
    fit_json: Option<&str>,
    law: Option<&str>,
    params: Option<HashMap<String, f64>>,
) -> PyResult<String> {
    let request: OptimalRequest = request(request_json)?;
    let source = match (fit_json, law) {
        (Some(_), _) if params.is_some() => {
            return Err(to_py(Error::settings(
                "give a fit or law=\"NAME\" with params={...}, not both",
            )))
        }
        (Some(text), None) => OptimalSource::Fit(py(read_fit(text))?.0),
        (None, Some(name)) => {
            let law = py(catalog::lookup(name))?;
            let params = py(law.values_by_name(&params.unwrap_or_default(), "params"))?;
            OptimalSource::Published { law, params }
        }
        _ => {
            return Err(to_py(Error::settings(
                "give a fit, or law=\"NAME\" with params={...}",
            )))
        }
    };
    let job = py(OptimalJob::try_from(request))?;
    let interrupt = job.interrupt.clone();
    json_document(&interruptible(py_, &interrupt, || job.run(&source))?)
}
