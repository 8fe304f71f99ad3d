//! The sweep step of a recipe: with swept columns named (`sweep`), the prepared table becomes
//! one row per cell of the law's variables, its frontier (the rule is `crate::data::sweep`'s).
//! The row kept is the cell's best run, so a later message names a row of the file, and its
//! target is the cell's frontier. Every value is read as the fit reads it, with the same
//! messages, before any cell is judged.

use std::borrow::Cow;
use std::collections::HashMap;

use super::{Recipe, Table};
use crate::data::sweep::{self, CellChoice, Frontier, FrontierCell, FrontierMethod, SweepColumns};
use crate::error::{Error, Result, Setting};
use crate::fit::{FitData, Space};
use crate::law::Law;
use crate::text;

impl Table {
    /// The table a fit of `law` reads: without a sweep in `recipe`, this one; with one, the
    /// table of each cell's frontier row and the record of the frontier.
    pub fn swept(
        &self,
        law: &Law,
        recipe: &Recipe,
        space: Space,
    ) -> Result<(Cow<'_, Table>, Option<Frontier>)> {
        if recipe.sweep.is_empty() {
            return Ok((Cow::Borrowed(self), None));
        }
        self.check_sweep(law, recipe)?;
        let data = self.fit_data(law, recipe, space)?;
        let target: Vec<f64> = match space {
            Space::Log => data.target.iter().map(|y| y.ln()).collect(),
            Space::Linear => data.target.clone(),
        };
        let settings = recipe
            .sweep
            .iter()
            .map(|name| {
                let column = self.require(name, &Setting::Sweep.subject().into())?;
                self.dataset.finite(column)
            })
            .collect::<Result<Vec<_>>>()?;
        let cell_of_row = cell_numbers(&data);
        let columns = SweepColumns {
            cell_of_row: &cell_of_row,
            settings: &settings,
            target: &target,
        };
        let choices = sweep::frontier(&columns);
        let table = self.frontier_table(recipe, &data, &choices, space)?;
        let frontier = Frontier {
            columns: recipe.sweep.clone(),
            variables: law.variables.clone(),
            runs: data.target.len(),
            cells: self.frontier_cells(&cell_of_row, &data, &choices, space),
            at_edge: choices
                .iter()
                .filter(|c| c.reason == Some(sweep::BestReason::Edge))
                .count(),
            choice_sd: sweep::choice_sd(&columns, &choices),
        };
        Ok((Cow::Owned(table), Some(frontier)))
    }

    /// The swept columns exist, are named once, and are neither the target nor a law variable;
    /// the recipe has no count family's trials or exposure (a frontier is no count).
    fn check_sweep(&self, law: &Law, recipe: &Recipe) -> Result<()> {
        if recipe.trials.is_some() || recipe.exposure.is_some() {
            return Err(Error::setting(
                Setting::Sweep,
                text![
                    Setting::Sweep.subject(),
                    ": a cell's frontier is the best of its runs, not a count of trials or \
                     events; fit a count or proportion family without a sweep"
                ],
            ));
        }
        for (i, name) in recipe.sweep.iter().enumerate() {
            let column = self.require(name, &Setting::Sweep.subject().into())?;
            if recipe.sweep[..i]
                .iter()
                .any(|n| self.resolve(n) == Some(column))
            {
                return Err(sweep_error(
                    name,
                    "is named twice; name each swept column once",
                ));
            }
            if self.resolve(&recipe.target) == Some(column) {
                return Err(sweep_error(
                    name,
                    "is the target; sweep the settings that differ between a cell's runs",
                ));
            }
            if let Some(v) = law
                .variables
                .iter()
                .find(|v| self.resolve(v) == Some(column))
            {
                return Err(sweep_error(
                    name,
                    &format!(
                        "is the law's variable {v}, which a cell's frontier optimises away; \
                         sweep over settings the law does not read, or fit the law to every run"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The best run of each cell, in file order, its target replaced by the cell's frontier.
    fn frontier_table(
        &self,
        recipe: &Recipe,
        data: &FitData,
        choices: &[CellChoice],
        space: Space,
    ) -> Result<Table> {
        let mut frontier_of_row: Vec<Option<f64>> = vec![None; data.target.len()];
        for choice in choices {
            frontier_of_row[choice.best] = Some(in_units(choice, data, space));
        }
        let keep: Vec<bool> = frontier_of_row.iter().map(Option::is_some).collect();
        let mut table = self.keep_rows(&keep);
        let column = self.require(&recipe.target, &Setting::Target.subject().into())?;
        table
            .dataset
            .set_numeric(column, frontier_of_row.into_iter().flatten().collect())?;
        Ok(table)
    }

    /// The record of each cell: its runs' file rows, its best run and its frontier.
    fn frontier_cells(
        &self,
        cell_of_row: &[usize],
        data: &FitData,
        choices: &[CellChoice],
        space: Space,
    ) -> Vec<FrontierCell> {
        let file_row = |row: usize| self.file_row(row).unwrap_or(row + 1);
        sweep::cells(cell_of_row)
            .into_iter()
            .zip(choices)
            .map(|(rows, choice)| FrontierCell {
                values: data.variables.iter().map(|v| v[choice.best]).collect(),
                rows: rows.into_iter().map(file_row).collect(),
                best_row: file_row(choice.best),
                best: data.target[choice.best],
                frontier: in_units(choice, data, space),
                method: choice.method,
                reason: choice.reason,
                optimum: choice.optimum.clone(),
            })
            .collect()
    }
}

/// A choice's frontier in the target's units: the best run's own value unless a curve moved it.
fn in_units(choice: &CellChoice, data: &FitData, space: Space) -> f64 {
    match (choice.method, space) {
        (FrontierMethod::Best, _) => data.target[choice.best],
        (FrontierMethod::Curve, Space::Log) => choice.value.exp(),
        (FrontierMethod::Curve, Space::Linear) => choice.value,
    }
}

/// Each row's cell: rows with the same value of every law variable share one, numbered in
/// order of first appearance.
fn cell_numbers(data: &FitData) -> Vec<usize> {
    let mut index: HashMap<Vec<u64>, usize> = HashMap::new();
    (0..data.target.len())
        .map(|row| {
            let key: Vec<u64> = data.variables.iter().map(|v| v[row].to_bits()).collect();
            let next = index.len();
            *index.entry(key).or_insert(next)
        })
        .collect()
}

fn sweep_error(name: &str, why: &str) -> Error {
    Error::setting(
        Setting::Sweep,
        text![Setting::Sweep.text(name), format!(": the column {why}")],
    )
}
