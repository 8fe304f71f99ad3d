//! The one native entry of the library's workflows (`scalinglaws::workflow`): the name, the
//! input (the data, a saved fit's JSON, or None) and the spec as JSON in; the document and its text
//! report out. The Python functions that call it, their keywords and their result classes are
//! generated from the workflows' JSON Schemas (`python/scalinglaws/_workflows.py`), so a
//! workflow or a setting added to the library reaches Python without a hand edit here.

use pyo3::prelude::*;

use scalinglaws::analysis::schedule::ScheduleFit;
use scalinglaws::data::recipe::{Recipe, Table};
use scalinglaws::uncertainty::FitRecord;
use scalinglaws::workflow::schedule_fit::{LogTable, LogTables};
use scalinglaws::workflow::{Ctx, Workflow};
use scalinglaws::Error;
use scalinglaws_report::{export, Format, Report};

use crate::data::{table, Data};
use crate::errors::{interruptible, py, request, to_py};

/// A workflow's document (as the command's `--json` writes it), its text report (as the
/// command prints it, in Python's words) and, for a fit, the data fitted as JSON
/// (`Workflow::fitted`: `{variables, target, weights}`, for `Fit`'s pictures and page), as
/// the compiled module returns them: the Python layer keeps the text beside the document, and
/// a result's `str()` is that report.
pub(crate) type Reported = (String, String, Option<String>);

/// How Python hands each kind of input over.
pub(crate) trait Take: Sized {
    fn take(input: &Bound<'_, PyAny>, recipe: Option<&Recipe>) -> PyResult<Self>;
}

impl Take for Table {
    fn take(input: &Bound<'_, PyAny>, recipe: Option<&Recipe>) -> PyResult<Table> {
        let recipe = recipe.ok_or_else(|| to_py(Error::settings("no recipe for the data")))?;
        py(table(input.extract::<Data>()?, recipe))
    }
}

/// The data when given (a design before any run takes none); data given to a spec that reads
/// none are refused in the library's words.
impl Take for Option<Table> {
    fn take(input: &Bound<'_, PyAny>, recipe: Option<&Recipe>) -> PyResult<Option<Table>> {
        match (input.is_none(), recipe) {
            (true, _) => Ok(None),
            (false, None) => Err(to_py(scalinglaws::workflow::design::unread_runs())),
            (false, Some(recipe)) => Ok(Some(py(table(input.extract::<Data>()?, recipe))?)),
        }
    }
}

/// The fit when one is given (a spec may name its own law instead), as its JSON.
impl Take for Option<FitRecord> {
    fn take(input: &Bound<'_, PyAny>, _recipe: Option<&Recipe>) -> PyResult<Option<FitRecord>> {
        match input.is_none() {
            true => Ok(None),
            false => Ok(Some(
                py(crate::fit::read_fit(&input.extract::<String>()?))?.0,
            )),
        }
    }
}

/// A saved fit, as its JSON.
impl Take for FitRecord {
    fn take(input: &Bound<'_, PyAny>, _recipe: Option<&Recipe>) -> PyResult<FitRecord> {
        Ok(py(crate::fit::read_fit(&input.extract::<String>()?))?.0)
    }
}

/// Training logs: one file or table (a file's rows make one run named by the file when the
/// spec names no run column; a table held in memory names none).
impl Take for LogTables {
    fn take(input: &Bound<'_, PyAny>, recipe: Option<&Recipe>) -> PyResult<LogTables> {
        let recipe = recipe.ok_or_else(|| to_py(Error::settings("no recipe for the logs")))?;
        let data = input.extract::<Data>()?;
        let path = data.path.clone();
        let table = py(table(data, recipe))?;
        Ok(LogTables(vec![match path {
            Some(path) => LogTable::from_file(table, std::path::Path::new(&path)),
            None => LogTable { table, name: None },
        }]))
    }
}

impl Take for ScheduleFit {
    fn take(input: &Bound<'_, PyAny>, _recipe: Option<&Recipe>) -> PyResult<ScheduleFit> {
        py(ScheduleFit::from_json(&input.extract::<String>()?))
    }
}

/// Runs the workflow `name` on `input` (the data as `to_data` hands them over, or a saved fit's
/// JSON) with the spec `spec_json`; returns its document (as the command's `--json` writes it),
/// its text report and, for a fit, the data fitted.
#[pyfunction]
pub(crate) fn run_workflow(
    py_: Python<'_>,
    input: &Bound<'_, PyAny>,
    name: &str,
    spec_json: &str,
) -> PyResult<Reported> {
    macro_rules! dispatch {
        ($($listed:ident => $workflow:ty),* $(,)?) => {
            match name {
                $(stringify!($listed) => run::<$workflow>(py_, input, spec_json),)*
                other => Err(to_py(Error::settings(format!("no workflow is named '{other}'")))),
            }
        };
    }
    scalinglaws::for_each_workflow!(dispatch)
}

fn run<W: Workflow>(
    py_: Python<'_>,
    input: &Bound<'_, PyAny>,
    spec_json: &str,
) -> PyResult<Reported>
where
    W::Input: Take,
    W::Output: Report<Json = W::Output>,
{
    let value: serde_json::Value = request(spec_json)?;
    py(scalinglaws::workflow::refuse_unknown_settings::<W>(&value))?;
    let spec = py(W::spec(request(spec_json)?))?;
    py(W::check(&spec))?;
    let input = W::Input::take(input, W::recipe(&spec))?;
    let ctx = Ctx {
        max_work: Some(crate::fit::max_work()),
        ..Ctx::default()
    };
    let output = interruptible(py_, &ctx.interrupt, || W::run(&spec, &input, &ctx))?;
    // The document as the command writes it, byte for byte (`Result.save` writes this text).
    let document = export(&output, Format::Json, &crate::wording::Python)
        .map_err(|e| to_py(Error::settings(format!("the result is not JSON: {e}"))))?;
    let fitted = W::fitted(&output).map(crate::fit::fit_data_json);
    Ok((document, output.text(&crate::wording::Python), fitted))
}
