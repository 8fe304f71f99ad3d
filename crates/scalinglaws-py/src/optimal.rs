//! Compute-optimal allocation of a fit, or of a catalog law with given parameters.

use std::collections::{BTreeMap, HashMap};

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::allocation::{optimal as allocate, AllocationSettings, Flops, Formula};
use scalinglaws::job::allocation_from_fit;
use scalinglaws::law::catalog;
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
    let mut allowed = vec!["N"];
    allowed.extend(request.held.keys().map(String::as_str));
    let total_params = request
        .total_params
        .as_deref()
        .map(|text| Formula::parse(text, &allowed, "the total-parameters formula"))
        .transpose()
        .map_err(to_py)?;
    let settings = allocation_from_fit(
        AllocationSettings {
            budgets: request.budgets,
            target_losses: request.target_losses,
            flops: py(Flops::parse(&request.flops))?,
            held: request.held,
            total_params,
            inference_tokens: request.inference_tokens,
            max_params: request.max_params,
            max_active: request.max_active,
            max_tokens: request.max_tokens,
            ..AllocationSettings::at_budgets(Vec::new())
        },
        fitted.as_ref(),
        request.level,
    );
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
