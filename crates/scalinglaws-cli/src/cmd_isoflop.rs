//! `scalinglaws isoflop`: IsoFLOP analysis of runs grouped by compute budget: each budget's
//! loss-optimal model size from a local curve in log N, and the power laws N* ∝ C^a and
//! D* ∝ C^b through the minima, with bootstrap intervals on request. With `--envelope`, the same
//! power laws from Chinchilla's approach 1: the lowest loss over the runs' checkpoints at each
//! compute.

use std::fmt::Write as _;

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use scalinglaws::analysis::envelope::{
    envelope, Envelope, EnvelopeData, EnvelopeMethod, EnvelopeSettings,
};
use scalinglaws::analysis::isoflop::{
    isoflop, Isoflop, IsoflopData, IsoflopSettings, PowerLaw, Shape,
};

use crate::input::{self, Recipe};
use crate::input_error;
use crate::output::{self, Destination};
use crate::report::{columns, level_percent, number};

#[derive(Debug)]
pub struct Config {
    pub recipe: Recipe,
    /// Columns whose joint values split the runs into separate analyses.
    pub groups: Vec<String>,
    pub compute: String,
    pub size: String,
    pub tokens: Option<String>,
    /// Approach 1 on checkpoints instead of per-budget profiles.
    pub envelope: Option<EnvelopeMethod>,
    /// The column naming each checkpoint's run (for the grid envelope and its bootstrap).
    pub run: Option<String>,
    pub settings: IsoflopSettings,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    if config.recipe.weights.is_some() {
        return Err(input_error(
            "isoflop does not use --weights: every run counts once in its budget's profile",
        ));
    }
    let table = input::load(&config.recipe)?;
    let why = "IsoFLOP profiles are fitted on logs";
    let all = IsoflopData {
        compute: table.positive_values(&config.compute, "--compute", why)?,
        size: table.positive_values(&config.size, "--size", why)?,
        loss: table.positive_values(&config.recipe.target, "--target", why)?,
        tokens: config
            .tokens
            .as_deref()
            .map(|t| anyhow::Ok(table.positive_values(t, "--tokens", why)?))
            .transpose()?,
    };
    let runs = config
        .run
        .as_deref()
        .map(|r| anyhow::Ok(table.labels(r, "--run")?))
        .transpose()?;
    let groups = table.group_rows(&config.groups, "--group")?;
    let mut analyses = Vec::with_capacity(groups.len());
    for (key, rows) in groups {
        let pick = |column: &[f64]| rows.iter().map(|&r| column[r]).collect::<Vec<f64>>();
        let group: BTreeMap<String, String> = config.groups.iter().cloned().zip(key).collect();
        let analysis = match &config.envelope {
            None => isoflop(
                &IsoflopData {
                    compute: pick(&all.compute),
                    size: pick(&all.size),
                    loss: pick(&all.loss),
                    tokens: all.tokens.as_deref().map(pick),
                },
                &config.settings,
            )
            .map(Analysis::Profiles),
            Some(method) => envelope(
                &EnvelopeData {
                    compute: pick(&all.compute),
                    size: pick(&all.size),
                    loss: pick(&all.loss),
                    tokens: all.tokens.as_deref().map(pick),
                    run: runs
                        .as_ref()
                        .map(|r| rows.iter().map(|&i| r[i].clone()).collect()),
                },
                &EnvelopeSettings {
                    method: *method,
                    bootstrap: config.settings.bootstrap,
                    seed: config.settings.seed,
                    level: config.settings.level,
                },
            )
            .map(Analysis::Envelope),
        }
        .with_context(|| format!("group {}", describe(&group)))?;
        analyses.push(GroupAnalysis { group, analysis });
    }
    let text: String = analyses.iter().map(|g| render(g, config)).collect();
    let json = || {
        Ok(serde_json::to_string_pretty(&Analyses {
            groups: &analyses,
        })?)
    };
    output::emit(config.json.as_ref(), json, &text)
}

/// Approach 2 (a profile per budget) or approach 1 (the envelope of checkpoints).
#[derive(serde::Serialize)]
#[serde(tag = "approach", rename_all = "snake_case")]
enum Analysis {
    Profiles(Isoflop),
    Envelope(Envelope),
}

/// One group's analysis, with the values that define the group.
#[derive(serde::Serialize)]
struct GroupAnalysis {
    group: BTreeMap<String, String>,
    #[serde(flatten)]
    analysis: Analysis,
}

#[derive(serde::Serialize)]
struct Analyses<'a> {
    groups: &'a [GroupAnalysis],
}

