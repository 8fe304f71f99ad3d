//! From a dataset to a [`Table`]: the recipe's maps are checked, its derived columns computed
//! in order on every row and its filters applied, counting the rows they remove; a derived
//! value that is not finite is an error only when its row is kept.

use std::collections::HashMap;

use super::names::{known_names, resolve};
use super::syntax::is_identifier;
use super::{Recipe, Table};
use crate::data::Dataset;
use crate::error::{Error, Result, Setting, Text};
use crate::law::expr::Expr;
use crate::suggest::closest;
use crate::text;

/// Map alias → column, later ones winning.
type Aliases = HashMap<String, String>;
/// Derived name → its text (`D=C/(6*N)`).
type Derived = HashMap<String, String>;
/// Each derived column's rows whose value is not finite, with the message for each.
type BadRows = Vec<(String, Vec<(usize, String)>)>;

impl Table {
    /// Applies the recipe's maps, derived columns and filters to `dataset`.
    pub fn prepare(mut dataset: Dataset, recipe: &Recipe) -> Result<Table> {
        let rows_read = dataset.n_rows();
        let aliases = check_maps(&dataset, recipe)?;
        let (derived, bad_derived) = derive_columns(&mut dataset, &aliases, recipe)?;
        let keep = apply_filters(&dataset, &aliases, &derived, recipe)?;
        check_kept_derived(&dataset, &bad_derived, &keep)?;
        let kept = keep.iter().filter(|k| **k).count();
        if kept == 0 {
            return Err(Error::setting(
                Setting::Where,
                text![
                    format!("{}: the ", dataset.source()),
                    Setting::Where.subject(),
                    format!(" filters removed all {rows_read} rows; nothing is left to fit"),
                ],
            ));
        }
        let dataset = if kept < rows_read {
            dataset.filter(&keep)
        } else {
            dataset
        };
        Ok(Table {
            dataset,
            aliases,
            derived,
            rows_read,
            rows_filtered: rows_read - kept,
        })
    }
}

/// The map aliases, each naming a column of `dataset`, none given twice nor derived too.
fn check_maps(dataset: &Dataset, recipe: &Recipe) -> Result<Aliases> {
    let mut aliases = HashMap::new();
    for (alias, column) in &recipe.maps {
        dataset
            .column(column)
            .map_err(|e| e.within(Setting::Map.entry_text(alias, column)))?;
        if aliases.insert(alias.clone(), column.clone()).is_some() {
            return Err(Error::setting(
                Setting::Map,
                text![
                    Setting::Map.subject(),
                    format!(": '{alias}' is given twice")
                ],
            ));
        }
    }
    if let Some(derive) = recipe
        .derives
        .iter()
        .find(|d| aliases.contains_key(&d.name))
    {
        let name = &derive.name;
        return Err(Error::setting(
            Setting::Derive,
            text![
                Setting::Map.entry_text(name.as_str(), aliases[name].as_str()),
                " and ",
                Setting::Derive.text(derive.text.as_str()),
                format!(
                    " both define {name}: one name can read a column or be computed, not both; \
                     rename one of them"
                )
            ],
        ));
    }
    Ok(aliases)
}

/// Computes the derived columns in order on every row (each may use the earlier ones) and adds
/// them to `dataset`; the rows where a column is not finite are returned, not yet an error,
/// since a filter may remove them (a column derived twice keeps only its last rows).
fn derive_columns(
    dataset: &mut Dataset,
    aliases: &Aliases,
    recipe: &Recipe,
) -> Result<(Derived, BadRows)> {
    let rows_read = dataset.n_rows();
    let mut derived: Derived = HashMap::new();
    let mut bad_derived: BadRows = Vec::new();
    for derive in &recipe.derives {
        let columns = columns_for(
            dataset,
            aliases,
            &derived,
            (&derive.expr, &derive.text, derive.offset),
        )
        .map_err(|e| e.within(Setting::Derive.subject()))?;
        let values: Vec<f64> = (0..rows_read)
            .map(|row| evaluate(&derive.expr, &columns, row))
            .collect();
        let bad: Vec<(usize, String)> = values
            .iter()
            .enumerate()
            .filter(|(_, value)| !value.is_finite())
            .map(|(row, value)| (row, describe_row(&derive.text, *value, &columns, row)))
            .collect();
        dataset.set_numeric(&derive.name, values)?;
        derived.insert(derive.name.clone(), derive.text.clone());
        bad_derived.retain(|(name, _)| *name != derive.name);
        bad_derived.push((derive.name.clone(), bad));
    }
    Ok((derived, bad_derived))
}

