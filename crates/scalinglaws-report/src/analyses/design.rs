//! The report of `design`: what the batch was chosen from and within which limits, the runs to
//! launch (each with the goals' expected widths once it is added), every goal's width now and
//! after the batch (expected, and measured by simulated refits), a planned campaign's rounds,
//! and the design's notes, with a warning line per caveat of the fit of the runs so far; and
//! the runs to launch as CSV.

use scalinglaws::error::Wording;
use std::fmt::Write as _;

use scalinglaws::analysis::design::DesignResult;
use scalinglaws::error::short_number;
use scalinglaws::workflow::design::DesignDocument;

use crate::text::{columns, csv_line, level_percent, number};

impl crate::Report for DesignDocument {
    type Json = DesignDocument;
    fn json_value(&self) -> &DesignDocument {
        self
    }
    fn text(&self, _wording: &dyn Wording) -> String {
        let r = &self.result;
        let mut out = header(self);
        out.push_str(&crate::caveats::lines(&r.fit_caveats, "    "));
        out.push_str(&runs(r, &self.variables));
        out.push_str(&targets(r));
        if !r.rounds.is_empty() {
            out.push_str(&campaign(r));
        }
        if !r.notes.is_empty() {
            out.push_str("\n[[Notes]]\n");
            for note in &r.notes {
                let _ = writeln!(out, "    - {note}");
            }
        }
        out
    }
}

/// A width, a value or a cost in three significant digits; "-" when there is none.
fn cell(value: Option<f64>) -> String {
    value
        .filter(|v| v.is_finite())
        .map_or("-".into(), |v| number(v, 3))
}

fn header(document: &DesignDocument) -> String {
    let r = &document.result;
    let data = match (&document.data, document.fitted_runs) {
        (Some(source), Some(runs)) => format!("{source}: {runs} runs so far"),
        _ => "no runs so far: designed from a prior (see the notes)".to_string(),
    };
    let law = document.law.clone();
    let spend = r.spend.map_or("no limit on the spend".into(), |s| {
        format!("spend {}", short_number(s))
    });
    let rows: Vec<Vec<String>> = vec![
        ("data", data),
        ("law", law),
        (
            "noise",
            format!(
                "{} (sd of a run's outcome, {} space)",
                number(r.noise, 3),
                document.space.name()
            ),
        ),
        (
            "candidates",
            format!(
                "{} runs, each costing {}",
                r.candidates, document.cost_formula
            ),
        ),
        ("limits", format!("at most {} runs, {spend}", r.max_runs)),
        (
            "chosen",
            format!("{} runs costing {} in all", r.runs.len(), number(r.cost, 3)),
        ),
        (
            "cost exponent",
            format!("{:.2} (each run's narrowing per cost^λ)", r.cost_exponent),
        ),
        ("draws", format!("{} parameter draws", r.draws)),
        (
            "widths",
            format!("of {} % intervals", level_percent(r.level)),
        ),
    ]
    .into_iter()
    .map(|(label, value)| vec![label.to_string(), value])
    .collect();
    format!("[[Design]]\n{}", columns(&rows, &[0, 1], "    "))
}

fn runs(r: &DesignResult, variables: &[String]) -> String {
    let mut out = String::from("\n[[Runs to launch]]\n");
    let mut head = vec!["#".to_string()];
    head.extend(variables.iter().cloned());
    head.push("cost".into());
    head.extend(r.targets.iter().map(|t| t.target.clone()));
    let mut rows = vec![head];
    for (k, run) in r.runs.iter().enumerate() {
        let mut row = vec![(k + 1).to_string()];
        row.extend(variables.iter().map(|v| cell(run.point.get(v).copied())));
        row.push(cell(Some(run.cost)));
        row.extend(run.widths_after.iter().map(|w| cell(Some(*w))));
        rows.push(row);
    }
    out.push_str(&columns(&rows, &[], "    "));
    out.push_str(
        "    each goal's column: its expected width once the run and the ones above it are added\n",
    );
    out
}

fn targets(r: &DesignResult) -> String {
    let mut out = String::from("\n[[Targets]]\n");
    let mut rows = vec![[
        "goal",
        "value",
        "width now (fit)",
        "width now (information)",
        "expected width after",
        "simulated width",
    ]
    .map(String::from)
    .to_vec()];
    for t in &r.targets {
        rows.push(vec![
            t.target.clone(),
            cell(Some(t.value)),
            cell(t.width_fit),
            cell(Some(t.width_now)),
            cell(Some(t.width_after)),
            cell(t.width_simulated),
        ]);
    }
    out.push_str(&columns(&rows, &[0], "    "));
    match &r.simulation {
        Some(s) => {
            let _ = writeln!(
                out,
                "    simulated: the median width of {} refits (of {}) on the runs so far and the batch's simulated outcomes",
                s.refits, s.simulations
            );
        }
        None => out.push_str("    simulated: not checked\n"),
    }
    out
}

fn campaign(r: &DesignResult) -> String {
    let mut out = String::from("\n[[Campaign]]\n");
    let mut head: Vec<String> = ["round", "runs", "cost", "total cost"]
        .map(String::from)
        .to_vec();
    for t in &r.targets {
        head.push(format!("expected {}", t.target));
        head.push(format!("refit {}", t.target));
    }
    let mut rows = vec![head];
    for round in &r.rounds {
        let mut row = vec![
            round.round.to_string(),
            round.runs.to_string(),
            cell(Some(round.cost)),
            cell(Some(round.total_cost)),
        ];
        for (expected, refit) in round.widths_expected.iter().zip(&round.widths_refit) {
            row.push(cell(Some(*expected)));
            row.push(cell(*refit));
        }
        rows.push(row);
    }
    out.push_str(&columns(&rows, &[], "    "));
    out.push_str("    each round designed on the refit after the one before, its outcomes simulated with the current estimate as the truth\n");
    out
}

/// The runs to launch as CSV: a column per law variable, the cost, then one column
/// `width_after_<goal>` per goal (the expected width once the run and the ones before it are
/// added); numbers as they round-trip.
pub fn runs_csv(document: &DesignDocument) -> String {
    let r = &document.result;
    let variables = &document.variables;
    let mut head: Vec<String> = variables.clone();
    head.push("cost".into());
    head.extend(
        r.targets
            .iter()
            .map(|t| format!("width_after_{}", t.target)),
    );
    let mut out = csv_line(&head);
    for run in &r.runs {
        let mut row: Vec<String> = variables
            .iter()
            .map(|v| run.point.get(v).map_or(String::new(), |x| short_number(*x)))
            .collect();
        row.push(short_number(run.cost));
        row.extend(run.widths_after.iter().map(|w| short_number(*w)));
        out.push_str(&csv_line(&row));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::csv_line;

    #[test]
    fn a_cell_with_a_comma_is_quoted() {
        let cells = [
            "N".to_string(),
            "width_after_loss@N=7e10,D=1.4e12".to_string(),
        ];
        assert_eq!(csv_line(&cells), "N,\"width_after_loss@N=7e10,D=1.4e12\"\n");
    }
}
