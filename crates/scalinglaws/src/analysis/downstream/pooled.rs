//! The pooled trajectory model. A task's accuracy at a larger model continues the local trend
//! of its largest observed models, and what it learns across tasks is how trends continue:
//!
//! - **across sizes** (a model not yet trained): a weighted line of accuracy in log10 compute
//!   through the `anchors` largest sizes at the target's token count; its slope is shrunk
//!   towards the precision-weighted mean slope of every informative task (an empirical-Bayes
//!   normal prior whose variance is the slopes' spread less their sampling variance; Efron &
//!   Morris 1975), and the extension is damped by a factor γ learned from rolling origins
//!   within the data (accuracy gains per decade of compute shrink as tasks saturate);
//! - **across checkpoints** (a model's own early checkpoints known): its last observed accuracy
//!   plus the gain the largest other models made between the same token counts, times a
//!   learned γ.
//!
//! This module gives the anchor, the trend (before γ) and their variances; `calibrate.rs`
//! learns γ and the interval's growth with distance.

use super::data::{binomial_variance, compute, DownstreamData, Series};
use super::trend::{weighted_line, Line};

/// One forecast before γ is applied: value = anchor + γ·trend; `variance` is the anchor's
/// (and the trend's at γ = 1); `horizon` is how far the target lies beyond the anchor (decades
/// of compute or of tokens).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Raw {
    pub anchor: f64,
    pub trend: f64,
    pub variance: f64,
    pub horizon: f64,
}

/// Without a question count an accuracy is taken to be known to ±1 point (the lines' Birge
/// ratios widen that when the points scatter more).
pub const SD_WITHOUT_COUNT: f64 = 0.01;

/// An accuracy's measurement variance: binomial, or [`SD_WITHOUT_COUNT`]² without a count.
pub fn noise(accuracy: f64, questions: Option<f64>) -> f64 {
    binomial_variance(accuracy, questions).unwrap_or(SD_WITHOUT_COUNT * SD_WITHOUT_COUNT)
}

/// The models (other than `exclude`) with an accuracy on `task` at `tokens` (or, for
/// models trained on fewer tokens, at their last checkpoint when `or_last`), at the
/// `anchors` largest distinct sizes: (model, params, tokens used, accuracy).
fn anchor_points(
    data: &DownstreamData,
    series: &[Vec<Series>],
    task: usize,
    tokens: f64,
    anchors: usize,
    exclude: Option<usize>,
    or_last: bool,
) -> Vec<(usize, f64, f64, f64)> {
    let value = |s: &Series| match s.at(tokens) {
        Some(a) => Some((tokens, a)),
        None if or_last && s.tokens.last().is_some_and(|&t| t < tokens) => s.last_until(tokens),
        None => None,
    };
    let mut points: Vec<(usize, f64, f64, f64)> = (0..data.models.len())
        .filter(|&m| Some(m) != exclude)
        .filter_map(|m| {
            let (used, a) = value(&series[m][task])?;
            Some((m, data.models[m].params, used, a))
        })
        .collect();
    let mut sizes: Vec<f64> = points.iter().map(|p| p.1).collect();
    sizes.sort_by(|a, b| b.total_cmp(a));
    sizes.dedup();
    let Some(&smallest_kept) = sizes.get(anchors.saturating_sub(1)).or(sizes.last()) else {
        return Vec::new();
    };
    points.retain(|p| p.1 >= smallest_kept);
    points
}

/// The across-size line of `task` at `tokens` (accuracy against log10 compute through the
/// largest sizes; a model trained on fewer tokens enters at its last checkpoint) and the
/// log10 compute of its largest anchor; None with fewer than two sizes.
pub fn size_line(
    data: &DownstreamData,
    series: &[Vec<Series>],
    task: usize,
    tokens: f64,
    anchors: usize,
) -> Option<(Line, f64)> {
    let points = anchor_points(data, series, task, tokens, anchors, None, true);
    let largest = points.iter().map(|p| p.1).fold(0.0, f64::max);
    if points.iter().all(|p| p.1 >= largest) {
        return None;
    }
    let questions = data.tasks[task].questions;
    let x: Vec<f64> = points.iter().map(|p| compute(p.1, p.2).log10()).collect();
    let y: Vec<f64> = points.iter().map(|p| p.3).collect();
    let w: Vec<f64> = y.iter().map(|&a| 1.0 / noise(a, questions)).collect();
    let anchor = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some((weighted_line(&x, &y, &w), anchor))
}

