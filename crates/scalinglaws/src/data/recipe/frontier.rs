//! The sweep step of a recipe: with swept columns named (`sweep`), the prepared table becomes
//! one row per cell of the law's variables (or of an analysis's columns, for IsoFLOP profiles),
//! its frontier (the rule is `crate::data::sweep`'s).
//! The row kept is the cell's best run, so a later message names a row of the file, and its
//! target is the cell's frontier. Every value is read as the fit reads it, with the same
//! messages, before any cell is judged.

use std::borrow::Cow;
use std::collections::HashMap;

use super::{Recipe, Table};
use crate::data::sweep::{self, CellChoice, Frontier, FrontierCell, FrontierMethod, SweepColumns};
use crate::error::{Error, Result, Setting};
use crate::fit::{FitSettings, Space};
use crate::law::Law;
use crate::text;

/// What a frontier reads: each row's cell values and target, and the swept columns.
struct Cells<'a> {
    /// The names whose values make a cell (the law's variables, or an analysis's columns).
    names: &'a [String],
    /// Per name, its value in each row.
    values: &'a [Vec<f64>],
    /// The target in its own units, one per row.
    target: &'a [f64],
    /// The target's column.
    target_column: &'a str,
    /// The swept columns, as named.
    sweep: &'a [String],
    /// Each row's weight, when the fit has weights.
    weights: Option<&'a [f64]>,
}

impl Table {
    /// The table a fit of `law` reads: without a sweep in `recipe`, this one; with one, the
    /// table of each cell's frontier row and the record of the frontier. Every value is read
    /// as the fit reads it ([`Table::fit_data`]), with its messages.
    pub fn swept(
        &self,
        law: &Law,
        recipe: &Recipe,
        settings: &FitSettings,
    ) -> Result<(Cow<'_, Table>, Option<Frontier>)> {
        if recipe.sweep.is_empty() {
            return Ok((Cow::Borrowed(self), None));
        }
        let space = settings.space;
        let counted = settings
            .family
            .is_some_and(|f| f.kind.counts() || f.kind.proportions());
        if counted || recipe.trials.is_some() || recipe.exposure.is_some() {
            return Err(Error::setting(
                Setting::Sweep,
                text![
                    Setting::Sweep.subject(),
                    ": a cell's frontier is the best of its runs, not a count of trials or \
                     events; fit a count or proportion family without a sweep"
                ],
            ));
        }
        self.check_sweep(
            &law.variables,
            "the law's variable",
            &recipe.target,
            &recipe.sweep,
        )?;
        let data = self.fit_data(law, recipe, space)?;
        let target_column = self.require(&recipe.target, &Setting::Target.subject().into())?;
        let cells = Cells {
            names: &law.variables,
            values: &data.variables,
            target: &data.target,
            target_column,
            sweep: &recipe.sweep,
            weights: data.weights.as_deref(),
        };
        let (table, frontier) = self.frontier_of(&cells, space)?;
        Ok((Cow::Owned(table), Some(frontier)))
    }

    /// [`Table::swept`] for an analysis that fits no law (IsoFLOP profiles): cells by the
    /// columns `cells`, the target positive (it is compared in log space).
    pub fn swept_by(
        &self,
        cells: &[String],
        target: &str,
        sweep: &[String],
    ) -> Result<(Cow<'_, Table>, Option<Frontier>)> {
        if sweep.is_empty() {
            return Ok((Cow::Borrowed(self), None));
        }
        self.check_sweep(cells, "the column", target, sweep)?;
        let values = cells
            .iter()
            .map(|name| {
                let column = self.require(name, &Setting::Sweep.subject().into())?;
                self.dataset.finite(column)
            })
            .collect::<Result<Vec<_>>>()?;
        let target_column = self.require(target, &Setting::Target.subject().into())?;
        let why = "a sweep's frontier compares losses in log space";
        let losses = self.dataset.positive(target_column, why)?;
        let cells = Cells {
            names: cells,
            values: &values,
            target: &losses,
            target_column,
            sweep,
            weights: None,
        };
        let (table, frontier) = self.frontier_of(&cells, Space::Log)?;
        Ok((Cow::Owned(table), Some(frontier)))
    }

    /// The table of each cell's frontier row and the record of the frontier.
    fn frontier_of(&self, cells: &Cells<'_>, space: Space) -> Result<(Table, Frontier)> {
        let target: Vec<f64> = match space {
            Space::Log => cells.target.iter().map(|y| y.ln()).collect(),
            Space::Linear => cells.target.to_vec(),
        };
        let settings = self.swept_settings(cells)?;
        let cell_of_row = cell_numbers(cells.values, cells.target.len());
        let columns = SweepColumns {
            cell_of_row: &cell_of_row,
            settings: &settings,
            target: &target,
            weights: cells.weights,
        };
        let choices = sweep::frontier(&columns);
        let table = self.frontier_table(cells, &choices, space)?;
        let frontier = Frontier {
            columns: cells.sweep.to_vec(),
            variables: cells.names.to_vec(),
            runs: cells.target.len(),
            cells: self.frontier_cells(&cell_of_row, cells, &choices, space),
            at_edge: choices
                .iter()
                .filter(|c| c.reason == Some(sweep::BestReason::Edge))
                .count(),
            choice_sd: sweep::choice_sd(&columns, &choices),
        };
        Ok((table, frontier))
    }

