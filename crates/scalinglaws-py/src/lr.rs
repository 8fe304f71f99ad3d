//! The learning-rate (and batch-size) analysis.

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::lr::{lr_analysis, Curvature, Form, LrData, LrSettings, Method};
use scalinglaws::data::recipe::Dialect;
use scalinglaws::Error;

use crate::data::{table, Data, RecipeRequest};
use crate::errors::{json_out, py, request, to_py};

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

/// The learning-rate (and batch-size) analysis; returns the JSON of `scalinglaws lr --json`.
#[pyfunction]
pub(crate) fn lr(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<String> {
    let request: LrRequest = request(request_json)?;
    let recipe = py(request.recipe.recipe())?;
    let table = py(table(data, &recipe))?;
    let why = "the LR laws take its log";
    let sweep = LrData {
        size: py(table.positive_values(&request.size, "size", why))?,
        tokens: py(table.positive_values(&request.tokens, "tokens", why))?,
        lr: py(table.positive_values(&request.lr, "lr", why))?,
        loss: py(table.values(&recipe.target, "target"))?,
        batch: py(request
            .batch
            .as_deref()
            .map(|b| table.positive_values(b, "batch", why))
            .transpose())?,
        ..LrData::default()
    };
    let mut used = vec![
        request.lr.as_str(),
        &request.size,
        &request.tokens,
        &recipe.target,
    ];
    used.extend(request.batch.as_deref());
    let sweep = sweep.with_others(&table, &used);
    let choice = |what: &str, text: &str, names: &[&str]| {
        to_py(Error::settings(format!(
            "{what} '{text}': use one of {}",
            names.join(", ")
        )))
    };
    let settings = LrSettings {
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
        dialect: Dialect::Python,
    };
    let analysis = py(py_.detach(|| lr_analysis(&sweep, &settings)))?;
    json_out(&analysis)
}
