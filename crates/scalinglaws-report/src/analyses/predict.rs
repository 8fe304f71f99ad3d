//! The report of `predict`: a saved fit evaluated at new points, with confidence and
//! prediction intervals, the note that says where the intervals come from and how they are
//! calibrated beyond the data, and a warning line per caveat of the fit. Everything it says is
//! in the workflow's document (`scalinglaws::workflow::predict`); this file words it.

use scalinglaws::error::Wording;
use scalinglaws::uncertainty::calibration::regime_name;
use scalinglaws::uncertainty::IntervalSource;
use scalinglaws::workflow::predict::{
    Dispersion, IntervalBasis, NewRunSpread, Prediction, Predictions,
};

use crate::caveats;
use crate::text::{columns, level_percent, number};

impl crate::Report for Predictions {
    type Json = Predictions;
    fn json_value(&self) -> &Predictions {
        self
    }
    fn text(&self, _wording: &dyn Wording) -> String {
        let rows = rows(&self.variables, &self.target, &self.predictions);
        let mut text = columns(&rows, &[], "");
        text.push_str(&interval_note(self));
        text.push_str(&caveats::lines(&self.fit_caveats, ""));
        text
    }
    fn markdown(&self, _wording: &dyn Wording) -> String {
        let rows = rows(&self.variables, &self.target, &self.predictions);
        let mut text = crate::markdown::table(&rows, &[]);
        text.push('\n');
        let mut note = interval_note(self);
        note.push_str(&caveats::lines(&self.fit_caveats, ""));
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
fn interval_note(p: &Predictions) -> String {
    let mut note = fit_interval_note(&p.basis, p.intervals, p.level);
    if let Some(c) = &p.calibration {
        note.push_str(&format!("pi beyond the data: {}\n", c.description));
        if c.calibrated {
            note.push_str(
                "  (confidence intervals of the mean are not calibrated; the fit's own pi is shown beside)\n",
            );
        }
    }
    note
}

/// What a new run's interval adds to the law's mean: the residual σ (one value, or σ(x) of a
/// heteroscedastic fit, and a sweep's choice sd), or a count or proportion family's own
/// distribution at the fit's trials or exposure.
fn new_run(spread: &NewRunSpread) -> String {
    match spread {
        NewRunSpread::Residual {
            sd,
            varying,
            choice_sd,
        } => {
            let sigma = match varying {
                Some(v) => format!(
                    "{}·({}/{})^{}",
                    number(v.sd, 3),
                    v.by,
                    number(v.x0, 3),
                    number(v.s, 3)
                ),
                None => sd.map_or("-".into(), |s| number(s, 3)),
            };
            match choice_sd {
                Some(choice) => format!(
                    "adds residual σ {sigma} and the sweep's choice sd {}",
                    number(*choice, 3)
                ),
                None => format!("adds residual σ {sigma}"),
            }
        }
        NewRunSpread::Family {
            family,
            size_of,
            size,
            dispersion,
        } => match size {
            None => format!("none: the rows' {size_of} differ, so a new run's is not known"),
            Some(size) => format!(
                "the {family} distribution at {size_of} {}{}",
                number(*size, 3),
                dispersion.as_ref().map_or(String::new(), dispersion_note)
            ),
        },
    }
}

/// ", alpha 0.12 (Cox-Reid adjusted)" or ", alpha 0.1 (held)".
fn dispersion_note(d: &Dispersion) -> String {
    let how = if d.adjusted {
        "Cox-Reid adjusted"
    } else {
        "held"
    };
    format!(", {} {} ({how})", d.name, number(d.value, 3))
}

fn fit_interval_note(basis: &IntervalBasis, source: IntervalSource, level: f64) -> String {
    let level = level_percent(level);
    match (source, basis.replicates) {
        (IntervalSource::Bootstrap, Some(replicates)) => format!(
            "intervals: {level}% from {replicates} bootstrap replicates; ci = the law's mean, pi = a new run ({})\n",
            new_run(&basis.new_run)
        ),
        (IntervalSource::Delta, _) => format!(
            "intervals: {level}% by the delta method ({} covariance); ci = the law's mean, pi = a new run ({})\n",
            basis.covariance,
            new_run(&basis.new_run)
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
