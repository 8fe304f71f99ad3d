//! Recipe comparison of the tracks of the data.

use std::collections::BTreeMap;

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::job::compare::CompareJob;
use scalinglaws_report::analyses::compare::CompareReport;

use scalinglaws::data::recipe::Recipe;
use scalinglaws::job::fit::RecipeRequest;

use crate::data::{table, Data};
use crate::errors::{interruptible, py, request};
use crate::fit::{yes, FitOptions};
use crate::report::{reported, Reported};

#[derive(Deserialize)]
struct CompareRequest {
    #[serde(flatten)]
    recipe: RecipeRequest,
    #[serde(flatten)]
    options: FitOptions,
    track: String,
    #[serde(default)]
    shared: Vec<String>,
    baseline: Option<String>,
    #[serde(default)]
    budgets: Vec<f64>,
    flops: String,
    #[serde(default)]
    held: BTreeMap<String, Vec<f64>>,
    bootstrap: usize,
    level: f64,
    cell_tolerance: f64,
    /// Calibrate each track's prediction intervals beyond the data (rolling-origin backtests
    /// by `by`).
    #[serde(default = "yes")]
    calibrate: bool,
    #[serde(default)]
    by: Option<String>,
}

/// Recipe comparison of the tracks of the data; returns the comparison's JSON (as
/// `scalinglaws compare --json`) and its text report.
#[pyfunction]
pub(crate) fn compare(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<Reported> {
    let request: CompareRequest = request(request_json)?;
    let recipe = py(Recipe::try_from(request.recipe.clone()))?;
    let table = py(table(data, &recipe))?;
    let law = py(request.options.law(&table))?;
    let settings = py(request.options.settings())?;
    let job = CompareJob {
        track: request.track,
        shared: request.shared,
        baseline: request.baseline,
        budgets: request.budgets,
        grid: false,
        flops: request.flops,
        held: request.held,
        bootstrap: request.bootstrap,
        level: request.level,
        cell_tolerance: request.cell_tolerance,
        calibrate: request.calibrate,
        by: request.by,
        seed: request.options.seed,
    };
    let interrupt = settings.interrupt.clone();
    let compared = interruptible(py_, &interrupt, || job.run(&table, &recipe, &law, settings))?;
    reported(&CompareReport {
        result: &compared.comparison,
        track: &job.track,
    })
}
