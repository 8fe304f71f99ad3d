//! Pictures of a fit (SVG or PNG): the data with the curves, residuals, frontier, bootstrap;
//! the recipes picture of a comparison (`plot_tracks`) and the IsoFLOP picture (`plot_isoflop`).

use std::collections::BTreeMap;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::allocation::allocation_from_fit;
use scalinglaws::analysis::allocation::{optimal, AllocationSettings};
use scalinglaws::{Error, Interrupt};
use scalinglaws_report::plots::FrontierPicture;

use crate::errors::{interruptible, py, request, to_py};
use crate::fit::{read_fit, FitDataJson};

/// The picture's format by the extension of `path`: `svg` or `png`, else refused.
fn picture_format(path: &str) -> PyResult<&'static str> {
    let extension = std::path::Path::new(path)
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase());
    match extension.as_deref() {
        Some("svg") => Ok("svg"),
        Some("png") => Ok("png"),
        _ => Err(to_py(Error::settings(format!(
            "'{path}': the picture's format comes from the extension: .svg or .png"
        )))),
    }
}

/// The page written to `path` (None back), or its SVG when no path is given.
fn written_or_svg(
    py_: Python<'_>,
    page: &scalinglaws_plot::Page,
    path: Option<&str>,
) -> PyResult<Option<String>> {
    py_.detach(|| match path {
        Some(path) => draw(page, path).map(|()| None),
        None => scalinglaws_plot::svg(page, page.default_size())
            .map(Some)
            .map_err(|e| PyRuntimeError::new_err(e.to_string())),
    })
}

/// Writes a picture (SVG or PNG by the extension of `path`).
fn draw(page: &scalinglaws_plot::Page, path: &str) -> PyResult<()> {
    let size = page.default_size();
    let failed = |e: scalinglaws_plot::DrawError| PyRuntimeError::new_err(e.to_string());
    match picture_format(path)? {
        "svg" => {
            let text = scalinglaws_plot::svg(page, size).map_err(failed)?;
            std::fs::write(path, text).map_err(|e| {
                to_py(Error::Io {
                    path: path.to_string(),
                    source: e,
                })
            })
        }
        _ => scalinglaws_plot::png(page, size, std::path::Path::new(path)).map_err(failed),
    }
}

/// What `Fit.plot` sends: the frontier's budgets, formula and values held (each absent one the
/// report crate's default), the variable on the x axis of the data and the level.
#[derive(Deserialize)]
struct PlotRequest {
    #[serde(flatten)]
    frontier: FrontierPicture,
    /// The variable on the x axis of a `fit` plot (default: the law's first).
    #[serde(default)]
    x: Option<String>,
    #[serde(default)]
    level: Option<f64>,
}

/// A picture of a saved fit: `frontier` (N*, D* over budgets) or `bootstrap` (the draws),
/// written to `path` (SVG or PNG by its extension).
#[pyfunction]
#[pyo3(signature = (kind, fit_json, path, request_json, data_json=None))]
pub(crate) fn plot_fit(
    py_: Python<'_>,
    kind: &str,
    fit_json: &str,
    path: &str,
    request_json: &str,
    data_json: Option<&str>,
) -> PyResult<()> {
    let page = fit_page(py_, kind, fit_json, request_json, data_json)?;
    py_.detach(|| draw(&page, path))
}

/// The picture of [`plot_fit`] as SVG text (for a notebook's inline display).
#[pyfunction]
#[pyo3(signature = (kind, fit_json, request_json, data_json=None))]
pub(crate) fn plot_svg(
    py_: Python<'_>,
    kind: &str,
    fit_json: &str,
    request_json: &str,
    data_json: Option<&str>,
) -> PyResult<String> {
    let page = fit_page(py_, kind, fit_json, request_json, data_json)?;
    py_.detach(|| {
        scalinglaws_plot::svg(&page, page.default_size())
            .map_err(|e| PyRuntimeError::new_err(e.to_string()))
    })
}

