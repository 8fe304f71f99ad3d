//! The report of `select`: every candidate law's rolling-origin score, the winner, the
//! stacking weights, predictions whose intervals hold the spread between laws, and the check
//! of the procedure by nested rolling origins.

use scalinglaws::error::Wording;
use std::fmt::Write as _;

use scalinglaws::analysis::selection::{Evaluation, HeldOutScore, Selection};

use crate::text::{columns, level_percent, number};

/// The document `select --json` writes (the library's, so Python reads the same).
pub use scalinglaws::workflow::select::{PointOut, SelectResult as Output};

impl crate::Report for Output {
    type Json = Self;
    fn json_value(&self) -> &Self {
        self
    }
    fn text(&self, wording: &dyn Wording) -> String {
        render(self, wording)
    }
}

fn optional(value: Option<f64>, digits: usize) -> String {
    value.map_or("-".into(), |v| number(v, digits))
}

pub fn render(out: &Output, wording: &dyn Wording) -> String {
    let selection = &out.selection;
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
    text.push_str(&columns(&candidate_rows(selection), &[0], "    "));
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
            c.error
                .as_ref()
                .map(|e| e.worded(wording))
                .unwrap_or_default()
        );
    }
    render_predictions(&mut text, out);
    if let Some(check) = &out.check {
        render_check(&mut text, check, wording);
    }
    text
}

/// The table of candidates: header, then one row per law (the winner starred).
fn candidate_rows(selection: &Selection) -> Vec<Vec<String>> {
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
    rows
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
            "each law's form error added, the cross-study prior updated by its rolling-origin backtests"
        } else {
            "not all calibrated (a weighted law's intervals are its fit's own; its calibration_reason in the JSON says why)"
        }
    );
}

fn render_check(text: &mut String, check: &Evaluation, wording: &dyn Wording) {
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
            split
                .error
                .as_ref()
                .map(|e| e.worded(wording))
                .unwrap_or_default()
        );
    }
}
