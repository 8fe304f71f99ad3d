//! Per-cell learning-rate profiles: the runs of one (N, D) cell (and batch size, when given)
//! trace loss against ln lr; a parabola through the swept values nearest the lowest loss gives
//! the cell's optimal LR (its vertex), and Fieller's theorem gives the confidence set of that
//! vertex at a known loss noise σ. Cells whose best run sits at the smallest or largest swept LR
//! (the optimum lies at or beyond the edge), with fewer than three distinct LRs, or whose
//! parabola opens downward are flagged and kept out of the law over cells.
//!
//! The parabola is in x = ln lr with y = loss, as in the joint law of `joint.rs`:
//! L = m + k·(ln lr − ln lr*)². Fieller (1954, JRSS B 16, 175–185): the stationary point of
//! y = p₀ + p₁x + p₂x² is where the derivative g(x) = p₁ + 2p₂x vanishes; g(x) is linear in the
//! coefficients, so {x : g(x)² ≤ t²·Var g(x)} is an exact confidence set under Gaussian noise. It
//! is a bounded interval only when p₂ is significantly positive; otherwise no interval is given.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

/// Why a cell's optimum is (or is not) used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellStatus {
    /// An interior optimum from an upward parabola.
    Ok,
    /// The lowest loss is at the smallest swept LR: the optimum is at or below it.
    EdgeLow,
    /// The lowest loss is at the largest swept LR: the optimum is at or above it.
    EdgeHigh,
    /// Fewer than three distinct LRs (not counting diverged runs): no parabola.
    FewLrs,
    /// The parabola through the best LRs opens downward or is flat: no minimum.
    NoMinimum,
}

impl CellStatus {
    pub fn describe(self) -> &'static str {
        match self {
            CellStatus::Ok => "ok",
            CellStatus::EdgeLow => "edge: best at the smallest LR",
            CellStatus::EdgeHigh => "edge: best at the largest LR",
            CellStatus::FewLrs => "fewer than 3 LRs",
            CellStatus::NoMinimum => "no minimum (flat or concave)",
        }
    }
}

/// One cell's sweep and its optimum.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "LrCell")]
pub struct Cell {
    /// Model parameters N.
    #[serde(rename = "N")]
    pub n: f64,
    /// Training tokens D.
    #[serde(rename = "D")]
    pub d: f64,
    /// Batch size, when the data have one.
    #[serde(rename = "B", skip_serializing_if = "Option::is_none")]
    pub b: Option<f64>,
    /// Runs in the cell.
    pub runs: usize,
    /// Distinct LRs swept.
    pub lrs: usize,
    /// Runs left out of the parabola because their loss is more than the window's `max_rise`
    /// above the cell's best (diverged, or too far from the optimum for a parabola).
    pub far: usize,
    /// The smallest and largest swept LR.
    pub lr_range: [f64; 2],
    /// The swept LR with the lowest loss.
    pub lr_best: f64,
    /// The loss of the run at `lr_best`.
    pub loss_best: f64,
    /// The parabola's vertex (also for edge cells, where it extrapolates beyond the sweep).
    pub lr_opt: Option<f64>,
    /// The parabola's loss at its vertex.
    pub loss_opt: Option<f64>,
    /// Fieller confidence interval of `lr_opt` (None when unbounded or no noise level is known).
    pub ci: Option<[f64; 2]>,
    /// Delta-method standard error of ln `lr_opt` (the weight of the cell in the law).
    pub se_log: Option<f64>,
    /// The parabola's coefficient k in L = m + k·(ln lr − ln lr*)²: the loss paid per squared
    /// e-fold of LR away from the optimum.
    pub curvature: Option<f64>,
    /// Whether the best swept LR is the smallest or the largest swept.
    pub edge: bool,
    /// Whether the optimum was located, and if not why.
    pub status: CellStatus,
    /// Whether the cell feeds the law over cells (status ok, and at the best batch size).
    pub used: bool,
}

/// A cell with the points the fits need.
#[derive(Debug, Clone)]
pub(crate) struct CellWork {
    pub cell: Cell,
    /// ln lr and loss of the runs in the window around the best LR, sorted by lr.
    pub x: Vec<f64>,
    pub y: Vec<f64>,
    /// Distinct LRs in the window.
    pub window_lrs: usize,
    pub parabola: Option<Parabola>,
}

