//! The leave-one-study-out tables, as markdown: one row per study, one per distance band, and
//! the pooled rows.

use std::collections::BTreeSet;
use std::fmt::Write;

use crate::loso::{summarize, Scored, Summary, BANDS};

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
    for (lo, hi) in BANDS {
        let band: Vec<&Scored> = runs
            .iter()
            .filter(|r| r.distance > lo && r.distance <= hi)
            .collect();
        if let Some(s) = summarize(&band) {
            out.push_str(&row(&format!("{lo}–{hi}"), &s));
        }
    }
    out
}
