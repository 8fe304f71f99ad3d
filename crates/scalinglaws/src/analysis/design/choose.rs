//! Choosing the batch. The criterion is the variance of the targets after the batch, each
//! target's variance divided by its variance now under the same parameters (so targets in
//! different units weigh alike, and a draw far from the estimate, whose variances are huge,
//! weighs no more than one near it), averaged over draws of the parameters from their current
//! uncertainty: a
//! pseudo-Bayesian c-optimal design (Elfving 1952; Chaloner & Verdinelli 1995, "Bayesian
//! experimental design: a review", §2.1 and §4), which hedges against the current estimate
//! being wrong where a design at one point would not. A run's effect on every draw's variance
//! is exact by Sherman–Morrison, so the greedy step scores every candidate in O(draws·p²).
//!
//! Greedy selection under a budget picks, run after run, the candidate with the largest
//! reduction per cost^λ; λ = 0 ignores cost until the budget binds, λ = 1 buys reduction per
//! FLOP. Every λ of [`COST_EXPONENTS`] is tried, each batch is improved by exchanges (a
//! chosen run swapped for the candidate that lowers the criterion most within the budget;
//! Fedorov 1972, "Theory of Optimal Experiments", §3.2), and the batch with the lowest
//! criterion is kept. [`exhaustive`] searches every batch of a small case, to measure what
//! the greedy search gives up.

use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;

use super::information::add_run;

/// The cost penalties tried.
pub const COST_EXPONENTS: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];
/// Exchange passes at most (each pass tries every position once).
const EXCHANGE_PASSES: usize = 8;

/// One parameter draw's view: the inverse information now, the targets' gradients in φ with
/// their weights (1 / the target's variance now), and each candidate's row (None: the law is
/// not finite there at this draw).
pub struct DrawState {
    pub m: DMatrix<f64>,
    pub gradients: Vec<DVector<f64>>,
    pub weights: Vec<f64>,
    pub rows: Vec<Option<DVector<f64>>>,
}

impl DrawState {
    /// A draw's state, the weights from its variances now.
    pub fn new(
        m: DMatrix<f64>,
        gradients: Vec<DVector<f64>>,
        rows: Vec<Option<DVector<f64>>>,
    ) -> DrawState {
        let weights = gradients
            .iter()
            .map(|g| 1.0 / g.dot(&(&m * g)).max(f64::MIN_POSITIVE))
            .collect();
        DrawState {
            m,
            gradients,
            weights,
            rows,
        }
    }
}

/// The criterion over draws (the current estimate first).
pub struct Criterion {
    pub draws: Vec<DrawState>,
    pub sigma: f64,
    pub cost: Vec<f64>,
}

/// A chosen batch and its criterion.
#[derive(Debug, Clone, PartialEq)]
pub struct Batch {
    /// Candidate indices, in the order chosen.
    pub runs: Vec<usize>,
    pub criterion: f64,
    /// The cost exponent λ of the greedy pass it came from.
    pub cost_exponent: f64,
}

impl Criterion {
    /// Each draw's inverse information after `runs`.
    pub fn after(&self, runs: &[usize]) -> Vec<DMatrix<f64>> {
        self.draws
            .iter()
            .map(|d| {
                let mut m = d.m.clone();
                for &r in runs {
                    if let Some(j) = &d.rows[r] {
                        add_run(&mut m, j, self.sigma);
                    }
                }
                m
            })
            .collect()
    }

    /// Mean over draws of the targets' variances under `ms` relative to now, summed over
    /// targets (the number of targets now; less after runs).
    pub fn value(&self, ms: &[DMatrix<f64>]) -> f64 {
        let mut total = 0.0;
        for (d, m) in self.draws.iter().zip(ms) {
            for (g, w) in d.gradients.iter().zip(&d.weights) {
                total += w * g.dot(&(m * g));
            }
        }
        total / self.draws.len() as f64
    }

    /// Each target's variance at the current estimate (the first draw) under `ms`.
    pub fn per_target(&self, ms: &[DMatrix<f64>]) -> Vec<f64> {
        let (d, m) = (&self.draws[0], &ms[0]);
        d.gradients.iter().map(|g| g.dot(&(m * g))).collect()
    }

    /// The criterion's reduction by one more run at each candidate (0 where it cannot run).
    fn gains(&self, ms: &[DMatrix<f64>]) -> Vec<f64> {
        (0..self.cost.len())
            .into_par_iter()
            .map(|c| {
                let mut gain = 0.0;
                for (d, m) in self.draws.iter().zip(ms) {
                    let Some(j) = &d.rows[c] else { continue };
                    let mj = m * j;
                    let denominator = self.sigma * self.sigma + j.dot(&mj);
                    for (g, w) in d.gradients.iter().zip(&d.weights) {
                        let gmj = g.dot(&mj);
                        gain += w * gmj * gmj / denominator;
                    }
                }
                gain / self.draws.len() as f64
            })
            .collect()
    }

