//! `scalinglaws compare-laws`: fits several laws (or one law with some parameters held at
//! published values) to the same data and prints them side by side: objective, likelihood,
//! AIC/BIC, backtest error, and likelihood-ratio tests between nested laws.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use anyhow::{Context, Result};
use scalinglaws::analysis::law_comparison::{compare_laws, Candidate, Comparison};

use crate::config::{split_name, LawChoice, SettingsJob};
use crate::input::{self, Recipe, Table};
use crate::input_error;
use crate::output::{self, Destination};
use scalinglaws_report::text::{columns, level_percent, number};

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
    let text = render(&comparison, config);
    output::emit(
        config.json.as_ref(),
        || Ok(serde_json::to_string_pretty(&comparison)?),
        &text,
    )
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

fn render(comparison: &Comparison, config: &Config) -> String {
    let mut out = String::new();
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
    let index_of = |label: &str| {
        comparison
            .laws
            .iter()
            .position(|l| l.label == label)
            .unwrap_or(0)
    };
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
    table(&mut out, &rows);
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
            config.by.as_deref().unwrap_or("-"),
            level_percent(config.level)
        );
    }
    for law in comparison.laws.iter().filter(|l| l.error.is_some()) {
        let _ = writeln!(
            out,
            "    {}: {}",
            law.label,
            law.error.as_deref().unwrap_or("")
        );
    }
    if comparison.tests.is_empty() {
        let why = if comparison.laws.iter().all(|l| l.log_likelihood.is_none()) {
            "the loss defines no likelihood (use --loss huber or linear)"
        } else {
            "no law nests another"
        };
        let _ = writeln!(out, "[[Likelihood-ratio tests]] none: {why}");
        return out;
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
    table(&mut out, &rows);
    out
}

fn table(out: &mut String, rows: &[Vec<String>]) {
    out.push_str(&columns(rows, &[0], "    "));
}
