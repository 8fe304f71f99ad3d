//! The compiled half of the Python package (`scalinglaws._scalinglaws`): thin functions over
//! the library, one per analysis, so that a fit from Python runs the same code as the CLI.
//! The boundary is deliberately plain: data arrive as columns (numbers or text) or a file path,
//! options as a JSON request, results leave as the library's own JSON (the same documents the
//! CLI writes), and the Python layer (`python/scalinglaws`) turns them into objects. Library
//! errors become `scalinglaws.DataError`, `FormulaError`, `SettingsError` or `FitError`
//! (all `scalinglaws.Error`) with the library's message; the GIL is released while the
//! library works, and every call that can run long (fits with bootstrap and calibration,
//! grouped fits, backtests, selections, comparisons of recipes and of laws, IsoFLOP analyses, allocations, designs,
//! downstream forecasts, the schedule's fit, predictions and optimiser, predictions of a fit,
//! its plots and its page; the lab's simulations) runs on a worker thread that Ctrl-C stops
//! within a fraction of a second (see `errors::interruptible`; `tests/test_interrupt.py`).
//!
//! One file per part: `errors` (exceptions, Ctrl-C, the JSON boundary), `data` (columns
//! and recipes), `fit` (the catalog, fits and their reports), `groups` (a fit per group of
//! rows), `plot`, `predict` (not yet a workflow), `workflows` (the one entry of
//! every workflow of `scalinglaws::workflow`: `lr`, `downstream`, `qc`, `isoflop`,
//! `compare_laws`, `select`, `compare`, `design`, `optimal`, the `schedule_*` ones, ...), and
//! `lab` (the
//! simulators of `scalinglaws-lab`, each returning the dataset `scalinglaws sim` writes); this
//! file only registers the functions.

#![allow(clippy::result_large_err)] // the library's Error, as in the library: rare and cold.

mod data;
mod errors;
mod fit;
mod groups;
mod lab;
mod plot;
mod predict;
mod wording;
mod workflows;

use pyo3::prelude::*;

#[pymodule]
fn _scalinglaws(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The one default level of intervals, for the keywords' defaults (`level=DEFAULT_LEVEL`).
    module.add("DEFAULT_LEVEL", scalinglaws::uncertainty::DEFAULT_LEVEL)?;
    // The library's other defaults the keywords show (`f_scale=DEFAULT_F_SCALE`, ...).
    module.add("DEFAULT_F_SCALE", scalinglaws::fit::DEFAULT_F_SCALE)?;
    module.add(
        "DEFAULT_TOLERANCE",
        scalinglaws::analysis::isoflop::DEFAULT_TOLERANCE,
    )?;
    module.add(
        "DEFAULT_CELL_TOLERANCE",
        scalinglaws::analysis::tracks::DEFAULT_CELL_TOLERANCE,
    )?;
    module.add_function(wrap_pyfunction!(fit::laws, module)?)?;
    module.add_function(wrap_pyfunction!(groups::fit_groups, module)?)?;
    module.add_function(wrap_pyfunction!(fit::check_fit, module)?)?;
    module.add_function(wrap_pyfunction!(fit::fit_caveats, module)?)?;
    module.add_function(wrap_pyfunction!(fit::caveat_lines, module)?)?;
    module.add_function(wrap_pyfunction!(fit::threads_warning, module)?)?;
    module.add_function(wrap_pyfunction!(fit::set_max_work, module)?)?;
    module.add_function(wrap_pyfunction!(fit::report, module)?)?;
    module.add_function(wrap_pyfunction!(fit::report_html, module)?)?;
    module.add_function(wrap_pyfunction!(plot::plot_svg, module)?)?;
    module.add_function(wrap_pyfunction!(plot::plot_tracks, module)?)?;
    module.add_function(wrap_pyfunction!(plot::plot_isoflop, module)?)?;
    module.add_function(wrap_pyfunction!(predict::predict, module)?)?;
    module.add_function(wrap_pyfunction!(plot::plot_fit, module)?)?;
    module.add_function(wrap_pyfunction!(workflows::run_workflow, module)?)?;
    module.add_function(wrap_pyfunction!(lab::lab_nvfp4, module)?)?;
    module.add_function(wrap_pyfunction!(lab::lab_sgd, module)?)?;
    module.add_function(wrap_pyfunction!(lab::lab_sgd_scaling, module)?)?;
    module.add_function(wrap_pyfunction!(lab::lab_editing, module)?)?;
    module.add_function(wrap_pyfunction!(lab::lab_multi_index, module)?)?;
    module.add_function(wrap_pyfunction!(lab::lab_recall, module)?)?;
    Ok(())
}
