//! The compiled half of the Python package (`scalinglaws._scalinglaws`): thin functions over
//! the library, one per analysis, so that a fit from Python runs the same code as the CLI.
//! The boundary is deliberately plain: data arrive as columns (numbers or text) or a file path,
//! options as a JSON request, results leave as the library's own JSON (the same documents the
//! CLI writes), and the Python layer (`python/scalinglaws`) turns them into objects. Library
//! errors become `scalinglaws.DataError`, `FormulaError`, `SettingsError` or `FitError`
//! (all `scalinglaws.Error`) with the library's message; the GIL is released while the
//! library works, and the long calls (fits with bootstrap and calibration, backtests,
//! selections, comparisons, the report's page) run on a worker thread that Ctrl-C stops
//! (see `interruptible`).

#![allow(clippy::result_large_err)] // the library's Error, as in the library: rare and cold.

mod wording;

use std::collections::{BTreeMap, HashMap};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyType;
use serde::de::DeserializeOwned;
use serde::Deserialize;

use scalinglaws::analysis::allocation::{optimal as allocate, AllocationSettings, Flops, Formula};
use scalinglaws::analysis::backtest::{backtest as run_backtest, BacktestOptions, Holdout};
use scalinglaws::analysis::envelope::EnvelopeMethod;
use scalinglaws::analysis::isoflop::Shape;
use scalinglaws::analysis::law_comparison::Candidate;
use scalinglaws::analysis::lr::{Curvature, Form, LrSettings, Method};
use scalinglaws::analysis::schedule::{CurveLaw, ScheduleFit};
use scalinglaws::analysis::selection::{
    evaluate as evaluate_selection, points_by_name, select as run_select, value_at,
    SelectionOptions,
};
use scalinglaws::data::recipe::{Derive, Filter, Recipe, Table};
use scalinglaws::data::{Column, Dataset};
use scalinglaws::error::{Setting, Voice};
use scalinglaws::fit::{Bounds, FitResult, FitSettings, Space};
use scalinglaws::job::compare::CompareJob;
use scalinglaws::job::isoflop::IsoflopJob;
use scalinglaws::job::lr::LrJob;
use scalinglaws::job::schedule::{ScheduleFitJob, ScheduleOptimizeJob, SchedulePredictJob};
use scalinglaws::job::{self, allocation_from_fit, FitJob, FitRequest, LawChoice};
use scalinglaws::law::catalog;
use scalinglaws::uncertainty::{predict_with_intervals, CalibrationOptions};
use scalinglaws::{Error, Interrupt, Law};

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// The Python exception class for a library error.
fn exception_name(error: &Error) -> &'static str {
    match error {
        Error::Data { .. } | Error::Io { .. } => "DataError",
        Error::Formula { .. } => "FormulaError",
        Error::UnknownLaw { .. } | Error::Settings { .. } => "SettingsError",
        Error::Fit { .. } => "FitError",
        // Only raised when the token was set, which `interruptible` does on a signal and then
        // raises the signal's exception instead; seen here only if a caller sets it otherwise.
        Error::Interrupted => "Error",
        Error::Within { inner, .. } => exception_name(inner),
    }
}

/// The library's error as the Python exception, its message in Python's words: the settings
/// it mentions worded as keywords (`where=`, `fix={"NAME": VALUE}`) by [`wording::Python`].
/// `speak_python` then rewords any option a message still spells out in the command line's
/// words.
fn to_py(error: Error) -> PyErr {
    Python::attach(|py| {
        let module = match py.import("scalinglaws._errors") {
            Ok(module) => module,
            Err(import_error) => return import_error,
        };
        let class = module
            .getattr(exception_name(&error))
            .and_then(|class| Ok(class.cast_into::<PyType>()?));
        let message = module
            .getattr("speak_python")
            .and_then(|speak| speak.call1((error.worded(&wording::Python),)))
            .and_then(|text| text.extract::<String>());
        match (class, message) {
            (Ok(class), Ok(message)) => PyErr::from_type(class, message),
            (Err(e), _) | (_, Err(e)) => e,
        }
    })
}

