//! The prepared table: the kept rows with their derived columns, and the names the recipe
//! defined, answering what a fit and the analyses ask of the data (values, labels, groups, the
//! scale column, a fit's data) with errors that name the file, row and column.

use std::collections::HashMap;

use super::names::{file_location, known_names, list, missing, resolve};
use super::{why_positive, Recipe};
use crate::data::Dataset;
use crate::error::{Error, Result, Setting, Text};
use crate::fit::result::DataSummary;
use crate::fit::{FitData, FitResult, Space};
use crate::law::Law;
use crate::suggest::closest;
use crate::text;

/// The data after the maps, derived columns and filters, with the names they define.
#[derive(Debug, Clone)]
pub struct Table {
    /// The kept rows, with derived columns added.
    pub dataset: Dataset,
    /// Map alias → column, later ones winning.
    pub(super) aliases: HashMap<String, String>,
    /// Derived name → its text (`D=C/(6*N)`).
    pub(super) derived: HashMap<String, String>,
    pub rows_read: usize,
    pub rows_filtered: usize,
}

impl Table {
    /// The dataset column a name reads: a derived column, an alias's column, or a column.
    pub fn resolve<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        resolve(&self.dataset, &self.aliases, &self.derived, name)
    }

    /// How a law variable is fed, for the result: the column, or `VAR=EXPR` when derived.
    pub fn describe(&self, name: &str) -> String {
        match self.derived.get(name) {
            Some(text) => text.clone(),
            None => self.resolve(name).unwrap_or(name).to_string(),
        }
    }

    /// The column named `name` (via alias or derive) or an error naming the file and the
    /// column, with a suggestion.
    pub(super) fn require<'a>(&'a self, name: &'a str, role: &Text) -> Result<&'a str> {
        self.resolve(name)
            .ok_or_else(|| missing(&self.dataset, &self.aliases, &self.derived, name, role))
    }

    /// The values of a column (or map/derived name) as text, one per kept row: run labels.
    pub fn labels(&self, name: &str, role: impl Into<Text>) -> Result<Vec<String>> {
        let column = self.require(name, &role.into())?;
        self.dataset.text(column)
    }

    /// Each kept row's track (run group) read from a column: its values as text, refusing an
    /// empty cell with its file, row and column (an empty name would be a track of its own, and
    /// the baseline when it comes first).
    pub fn track_labels(&self, name: &str, role: impl Into<Text>) -> Result<Vec<String>> {
        let role = role.into();
        let labels = self.labels(name, role.clone())?;
        match labels.iter().position(|label| label.trim().is_empty()) {
            None => Ok(labels),
            Some(row) => Err(Error::Data {
                location: self
                    .dataset
                    .location(row, Some(self.resolve(name).unwrap_or(name))),
                message: text!["the run has no track (the ", role, " cell is empty)"],
                fix: "give every run a track name, or remove the row".into(),
            }),
        }
    }

    /// Checks that `value` (the baseline track) is one of `labels` (the tracks read from
    /// `column`), naming the file, the column and the nearest track when it is not.
    pub fn check_track(
        &self,
        column: &str,
        labels: &[String],
        value: &str,
        role: impl Into<Text>,
    ) -> Result<()> {
        if labels.iter().any(|label| label == value) {
            return Ok(());
        }
        let mut tracks: Vec<&str> = Vec::new();
        for label in labels {
            if !tracks.contains(&label.as_str()) {
                tracks.push(label);
            }
        }
        let listing = tracks.join(", ");
        let fix = match closest(value, tracks.iter().copied()) {
            Some(near) => format!("did you mean '{near}'? The tracks are {listing}"),
            None => format!("the tracks are {listing}"),
        };
        Err(Error::Data {
            location: file_location(&self.dataset, Some(self.resolve(column).unwrap_or(column))),
            message: text![role.into(), " '", value, "' is no run's track"],
            fix: fix.into(),
        })
    }

    /// The column that orders scale (for rolling-origin calibration) and its values: `by`,
    /// else a column `C` (compute), else 6·N·D when the law has N and D, else the law's first
    /// variable. `role` names the setting in errors.
    pub fn scale(
        &self,
        law: &Law,
        data: &FitData,
        by: Option<&str>,
        role: impl Into<Text>,
    ) -> Result<(String, Vec<f64>)> {
        let role = role.into();
        if let Some(by) = by {
            return Ok((by.to_string(), self.values(by, &role)?));
        }
        if self.resolve("C").is_some() {
            if let Ok(values) = self.values("C", &role) {
                return Ok(("C".into(), values));
            }
        }
        let position = |name: &str| law.variables.iter().position(|v| v == name);
        if let (Some(n), Some(d)) = (position("N"), position("D")) {
            let compute = data.variables[n]
                .iter()
                .zip(&data.variables[d])
                .map(|(n, d)| 6.0 * n * d)
                .collect();
            return Ok(("6*N*D".into(), compute));
        }
        Ok((law.variables[0].clone(), data.variables[0].clone()))
    }

    /// The variance model σ(x) = σ0·(x/x0)^s with x the column (or map/derived name) `column`:
    /// a variable of the law, or a column proportional to N·D on every row (compute, C =
    /// 6·N·D), so that σ at a new point follows from the law's variables. Errors name the
    /// column (and the file's row of a value that is not positive).
    pub fn heteroscedastic(
        &self,
        law: &Law,
        data: &FitData,
        column: &str,
    ) -> Result<crate::fit::Heteroscedastic> {
        let role = Setting::Heteroscedastic.subject();
        let why = format!("the heteroscedastic variance model takes log({column})");
        let values = self.positive_values(column, role.clone(), &why)?;
        let rule = crate::fit::ScaleRule::infer(law, data, column, &values).ok_or_else(|| {
            Error::setting(
                Setting::Heteroscedastic,
                text![
                    role,
                    format!(
                        " '{column}': the column is neither a variable of the law ({}) nor \
                         proportional to N·D on every row, so σ at a new point could not be \
                         computed from the law's variables; let σ vary with a variable of the \
                         law, or with a compute column C = k·N·D",
                        law.variables.join(", ")
                    )
                ],
            )
        })?;
        Ok(crate::fit::Heteroscedastic {
            by: column.to_string(),
            rule,
        })
    }

    /// The values of a numeric column (or map/derived name), finite, one per kept row.
    pub fn values(&self, name: &str, role: impl Into<Text>) -> Result<Vec<f64>> {
        let column = self.require(name, &role.into())?;
        self.dataset.finite(column)
    }

    /// The values of a numeric column (or map/derived name), each positive (errors name the
    /// file's row), one per kept row.
    pub fn positive_values(
        &self,
        name: &str,
        role: impl Into<Text>,
        why: &str,
    ) -> Result<Vec<f64>> {
        let column = self.require(name, &role.into())?;
        self.dataset.positive(column, why)
    }

    /// The table without the rows where `keep` is false (rows a QC stage set aside), its names
    /// and counts as they were: the rows left remember their rows in the file.
    pub fn keep_rows(&self, keep: &[bool]) -> Table {
        Table {
            dataset: self.dataset.filter(keep),
            aliases: self.aliases.clone(),
            derived: self.derived.clone(),
            rows_read: self.rows_read,
            rows_filtered: self.rows_filtered,
        }
    }

    /// The row of the file (1-based, as a spreadsheet numbers data rows) of kept row `index`.
    pub fn file_row(&self, index: usize) -> Option<usize> {
        self.dataset.location(index, None).row
    }

    /// The target, variables and weights of a fit of `law`, checked for the fit's needs.
    pub fn fit_data(&self, law: &Law, recipe: &Recipe, space: Space) -> Result<FitData> {
        let target_column = self.require(&recipe.target, &Setting::Target.subject().into())?;
        let target = match space {
            Space::Log => self.dataset.positive(
                target_column,
                text![
                    format!("log-space residuals take log({}) (", recipe.target),
                    Setting::Space.text("linear"),
                    " fits without logs)"
                ],
            )?,
            Space::Linear => self.dataset.finite(target_column)?,
        };
        if let Some(variable) = law
            .variables
            .iter()
            .find(|v| self.resolve(v) == Some(target_column))
        {
            return Err(target_as_variable(law, variable, &recipe.target));
        }
        let positive = law.positive_variables();
        let mut variables = Vec::with_capacity(law.variables.len());
        for variable in &law.variables {
            let Some(column) = self.resolve(variable) else {
                return Err(self.missing_variable(law, variable));
            };
            let values = if positive.contains(&variable.as_str()) {
                self.dataset.positive(column, why_positive(law, variable))?
            } else {
                self.dataset.finite(column)?
            };
            variables.push(values);
        }
        let weights = match &recipe.weights {
            None => None,
            Some(name) => {
                let column = self.require(name, &Setting::Weights.subject().into())?;
                let values = self.dataset.finite(column)?;
                if let Some(row) = values.iter().position(|w| *w < 0.0) {
                    return Err(Error::Data {
                        location: self.dataset.location(row, Some(column)),
                        message: format!("the weight {} is negative", values[row]).into(),
                        fix: "give every row a weight >= 0".into(),
                    });
                }
                Some(values)
            }
        };
        let (trials, exposure) = self.family_columns(recipe, target.len())?;
        Ok(FitData {
            variables,
            target,
            weights,
            trials,
            exposure,
        })
    }

    /// The trials and exposure columns of a likelihood family's recipe (one number of trials
    /// stands for that count on every row), each positive in every row.
    fn family_columns(
        &self,
        recipe: &Recipe,
        rows: usize,
    ) -> Result<(Option<Vec<f64>>, Option<Vec<f64>>)> {
        let trials = match &recipe.trials {
            None => None,
            Some(super::Trials::Count(n)) if n.is_finite() && *n > 0.0 => Some(vec![*n; rows]),
            Some(super::Trials::Count(n)) => {
                return Err(Error::setting(
                    Setting::Trials,
                    text![
                        Setting::Trials.number(crate::error::short_number(*n)),
                        ": give a positive number of trials, or a column"
                    ],
                ))
            }
            Some(super::Trials::Column(name)) => {
                let column = self.require(name, &Setting::Trials.subject().into())?;
                Some(
                    self.dataset
                        .positive(column, "a row's trials count its questions")?,
                )
            }
        };
        let exposure = match &recipe.exposure {
            None => None,
            Some(name) => {
                let column = self.require(name, &Setting::Exposure.subject().into())?;
                Some(
                    self.dataset
                        .positive(column, "the mean count is exposure × the law")?,
                )
            }
        };
        Ok((trials, exposure))
    }

    /// The kept rows of each combination of the labels of `columns` (one group of every row
    /// when `columns` is empty), in label order.
    pub fn group_rows(
        &self,
        columns: &[String],
        role: impl Into<Text>,
    ) -> Result<std::collections::BTreeMap<Vec<String>, Vec<usize>>> {
        let role = role.into();
        let labels: Vec<std::borrow::Cow<'_, [String]>> = columns
            .iter()
            .map(|c| {
                let column = self.require(c, &role)?;
                self.dataset.text_cells(column)
            })
            .collect::<Result<_>>()?;
        // Groups in order of first appearance, keyed by the labels borrowed; a row usually
        // belongs to the previous row's group (a file sorted by group), so that is tried first.
        let mut found: Vec<(Vec<&str>, Vec<usize>)> = Vec::new();
        let mut index: std::collections::HashMap<Vec<&str>, usize> = Default::default();
        let mut key: Vec<&str> = Vec::with_capacity(labels.len());
        let mut previous = usize::MAX;
        for row in 0..self.dataset.n_rows() {
            key.clear();
            key.extend(labels.iter().map(|column| column[row].as_str()));
            if found.get(previous).is_none_or(|(k, _)| *k != key) {
                previous = *index.entry(key.clone()).or_insert_with(|| {
                    found.push((key.clone(), Vec::new()));
                    found.len() - 1
                });
            }
            found[previous].1.push(row);
        }
        Ok(found
            .into_iter()
            .map(|(key, rows)| (key.into_iter().map(str::to_string).collect(), rows))
            .collect())
    }

    /// Records in a fit's result where every number came from (the target and variables as
    /// columns or derived expressions) and returns the data's summary: the source, rows read
    /// and filtered, filters and derives.
    pub fn describe_fit(&self, result: &mut FitResult, law: &Law, recipe: &Recipe) -> DataSummary {
        result.target = self.describe(&recipe.target);
        result.variables = law
            .variables
            .iter()
            .map(|variable| (variable.clone(), self.describe(variable)))
            .collect();
        self.summary(recipe)
    }

    /// Where the rows came from and what `recipe`'s filters removed.
    pub fn summary(&self, recipe: &Recipe) -> DataSummary {
        DataSummary {
            source: self.dataset.source().to_string(),
            rows_read: self.rows_read,
            rows_filtered: self.rows_filtered,
            filters: recipe.filters.iter().map(|f| f.text.clone()).collect(),
            derived: recipe.derives.iter().map(|d| d.text.clone()).collect(),
        }
    }

    /// Each row's run as a dense id (runs numbered in order of first appearance), for
    /// resampling whole runs; an empty label is an error naming its row.
    pub fn run_ids(&self, column: &str, role: impl Into<Text>) -> Result<Vec<usize>> {
        let role = role.into();
        let labels = self.labels(column, &role)?;
        if let Some(row) = labels.iter().position(|label| label.trim().is_empty()) {
            return Err(Error::Data {
                location: self
                    .dataset
                    .location(row, Some(self.resolve(column).unwrap_or(column))),
                message: "the run label is empty".into(),
                fix: text![
                    "give every row the name of its run, or drop ",
                    role,
                    " to resample rows"
                ],
            });
        }
        Ok(crate::data::label_ids(&labels).0)
    }

    fn missing_variable(&self, law: &Law, variable: &str) -> Error {
        let names = known_names(&self.dataset, &self.aliases, &self.derived);
        let hint = closest(variable, names.iter().map(String::as_str))
            .map(|name| {
                text![
                    " (did you mean ",
                    Setting::Map.entry_text(variable, name),
                    "?)"
                ]
            })
            .unwrap_or_default();
        Error::Data {
            location: file_location(&self.dataset, Some(variable)),
            message: text![
                format!(
                    "the law '{}' reads the variable '{variable}', but the data has no column, ",
                    law.label()
                ),
                Setting::Map.subject(),
                " name or ",
                Setting::Derive.subject(),
                format!(" name '{variable}'"),
            ],
            fix: text![
                "name the column that holds it with ",
                Setting::Map.entry_text(variable, "COLUMN"),
                " or compute it with ",
                Setting::Derive.entry_text(variable, "EXPR"),
                hint,
                format!("; the columns are {}", list(self.dataset.column_names())),
            ],
        }
    }
}

/// A law that reads the target as one of its variables fits it perfectly and predicts
/// nothing: a formula's error points at the name, a catalog law's names the variable.
fn target_as_variable(law: &Law, variable: &str, target: &str) -> Error {
    let alias = if variable == target {
        String::new()
    } else {
        format!(" (named '{variable}')")
    };
    let why = format!("the target column `{target}` as a variable{alias}; a law predicts the target from other columns");
    match &law.name {
        None => Error::Formula {
            formula: law.formula.clone(),
            position: law.position_of(variable).unwrap_or(0),
            message: text![
                format!("the formula uses {why}: remove it from the formula, or choose another "),
                Setting::Target,
            ],
        }
        .within(Setting::Formula),
        Some(name) => Error::setting(
            Setting::Target,
            text![
                format!("the law '{name}' reads {why}: give "),
                Setting::Target.subject(),
                " the column the law predicts, or name another column for the variable with ",
                Setting::Map.entry_text(variable, "COLUMN"),
            ],
        ),
    }
}

/// A group of [`Table::group_rows`] by its columns' values, for messages: `k=v, k2=v2`.
pub fn describe_group(group: &std::collections::BTreeMap<String, String>) -> String {
    group
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}