/// y = p₀ + p₁(x − centre) + p₂(x − centre)² by least squares, with the unscaled covariance
/// (XᵀX)⁻¹ of (p₁, p₂).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Parabola {
    pub centre: f64,
    pub p: [f64; 3],
    pub v: [[f64; 2]; 2],
    pub rss: f64,
    pub dof: usize,
}

impl Parabola {
    pub fn fit(x: &[f64], y: &[f64]) -> Option<Parabola> {
        if x.len() < 3 {
            return None;
        }
        let centre = x.iter().sum::<f64>() / x.len() as f64;
        let design = nalgebra::DMatrix::from_fn(x.len(), 3, |i, j| (x[i] - centre).powi(j as i32));
        let normal = design.transpose() * &design;
        let inverse = normal.try_inverse()?;
        let beta = &inverse * (design.transpose() * nalgebra::DVector::from_column_slice(y));
        let p = [beta[0], beta[1], beta[2]];
        let rss = x
            .iter()
            .zip(y)
            .map(|(xi, yi)| {
                let u = xi - centre;
                (yi - p[0] - p[1] * u - p[2] * u * u).powi(2)
            })
            .sum();
        let v = [
            [inverse[(1, 1)], inverse[(1, 2)]],
            [inverse[(2, 1)], inverse[(2, 2)]],
        ];
        p.iter().all(|c| c.is_finite()).then_some(Parabola {
            centre,
            p,
            v,
            rss,
            dof: x.len() - 3,
        })
    }

    /// The vertex (x*, y*) when the parabola opens upward.
    pub fn vertex(&self) -> Option<(f64, f64)> {
        let [p0, p1, p2] = self.p;
        (p2 > 0.0).then(|| {
            let u = -p1 / (2.0 * p2);
            (self.centre + u, p0 - p1 * p1 / (4.0 * p2))
        })
    }

    /// Delta-method standard error of the vertex at noise σ.
    pub fn vertex_se(&self, sigma: f64) -> Option<f64> {
        let [_, p1, p2] = self.p;
        if p2 <= 0.0 {
            return None;
        }
        let g = [-1.0 / (2.0 * p2), p1 / (2.0 * p2 * p2)];
        let var = g[0] * g[0] * self.v[0][0]
            + 2.0 * g[0] * g[1] * self.v[0][1]
            + g[1] * g[1] * self.v[1][1];
        let se = sigma * var.max(0.0).sqrt();
        (se.is_finite() && se > 0.0).then_some(se)
    }

    /// Fieller's confidence set of the vertex: {x : (p₁ + 2p₂u)² ≤ q²σ²·Var(p₁ + 2p₂u)},
    /// u = x − centre, when it is a bounded interval.
    pub fn fieller(&self, sigma: f64, quantile: f64) -> Option<[f64; 2]> {
        let [_, p1, p2] = self.p;
        let s = (quantile * sigma).powi(2);
        // (4p₂² − 4s·V₂₂)u² + (4p₁p₂ − 4s·V₁₂)u + (p₁² − s·V₁₁) ≤ 0.
        let a = 4.0 * (p2 * p2 - s * self.v[1][1]);
        let b = 4.0 * (p1 * p2 - s * self.v[0][1]);
        let c = p1 * p1 - s * self.v[0][0];
        if a.is_nan() || a <= 0.0 || p2 <= 0.0 {
            return None;
        }
        let discriminant = b * b - 4.0 * a * c;
        if discriminant.is_nan() || discriminant < 0.0 {
            return None;
        }
        let root = discriminant.sqrt();
        let lo = (-b - root) / (2.0 * a);
        let hi = (-b + root) / (2.0 * a);
        Some([self.centre + lo, self.centre + hi])
    }
}

/// Which runs of a cell its parabola uses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Window {
    /// Distinct LRs on each side of the best.
    pub half: usize,
    /// Runs whose loss exceeds the best by more than this fraction are left out.
    pub max_rise: f64,
}

/// Quantised ln of a value, so that values equal to ~1e-6 relative share a key (one cell, one
/// swept LR, one model size).
pub(crate) fn key(value: f64) -> i64 {
    (value.ln() * 1e6).round() as i64
}

/// The rows of each cell, keyed by (N, D, B), in increasing order.
pub(crate) fn group_cells(size: &[f64], tokens: &[f64], batch: Option<&[f64]>) -> Vec<Vec<usize>> {
    let mut groups: BTreeMap<(i64, i64, i64), Vec<usize>> = BTreeMap::new();
    for row in 0..size.len() {
        let b = batch.map_or(0, |b| key(b[row]));
        groups
            .entry((key(size[row]), key(tokens[row]), b))
            .or_default()
            .push(row);
    }
    groups.into_values().collect()
}

