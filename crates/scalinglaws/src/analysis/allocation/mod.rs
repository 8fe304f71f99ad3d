//! Compute-optimal allocation: at a training budget C, the model size N* and token count D*
//! that minimise a fitted law's predicted loss subject to FLOPs(N, D) = C (6·N·D by default;
//! Kaplan et al. 2020, Hoffmann et al. 2022). For Chinchilla's law with 6·N·D the optimum has a
//! closed form (Hoffmann et al. 2022, eq. 4):
//!   N* = G·(C/6)^(β/(α+β)),  D* = G⁻¹·(C/6)^(α/(α+β)),  G = (αA/(βB))^(1/(α+β)).
//! Any other law (`data_constrained` at a given number of unique tokens, `looped` at a given r,
//! `moe` at a given number of experts, user formulas) and any FLOPs formula go through a robust
//! one-dimensional search over log N: D follows from the constraint by bisection in log D, a
//! scan over fourteen decades of N around √(C/6) finds the best bracket (an end where the best
//! point sits moves out by fourteen decades more, up to N from 1e-10 to 1e100; an optimum
//! beyond that is an error, never the edge), and repeated finer scans with a final parabola
//! pin the minimum. The closed form is never confined to a range: only a cap holds it. A held
//! variable given several values (`E=1,8,64`) is optimised too: every value is solved and the
//! best kept.
//!
//! Planning under constraints:
//! - caps on the model size N (`max_active`: N is what a token passes through, so what
//!   inference costs), on the total parameters (`max_params`, memory; a formula of N and the
//!   held variables, N by default: `N*(4+9*E)/13` for Ludziejewski et al. 2025's MoE
//!   architecture without embeddings) and on the training tokens (`max_tokens`, unique data).
//!   The loss along a budget is unimodal in log N, so a binding cap holds the optimum at it.
//! - expected inference tokens T (Sardana et al. 2024, "Beyond Chinchilla-Optimal"): a run then
//!   costs FLOPs(N, D) + 2·N·T over its life. Given a budget, that lifetime compute is what
//!   the budget covers; given a target loss instead, the allocation minimises the lifetime
//!   compute over the (N, D) that reach the loss, and is compared with the inference-blind
//!   optimum at the same loss.
//!
//! Over several budgets the frontier gives the exponents a, b of N* ∝ C^a and D* ∝ C^b (least
//! squares on logs). With bootstrap draws, every quantity gets a percentile interval from the
//! same draws. From a fit, every allocation's loss also gets the prediction interval of a new
//! run there, calibrated beyond the data like `predict_with_intervals`'s.

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result, Setting};
use crate::fit::FitCaveat;
use crate::interrupt::Interrupt;
use crate::law::Law;
use crate::stats::{least_squares_line, percentile_interval};
use crate::text;
use crate::uncertainty::{predict_with_intervals_of, FitRecord, IntervalNote, IntervalSource};

mod frontier;
mod roles;
mod search;
#[cfg(test)]
mod tests;

pub use crate::law::flops::{Flops, Formula};
pub use frontier::optimal;
pub(crate) use frontier::{add_intervals, split_held};

use crate::law::flops::{bisect, BISECTION_STEPS};
use roles::{Goal, Limits, Roles, LOG_D_RANGE, WIDEST_LOG_N};
use search::{allocation_at, Unsolved};

