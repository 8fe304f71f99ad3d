//! The laws `compare-laws` and `select` weigh against each other, built against the data:
//! each spec's law, its settings (with the parameters the spec holds), and its data, all in
//! one fitted space so that their likelihoods compare.

use anyhow::{Context, Result};
use scalinglaws::analysis::law_comparison::Candidate;

use crate::config::{LawSpec, SettingsJob};
use crate::input::{Recipe, Table};
use crate::input_error;

/// Every law of `laws` with its settings and data from `table`, all in one fitted space.
pub fn build(
    table: &Table,
    recipe: &Recipe,
    laws: &[LawSpec],
    settings: &SettingsJob,
) -> Result<Vec<Candidate>> {
    let mut candidates: Vec<Candidate> = Vec::with_capacity(laws.len());
    for spec in laws {
        let law = spec
            .choice
            .build(table)
            .with_context(|| format!("--law '{}'", spec.text))?;
        let mut fit_settings = settings.for_law(&spec.choice);
        for (name, value) in &spec.fixed {
            if law.param_index(name).is_none() {
                return Err(input_error(format!(
                    "--law '{}': '{name}' is not a parameter of {}; its parameters are {}",
                    spec.text,
                    law.label(),
                    law.param_names().join(", ")
                )));
            }
            fit_settings.fixed.insert(name.clone(), *value);
        }
        if let Some(first) = candidates.first() {
            if first.settings.space != fit_settings.space {
                return Err(input_error(format!(
                    "'{}' fits in {} space but '{}' in {} space; likelihoods compare only in one space (give --space)",
                    first.label,
                    first.settings.space.name(),
                    spec.text,
                    fit_settings.space.name()
                )));
            }
        }
        let data = table.fit_data(&law, recipe, fit_settings.space)?;
        candidates.push(Candidate {
            label: spec.text.clone(),
            law,
            settings: fit_settings,
            data,
        });
    }
    Ok(candidates)
}