/// The profile of one cell: its runs sorted by lr, the window of `half_window` distinct LRs on
/// each side of the best one, and the parabola through that window.
pub(crate) fn profile_cell(
    rows: &[usize],
    point: (f64, f64, Option<f64>),
    (lr, loss): (&[f64], &[f64]),
    window: Window,
) -> CellWork {
    let mut runs: Vec<(f64, f64)> = rows.iter().map(|&r| (lr[r].ln(), loss[r])).collect();
    runs.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let distinct = distinct_index(&runs);
    let lrs = distinct.last().map_or(0, |d| d + 1);
    let best = (0..runs.len())
        .min_by(|&a, &b| runs[a].1.total_cmp(&runs[b].1))
        .unwrap_or(0);
    let best_index = distinct[best];
    // Runs far above the best have diverged or left the parabola's reach.
    let ceiling = runs[best].1 + window.max_rise * runs[best].1.abs();
    let near: Vec<(f64, f64)> = runs.iter().copied().filter(|r| r.1 <= ceiling).collect();
    let near_distinct = distinct_index(&near);
    let near_lrs = near_distinct.last().map_or(0, |d| d + 1);
    let near_best = near
        .iter()
        .position(|r| r.0 == runs[best].0 && r.1 == runs[best].1)
        .map_or(0, |i| near_distinct[i]);
    let (from, to) = window_around(near_best, window.half, near_lrs);
    let (x, y): (Vec<f64>, Vec<f64>) = near
        .iter()
        .zip(&near_distinct)
        .filter(|(_, &d)| d >= from && d <= to)
        .map(|(run, _)| *run)
        .unzip();
    let window_lrs = to + 1 - from;
    let parabola = (window_lrs >= 3).then(|| Parabola::fit(&x, &y)).flatten();
    let vertex = parabola.as_ref().and_then(Parabola::vertex);
    let status = if window_lrs < 3 {
        CellStatus::FewLrs
    } else if best_index == 0 {
        CellStatus::EdgeLow
    } else if best_index + 1 == lrs {
        CellStatus::EdgeHigh
    } else {
        match vertex {
            None => CellStatus::NoMinimum,
            Some((v, _)) if v < runs[0].0 => CellStatus::EdgeLow,
            Some((v, _)) if v > runs[runs.len() - 1].0 => CellStatus::EdgeHigh,
            Some(_) => CellStatus::Ok,
        }
    };
    let cell = Cell {
        n: point.0,
        d: point.1,
        b: point.2,
        runs: runs.len(),
        lrs,
        far: runs.len() - near.len(),
        lr_range: [runs[0].0.exp(), runs[runs.len() - 1].0.exp()],
        lr_best: runs[best].0.exp(),
        loss_best: runs[best].1,
        lr_opt: vertex.filter(|_| window_lrs >= 3).map(|(v, _)| v.exp()),
        loss_opt: vertex.filter(|_| window_lrs >= 3).map(|(_, l)| l),
        ci: None,
        se_log: None,
        curvature: parabola.map(|p| p.p[2]).filter(|_| window_lrs >= 3),
        edge: matches!(status, CellStatus::EdgeLow | CellStatus::EdgeHigh),
        status,
        used: false,
    };
    CellWork {
        cell,
        x,
        y,
        window_lrs,
        parabola,
    }
}

/// The distinct-LR indices [from, to] of the window: `half` on each side of the best, shifted
/// inward at the ends of the sweep so that an edge cell still has 2·half + 1 LRs (its parabola
/// bounds the optimum from one side, which the joint fit uses).
fn window_around(best: usize, half: usize, lrs: usize) -> (usize, usize) {
    let last = lrs.saturating_sub(1);
    let width = (2 * half).min(last);
    let from = best.saturating_sub(half).min(last - width);
    (from, from + width)
}

/// For runs sorted by ln lr: the index of each run's distinct LR.
fn distinct_index(runs: &[(f64, f64)]) -> Vec<usize> {
    let mut index = Vec::with_capacity(runs.len());
    let mut current = 0usize;
    for (i, run) in runs.iter().enumerate() {
        if i > 0 && key(run.0.exp()) != key(runs[i - 1].0.exp()) {
            current += 1;
        }
        index.push(current);
    }
    index
}