    fn usable(&self, c: usize) -> bool {
        self.draws.first().is_some_and(|d| d.rows[c].is_some())
    }

    fn add(&self, ms: &mut [DMatrix<f64>], c: usize) {
        for (d, m) in self.draws.iter().zip(ms.iter_mut()) {
            if let Some(j) = &d.rows[c] {
                add_run(m, j, self.sigma);
            }
        }
    }
}

/// The best batch of at most `runs` runs costing at most `spend` in all.
pub fn choose(criterion: &Criterion, runs: usize, spend: f64) -> Option<Batch> {
    COST_EXPONENTS
        .iter()
        .filter_map(|&lambda| {
            let greedy = greedy(criterion, runs, spend, lambda)?;
            Some(exchange(criterion, greedy, spend))
        })
        .min_by(|a, b| a.criterion.total_cmp(&b.criterion))
}

/// Run after run, the largest reduction per cost^λ among the candidates the budget still
/// affords (ties to the first candidate).
pub fn greedy(criterion: &Criterion, runs: usize, spend: f64, lambda: f64) -> Option<Batch> {
    let mut ms: Vec<DMatrix<f64>> = criterion.draws.iter().map(|d| d.m.clone()).collect();
    let mut chosen = Vec::new();
    let mut left = spend;
    while chosen.len() < runs {
        let gains = criterion.gains(&ms);
        let best = (0..gains.len())
            .filter(|&c| criterion.usable(c) && criterion.cost[c] <= left && gains[c] > 0.0)
            .map(|c| (c, gains[c] / criterion.cost[c].powf(lambda)))
            .fold(None, |best: Option<(usize, f64)>, (c, s)| match best {
                Some((_, b)) if b >= s => best,
                _ => Some((c, s)),
            });
        let Some((c, _)) = best else { break };
        criterion.add(&mut ms, c);
        left -= criterion.cost[c];
        chosen.push(c);
    }
    (!chosen.is_empty()).then(|| Batch {
        criterion: criterion.value(&ms),
        runs: chosen,
        cost_exponent: lambda,
    })
}

/// Swaps that lower the criterion within the budget, until a pass changes nothing.
fn exchange(criterion: &Criterion, mut batch: Batch, spend: f64) -> Batch {
    for _ in 0..EXCHANGE_PASSES {
        let mut changed = false;
        for position in 0..batch.runs.len() {
            let mut rest = batch.runs.clone();
            let removed = rest.remove(position);
            let ms = criterion.after(&rest);
            let without = criterion.value(&ms);
            let left = spend - rest.iter().map(|&r| criterion.cost[r]).sum::<f64>();
            let gains = criterion.gains(&ms);
            let best = (0..gains.len())
                .filter(|&c| criterion.usable(c) && criterion.cost[c] <= left)
                .fold(removed, |b, c| if gains[c] > gains[b] { c } else { b });
            let value = without - gains[best];
            if best != removed && value < batch.criterion * (1.0 - 1e-9) {
                batch.runs[position] = best;
                batch.criterion = value;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    batch
}

/// The best batch of exactly `runs` runs (repeats allowed) within `spend`, by trying every
/// one: for measuring the greedy search on small cases (C(n + runs − 1, runs) batches).
pub fn exhaustive(criterion: &Criterion, runs: usize, spend: f64) -> Option<Batch> {
    let n = criterion.cost.len();
    if n == 0 || runs == 0 {
        return None;
    }
    let mut best: Option<Batch> = None;
    let mut batch = vec![0usize; runs];
    loop {
        let cost: f64 = batch.iter().map(|&c| criterion.cost[c]).sum();
        if cost <= spend && batch.iter().all(|&c| criterion.usable(c)) {
            let value = criterion.value(&criterion.after(&batch));
            if best.as_ref().is_none_or(|b| value < b.criterion) {
                best = Some(Batch {
                    runs: batch.clone(),
                    criterion: value,
                    cost_exponent: f64::NAN,
                });
            }
        }
        // The next non-decreasing index sequence.
        let Some(i) = (0..runs).rev().find(|&i| batch[i] + 1 < n) else {
            return best;
        };
        let next = batch[i] + 1;
        batch[i..].iter_mut().for_each(|c| *c = next);
    }
}
