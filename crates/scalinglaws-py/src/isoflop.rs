//! IsoFLOP analysis per group: profiles, their backtest, or the envelope of checkpoints.

use std::collections::BTreeMap;

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::envelope::{envelope, EnvelopeData, EnvelopeMethod, EnvelopeSettings};
use scalinglaws::analysis::isoflop::{
    isoflop as run_isoflop, isoflop_backtest, IsoflopData, IsoflopSettings, Shape,
};
use scalinglaws::Error;

use crate::data::{table, Data, RecipeRequest};
use crate::errors::{json_out, py, request, to_py};

#[derive(Deserialize)]
struct IsoflopRequest {
    #[serde(flatten)]
    recipe: RecipeRequest,
    compute: String,
    size: String,
    tokens: Option<String>,
    #[serde(default)]
    group: Vec<String>,
    shape: String,
    tolerance: f64,
    envelope: Option<String>,
    run: Option<String>,
    bootstrap: usize,
    seed: u64,
    level: f64,
    #[serde(default)]
    budget: Vec<f64>,
    #[serde(default)]
    backtest: Option<usize>,
    calibrate: bool,
}

/// Options that cannot act together are refused rather than ignored.
fn check_isoflop_request(request: &IsoflopRequest, envelope: bool) -> Result<(), Error> {
    let forecast = !request.budget.is_empty() || request.backtest.is_some();
    if envelope && forecast {
        return Err(Error::settings(
            "budget= and backtest= predict from per-budget profiles; drop envelope=",
        ));
    }
    if !request.budget.is_empty() && request.backtest.is_some() {
        return Err(Error::settings(
            "give budget= (predictions at new budgets) or backtest= (held-out budgets), not both",
        ));
    }
    if !request.calibrate && !forecast {
        return Err(Error::settings(
            "calibrate=False acts on predictions beyond the data: give budget= or backtest=",
        ));
    }
    Ok(())
}

/// IsoFLOP analysis (or Chinchilla's approach 1 with `envelope`) per group; returns
/// {"groups": [...]} as `scalinglaws isoflop --json`.
#[pyfunction]
pub(crate) fn isoflop(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<String> {
    let request: IsoflopRequest = request(request_json)?;
    let recipe = py(request.recipe.recipe())?;
    let table = py(table(data, &recipe))?;
    let why = "IsoFLOP profiles are fitted on logs";
    let compute = py(table.positive_values(&request.compute, "compute", why))?;
    let size = py(table.positive_values(&request.size, "size", why))?;
    let loss = py(table.positive_values(&recipe.target, "target", why))?;
    let tokens = py(request
        .tokens
        .as_deref()
        .map(|t| table.positive_values(t, "tokens", why))
        .transpose())?;
    let runs = py(request
        .run
        .as_deref()
        .map(|r| table.labels(r, "run"))
        .transpose())?;
    let shape = Shape::from_name(&request.shape).ok_or_else(|| {
        to_py(Error::settings(format!(
            "shape '{}': use one of {}",
            request.shape,
            Shape::ALL.map(Shape::name).join(", ")
        )))
    })?;
    let method = request
        .envelope
        .as_deref()
        .map(|text| {
            EnvelopeMethod::parse(text).ok_or_else(|| {
                to_py(Error::settings(format!(
                    "envelope '{text}': use \"hull\", \"grid\" or \"grid:K\""
                )))
            })
        })
        .transpose()?;
    py(check_isoflop_request(&request, method.is_some()))?;
    let groups = py(table.group_rows(&request.group, "group"))?;
    let analyses = py_.detach(|| -> Result<Vec<serde_json::Value>, Error> {
        let mut analyses = Vec::with_capacity(groups.len());
        for (key, rows) in groups {
            let pick = |c: &[f64]| rows.iter().map(|&r| c[r]).collect::<Vec<f64>>();
            let profiles = IsoflopData {
                compute: pick(&compute),
                size: pick(&size),
                loss: pick(&loss),
                tokens: tokens.as_deref().map(pick),
            };
            let settings = IsoflopSettings {
                shape,
                tolerance: request.tolerance,
                bootstrap: request.bootstrap,
                seed: request.seed,
                level: request.level,
                predict_at: request.budget.clone(),
                calibrate: request.calibrate,
            };
            let mut value = match (method, request.backtest) {
                (None, Some(hold_out)) => {
                    serde_json::to_value(isoflop_backtest(&profiles, &settings, hold_out)?)
                }
                (None, None) => serde_json::to_value(run_isoflop(&profiles, &settings)?),
                (Some(method), _) => serde_json::to_value(envelope(
                    &EnvelopeData {
                        compute: pick(&compute),
                        size: pick(&size),
                        loss: pick(&loss),
                        tokens: tokens.as_deref().map(pick),
                        run: runs
                            .as_ref()
                            .map(|r| rows.iter().map(|&i| r[i].clone()).collect()),
                    },
                    &EnvelopeSettings {
                        method,
                        bootstrap: request.bootstrap,
                        seed: request.seed,
                        level: request.level,
                    },
                )?),
            }
            .map_err(|e| Error::fit(e.to_string()))?;
            let group: BTreeMap<&String, &String> = request.group.iter().zip(&key).collect();
            if let Some(object) = value.as_object_mut() {
                object.insert("group".into(), serde_json::json!(group));
                let approach = match (method, request.backtest) {
                    (Some(_), _) => "envelope",
                    (None, Some(_)) => "backtest",
                    (None, None) => "profiles",
                };
                object.insert("approach".into(), serde_json::json!(approach));
            }
            analyses.push(value);
        }
        Ok(analyses)
    });
    json_out(&serde_json::json!({ "groups": py(analyses)? }))
}
