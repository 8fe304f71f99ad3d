//! What a fit file must be before its numbers are trusted: JSON of one object (not too deeply
//! nested) with this build's `schema_version`, else a message saying what the file is instead
//! (another command's output is named by its `kind`); a catalog law's own formula;
//! and values a fit can have (a residual scale or standard error below 0 is an edit, not a
//! fit). Every message names the key at fault; the front end names the file.

use serde_json::Value;

use super::result::{FitResult, ParamResult, SCHEMA_VERSION};
use super::VarianceModel;
use crate::error::{Error, Mention, Result, Text};
use crate::law::catalog;
use crate::text;

/// The most levels of nesting serde_json reads (its recursion limit).
const MAX_DEPTH: usize = 128;

/// The fix every "not a fit file" message ends with.
fn give_a_fit() -> Text {
    text!["give the JSON written by ", Mention::Writer("fit")]
}

fn not_a_fit(why: impl Into<Text>) -> Error {
    Error::settings(text!["not a fit file: ", why.into(), "; ", give_a_fit()])
}

/// A fit file's `schema_version` must be the one this build reads. A file that is not JSON,
/// nests deeper than serde_json reads, is not an object, names another `kind` or has no
/// `schema_version` is refused saying so (another kind by the workflow that wrote it).
pub fn check_schema_version(text: &str) -> Result<()> {
    let document: Value = serde_json::from_str(text).map_err(unreadable)?;
    let Value::Object(keys) = &document else {
        return Err(not_a_fit(format!(
            "it is a JSON {}, not an object",
            kind(&document)
        )));
    };
    check_kind(keys)?;
    match keys.get("schema_version") {
        Some(version) if version.as_u64() == Some(u64::from(SCHEMA_VERSION)) => Ok(()),
        Some(version) => Err(Error::settings(format!(
            "unsupported fit file schema_version {version}; this build reads version \
             {SCHEMA_VERSION}"
        ))),
        None => Err(not_a_fit("it has no `schema_version`")),
    }
}

/// Reading a fit file: here, with the checks it runs, so that result.rs (the model) names
/// nothing of this file.
impl FitResult {
    /// Reads the fit alone from a fit file (its record's parts are left out: read a
    /// `FitRecord` for those), checking its schema version first and its formula and values
    /// after (the checks of this file). Parses straight from the text so that parameters and
    /// variables keep their order.
    pub fn from_json(text: &str) -> Result<FitResult> {
        check_schema_version(text)?;
        let mut result: FitResult = serde_json::from_str(text)
            .map_err(|e| Error::settings(format!("not a fit file: {e}")))?;
        result.check_read()?;
        Ok(result)
    }

    /// The checks of a fit just read from a file: the shapes of its matrices, a catalog law's
    /// formula (filled in when left out) and values no fit writes.
    pub(crate) fn check_read(&mut self) -> Result<()> {
        self.check_shapes()?;
        check_formula(self)?;
        check_values(self)
    }

    /// The covariance and correlation must match the parameters (a hand-edited or truncated
    /// file is refused here rather than misread later).
    fn check_shapes(&self) -> Result<()> {
        let broken = |what: String| {
            Err(Error::settings(format!(
                "not a consistent fit file: {what}"
            )))
        };
        for (label, matrix) in [
            ("covariance", &self.covariance),
            ("correlation", &self.correlation),
        ] {
            let Some(m) = matrix else { continue };
            let k = m.names.len();
            if m.values.len() != k || m.values.iter().any(|row| row.len() != k) {
                return broken(format!("the {label} matrix is not {k} × {k}"));
            }
            if let Some(name) = m.names.iter().find(|n| self.param(n).is_none()) {
                return broken(format!(
                    "the {label} names '{name}', which is not a parameter"
                ));
            }
        }
        Ok(())
    }
}