/// Residual scatter pooled over every cell's parabola with spare degrees of freedom:
/// (σ, degrees of freedom).
pub(crate) fn pooled_noise(cells: &[CellWork]) -> (f64, usize) {
    let (rss, dof) = cells
        .iter()
        .filter_map(|c| c.parabola.as_ref())
        .fold((0.0, 0usize), |(rss, dof), p| (rss + p.rss, dof + p.dof));
    ((rss / dof.max(1) as f64).sqrt(), dof)
}

/// Fills in each cell's interval and standard error at noise σ with `quantile` (t or normal).
pub(crate) fn add_intervals(cells: &mut [CellWork], sigma: f64, quantile: f64) {
    for work in cells.iter_mut() {
        let Some(parabola) = work.parabola else {
            continue;
        };
        work.cell.se_log = parabola.vertex_se(sigma);
        work.cell.ci = parabola
            .fieller(sigma, quantile)
            .map(|[lo, hi]| [lo.exp(), hi.exp()])
            .filter(|[lo, hi]| *lo > 0.0 && hi.is_finite());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parabola_recovers_its_vertex() {
        let x: Vec<f64> = (0..5).map(|i| -7.0 + 0.7 * i as f64).collect();
        let y: Vec<f64> = x.iter().map(|v| 3.0 + 0.2 * (v + 5.9).powi(2)).collect();
        let p = Parabola::fit(&x, &y).unwrap();
        let (v, l) = p.vertex().unwrap();
        assert!((v + 5.9).abs() < 1e-10 && (l - 3.0).abs() < 1e-12);
    }

    #[test]
    fn fieller_contains_the_vertex_and_matches_delta_when_sharp() {
        let x: Vec<f64> = (0..5).map(|i| -7.0 + 0.7 * i as f64).collect();
        let y: Vec<f64> = x.iter().map(|v| 3.0 + 0.2 * (v + 5.9).powi(2)).collect();
        let p = Parabola::fit(&x, &y).unwrap();
        let [lo, hi] = p.fieller(1e-4, 1.96).unwrap();
        let se = p.vertex_se(1e-4).unwrap();
        assert!(lo < -5.9 && hi > -5.9);
        assert!(((hi - lo) / (2.0 * 1.96 * se) - 1.0).abs() < 1e-3);
        // Noise as large as the whole profile: no bounded interval.
        assert!(p.fieller(1.0, 1.96).is_none());
    }

    #[test]
    fn windows_shift_inward_at_the_edges() {
        assert_eq!(window_around(0, 1, 8), (0, 2));
        assert_eq!(window_around(7, 1, 8), (5, 7));
        assert_eq!(window_around(3, 1, 8), (2, 4));
        assert_eq!(window_around(3, 2, 8), (1, 5));
        assert_eq!(window_around(1, 2, 3), (0, 2));
        assert_eq!(window_around(0, 1, 2), (0, 1));
        assert_eq!(window_around(0, 1, 1), (0, 0));
    }

    #[test]
    fn edge_and_few_lrs_are_flagged() {
        let lr = [1e-3, 2e-3, 4e-3, 1e-3, 2e-3];
        let loss = [3.0, 2.9, 2.8, 3.0, 2.9];
        let rows = [0, 1, 2];
        let window = Window {
            half: 2,
            max_rise: 0.1,
        };
        let edge = profile_cell(&rows, (1.0, 1.0, None), (&lr, &loss), window);
        assert_eq!(edge.cell.status, CellStatus::EdgeHigh);
        assert!(edge.cell.edge);
        let few = profile_cell(&[3, 4], (1.0, 1.0, None), (&lr, &loss), window);
        assert_eq!(few.cell.status, CellStatus::FewLrs);
        assert_eq!(few.cell.lr_opt, None);
    }

    #[test]
    fn runs_far_above_the_best_leave_the_window() {
        let lr = [1e-3, 2e-3, 4e-3, 8e-3];
        let loss = [3.2, 3.1, 3.15, 4.7];
        let window = Window {
            half: 2,
            max_rise: 0.1,
        };
        let cell = profile_cell(&[0, 1, 2, 3], (1.0, 1.0, None), (&lr, &loss), window).cell;
        assert_eq!(cell.far, 1);
        assert_eq!(cell.status, CellStatus::Ok);
        assert_eq!(cell.lrs, 4);
        // Only 1e-3 and 2e-3 stay: no parabola, although the optimum is interior.
        let loss = [3.2, 3.1, 4.0, 4.7];
        let cell = profile_cell(&[0, 1, 2, 3], (1.0, 1.0, None), (&lr, &loss), window).cell;
        assert_eq!(cell.status, CellStatus::FewLrs);
    }
}
