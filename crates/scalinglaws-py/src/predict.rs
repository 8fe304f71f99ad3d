//! Predictions of a fit with their intervals, as columns: the library's `PredictColumns` (the
//! checks and values of `scalinglaws predict`) on the float64 bytes of the arrays the Python
//! layer hands over, read in place, the results written straight into the bytearrays it turns
//! into arrays. So memory is a small multiple of the output arrays (8 bytes a point for the
//! values, 16 for an interval's bounds), never a Python float or a record per point; the work
//! runs on a worker thread that Ctrl-C stops between blocks of points.

use std::borrow::Cow;
use std::collections::BTreeMap;

use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyByteArrayMethods, PyBytes, PyBytesMethods};

use scalinglaws::workflow::predict::{IntervalChoice, PredictColumns};
use scalinglaws::{Error, Interrupt};

use crate::errors::{interruptible, py, to_py};
use crate::fit::read_fit;

/// Bytes per value (float64).
const WIDTH: usize = std::mem::size_of::<f64>();

/// A variable's values from the native-endian float64 bytes of its array: the bytes themselves
/// when they are aligned for f64 (as the buffer of a Python bytes object is), else a copy.
fn floats<'a>(name: &str, bytes: &'a [u8]) -> Result<Cow<'a, [f64]>, Error> {
    if !bytes.len().is_multiple_of(WIDTH) {
        return Err(Error::settings(format!(
            "{name}: {} bytes are not float64 values",
            bytes.len()
        )));
    }
    // SAFETY: every bit pattern is an f64, and `align_to` only yields the aligned middle.
    let (head, middle, tail) = unsafe { bytes.align_to::<f64>() };
    if head.is_empty() && tail.is_empty() {
        return Ok(Cow::Borrowed(middle));
    }
    let copied = bytes
        .chunks_exact(WIDTH)
        .map(|b| f64::from_ne_bytes(b.try_into().expect("8 bytes")))
        .collect();
    Ok(Cow::Owned(copied))
}

/// Predictions of a fit at points given per law variable (the float64 bytes of equal-length
/// arrays, or of one value for every point): the values' float64 bytes, and with `interval`
/// ("confidence" or "prediction", else refused by the library) its bounds' (lower, upper per
/// point); an interval the fit cannot give is refused ([`IntervalChoice::missing`]).
#[pyfunction]
#[pyo3(signature = (fit_json, variables, level, interval=None))]
pub(crate) fn predict<'py>(
    py_: Python<'py>,
    fit_json: &str,
    variables: BTreeMap<String, Bound<'py, PyBytes>>,
    level: f64,
    interval: Option<&str>,
) -> PyResult<(Bound<'py, PyByteArray>, Option<Bound<'py, PyByteArray>>)> {
    let bounds = py(interval.map(IntervalChoice::parse).transpose())?;
    let (mut result, law) = py(read_fit(fit_json))?;
    // Ctrl-C stops the block being predicted too, not only the blocks after it.
    let interrupt = Interrupt::new();
    result.settings.interrupt = interrupt.clone();
    let columns = variables
        .iter()
        .map(|(name, bytes)| Ok((name.as_str(), floats(name, bytes.as_bytes())?)))
        .collect::<Result<Vec<_>, Error>>();
    let columns = py(columns)?;
    let job = PredictColumns {
        points: columns
            .iter()
            .map(|(name, v)| (*name, v.as_ref()))
            .collect(),
        level,
        interrupt,
    };
    let n = py(job.count(&result, &law))?;
    let values = PyByteArray::new_with(py_, n * WIDTH, |_| Ok(()))?;
    let pairs = match bounds {
        Some(_) => Some(PyByteArray::new_with(py_, 2 * n * WIDTH, |_| Ok(()))?),
        None => None,
    };
    // SAFETY: the bytearrays were made here and nothing else holds them until they are
    // returned: no Python code can resize or read them while the worker writes.
    let value_bytes = unsafe { values.as_bytes_mut() };
    let mut pair_bytes = pairs.as_ref().map(|p| unsafe { p.as_bytes_mut() });
    let mut complete = true;
    interruptible(py_, &job.interrupt, || {
        job.run(&result, &law, |first, block| {
            for (i, p) in block.iter().enumerate() {
                let at = (first + i) * WIDTH;
                value_bytes[at..at + WIDTH].copy_from_slice(&p.value.to_ne_bytes());
                let (Some(pick), Some(out)) = (bounds, pair_bytes.as_deref_mut()) else {
                    continue;
                };
                match pick.of(p) {
                    Some([lo, hi]) => {
                        out[2 * at..2 * at + WIDTH].copy_from_slice(&lo.to_ne_bytes());
                        out[2 * at + WIDTH..2 * (at + WIDTH)].copy_from_slice(&hi.to_ne_bytes());
                    }
                    None => complete = false,
                }
            }
        })
    })?;
    match (bounds, complete) {
        (Some(choice), false) => Err(to_py(choice.missing())),
        _ => Ok((values, pairs)),
    }
}
