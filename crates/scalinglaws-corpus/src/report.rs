//! The leave-one-study-out tables, as markdown: one row per study, one per distance band, and
//! the pooled rows.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::corpus::{Cut, Unit};
use crate::loso::{leave_one_study_out, summarize, Folds, Scored, Summary, BANDS, CHECK_CUTS};

fn row(label: &str, s: &Summary) -> String {
    format!(
        "| {label} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |\n",
        s.units, s.runs, s.coverage, s.coverage_today, s.width, s.width_today, s.width_oracle
    )
}

const HEADER: &str = "| {first} | units | runs | coverage | today's | width | today's width | oracle width |\n|---|---:|---:|---:|---:|---:|---:|---:|\n";

/// The per-study table and the pooled rows: `pooled over studies` is the mean of the studies'
/// coverages (each study once), `pooled over units` the mean over every unit.
pub fn by_study(runs: &[Scored]) -> (String, f64, f64, f64) {
    let mut out = HEADER.replace("{first}", "study");
    let studies: BTreeSet<&str> = runs.iter().map(|r| r.study.as_str()).collect();
    let mut coverages = Vec::new();
    for study in &studies {
        let mine: Vec<&Scored> = runs.iter().filter(|r| r.study == *study).collect();
        if let Some(s) = summarize(&mine) {
            coverages.push(s.coverage);
            out.push_str(&row(study, &s));
        }
    }
    let all: Vec<&Scored> = runs.iter().collect();
    let pooled_units = summarize(&all).map_or(f64::NAN, |s| s.coverage);
    let over_studies = coverages.iter().sum::<f64>() / coverages.len().max(1) as f64;
    let lowest = coverages.iter().copied().fold(f64::INFINITY, f64::min);
    if let Some(s) = summarize(&all) {
        out.push_str(&row("**pooled over units**", &s));
    }
    let _ = writeln!(
        out,
        "\npooled over studies (each study once): {over_studies:.3}; lowest study: {lowest:.3}"
    );
    (out, over_studies, pooled_units, lowest)
}

/// Coverage and widths by distance beyond the data, pooled over studies' runs.
pub fn by_distance(runs: &[Scored]) -> String {
    let mut out = HEADER.replace("{first}", "decades beyond");
    for ((lo, hi), s) in bands(runs) {
        out.push_str(&row(&format!("{lo}–{hi}"), &s));
    }
    out
}

/// Each distance band of [`BANDS`] that holds runs, with their summary.
fn bands(runs: &[Scored]) -> Vec<((f64, f64), Summary)> {
    BANDS
        .into_iter()
        .filter_map(|(lo, hi)| {
            let band: Vec<&Scored> = runs
                .iter()
                .filter(|r| r.distance > lo && r.distance <= hi)
                .collect();
            summarize(&band).map(|s| ((lo, hi), s))
        })
        .collect()
}

/// What the leave-one-study-out check measured: the pooled coverages and the lowest study's.
#[derive(Debug, Clone, Copy)]
pub struct Pooled {
    pub over_studies: f64,
    pub over_units: f64,
    pub lowest_study: f64,
}

/// The leave-one-study-out check at `cuts`: its tables, pooled figures and scored runs.
pub fn check(
    units: &[Unit],
    folds: &Folds,
    cuts: &[Cut],
    weight: Option<f64>,
) -> (String, Pooled, Vec<Scored>) {
    let runs = leave_one_study_out(units, cuts, folds, weight);
    let (table, over_studies, over_units, lowest_study) = by_study(&runs);
    let text = format!("{table}\n{}", by_distance(&runs));
    let pooled = Pooled {
        over_studies,
        over_units,
        lowest_study,
    };
    (text, pooled, runs)
}

/// The figures the README states, in its words: coverages in percent, widths over the oracle's.
fn summary(pooled: &Pooled, runs: &[Scored], few: &Pooled, few_runs: &[Scored]) -> String {
    let percent = |x: f64| format!("{:.1} %", 100.0 * x);
    let mut bands = Vec::new();
    let mut ratios = Vec::new();
    for ((lo, hi), s) in self::bands(runs) {
        bands.push(format!("{} at {lo}–{hi} decades", percent(s.coverage)));
        ratios.push(s.width / s.width_oracle);
    }
    let all: Vec<&Scored> = runs.iter().collect();
    let pooled_ratio = summarize(&all).map_or(f64::NAN, |s| s.width / s.width_oracle);
    let few_all: Vec<&Scored> = few_runs.iter().collect();
    let (few_width, few_oracle) =
        summarize(&few_all).map_or((f64::NAN, f64::NAN), |s| (s.width, s.width_oracle));
    let lowest = ratios.iter().copied().fold(f64::INFINITY, f64::min);
    let highest = ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!(
        "Summary: pooled over studies (each once) the 95 % intervals hold {} (lowest study {}), \
         over units {}; by distance {}; widths {:.1} to {:.1} times the oracle's by distance, \
         {:.2} times pooled. With each study's first three scale groups: {} over studies, {} over \
         units, mean width {:.1} against an oracle of {:.2}.\n",
        percent(pooled.over_studies),
        percent(pooled.lowest_study),
        percent(pooled.over_units),
        bands.join(", "),
        lowest,
        highest,
        pooled_ratio,
        percent(few.over_studies),
        percent(few.over_units),
        few_width,
        few_oracle,
    )
}

/// The results document (`bench/results/extrapolation_loso.md`): both checks, at the cut-offs
/// 1, 2 and 3 decades below each study's largest scale and with its first three scale groups.
pub fn document(units: &[Unit], folds: &Folds, weight: Option<f64>) -> (String, Pooled, Pooled) {
    let (main, pooled, runs) = check(units, folds, &CHECK_CUTS, weight);
    let (few, few_pooled, few_runs) = check(units, folds, &[Cut::First3], weight);
    let summary = summary(&pooled, &runs, &few_pooled, &few_runs);
    let text = format!(
        "# Leave-one-study-out check of the extrapolation prior\n\n\
         Written by `cargo run --release -p scalinglaws-corpus -- --loso` from ../shared/data and \
         checked by `crates/scalinglaws-corpus/tests/prior.rs`. Each study is left out in turn: the \
         prior is refitted on the others (its level calibration on the others, each scored by a \
         fit without it too), the study is fitted at cut-offs 1, 2 and 3 decades below its largest \
         scale (where it spans them), and its larger runs are predicted with the 95 % interval a \
         user gets (the prior updated by the cut-off's own rolling-origin backtests). Coverage is \
         the mean over units (a cut-off of a set) of each unit's share of held-out runs inside, \
         each held-out scale group counting once. Widths are in log loss (fitted space): \
         \"today's\" is the interval before this prior (the fit's own, widened by the conformal \
         τ·√d of its own backtests where it had five scale groups), the oracle the narrowest \
         symmetric interval holding 95 % of the errors.\n\n\
         {summary}\n\
         ## Cut-offs 1, 2 and 3 decades below the largest scale\n\n{main}\n\
         ## Few scales: each study's first three scale groups\n\n{few}"
    );
    (text, pooled, few_pooled)
}