    /// Each swept column's values (a cell that is not a number names the file, row and column,
    /// within the sweep setting), refused when they copy the target, a cell's column or an
    /// earlier swept column row for row (a `derive` of one of them).
    fn swept_settings(&self, cells: &Cells<'_>) -> Result<Vec<Vec<f64>>> {
        let mut settings: Vec<Vec<f64>> = Vec::with_capacity(cells.sweep.len());
        for name in cells.sweep {
            let column = self.require(name, &Setting::Sweep.subject().into())?;
            let values = self
                .dataset
                .finite(column)
                .map_err(|e| e.within(Setting::Sweep.text(name.as_str())))?;
            let same = |other: &[f64]| other.len() == values.len() && other == values.as_slice();
            if same(cells.target) {
                return Err(sweep_error(name, "copies the target row for row"));
            }
            if let Some(i) = cells.values.iter().position(|v| same(v)) {
                let why = format!(
                    "copies {} row for row, which places a run in its cell",
                    cells.names[i]
                );
                return Err(sweep_error(name, &why));
            }
            if settings.iter().any(|s| same(s)) {
                return Err(sweep_error(
                    name,
                    "copies an earlier swept column row for row",
                ));
            }
            settings.push(values);
        }
        Ok(settings)
    }

    /// The swept columns exist, are named once, and are neither the target nor one of the
    /// names that make a cell (`role` says what those are).
    fn check_sweep(
        &self,
        cells: &[String],
        role: &str,
        target: &str,
        sweep: &[String],
    ) -> Result<()> {
        for (i, name) in sweep.iter().enumerate() {
            let column = self.require(name, &Setting::Sweep.subject().into())?;
            if sweep[..i].iter().any(|n| self.resolve(n) == Some(column)) {
                return Err(sweep_error(
                    name,
                    "is named twice; name each swept column once",
                ));
            }
            if self.resolve(target) == Some(column) {
                return Err(sweep_error(
                    name,
                    "is the target; sweep the settings that differ between a cell's runs",
                ));
            }
            if let Some(v) = cells.iter().find(|v| self.resolve(v) == Some(column)) {
                return Err(sweep_error(
                    name,
                    &format!(
                        "is {role} {v}, which places a run in its cell; sweep over settings \
                         that differ between a cell's runs"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The best run of each cell, in file order, its target replaced by the cell's frontier.
    fn frontier_table(
        &self,
        cells: &Cells<'_>,
        choices: &[CellChoice],
        space: Space,
    ) -> Result<Table> {
        let mut frontier_of_row: Vec<Option<f64>> = vec![None; cells.target.len()];
        for choice in choices {
            frontier_of_row[choice.best] = Some(in_units(choice, cells.target, space));
        }
        let keep: Vec<bool> = frontier_of_row.iter().map(Option::is_some).collect();
        let mut table = self.keep_rows(&keep);
        table.dataset.set_numeric(
            cells.target_column,
            frontier_of_row.into_iter().flatten().collect(),
        )?;
        Ok(table)
    }

    /// The record of each cell: its runs' file rows, its best run and its frontier.
    fn frontier_cells(
        &self,
        cell_of_row: &[usize],
        cells: &Cells<'_>,
        choices: &[CellChoice],
        space: Space,
    ) -> Vec<FrontierCell> {
        let file_row = |row: usize| self.file_row(row).unwrap_or(row + 1);
        sweep::cells(cell_of_row)
            .into_iter()
            .zip(choices)
            .map(|(rows, choice)| FrontierCell {
                values: cells.values.iter().map(|v| v[choice.best]).collect(),
                rows: rows.into_iter().map(file_row).collect(),
                best_row: file_row(choice.best),
                best: cells.target[choice.best],
                frontier: in_units(choice, cells.target, space),
                method: choice.method,
                reason: choice.reason,
                optimum: choice.optimum.clone(),
                axis: (choice.method == FrontierMethod::Curve).then_some(match choice.log {
                    true => sweep::Axis::Log,
                    false => sweep::Axis::Linear,
                }),
            })
            .collect()
    }
}

/// A choice's frontier in the target's units: the best run's own value unless a curve moved it.
fn in_units(choice: &CellChoice, target: &[f64], space: Space) -> f64 {
    match (choice.method, space) {
        (FrontierMethod::Best, _) => target[choice.best],
        (FrontierMethod::Curve, Space::Log) => choice.value.exp(),
        (FrontierMethod::Curve, Space::Linear) => choice.value,
    }
}

/// Each of `rows` rows' cell: rows with the same value of every column share one, numbered in
/// order of first appearance.
fn cell_numbers(values: &[Vec<f64>], rows: usize) -> Vec<usize> {
    let mut index: HashMap<Vec<u64>, usize> = HashMap::new();
    (0..rows)
        .map(|row| {
            let key: Vec<u64> = values.iter().map(|v| v[row].to_bits()).collect();
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
