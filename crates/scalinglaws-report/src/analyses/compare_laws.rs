//! The report of `compare-laws`: the laws side by side (objective, likelihood, AIC/BIC,
//! backtest error) and the likelihood-ratio tests between nested laws.

use scalinglaws::error::Wording;
use std::fmt::Write as _;

use scalinglaws::analysis::law_comparison::Comparison;
use scalinglaws::workflow::compare_laws::CompareLawsResult;

use crate::text::{columns, level_percent, number};

impl crate::Report for CompareLawsResult {
    type Json = CompareLawsResult;
    fn json_value(&self) -> &CompareLawsResult {
        self
    }
    fn text(&self, wording: &dyn Wording) -> String {
        render(self, wording)
    }
}

/// Labels longer than this are shortened in tables and spelled out below them.
const LABEL_WIDTH: usize = 40;

/// "#2 chinchilla[E=exp(0.52…" for a long label, the label itself for a short one.
fn short_label(index: usize, label: &str) -> String {
    if label.chars().count() <= LABEL_WIDTH {
        return format!("#{} {label}", index + 1);
    }
    let kept: String = label.chars().take(LABEL_WIDTH - 1).collect();
    format!("#{} {kept}…", index + 1)
}

fn render(report: &CompareLawsResult, wording: &dyn Wording) -> String {
    let mut out = String::new();
    laws_section(&mut out, report, wording);
    tests_section(&mut out, &report.comparison);
    out
}

/// The table of laws with their scores, the labels too long for it and the failures.
fn laws_section(out: &mut String, report: &CompareLawsResult, wording: &dyn Wording) {
    let comparison = &report.comparison;
    let _ = writeln!(
        out,
        "[[Laws]] ({} rows; ℓ under each loss's error density, maximised over parameters and scale)",
        comparison.rows
    );
    let mut rows: Vec<Vec<String>> = vec![[
        "law",
        "free",
        "objective",
        "log-lik.",
        "AIC",
        "BIC",
        "backtest ARE",
        "PI coverage",
    ]
    .map(String::from)
    .to_vec()];
    let best_aic = comparison
        .laws
        .iter()
        .filter_map(|l| l.aic)
        .fold(f64::INFINITY, f64::min);
    for (index, law) in comparison.laws.iter().enumerate() {
        let optional =
            |v: Option<f64>, digits: usize| v.map_or("-".to_string(), |v| number(v, digits));
        let mut label = short_label(index, &law.label);
        if law.aic == Some(best_aic) {
            label.push_str(" *");
        }
        rows.push(vec![
            label,
            law.free_params.to_string(),
            optional(law.objective, 6),
            optional(law.log_likelihood, 6),
            optional(law.aic, 6),
            optional(law.bic, 6),
            law.backtest.as_ref().map_or("-".into(), |m| {
                format!("{}%", number(m.are_mean * 100.0, 3))
            }),
            law.backtest
                .as_ref()
                .and_then(|m| m.pi_coverage)
                .map_or("-".into(), |c| format!("{}%", number(c * 100.0, 3))),
        ]);
    }
    table(out, &rows);
    let _ = writeln!(out, "    * lowest AIC");
    for (index, law) in comparison.laws.iter().enumerate() {
        if law.label.chars().count() > LABEL_WIDTH {
            let _ = writeln!(out, "    #{} = {}", index + 1, law.label);
        }
    }
    if let Some(holdout) = &comparison.backtest_holdout {
        let _ = writeln!(
            out,
            "    backtest: {holdout} by '{}' held out, {}% prediction intervals",
            report.by.as_deref().unwrap_or("-"),
            level_percent(report.level)
        );
    }
    for law in comparison.laws.iter().filter(|l| l.error.is_some()) {
        let _ = writeln!(
            out,
            "    {}: {}",
            law.label,
            law.error
                .as_ref()
                .map(|e| e.worded(wording))
                .unwrap_or_default()
        );
    }
}

/// The likelihood-ratio tests between nested laws, or why there are none.
fn tests_section(out: &mut String, comparison: &Comparison) {
    let index_of = |label: &str| {
        comparison
            .laws
            .iter()
            .position(|l| l.label == label)
            .unwrap_or(0)
    };
    if comparison.tests.is_empty() {
        let why = if comparison.laws.iter().all(|l| l.log_likelihood.is_none()) {
            "the loss defines no likelihood (use --loss huber or linear)"
        } else {
            "no law nests another"
        };
        let _ = writeln!(out, "[[Likelihood-ratio tests]] none: {why}");
        return;
    }
    let _ = writeln!(
        out,
        "[[Likelihood-ratio tests]] (λ = 2(ℓ_general − ℓ_restricted) ~ χ²(df))"
    );
    let mut rows: Vec<Vec<String>> = vec![["restricted", "general", "df", "λ", "p-value", "note"]
        .map(String::from)
        .to_vec()];
    for test in &comparison.tests {
        let note = if test.on_boundary {
            "restriction on a bound: χ² only approximate"
        } else {
            ""
        };
        rows.push(vec![
            short_label(index_of(&test.restricted), &test.restricted),
            short_label(index_of(&test.general), &test.general),
            test.df.to_string(),
            number(test.statistic, 4),
            format!("{:.3e}", test.p_value),
            note.to_string(),
        ]);
    }
    table(out, &rows);
}

fn table(out: &mut String, rows: &[Vec<String>]) {
    out.push_str(&columns(rows, &[0], "    "));
}
