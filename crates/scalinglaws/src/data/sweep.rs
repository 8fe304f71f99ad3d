//! Sweeps: several runs per cell of the law's variables (one (N, D)) that differ only in swept
//! settings (learning rate, batch size, weight decay). A scaling law describes the best loss a
//! cell can reach, so it is fitted to each cell's frontier, not to every run: fitting every run
//! bends the law towards badly tuned arms, and pre-aggregating by hand hides both the choice and
//! what it costs (issue 51; Li, Kudugunta & Zettlemoyer 2025, "(Mis)Fitting Scaling Laws",
//! take the best learning rate per cell before fitting).
//!
//! This module holds the pure rule on plain columns ([`frontier`]); `data::recipe` reads the
//! table for it and builds the table of frontier rows. Per cell:
//!
//! - **curve**: when exactly one swept column varies in the cell, over three settings or more,
//!   and the best setting is not at an end of the sweep, the frontier is the minimum of the
//!   parabola through the best setting and its two neighbours, in the target's fitted space
//!   (log loss for log residuals) against the setting's log (its value when a setting of the
//!   cell is not positive; the cell records which): three-point parabolic interpolation (Press et al., *Numerical Recipes*, 3rd ed.,
//!   §10.3). Those three values bracket the minimum, so the parabola is convex and its vertex
//!   lies between the neighbours, never beyond what was swept.
//! - **best**: otherwise the best run, with the reason: one setting, two settings, the best at
//!   an end of the sweep (the optimum may lie beyond it: the frontier is then an upper bound,
//!   and [`Frontier::at_edge`] counts these cells), several swept columns varying, or a flat
//!   bracket.
//!
//! Runs of one setting (seeds, repeats) count as one setting at their best run. A run of weight
//! 0 (when the fit has weights) cannot be a cell's best unless every run of the cell has 0.
//!
//! The frontier's own uncertainty: [`Frontier::choice_sd`] is the root mean square, over the
//! curve cells, of the best run minus the curve's minimum in the fitted space: how far the choice
//! of estimator moves a cell's frontier. A new cell's frontier carries the same choice, so
//! prediction intervals add it to the residual scatter (`uncertainty::intervals`); the run-to-run
//! noise of the frontier values is already in that scatter.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How a cell's frontier was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FrontierMethod {
    /// The minimum of the parabola through the best setting and its two neighbours.
    Curve,
    /// The best run (see [`BestReason`]).
    Best,
}

/// Why a cell's frontier is its best run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BestReason {
    /// Every run of the cell has the same swept settings (one run, or repeats of one).
    OneSetting,
    /// The swept column takes two values in the cell: too few for a curve.
    TwoSettings,
    /// The best setting is the lowest or highest swept: the optimum may lie beyond the sweep,
    /// so the frontier is an upper bound.
    Edge,
    /// More than one swept column varies in the cell.
    SeveralColumns,
    /// The parabola through the best setting and its neighbours has no minimum (a loss that
    /// is not a finite number in the bracket; the best run is the first of equals, so a level
    /// cell is at its sweep's end instead).
    Flat,
}

/// One cell's frontier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FrontierCell {
    /// The cell's value of each law variable ([`Frontier::variables`]).
    pub values: Vec<f64>,
    /// The file rows of the cell's runs.
    pub rows: Vec<usize>,
    /// The file row of the cell's best run (the row that stands for the cell in the fit).
    pub best_row: usize,
    /// The best run's target, in the target's units.
    pub best: f64,
    /// The frontier, in the target's units (the best run's target unless the method is curve).
    pub frontier: f64,
    pub method: FrontierMethod,
    /// Why the best run was taken (None for a curve).
    pub reason: Option<BestReason>,
    /// Each swept column's setting at the frontier: the curve's vertex for the curve's column,
    /// the best run's setting otherwise.
    pub optimum: Vec<f64>,
    /// A curve's axis: `log` (the log of the setting, every setting of the cell positive) or
    /// `linear` (the setting itself); None for a best run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub axis: Option<Axis>,
}

