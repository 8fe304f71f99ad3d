//! The lab from Python (`scalinglaws.lab`): one function per simulator of `scalinglaws-lab`,
//! so that a notebook runs the very simulation `scalinglaws sim NAME` runs. The keywords are
//! the command's options (None: the simulator's default, taken from its `Config::default()` as
//! the command takes it), and each function returns the CSV text the command writes, made by
//! the same code (the rows' `csv_header`/`csv_line`, the lab's `sgd_csv`, `scaling_csv`,
//! `editing_csv`), which the Python layer reads into a pandas DataFrame: the same columns in
//! the same order and the same numbers. The simulation runs on a worker thread with the GIL
//! released while this thread watches for Ctrl-C ([`run`]); a setting the lab refuses becomes
//! `scalinglaws.SettingsError` naming the keyword (`errors::lab_to_py`).

// Configurations are built as `Config { ..Config::default() }` even where every field is
// given today, so that a setting the lab adds takes its default here until it is a keyword.
#![allow(clippy::needless_update, clippy::too_many_arguments)]

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

use scalinglaws::Interrupt;
use scalinglaws_lab::editing::{editing_csv, editing_with_progress, EditingConfig};
use scalinglaws_lab::multi_index::{
    spectral_recovery_with_progress, MultiIndexConfig, RecoveryRow,
};
use scalinglaws_lab::nvfp4::{snr_experiment_with_progress, SnrConfig, SnrRow};
use scalinglaws_lab::recall::{recall_capacity_with_progress, RecallConfig, RecallRow};
use scalinglaws_lab::sgd::{
    check_horizons, constant_run, data_scaling_with_progress, scaling_csv, sgd_csv,
    simulate_with_progress, Optimizer, ScalingConfig, SgdConfig, Shape,
};
use scalinglaws_lab::{Progress, Result as LabResult};

use crate::errors::{lab_to_py, wait_for};

/// What a simulation unwinds with once Ctrl-C has set its token. The lab takes no token of its
/// own: the listener of its progress reports unwinds at each report once the token is set
/// (with `std::panic::resume_unwind`, which runs no panic hook and prints nothing), and the
/// partial work is dropped.
struct Stopped;

/// What the worker sends back: the lab's result, or the panic that ended it.
type Outcome<T> = std::thread::Result<LabResult<T>>;

/// Runs `work` on a worker thread, on a thread pool of its own, with the GIL released while
/// this thread runs Python's signal handlers (`errors::wait_for`, as the other long calls do).
/// Ctrl-C raises KeyboardInterrupt at once and tells the run to stop, and the run winds down in
/// the background on its own pool, so the next call neither waits for it nor queues behind it.
/// How soon it stops is the lab's: it reports after each seed or trial, not before, and rayon
/// runs every task it has split off up to that task's first report, which in a long Monte
/// Carlo run can be a good part of the work left (a lab that checked a token before each unit,
/// as the engine does, would stop within one). A setting the lab refuses is the package's
/// error; a run not interrupted computes exactly what it computes without a listener.
fn run<T: Send + 'static>(
    py_: Python<'_>,
    work: impl FnOnce(Progress<'_>) -> LabResult<T> + Send + 'static,
) -> PyResult<T> {
    let interrupt = Interrupt::new();
    let token = interrupt.clone();
    let pool = rayon::ThreadPoolBuilder::new().build().map_err(|e| {
        PyRuntimeError::new_err(format!("cannot start the simulation's threads: {e}"))
    })?;
    let (sender, finished) = std::sync::mpsc::channel::<Outcome<T>>();
    let worker = move || {
        let listen = move |_done: usize, _total: usize| {
            if token.is_interrupted() {
                resume_unwind(Box::new(Stopped));
            }
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| pool.install(|| work(&listen))));
        let _ = sender.send(outcome);
    };
    std::thread::Builder::new()
        .name("scalinglaws-lab".to_string())
        .spawn(worker)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start the simulation: {e}")))?;
    match wait_for(py_, finished) {
        Ok(Some(Ok(result))) => result.map_err(lab_to_py),
        // Not stopped (only Ctrl-C stops a run, and that returns below): the lab's own panic.
        Ok(Some(Err(panic))) => resume_unwind(panic),
        Ok(None) => Err(PyRuntimeError::new_err(
            "the simulation ended without a result",
        )),
        Err(signal) => {
            interrupt.interrupt();
            Err(signal)
        }
    }
}

