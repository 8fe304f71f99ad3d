//! `scalinglaws predict`: evaluates a saved fit at new points, so that a fit written once by
//! `fit --json` answers "what loss at N, D?" without refitting. Points are given per law
//! variable (`N=7e10 D=1.4e12`), as lists for several points.

use std::path::PathBuf;

use anyhow::Result;
use scalinglaws::law::NonFinite;
use scalinglaws::uncertainty::{predict_with_intervals, FitRecord};
use scalinglaws::Law;

use crate::input;
use crate::input_error;
use crate::output::{self, Destination};
use crate::saved;
use scalinglaws::suggest::closest;
use scalinglaws_report::analyses::predict::{
    CalibrationNote, Inputs, PredictReport, Prediction, Predictions,
};
use scalinglaws_report::{export, Format};

#[derive(Debug)]
pub struct Config {
    pub fit: PathBuf,
    /// The values of each variable given (`N=7e10`, `D=1e12,2e12`), in the order given.
    pub points: Vec<(String, Vec<f64>)>,
    pub level: f64,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let (result, law) = saved::fit(&config.fit)?;
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
    let predictions = Predictions {
        level: config.level,
        intervals: source,
        calibration: result.calibration.as_ref().map(CalibrationNote::of),
        predictions,
    };
    let report = PredictReport {
        predictions: &predictions,
        result: &result,
        variables: &law.variables,
    };
    match &config.json {
        Some(destination) => output::write(destination, &export(&report, Format::Json)?),
        None => output::print_report(&report),
    }
}

/// Why there is no number to print at `point`: a value beyond the largest double is not an
/// undefined law, and a formula that overflows on the way to a moderate value needs rewriting.
fn not_finite_message(result: &FitRecord, law: &Law, point: &[f64]) -> String {
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

/// One list of values per law variable (length 1 or the common length), in the law's order.
fn parse_points(
    result: &FitRecord,
    law: &Law,
    arguments: &[(String, Vec<f64>)],
) -> Result<Vec<Vec<f64>>> {
    let variables = &law.variables;
    let positive = law.positive_variables();
    let mut given: Vec<Option<Vec<f64>>> = vec![None; variables.len()];
    for (name, values) in arguments {
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
        if positive.contains(&name.as_str()) {
            if let Some(value) = values.iter().find(|v| **v <= 0.0) {
                return Err(input_error(format!(
                    "'{name}={value}': {name} must be positive: {}",
                    input::why_positive(law, name)
                )));
            }
        }
        given[index] = Some(values.clone());
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
fn describe_variables(result: &FitRecord, variables: &[String]) -> String {
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