/// Empirical-Bayes shrinkage of slopes towards their precision-weighted mean: each slope
/// moves by its share of the total variance; the prior variance τ² is the slopes' spread less
/// their mean sampling variance (method of moments), floored at a thousandth of the spread.
/// Only the lines marked in `informs` set the prior (tasks unseen by the pooled model are
/// shrunk towards what the others teach); with fewer than three the slopes stay as they are.
pub fn shrink_slopes(lines: &mut [Option<Line>], informs: &[bool]) {
    let finite: Vec<Line> = lines
        .iter()
        .zip(informs)
        .filter_map(|(l, &i)| l.filter(|l| i && l.var_slope.is_finite() && l.var_slope > 0.0))
        .collect();
    if finite.len() < 3 {
        return;
    }
    let precision: f64 = finite.iter().map(|l| 1.0 / l.var_slope).sum();
    let mean = finite.iter().map(|l| l.slope / l.var_slope).sum::<f64>() / precision;
    let k = finite.len() as f64;
    let plain_mean = finite.iter().map(|l| l.slope).sum::<f64>() / k;
    let spread = finite
        .iter()
        .map(|l| (l.slope - plain_mean).powi(2))
        .sum::<f64>()
        / (k - 1.0);
    let noise = finite.iter().map(|l| l.var_slope).sum::<f64>() / k;
    let tau2 = (spread - noise).max(1e-3 * spread).max(1e-12);
    for line in lines.iter_mut().flatten() {
        let v = if line.var_slope.is_finite() {
            line.var_slope
        } else {
            f64::MAX
        };
        line.slope = (line.slope / v + mean / tau2) / (1.0 / v + 1.0 / tau2);
        line.var_slope = 1.0 / (1.0 / v + 1.0 / tau2);
    }
}

/// The across-size forecast at `x_target` (log10 compute) from a (shrunk) line whose largest
/// anchor is at `x_anchor`; `noise` is the new evaluation's own binomial variance.
pub fn size_forecast(line: &Line, x_anchor: f64, x_target: f64, noise: f64) -> Raw {
    let horizon = x_target - x_anchor;
    Raw {
        anchor: line.at(x_anchor),
        trend: line.slope * horizon,
        variance: line.var_at(x_anchor) + horizon * horizon * line.var_slope + noise,
        horizon: horizon.max(0.0),
    }
}

/// The across-checkpoint forecast of model `model` on `task` at `tokens`, from its own last
/// checkpoint at or before `own_until` and the gains of the `anchors` largest other sizes
/// between the two token counts. None when the model has no such checkpoint or no other model
/// spans both token counts.
pub fn checkpoint_forecast(
    data: &DownstreamData,
    series: &[Vec<Series>],
    model: usize,
    task: usize,
    tokens: f64,
    own_until: f64,
    anchors: usize,
) -> Option<Raw> {
    let (from, level) = series[model][task].last_until(own_until)?;
    let questions = data.tasks[task].questions;
    let mut gains = Vec::new();
    let mut weights = Vec::new();
    for (other, _, _, at_target) in
        anchor_points(data, series, task, tokens, anchors, Some(model), false)
    {
        let Some(start) = series[other][task].at(from) else {
            continue;
        };
        gains.push(at_target - start);
        weights.push(1.0 / (noise(at_target, questions) + noise(start, questions)));
    }
    if gains.is_empty() {
        return None;
    }
    let line = weighted_line(&vec![0.0; gains.len()], &gains, &weights);
    Some(Raw {
        anchor: level,
        trend: line.level,
        variance: noise(level, questions) + line.var_level + noise(level + line.level, questions),
        horizon: (tokens / from).log10().max(0.0),
    })
}