/// A header and its lines as one CSV text, joined as `scalinglaws sim` joins them.
fn csv(header: &str, lines: impl Iterator<Item = String>) -> String {
    let mut text = String::from(header);
    for line in lines {
        text.push('\n');
        text.push_str(&line);
    }
    text
}

/// The SNR of NVFP4 dot products against the dimension (`scalinglaws sim nvfp4`; `tensor_scale`
/// false is its `--no-tensor-scale`); returns the dataset's CSV text.
#[pyfunction]
#[pyo3(signature = (*, dimensions=None, pairs=None, correlation=None, tensor_scale=None, seed=0))]
pub(crate) fn lab_nvfp4(
    py_: Python<'_>,
    dimensions: Option<Vec<usize>>,
    pairs: Option<usize>,
    correlation: Option<f64>,
    tensor_scale: Option<bool>,
    seed: u64,
) -> PyResult<String> {
    let defaults = SnrConfig::default();
    let config = SnrConfig {
        dimensions: dimensions.unwrap_or_else(|| defaults.dimensions.clone()),
        pairs: pairs.unwrap_or(defaults.pairs),
        correlation: correlation.unwrap_or(defaults.correlation),
        tensor_scale: tensor_scale.unwrap_or(defaults.tensor_scale),
        seed,
        ..defaults
    };
    let rows = run(py_, move |progress| {
        snr_experiment_with_progress(&config, progress)
    })?;
    Ok(csv(SnrRow::csv_header(), rows.iter().map(SnrRow::csv_line)))
}

/// SGD and signSGD on power-law linear regression, the risk at logged steps (`scalinglaws
/// sim sgd`); returns the dataset's CSV text.
#[pyfunction]
#[pyo3(signature = (
    *, dimension=None, a=None, b=None, noise=None, batch=None, lr=None, steps=None,
    per_decade=None, seeds=None, optimizer=None, seed=0
))]
pub(crate) fn lab_sgd(
    py_: Python<'_>,
    dimension: Option<usize>,
    a: Option<f64>,
    b: Option<f64>,
    noise: Option<f64>,
    batch: Option<usize>,
    lr: Option<f64>,
    steps: Option<usize>,
    per_decade: Option<usize>,
    seeds: Option<usize>,
    optimizer: Option<Vec<String>>,
    seed: u64,
) -> PyResult<String> {
    let defaults = SgdConfig::default();
    let (lrs, log_steps) = constant_run(lr, steps, per_decade).map_err(lab_to_py)?;
    let optimizers = match optimizer {
        None => Optimizer::ALL.to_vec(),
        Some(names) => names
            .iter()
            .map(|name| Optimizer::parse(name.trim()))
            .collect::<LabResult<Vec<_>>>()
            .map_err(lab_to_py)?,
    };
    let config = SgdConfig {
        dimension: dimension.unwrap_or(defaults.dimension),
        a: a.unwrap_or(defaults.a),
        b: b.unwrap_or(defaults.b),
        noise: noise.unwrap_or(defaults.noise),
        batch: batch.unwrap_or(defaults.batch),
        lrs,
        log_steps,
        seeds: seeds.unwrap_or(defaults.seeds),
        seed,
        ..defaults
    };
    let rows = run(py_, move |progress| {
        simulate_with_progress(&config, &optimizers, progress)
    })?;
    Ok(sgd_csv(&rows))
}

/// The data-scaling exponents of SGD and signSGD, the tuned excess risk at each training
/// length (`scalinglaws sim sgd-scaling`); returns the dataset's CSV text.
#[pyfunction]
#[pyo3(signature = (*, a=None, b=None, dimension=None, horizons=None, decay=None, seeds=None, seed=0))]
pub(crate) fn lab_sgd_scaling(
    py_: Python<'_>,
    a: Option<f64>,
    b: Option<f64>,
    dimension: Option<usize>,
    horizons: Option<Vec<usize>>,
    decay: Option<f64>,
    seeds: Option<usize>,
    seed: u64,
) -> PyResult<String> {
    let hard = ScalingConfig::hard();
    let defaults = ScalingConfig::new(a.unwrap_or(hard.a), b.unwrap_or(hard.b));
    let horizons = horizons.unwrap_or_else(|| defaults.horizons.clone());
    check_horizons(&horizons).map_err(lab_to_py)?;
    let config = ScalingConfig {
        dimension: dimension.unwrap_or(defaults.dimension),
        horizons,
        shape: decay.map_or(defaults.shape, |fraction| Shape::Decay { fraction }),
        seeds: seeds.unwrap_or(defaults.seeds),
        seed,
        ..defaults
    };
    let result = run(py_, move |progress| {
        data_scaling_with_progress(&config, progress)
    })?;
    Ok(scaling_csv(&result.points))
}

