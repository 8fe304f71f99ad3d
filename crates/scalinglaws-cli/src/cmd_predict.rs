//! `scalinglaws predict`: evaluates a saved fit at new points, so that a fit written once by
//! `fit --json` answers "what loss at N, D?" without refitting. Points are given per law
//! variable (`N=7e10 D=1.4e12`), as lists for several points.

use std::path::PathBuf;

use anyhow::{Context, Result};
use scalinglaws::fit::FitResult;
use scalinglaws::law::NonFinite;
use scalinglaws::uncertainty::{predict_with_intervals, Calibration, IntervalSource};
use scalinglaws::Law;
use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::config::split_name;
use crate::input;
use crate::input_error;
use crate::output::{self, Destination};
use scalinglaws::suggest::closest;
use scalinglaws_report::text::{columns, level_percent, number};

#[derive(Debug)]
pub struct Config {
    pub fit: PathBuf,
    pub points: Vec<String>,
    pub level: f64,
    pub json: Option<Destination>,
}

/// Input values in the law's variable order, serialised as an object in that order.
struct Inputs(Vec<(String, f64)>);

impl Serialize for Inputs {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}

#[derive(serde::Serialize)]
struct Prediction {
    inputs: Inputs,
    value: f64,
    /// Confidence interval of the law's mean.
    ci: Option<[f64; 2]>,
    /// Prediction interval of a new run (calibrated beyond the data when `calibrated`).
    pi: Option<[f64; 2]>,
    /// The fit's own prediction interval, before the extrapolation calibration.
    pi_fit: Option<[f64; 2]>,
    calibrated: bool,
    /// Decades beyond the largest fitted scale.
    #[serde(skip_serializing_if = "Option::is_none")]
    distance_decades: Option<f64>,
}

/// How the prediction intervals were calibrated beyond the data (the fit's calibration
/// without its per-run scores).
#[derive(serde::Serialize)]
struct CalibrationNote<'a> {
    calibrated: bool,
    method: &'a str,
    by: &'a str,
    reason: Option<&'a str>,
    tau_per_decade: f64,
    growth: f64,
    largest_scale: f64,
    held_out: usize,
    units: usize,
    max_distance_decades: f64,
    coverage_fit: Option<f64>,
    coverage_calibrated: Option<f64>,
}

impl<'a> CalibrationNote<'a> {
    fn of(c: &'a Calibration) -> CalibrationNote<'a> {
        CalibrationNote {
            calibrated: c.calibrated,
            method: &c.method,
            by: &c.by,
            reason: c.reason.as_deref(),
            tau_per_decade: c.tau_per_decade,
            growth: c.growth,
            largest_scale: c.largest_scale,
            held_out: c.held_out,
            units: c.units,
            max_distance_decades: c.max_distance_decades,
            coverage_fit: c.coverage_fit,
            coverage_calibrated: c.coverage_calibrated,
        }
    }
}

#[derive(serde::Serialize)]
struct Predictions<'a> {
    level: f64,
    /// Where the intervals come from: "bootstrap", "delta" or "none".
    intervals: IntervalSource,
    /// How `pi` was calibrated beyond the data (None: the fit has no calibration).
    calibration: Option<CalibrationNote<'a>>,
    predictions: Vec<Prediction>,
}

pub fn run(config: &Config) -> Result<()> {
    let (result, law) = load_fit(&config.fit)?;
    let columns = parse_points(&result, &law, &config.points)?;
    let n_points = columns.iter().map(Vec::len).max().unwrap_or(0);
    let points: Vec<Vec<f64>> = (0..n_points)
        .map(|i| {
            columns
                .iter()
                .map(|values| {
                    if values.len() == 1 {
                        values[0]
                    } else {
                        values[i]
                    }
                })
                .collect()
        })
        .collect();
    let (predicted, source) = predict_with_intervals(&result, &points, config.level)?;
    if let Some((point, _)) = points
        .iter()
        .zip(&predicted)
        .find(|(_, p)| !p.value.is_finite())
    {
        return Err(input_error(not_finite_message(&result, &law, point)));
    }
    let predictions: Vec<Prediction> = points
        .iter()
        .zip(predicted)
        .map(|(point, p)| Prediction {
            inputs: Inputs(
                law.variables
                    .iter()
                    .cloned()
                    .zip(point.iter().copied())
                    .collect(),
            ),
            value: p.value,
            ci: p.ci,
            pi: p.pi,
            pi_fit: p.pi_fit,
            calibrated: p.calibrated,
            distance_decades: p.distance_decades,
        })
        .collect();
    match &config.json {
        Some(destination) => {
            let text = serde_json::to_string_pretty(&Predictions {
                level: config.level,
                intervals: source,
                calibration: result.calibration.as_ref().map(CalibrationNote::of),
                predictions,
            })?;
            output::write(destination, &text)
        }
        None => {
            let mut text = table(&law.variables, &result.target, &predictions);
            text.push_str(&interval_note(&result, source, config.level));
            output::print(&text)
        }
    }
}