/// A library result as a Python result.
fn py<T>(result: Result<T, Error>) -> PyResult<T> {
    result.map_err(to_py)
}

/// How often the calling thread looks for signals (Ctrl-C) while the library works.
const SIGNAL_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs `work` on a worker thread with the GIL released while this thread runs Python's
/// signal handlers every [`SIGNAL_POLL`]: when one raises (Ctrl-C's KeyboardInterrupt), the
/// token is set, the worker (which checks it between replicates, starts and splits) is
/// waited for, and the handler's exception is raised. Not interrupted, the result is the
/// worker's, exactly as if it had run here.
fn interruptible<T: Send>(
    py_: Python<'_>,
    interrupt: &Interrupt,
    work: impl FnOnce() -> Result<T, Error> + Send,
) -> PyResult<T> {
    std::thread::scope(|scope| {
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let worker = scope.spawn(move || {
            let result = work();
            let _ = done.send(());
            result
        });
        let mut raised = None;
        let mut finished = finished;
        loop {
            // (The receiver is not Sync: it goes into the GIL-free wait and comes back.)
            let (waited, back) = py_.detach(move || (finished.recv_timeout(SIGNAL_POLL), finished));
            finished = back;
            if !matches!(waited, Err(std::sync::mpsc::RecvTimeoutError::Timeout)) {
                break;
            }
            if let Err(signal) = py_.check_signals() {
                interrupt.interrupt();
                raised = Some(signal);
                break;
            }
        }
        let result = py_.detach(|| worker.join());
        let result = match result {
            Ok(result) => result,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        match raised {
            Some(signal) => Err(signal),
            None => py(result),
        }
    })
}

fn json_out<T: serde::Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// A request from the Python layer (JSON it wrote itself; a failure here is a bug there).
fn request<T: DeserializeOwned>(text: &str) -> PyResult<T> {
    serde_json::from_str(text)
        .map_err(|e| PyRuntimeError::new_err(format!("malformed request from Python: {e}")))
}

// ---------------------------------------------------------------------------------------------
// Data
// ---------------------------------------------------------------------------------------------

/// The data as the Python layer hands it over: named columns (numbers or text, in order), or a
/// file path.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct Data {
    source: String,
    names: Vec<String>,
    numeric: HashMap<String, Vec<f64>>,
    text: HashMap<String, Vec<String>>,
    path: Option<String>,
    delimiter: Option<String>,
}

impl Data {
    fn dataset(self) -> Result<Dataset, Error> {
        if let Some(path) = &self.path {
            let delimiter = self
                .delimiter
                .as_deref()
                .map(|d| match d.as_bytes() {
                    [byte] if byte.is_ascii() => Ok(*byte),
                    _ => Err(Error::settings(format!(
                        "delimiter '{d}': give one ASCII character"
                    ))),
                })
                .transpose()?;
            return Dataset::read(std::path::Path::new(path), delimiter);
        }
        let Data {
            source,
            names,
            mut numeric,
            mut text,
            ..
        } = self;
        let columns = names
            .into_iter()
            .map(|name| {
                let column = match numeric.remove(&name) {
                    Some(values) => Column::Numeric(values),
                    None => Column::Text(text.remove(&name).unwrap_or_default()),
                };
                (name, column)
            })
            .collect();
        Dataset::from_columns(source, columns)
    }
}

/// `map`, `derive`, `where`, `target` and `weights` of a request.
#[derive(Deserialize)]
struct RecipeRequest {
    target: String,
    #[serde(default)]
    map: Vec<(String, String)>,
    #[serde(default)]
    derive: Vec<(String, String)>,
    #[serde(default, rename = "where")]
    filters: Vec<String>,
    weights: Option<String>,
}

impl RecipeRequest {
    fn recipe(&self) -> Result<Recipe, Error> {
        Ok(Recipe {
            maps: self.map.clone(),
            derives: self
                .derive
                .iter()
                .map(|(name, expr)| Derive::parse(&format!("{name}={expr}")))
                .collect::<Result<_, _>>()
                .map_err(|e| e.within(Setting::Derive.subject()))?,
            filters: self
                .filters
                .iter()
                .map(|text| Filter::parse(text))
                .collect::<Result<_, _>>()
                .map_err(|e| e.within(Setting::Where.subject()))?,
            target: self.target.clone(),
            weights: self.weights.clone(),
        })
    }
}

