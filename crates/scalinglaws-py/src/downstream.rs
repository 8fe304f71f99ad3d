//! Downstream accuracy: forecasts of task accuracy at new models, or a backtest on held-out
//! ones, as `scalinglaws downstream --json`.

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::downstream::{DownstreamSettings, Target};
use scalinglaws::data::recipe::Trials;
use scalinglaws::job::downstream::{ColumnOrValue, DownstreamJob};
use scalinglaws_report::analyses::downstream::DownstreamReport;

use crate::data::{table, Data, RecipeRequest};
use crate::errors::{interruptible, py, request};
use crate::report::{reported, Reported};

#[derive(Deserialize)]
struct DownstreamRequest {
    #[serde(flatten)]
    recipe: RecipeRequest,
    model: String,
    task: String,
    size: String,
    tokens: String,
    loss: Option<String>,
    trials: Option<Trials>,
    chance: Option<ColumnOrValue>,
    #[serde(default)]
    at: Vec<Target>,
    #[serde(default)]
    holdout: Vec<String>,
    own_until: Option<f64>,
    anchors: usize,
    unseen: Option<String>,
    level: f64,
    threads: Option<usize>,
}

/// Forecasts (with `at`) or a backtest (with `holdout`) of every informative task; returns the
/// document of `scalinglaws downstream --json` and its text report.
#[pyfunction]
pub(crate) fn downstream(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<Reported> {
    let request: DownstreamRequest = request(request_json)?;
    let recipe = py(request.recipe.recipe())?;
    let table = py(table(data, &recipe))?;
    let job = DownstreamJob {
        model: request.model,
        task: request.task,
        size: request.size,
        tokens: request.tokens,
        loss: request.loss,
        questions: request.trials,
        chance: request.chance,
        at: request.at,
        holdout: request.holdout,
        own_until: request.own_until,
        settings: DownstreamSettings {
            level: request.level,
            anchors: request.anchors,
            unseen: request.unseen,
            threads: request.threads,
            interrupt: Default::default(),
        },
    };
    let interrupt = job.settings.interrupt.clone();
    let result = interruptible(py_, &interrupt, || job.run(&table, &recipe.target))?;
    reported(&DownstreamReport {
        result: &result,
        source: table.dataset.source(),
    })
}
