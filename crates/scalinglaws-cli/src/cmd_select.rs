//! `scalinglaws select`: scores candidate laws by rolling-origin backtests over scale, names
//! the winner, stacks them, and predicts at new points from the winner and from the stacked
//! average, with intervals that hold the spread between laws (`analysis::selection`). With
//! `--check`, the whole procedure is checked by nested rolling origins.

use std::fmt::Write as _;

use anyhow::{Context, Result};
use scalinglaws::analysis::selection::{
    evaluate, points_by_name, select, value_at, Evaluation, HeldOutScore, SelectedPrediction,
    Selection, SelectionOptions,
};
use serde::Serialize;

use crate::cmd_compare_laws::{build_candidates, LawSpec};
use crate::config::{split_name, SettingsJob};
use crate::input::{self, Recipe};
use crate::input_error;
use crate::output::{self, Destination};
use scalinglaws_report::text::{columns, level_percent, number};

#[derive(Debug)]
pub struct Config {
    pub recipe: Recipe,
    pub laws: Vec<LawSpec>,
    pub settings: SettingsJob,
    pub by: Option<String>,
    pub origins: usize,
    pub level: f64,
    pub calibrate: bool,
    /// `VAR=VALUE[,VALUE...]` for each variable of the candidates.
    pub at: Vec<String>,
    pub check: bool,
    pub json: Option<Destination>,
}

#[derive(Serialize)]
struct Output<'a> {
    selection: &'a Selection,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    predictions: Vec<PointOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    check: Option<Evaluation>,
}

#[derive(Serialize)]
struct PointOut {
    inputs: Vec<(String, f64)>,
    #[serde(flatten)]
    prediction: SelectedPrediction,
}

pub fn run(config: &Config) -> Result<()> {
    let table = input::load(&config.recipe)?;
    let candidates = build_candidates(&table, &config.recipe, &config.laws, &config.settings)?;
    let first = &candidates[0];
    let (by, scale) = table.scale(&first.law, &first.data, config.by.as_deref(), "--by")?;
    let options = SelectionOptions {
        level: config.level,
        origins: config.origins,
        calibrate: config.calibrate,
    };
    // Points are checked before any fit, so that a typo costs nothing.
    let at = parse_points(&config.at)?;
    let points = if at.is_empty() {
        Vec::new()
    } else {
        points_by_name(&candidates, &at)?
    };
    let selection = select(&candidates, &by, &scale, &options)?;
    let predictions = if at.is_empty() {
        Vec::new()
    } else {
        selection
            .predict(&points)?
            .into_iter()
            .enumerate()
            .map(|(i, prediction)| PointOut {
                inputs: at
                    .iter()
                    .map(|(n, c)| (n.clone(), value_at(c, i)))
                    .collect(),
                prediction,
            })
            .collect()
    };
    let check = if config.check {
        Some(evaluate(&candidates, &by, &scale, &options)?)
    } else {
        None
    };
    let out = Output {
        selection: &selection,
        predictions,
        check,
    };
    let text = render(&out);
    output::emit(
        config.json.as_ref(),
        || Ok(serde_json::to_string_pretty(&out)?),
        &text,
    )
}

/// The `--at` values by variable name (checked against the laws by the library).
fn parse_points(at: &[String]) -> Result<Vec<(String, Vec<f64>)>> {
    let mut points: Vec<(String, Vec<f64>)> = Vec::new();
    for argument in at {
        let (name, list) = split_name("--at", argument, "VAR=VALUE, e.g. N=7e10")?;
        if points.iter().any(|(n, _)| n == name) {
            return Err(input_error(format!("--at: '{name}' is given twice")));
        }
        let values =
            input::constant_list(argument, list).with_context(|| format!("--at '{argument}'"))?;
        points.push((name.to_string(), values));
    }
    Ok(points)
}

fn optional(value: Option<f64>, digits: usize) -> String {
    value.map_or("-".into(), |v| number(v, digits))
}