/// Norm feedback in sequential rank-one editing, with and without Norm-Anchor Scaling
/// (`scalinglaws sim editing`); returns the dataset's CSV text.
#[pyfunction]
#[pyo3(signature = (
    *, rows=None, cols=None, edits=None, feedback=None, tolerance=None, threshold=None,
    seeds=None, seed=0
))]
pub(crate) fn lab_editing(
    py_: Python<'_>,
    rows: Option<usize>,
    cols: Option<usize>,
    edits: Option<usize>,
    feedback: Option<f64>,
    tolerance: Option<f64>,
    threshold: Option<f64>,
    seeds: Option<usize>,
    seed: u64,
) -> PyResult<String> {
    let defaults = EditingConfig::default();
    let config = EditingConfig {
        rows: rows.unwrap_or(defaults.rows),
        cols: cols.unwrap_or(defaults.cols),
        edits: edits.unwrap_or(defaults.edits),
        feedback: feedback.unwrap_or(defaults.feedback),
        tolerance: tolerance.unwrap_or(defaults.tolerance),
        threshold: threshold.unwrap_or(defaults.threshold),
        seeds: seeds.unwrap_or(defaults.seeds),
        seed,
        ..defaults
    };
    let result = run(py_, move |progress| {
        editing_with_progress(&config, progress)
    })?;
    Ok(editing_csv(&result.rows))
}

/// Subspace recovery of hierarchical multi-index targets by the spectral estimator
/// (`scalinglaws sim multi-index`); returns the dataset's CSV text.
#[pyfunction]
#[pyo3(signature = (
    *, dimensions=None, kappas=None, directions=None, strength_exponent=None, noise=None,
    seeds=None, seed=0
))]
pub(crate) fn lab_multi_index(
    py_: Python<'_>,
    dimensions: Option<Vec<usize>>,
    kappas: Option<Vec<f64>>,
    directions: Option<usize>,
    strength_exponent: Option<f64>,
    noise: Option<f64>,
    seeds: Option<usize>,
    seed: u64,
) -> PyResult<String> {
    let defaults = MultiIndexConfig::default();
    let config = MultiIndexConfig {
        dimensions: dimensions.unwrap_or_else(|| defaults.dimensions.clone()),
        kappas: kappas.unwrap_or_else(|| defaults.kappas.clone()),
        directions: directions.unwrap_or(defaults.directions),
        strength_exponent: strength_exponent.unwrap_or(defaults.strength_exponent),
        noise: noise.unwrap_or(defaults.noise),
        seeds: seeds.unwrap_or(defaults.seeds),
        seed,
        ..defaults
    };
    let rows = run(py_, move |progress| {
        spectral_recovery_with_progress(&config, progress)
    })?;
    Ok(csv(
        RecoveryRow::csv_header(),
        rows.iter().map(RecoveryRow::csv_line),
    ))
}

/// Associative-recall capacity through a random linear hash against its Johnson–Lindenstrauss
/// bound (`scalinglaws sim recall`); returns the dataset's CSV text.
#[pyfunction]
#[pyo3(signature = (
    *, state_sizes=None, embedding=None, context=None, trials=None, delta=None, max_vocab=None,
    seed=0
))]
pub(crate) fn lab_recall(
    py_: Python<'_>,
    state_sizes: Option<Vec<usize>>,
    embedding: Option<usize>,
    context: Option<usize>,
    trials: Option<usize>,
    delta: Option<f64>,
    max_vocab: Option<usize>,
    seed: u64,
) -> PyResult<String> {
    let defaults = RecallConfig::default();
    let config = RecallConfig {
        state_sizes: state_sizes.unwrap_or_else(|| defaults.state_sizes.clone()),
        embedding: embedding.unwrap_or(defaults.embedding),
        context: context.unwrap_or(defaults.context),
        trials: trials.unwrap_or(defaults.trials),
        delta: delta.unwrap_or(defaults.delta),
        max_vocab: max_vocab.unwrap_or(defaults.max_vocab),
        seed,
        ..defaults
    };
    let rows = run(py_, move |progress| {
        recall_capacity_with_progress(&config, progress)
    })?;
    Ok(csv(
        RecallRow::csv_header(),
        rows.iter().map(RecallRow::csv_line),
    ))
}
