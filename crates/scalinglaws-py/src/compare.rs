//! Recipe comparison of the tracks of the data.

use std::collections::BTreeMap;

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::allocation::{AllocationSettings, Flops};
use scalinglaws::analysis::tracks::{
    baseline_index, compare_tracks, split_by_labels, split_values, TrackCalibration, TrackSettings,
};

use crate::data::{table, Data, RecipeRequest};
use crate::errors::{interruptible, json_out, py, request};
use crate::fit::{yes, FitOptions};

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
/// `scalinglaws compare --json`).
#[pyfunction]
pub(crate) fn compare(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<String> {
    let request: CompareRequest = request(request_json)?;
    let recipe = py(request.recipe.recipe())?;
    let table = py(table(data, &recipe))?;
    let law = py(request.options.law(&table))?;
    let settings = py(request.options.settings())?;
    let data = py(table.fit_data(&law, &recipe, settings.space))?;
    let labels = py(table.labels(&request.track, "track"))?;
    let tracks = split_by_labels(&data, &labels);
    let calibration = if request.calibrate {
        let (by, scale) = py(table.scale(&law, &data, request.by.as_deref(), "by"))?;
        Some(TrackCalibration {
            by,
            scales: split_values(&scale, &labels),
        })
    } else {
        None
    };
    let baseline = py(baseline_index(
        &tracks,
        request.baseline.as_deref(),
        &request.track,
    ))?;
    let interrupt = settings.interrupt.clone();
    let track_settings = TrackSettings {
        seed: settings.seed,
        fit: settings,
        shared: request.shared,
        baseline,
        allocation: AllocationSettings {
            flops: py(Flops::parse(&request.flops))?,
            held: request.held,
            ..AllocationSettings::at_budgets(request.budgets)
        },
        bootstrap: request.bootstrap,
        level: request.level,
        cell_tolerance: request.cell_tolerance,
        calibration,
    };
    let comparison = interruptible(py_, &interrupt, || {
        compare_tracks(&law, &tracks, &track_settings)
    })?;
    json_out(&comparison)
}