fn render(out: &Output) -> String {
    let selection = out.selection;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "[[Laws]] ({} rows; rolling origins by '{}' at {} of {} scale groups; {} held-out runs in {} (origin, scale group) units)",
        selection.rows,
        selection.by,
        selection
            .origins
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        selection.scale_groups,
        selection.held_out,
        selection.units
    );
    let mut rows: Vec<Vec<String>> = vec![[
        "law",
        "free",
        "score",
        "RMSE",
        "ARE",
        "BIC",
        "tied",
        "weight",
        "pi beyond data",
    ]
    .map(String::from)
    .to_vec()];
    for (index, c) in selection.candidates.iter().enumerate() {
        let mut label = format!("#{} {}", index + 1, c.label);
        if c.label == selection.winner {
            label.push_str(" *");
        }
        rows.push(vec![
            label,
            c.free_params.to_string(),
            optional(c.score, 4),
            optional(c.rmse, 4),
            c.are_mean
                .map_or("-".into(), |a| format!("{}%", number(a * 100.0, 3))),
            optional(c.bic, 6),
            if c.tied_with_best { "yes" } else { "" }.into(),
            number(c.weight, 3),
            if c.calibrated {
                "calibrated"
            } else {
                "fit's own"
            }
            .into(),
        ]);
    }
    text.push_str(&columns(&rows, &[0], "    "));
    let best = selection
        .candidates
        .iter()
        .find(|c| c.label == selection.best);
    let _ = writeln!(
        text,
        "    score: mean |held-out error| in the fitted space, one unit per (origin, scale group); lowest: {} ({} ± {})",
        selection.best,
        optional(best.and_then(|b| b.score), 4),
        optional(best.and_then(|b| b.score_se), 2)
    );
    let _ = writeln!(
        text,
        "    * winner: the lowest BIC among the laws tied with the best (within one standard error); weight: stacking on the simplex"
    );
    for c in selection.candidates.iter().filter(|c| c.error.is_some()) {
        let _ = writeln!(
            text,
            "    {}: {}",
            c.label,
            c.error.as_deref().unwrap_or("")
        );
    }
    render_predictions(&mut text, out);
    if let Some(check) = &out.check {
        render_check(&mut text, check);
    }
    text
}

fn interval(pi: Option<[f64; 2]>) -> [String; 2] {
    pi.map_or(["-".into(), "-".into()], |[lo, hi]| {
        [number(lo, 6), number(hi, 6)]
    })
}

fn render_predictions(text: &mut String, out: &Output) {
    let Some(first) = out.predictions.first() else {
        return;
    };
    let _ = writeln!(
        text,
        "[[Predictions]] ({}% prediction intervals; average: mixture of the weighted laws' predictive normals)",
        level_percent(out.selection.level)
    );
    let mut header: Vec<String> = first.inputs.iter().map(|(n, _)| n.clone()).collect();
    header.extend(
        [
            "average",
            "pi low",
            "pi high",
            "between-law sd",
            "winner",
            "pi low",
            "pi high",
        ]
        .map(String::from),
    );
    let mut rows = vec![header];
    for p in &out.predictions {
        let mut row: Vec<String> = p.inputs.iter().map(|(_, v)| format!("{v:e}")).collect();
        let [lo, hi] = interval(p.prediction.pi);
        let [wlo, whi] = interval(p.prediction.winner.prediction.pi);
        row.extend([
            number(p.prediction.value, 6),
            lo,
            hi,
            number(p.prediction.between_sd, 3),
            number(p.prediction.winner.prediction.value, 6),
            wlo,
            whi,
        ]);
        rows.push(row);
    }
    text.push_str(&columns(&rows, &[], "    "));
    let calibrated = out.predictions.iter().all(|p| p.prediction.calibrated);
    let _ = writeln!(
        text,
        "    intervals beyond the data: {}",
        if calibrated {
            "calibrated by each law's rolling-origin backtests"
        } else {
            "not all calibrated (a weighted law's intervals are its fit's own; its calibration_reason in the JSON says why)"
        }
    );
}

fn render_check(text: &mut String, check: &Evaluation) {
    let ran = check.splits.iter().filter(|s| s.error.is_none()).count();
    let _ = writeln!(
        text,
        "[[Check]] (nested rolling origins: {ran} of {} outer splits selected, weighted and calibrated on their own training runs)",
        check.splits.len()
    );
    let mut rows: Vec<Vec<String>> = vec![[
        "predicting with",
        "runs",
        "units",
        "ARE",
        "RMSE",
        "pi coverage",
        "pi width",
    ]
    .map(String::from)
    .to_vec()];
    let all: Vec<&HeldOutScore> = check
        .candidates
        .iter()
        .chain([&check.winner, &check.average])
        .collect();
    for s in all {
        rows.push(vec![
            s.label.clone(),
            s.points.to_string(),
            s.units.to_string(),
            s.are_mean
                .map_or("-".into(), |a| format!("{}%", number(a * 100.0, 3))),
            optional(s.rmse, 4),
            s.pi_coverage
                .map_or("-".into(), |c| format!("{}%", number(c * 100.0, 3))),
            s.pi_width
                .map_or("-".into(), |w| format!("{}%", number(w * 100.0, 3))),
        ]);
    }
    text.push_str(&columns(&rows, &[0], "    "));
    for split in check.splits.iter().filter(|s| s.error.is_some()) {
        let _ = writeln!(
            text,
            "    split at {} groups: {}",
            split.trained_groups,
            split.error.as_deref().unwrap_or("")
        );
    }
}
