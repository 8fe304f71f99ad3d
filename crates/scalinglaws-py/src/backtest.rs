//! Backtests: fits on the smaller scales, scored on the larger ones.

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::backtest::{backtest as run_backtest, BacktestOptions, Holdout};
use scalinglaws::uncertainty::CalibrationOptions;
use scalinglaws::Error;

use crate::data::{table, Data, RecipeRequest};
use crate::errors::{interruptible, json_out, py, request, to_py};
use crate::fit::FitOptions;

#[derive(Deserialize)]
struct BacktestRequest {
    #[serde(flatten)]
    recipe: RecipeRequest,
    #[serde(flatten)]
    options: FitOptions,
    by: String,
    holdout_top: Option<usize>,
    holdout_frac: Option<f64>,
    rollout: Option<usize>,
    #[serde(default)]
    rolling: Option<usize>,
    #[serde(default)]
    calibrate: bool,
    level: f64,
    bootstrap: Option<usize>,
}

/// Fits on the smaller scales and scores the predictions of the larger ones; returns the
/// backtest's JSON (as `scalinglaws backtest --json`).
#[pyfunction]
pub(crate) fn backtest(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<String> {
    let request: BacktestRequest = request(request_json)?;
    let holdout = match (
        request.holdout_top,
        request.holdout_frac,
        request.rollout,
        request.rolling,
    ) {
        (Some(k), None, None, None) => Holdout::Top(k),
        (None, Some(f), None, None) => Holdout::Fraction(f),
        (None, None, Some(g), None) => Holdout::Rollout(g),
        (None, None, None, Some(k)) if k >= 1 => Holdout::Rolling(k),
        _ => return Err(to_py(Error::settings(
            "give exactly one of holdout_top=K, holdout_frac=F, rollout=G and rolling=K (K >= 1)",
        ))),
    };
    let recipe = py(request.recipe.recipe())?;
    let table = py(table(data, &recipe))?;
    let law = py(request.options.law(&table))?;
    let settings = py(request.options.settings())?;
    let data = py(table.fit_data(&law, &recipe, settings.space))?;
    let scale = py(table.values(&request.by, "by"))?;
    let options = BacktestOptions {
        holdout,
        level: request.level,
        bootstrap: request.bootstrap,
        calibrate: request.calibrate.then(|| CalibrationOptions {
            level: request.level,
            ..CalibrationOptions::default()
        }),
    };
    let mut result = interruptible(py_, &settings.interrupt, || {
        run_backtest(&law, &data, &scale, &settings, &options)
    })?;
    for point in result.splits.iter_mut().flat_map(|s| s.points.iter_mut()) {
        point.row = table.file_row(point.row).unwrap_or(point.row + 1);
    }
    json_out(&result)
}
