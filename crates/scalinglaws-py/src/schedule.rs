//! Loss-curve laws of the learning-rate schedule: fit, predict, optimise.

use std::collections::HashMap;

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::schedule::optimize::{optimize as optimize_schedule, OptimizeSettings};
use scalinglaws::analysis::schedule::{
    curves_from_logs, fit_curves, predict as predict_schedule, spec, CurveLaw, RunLog, ScheduleFit,
};
use scalinglaws::data::Dataset;
use scalinglaws::Error;

use crate::data::Data;
use crate::errors::{json_out, py, request};

#[derive(Deserialize)]
struct ScheduleFitRequest {
    run: String,
    step: String,
    lr: String,
    target: String,
    law: String,
    #[serde(default)]
    train: Vec<String>,
    warmup: usize,
    #[serde(default)]
    fix: Vec<(String, f64)>,
}

/// One log per distinct value of the run column, in order of first appearance; every row keeps
/// its location (the file or DataFrame and its 1-based row) for the library's messages.
fn run_logs(dataset: &Dataset, request: &ScheduleFitRequest) -> Result<Vec<RunLog>, Error> {
    let runs = dataset.text(&request.run)?;
    let steps = dataset.numeric(&request.step)?;
    let lrs = dataset.numeric(&request.lr)?;
    let loss = dataset.numeric(&request.target)?;
    let mut logs: Vec<RunLog> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (row, run) in runs.iter().enumerate() {
        let slot = *index.entry(run.as_str()).or_insert_with(|| {
            logs.push(RunLog {
                run: run.clone(),
                steps: Vec::new(),
                lrs: Vec::new(),
                loss: Vec::new(),
                locations: Vec::new(),
            });
            logs.len() - 1
        });
        let log = &mut logs[slot];
        log.steps.push(steps[row]);
        log.lrs.push(lrs[row]);
        log.loss.push(loss[row]);
        log.locations.push(dataset.location(row, None));
    }
    Ok(logs)
}

/// Fits a curve law to the logged loss curves of some runs and scores it on every run; returns
/// the fit's JSON (as `scalinglaws schedule fit --json`).
#[pyfunction]
pub(crate) fn schedule_fit(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<String> {
    let request: ScheduleFitRequest = request(request_json)?;
    let law = py(CurveLaw::from_name(&request.law))?;
    let dataset = py(data.dataset())?;
    let logs = py(run_logs(&dataset, &request))?;
    let fit = py(py_.detach(|| -> Result<ScheduleFit, Error> {
        let curves = curves_from_logs(&logs, request.warmup)?;
        fit_curves(law, &curves, &request.train, &request.fix)
    }))?;
    json_out(&fit)
}

/// A schedule fit's JSON read back. The per-run scores are not needed to predict or optimise,
/// and a score that was not finite (written as null) would not read back as a number, so they
/// are left out.
fn read_schedule_fit(fit_json: &str) -> Result<ScheduleFit, Error> {
    let not_a_fit = |why: String| {
        Error::settings(format!(
            "not a schedule fit ({why}): give the dict that schedule_fit returned"
        ))
    };
    let mut value: serde_json::Value =
        serde_json::from_str(fit_json).map_err(|e| not_a_fit(e.to_string()))?;
    match value.get("kind").and_then(|k| k.as_str()) {
        Some("schedule_fit") => {}
        Some(other) => return Err(not_a_fit(format!("its kind is '{other}'"))),
        None => return Err(not_a_fit("it has no kind".into())),
    }
    if let Some(object) = value.as_object_mut() {
        object.insert("runs".into(), serde_json::Value::Array(Vec::new()));
    }
    serde_json::from_value(value).map_err(|e| not_a_fit(e.to_string()))
}

/// The fitted law's loss curve under a schedule spec (keys left out come from the fit's
/// training run), every `every` steps (0: about 200 points); returns the prediction's JSON.
#[pyfunction]
pub(crate) fn schedule_predict(
    py_: Python<'_>,
    fit_json: &str,
    schedule: &str,
    every: usize,
) -> PyResult<String> {
    let fit = py(read_schedule_fit(fit_json))?;
    let parsed = py(spec::parse(schedule, Some(fit.defaults)))?;
    let prediction = py(py_.detach(|| predict_schedule(&fit, &parsed, every)))?;
    json_out(&prediction)
}

/// The schedule (linear warmup, then non-increasing between `floor` and `peak`) with the lowest
/// predicted final loss; returns the result's JSON and its whole schedule, one lr per step.
#[pyfunction]
#[pyo3(signature = (fit_json, steps, peak, warmup=None, floor=None, max_iterations=400))]
pub(crate) fn schedule_optimize(
    py_: Python<'_>,
    fit_json: &str,
    steps: usize,
    peak: f64,
    warmup: Option<usize>,
    floor: Option<f64>,
    max_iterations: usize,
) -> PyResult<(String, Vec<f64>)> {
    let fit = py(read_schedule_fit(fit_json))?;
    let settings = OptimizeSettings {
        steps,
        peak,
        warmup: warmup.unwrap_or(fit.defaults.warmup),
        floor: floor.unwrap_or(peak / 1000.0),
        max_iterations,
    };
    let result = py(py_.detach(|| optimize_schedule(&fit, &settings)))?;
    Ok((json_out(&result)?, result.lrs))
}
