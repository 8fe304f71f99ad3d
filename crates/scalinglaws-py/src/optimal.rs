//! Compute-optimal allocation of a fit, or of a catalog law with given parameters.

use std::collections::{BTreeMap, HashMap};

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::allocation::{optimal as allocate, AllocationSettings, Flops, Formula};
use scalinglaws::law::catalog::{self};
use scalinglaws::Error;

use crate::errors::{json_out, py, request, to_py};
use crate::fit::read_fit;

#[derive(Deserialize)]
struct OptimalRequest {
    #[serde(default)]
    budgets: Vec<f64>,
    #[serde(default)]
    target_losses: Vec<f64>,
    flops: String,
    #[serde(default)]
    held: BTreeMap<String, Vec<f64>>,
    total_params: Option<String>,
    max_params: Option<f64>,
    max_active: Option<f64>,
    max_tokens: Option<f64>,
    inference_tokens: f64,
    level: Option<f64>,
}

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
    let (law, values, fitted) = match (fit_json, law) {
        (Some(_), _) if params.is_some() => {
            return Err(to_py(Error::settings(
                "give a fit or law=\"NAME\" with params={...}, not both",
            )))
        }
        (Some(text), None) => {
            let (result, law) = py(read_fit(text))?;
            let values = result.param_values();
            (law, values, Some(result))
        }
        (None, Some(name)) => {
            let law = py(catalog::lookup(name))?;
            let values = py(law.values_by_name(&params.unwrap_or_default(), "params"))?;
            (law, values, None)
        }
        _ => {
            return Err(to_py(Error::settings(
                "give a fit, or law=\"NAME\" with params={...}",
            )))
        }
    };
    let bootstrap = fitted.as_ref().and_then(|f| f.bootstrap.as_ref());
    let mut allowed = vec!["N"];
    allowed.extend(request.held.keys().map(String::as_str));
    let total_params = request
        .total_params
        .as_deref()
        .map(|text| Formula::parse(text, &allowed, "the total-parameters formula"))
        .transpose()
        .map_err(to_py)?;
    let settings = AllocationSettings {
        budgets: request.budgets,
        target_losses: request.target_losses,
        flops: py(Flops::parse(&request.flops))?,
        held: request.held,
        total_params,
        inference_tokens: request.inference_tokens,
        draws: bootstrap.map(|b| b.draws.clone()).unwrap_or_default(),
        level: request
            .level
            .or_else(|| bootstrap.map(|b| b.level))
            .or_else(|| fitted.as_ref()?.calibration.as_ref().map(|c| c.level))
            .unwrap_or(0.95),
        max_params: request.max_params,
        max_active: request.max_active,
        max_tokens: request.max_tokens,
    };
    let frontier = py_.detach(|| {
        let mut frontier = allocate(&law, &values, &settings)?;
        if let Some(result) = &fitted {
            // The loss's prediction interval, calibrated beyond the data as in `predict`.
            frontier.add_prediction_intervals(result, settings.level)?;
        }
        Ok(frontier)
    });
    json_out(&py(frontier)?)
}