/// The page of a plot kind: `frontier` and `bootstrap` need only the fit; `fit` (the data
/// against `x` with the curves) and `residuals` need the data it was fitted to.
fn fit_page(
    py_: Python<'_>,
    kind: &str,
    fit_json: &str,
    request_json: &str,
    data_json: Option<&str>,
) -> PyResult<scalinglaws_plot::Page> {
    let (mut result, law) = py(read_fit(fit_json))?;
    let request: PlotRequest = request(request_json)?;
    // The bands of a fit with many bootstrap draws take seconds: let Ctrl-C stop them.
    let interrupt = Interrupt::new();
    result.settings.interrupt = interrupt.clone();
    let data = || -> PyResult<scalinglaws::fit::FitData> {
        let text = data_json.ok_or_else(|| {
            to_py(Error::settings(format!(
                "plot kind '{kind}' draws the data, which a fit read from JSON does not hold: \
                 refit with scalinglaws.fit(...), or use kind=\"frontier\" or \"bootstrap\""
            )))
        })?;
        let data: FitDataJson = self::request(text)?;
        Ok(scalinglaws::fit::FitData {
            variables: data.variables,
            target: data.target,
            weights: data.weights,
            trials: None,
            exposure: None,
        })
    };
    let page = match kind {
        "fit" => {
            let x = match &request.x {
                None => 0,
                Some(name) => law.variable_index(name).ok_or_else(|| {
                    to_py(Error::settings(format!(
                        "x='{name}' is not a variable of the law; its variables are {}",
                        law.variables.join(", ")
                    )))
                })?,
            };
            let level = request.level.unwrap_or_else(|| result.level());
            let data = data()?;
            interruptible(py_, &interrupt, || {
                scalinglaws_report::plots::fit_page(&law, &result, &data, x, level)
            })?
        }
        "residuals" => py(scalinglaws_report::plots::residuals_page(
            &law,
            &result,
            &data()?,
        ))?,
        "frontier" => frontier_page(py_, &result, &law, request)?,
        "bootstrap" => py(scalinglaws_report::plots::bootstrap_page(&result))?,
        other => {
            return Err(to_py(Error::settings(format!(
                "plot kind '{other}': use \"fit\", \"residuals\", \"frontier\" or \"bootstrap\""
            ))))
        }
    };
    Ok(page)
}

/// The frontier picture (its budgets and formula as the report crate's [`FrontierPicture`]
/// reads them), its bands from the fit's bootstrap draws (at the bootstrap's level), solved
/// on a worker that Ctrl-C stops.
fn frontier_page(
    py_: Python<'_>,
    result: &scalinglaws::uncertainty::FitRecord,
    law: &scalinglaws::Law,
    request: PlotRequest,
) -> PyResult<scalinglaws_plot::Page> {
    if let Err(refused) = request.frontier.budgets() {
        return Err(to_py(Error::settings(format!("budgets=: {refused}"))));
    }
    let interrupt = Interrupt::new();
    let settings = AllocationSettings {
        interrupt: interrupt.clone(),
        ..py(request.frontier.settings())?
    };
    let settings = allocation_from_fit(settings, Some(result), None);
    let params = result.param_values();
    let frontier = interruptible(py_, &interrupt, || optimal(law, &params, &settings))?;
    Ok(scalinglaws_report::plots::frontier_page(&frontier))
}

