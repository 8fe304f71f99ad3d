//! The report of `compare`: every track's parameters and compute-optimal allocation, and for
//! each pair the loss gap, the compute multiplier and the odds of winning at each budget.

use scalinglaws::error::{Setting, Wording};
use std::fmt::Write as _;

use scalinglaws::analysis::tracks::{Estimate, PairComparison, TrackComparison};
use scalinglaws::uncertainty::calibration::regime_name;
use scalinglaws::workflow::compare::CompareResult;

use crate::analyses::optimal::{interval, prediction_note};
use crate::text::{columns, level_percent, number};

impl crate::Report for CompareResult {
    type Json = Self;
    fn json_value(&self) -> &Self {
        self
    }
    fn text(&self, wording: &dyn Wording) -> String {
        render(self, wording)
    }
}

fn with_interval(value: f64, ci: Option<[f64; 2]>, digits: usize) -> String {
    match ci {
        Some([lo, hi]) => format!(
            "{} [{}, {}]",
            number(value, digits),
            number(lo, 3),
            number(hi, 3)
        ),
        None => number(value, digits),
    }
}

fn estimate(e: &Estimate, digits: usize) -> String {
    match e.value {
        Some(v) => with_interval(v, e.ci, digits),
        None => "never".into(),
    }
}

fn render(report: &CompareResult, wording: &dyn Wording) -> String {
    let result = &report.comparison;
    let mut out = String::new();
    let tracks: Vec<String> = result
        .tracks
        .iter()
        .map(|t| format!("{} ({} runs)", t.track, t.rows))
        .collect();
    let _ = writeln!(
        out,
        "[[Tracks]] {} law, {} tracks{}: {}",
        result.law,
        result.tracks.len(),
        report
            .track
            .as_deref()
            .map(|t| format!(" of '{t}'"))
            .unwrap_or_default(),
        tracks.join(", ")
    );
    let _ = writeln!(
        out,
        "    {}",
        if result.shared.is_empty() {
            "every track fitted separately".to_string()
        } else {
            format!("fitted jointly, shared: {}", result.shared.join(", "))
        }
    );
    out.push_str(&parameter_table(result));
    if result.tracks.iter().any(|t| !t.allocations.is_empty()) {
        out.push_str(&allocation_table(result));
    }
    for pair in &result.pairs {
        out.push_str(&render_pair(pair, result));
    }
    for note in &result.notes {
        let _ = writeln!(out, "    note: {note}");
    }
    for track in &result.tracks {
        for warning in &track.warnings {
            let _ = writeln!(out, "    warning ({}): {warning}", track.track);
        }
    }
    out.push_str(&prediction_notes(result));
    if result.bootstrap > 0 {
        let _ = writeln!(
            out,
            "    intervals: {}% percentiles over {} paired bootstrap draws (rows resampled within each track; a loss's: a confidence interval of the law's mean)",
            level_percent(result.level),
            result.draws
        );
    } else {
        let _ = writeln!(
            out,
            "    no bootstrap intervals of parameters, allocations and gaps: add {} (parameters show their standard errors in --json)",
            wording.word(&Setting::Bootstrap.number("K"))
        );
    }
    out
}

fn parameter_table(result: &TrackComparison) -> String {
    let mut header = vec!["parameter".to_string()];
    header.extend(result.tracks.iter().map(|t| t.track.clone()));
    let mut rows = vec![header];
    for (p, name) in result.tracks[0].params.iter().map(|p| &p.name).enumerate() {
        let mut row = vec![if result.tracks[0].params[p].shared {
            format!("{name} (shared)")
        } else {
            name.clone()
        }];
        row.extend(result.tracks.iter().map(|t| {
            let param = &t.params[p];
            with_interval(param.value, param.ci, 4)
        }));
        rows.push(row);
    }
    let mut out = String::from("  parameters\n");
    out.push_str(&columns(&rows, &[], "    "));
    out
}

/// What each track's "loss pi" is: one note when every track's reads the same, else one per
/// track.
fn prediction_notes(result: &TrackComparison) -> String {
    let notes: Vec<(&str, String)> = result
        .tracks
        .iter()
        .filter_map(|t| {
            let note = t.prediction_intervals.as_ref()?;
            Some((
                t.track.as_str(),
                prediction_note(note, "the track's (N*, D*)"),
            ))
        })
        .collect();
    let same = notes.windows(2).all(|w| w[0].1 == w[1].1);
    if same {
        return notes.first().map_or(String::new(), |(_, n)| n.clone());
    }
    notes
        .iter()
        .map(|(track, note)| note.replacen("    loss pi:", &format!("    loss pi ({track}):"), 1))
        .collect()
}

