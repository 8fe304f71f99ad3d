//! Compute-optimal allocation of a fit, or of a catalog law with given parameters: the
//! library's `OptimalJob`, deserialised from the request `scalinglaws.optimal` sends.

use std::collections::HashMap;

use pyo3::prelude::*;

use scalinglaws::job::{OptimalJob, OptimalRequest, OptimalSource};
use scalinglaws::law::catalog;
use scalinglaws::Error;
use scalinglaws_report::analyses::optimal::{OptimalReport, Parameters};

use crate::errors::{interruptible, py, request, to_py};
use crate::fit::read_fit;
use crate::report::{reported, Reported};

/// Compute-optimal allocation of a fit (`fit_json`) or of a catalog law with given parameters
/// (`law`, `params`); returns the frontier's JSON (as `scalinglaws optimal --json`) and its
/// text report (as the command prints it).
#[pyfunction]
#[pyo3(signature = (request_json, fit_json=None, law=None, params=None))]
pub(crate) fn optimal(
    py_: Python<'_>,
    request_json: &str,
    fit_json: Option<&str>,
    law: Option<&str>,
    params: Option<HashMap<String, f64>>,
) -> PyResult<Reported> {
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
    let parameters = match source {
        OptimalSource::Fit(_) => Parameters::Fitted,
        OptimalSource::Published { .. } => Parameters::Given,
    };
    let job = py(OptimalJob::try_from(request))?;
    let interrupt = job.interrupt.clone();
    let frontier = interruptible(py_, &interrupt, || job.run(&source))?;
    reported(&OptimalReport {
        frontier: &frontier,
        law: &py(source.label())?,
        parameters,
    })
}
