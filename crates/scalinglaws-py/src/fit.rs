//! The catalog, and what is read back from a fit's JSON (the fit itself, its text report and
//! its HTML page); the fit is the workflow `fit` (`workflows.rs`), which hands back the data
//! fitted as [`fit_data_json`] writes them.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::job;
use scalinglaws::law::catalog;
use scalinglaws::uncertainty::FitRecord;
use scalinglaws::{Error, Interrupt, Law};

use crate::errors::{interruptible, json_out, py, request};

/// The catalog as JSON: [{name, summary, formula, variables, parameters, default_space,
/// citation}].
#[pyfunction]
pub(crate) fn laws() -> PyResult<String> {
    json_out(&py(catalog::listing())?)
}

/// The data a fit was fitted to, as JSON (for the report's page): {variables, target, weights}.
pub(crate) fn fit_data_json(data: &scalinglaws::fit::FitData) -> String {
    serde_json::json!({
        "variables": data.variables,
        "target": data.target,
        "weights": data.weights,
    })
    .to_string()
}

#[derive(Deserialize)]
pub(crate) struct FitDataJson {
    pub(crate) variables: Vec<Vec<f64>>,
    pub(crate) target: Vec<f64>,
    pub(crate) weights: Option<Vec<f64>>,
}

/// The text report of a fit (lmfit-style, as `scalinglaws fit` prints it, its hints worded
/// for Python).
#[pyfunction]
pub(crate) fn report(fit_json: &str) -> PyResult<String> {
    let (result, _) = py(read_fit(fit_json))?;
    let report = scalinglaws_report::analyses::fit::FitReport { result: &result };
    scalinglaws_report::export(
        &report,
        scalinglaws_report::Format::Text,
        &crate::wording::Python,
    )
    .map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// The self-contained HTML page of a fit (as `scalinglaws report` writes it), from the fit's
/// JSON and the JSON of its data (`fit` returns both); `level` defaults to the fit's.
#[pyfunction]
#[pyo3(signature = (fit_json, data_json, level=None, command=""))]
pub(crate) fn report_html(
    py_: Python<'_>,
    fit_json: &str,
    data_json: &str,
    level: Option<f64>,
    command: &str,
) -> PyResult<String> {
    let (mut result, law) = py(read_fit(fit_json))?;
    let data: FitDataJson = request(data_json)?;
    let data = scalinglaws::fit::FitData {
        variables: data.variables,
        target: data.target,
        weights: data.weights,
        trials: None,
        exposure: None,
    };
    let level = level.unwrap_or_else(|| result.level());
    // The page backtests the fit and draws its bands (seconds with many bootstrap draws): let
    // Ctrl-C stop both.
    let interrupt = Interrupt::new();
    result.settings.interrupt = interrupt.clone();
    let outcome = job::FitOutcome {
        result,
        law,
        data,
        rows: None,
    };
    let html = interruptible(py_, &interrupt, || {
        let page = job::FitPage::of(outcome, level)?;
        interrupt.check()?;
        let report = scalinglaws_report::analyses::fit::FitPageReport {
            page: &page,
            command,
        };
        let html = scalinglaws_report::export(
            &report,
            scalinglaws_report::Format::Html,
            &crate::wording::Python,
        );
        // A plot stopped part way was drawn as its error: that page is not the fit's.
        interrupt.check()?;
        Ok(html)
    })?;
    html.map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// Reads a fit's JSON back, checked against its law.
pub(crate) fn read_fit(fit_json: &str) -> Result<(FitRecord, Law), Error> {
    let result = FitRecord::from_json(fit_json)?;
    let law = result.law()?;
    Ok((result, law))
}

/// The process's work budget (core-seconds, as f64 bits; 0: the library's default), set by
/// `scalinglaws.set_max_work` and read by every call's settings.
static MAX_WORK: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The work budget every call runs under ([`scalinglaws::work`]).
pub(crate) fn max_work() -> f64 {
    match MAX_WORK.load(std::sync::atomic::Ordering::Relaxed) {
        0 => scalinglaws::work::DEFAULT_MAX_WORK,
        bits => f64::from_bits(bits),
    }
}

/// Sets the work budget of every later call in this process, in estimated core-seconds (the
/// library refuses, before it starts, work estimated above it); `None` restores the default.
#[pyfunction]
#[pyo3(signature = (seconds=None))]
pub(crate) fn set_max_work(seconds: Option<f64>) -> PyResult<()> {
    let bits = match seconds {
        None => 0,
        Some(seconds) => {
            crate::errors::py(scalinglaws::work::check_budget(seconds))?;
            seconds.to_bits()
        }
    };
    MAX_WORK.store(bits, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

/// The warning for `threads` above the library's cap (a few per core), in Python's words;
/// None at or below it (the Python layer warns with it: the run uses the cap).
#[pyfunction]
pub(crate) fn threads_warning(requested: usize) -> Option<String> {
    scalinglaws::limits::threads_warning(requested).map(|text| text.worded(&crate::wording::Python))
}

/// Checks a fit's JSON (for `Fit.load`); returns it normalised.
#[pyfunction]
pub(crate) fn check_fit(fit_json: &str) -> PyResult<String> {
    let (result, _) = py(read_fit(fit_json))?;
    Ok(result.to_json())
}

/// The caveats of a fit (`FitRecord::caveats`): what its predictions inherit from its
/// diagnostics, as a JSON list (for `Fit.caveats` and the warnings `Fit.predict` gives).
#[pyfunction]
pub(crate) fn fit_caveats(fit_json: &str) -> PyResult<String> {
    let (result, _) = py(read_fit(fit_json))?;
    json_out(&result.caveats())
}

/// The sentence the report words each caveat of a JSON list with (a result's `fit_caveats`),
/// for the Python layer's warnings.
#[pyfunction]
pub(crate) fn caveat_lines(caveats_json: &str) -> PyResult<Vec<String>> {
    let caveats: Vec<scalinglaws::fit::FitCaveat> = request(caveats_json)?;
    Ok(caveats
        .iter()
        .map(scalinglaws_report::caveats::describe)
        .collect())
}
