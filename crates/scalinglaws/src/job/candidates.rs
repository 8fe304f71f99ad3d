//! The laws `compare-laws` and `select` weigh against each other, built against the data once
//! for every front end: each [`CandidateSpec`]'s law, its settings (with the parameters the
//! spec holds), and its data, all in one fitted space so that their likelihoods compare.
//! Also the serde shapes the front ends send for them ([`CandidateRequest`], and the
//! [`RecipeRequest`](super::fit::RecipeRequest) of the flat requests).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::Deserialize;

use super::fit::{LawChoice, SettingsJob};
use crate::analysis::law_comparison::Candidate;
use crate::data::recipe::{Recipe, Table};
use crate::error::{Error, Result, Setting, Text};
use crate::law::Law;
use crate::text;
use crate::work::Estimate;

/// A candidate law: its label in the reports, the law, and the parameters it holds at values.
#[derive(Debug, Clone, PartialEq)]
pub struct CandidateSpec {
    /// The law as typed (a catalog name with its held values, `chinchilla[E=1.69]`, or a
    /// formula): its label in the reports.
    pub label: String,
    pub law: LawChoice,
    pub fixed: BTreeMap<String, f64>,
}

impl CandidateSpec {
    /// The law setting as the candidate was given (`chinchilla[E=1.69]` or a formula), for messages.
    fn named(&self) -> Text {
        text![Setting::Law, format!(" '{}'", self.label)]
    }
}

/// Every candidate of `specs` with its settings and data from `table`, all in one fitted
/// space; `settings` are common to all (a spec's held values added). With a sweep in `recipe`
/// every candidate reads the same cells' frontier, and the table returned is that frontier's
/// (else `table`): the rows the candidates' data hold.
pub fn build<'a>(
    table: &'a Table,
    recipe: &Recipe,
    specs: &[CandidateSpec],
    settings: &SettingsJob,
) -> Result<(Vec<Candidate>, Cow<'a, Table>)> {
    let mut candidates: Vec<Candidate> = Vec::with_capacity(specs.len());
    let mut rows: Option<Cow<'a, Table>> = None;
    for spec in specs {
        let law = spec.law.build(table).map_err(|e| e.within(spec.named()))?;
        let mut fit_settings = settings.for_law(&spec.law);
        for (name, value) in &spec.fixed {
            if law.param_index(name).is_none() {
                return Err(Error::setting(
                    Setting::Law,
                    text![
                        spec.named(),
                        format!(
                            ": '{name}' is not a parameter of {}; its parameters are {}",
                            law.label(),
                            law.param_names().join(", ")
                        )
                    ],
                ));
            }
            fit_settings.fixed.insert(name.clone(), *value);
        }
        if let Some(first) = candidates.first() {
            if first.settings.space != fit_settings.space {
                return Err(Error::setting(
                    Setting::Space,
                    text![
                        format!(
                            "'{}' fits in {} space but '{}' in {} space; likelihoods compare only in one space (give ",
                            first.label,
                            first.settings.space.name(),
                            spec.label,
                            fit_settings.space.name()
                        ),
                        Setting::Space,
                        ")"
                    ],
                ));
            }
        }
        if let Some(first) = candidates.first() {
            check_same_cells(
                table,
                recipe,
                (&first.label, &first.law),
                (&spec.label, &law),
            )?;
        }
        let (swept, _) = table.swept(&law, recipe, &fit_settings)?;
        let data = swept.fit_data(&law, recipe, fit_settings.space)?;
        rows.get_or_insert(swept);
        candidates.push(Candidate {
            label: spec.label.clone(),
            law,
            settings: fit_settings,
            data,
        });
    }
    Ok((candidates, rows.unwrap_or(Cow::Borrowed(table))))
}

/// With a sweep, every candidate reads the same columns as the first, so that their cells and
/// frontiers are the same rows: laws scored on different data do not compare.
fn check_same_cells(
    table: &Table,
    recipe: &Recipe,
    (first_label, first): (&str, &Law),
    (label, law): (&str, &Law),
) -> Result<()> {
    if recipe.sweep.is_empty() {
        return Ok(());
    }
    let columns = |law: &Law| -> Vec<String> {
        let mut c: Vec<String> = law
            .variables
            .iter()
            .map(|v| table.resolve(v).unwrap_or(v).to_string())
            .collect();
        c.sort_unstable();
        c
    };
    if columns(first) == columns(law) {
        return Ok(());
    }
    Err(Error::setting(
        Setting::Sweep,
        text![
            Setting::Sweep.subject(),
            format!(
                ": '{first_label}' reads {} but '{label}' reads {}, so their cells and \
                 frontiers differ; weigh laws of the same variables, or aggregate the sweep before",
                first.variables.join(", "),
                law.variables.join(", ")
            )
        ],
    ))
}

/// The work of fitting every candidate `fits` times ([`crate::work`]): the rolling origins or
/// holdouts of `compare-laws` and `select`, each a fit of at most every row (a candidate whose
/// fit cannot start is not counted: it fails alone).
pub fn estimate(candidates: &[Candidate], fits: f64, what: &str) -> Result<Estimate> {
    let mut total = Estimate::none();
    for candidate in candidates {
        // A candidate whose fit cannot start fails in its own score, with its reason, as
        // before; the others are still weighed.
        let c = candidate;
        if let Ok(shape) = crate::fit::shape(&c.law, &c.data, &c.settings) {
            total = total.plus(shape.estimate());
        }
    }
    Ok(total
        .described(
            candidates.len() as f64,
            "candidate laws",
            Some(Setting::Law),
        )
        .repeated(fits, what, None))
}

// ---------------------------------------------------------------------------------------------
// The serde shapes the front ends send
// ---------------------------------------------------------------------------------------------

/// A candidate as JSON: a catalog `law` or a `formula`, with parameters held at values (`fix`)
/// and a label (default: the law or formula as given).
#[derive(Debug, Clone, Deserialize)]
pub struct CandidateRequest {
    #[serde(default)]
    pub label: Option<String>,
    #[serde(default)]
    pub law: Option<String>,
    #[serde(default)]
    pub formula: Option<String>,
    #[serde(default)]
    pub fix: BTreeMap<String, f64>,
}

impl TryFrom<CandidateRequest> for CandidateSpec {
    type Error = Error;

    fn try_from(request: CandidateRequest) -> Result<CandidateSpec> {
        let law = LawChoice::from_request(request.law, request.formula)?;
        let label = request.label.unwrap_or_else(|| match &law {
            LawChoice::Catalog(text) | LawChoice::Formula(text) => text.clone(),
        });
        Ok(CandidateSpec {
            label,
            law,
            fixed: request.fix,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_without_a_label_is_labelled_by_its_law() {
        let request: CandidateRequest =
            serde_json::from_str(r#"{"formula": "E + A*N^-a", "fix": {"E": 1.7}}"#).unwrap();
        let spec = CandidateSpec::try_from(request).unwrap();
        assert_eq!(spec.label, "E + A*N^-a");
        assert_eq!(spec.law, LawChoice::Formula("E + A*N^-a".into()));
        assert_eq!(spec.fixed.len(), 1);
        let both: CandidateRequest =
            serde_json::from_str(r#"{"law": "chinchilla", "formula": "E"}"#).unwrap();
        assert!(CandidateSpec::try_from(both).unwrap_err().is_input_error());
    }
}
