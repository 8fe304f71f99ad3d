//! Library errors (the engine's and the lab's) as Python exceptions, Ctrl-C during long calls,
//! and the JSON boundary (requests in, documents out).

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyType;
use serde::de::DeserializeOwned;

use scalinglaws::{Error, Interrupt};
use scalinglaws_lab::LabError;

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
/// it mentions worded as keywords (`where=`, `fix={"NAME": VALUE}`) by [`crate::wording::Python`].
pub(crate) fn to_py(error: Error) -> PyErr {
    raised(
        exception_name(&error),
        error.worded(&crate::wording::Python),
    )
}

/// The lab's refusal of a setting (`scalinglaws-lab`'s one error) as `scalinglaws.SettingsError`,
/// the setting it names worded as the keyword that sets it (`seeds=`) by
/// [`crate::wording::lab_keyword`].
pub(crate) fn lab_to_py(error: LabError) -> PyErr {
    let LabError::Setting { key, message } = error;
    raised(
        "SettingsError",
        format!("{}: {message}", crate::wording::lab_keyword(key)),
    )
}

/// The exception `class` of `scalinglaws._errors` with `message`, which `speak_python` then
/// rewords where it still spells out an option in the command line's words: the one way every
/// error of the compiled module reaches Python.
fn raised(class: &str, message: String) -> PyErr {
    Python::attach(|py| {
        let module = match py.import("scalinglaws._errors") {
            Ok(module) => module,
            Err(import_error) => return import_error,
        };
        let class = module
            .getattr(class)
            .and_then(|class| Ok(class.cast_into::<PyType>()?));
        let message = module
            .getattr("speak_python")
            .and_then(|speak| speak.call1((message,)))
            .and_then(|text| text.extract::<String>());
        match (class, message) {
            (Ok(class), Ok(message)) => PyErr::from_type(class, message),
            (Err(e), _) | (_, Err(e)) => e,
        }
    })
}

/// A library result as a Python result.
pub(crate) fn py<T>(result: Result<T, Error>) -> PyResult<T> {
    result.map_err(to_py)
}

/// How often the calling thread looks for signals (Ctrl-C) while the library works.
const SIGNAL_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Runs `work` on a worker thread with the GIL released while this thread runs Python's
/// signal handlers every [`SIGNAL_POLL`]: when one raises (Ctrl-C's KeyboardInterrupt), the
/// token is set, the worker (which checks it between replicates, starts and splits) is
/// waited for, and the handler's exception is raised. Not interrupted, the result is the
/// worker's, exactly as if it had run here.
pub(crate) fn interruptible<T: Send>(
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
        let raised = wait_for(py_, finished).err();
        if raised.is_some() {
            interrupt.interrupt();
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

/// Waits with the GIL released for what a worker thread sends on `finished`, running Python's
/// signal handlers every [`SIGNAL_POLL`]: the message (None if the worker ended without one),
/// or the exception a handler raised (Ctrl-C's KeyboardInterrupt) as soon as one does.
pub(crate) fn wait_for<M: Send>(
    py_: Python<'_>,
    finished: std::sync::mpsc::Receiver<M>,
) -> PyResult<Option<M>> {
    use std::sync::mpsc::RecvTimeoutError;
    let mut finished = finished;
    loop {
        // (The receiver is not Sync: it goes into the GIL-free wait and comes back.)
        let (waited, back) = py_.detach(move || (finished.recv_timeout(SIGNAL_POLL), finished));
        finished = back;
        match waited {
            Ok(message) => return Ok(Some(message)),
            Err(RecvTimeoutError::Disconnected) => return Ok(None),
            Err(RecvTimeoutError::Timeout) => py_.check_signals()?,
        }
    }
}

pub(crate) fn json_out<T: serde::Serialize>(value: &T) -> PyResult<String> {
    serde_json::to_string(value).map_err(|e| PyRuntimeError::new_err(e.to_string()))
}

/// A request from the Python layer (JSON it wrote from the keywords). A value the request's
/// type cannot hold (a negative count, a fraction where a whole number goes, text where a
/// number goes) is the caller's keyword at fault: `SettingsError` naming it by its path.
pub(crate) fn request<T: DeserializeOwned>(text: &str) -> PyResult<T> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    serde_path_to_error::deserialize(&mut deserializer).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner().to_string();
        // serde_json ends with the position in the request's JSON, which the caller never saw.
        let what = inner.split(" at line ").next().unwrap_or(&inner);
        to_py(Error::settings(format!("{path}=: {what}")))
    })
}