fn table(data: Data, recipe: &Recipe) -> Result<Table, Error> {
    Table::prepare(data.dataset()?, recipe)
}

// ---------------------------------------------------------------------------------------------
// Laws and fit settings
// ---------------------------------------------------------------------------------------------

/// The law and fit options of a request.
#[derive(Deserialize)]
struct FitOptions {
    law: Option<String>,
    formula: Option<String>,
    loss: String,
    f_scale: f64,
    space: Option<String>,
    #[serde(default)]
    fix: BTreeMap<String, f64>,
    #[serde(default)]
    bounds: BTreeMap<String, (Option<f64>, Option<f64>)>,
    #[serde(default)]
    grid: BTreeMap<String, Vec<f64>>,
    seed: u64,
    threads: Option<usize>,
    /// The call's cancellation token, handed to every fit these options make.
    #[serde(skip)]
    interrupt: Interrupt,
}

impl FitOptions {
    fn law(&self, table: &Table) -> Result<Law, Error> {
        match (&self.law, &self.formula) {
            (Some(name), None) => catalog::lookup(name),
            (None, Some(text)) => {
                let is_variable = |name: &str| table.resolve(name).is_some();
                Law::from_formula(text, &is_variable)
            }
            _ => Err(Error::settings(
                "give exactly one of law=\"NAME\" and formula=\"TEXT\"",
            )),
        }
    }