/// The axis of a cell's curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    Log,
    Linear,
}

/// The frontier of a sweep, as a fit records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "SweepFrontier")]
pub struct Frontier {
    /// The swept columns, as named.
    pub columns: Vec<String>,
    /// The law's variables, whose values make a cell.
    pub variables: Vec<String>,
    /// The runs the sweep read (every row of the prepared data).
    pub runs: usize,
    /// One entry per cell, in the order of each cell's first run.
    pub cells: Vec<FrontierCell>,
    /// Cells whose best run is at an end of a sweep of three settings or more.
    pub at_edge: usize,
    /// The root mean square of (best run − curve minimum) over the curve cells, in the fitted
    /// space (None without a curve cell): added to a new run's scatter in prediction intervals.
    pub choice_sd: Option<f64>,
}

impl Frontier {
    /// The file rows of the runs that do not stand for their cell, in file order.
    pub fn discarded_rows(&self) -> Vec<usize> {
        let mut rows: Vec<usize> = self
            .cells
            .iter()
            .flat_map(|cell| cell.rows.iter().copied().filter(|r| *r != cell.best_row))
            .collect();
        rows.sort_unstable();
        rows
    }

    /// Cells whose frontier came from the curve.
    pub fn curve_cells(&self) -> usize {
        self.cells
            .iter()
            .filter(|c| c.method == FrontierMethod::Curve)
            .count()
    }

    /// A frontier read from a fit file holds what a fit writes: finite losses (positive when
    /// `log`), no frontier above its cell's best run, and the choice sd its curve cells give
    /// (it widens every prediction interval, so an edited one is refused, naming the key).
    pub fn check_read(&self, log: bool) -> crate::error::Result<()> {
        use crate::fit::edited;
        for (i, cell) in self.cells.iter().enumerate() {
            for (key, value) in [("best", cell.best), ("frontier", cell.frontier)] {
                if !value.is_finite() || (log && value <= 0.0) {
                    let what = "a finite loss (positive in log space)";
                    return Err(edited(&format!("sweep.cells[{i}].{key}"), value, what));
                }
            }
            if cell.frontier > cell.best * (1.0 + 1e-12) {
                let what = "at most its cell's best run";
                return Err(edited(
                    &format!("sweep.cells[{i}].frontier"),
                    cell.frontier,
                    what,
                ));
            }
        }
        let rms = gaps_rms(&self.cells, log);
        match (self.choice_sd, rms) {
            (None, None) => Ok(()),
            (Some(sd), Some(rms)) if (sd - rms).abs() <= 1e-9 * rms + 1e-12 => Ok(()),
            (sd, rms) => Err(edited(
                "sweep.choice_sd",
                sd.unwrap_or(f64::NAN),
                &format!(
                    "the root mean square of its curve cells' gaps ({})",
                    rms.map_or("none: no curve cell".into(), crate::error::short_number)
                ),
            )),
        }
    }
}

impl Frontier {
    /// The frontier of the cells `keep` (indices into `cells`) alone, its edge count and
    /// choice sd recomputed from them (`log`: the fit's residuals are in log space): what a fit
    /// of those cells' rows records, as a backtest's training fit.
    pub fn of_cells(&self, keep: &[usize], log: bool) -> Frontier {
        let cells: Vec<FrontierCell> = keep.iter().map(|&i| self.cells[i].clone()).collect();
        Frontier {
            columns: self.columns.clone(),
            variables: self.variables.clone(),
            runs: cells.iter().map(|c| c.rows.len()).sum(),
            at_edge: cells
                .iter()
                .filter(|c| c.reason == Some(BestReason::Edge))
                .count(),
            choice_sd: gaps_rms(&cells, log),
            cells,
        }
    }
}

