//! The laws `compare-laws` and `select` weigh against each other, built against the data once
//! for every front end: each [`CandidateSpec`]'s law, its settings (with the parameters the
//! spec holds), and its data, all in one fitted space so that their likelihoods compare.
//! Also the shape the faces send them in ([`CandidatesRequest`]: names or labels, formulas,
//! and held values by label), read into specs here, once.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;

use super::fit::{one_or_many, LawChoice, OneOrMany, SettingsJob};
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

/// Each candidate once by label: laws scored under one name would be confused in every table
/// and test (and `fix` by label would be ambiguous).
pub fn check_labels(specs: &[CandidateSpec]) -> Result<()> {
    for (i, spec) in specs.iter().enumerate() {
        if specs[..i].iter().any(|other| other.label == spec.label) {
            return Err(Error::setting(
                Setting::Laws,
                text![
                    format!(
                        "'{}' is a candidate twice; give each law once (",
                        spec.label
                    ),
                    Setting::Laws,
                    " can label one law twice under two names)"
                ],
            ));
        }
    }
    Ok(())
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

/// The candidates as a face sends them: catalog laws by name (each labelled by its name) or by
/// label (`{label: name}`, so that one law can appear twice), formulas (each labelled by its
/// text), and the parameters each label holds at values.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
pub struct CandidatesRequest {
    /// Catalog laws to weigh: a name, a list of names (each labelled by its name), or
    /// `{label: name}` (in order), so that one law can appear twice under two labels.
    #[serde(default)]
    #[schemars(with = "Option<LawNamesShape>")]
    pub laws: LawNames,
    /// Laws as formulas to weigh, one or several, each labelled by its text.
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(with = "OneOrMany")]
    pub formulas: Vec<String>,
    /// Parameters held at values, by the label of the law that holds them: `{label: {name:
    /// value}}` (a published fit against the refitted law).
    #[serde(default)]
    pub fix: BTreeMap<String, BTreeMap<String, f64>>,
}

/// Catalog laws by (label, name), in the order given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LawNames(pub Vec<(String, String)>);

/// The shapes [`LawNames`] reads, for its schema.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)] // only its schema is used
enum LawNamesShape {
    One(String),
    Many(Vec<String>),
    Labelled(BTreeMap<String, String>),
}

impl<'de> Deserialize<'de> for LawNames {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<LawNames, D::Error> {
        struct Names;
        impl<'de> serde::de::Visitor<'de> for Names {
            type Value = LawNames;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a law's name, a list of names, or an object of label: name")
            }
            fn visit_str<E: serde::de::Error>(
                self,
                name: &str,
            ) -> std::result::Result<LawNames, E> {
                Ok(LawNames(vec![(name.to_string(), name.to_string())]))
            }
            fn visit_unit<E: serde::de::Error>(self) -> std::result::Result<LawNames, E> {
                Ok(LawNames::default())
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> std::result::Result<LawNames, A::Error> {
                let mut names = Vec::new();
                while let Some(name) = seq.next_element::<String>()? {
                    names.push((name.clone(), name));
                }
                Ok(LawNames(names))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<LawNames, A::Error> {
                let mut names = Vec::new();
                while let Some(pair) = map.next_entry::<String, String>()? {
                    names.push(pair);
                }
                Ok(LawNames(names))
            }
        }
        deserializer.deserialize_any(Names)
    }
}

impl CandidatesRequest {
    /// The candidates in order, catalog laws first, each with the values `fix` holds for its
    /// label; a label of `fix` that names no candidate is refused.
    pub fn specs(self) -> Result<Vec<CandidateSpec>> {
        let CandidatesRequest {
            laws,
            formulas,
            mut fix,
        } = self;
        let catalog = laws
            .0
            .into_iter()
            .map(|(label, name)| (label, LawChoice::Catalog(name)));
        let written = formulas
            .into_iter()
            .map(|text| (text.clone(), LawChoice::Formula(text)));
        let specs: Vec<CandidateSpec> = catalog
            .chain(written)
            .map(|(label, law)| CandidateSpec {
                fixed: fix.get(&label).cloned().unwrap_or_default(),
                label,
                law,
            })
            .collect();
        fix.retain(|label, _| !specs.iter().any(|s| &s.label == label));
        match fix.keys().next() {
            None => Ok(specs),
            Some(label) => Err(Error::setting(
                Setting::Fix,
                text![
                    Setting::Fix.key(label.as_str()),
                    " names no law of ",
                    Setting::Laws,
                    " or ",
                    Setting::Formulas
                ],
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_labelled_and_hold_their_labels_values() {
        let request: CandidatesRequest = serde_json::from_str(
            r#"{"laws": {"refit": "chinchilla", "published": "chinchilla"},
                "formulas": "E + A*N^-a", "fix": {"published": {"E": 1.7}}}"#,
        )
        .unwrap();
        let specs = request.specs().unwrap();
        let labels: Vec<&str> = specs.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["refit", "published", "E + A*N^-a"]);
        assert_eq!(specs[2].law, LawChoice::Formula("E + A*N^-a".into()));
        assert!(specs[0].fixed.is_empty() && specs[1].fixed.len() == 1);
        let named: CandidatesRequest = serde_json::from_str(r#"{"laws": "chinchilla"}"#).unwrap();
        assert_eq!(named.specs().unwrap()[0].label, "chinchilla");
        let stray: CandidatesRequest =
            serde_json::from_str(r#"{"laws": ["chinchilla"], "fix": {"nope": {"E": 1.0}}}"#)
                .unwrap();
        let error = stray.specs().unwrap_err();
        assert_eq!(error.key(), Some(Setting::Fix));
        assert!(error.to_string().contains("names no law"), "{error}");
        // One label twice would take one `fix` for two laws: refused by the jobs' check.
        let twice: CandidatesRequest =
            serde_json::from_str(r#"{"laws": ["chinchilla", "chinchilla"]}"#).unwrap();
        let error = check_labels(&twice.specs().unwrap()).unwrap_err();
        assert_eq!(error.key(), Some(Setting::Laws));
        assert!(error.to_string().contains("a candidate twice"), "{error}");
    }
}
