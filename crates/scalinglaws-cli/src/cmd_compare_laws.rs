//! `scalinglaws compare-laws`: fits several laws (or one law with some parameters held at
//! published values) to the same data and prints them side by side: objective, likelihood,
//! AIC/BIC, backtest error, and likelihood-ratio tests between nested laws.

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use scalinglaws::analysis::law_comparison::{compare_laws, Candidate};

use crate::config::{split_name, LawChoice, SettingsJob};
use crate::input::{self, Recipe, Table};
use crate::input_error;
use crate::output::{self, Destination};
use scalinglaws_report::analyses::compare_laws::CompareLawsReport;

/// A law as given on the command line, with the parameters it holds at values.
#[derive(Debug, Clone)]
pub struct LawSpec {
    pub text: String,
    pub choice: LawChoice,
    pub fixed: BTreeMap<String, f64>,
}

impl LawSpec {
    /// `NAME` or `NAME[P=V,...]`.
    pub fn parse(text: &str) -> Result<LawSpec> {
        let trimmed = text.trim();
        let (name, fixed) = match trimmed.split_once('[') {
            None => (trimmed, BTreeMap::new()),
            Some((name, rest)) => {
                let Some(inner) = rest.strip_suffix(']') else {
                    return Err(input_error(format!(
                        "--law '{text}': a '[' must be closed by a ']' at the end, as in chinchilla[E=1.69,alpha=0.34]"
                    )));
                };
                (name.trim(), parse_fixed(text, inner)?)
            }
        };
        if name.is_empty() {
            return Err(input_error(format!(
                "--law '{text}': no law name before '['"
            )));
        }
        Ok(LawSpec {
            text: trimmed.to_string(),
            choice: LawChoice::Catalog(name.to_string()),
            fixed,
        })
    }

    pub fn formula(text: &str) -> LawSpec {
        LawSpec {
            text: text.trim().to_string(),
            choice: LawChoice::Formula(text.to_string()),
            fixed: BTreeMap::new(),
        }
    }
}

fn parse_fixed(text: &str, inner: &str) -> Result<BTreeMap<String, f64>> {
    let mut fixed = BTreeMap::new();
    for piece in input::split_top_level(inner) {
        let (name, value) = split_name("--law", piece, "NAME[P=V,...], e.g. chinchilla[E=1.69]")?;
        let value = input::constant(text, value).with_context(|| format!("--law '{text}'"))?;
        if !value.is_finite() {
            return Err(input_error(format!(
                "--law '{text}': {name}={value} is not a finite value"
            )));
        }
        if fixed.insert(name.to_string(), value).is_some() {
            return Err(input_error(format!(
                "--law '{text}': '{name}' is given twice"
            )));
        }
    }
    Ok(fixed)
}

#[derive(Debug)]
pub struct Config {
    pub recipe: Recipe,
    pub laws: Vec<LawSpec>,
    pub settings: SettingsJob,
    pub by: Option<String>,
    pub holdout_frac: f64,
    pub level: f64,
    pub json: Option<Destination>,
}

pub fn run(config: &Config) -> Result<()> {
    let table = input::load(&config.recipe)?;
    let candidates = build_candidates(&table, &config.recipe, &config.laws, &config.settings)?;
    let scale = config
        .by
        .as_deref()
        .map(|by| anyhow::Ok(table.values(by, "--by")?))
        .transpose()?;
    let comparison = compare_laws(
        &candidates,
        scale.as_deref(),
        config.holdout_frac,
        config.level,
    )?;
    let report = CompareLawsReport {
        comparison: &comparison,
        by: config.by.as_deref(),
        level: config.level,
    };
    output::emit(config.json.as_ref(), &report)
}

/// Every law of `laws` with its settings and data from `table`, all in one fitted space.
pub fn build_candidates(
    table: &Table,
    recipe: &Recipe,
    laws: &[LawSpec],
    settings_config: &SettingsJob,
) -> Result<Vec<Candidate>> {
    let mut candidates: Vec<Candidate> = Vec::with_capacity(laws.len());
    for spec in laws {
        let law = spec
            .choice
            .build(&table)
            .with_context(|| format!("--law '{}'", spec.text))?;
        let mut settings = settings_config.for_law(&spec.choice);
        for (name, value) in &spec.fixed {
            if law.param_index(name).is_none() {
                return Err(input_error(format!(
                    "--law '{}': '{name}' is not a parameter of {}; its parameters are {}",
                    spec.text,
                    law.label(),
                    law.param_names().join(", ")
                )));
            }
            settings.fixed.insert(name.clone(), *value);
        }
        if let Some(first) = candidates.first() {
            if first.settings.space != settings.space {
                return Err(input_error(format!(
                    "'{}' fits in {} space but '{}' in {} space; likelihoods compare only in one space (give --space)",
                    first.label,
                    first.settings.space.name(),
                    spec.text,
                    settings.space.name()
                )));
            }
        }
        let data = table.fit_data(&law, recipe, settings.space)?;
        candidates.push(Candidate {
            label: spec.text.clone(),
            law,
            settings,
            data,
        });
    }
    Ok(candidates)
}