/// The root mean square of (best run − frontier) over the curve cells, in the fitted space
/// (None without a curve cell).
fn gaps_rms(cells: &[FrontierCell], log: bool) -> Option<f64> {
    let space = |y: f64| if log { y.ln() } else { y };
    let gaps: Vec<f64> = cells
        .iter()
        .filter(|c| c.method == FrontierMethod::Curve)
        .map(|c| space(c.best) - space(c.frontier))
        .collect();
    (!gaps.is_empty()).then(|| (gaps.iter().map(|g| g * g).sum::<f64>() / gaps.len() as f64).sqrt())
}

/// The columns of a sweep, read from a table: which cell each row is in, each swept column's
/// settings and the target in the fitted space, all one value per row.
pub struct SweepColumns<'a> {
    /// Each row's cell (0-based, numbered in order of first appearance).
    pub cell_of_row: &'a [usize],
    /// Per swept column, its setting in each row.
    pub settings: &'a [Vec<f64>],
    /// The target of each row in the fitted space (log y for log residuals).
    pub target: &'a [f64],
    /// Each row's weight, when the fit has weights (a run of weight 0 cannot be a cell's best).
    pub weights: Option<&'a [f64]>,
}

/// A cell's frontier in the fitted space, before the record is worded in the target's units.
#[derive(Debug, Clone, PartialEq)]
pub struct CellChoice {
    /// The 0-based row (of the columns) of the best run.
    pub best: usize,
    /// The frontier in the fitted space.
    pub value: f64,
    pub method: FrontierMethod,
    pub reason: Option<BestReason>,
    pub optimum: Vec<f64>,
    /// Whether the curve was taken in the log of the setting (every setting of the cell
    /// positive) or in the setting itself.
    pub log: bool,
}

/// Each cell's rows, in order of the cells' numbers.
pub fn cells(cell_of_row: &[usize]) -> Vec<Vec<usize>> {
    let count = cell_of_row.iter().max().map_or(0, |m| m + 1);
    let mut cells = vec![Vec::new(); count];
    for (row, &cell) in cell_of_row.iter().enumerate() {
        cells[cell].push(row);
    }
    cells
}

/// The frontier of every cell (see the module's rules).
pub fn frontier(columns: &SweepColumns<'_>) -> Vec<CellChoice> {
    cells(columns.cell_of_row)
        .iter()
        .map(|rows| cell_frontier(columns, &weighted(columns, rows)))
        .collect()
}

/// The cell's runs that count: those of positive weight (a run of weight 0 is not fitted, so
/// it cannot stand for its cell), or every run when none has one.
fn weighted(columns: &SweepColumns<'_>, rows: &[usize]) -> Vec<usize> {
    let Some(weights) = columns.weights else {
        return rows.to_vec();
    };
    let counted: Vec<usize> = rows.iter().copied().filter(|&r| weights[r] > 0.0).collect();
    match counted.is_empty() {
        true => rows.to_vec(),
        false => counted,
    }
}

/// One cell's frontier.
fn cell_frontier(columns: &SweepColumns<'_>, rows: &[usize]) -> CellChoice {
    let best = best_row(columns, rows);
    let optimum_of_best: Vec<f64> = columns.settings.iter().map(|s| s[best]).collect();
    let best_choice = |reason| CellChoice {
        best,
        value: columns.target[best],
        method: FrontierMethod::Best,
        reason: Some(reason),
        optimum: optimum_of_best.clone(),
        log: true,
    };
    let varying: Vec<usize> = (0..columns.settings.len())
        .filter(|&c| {
            let first = columns.settings[c][rows[0]];
            rows.iter().any(|&r| columns.settings[c][r] != first)
        })
        .collect();
    let column = match varying.as_slice() {
        [] => return best_choice(BestReason::OneSetting),
        [column] => *column,
        _ => return best_choice(BestReason::SeveralColumns),
    };
    // The log of the setting when every setting of the cell is positive, else its value.
    let log = rows.iter().all(|&r| columns.settings[column][r] > 0.0);
    let points = setting_minima(columns, rows, column, log);
    let best_at = axis(columns.settings[column][best], log);
    let at = points.iter().position(|p| p.0 == best_at).unwrap_or(0);
    if points.len() < 3 {
        return best_choice(BestReason::TwoSettings);
    }
    if at == 0 || at + 1 == points.len() {
        return best_choice(BestReason::Edge);
    }
    match vertex(points[at - 1], points[at], points[at + 1]) {
        None => best_choice(BestReason::Flat),
        Some((u, value)) => {
            let mut optimum = optimum_of_best;
            optimum[column] = if log { u.exp() } else { u };
            CellChoice {
                best,
                value,
                method: FrontierMethod::Curve,
                reason: None,
                optimum,
                log,
            }
        }
    }
}