/// The compute-optimal point at one budget (or the cheapest point at one target loss).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Allocation {
    /// The compute spent: training FLOPs, plus inference FLOPs 2·N·T when inference tokens
    /// are given.
    pub budget: f64,
    /// Model parameters N.
    #[serde(rename = "N")]
    pub n: f64,
    /// Training tokens D.
    #[serde(rename = "D")]
    pub d: f64,
    /// D / N.
    pub tokens_per_param: f64,
    /// The law's loss there.
    pub loss: f64,
    /// Total parameters, when a formula for them is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_params: Option<f64>,
    /// Training and inference FLOPs, when inference tokens are given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training_flops: Option<f64>,
    /// Inference FLOPs 2·N·T, when inference tokens are given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inference_flops: Option<f64>,
    /// The value chosen for each held variable that was given several.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub chosen: BTreeMap<String, f64>,
    /// The cap that holds the allocation at its bound (`max_params`, `max_active` or
    /// `max_tokens`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    /// For a target loss with inference tokens: the inference-blind optimum at that loss.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<Reference>,
    /// Percentile intervals from bootstrap draws: `N`, `D`, `tokens_per_param`, `loss`,
    /// `budget` (`loss`: of the law's mean at the optimum, a confidence interval).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ci: BTreeMap<String, [f64; 2]>,
    /// Prediction interval of a new run's loss at (N, D), from the fit: calibrated beyond the
    /// data when `calibrated` (see `uncertainty::calibration`), else the fit's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pi: Option<[f64; 2]>,
    /// The fit's own prediction interval there (parameters plus residual scatter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pi_fit: Option<[f64; 2]>,
    /// Whether the interval is calibrated beyond the data.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub calibrated: bool,
    /// Signed decades from the fitted range in the law's own scale (with a calibration):
    /// beyond the largest fitted run (> 0), below the smallest (< 0), inside (0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance_decades: Option<f64>,
    /// How `pi` was made (with a calibration): inside the data, or beyond it by the prior,
    /// the fit's own backtests, or both.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regime: Option<crate::uncertainty::calibration::Regime>,
}

/// The allocation that ignores inference (minimum training compute for the loss), and what
/// the inference-aware one saves over the run's life relative to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[schemars(rename = "AllocationReference")]
pub struct Reference {
    /// Model parameters N.
    #[serde(rename = "N")]
    pub n: f64,
    /// Training tokens D.
    #[serde(rename = "D")]
    pub d: f64,
    /// Its lifetime compute (training + inference at the same T).
    pub budget: f64,
    /// 1 − budget(inference-aware) / budget(reference).
    pub savings: f64,
}

/// `settings` with the draws of `fit`'s bootstrap (none without one) and the level: the one
/// asked for, else the bootstrap's, else the calibration's, else 95% (the first step of
/// `optimal`'s run, of the report page's frontier and of the frontier plot).
pub fn allocation_from_fit(
    settings: AllocationSettings,
    fit: Option<&FitRecord>,
    level: Option<f64>,
) -> AllocationSettings {
    let bootstrap = fit.and_then(|fit| fit.bootstrap.as_ref());
    let level = level
        .or_else(|| fit.map(FitRecord::level))
        .unwrap_or(crate::uncertainty::DEFAULT_LEVEL);
    AllocationSettings {
        draws: bootstrap.map(|b| b.draws.clone()).unwrap_or_default(),
        level,
        ..settings
    }
}

/// The exponents of the frontier, N* ∝ C^a and D* ∝ C^b.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Exponents {
    /// The exponent of N*.
    pub a: f64,
    /// The exponent of D*.
    pub b: f64,
    /// Percentile intervals of `a` and `b` over the bootstrap draws.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ci: BTreeMap<String, [f64; 2]>,
}

/// The compute-optimal frontier of a law: an allocation per budget or target loss, the
/// exponents of N* and D* in the budget, and what the intervals are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Frontier {
    /// The training FLOPs formula (`6*N*D` unless given).
    pub flops: String,
    /// "closed form" or "numerical".
    pub method: String,
    /// "budget" (minimise loss at each budget) or "target_loss" (minimise compute at each
    /// loss).
    pub goal: String,
    /// Expected inference tokens over the model's life (Sardana et al. 2024).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inference_tokens: Option<f64>,
    /// Other variables of the law, held at the given values (e.g. U).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub held: BTreeMap<String, f64>,
    /// Held variables given several values, over which the allocation is optimised too.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub choices: BTreeMap<String, Vec<f64>>,
    /// The total-parameters formula (None: N).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_params: Option<String>,
    /// One allocation per budget or target loss.
    pub allocations: Vec<Allocation>,
    /// The exponents of N* and D* in the budget (None: fewer than two budgets).
    pub exponents: Option<Exponents>,
    /// Bootstrap draws the intervals come from (0: none).
    pub draws: usize,
    /// Level of the intervals.
    pub level: Option<f64>,
    /// What the allocations' prediction intervals (`pi`, `pi_fit`) are (None: no fit to take
    /// them from, e.g. given parameters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prediction_intervals: Option<IntervalNote>,
    /// What the allocations inherit from the diagnostics of the fit the parameters come from
    /// (a parameter at a bound, ...); empty for given parameters, and then not written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fit_caveats: Vec<FitCaveat>,
}