fn describe(group: &BTreeMap<String, String>) -> String {
    group
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn render(group: &GroupAnalysis, config: &Config) -> String {
    let label = if group.group.is_empty() {
        String::new()
    } else {
        format!(" {}:", describe(&group.group))
    };
    match &group.analysis {
        Analysis::Profiles(result) => render_profiles(result, &label, config),
        Analysis::Envelope(result) => render_envelope(result, &label, config),
    }
}

fn render_envelope(result: &Envelope, label: &str, config: &Config) -> String {
    let mut out = String::new();
    let runs = if result.runs > 0 {
        format!(" of {} runs", result.runs)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "[[Envelope (approach 1)]]{label} {} checkpoints{runs}; {}: {} points",
        result.checkpoints,
        result.method.describe(),
        result.points.len()
    );
    let mut rows: Vec<Vec<String>> = vec![["budget C", "N*", "D*", "loss", "run"]
        .map(String::from)
        .to_vec()];
    // A grid envelope has one point per budget: show at most a dozen, evenly spaced.
    let stride = result.points.len().div_ceil(12).max(1);
    for p in result.points.iter().step_by(stride) {
        rows.push(vec![
            number(p.budget, 3),
            number(p.n, 4),
            number(p.d, 4),
            number(p.loss, 5),
            p.run.clone().unwrap_or_default(),
        ]);
    }
    out.push_str(&columns(&rows, &[4], "    "));
    if stride > 1 {
        let _ = writeln!(out, "    (one point in {stride} shown; all are in --json)");
    }
    out.push_str(&power_laws(&result.n_star, &result.d_star));
    if result.bootstrap > 0 {
        let _ = writeln!(
            out,
            "    intervals: {}% over {} of {} bootstrap replicates of whole runs ('{}')",
            level_percent(result.level),
            result.bootstrap_used,
            result.bootstrap,
            config.run.as_deref().unwrap_or("")
        );
    }
    out
}

fn power_laws(n_star: &Option<PowerLaw>, d_star: &Option<PowerLaw>) -> String {
    let mut out = String::new();
    for (label, law) in [("N* ∝ C^a: a", n_star), ("D* ∝ C^b: b", d_star)] {
        if let Some(law) = law {
            let ci = law.ci.map_or(String::new(), |[lo, hi]| {
                format!(" [{}, {}]", number(lo, 4), number(hi, 4))
            });
            let _ = writeln!(
                out,
                "    {label} = {}{ci} (coefficient {}, R² {})",
                number(law.exponent, 4),
                number(law.coef, 4),
                number(law.r2, 4)
            );
        }
    }
    out
}

fn render_profiles(result: &Isoflop, label: &str, config: &Config) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "[[IsoFLOP]]{label} {} budgets of '{}'; minimum of a local {} in ln {} per budget",
        result.budgets.len(),
        config.compute,
        match result.shape {
            Shape::Cubic => "cubic through 5 points",
            Shape::Parabola => "parabola through 5 points",
            Shape::Parabola3 => "parabola through 3 points",
        },
        config.size
    );
    let with_ci = result.bootstrap > 0;
    let mut rows: Vec<Vec<String>> = vec![["budget C", "runs", "N*", "D*", "loss*", "note"]
        .map(String::from)
        .to_vec()];
    for b in &result.budgets {
        let n = match (b.n, b.n_ci) {
            (Some(n), Some([lo, hi])) if with_ci => {
                format!("{} [{}, {}]", number(n, 4), number(lo, 3), number(hi, 3))
            }
            (Some(n), _) => number(n, 4),
            (None, _) => "-".into(),
        };
        rows.push(vec![
            number(b.budget, 3),
            b.points.to_string(),
            n,
            b.d.map_or("-".into(), |d| number(d, 4)),
            b.loss.map_or("-".into(), |l| number(l, 5)),
            b.note.clone().unwrap_or_default(),
        ]);
    }
    out.push_str(&columns(&rows, &[5], "    "));
    out.push_str(&power_laws(&result.n_star, &result.d_star));
    if with_ci {
        let _ = writeln!(
            out,
            "    intervals: {}% over {} bootstrap replicates (exponents: budgets resampled; N*: each local curve refitted with noise at the pooled scatter)",
            level_percent(result.level),
            result.bootstrap
        );
    }
    out
}

pub fn shape(name: &str) -> Result<Shape> {
    Shape::from_name(name).ok_or_else(|| {
        input_error(format!(
            "--shape '{name}': use one of {}",
            Shape::ALL.map(Shape::name).join(", ")
        ))
    })
}
