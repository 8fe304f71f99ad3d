//! The one native entry of the library's workflows (`scalinglaws::workflow`): the name, the
//! data and the spec as JSON in; the document and its text report out. The Python functions
//! that call it, their keywords and their result classes are generated from the workflows'
//! JSON Schemas (`python/scalinglaws/_workflows.py`), so a workflow or a setting added to the
//! library reaches Python without a hand edit here.

use pyo3::prelude::*;

use scalinglaws::workflow::{Ctx, Workflow};
use scalinglaws::Error;
use scalinglaws_report::{export, Format, Report};

use crate::data::{table, Data};
use crate::errors::{interruptible, py, request, to_py};
use crate::report::Reported;

/// Runs the workflow `name` on `data` with the spec `spec_json`; returns its document (as the
/// command's `--json`) and its text report.
#[pyfunction]
pub(crate) fn run_workflow(
    py_: Python<'_>,
    data: Data,
    name: &str,
    spec_json: &str,
) -> PyResult<Reported> {
    macro_rules! dispatch {
        ($($listed:ident => $workflow:ty),* $(,)?) => {
            match name {
                $(stringify!($listed) => run::<$workflow>(py_, data, spec_json),)*
                other => Err(to_py(Error::settings(format!("no workflow is named '{other}'")))),
            }
        };
    }
    scalinglaws::for_each_workflow!(dispatch)
}

fn run<W: Workflow>(py_: Python<'_>, data: Data, spec_json: &str) -> PyResult<Reported>
where
    W::Output: Report<Json = W::Output>,
{
    let spec: W::Spec = request(spec_json)?;
    py(W::check(&spec))?;
    let table = py(table(data, W::recipe(&spec)))?;
    let ctx = Ctx {
        max_work: Some(crate::fit::max_work()),
        ..Ctx::default()
    };
    let output = interruptible(py_, &ctx.interrupt, || W::run(&spec, &table, &ctx))?;
    // The document as the command writes it, byte for byte (`Result.save` writes this text).
    let document = export(&output, Format::Json, &crate::wording::Python)
        .map_err(|e| to_py(Error::settings(format!("the result is not JSON: {e}"))))?;
    Ok((document, output.text(&crate::wording::Python)))
}
