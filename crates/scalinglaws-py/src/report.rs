//! An analysis's result leaves with its text report: the document (as the command's `--json`
//! writes it) and the report the command prints for it, written by the report crate
//! (`scalinglaws_report::analyses`) while the request's context (the data's name, the columns,
//! the law's label) is at hand, its mentions of settings worded for Python
//! ([`crate::wording::Python`]). The Python layer keeps the text beside the document, and a
//! result's `str()` is that report.

use pyo3::prelude::*;

use scalinglaws_report::Report;

use crate::errors::json_document;

/// A result's document and its text report, as the compiled module returns them.
pub(crate) type Reported = (String, String);

/// The document of `report`'s result and its text report in Python's words.
pub(crate) fn reported<R: Report + ?Sized>(report: &R) -> PyResult<Reported> {
    Ok((
        json_document(report.json_value())?,
        report.text(&crate::wording::Python),
    ))
}