/// Why there is no number to print at `point`: a value beyond the largest double is not an
/// undefined law, and a formula that overflows on the way to a moderate value needs rewriting.
fn not_finite_message(result: &FitResult, law: &Law, point: &[f64]) -> String {
    let at: Vec<String> = law
        .variables
        .iter()
        .zip(point)
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    let at = at.join(" ");
    match law.non_finite(&result.param_values(), point) {
        Some(reason @ NonFinite::Overflow { .. }) => format!(
            "the law's value at {at} {reason}: it is finite but cannot be written as a 64-bit \
             number; predict nearer to the data"
        ),
        Some(reason @ NonFinite::Intermediate { .. }) => {
            format!("the law's value at {at} {reason}")
        }
        _ => format!(
            "the law is undefined at {at} (it evaluates to a non-finite number); predict inside \
             the law's domain"
        ),
    }
}

/// A fit file read and checked, with its law; errors name the file.
pub fn load_fit(path: &std::path::Path) -> Result<(FitResult, Law)> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|error| input_error(format!("cannot read the fit '{shown}': {error}")))?;
    let result = read_fit(&text).with_context(|| shown.clone())?;
    let law = result.law().with_context(|| shown.clone())?;
    Ok((result, law))
}

/// A fit read back from JSON, checked against its law.
pub fn read_fit(text: &str) -> Result<FitResult> {
    let result = FitResult::from_json(text)?;
    result.law()?; // the file's parameters must match its law
    Ok(result)
}

/// One list of values per law variable (length 1 or the common length), in the law's order.
fn parse_points(result: &FitResult, law: &Law, arguments: &[String]) -> Result<Vec<Vec<f64>>> {
    let variables = &law.variables;
    let positive = law.positive_variables();
    let mut given: Vec<Option<Vec<f64>>> = vec![None; variables.len()];
    for argument in arguments {
        let (name, list) = split_name("predict", argument, "VAR=VALUE, e.g. N=7e10")?;
        let Some(index) = variables.iter().position(|v| v == name) else {
            let hint = closest(name, variables.iter().map(String::as_str))
                .map(|s| format!(" (did you mean '{s}'?)"))
                .unwrap_or_default();
            return Err(input_error(format!(
                "'{name}' is not a variable of the law '{}'{hint}; its variables are {}",
                result.law,
                describe_variables(result, variables)
            )));
        };
        let values = input::constant_list(argument, list)
            .with_context(|| format!("predict '{argument}'"))?;
        for value in &values {
            if !value.is_finite() {
                return Err(input_error(format!(
                    "'{argument}': {value} is not a finite number"
                )));
            }
            if positive.contains(&name) && *value <= 0.0 {
                return Err(input_error(format!(
                    "'{argument}': {name} must be positive: {}",
                    input::why_positive(law, name)
                )));
            }
        }
        if given[index].replace(values).is_some() {
            return Err(input_error(format!("'{name}' is given twice")));
        }
    }
    let missing: Vec<&str> = variables
        .iter()
        .zip(&given)
        .filter(|(_, values)| values.is_none())
        .map(|(name, _)| name.as_str())
        .collect();
    if !missing.is_empty() {
        let example: Vec<String> = missing.iter().map(|name| format!("{name}=VALUE")).collect();
        return Err(input_error(format!(
            "no value for {}; the law '{}' needs every variable: {} (add {})",
            missing.join(", "),
            result.law,
            describe_variables(result, variables),
            example.join(" ")
        )));
    }
    let columns: Vec<Vec<f64>> = given.into_iter().flatten().collect();
    let lengths: Vec<(usize, &String)> = columns
        .iter()
        .map(Vec::len)
        .zip(variables)
        .filter(|(length, _)| *length > 1)
        .collect();
    if let Some(((first, first_name), (other, other_name))) = lengths.first().and_then(|first| {
        lengths
            .iter()
            .find(|l| l.0 != first.0)
            .map(|o| (*first, *o))
    }) {
        return Err(input_error(format!(
            "{first_name} has {first} values but {other_name} has {other}; give lists of the \
             same length, or one value to use at every point"
        )));
    }
    Ok(columns)
}

