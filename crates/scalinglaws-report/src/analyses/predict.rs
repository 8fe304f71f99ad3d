//! The report of `predict`: a saved fit evaluated at new points, with confidence and
//! prediction intervals, the note that says where the intervals come from and how they are
//! calibrated beyond the data, and a warning line per caveat of the fit. The predictions
//! themselves are the library's (`scalinglaws::job::predict`); this file renders them.

use scalinglaws::error::Wording;
use scalinglaws::job::predict::{Prediction, Predictions};
use scalinglaws::uncertainty::calibration::regime_name;
use scalinglaws::uncertainty::{FitRecord, IntervalSource};

use crate::caveats;
use crate::text::{columns, level_percent, number};

/// Predictions with the fit they come from and the law's variables.
pub struct PredictReport<'a> {
    pub predictions: &'a Predictions,
    pub result: &'a FitRecord,
    pub variables: &'a [String],
}

impl<'a> crate::Report for PredictReport<'a> {
    type Json = Predictions;
    fn json_value(&self) -> &Predictions {
        self.predictions
    }
    fn text(&self, _wording: &dyn Wording) -> String {
        let p = self.predictions;
        let rows = rows(self.variables, &self.result.target, &p.predictions);
        let mut text = columns(&rows, &[], "");
        text.push_str(&interval_note(self.result, p.intervals, p.level));
        text.push_str(&caveats::lines(&p.fit_caveats, ""));
        text
    }
    fn markdown(&self, _wording: &dyn Wording) -> String {
        let p = self.predictions;
        let rows = rows(self.variables, &self.result.target, &p.predictions);
        let mut text = crate::markdown::table(&rows, &[]);
        text.push('\n');
        let mut note = interval_note(self.result, p.intervals, p.level);
        note.push_str(&caveats::lines(&p.fit_caveats, ""));
        text.push_str(&crate::markdown::fenced(&note));
        text.trim_end().to_string() + "\n"
    }
}

fn rows(variables: &[String], target: &str, predictions: &[Prediction]) -> Vec<Vec<String>> {
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
        header.extend(["decades out", "regime", "fit's pi low", "fit's pi high"].map(String::from));
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
            row.push(prediction.regime.map_or("-", regime_name).to_string());
            row.extend(ends(prediction.pi_fit));
        }
        rows.push(row);
    }
    rows
}

/// Says what the intervals are and where they come from.
fn interval_note(result: &FitRecord, source: IntervalSource, level: f64) -> String {
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
fn residual_sd(result: &FitRecord) -> String {
    let sigma = match &result.variance {
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
    };
    match result.sweep.as_ref().and_then(|s| s.choice_sd) {
        Some(choice) => format!("{sigma} and the sweep's choice sd {}", number(choice, 3)),
        None => sigma,
    }
}

/// What a new run's interval adds to the law's mean: the residual σ, or a count or proportion
/// family's own distribution at the fit's trials or exposure.
fn new_run(result: &FitRecord) -> String {
    let Some(family) = result.settings.family.filter(|f| !f.kind.location_scale()) else {
        return format!("adds residual σ {}", residual_sd(result));
    };
    let fitted = result.family.as_ref();
    let size_name = if family.kind.proportions() {
        "trials"
    } else {
        "exposure"
    };
    let Some(size) = fitted.and_then(|f| f.size) else {
        return format!("none: the rows' {size_name} differ, so a new run's is not known");
    };
    let dispersion = match (
        fitted.and_then(|f| f.adjusted_dispersion),
        family.dispersion,
    ) {
        (Some((value, _)), _) => format!(
            ", {} {} (Cox-Reid adjusted)",
            family.kind.dispersion_name().unwrap_or("dispersion"),
            number(value, 3)
        ),
        (None, Some(value)) => format!(
            ", {} {} (held)",
            family.kind.dispersion_name().unwrap_or("dispersion"),
            number(value, 3)
        ),
        (None, None) => String::new(),
    };
    format!(
        "the {} distribution at {size_name} {}{dispersion}",
        family.kind.name(),
        number(size, 3)
    )
}

fn fit_interval_note(result: &FitRecord, source: IntervalSource, level: f64) -> String {
    let level = level_percent(level);
    match (source, &result.bootstrap) {
        (IntervalSource::Bootstrap, Some(b)) => format!(
            "intervals: {level}% from {} bootstrap replicates; ci = the law's mean, pi = a new run ({})\n",
            b.draws.len(),
            new_run(result)
        ),
        (IntervalSource::Delta, _) => format!(
            "intervals: {level}% by the delta method ({} covariance); ci = the law's mean, pi = a new run ({})\n",
            result.covariance_kind,
            new_run(result)
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