/// The recipes picture of `compare`'s runs (as `scalinglaws plot tracks` draws it): the spec
/// is `compare`'s (its rules the library's, checked before the data are read), the page the
/// report crate's `tracks_figure`. Writes the picture to `path` (SVG or PNG by the extension;
/// refused before any work otherwise), or returns its SVG when no path is given.
#[pyfunction]
#[pyo3(signature = (input, spec_json, path=None))]
pub(crate) fn plot_tracks(
    py_: Python<'_>,
    input: &Bound<'_, PyAny>,
    spec_json: &str,
    path: Option<&str>,
) -> PyResult<Option<String>> {
    use scalinglaws::data::recipe::Table;
    use scalinglaws::workflow::compare::CompareWorkflow;
    use scalinglaws::workflow::{refuse_unknown_settings, Ctx, Workflow};

    use crate::workflows::Take;

    if let Some(path) = path {
        picture_format(path)?;
    }
    let value: serde_json::Value = request(spec_json)?;
    py(refuse_unknown_settings::<CompareWorkflow>(&value))?;
    let spec = py(CompareWorkflow::spec(request(spec_json)?))?;
    let mut spec = scalinglaws_report::plots::tracks_spec(&spec);
    py(spec.check())?;
    let table = Table::take(input, Some(&spec.recipe))?;
    let ctx = Ctx {
        max_work: Some(crate::fit::max_work()),
        ..Ctx::default()
    };
    ctx.apply(&mut spec.settings.settings);
    let (page, _) = interruptible(py_, &ctx.interrupt, || {
        scalinglaws_report::plots::tracks_figure(&spec, &table)
    })?;
    written_or_svg(py_, &page, path)
}

/// `plot_isoflop`'s settings as Python sends them: the runs' columns, the selection, and the
/// profiles' settings (None: the library's default, `IsoflopSettings::default`).
#[derive(Deserialize)]
struct IsoflopPlotRequest {
    #[serde(flatten)]
    table: scalinglaws::job::fit::TableRequest,
    compute: String,
    size: String,
    #[serde(default)]
    select: BTreeMap<String, String>,
    #[serde(default)]
    shape: Option<String>,
    #[serde(default)]
    tolerance: Option<f64>,
    #[serde(default)]
    bootstrap: Option<usize>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    level: Option<f64>,
}

/// The IsoFLOP picture (as `scalinglaws plot isoflop` draws it): the report crate's
/// `isoflop_figure` on the runs `input` holds. Writes it to `path` (SVG or PNG by the
/// extension; refused before any work otherwise), or returns its SVG when no path is given.
#[pyfunction]
#[pyo3(signature = (input, request_json, path=None))]
pub(crate) fn plot_isoflop(
    py_: Python<'_>,
    input: &Bound<'_, PyAny>,
    request_json: &str,
    path: Option<&str>,
) -> PyResult<Option<String>> {
    use scalinglaws::analysis::isoflop::{IsoflopSettings, Shape};
    use scalinglaws::data::recipe::{Recipe, Table};
    use scalinglaws_report::plots::{isoflop_figure, IsoflopColumns};

    use crate::workflows::Take;

    if let Some(path) = path {
        picture_format(path)?;
    }
    let request: IsoflopPlotRequest = request(request_json)?;
    let defaults = IsoflopSettings::default();
    let interrupt = Interrupt::new();
    let settings = IsoflopSettings {
        shape: match &request.shape {
            Some(name) => py(Shape::parse(name.trim()))?,
            None => defaults.shape,
        },
        tolerance: request.tolerance.unwrap_or(defaults.tolerance),
        bootstrap: request.bootstrap.unwrap_or(defaults.bootstrap),
        seed: request.seed.unwrap_or(defaults.seed),
        level: request.level.unwrap_or(defaults.level),
        interrupt: interrupt.clone(),
        ..defaults
    };
    py(settings.check())?;
    let recipe = py(Recipe::try_from(request.table))?;
    let table = Table::take(input, Some(&recipe))?;
    let select: Vec<(String, String)> = request.select.into_iter().collect();
    let columns = IsoflopColumns {
        compute: request.compute.trim(),
        size: request.size.trim(),
        target: &recipe.target,
    };
    let page = interruptible(py_, &interrupt, || {
        isoflop_figure(&table, columns, &select, &settings)
    })?;
    written_or_svg(py_, &page, path)
}