/// Why a text that serde_json cannot read is no fit file.
fn unreadable(error: serde_json::Error) -> Error {
    if error.to_string().starts_with("recursion limit exceeded") {
        return not_a_fit(format!(
            "its JSON nests more than {MAX_DEPTH} levels deep (line {}, column {}), and a fit \
             file nests a few",
            error.line(),
            error.column()
        ));
    }
    not_a_fit(format!("it is not JSON ({error})"))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A document names its kind (`crate::document`): a fit file's is `fit` (files written
/// before documents named their kind have none, and are read as fits).
fn check_kind(keys: &serde_json::Map<String, Value>) -> Result<()> {
    let Some(kind) = keys.get("kind") else {
        return Ok(());
    };
    match kind.as_str().map(|k| (k, crate::document::known_kind(k))) {
        Some(("fit", _)) => Ok(()),
        Some((_, Some(known))) => Err(not_a_fit(text![
            "it is the JSON written by ",
            Mention::Writer(known)
        ])),
        _ => Err(not_a_fit(format!(
            "its `kind` is {}, not \"fit\"",
            crate::error::clipped(&kind.to_string(), false)
        ))),
    }
}

/// A catalog law's file holds the catalog's formula (a file without `formula` gets it): the
/// catalog law is what is evaluated, so an edited formula would be silently ignored.
pub(crate) fn check_formula(fit: &mut FitResult) -> Result<()> {
    if fit.law == "formula" {
        return Ok(());
    }
    // A name the catalog does not know is refused where the law is built (`FitResult::law`).
    let Ok(law) = catalog::lookup(&fit.law) else {
        return Ok(());
    };
    let spaceless = |text: &str| text.split_whitespace().collect::<String>();
    if fit.formula.trim().is_empty() {
        fit.formula = law.formula;
    } else if spaceless(&fit.formula) != spaceless(&law.formula) {
        return Err(Error::settings(format!(
            "the key `formula` is \"{}\", but the file's law '{}' is the catalog's \"{}\", and \
             that is what is evaluated, not the edited text; restore the catalog's formula (or \
             remove the key), or set `law` to \"formula\" to evaluate the edited one",
            fit.formula, fit.law, law.formula
        )));
    }
    Ok(())
}

/// Values no fit writes: a negative residual scale, standard error or variance, a variance
/// model's scale at or below 0.
pub(crate) fn check_values(fit: &FitResult) -> Result<()> {
    // σ = 0 is the residual scale of an exact fit (noise-free data): it stays.
    if let Some(sigma) = fit.stats.residual_scale {
        at_least_zero("stats.residual_scale", sigma)?;
    }
    for (name, param) in &fit.params {
        check_inside(name, param)?;
        if let Some(stderr) = param.stderr {
            at_least_zero(&format!("params.{name}.stderr"), stderr)?;
        }
        if let Some(stderr) = param.boot_stderr {
            at_least_zero(&format!("params.{name}.boot_stderr"), stderr)?;
        }
        check_near_interval(name, param, &fit.warnings)?;
    }
    if let Some(covariance) = &fit.covariance {
        for (i, name) in covariance.names.iter().enumerate() {
            at_least_zero(&format!("covariance of {name}"), covariance.values[i][i])?;
        }
        check_covariance(covariance)?;
    }
    match &fit.variance {
        Some(variance) => check_variance(variance),
        None => Ok(()),
    }
}

/// Room a written value may have beyond its bound: the solver's steps end on the bound, and
/// the file's text rounds nothing, so anything further out was put there by hand.
const BOUND_SLACK: f64 = 1e-9;

/// A parameter's value is finite and inside the bounds the same file gives it (a fixed one
/// only finite: a fit takes a value fixed outside the bounds, with a warning, and writes it).
fn check_inside(name: &str, param: &ParamResult) -> Result<()> {
    let key = format!("params.{name}.value");
    match param.fixed {
        true => check_in_bounds(&key, param.value, None, None),
        false => check_in_bounds(&key, param.value, param.lower, param.upper),
    }
}

/// How far (in widths of its own bootstrap interval, or bootstrap standard errors) a value may
/// lie outside that interval: a percentile interval need not contain its estimate, but one
/// that misses it by more than this was not written by the fit that wrote the value.
const INTERVAL_SLACK: f64 = 3.0;

/// The bootstrap interval of a parameter whose value lies more than [`INTERVAL_SLACK`] of its
/// widths (or bootstrap standard errors) outside it; None when the value is near, or when the
/// interval says nothing of its spread (one successful replicate, or all at one value).
pub(crate) fn far_from_interval(param: &ParamResult) -> Option<[f64; 2]> {
    let [lo, hi] = param.ci?;
    let spread = (hi - lo).max(param.boot_stderr?);
    if !(spread > 0.0) {
        return None;
    }
    let slack = INTERVAL_SLACK * spread + BOUND_SLACK * param.value.abs().max(1.0);
    (param.value < lo - slack || param.value > hi + slack).then_some([lo, hi])
}

/// The warning a fit carries when its own bootstrap settled far from its estimate
/// ([`far_from_interval`]), written by `bootstrap::attach`; a file that carries it is read as
/// written.
pub(crate) fn far_warning(name: &str, value: f64, [lo, hi]: [f64; 2]) -> String {
    format!(
        "the bootstrap interval of {name}, [{}, {}], lies far from its estimate {}: the \
         replicates settled in another optimum, so the intervals describe that optimum, not the \
         fit's",
        crate::error::short_number(lo),
        crate::error::short_number(hi),
        crate::error::short_number(value)
    )
}

/// A parameter's value lies near its own bootstrap interval, unless the fit said it does not
/// ([`far_warning`]): an edited value (α = 1e300 beside an interval of [0.31, 0.38]) would
/// predict far outside the intervals its draws give.
fn check_near_interval(name: &str, param: &ParamResult, warnings: &[Text]) -> Result<()> {
    let Some(interval) = far_from_interval(param) else {
        return Ok(());
    };
    let said = far_warning(name, param.value, interval);
    if warnings.iter().any(|warning| warning.to_string() == said) {
        return Ok(());
    }
    let range = format!(
        "a value near its own bootstrap interval [{}, {}]",
        crate::error::short_number(interval[0]),
        crate::error::short_number(interval[1])
    );
    Err(edited(&format!("params.{name}.value"), param.value, &range))
}

/// `value` (a parameter's, or a bootstrap draw of it) is finite and inside the parameter's
/// bounds (None: unbounded on that side), by its key.
pub(crate) fn check_in_bounds(
    key: &str,
    value: f64,
    lower: Option<f64>,
    upper: Option<f64>,
) -> Result<()> {
    if !value.is_finite() {
        return Err(edited(key, value, "a finite number"));
    }
    let slack = |bound: f64| BOUND_SLACK * bound.abs().max(1.0);
    let below = lower.is_some_and(|lo| value < lo - slack(lo));
    let above = upper.is_some_and(|hi| value > hi + slack(hi));
    if below || above {
        let range = format!(
            "a value inside its bounds [{}, {}]",
            lower.map_or("-inf".into(), crate::error::short_number),
            upper.map_or("inf".into(), crate::error::short_number)
        );
        return Err(edited(key, value, &range));
    }
    Ok(())
}

/// Relative tolerance of the covariance's smallest eigenvalue (of the correlation matrix): a
/// sandwich written by the tool is positive semi-definite to rounding.
const COVARIANCE_TOLERANCE: f64 = 1e-8;

/// Tolerance of the covariance's symmetry, in correlation units. A sandwich's products leave
/// its mirror entries apart by rounding, up to 1.3e-8 in the correlation of an ill-conditioned
/// fit (Gemstones' smaller models, the best of two learning-rate arms per cell), and a tighter
/// check refused the fit's own file; an edit moves an entry by far more.
const SYMMETRY_TOLERANCE: f64 = 1e-6;

/// The covariance is finite, symmetric and positive semi-definite: a matrix that is not would
/// give negative variances to some combinations of parameters, and so intervals of no meaning.
fn check_covariance(covariance: &super::result::Matrix) -> Result<()> {
    let m = &covariance.values;
    let k = m.len();
    if let Some(bad) = m.iter().flatten().find(|v| !v.is_finite()) {
        return Err(edited("covariance", *bad, "finite numbers"));
    }
    let scale: Vec<f64> = (0..k).map(|i| m[i][i].max(0.0).sqrt()).collect();
    let correlation = nalgebra::DMatrix::from_fn(k, k, |i, j| {
        if scale[i] > 0.0 && scale[j] > 0.0 {
            m[i][j] / (scale[i] * scale[j])
        } else {
            0.0
        }
    });
    for i in 0..k {
        for j in 0..i {
            if (correlation[(i, j)] - correlation[(j, i)]).abs() > SYMMETRY_TOLERANCE {
                let key = format!(
                    "covariance of {} and {}",
                    covariance.names[i], covariance.names[j]
                );
                return Err(edited(
                    &key,
                    m[i][j],
                    "the same value as its mirror entry (a symmetric matrix)",
                ));
            }
        }
    }
    let smallest = correlation
        .symmetric_eigenvalues()
        .iter()
        .fold(f64::INFINITY, |a, &b| a.min(b));
    if smallest < -COVARIANCE_TOLERANCE {
        return Err(Error::settings(format!(
            "not a consistent fit file: `covariance` is not positive semi-definite (its \
             correlation matrix has the eigenvalue {}), and a fit writes one that is; was the \
             file edited? Restore the values or fit again",
            crate::error::short_number(smallest)
        )));
    }
    Ok(())
}

fn check_variance(variance: &VarianceModel) -> Result<()> {
    for (key, value) in [
        ("variance.sigma0", variance.sigma0),
        ("variance.x0", variance.x0),
    ] {
        if value <= 0.0 || value.is_nan() {
            return Err(edited(key, value, "above 0"));
        }
    }
    Ok(())
}

fn at_least_zero(key: &str, value: f64) -> Result<()> {
    if value >= 0.0 {
        Ok(())
    } else {
        Err(edited(key, value, "0 or more"))
    }
}

/// A value out of its range, by its key (`stats.residual_scale`).
pub(crate) fn edited(key: &str, value: f64, range: &str) -> Error {
    Error::settings(format!(
        "not a consistent fit file: `{key}` is {}, and a fit writes {range}; was the file \
         edited? Restore the value or fit again",
        crate::error::short_number(value)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_covariance_apart_from_its_mirror_by_rounding_is_read_and_an_edit_is_not() {
        let matrix = |mirror: f64| super::super::result::Matrix {
            names: vec!["a".into(), "b".into()],
            values: vec![vec![1.0, 0.5], vec![mirror, 1.0]],
        };
        assert!(check_covariance(&matrix(0.5 + 1.3e-8)).is_ok());
        let error = check_covariance(&matrix(0.5 + 1e-4))
            .unwrap_err()
            .to_string();
        assert!(error.contains("symmetric"), "{error}");
    }

    #[test]
    fn what_a_file_is_instead_is_said() {
        let message = |text: &str| check_schema_version(text).unwrap_err().to_string();
        assert!(message("[1, 2]").contains("it is a JSON array, not an object"));
        assert!(message("loss,N\n").contains("it is not JSON"));
        let deep = message(&"[".repeat(100_000));
        assert!(deep.contains("nests more than 128 levels deep"), "{deep}");
        let compare = message(r#"{"kind": "compare", "schema_version": 1, "tracks": []}"#);
        assert!(
            compare.contains("it is the JSON written by the `compare` workflow"),
            "{compare}"
        );
        assert!(message(r#"{"kind": "nonsense"}"#).contains("its `kind` is \"nonsense\""));
        assert!(message("{}").contains("it has no `schema_version`; give the JSON written by"));
        assert!(message(r#"{"schema_version": 2}"#).contains("schema_version 2"));
        assert!(check_schema_version(r#"{"schema_version": 1}"#).is_ok());
        assert!(check_schema_version(r#"{"kind": "fit", "schema_version": 1}"#).is_ok());
    }
}