impl Frontier {
    /// Adds to every allocation the prediction interval at `level` of a new run's loss there,
    /// from `result` (the fit whose parameters the frontier was solved with), calibrated beyond
    /// the data when the fit carries a calibration.
    pub fn add_prediction_intervals(&mut self, result: &FitRecord, level: f64) -> Result<()> {
        let law = result.law()?;
        let source = predict_allocations(
            result,
            &law,
            &law,
            &self.held,
            &mut self.allocations,
            &[],
            level,
        )?;
        self.prediction_intervals = Some(IntervalNote::of(result, source, level));
        Ok(())
    }
}

/// The point of the law's variables an allocation stands for: N, D, the chosen value of each
/// held variable given several, else its single `held` value.
pub fn allocation_point(law: &Law, held: &BTreeMap<String, f64>, a: &Allocation) -> Vec<f64> {
    law.variables
        .iter()
        .map(|v| match v.as_str() {
            "N" => a.n,
            "D" => a.d,
            other => a
                .chosen
                .get(other)
                .or_else(|| held.get(other))
                .copied()
                .unwrap_or(f64::NAN),
        })
        .collect()
}

/// Sets `pi`, `pi_fit`, `calibrated` and `distance_decades` of every allocation of `law` from
/// `result` (a fit of `law_of_fit`) at `level`; `extra` values follow the law's variables in
/// each point (a joint fit's track indicators, `law_of_fit` being the joint law). Returns where
/// the fit's own intervals came from.
pub fn predict_allocations(
    result: &FitRecord,
    law_of_fit: &Law,
    law: &Law,
    held: &BTreeMap<String, f64>,
    allocations: &mut [Allocation],
    extra: &[f64],
    level: f64,
) -> Result<IntervalSource> {
    let points: Vec<Vec<f64>> = allocations
        .iter()
        .map(|a| {
            let mut point = allocation_point(law, held, a);
            point.extend_from_slice(extra);
            point
        })
        .collect();
    let (predictions, source) = predict_with_intervals_of(law_of_fit, result, &points, level)?;
    for (a, p) in allocations.iter_mut().zip(predictions) {
        a.pi = p.pi;
        a.pi_fit = p.pi_fit;
        a.calibrated = p.calibrated;
        a.distance_decades = p.distance_decades;
        a.regime = p.regime;
    }
    Ok(source)
}

/// What `optimal` needs besides the law and its parameters.
#[derive(Debug, Clone)]
pub struct AllocationSettings {
    /// Budgets to allocate (minimise loss) ...
    pub budgets: Vec<f64>,
    /// ... or losses to reach at the least compute; exactly one of the two is non-empty.
    pub target_losses: Vec<f64>,
    pub flops: Flops,
    /// Values of the law's other variables (everything but N and D); several values make the
    /// variable one more choice to optimise.
    pub held: BTreeMap<String, Vec<f64>>,
    /// Total parameters as a formula of N and the held variables (None: N).
    pub total_params: Option<Formula>,
    /// Expected inference tokens T: a run costs FLOPs(N, D) + 2·N·T.
    pub inference_tokens: f64,
    /// Bootstrap draws (every parameter, in the law's order) and their level.
    pub draws: Vec<Vec<f64>>,
    pub level: f64,
    /// Caps on the total parameters (memory), on N (active parameters per token) and on the
    /// tokens (unique data).
    pub max_params: Option<f64>,
    pub max_active: Option<f64>,
    pub max_tokens: Option<f64>,
    /// Stops the solves between goals and draws ([`Error::Interrupted`]).
    pub interrupt: Interrupt,
}

impl AllocationSettings {
    /// Budgets, 6·N·D, nothing held, no caps, no inference, no draws.
    pub fn at_budgets(budgets: Vec<f64>) -> AllocationSettings {
        AllocationSettings {
            budgets,
            target_losses: Vec::new(),
            flops: Flops::standard(),
            held: BTreeMap::new(),
            total_params: None,
            inference_tokens: 0.0,
            draws: Vec::new(),
            level: crate::uncertainty::DEFAULT_LEVEL,
            max_params: None,
            max_active: None,
            max_tokens: None,
            interrupt: Interrupt::default(),
        }
    }
}
