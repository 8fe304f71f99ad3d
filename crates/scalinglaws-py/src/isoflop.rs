//! IsoFLOP analysis per group: profiles, their backtest, or the envelope of checkpoints.

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::envelope::EnvelopeMethod;
use scalinglaws::analysis::isoflop::{Method, Shape};
use scalinglaws::job::isoflop::IsoflopJob;
use scalinglaws::Error;
use scalinglaws_report::analyses::isoflop::{Columns, IsoflopReport};

use scalinglaws::data::recipe::Recipe;
use scalinglaws::job::fit::TableRequest;

use crate::data::{table, Data};
use crate::errors::{interruptible, py, request, to_py};
use crate::report::{reported, Reported};

#[derive(Deserialize)]
struct IsoflopRequest {
    #[serde(flatten)]
    recipe: TableRequest,
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
    /// What predicts at new budgets; the job's default when absent.
    #[serde(default)]
    method: Option<String>,
    calibrate: bool,
    /// Swept columns (the profiles read each cell's frontier).
    #[serde(default)]
    sweep: Vec<String>,
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
/// {"groups": [...]} as `scalinglaws isoflop --json`, and its text report.
#[pyfunction]
pub(crate) fn isoflop(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<Reported> {
    let request: IsoflopRequest = request(request_json)?;
    let recipe = py(Recipe::try_from(request.recipe.clone()))?;
    let table = py(table(data, &recipe))?;
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
    let predictor = request
        .method
        .as_deref()
        .map(|name| py(Method::parse(name)))
        .transpose()?
        .unwrap_or_default();
    let job = IsoflopJob {
        compute: request.compute,
        size: request.size,
        tokens: request.tokens,
        groups: request.group,
        run: request.run,
        envelope: method,
        backtest: request.backtest,
        shape,
        tolerance: request.tolerance,
        bootstrap: request.bootstrap,
        seed: request.seed,
        level: request.level,
        budgets: request.budget,
        method: predictor,
        calibrate: request.calibrate,
        max_work: crate::fit::max_work(),
        sweep: request.sweep.clone(),
        interrupt: Default::default(),
    };
    let interrupt = job.interrupt.clone();
    let result = interruptible(py_, &interrupt, || job.run(&table, &recipe.target))?;
    reported(&IsoflopReport {
        result: &result,
        columns: Columns {
            compute: &job.compute,
            size: &job.size,
            run: job.run.as_deref(),
        },
    })
}
