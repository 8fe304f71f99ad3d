//! The learning-rate (and batch-size) analysis.

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::lr::{Curvature, Form, LrSettings, Method};
use scalinglaws::data::recipe::Table;
use scalinglaws::job::lr::LrJob;
use scalinglaws::Error;
use scalinglaws_report::analyses::lr::{LrReport, Provenance};

use crate::data::{table, Data, RecipeRequest};
use crate::errors::{py, request, to_py};
use crate::report::{filter, reported, Reported};

#[derive(Deserialize)]
struct LrRequest {
    #[serde(flatten)]
    recipe: RecipeRequest,
    lr: String,
    size: String,
    tokens: String,
    batch: Option<String>,
    law: String,
    method: String,
    curvature: String,
    #[serde(default)]
    predict: Vec<(f64, f64)>,
    window: usize,
    max_rise: f64,
    noise: Option<f64>,
    holdout: f64,
    level: f64,
}

/// The learning-rate (and batch-size) analysis; returns the JSON of `scalinglaws lr --json`
/// and its text report.
#[pyfunction]
pub(crate) fn lr(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<Reported> {
    let request: LrRequest = request(request_json)?;
    let recipe = py(request.recipe.recipe())?;
    let table = py(table(data, &recipe))?;
    let choice = |what: &str, text: &str, names: &[&str]| {
        to_py(Error::settings(format!(
            "{what} '{text}': use one of {}",
            names.join(", ")
        )))
    };
    let job = LrJob {
        lr: request.lr,
        size: request.size,
        tokens: request.tokens,
        batch: request.batch,
        settings: LrSettings {
            form: Form::from_name(&request.law)
                .ok_or_else(|| choice("law", &request.law, &["loglinear", "curved"]))?,
            method: Method::from_name(&request.method)
                .ok_or_else(|| choice("method", &request.method, &["joint", "cells"]))?,
            curvature: Curvature::from_name(&request.curvature)
                .ok_or_else(|| choice("curvature", &request.curvature, &["law", "cell"]))?,
            half_window: request.window,
            max_rise: request.max_rise,
            noise: request.noise,
            level: request.level,
            targets: request.predict,
            holdout: request.holdout,
        },
    };
    let analysis = py(py_.detach(|| job.run(&table, &recipe.target)))?;
    reported(&LrReport {
        analysis: &analysis,
        provenance: provenance(&table, &job, &request.recipe),
    })
}

/// Where the runs came from, the filters in Python's words (`where="..."`).
fn provenance<'a>(table: &'a Table, job: &LrJob, recipe: &RecipeRequest) -> Provenance<'a> {
    Provenance {
        source: table.dataset.source(),
        rows_read: table.rows_read,
        rows_filtered: table.rows_filtered,
        filters: recipe.filters.iter().map(|f| filter(f)).collect(),
        columns: [
            table.describe(&job.size),
            table.describe(&job.tokens),
            table.describe(&job.lr),
            table.describe(&recipe.target),
        ],
        batch: job.batch.as_deref().map(|b| table.describe(b)),
    }
}