    fn settings(&self) -> Result<FitSettings, Error> {
        let loss = job::fit::loss(&self.loss)?;
        // The law's own default space (a formula, or no law: log).
        let space = match (self.space.as_deref(), &self.law) {
            (Some(name), _) => job::fit::space(name)?,
            (None, Some(name)) => LawChoice::Catalog(name.clone()).default_space(),
            (None, None) => Space::Log,
        };
        Ok(FitSettings {
            loss,
            f_scale: self.f_scale,
            space,
            fixed: self.fix.clone(),
            bounds: self
                .bounds
                .iter()
                .map(|(name, (lower, upper))| {
                    (
                        name.clone(),
                        Bounds {
                            lower: *lower,
                            upper: *upper,
                        },
                    )
                })
                .collect(),
            grids: self.grid.clone(),
            seed: self.seed,
            threads: self.threads,
            interrupt: self.interrupt.clone(),
            ..FitSettings::default()
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------------------------

/// The catalog as JSON: [{name, summary, formula, variables, parameters, default_space,
/// citation}].
#[pyfunction]
fn laws() -> PyResult<String> {
    json_out(&py(catalog::listing())?)
}

fn yes() -> bool {
    true
}

/// The data a fit was fitted to, as JSON (for the report's page): {variables, target, weights}.
fn fit_data_json(data: &scalinglaws::fit::FitData) -> String {
    serde_json::json!({
        "variables": data.variables,
        "target": data.target,
        "weights": data.weights,
    })
    .to_string()
}

#[derive(Deserialize)]
struct FitDataJson {
    variables: Vec<Vec<f64>>,
    target: Vec<f64>,
    weights: Option<Vec<f64>>,
}

/// Fits a law; returns the fit's JSON (as `scalinglaws fit --json` writes it) and the JSON of
/// the data it was fitted to (for `report_html`). The request is a [`FitJob`]'s JSON.
#[pyfunction]
fn fit(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<(String, String)> {
    let request: FitRequest = request(request_json)?;
    let job = py(FitJob::try_from(request))?;
    let table = py(table(data, &job.recipe))?;
    let interrupt = job.settings.settings.interrupt.clone();
    let outcome = interruptible(py_, &interrupt, || job.run(&table, &|_| {}))?;
    Ok((outcome.result.to_json(), fit_data_json(&outcome.data)))
}

/// The text report of a fit (lmfit-style, as `scalinglaws fit` prints it, its hints worded
/// for Python).
#[pyfunction]
fn report(fit_json: &str) -> PyResult<String> {
    let (result, _) = py(read_fit(fit_json))?;
    let report = scalinglaws_report::analyses::fit::FitReport {
        result: &result,
        wording: &wording::Python,
    };
    scalinglaws_report::export(&report, scalinglaws_report::Format::Text)
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// The self-contained HTML page of a fit (as `scalinglaws report` writes it), from the fit's
/// JSON and the JSON of its data (`fit` returns both); `level` defaults to the fit's.
#[pyfunction]
#[pyo3(signature = (fit_json, data_json, level=None, command=""))]
fn report_html(
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
    };
    let level = level
        .or_else(|| result.bootstrap.as_ref().map(|b| b.level))
        .or_else(|| result.calibration.as_ref().map(|c| c.level))
        .unwrap_or(0.95);
    // The page backtests the fit: let Ctrl-C stop it.
    let interrupt = Interrupt::new();
    result.settings.interrupt = interrupt.clone();
    interruptible(py_, &interrupt, || {
        let page =
            scalinglaws_report::html::page(&result, &law, &data, level, command, &wording::Python);
        interrupt.check()?;
        Ok(page)
    })
}

/// Reads a fit's JSON back, checked against its law.
fn read_fit(fit_json: &str) -> Result<(FitResult, Law), Error> {
    let result = FitResult::from_json(fit_json)?;
    let law = result.law()?;
    Ok((result, law))
}

/// Checks a fit's JSON (for `Fit.load`); returns it normalised.
#[pyfunction]
fn check_fit(fit_json: &str) -> PyResult<String> {
    let (result, _) = py(read_fit(fit_json))?;
    Ok(result.to_json())
}

/// Predictions of a fit at points given per law variable (equal lengths), with confidence and
/// prediction intervals: (values, ci, pi, interval source).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn predict(
    py_: Python<'_>,
    fit_json: &str,
    variables: HashMap<String, Vec<f64>>,
    level: f64,
) -> PyResult<(
    Vec<f64>,
    Option<Vec<[f64; 2]>>,
    Option<Vec<[f64; 2]>>,
    String,
)> {
    let (result, law) = py(read_fit(fit_json))?;
    let mut columns = Vec::with_capacity(law.variables.len());
    for name in &law.variables {
        columns.push(variables.get(name).ok_or_else(|| {
            to_py(Error::settings(format!(
                "predict needs every variable of the law ({}); '{name}' is missing",
                law.variables.join(", ")
            )))
        })?);
    }
    if let Some(extra) = variables.keys().find(|k| law.variable_index(k).is_none()) {
        return Err(to_py(Error::settings(format!(
            "'{extra}' is not a variable of the law; its variables are {}",
            law.variables.join(", ")
        ))));
    }
    let n = columns.first().map_or(0, |c| c.len());
    if let Some((name, c)) = law
        .variables
        .iter()
        .zip(&columns)
        .find(|(_, c)| c.len() != n)
    {
        return Err(to_py(Error::settings(format!(
            "'{name}' has {} values but '{}' has {n}; give every variable the same number",
            c.len(),
            law.variables[0]
        ))));
    }
    let points: Vec<Vec<f64>> = (0..n)
        .map(|i| columns.iter().map(|c| c[i]).collect())
        .collect();
    let (predicted, source) = py(py_.detach(|| predict_with_intervals(&result, &points, level)))?;
    let values = predicted.iter().map(|p| p.value).collect();
    let ci = predicted.iter().map(|p| p.ci).collect::<Option<Vec<_>>>();
    let pi = predicted.iter().map(|p| p.pi).collect::<Option<Vec<_>>>();
    let source = serde_json::to_value(source)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    Ok((values, ci, pi, source))
}

#[derive(Deserialize)]
struct OptimalRequest {
    #[serde(default)]
    budgets: Vec<f64>,
    #[serde(default)]
    target_losses: Vec<f64>,
    flops: String,
    #[serde(default)]
    held: BTreeMap<String, Vec<f64>>,
    total_params: Option<String>,
    max_params: Option<f64>,
    max_active: Option<f64>,
    max_tokens: Option<f64>,
    inference_tokens: f64,
    level: Option<f64>,
}

/// Compute-optimal allocation of a fit (`fit_json`) or of a catalog law with given parameters
/// (`law`, `params`); returns the frontier's JSON (as `scalinglaws optimal --json`).
#[pyfunction]
#[pyo3(signature = (request_json, fit_json=None, law=None, params=None))]
fn optimal(
    py_: Python<'_>,
    request_json: &str,
    fit_json: Option<&str>,
    law: Option<&str>,
    params: Option<HashMap<String, f64>>,
) -> PyResult<String> {
    let request: OptimalRequest = request(request_json)?;
    let (law, values, fitted) = match (fit_json, law) {
        (Some(_), _) if params.is_some() => {
            return Err(to_py(Error::settings(
                "give a fit or law=\"NAME\" with params={...}, not both",
            )))
        }
        (Some(text), None) => {
            let (result, law) = py(read_fit(text))?;
            let values = result.param_values();
            (law, values, Some(result))
        }
        (None, Some(name)) => {
            let law = py(catalog::lookup(name))?;
            let values = py(law.values_by_name(&params.unwrap_or_default(), "params"))?;
            (law, values, None)
        }
        _ => {
            return Err(to_py(Error::settings(
                "give a fit, or law=\"NAME\" with params={...}",
            )))
        }
    };
    let mut allowed = vec!["N"];
    allowed.extend(request.held.keys().map(String::as_str));
    let total_params = request
        .total_params
        .as_deref()
        .map(|text| Formula::parse(text, &allowed, "the total-parameters formula"))
        .transpose()
        .map_err(to_py)?;
    let settings = allocation_from_fit(
        AllocationSettings {
            budgets: request.budgets,
            target_losses: request.target_losses,
            flops: py(Flops::parse(&request.flops))?,
            held: request.held,
            total_params,
            inference_tokens: request.inference_tokens,
            max_params: request.max_params,
            max_active: request.max_active,
            max_tokens: request.max_tokens,
            ..AllocationSettings::at_budgets(Vec::new())
        },
        fitted.as_ref(),
        request.level,
    );
    let frontier = py_.detach(|| {
        let mut frontier = allocate(&law, &values, &settings)?;
        if let Some(result) = &fitted {
            // The loss's prediction interval, calibrated beyond the data as in `predict`.
            frontier.add_prediction_intervals(result, settings.level)?;
        }
        Ok(frontier)
    });
    json_out(&py(frontier)?)
}

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
fn lr(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<String> {
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
            voice: Voice(&wording::Python),
        },
    };
    let analysis = py(py_.detach(|| job.run(&table, &recipe.target)))?;
    json_out(&analysis)
}

#[derive(Deserialize)]
struct IsoflopRequest {
    #[serde(flatten)]
    recipe: RecipeRequest,
    compute: String,
    size: String,
    tokens: Option<String>,
    #[serde(default)]
    group: Vec<String>,
    shape: String,
    tolerance: f64,
    envelope: Option<String>,
    run: Option<String>,
    bootstrap: usize,
    seed: u64,
    level: f64,
    #[serde(default)]
    budget: Vec<f64>,
    #[serde(default)]
    backtest: Option<usize>,
    calibrate: bool,
}

/// Options that cannot act together are refused rather than ignored.
fn check_isoflop_request(request: &IsoflopRequest, envelope: bool) -> Result<(), Error> {
    let forecast = !request.budget.is_empty() || request.backtest.is_some();
    if envelope && forecast {
        return Err(Error::settings(
            "budget= and backtest= predict from per-budget profiles; drop envelope=",
        ));
    }
    if !request.budget.is_empty() && request.backtest.is_some() {
        return Err(Error::settings(
            "give budget= (predictions at new budgets) or backtest= (held-out budgets), not both",
        ));
    }
    if !request.calibrate && !forecast {
        return Err(Error::settings(
            "calibrate=False acts on predictions beyond the data: give budget= or backtest=",
        ));
    }
    Ok(())
}

/// IsoFLOP analysis (or Chinchilla's approach 1 with `envelope`) per group; returns
/// {"groups": [...]} as `scalinglaws isoflop --json`.
#[pyfunction]
fn isoflop(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<String> {
    let request: IsoflopRequest = request(request_json)?;
    let recipe = py(request.recipe.recipe())?;
    let table = py(table(data, &recipe))?;
    let shape = Shape::from_name(&request.shape).ok_or_else(|| {
        to_py(Error::settings(format!(
            "shape '{}': use one of {}",
            request.shape,
            Shape::ALL.map(Shape::name).join(", ")
        )))
    })?;
    let method = request
        .envelope
        .as_deref()
        .map(|text| {
            EnvelopeMethod::parse(text).ok_or_else(|| {
                to_py(Error::settings(format!(
                    "envelope '{text}': use \"hull\", \"grid\" or \"grid:K\""
                )))
            })
        })
        .transpose()?;
    py(check_isoflop_request(&request, method.is_some()))?;
    let job = IsoflopJob {
        compute: request.compute,
        size: request.size,
        tokens: request.tokens,
        groups: request.group,
        run: request.run,
        envelope: method,
        backtest: request.backtest,
        shape,
        tolerance: request.tolerance,
        bootstrap: request.bootstrap,
        seed: request.seed,
        level: request.level,
        budgets: request.budget,
        calibrate: request.calibrate,
    };
    let result = py(py_.detach(|| job.run(&table, &recipe.target)))?;
    json_out(&result)
}

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
fn compare(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<String> {
    let request: CompareRequest = request(request_json)?;
    let recipe = py(request.recipe.recipe())?;
    let table = py(table(data, &recipe))?;
    let law = py(request.options.law(&table))?;
    let settings = py(request.options.settings())?;
    let job = CompareJob {
        track: request.track,
        shared: request.shared,
        baseline: request.baseline,
        budgets: request.budgets,
        grid: false,
        flops: request.flops,
        held: request.held,
        bootstrap: request.bootstrap,
        level: request.level,
        cell_tolerance: request.cell_tolerance,
        calibrate: request.calibrate,
        by: request.by,
    };
    let interrupt = settings.interrupt.clone();
    let compared = interruptible(py_, &interrupt, || job.run(&table, &recipe, &law, settings))?;
    json_out(&compared.comparison)
}

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
fn backtest(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<String> {
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

/// A candidate of `select`: a catalog law or a formula, with parameters held at values.
#[derive(Deserialize)]
struct SelectCandidate {
    label: Option<String>,
    law: Option<String>,
    formula: Option<String>,
    #[serde(default)]
    fix: BTreeMap<String, f64>,
}

#[derive(Deserialize)]
struct SelectRequest {
    #[serde(flatten)]
    recipe: RecipeRequest,
    candidates: Vec<SelectCandidate>,
    loss: String,
    f_scale: f64,
    space: Option<String>,
    seed: u64,
    threads: Option<usize>,
    by: Option<String>,
    origins: usize,
    level: f64,
    calibrate: bool,
    #[serde(default)]
    at: Vec<(String, Vec<f64>)>,
    check: bool,
    /// The call's cancellation token, handed to every candidate's fits.
    #[serde(skip)]
    interrupt: Interrupt,
}

impl SelectRequest {
    fn candidates(&self, table: &Table, recipe: &Recipe) -> Result<Vec<Candidate>, Error> {
        if self.candidates.is_empty() {
            return Err(Error::settings(
                "give candidate laws: laws=[\"chinchilla\", ...] or formulas=[...]",
            ));
        }
        self.candidates
            .iter()
            .map(|c| {
                let options = FitOptions {
                    law: c.law.clone(),
                    formula: c.formula.clone(),
                    loss: self.loss.clone(),
                    f_scale: self.f_scale,
                    space: self.space.clone(),
                    fix: c.fix.clone(),
                    bounds: BTreeMap::new(),
                    grid: BTreeMap::new(),
                    seed: self.seed,
                    threads: self.threads,
                    interrupt: self.interrupt.clone(),
                };
                let law = options.law(table)?;
                let settings = options.settings()?;
                let data = table.fit_data(&law, recipe, settings.space)?;
                let label = c
                    .label
                    .clone()
                    .or_else(|| c.law.clone())
                    .or_else(|| c.formula.clone())
                    .unwrap_or_default();
                Ok(Candidate {
                    label,
                    law,
                    settings,
                    data,
                })
            })
            .collect()
    }
}

/// Scores candidate laws by rolling-origin backtests, picks the winner, stacks them and
/// predicts at `at`; returns the JSON of `scalinglaws select --json`.
#[pyfunction]
fn select(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<String> {
    let request: SelectRequest = request(request_json)?;
    let recipe = py(request.recipe.recipe())?;
    let table = py(table(data, &recipe))?;
    let candidates = py(request.candidates(&table, &recipe))?;
    let first = &candidates[0];
    let (by, scale) = py(table.scale(&first.law, &first.data, request.by.as_deref(), "by"))?;
    let options = SelectionOptions {
        level: request.level,
        origins: request.origins,
        calibrate: request.calibrate,
    };
    let out = interruptible(
        py_,
        &request.interrupt,
        || -> Result<serde_json::Value, Error> {
            let selection = run_select(&candidates, &by, &scale, &options)?;
            let mut predictions = Vec::new();
            if !request.at.is_empty() {
                let points = points_by_name(&candidates, &request.at)?;
                for (i, prediction) in selection.predict(&points)?.into_iter().enumerate() {
                    let inputs: Vec<(String, f64)> = request
                        .at
                        .iter()
                        .map(|(n, v)| (n.clone(), value_at(v, i)))
                        .collect();
                    let mut value = serde_json::to_value(&prediction).map_err(json_error)?;
                    value["inputs"] = serde_json::to_value(inputs).map_err(json_error)?;
                    predictions.push(value);
                }
            }
            let check = if request.check {
                Some(evaluate_selection(&candidates, &by, &scale, &options)?)
            } else {
                None
            };
            // The shape of `scalinglaws select --json`: empty parts are left out.
            let mut out = serde_json::json!({ "selection": selection });
            if !predictions.is_empty() {
                out["predictions"] = serde_json::Value::Array(predictions);
            }
            if let Some(check) = check {
                out["check"] = serde_json::to_value(check).map_err(json_error)?;
            }
            Ok(out)
        },
    )?;
    json_out(&out)
}

fn json_error(error: serde_json::Error) -> Error {
    Error::settings(format!("could not write the result as JSON: {error}"))
}

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
/// the fit's JSON (as `scalinglaws schedule fit --json`).
#[pyfunction]
fn schedule_fit(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<String> {
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
    };
    let recipe = Recipe {
        target: job.target.clone(),
        ..Recipe::default()
    };
    let table = py(table(data, &recipe))?;
    let logs = py(job.logs(&table, ""))?;
    let fitted = py(py_.detach(|| job.run(&logs)))?;
    json_out(&fitted.fit)
}

/// The fitted law's loss curve under a schedule spec (keys left out come from the fit's
/// training run), every `every` steps (0: about 200 points); returns the prediction's JSON.
#[pyfunction]
fn schedule_predict(
    py_: Python<'_>,
    fit_json: &str,
    schedule: &str,
    every: usize,
) -> PyResult<String> {
    let fit = py(ScheduleFit::from_json(fit_json))?;
    let job = SchedulePredictJob {
        schedule: schedule.to_string(),
        every,
    };
    let prediction = py(py_.detach(|| job.run(&fit)))?;
    json_out(&prediction)
}

/// The schedule (linear warmup, then non-increasing between `floor` and `peak`) with the lowest
/// predicted final loss; returns the result's JSON and its whole schedule, one lr per step.
#[pyfunction]
#[pyo3(signature = (fit_json, steps, peak, warmup=None, floor=None, max_iterations=400))]
fn schedule_optimize(
    py_: Python<'_>,
    fit_json: &str,
    steps: usize,
    peak: f64,
    warmup: Option<usize>,
    floor: Option<f64>,
    max_iterations: usize,
) -> PyResult<(String, Vec<f64>)> {
    let fit = py(ScheduleFit::from_json(fit_json))?;
    let job = ScheduleOptimizeJob {
        steps: Some(steps),
        peak: Some(peak),
        warmup,
        floor,
        max_iterations,
    };
    let result = py(py_.detach(|| job.run(&fit)))?;
    Ok((json_out(&result)?, result.lrs))
}

/// Writes a picture (SVG or PNG by the extension of `path`).
fn draw(page: &scalinglaws_plot::Page, path: &str) -> PyResult<()> {
    let size = page.default_size();
    let failed = |e: scalinglaws_plot::DrawError| PyRuntimeError::new_err(e.to_string());
    let extension = std::path::Path::new(path)
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase());
    match extension.as_deref() {
        Some("svg") => {
            let text = scalinglaws_plot::svg(page, size).map_err(failed)?;
            std::fs::write(path, text).map_err(|e| {
                to_py(Error::Io {
                    path: path.to_string(),
                    source: e,
                })
            })
        }
        Some("png") => {
            scalinglaws_plot::png(page, size, std::path::Path::new(path)).map_err(failed)
        }
        _ => Err(to_py(Error::settings(format!(
            "'{path}': the picture's format comes from the extension: .svg or .png"
        )))),
    }
}

#[derive(Deserialize)]
struct PlotRequest {
    from: f64,
    to: f64,
    flops: String,
    #[serde(default)]
    held: BTreeMap<String, Vec<f64>>,
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
fn plot_fit(
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
fn plot_svg(
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
    let (result, law) = py(read_fit(fit_json))?;
    let request: PlotRequest = request(request_json)?;
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
            let level = request
                .level
                .or_else(|| result.bootstrap.as_ref().map(|b| b.level))
                .or_else(|| result.calibration.as_ref().map(|c| c.level))
                .unwrap_or(0.95);
            py(scalinglaws_report::plots::fit_page(
                &law,
                &result,
                &data()?,
                x,
                level,
            ))?
        }
        "residuals" => py(scalinglaws_report::plots::residuals_page(
            &law,
            &result,
            &data()?,
        ))?,
        "frontier" => {
            if !(request.from > 0.0 && request.to > request.from) {
                return Err(to_py(Error::settings("budgets: give 0 < from < to")));
            }
            let budgets = (0..41)
                .map(|i| {
                    (request.from.ln() + (request.to / request.from).ln() * i as f64 / 40.0).exp()
                })
                .collect();
            let settings = AllocationSettings {
                flops: py(Flops::parse(&request.flops))?,
                held: request.held,
                ..AllocationSettings::at_budgets(budgets)
            };
            py(py_.detach(|| scalinglaws_report::plots::frontier_page(&law, &result, &settings)))?
        }
        "bootstrap" => py(scalinglaws_report::plots::bootstrap_page(&result))?,
        other => {
            return Err(to_py(Error::settings(format!(
                "plot kind '{other}': use \"fit\", \"residuals\", \"frontier\" or \"bootstrap\""
            ))))
        }
    };
    Ok(page)
}

#[pymodule]
fn _scalinglaws(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_function(wrap_pyfunction!(laws, module)?)?;
    module.add_function(wrap_pyfunction!(fit, module)?)?;
    module.add_function(wrap_pyfunction!(check_fit, module)?)?;
    module.add_function(wrap_pyfunction!(report, module)?)?;
    module.add_function(wrap_pyfunction!(report_html, module)?)?;
    module.add_function(wrap_pyfunction!(plot_svg, module)?)?;
    module.add_function(wrap_pyfunction!(predict, module)?)?;
    module.add_function(wrap_pyfunction!(optimal, module)?)?;
    module.add_function(wrap_pyfunction!(isoflop, module)?)?;
    module.add_function(wrap_pyfunction!(lr, module)?)?;
    module.add_function(wrap_pyfunction!(compare, module)?)?;
    module.add_function(wrap_pyfunction!(backtest, module)?)?;
    module.add_function(wrap_pyfunction!(select, module)?)?;
    module.add_function(wrap_pyfunction!(plot_fit, module)?)?;
    module.add_function(wrap_pyfunction!(schedule_fit, module)?)?;
    module.add_function(wrap_pyfunction!(schedule_predict, module)?)?;
    module.add_function(wrap_pyfunction!(schedule_optimize, module)?)?;
    Ok(())
}