/// Which rows every filter keeps.
fn apply_filters(
    dataset: &Dataset,
    aliases: &Aliases,
    derived: &Derived,
    recipe: &Recipe,
) -> Result<Vec<bool>> {
    let mut keep = vec![true; dataset.n_rows()];
    for filter in &recipe.filters {
        let within = |e: Error| e.within(Setting::Where.subject());
        let left = columns_for(dataset, aliases, derived, (&filter.left, &filter.text, 0))
            .map_err(within)?;
        let right = columns_for(
            dataset,
            aliases,
            derived,
            (&filter.right, &filter.text, filter.right_offset),
        )
        .map_err(within)?;
        for (row, kept) in keep.iter_mut().enumerate() {
            let holds = filter.comparison.holds(
                evaluate(&filter.left, &left, row),
                evaluate(&filter.right, &right, row),
            );
            *kept &= holds;
        }
    }
    Ok(keep)
}

/// The first kept row of a derived column whose value is not finite, as an error.
fn check_kept_derived(dataset: &Dataset, bad_derived: &BadRows, keep: &[bool]) -> Result<()> {
    for (name, bad) in bad_derived {
        if let Some((row, description)) = bad.iter().find(|(row, _)| keep[*row]) {
            return Err(Error::Data {
                location: dataset.location(*row, Some(name)),
                message: description.clone().into(),
                fix: text![
                    "correct the row's inputs, or filter the row out with ",
                    Setting::Where
                ],
            });
        }
    }
    Ok(())
}

/// The values of every identifier of `expr` (with its text and its offset in that text), after
/// checking that each names a column, alias or derived column (an unknown name is a formula
/// error at its position in the text).
fn columns_for(
    dataset: &Dataset,
    aliases: &HashMap<String, String>,
    derived: &HashMap<String, String>,
    (expr, text, offset): (&Expr, &str, usize),
) -> Result<Vec<(String, Vec<f64>)>> {
    let mut unknown: Option<(String, usize)> = None;
    let mut wanted: Vec<String> = Vec::new();
    expr.for_each_ident(&mut |name, position| {
        if resolve(dataset, aliases, derived, name).is_none() {
            unknown.get_or_insert((name.to_string(), position));
        } else if !wanted.iter().any(|w| w == name) {
            wanted.push(name.to_string());
        }
    });
    if let Some((name, position)) = unknown {
        let names = known_names(dataset, aliases, derived);
        let hint = closest(&name, names.iter().map(String::as_str))
            .map(|closest| format!(" (did you mean '{closest}'?)"))
            .unwrap_or_default();
        let spaced: Vec<&String> = dataset
            .column_names()
            .iter()
            .filter(|column| !is_identifier(column))
            .collect();
        let map_hint = match spaced.first() {
            Some(column) => text![
                format!("; name columns such as '{column}' with "),
                Setting::Map.entry_text("VAR", column.as_str()),
                " to use them here"
            ],
            None => Text::default(),
        };
        return Err(Error::Formula {
            formula: text.to_string(),
            position: offset + position,
            message: text![
                format!("'{name}' is not a column, a "),
                Setting::Map.subject(),
                " name or an earlier ",
                Setting::Derive.subject(),
                format!(" name{hint}"),
                map_hint,
            ],
        });
    }
    wanted
        .into_iter()
        .map(|name| {
            let column = resolve(dataset, aliases, derived, &name).unwrap_or(&name);
            let values = dataset.numeric_or_missing(column)?;
            Ok((name, values))
        })
        .collect()
}

fn evaluate(expr: &Expr, columns: &[(String, Vec<f64>)], row: usize) -> f64 {
    expr.eval_f64(&|name| {
        columns
            .iter()
            .find(|(column, _)| column == name)
            .and_then(|(_, values)| values.get(row).copied())
    })
    .unwrap_or(f64::NAN)
}

/// "D=C/(6*N) gives NaN (C = 1e20, N = 0)".
fn describe_row(text: &str, value: f64, columns: &[(String, Vec<f64>)], row: usize) -> String {
    let inputs: Vec<String> = columns
        .iter()
        .map(|(name, values)| match values[row] {
            value if value.is_nan() => format!("{name} is empty"),
            value => format!("{name} = {value}"),
        })
        .collect();
    if inputs.is_empty() {
        format!("{text} gives {value}, not a finite number")
    } else {
        format!(
            "{text} gives {value}, not a finite number ({})",
            inputs.join(", ")
        )
    }
}
