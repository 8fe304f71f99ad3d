//! Backtests of LR-law extrapolation, in D against in N (a 2026 study of learning-rate transfer finds
//! D-extrapolation the more reliable): hold out the longest horizons at every model size, or
//! the largest model sizes, refit the law on the rest with the chosen method and form, and
//! score each held-out cell that has an interior optimum:
//! - the log₂ error of the predicted optimal LR (1 = a factor of two);
//! - whether the prediction interval covers the cell's optimum: Var = Var(law) + the cell's
//!   own vertex variance (times s² for the law over cells);
//! - the loss the error costs on that cell's own parabola, k·(ln lr̂ − ln lr*)².

use schemars::JsonSchema;
use serde::Serialize;

use super::cells::{key, CellStatus, CellWork};
use super::law::{Form, Method};
use super::{fit_law, LrSettings};

/// One held-out cell.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "LrHeldOut")]
pub struct HeldOut {
    /// Model parameters N.
    #[serde(rename = "N")]
    pub n: f64,
    /// Training tokens D.
    #[serde(rename = "D")]
    pub d: f64,
    /// The cell's own optimum.
    pub lr_opt: f64,
    /// The law's prediction of the optimum.
    pub predicted: f64,
    /// Prediction interval for the cell's optimum (None without a noise level).
    pub pi: Option<[f64; 2]>,
    /// log₂(predicted / lr_opt).
    pub log2_error: f64,
    /// Whether `pi` covers `lr_opt`.
    pub covered: Option<bool>,
    /// Loss paid on this cell for training at the predicted LR instead of its optimum.
    pub loss_penalty: Option<f64>,
}