/// The row of the cell's lowest target (the first of equals, in file order).
fn best_row(columns: &SweepColumns<'_>, rows: &[usize]) -> usize {
    rows.iter()
        .copied()
        .min_by(|&a, &b| columns.target[a].total_cmp(&columns.target[b]))
        .unwrap_or(rows[0])
}

/// The cell's settings of `column` in increasing order (on the log axis when `log`), each with
/// the lowest target of its runs.
fn setting_minima(
    columns: &SweepColumns<'_>,
    rows: &[usize],
    column: usize,
    log: bool,
) -> Vec<(f64, f64)> {
    let mut points: Vec<(f64, f64)> = rows
        .iter()
        .map(|&r| (columns.settings[column][r], columns.target[r]))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    points.dedup_by(|later, earlier| later.0 == earlier.0);
    points.into_iter().map(|(x, y)| (axis(x, log), y)).collect()
}

/// A setting on the curve's axis: its log, or itself.
fn axis(x: f64, log: bool) -> f64 {
    if log {
        x.ln()
    } else {
        x
    }
}

/// The vertex (u, y) of the parabola through three points with increasing u whose middle y is
/// the lowest (None when the three are level). In Newton's form p(u) = y0 + d1 (u − u0) +
/// a (u − u0)(u − u1), with d1 ≤ 0 ≤ d2 so a ≥ 0; the vertex lies in [u0, u2].
pub fn vertex(p0: (f64, f64), p1: (f64, f64), p2: (f64, f64)) -> Option<(f64, f64)> {
    let d1 = (p1.1 - p0.1) / (p1.0 - p0.0);
    let d2 = (p2.1 - p1.1) / (p2.0 - p1.0);
    let a = (d2 - d1) / (p2.0 - p0.0);
    if !(a > 0.0) || !a.is_finite() {
        return None;
    }
    let u = (0.5 * (p0.0 + p1.0) - d1 / (2.0 * a)).clamp(p0.0, p2.0);
    let value = p0.1 + d1 * (u - p0.0) + a * (u - p0.0) * (u - p1.0);
    Some((u, value.min(p1.1)))
}