fn allocation_table(result: &TrackComparison) -> String {
    let with_pi = result
        .tracks
        .iter()
        .flat_map(|t| &t.allocations)
        .any(|a| a.pi.is_some());
    let calibrated = result
        .tracks
        .iter()
        .flat_map(|t| &t.allocations)
        .any(|a| a.calibrated);
    let mut header: Vec<String> = ["budget C", "track", "N*", "D*", "D*/N*", "loss"]
        .map(String::from)
        .to_vec();
    if with_pi {
        header.push("loss pi".into());
    }
    if calibrated {
        header.extend(["decades out".into(), "regime".into(), "fit's pi".into()]);
    }
    let mut rows = vec![header];
    for (i, budget) in result.tracks[0]
        .allocations
        .iter()
        .map(|a| a.budget)
        .enumerate()
    {
        for track in &result.tracks {
            let a = &track.allocations[i];
            let ci = |name: &str| a.ci.get(name).copied();
            let mut row = vec![
                number(budget, 3),
                track.track.clone(),
                with_interval(a.n, ci("N"), 4),
                with_interval(a.d, ci("D"), 4),
                with_interval(a.tokens_per_param, ci("tokens_per_param"), 4),
                with_interval(a.loss, ci("loss"), 5),
            ];
            if with_pi {
                row.push(interval(a.pi));
            }
            if calibrated {
                row.push(a.distance_decades.map_or("-".into(), |d| number(d, 3)));
                row.push(a.regime.map_or("-", regime_name).to_string());
                row.push(interval(a.pi_fit));
            }
            rows.push(row);
        }
    }
    let mut out = String::from("  compute-optimal allocation\n");
    out.push_str(&columns(&rows, &[1], "    "));
    out
}

fn render_pair(pair: &PairComparison, result: &TrackComparison) -> String {
    let (a, b) = (&pair.baseline, &pair.track);
    let mut out = format!("  {b} against {a}\n");
    if !pair.differences.is_empty() {
        let rows: Vec<Vec<String>> =
            std::iter::once(vec!["parameter".to_string(), format!("{b} − {a}")])
                .chain(
                    pair.differences
                        .iter()
                        .map(|(name, e)| vec![name.clone(), estimate(e, 4)]),
                )
                .collect();
        out.push_str(&columns(&rows, &[], "    "));
    }
    if !pair.budgets.is_empty() {
        let mut rows = vec![vec![
            "budget C".to_string(),
            format!("loss gap ({b} − {a})"),
            format!("{a} needs ×"),
            format!("{b} needs ×"),
            format!("P({b} better)"),
        ]];
        for at in &pair.budgets {
            rows.push(vec![
                number(at.budget, 3),
                estimate(&at.gap, 4),
                estimate(&at.multiplier, 4),
                estimate(&at.track_needs, 4),
                at.p_track_better
                    .map_or("-".into(), |p| format!("{:.3}", p)),
            ]);
        }
        out.push_str(&columns(&rows, &[], "    "));
        let largest = pair
            .budgets
            .iter()
            .max_by(|a, b| a.budget.total_cmp(&b.budget));
        if let Some(at) = largest {
            out.push_str(&sentence(pair, at, result));
        }
        let _ = writeln!(
            out,
            "    {}",
            match pair.crossover {
                Some(c) => format!("the compute-optimal losses cross at C = {}", number(c, 3)),
                None =>
                    "the compute-optimal losses do not cross between 1e15 and 1e30 FLOPs".into(),
            }
        );
    }
    let cells = &pair.cells;
    let _ = writeln!(
        out,
        "    paired cells: {b} wins {} of {} cells run in both tracks ({a} {}, ties {})",
        cells.track_wins, cells.shared, cells.baseline_wins, cells.ties
    );
    out
}

/// The sentence a reader acts on, at the largest budget.
fn sentence(
    pair: &PairComparison,
    at: &scalinglaws::analysis::tracks::BudgetComparison,
    result: &TrackComparison,
) -> String {
    let (a, b) = (&pair.baseline, &pair.track);
    let Some(needs) = at.track_needs.value else {
        return format!(
            "    at {} FLOPs {b} never reaches {a}'s loss\n",
            number(at.budget, 3)
        );
    };
    let interval = at.track_needs.ci.map_or(String::new(), |[lo, hi]| {
        format!(" [{}, {}]", number(lo, 3), number(hi, 3))
    });
    let odds = at.p_track_better.map_or(String::new(), |p| {
        format!(
            "; {b} has the lower loss in {:.0}% of {} draws",
            100.0 * p,
            result.draws
        )
    });
    format!(
        "    at {} FLOPs {b} needs {}×{interval} the compute of {a} to reach {a}'s loss{odds}\n",
        number(at.budget, 3),
        number(needs, 3)
    )
}
