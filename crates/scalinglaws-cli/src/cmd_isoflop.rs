//! `scalinglaws isoflop`: IsoFLOP analysis of runs grouped by compute budget: each budget's
//! loss-optimal model size from a local curve in log N, and the power laws N* ∝ C^a and
//! D* ∝ C^b through the minima, with bootstrap intervals on request. With `--envelope`, the same
//! power laws from Chinchilla's approach 1: the lowest loss over the runs' checkpoints at each
//! compute. With `--budget`, predictions of N*, D* and the loss at new budgets with calibrated
//! intervals; with `--backtest K`, the same scored on the K largest budgets held out.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use scalinglaws::analysis::envelope::{envelope, EnvelopeData, EnvelopeMethod, EnvelopeSettings};
use scalinglaws::analysis::isoflop::{
    isoflop, isoflop_backtest, IsoflopData, IsoflopSettings, Shape,
};

use crate::input::{self, Recipe};
use crate::input_error;
use crate::output::{self, Destination};
use scalinglaws_report::analyses::isoflop::{
    describe, Analyses, Analysis, Columns, GroupAnalysis, IsoflopReport,
};

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
    /// Hold out this many of the largest budgets and score their predictions.
    pub backtest: Option<usize>,
    pub json: Option<Destination>,
}

/// The budgets of `--budget` (each a number or a comma list).
pub fn budgets(texts: &[String]) -> Result<Vec<f64>> {
    let mut values = Vec::new();
    for text in texts {
        values.extend(
            input::constant_list(text, text).with_context(|| format!("--budget '{text}'"))?,
        );
    }
    if let Some(bad) = values.iter().find(|c| !(c.is_finite() && **c > 0.0)) {
        return Err(input_error(format!(
            "--budget {bad}: give positive budgets in FLOPs, e.g. --budget 1e22,1e23"
        )));
    }
    Ok(values)
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
        let analysis = match (&config.envelope, config.backtest) {
            (None, Some(hold_out)) => isoflop_backtest(
                &IsoflopData {
                    compute: pick(&all.compute),
                    size: pick(&all.size),
                    loss: pick(&all.loss),
                    tokens: all.tokens.as_deref().map(pick),
                },
                &config.settings,
                hold_out,
            )
            .map(Analysis::Backtest),
            (None, None) => isoflop(
                &IsoflopData {
                    compute: pick(&all.compute),
                    size: pick(&all.size),
                    loss: pick(&all.loss),
                    tokens: all.tokens.as_deref().map(pick),
                },
                &config.settings,
            )
            .map(Analysis::Profiles),
            (Some(method), _) => envelope(
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
        .with_context(|| match group.is_empty() {
            true => "isoflop".to_string(),
            false => format!("group {}", describe(&group)),
        })?;
        analyses.push(GroupAnalysis { group, analysis });
    }
    let report = IsoflopReport {
        analyses: Analyses { groups: &analyses },
        columns: Columns {
            compute: &config.compute,
            size: &config.size,
            run: config.run.as_deref(),
        },
    };
    output::emit(config.json.as_ref(), &report)
}

/// Approach 2 (a profile per budget) or approach 1 (the envelope of checkpoints).
pub fn shape(name: &str) -> Result<Shape> {
    Shape::from_name(name).ok_or_else(|| {
        input_error(format!(
            "--shape '{name}': use one of {}",
            Shape::ALL.map(Shape::name).join(", ")
        ))
    })
}
