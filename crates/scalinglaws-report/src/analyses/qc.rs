//! The report of `qc`, and the QC section of a fit's report: each rule with what it flagged
//! (or why it did not run), then one line per flag whose reason is worded here from the flag's
//! values (the row, the loss, what it was compared with, the measured value and its threshold).

use std::fmt::Write as _;

use scalinglaws::data::qc::{Flag, QcReport, Rule};
use scalinglaws::error::Wording;
use scalinglaws::workflow::qc::QcResult;

use crate::text::{columns, number, shortest};

/// Flags listed in a report before the rest are counted (the JSON holds every one).
const SHOWN: usize = 40;

impl crate::Report for QcResult {
    type Json = QcResult;
    fn json_value(&self) -> &QcResult {
        self
    }
    fn text(&self, wording: &dyn Wording) -> String {
        render(self, wording)
    }
}

fn render(result: &QcResult, wording: &dyn Wording) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "[[Quality control]]");
    let _ = writeln!(out, "    data       {}", result.data);
    let _ = writeln!(
        out,
        "    loss       {} (compared in {} space)",
        result.target,
        if result.log { "log" } else { "linear" }
    );
    if let Some(law) = &result.law {
        let _ = writeln!(out, "    law        {law}");
    }
    if !result.scale.is_empty() {
        let _ = writeln!(out, "    scale      {}", result.scale.join(", "));
    }
    if !result.budget.is_empty() {
        let _ = writeln!(out, "    budget     {}", result.budget.join(", "));
    }
    if let Some(step) = &result.step {
        let warmup = result
            .warmup
            .map_or(String::new(), |w| format!(" (warm-up {})", number(w, 6)));
        let _ = writeln!(out, "    step       {step}{warmup}");
    }
    out.push_str(&section(&result.report, None, wording));
    out
}

/// The rules and the flags of a QC report; `removed` names the rows a fit left out (a fit's
/// section lists only the rules that ran: the others need settings only `qc` takes).
pub fn section(report: &QcReport, removed: Option<&[usize]>, wording: &dyn Wording) -> String {
    let mut out = String::new();
    let rows_flagged = {
        let mut rows: Vec<usize> = report.flags.iter().map(|f| f.row).collect();
        rows.sort_unstable();
        rows.dedup();
        rows.len()
    };
    let _ = writeln!(
        out,
        "    {} of {} rows flagged (modified z cutoff {}, near-duplicate tolerance {})",
        rows_flagged,
        report.rows,
        shortest(report.cutoff),
        shortest(report.duplicate_tolerance)
    );
    let mut table = vec![vec!["rule".to_string(), "flagged".to_string()]];
    for check in &report.rules {
        if removed.is_some() && check.not_checked.is_some() {
            continue;
        }
        let flagged = match &check.not_checked {
            None => check.flagged.to_string(),
            Some(why) => format!("not checked: {}", why.worded(wording)),
        };
        table.push(vec![check.rule.name().to_string(), flagged]);
    }
    out.push_str(&columns(&table, &[0, 1], "    "));
    if let Some(rows) = removed.filter(|r| !r.is_empty()) {
        let _ = writeln!(
            out,
            "    removed before the fit: {} row{} ({})",
            rows.len(),
            if rows.len() == 1 { "" } else { "s" },
            listing(rows)
        );
    }
    for flag in report.flags.iter().take(SHOWN) {
        let _ = writeln!(
            out,
            "    row {}: {}: {}",
            flag.row,
            flag.rule.name(),
            reason(flag)
        );
    }
    if report.flags.len() > SHOWN {
        let _ = writeln!(
            out,
            "    ... and {} more flags (the JSON lists every one)",
            report.flags.len() - SHOWN
        );
    }
    out
}

/// Rows as "3, 7, 12, ...", the first twenty.
fn listing(rows: &[usize]) -> String {
    let shown: Vec<String> = rows.iter().take(20).map(usize::to_string).collect();
    let more = if rows.len() > 20 { ", ..." } else { "" };
    format!("{}{more}", shown.join(", "))
}

/// Why a row was flagged, from its values.
pub fn reason(flag: &Flag) -> String {
    let value = |v: Option<f64>| v.map_or("-".to_string(), |v| number(v, 4));
    let loss = value(flag.loss);
    let threshold = flag.threshold.map_or("-".to_string(), shortest);
    let other = flag.other_row.map_or("-".to_string(), |r| r.to_string());
    match flag.rule {
        Rule::NonFinite => match (&flag.written, flag.loss) {
            (_, Some(l)) => format!("loss {} is not positive, so it has no log", number(l, 4)),
            (Some(w), None) if w.trim().is_empty() => "the loss is empty".to_string(),
            (Some(w), None) => format!("the loss '{}' is not a finite number", w.trim()),
            (None, None) => "the loss is not a finite number".to_string(),
        },
        Rule::Duplicate => format!("repeats row {other} exactly (loss {loss})"),
        Rule::NearDuplicate => format!(
            "repeats row {other} within a relative {} (tolerance {threshold})",
            value(flag.value)
        ),
        Rule::Initialisation => "step 0: the model before any update".to_string(),
        Rule::Warmup => format!(
            "step {} is before the warm-up length {}",
            value(flag.value),
            threshold
        ),
        Rule::LawOutlier => format!(
            "loss {loss} against the law's {} (modified z {}, cutoff ±{})",
            value(flag.expected),
            signed(flag.value),
            threshold
        ),
        Rule::NeighbourOutlier => format!(
            "loss {loss} against {}, the mean of the other runs at its scale (t {}, beyond ±{}: \
             as rare as the cutoff)",
            value(flag.expected),
            signed(flag.value),
            flag.threshold.map_or("-".to_string(), |t| number(t, 3))
        ),
        Rule::AboveFrontier => format!(
            "loss {loss} is {} above {}, the most its neighbours along {} allow (row {other}); \
             threshold {}",
            percent(flag.value),
            value(flag.expected),
            flag.column.as_deref().unwrap_or("its setting"),
            percent(flag.threshold)
        ),
    }
}

fn percent(value: Option<f64>) -> String {
    value.map_or("-".to_string(), |v| format!("{:.0} %", 100.0 * v))
}

fn signed(value: Option<f64>) -> String {
    value.map_or("-".to_string(), |v| format!("{v:+.1}"))
}
