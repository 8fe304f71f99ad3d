//! Loss-curve laws of the learning-rate schedule: the fit (predict, compare, optimize and the
//! cooldowns are the library's workflows `schedule_*`, run by `workflows.rs`).

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::schedule::CurveLaw;
use scalinglaws::data::recipe::Recipe;
use scalinglaws::job::schedule::ScheduleFitJob;
use scalinglaws_report::analyses::schedule::FitReport;

use crate::data::{table, Data};
use crate::errors::{interruptible, py, request};
use crate::report::{reported, Reported};

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

/// Fits a curve law to the logged loss curves of some runs and scores it on every run; returns
/// the fit's JSON (as `scalinglaws schedule fit --json`) and its text report.
#[pyfunction]
pub(crate) fn schedule_fit(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<Reported> {
    let request: ScheduleFitRequest = request(request_json)?;
    let job = ScheduleFitJob {
        run: Some(request.run),
        step: request.step,
        lr: request.lr,
        law: py(CurveLaw::from_name(&request.law))?,
        train: request.train,
        warmup: request.warmup,
        fix: request.fix,
        target: request.target,
        interrupt: Default::default(),
    };
    let recipe = Recipe {
        target: job.target.clone(),
        ..Recipe::default()
    };
    let table = py(table(data, &recipe))?;
    let logs = py(job.logs(&table, ""))?;
    let fitted = interruptible(py_, &job.interrupt, || job.run(&logs))?;
    reported(&FitReport {
        fit: &fitted.fit,
        files: vec![table.dataset.source().to_string()],
    })
}
