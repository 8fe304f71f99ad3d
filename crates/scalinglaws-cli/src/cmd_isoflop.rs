//! `scalinglaws isoflop`: IsoFLOP analysis of runs grouped by compute budget: each budget's
//! loss-optimal model size from a local curve in log N, and the power laws N* ∝ C^a and
//! D* ∝ C^b through the minima, with bootstrap intervals on request.

use std::fmt::Write as _;

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use scalinglaws::analysis::isoflop::{isoflop, Isoflop, IsoflopData, IsoflopSettings, Shape};

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
            .map(|t| table.positive_values(t, "--tokens", why))
            .transpose()?,
    };
    let labels: Vec<Vec<String>> = config
        .groups
        .iter()
        .map(|g| table.labels(g, "--group"))
        .collect::<Result<_>>()?;
    let mut groups: BTreeMap<Vec<String>, Vec<usize>> = BTreeMap::new();
    for row in 0..all.compute.len() {
        let key = labels.iter().map(|column| column[row].clone()).collect();
        groups.entry(key).or_default().push(row);
    }
    let mut analyses = Vec::with_capacity(groups.len());
    for (key, rows) in groups {
        let pick = |column: &[f64]| rows.iter().map(|&r| column[r]).collect::<Vec<f64>>();
        let data = IsoflopData {
            compute: pick(&all.compute),
            size: pick(&all.size),
            loss: pick(&all.loss),
            tokens: all.tokens.as_deref().map(pick),
        };
        let group: BTreeMap<String, String> = config.groups.iter().cloned().zip(key).collect();
        let analysis = isoflop(&data, &config.settings)
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

/// One group's analysis, with the values that define the group.
#[derive(serde::Serialize)]
struct GroupAnalysis {
    group: BTreeMap<String, String>,
    #[serde(flatten)]
    analysis: Isoflop,
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
    let result = &group.analysis;
    let mut out = String::new();
    let label = if group.group.is_empty() {
        String::new()
    } else {
        format!(" {}:", describe(&group.group))
    };
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
    for (label, law) in [
        ("N* ∝ C^a: a", &result.n_star),
        ("D* ∝ C^b: b", &result.d_star),
    ] {
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