/// The root mean square of the best run minus the frontier over the curve cells (None without
/// one), in the fitted space.
pub fn choice_sd(columns: &SweepColumns<'_>, choices: &[CellChoice]) -> Option<f64> {
    let gaps: Vec<f64> = choices
        .iter()
        .filter(|c| c.method == FrontierMethod::Curve)
        .map(|c| columns.target[c.best] - c.value)
        .collect();
    (!gaps.is_empty()).then(|| (gaps.iter().map(|g| g * g).sum::<f64>() / gaps.len() as f64).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choices(cell: &[usize], lr: &[f64], loss: &[f64]) -> Vec<CellChoice> {
        let settings = vec![lr.to_vec()];
        frontier(&SweepColumns {
            cell_of_row: cell,
            settings: &settings,
            target: loss,
            weights: None,
        })
    }

    #[test]
    fn a_parabola_is_recovered_exactly() {
        // y = (ln lr − ln 0.0025)² + 2 sampled at 0.001, 0.002, 0.004: the vertex is at 0.0025.
        let lr = [0.001, 0.002, 0.004];
        let loss: Vec<f64> = lr
            .iter()
            .map(|x: &f64| (x.ln() - 0.0025f64.ln()).powi(2) + 2.0)
            .collect();
        let c = &choices(&[0, 0, 0], &lr, &loss)[0];
        assert_eq!(c.method, FrontierMethod::Curve);
        assert!((c.value - 2.0).abs() < 1e-12, "{}", c.value);
        assert!((c.optimum[0] / 0.0025 - 1.0).abs() < 1e-12);
        assert_eq!(c.best, 1);
    }

    #[test]
    fn the_best_run_stands_where_no_curve_can() {
        // An edge, two settings, one setting, and a level cell (its best run is the first of
        // equals, at the sweep's end).
        let cell = [0, 0, 0, 1, 1, 2, 3, 3, 3];
        let lr = [1.0, 2.0, 4.0, 1.0, 2.0, 1.0, 1.0, 2.0, 4.0];
        let loss = [3.0, 2.5, 2.4, 3.0, 2.9, 3.3, 2.0, 2.0, 2.0];
        let c = choices(&cell, &lr, &loss);
        let reasons: Vec<_> = c.iter().map(|c| c.reason).collect();
        assert_eq!(
            reasons,
            [
                Some(BestReason::Edge),
                Some(BestReason::TwoSettings),
                Some(BestReason::OneSetting),
                Some(BestReason::Edge)
            ]
        );
        assert_eq!(c[0].best, 2);
        assert!((c[0].value - 2.4).abs() < 1e-15);
    }

    #[test]
    fn repeats_of_one_setting_count_once_at_their_best() {
        let cell = [0, 0, 0, 0];
        let lr = [1.0, 2.0, 2.0, 4.0];
        let loss = [3.0, 2.6, 2.5, 2.8];
        let c = &choices(&cell, &lr, &loss)[0];
        assert_eq!(c.method, FrontierMethod::Curve);
        assert_eq!(c.best, 2);
        assert!(c.value <= 2.5);
    }

    #[test]
    fn a_setting_that_is_not_positive_changes_only_its_own_cells_axis() {
        // Two cells of the same parabola in ln lr; the second also has a run at lr = 0.
        let cell = [0, 0, 0, 1, 1, 1, 1];
        let lr = [0.001, 0.002, 0.004, 0.0, 0.001, 0.002, 0.004];
        let y = |x: f64| (x.ln() - 0.0025f64.ln()).powi(2) + 2.0;
        let loss = [
            y(0.001),
            y(0.002),
            y(0.004),
            9.0,
            y(0.001),
            y(0.002),
            y(0.004),
        ];
        let c = choices(&cell, &lr, &loss);
        assert!(c[0].log && !c[1].log);
        assert!((c[0].value - 2.0).abs() < 1e-12);
        assert!((c[0].optimum[0] / 0.0025 - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_tie_between_settings_is_judged_at_the_best_runs_own_setting() {
        // The best run (the first of two equal losses) is at 0.002, inside the sweep.
        let c = &choices(
            &[0, 0, 0, 0],
            &[0.001, 0.002, 0.004, 0.008],
            &[3.0, 2.5, 2.5, 3.0],
        )[0];
        assert_eq!(c.best, 1);
        assert_eq!(c.method, FrontierMethod::Curve);
    }

    #[test]
    fn a_run_of_weight_zero_cannot_stand_for_its_cell() {
        let settings = vec![vec![0.001, 0.002, 0.004]];
        let weights = [1.0, 0.0, 1.0];
        let c = &frontier(&SweepColumns {
            cell_of_row: &[0, 0, 0],
            settings: &settings,
            target: &[3.0, 2.0, 2.5],
            weights: Some(&weights),
        })[0];
        assert_eq!(c.best, 2);
        assert_eq!(c.reason, Some(BestReason::TwoSettings));
    }

    #[test]
    fn the_vertex_stays_inside_its_bracket() {
        let (u, y) = vertex((0.0, 1.0), (1.0, 0.0), (2.0, 1e-9)).unwrap();
        assert!((0.0..=2.0).contains(&u));
        assert!(y <= 0.0);
        assert!(vertex((0.0, 1.0), (1.0, 1.0), (2.0, 1.0)).is_none());
    }
}