/// "N ('Model Size'), D (D=C/(6*N))".
fn describe_variables(result: &FitResult, variables: &[String]) -> String {
    variables
        .iter()
        .map(
            |variable| match result.variables.iter().find(|(v, _)| v == variable) {
                Some((_, source)) if source.starts_with(&format!("{variable}=")) => {
                    format!("{variable} ({source})")
                }
                Some((_, source)) if source != variable => format!("{variable} ('{source}')"),
                _ => variable.clone(),
            },
        )
        .collect::<Vec<_>>()
        .join(", ")
}

fn table(variables: &[String], target: &str, predictions: &[Prediction]) -> String {
    let target = target.split('=').next().unwrap_or(target);
    let with_intervals = predictions.iter().any(|p| p.ci.is_some() || p.pi.is_some());
    let mut header: Vec<String> = variables
        .iter()
        .cloned()
        .chain([target.to_string()])
        .collect();
    let calibrated = predictions.iter().any(|p| p.calibrated);
    if with_intervals {
        header.extend(["ci low", "ci high", "pi low", "pi high"].map(String::from));
    }
    if calibrated {
        header.extend(["decades out", "fit's pi low", "fit's pi high"].map(String::from));
    }
    let mut rows: Vec<Vec<String>> = vec![header];
    let ends = |pair: Option<[f64; 2]>| {
        pair.map_or(["-".to_string(), "-".to_string()], |[lo, hi]| {
            [number(lo, 6), number(hi, 6)]
        })
    };
    for prediction in predictions {
        let mut row: Vec<String> = prediction
            .inputs
            .0
            .iter()
            .map(|(_, value)| short(*value))
            .chain([number(prediction.value, 6)])
            .collect();
        if with_intervals {
            row.extend(ends(prediction.ci));
            row.extend(ends(prediction.pi));
        }
        if calibrated {
            row.push(
                prediction
                    .distance_decades
                    .map_or("-".into(), |d| number(d, 3)),
            );
            row.extend(ends(prediction.pi_fit));
        }
        rows.push(row);
    }
    columns(&rows, &[], "")
}

/// Says what the intervals are and where they come from.
fn interval_note(result: &FitResult, source: IntervalSource, level: f64) -> String {
    let mut note = fit_interval_note(result, source, level);
    if let Some(c) = &result.calibration {
        note.push_str(&format!("pi beyond the data: {}\n", c.describe()));
        if c.calibrated {
            note.push_str(
                "  (confidence intervals of the mean are not calibrated; the fit's own pi is shown beside)\n",
            );
        }
    }
    note
}

/// The residual σ a new run adds: one value, or σ(x) of a heteroscedastic fit.
fn residual_sd(result: &FitResult) -> String {
    match &result.variance {
        Some(v) => format!(
            "{}·({}/{})^{}",
            number(v.sigma0, 3),
            v.by,
            number(v.x0, 3),
            number(v.s, 3)
        ),
        None => result
            .stats
            .residual_scale
            .map_or("-".into(), |s| number(s, 3)),
    }
}

fn fit_interval_note(result: &FitResult, source: IntervalSource, level: f64) -> String {
    let level = level_percent(level);
    match (source, &result.bootstrap) {
        (IntervalSource::Bootstrap, Some(b)) => format!(
            "intervals: {level}% from {} bootstrap replicates; ci = the law's mean, pi = a new run (adds residual σ {})\n",
            b.draws.len(),
            residual_sd(result)
        ),
        (IntervalSource::Delta, _) => format!(
            "intervals: {level}% by the delta method ({} covariance); ci = the law's mean, pi = a new run (adds residual σ {})\n",
            result.covariance_kind,
            residual_sd(result)
        ),
        _ => "intervals: none (the fit has neither bootstrap replicates nor a covariance)\n".to_string(),
    }
}

/// The shorter of plain and scientific notation: 7e10, 0.5, 1.4e12.
fn short(value: f64) -> String {
    let plain = format!("{value}");
    let scientific = format!("{value:e}");
    if scientific.len() < plain.len() {
        scientific
    } else {
        plain
    }
}
