//! Loss-curve laws of the learning-rate schedule: fit, compare, optimise (predict is the
//! library's workflow `schedule_predict`, run by `workflows.rs`).

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::schedule::{CurveLaw, ScheduleFit};
use scalinglaws::data::recipe::Recipe;
use scalinglaws::job::schedule::{ScheduleCompareJob, ScheduleFitJob, ScheduleOptimizeJob};
use scalinglaws_report::analyses::schedule::{ComparisonReport, FitReport, OptimizedReport};

use crate::data::{table, Data};
use crate::errors::{interruptible, json_document, py, request};
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

/// The schedule (linear warmup, then non-increasing between `floor` and `peak`) with the lowest
/// predicted final loss; returns the result's JSON, its whole schedule (one lr per step) and
/// its text report.
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
) -> PyResult<(String, Vec<f64>, String)> {
    let fit = py(ScheduleFit::from_json(fit_json))?;
    let job = ScheduleOptimizeJob {
        steps: Some(steps),
        peak: Some(peak),
        warmup,
        floor,
        max_iterations,
        interrupt: Default::default(),
    };
    let result = interruptible(py_, &job.interrupt, || job.run(&fit))?;
    let text = scalinglaws_report::Report::text(&OptimizedReport(&result), &crate::wording::Python);
    Ok((json_document(&result)?, result.lrs, text))
}

/// Several schedules' curves and final losses under the fitted law, side by side (the request
/// is `schedule compare`'s job: `schedules`, `every`); returns the comparison's JSON (as
/// `scalinglaws schedule compare --json`) and its text report.
#[pyfunction]
pub(crate) fn schedule_compare(
    py_: Python<'_>,
    fit_json: &str,
    request_json: &str,
) -> PyResult<Reported> {
    let fit = py(ScheduleFit::from_json(fit_json))?;
    let mut job: ScheduleCompareJob = request(request_json)?;
    job.max_work = crate::fit::max_work();
    let comparison = py(py_.detach(|| job.run(&fit)))?;
    reported(&ComparisonReport(&comparison))
}