/// One extrapolation direction.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "LrBacktestSplit")]
pub struct Split {
    /// Which cells trained and which were held out.
    pub description: String,
    /// Cells the law was refitted to.
    pub train_cells: usize,
    /// Held-out cells, and how many of them have an interior optimum to score.
    pub held_out_cells: usize,
    /// The held-out cells scored.
    pub scored: Vec<HeldOut>,
    /// Mean |log₂ error|: 1 means a factor of two off.
    pub mean_abs_log2_error: Option<f64>,
    /// Mean signed log₂ error (positive: the law predicts too large an LR).
    pub bias_log2: Option<f64>,
    /// Share of the scored cells inside their prediction interval.
    pub coverage: Option<f64>,
    /// Mean of `loss_penalty`.
    pub mean_loss_penalty: Option<f64>,
    /// Why the split has no scores.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The law's extrapolation in D and in N, scored on held-out cells.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "LrBacktest")]
pub struct Backtest {
    /// The method of the law backtested.
    pub method: Method,
    /// The form of the law backtested.
    pub form: Form,
    /// The share of the largest scales held out.
    pub holdout: f64,
    /// Fit on the shorter horizons at every N, predict the longest.
    pub d_extrapolation: Split,
    /// Fit on the smaller models, predict the largest.
    pub n_extrapolation: Split,
}

pub(crate) fn run(works: &[CellWork], lr_cells: &[usize], settings: &LrSettings) -> Backtest {
    let by_d = hold_out_longest(works, lr_cells, settings.holdout);
    let by_n = hold_out_largest(works, lr_cells, settings.holdout);
    Backtest {
        method: settings.method,
        form: settings.form,
        holdout: settings.holdout,
        d_extrapolation: score(
            works,
            lr_cells,
            &by_d,
            format!(
                "at every N, fit on the shorter horizons and predict the longest {:.0}% of its D values",
                settings.holdout * 100.0
            ),
            settings,
        ),
        n_extrapolation: score(
            works,
            lr_cells,
            &by_n,
            format!(
                "fit on the smaller models and predict the largest {:.0}% of the N values",
                settings.holdout * 100.0
            ),
            settings,
        ),
    }
}

/// How many of `count` distinct values the held-out fraction takes: at least one, and one
/// fewer than all.
fn held_count(count: usize, fraction: f64) -> usize {
    ((count as f64 * fraction).ceil() as usize).clamp(1, count.saturating_sub(1).max(1))
}

fn distinct_sorted(values: impl Iterator<Item = i64>) -> Vec<i64> {
    let mut keys: Vec<i64> = values.collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// For every N with at least two horizons, its cells at the largest D values.
fn hold_out_longest(works: &[CellWork], lr_cells: &[usize], fraction: f64) -> Vec<bool> {
    let mut held = vec![false; works.len()];
    let sizes = distinct_sorted(lr_cells.iter().map(|&i| key(works[i].cell.n)));
    for size in sizes {
        let cells: Vec<usize> = lr_cells
            .iter()
            .copied()
            .filter(|&i| key(works[i].cell.n) == size)
            .collect();
        let horizons = distinct_sorted(cells.iter().map(|&i| key(works[i].cell.d)));
        if horizons.len() < 2 {
            continue;
        }
        let cut = horizons[horizons.len() - held_count(horizons.len(), fraction)];
        for i in cells {
            held[i] = key(works[i].cell.d) >= cut;
        }
    }
    held
}

/// The cells of the largest model sizes.
fn hold_out_largest(works: &[CellWork], lr_cells: &[usize], fraction: f64) -> Vec<bool> {
    let mut held = vec![false; works.len()];
    let sizes = distinct_sorted(lr_cells.iter().map(|&i| key(works[i].cell.n)));
    if sizes.len() < 2 {
        return held;
    }
    let cut = sizes[sizes.len() - held_count(sizes.len(), fraction)];
    for &i in lr_cells {
        held[i] = key(works[i].cell.n) >= cut;
    }
    held
}

fn score(
    works: &[CellWork],
    lr_cells: &[usize],
    held: &[bool],
    description: String,
    settings: &LrSettings,
) -> Split {
    let train: Vec<usize> = lr_cells.iter().copied().filter(|&i| !held[i]).collect();
    let test: Vec<usize> = lr_cells.iter().copied().filter(|&i| held[i]).collect();
    let mut split = Split {
        description,
        train_cells: train.len(),
        held_out_cells: test.len(),
        scored: Vec::new(),
        mean_abs_log2_error: None,
        bias_log2: None,
        coverage: None,
        mean_loss_penalty: None,
        note: None,
    };
    if test.is_empty() {
        split.note = Some("nothing to hold out in this direction".into());
        return split;
    }
    let Some(law) = fit_law(
        works,
        &train,
        (settings.method, settings.form),
        None,
        settings,
    ) else {
        split.note = Some("the law could not be fitted on the training cells".into());
        return split;
    };
    let z = law.quantile;
    for &i in &test {
        let cell = &works[i].cell;
        let (Some(lr_opt), CellStatus::Ok) = (cell.lr_opt, cell.status) else {
            continue;
        };
        let (mean, se_law) = law.log_lr(cell.n, cell.d);
        let cell_var = cell.se_log.map(|se| match law.method {
            Method::Cells => law.scale.powi(2) * se * se,
            Method::Joint => se * se,
        });
        let pi = cell_var.map(|v| {
            let half = z * (se_law * se_law + v).sqrt();
            [(mean - half).exp(), (mean + half).exp()]
        });
        let error = mean - lr_opt.ln();
        split.scored.push(HeldOut {
            n: cell.n,
            d: cell.d,
            lr_opt,
            predicted: mean.exp(),
            pi,
            log2_error: error / std::f64::consts::LN_2,
            covered: pi.map(|[lo, hi]| lo <= lr_opt && lr_opt <= hi),
            loss_penalty: cell.curvature.map(|k| k * error * error),
        });
    }
    summarise(&mut split);
    split
}

fn summarise(split: &mut Split) {
    let scored = &split.scored;
    if scored.is_empty() {
        split.note = Some("no held-out cell has an interior optimum to score".into());
        return;
    }
    let n = scored.len() as f64;
    split.mean_abs_log2_error = Some(scored.iter().map(|h| h.log2_error.abs()).sum::<f64>() / n);
    split.bias_log2 = Some(scored.iter().map(|h| h.log2_error).sum::<f64>() / n);
    let covered: Vec<bool> = scored.iter().filter_map(|h| h.covered).collect();
    split.coverage = (!covered.is_empty())
        .then(|| covered.iter().filter(|c| **c).count() as f64 / covered.len() as f64);
    let penalties: Vec<f64> = scored.iter().filter_map(|h| h.loss_penalty).collect();
    split.mean_loss_penalty =
        (!penalties.is_empty()).then(|| penalties.iter().sum::<f64>() / penalties.len() as f64);
}
