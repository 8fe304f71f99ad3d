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

use crate::error::{Error, Result};
use crate::fit::FitResult;
use crate::law::expr::{parse_expr, Expr};
use crate::law::Law;
use crate::uncertainty::dist::{least_squares_line, percentile_interval};
use crate::uncertainty::{predict_with_intervals_of, IntervalNote, IntervalSource};

/// A formula over named quantities (FLOPs in N and D, total parameters in N and the held
/// variables).
#[derive(Debug, Clone)]
pub struct Formula {
    pub text: String,
    expr: Expr,
}

impl Formula {
    /// Parses `text`, which may use only the names in `allowed` and numbers.
    pub fn parse(text: &str, allowed: &[&str], what: &str) -> Result<Formula> {
        let expr = parse_expr(text)?;
        let mut unknown = None;
        expr.for_each_ident(&mut |name, position| {
            if !allowed.contains(&name) && unknown.is_none() {
                unknown = Some((name.to_string(), position));
            }
        });
        if let Some((name, position)) = unknown {
            return Err(Error::Formula {
                formula: text.to_string(),
                position,
                message: format!(
                    "'{name}' is not known here; {what} may use only {} and numbers",
                    allowed.join(", ")
                )
                .into(),
            });
        }
        Ok(Formula {
            text: text.to_string(),
            expr,
        })
    }

    fn eval(&self, lookup: &impl Fn(&str) -> Option<f64>) -> f64 {
        self.expr.eval_f64(lookup).unwrap_or(f64::NAN)
    }
}

/// How training compute depends on N and D.
#[derive(Debug, Clone)]
pub struct Flops {
    pub text: String,
    formula: Formula,
    /// Some(k) when the formula is k·N·D (the closed form applies).
    linear_factor: Option<f64>,
}

impl Flops {
    /// A FLOPs formula in N and D, e.g. "6*N*D" or "6*N*D + 2*N*2048".
    pub fn parse(text: &str) -> Result<Flops> {
        let formula = Formula::parse(text, &["N", "D"], "the FLOPs formula")?;
        let flops = Flops {
            text: text.to_string(),
            formula,
            linear_factor: None,
        };
        // k·N·D when doubling N or D doubles the FLOPs everywhere we probe.
        let k = flops.at(1.0, 1.0);
        let bilinear = [(3.0, 7.0), (1e9, 1e12), (2e11, 5e9)]
            .iter()
            .all(|&(n, d)| (flops.at(n, d) / (k * n * d) - 1.0).abs() < 1e-12);
        Ok(Flops {
            linear_factor: (k > 0.0 && bilinear).then_some(k),
            ..flops
        })
    }

    pub fn standard() -> Flops {
        Flops::parse("6*N*D").expect("a valid formula")
    }

    pub fn at(&self, n: f64, d: f64) -> f64 {
        self.formula.eval(&|name: &str| match name {
            "N" => Some(n),
            "D" => Some(d),
            _ => None,
        })
    }

    /// The D with FLOPs(N, D) = C, or None when no positive D reaches C.
    fn tokens_for(&self, n: f64, budget: f64) -> Option<f64> {
        if budget.is_nan() || budget <= 0.0 {
            return None;
        }
        if let Some(k) = self.linear_factor {
            return Some(budget / (k * n));
        }
        let f = |log_d: f64| self.at(n, log_d.exp()) - budget;
        let (lo, hi) = (-10.0f64, 120.0f64);
        if !(f(lo) < 0.0 && f(hi) > 0.0) {
            return None;
        }
        Some(bisect(lo, hi, BISECTION_STEPS, |x| f(x) < 0.0).exp())
    }
}

/// The boundary in [lo, hi] between where `below` holds (left) and where it does not.
fn bisect(mut lo: f64, mut hi: f64, steps: usize, below: impl Fn(f64) -> bool) -> f64 {
    for _ in 0..steps {
        let mid = 0.5 * (lo + hi);
        if below(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The compute-optimal point at one budget (or the cheapest point at one target loss).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Allocation {
    /// The compute spent: training FLOPs, plus inference FLOPs 2·N·T when inference tokens
    /// are given.
    pub budget: f64,
    #[serde(rename = "N")]
    pub n: f64,
    #[serde(rename = "D")]
    pub d: f64,
    pub tokens_per_param: f64,
    pub loss: f64,
    /// Total parameters, when a formula for them is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_params: Option<f64>,
    /// Training and inference FLOPs, when inference tokens are given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training_flops: Option<f64>,
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
    /// data when `calibrated` (see [`crate::uncertainty::calibration`]), else the fit's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pi: Option<[f64; 2]>,
    /// The fit's own prediction interval there (parameters plus residual scatter).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pi_fit: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub calibrated: bool,
    /// Decades beyond the largest fitted scale (with a calibration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distance_decades: Option<f64>,
}

/// The allocation that ignores inference (minimum training compute for the loss), and what
/// the inference-aware one saves over the run's life relative to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reference {
    #[serde(rename = "N")]
    pub n: f64,
    #[serde(rename = "D")]
    pub d: f64,
    /// Its lifetime compute (training + inference at the same T).
    pub budget: f64,
    /// 1 − budget(inference-aware) / budget(reference).
    pub savings: f64,
}

/// The exponents of the frontier, N* ∝ C^a and D* ∝ C^b.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exponents {
    pub a: f64,
    pub b: f64,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub ci: BTreeMap<String, [f64; 2]>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Frontier {
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_params: Option<String>,
    pub allocations: Vec<Allocation>,
    pub exponents: Option<Exponents>,
    /// Bootstrap draws the intervals come from (0: none).
    pub draws: usize,
    pub level: Option<f64>,
    /// What the allocations' prediction intervals (`pi`, `pi_fit`) are (None: no fit to take
    /// them from, e.g. given parameters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prediction_intervals: Option<IntervalNote>,
}

impl Frontier {
    /// Adds to every allocation the prediction interval at `level` of a new run's loss there,
    /// from `result` (the fit whose parameters the frontier was solved with), calibrated beyond
    /// the data when the fit carries a calibration.
    pub fn add_prediction_intervals(&mut self, result: &FitResult, level: f64) -> Result<()> {
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
    result: &FitResult,
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
            level: 0.95,
            max_params: None,
            max_active: None,
            max_tokens: None,
        }
    }
}

/// One budget or one target loss.
#[derive(Debug, Clone, Copy)]
enum Goal {
    Budget(f64),
    Loss(f64),
}

/// How the law's variables map onto an allocation, for one value of every held variable.
struct Roles<'a> {
    law: &'a Law,
    n: usize,
    d: usize,
    held: Vec<(usize, f64)>,
    settings: &'a AllocationSettings,
}

impl Roles<'_> {
    fn inference_flops(&self, n: f64) -> f64 {
        2.0 * n * self.settings.inference_tokens
    }

    fn total_params(&self, n: f64) -> f64 {
        match &self.settings.total_params {
            None => n,
            Some(formula) => formula.eval(&|name: &str| {
                if name == "N" {
                    return Some(n);
                }
                let i = self.law.variable_index(name)?;
                self.held.iter().find(|h| h.0 == i).map(|h| h.1)
            }),
        }
    }

    /// D along the goal's constraint at N: the tokens the budget left after inference buys,
    /// or the tokens that reach the target loss.
    fn tokens(&self, params: &[f64], n: f64, goal: Goal) -> Option<f64> {
        match goal {
            Goal::Budget(c) => self
                .settings
                .flops
                .tokens_for(n, c - self.inference_flops(n)),
            Goal::Loss(target) => self.tokens_for_loss(params, n, target),
        }
    }

    /// The D at which the law reaches `target` at N (loss falls with D), by bisection in ln D.
    fn tokens_for_loss(&self, params: &[f64], n: f64, target: f64) -> Option<f64> {
        self.tokens_for_loss_columns(params, &[n], target)[0]
    }

    /// `tokens_for_loss` at every N of `ns` at once: one bisection over the whole column, each
    /// step one sweep of the bound tape.
    fn tokens_for_loss_columns(&self, params: &[f64], ns: &[f64], target: f64) -> Vec<Option<f64>> {
        let above = |log_d: &[f64]| -> Vec<bool> {
            let ds: Vec<f64> = log_d.iter().map(|x| x.exp()).collect();
            self.losses(params, ns, &ds)
                .iter()
                .map(|loss| loss.is_nan() || *loss > target)
                .collect()
        };
        let (lo_end, hi_end) = LOG_D_RANGE;
        let reachable: Vec<bool> = above(&vec![hi_end; ns.len()]).iter().map(|a| !a).collect();
        let already: Vec<bool> = above(&vec![lo_end; ns.len()]).iter().map(|a| !a).collect();
        let (mut lo, mut hi) = (vec![lo_end; ns.len()], vec![hi_end; ns.len()]);
        for _ in 0..BISECTION_STEPS {
            let mid: Vec<f64> = lo.iter().zip(&hi).map(|(a, b)| 0.5 * (a + b)).collect();
            for (i, is_above) in above(&mid).into_iter().enumerate() {
                if is_above {
                    lo[i] = mid[i];
                } else {
                    hi[i] = mid[i];
                }
            }
        }
        (0..ns.len())
            .map(|i| match (reachable[i], already[i]) {
                (false, _) => None,
                (true, true) => Some(lo_end.exp()),
                (true, false) => Some((0.5 * (lo[i] + hi[i])).exp()),
            })
            .collect()
    }

    /// The law at every (N, D) pair, in one bound tape.
    fn losses(&self, params: &[f64], ns: &[f64], ds: &[f64]) -> Vec<f64> {
        let mut columns = vec![Vec::with_capacity(ns.len()); self.law.variables.len()];
        for (&n, &d) in ns.iter().zip(ds) {
            for (column, value) in columns.iter_mut().zip(self.point(n, d)) {
                column.push(value);
            }
        }
        let slices: Vec<&[f64]> = columns.iter().map(Vec::as_slice).collect();
        let tape = self.law.bind(&slices);
        let mut scratch = tape.scratch();
        tape.forward_columns(params, &mut scratch).to_vec()
    }

    /// The range of ln N the caps allow for the goal, within the widest range searched:
    /// N ≤ max_active, total(N) ≤ max_params, D(N) ≤ max_tokens (D falls as N grows along a
    /// budget or a loss), and with inference tokens a budget must leave some training compute.
    /// None when the caps leave nothing.
    fn log_n_range(&self, params: &[f64], goal: Goal) -> Option<Limits> {
        let (lo, mut hi) = WIDEST_LOG_N;
        let settings = self.settings;
        if let Some(p) = settings.max_active {
            hi = hi.min(p.ln());
        }
        if let Some(p) = settings.max_params {
            let fits = |log_n: f64| self.total_params(log_n.exp()) <= p;
            if !fits(lo) {
                return None;
            }
            if !fits(hi) {
                hi = bisect(lo, hi, BISECTION_STEPS, fits);
            }
        }
        if let (Goal::Budget(c), true) = (goal, settings.inference_tokens > 0.0) {
            hi = hi.min((c / (2.0 * settings.inference_tokens)).ln() - 1e-9);
        }
        let lo = self.tokens_cap_floor(params, goal, lo, hi)?;
        (lo <= hi).then_some(Limits {
            lo,
            hi,
            lo_is_cap: lo > WIDEST_LOG_N.0,
            hi_is_cap: hi < WIDEST_LOG_N.1,
        })
    }

    /// The least ln N in [lo, hi] whose D stays within max_tokens (lo without that cap); None
    /// when even N at `hi` needs more tokens.
    fn tokens_cap_floor(&self, params: &[f64], goal: Goal, lo: f64, hi: f64) -> Option<f64> {
        let Some(u) = self.settings.max_tokens else {
            return Some(lo);
        };
        let too_many = |log_n: f64| {
            self.tokens(params, log_n.exp(), goal)
                .map_or(true, |d| d > u)
        };
        if lo > hi || too_many(hi) {
            return None;
        }
        Some(if too_many(lo) {
            bisect(lo, hi, BISECTION_STEPS, too_many)
        } else {
            lo
        })
    }

    fn binding(&self, n: f64, d: f64) -> Option<String> {
        let near = |a: f64, b: f64| (a / b - 1.0).abs() < 1e-6;
        let settings = self.settings;
        if settings.max_active.is_some_and(|p| near(n, p)) {
            return Some("max_active".into());
        }
        if settings
            .max_params
            .is_some_and(|p| near(self.total_params(n), p))
        {
            return Some("max_params".into());
        }
        settings
            .max_tokens
            .filter(|u| near(d, *u))
            .map(|_| "max_tokens".into())
    }

    fn point(&self, n: f64, d: f64) -> Vec<f64> {
        let mut point = vec![0.0; self.law.variables.len()];
        point[self.n] = n;
        point[self.d] = d;
        for &(i, v) in &self.held {
            point[i] = v;
        }
        point
    }

    fn loss(&self, params: &[f64], n: f64, d: f64) -> f64 {
        self.law.eval(params, &self.point(n, d))
    }

    /// What the search minimises at each log N of `grid`: the loss along a budget, or the
    /// lifetime compute along a target loss.
    fn scan(&self, params: &[f64], goal: Goal, grid: &[f64]) -> Vec<f64> {
        let ns: Vec<f64> = grid.iter().map(|x| x.exp()).collect();
        let ds: Vec<Option<f64>> = match goal {
            Goal::Budget(_) => ns.iter().map(|&n| self.tokens(params, n, goal)).collect(),
            Goal::Loss(target) => self.tokens_for_loss_columns(params, &ns, target),
        };
        let values: Vec<f64> = match goal {
            Goal::Loss(_) => ns
                .iter()
                .zip(&ds)
                .map(|(&n, d)| d.map_or(f64::INFINITY, |d| self.lifetime_flops(n, d)))
                .collect(),
            Goal::Budget(_) => {
                let filled: Vec<f64> = ds.iter().map(|d| d.unwrap_or(1.0)).collect();
                self.losses(params, &ns, &filled)
            }
        };
        values
            .into_iter()
            .zip(&ds)
            .map(|(v, d)| {
                if d.is_some() && v.is_finite() {
                    v
                } else {
                    f64::INFINITY
                }
            })
            .collect()
    }

    fn lifetime_flops(&self, n: f64, d: f64) -> f64 {
        self.settings.flops.at(n, d) + self.inference_flops(n)
    }
}

/// The widest range of ln N the search may reach (N from 1e-10 to 1e100) and of ln D along a
/// constraint (the same decades): wide enough for any budget a float holds a loss for; an
/// optimum beyond it is an error, never its edge.
const WIDEST_LOG_N: (f64, f64) = (
    -10.0 * std::f64::consts::LN_10,
    100.0 * std::f64::consts::LN_10,
);
const LOG_D_RANGE: (f64, f64) = WIDEST_LOG_N;
/// The first scan covers this many decades of N around a guess; an end where the best point
/// sits moves out by as many again, up to the widest range.
const WINDOW: f64 = 14.0 * std::f64::consts::LN_10;
const SCAN_POINTS: usize = 141;
/// Halvings of a bracket: 64 take any range below 1e4 to f64 resolution.
const BISECTION_STEPS: usize = 64;
const ZOOMS: usize = 8;

/// The range of ln N the caps allow, and which of its ends a cap (or the inference tokens)
/// sets; the other ends are those of the widest range.
#[derive(Debug, Clone, Copy)]
struct Limits {
    lo: f64,
    hi: f64,
    lo_is_cap: bool,
    hi_is_cap: bool,
}

/// Why a goal has no allocation.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Unsolved {
    /// No finite optimum where the caps allow.
    NoOptimum,
    /// The best point is the end `log_n` of the widest range searched, (lo, hi) in ln N: the
    /// optimum, if there is one, lies beyond.
    AtEdge { log_n: f64, lo: f64, hi: f64 },
    /// The value no longer changes with N from `log_n` on (to f64 precision): the search
    /// cannot place the optimum.
    Flat { log_n: f64 },
}

/// The first window of ln N: WINDOW wide around the guess √(C/6) for a budget (1e9 for a
/// target loss), moved inside the limits.
fn first_window(goal: Goal, limits: &Limits) -> (f64, f64) {
    let centre = match goal {
        Goal::Budget(c) => 0.5 * (c / 6.0).ln(),
        Goal::Loss(_) => 9.0 * std::f64::consts::LN_10,
    };
    let width = WINDOW.min(limits.hi - limits.lo);
    let lo = (centre - 0.5 * width).min(limits.hi - width).max(limits.lo);
    (lo, (lo + width).min(limits.hi))
}

/// A scan of `points` over [lo, hi]: the grid, the values and the index of the best.
fn scan_window(
    roles: &Roles,
    params: &[f64],
    goal: Goal,
    (lo, hi): (f64, f64),
    points: usize,
) -> Result<(Vec<f64>, Vec<f64>, usize), Unsolved> {
    let step = (hi - lo) / (points - 1) as f64;
    let grid: Vec<f64> = (0..points).map(|i| lo + step * i as f64).collect();
    let values = roles.scan(params, goal, &grid);
    let (i, value) = values
        .iter()
        .enumerate()
        .min_by(|a, b| a.1.total_cmp(b.1))
        .ok_or(Unsolved::NoOptimum)?;
    if !value.is_finite() {
        return Err(Unsolved::NoOptimum);
    }
    Ok((grid, values, i))
}

/// The coarse scan whose best point lies inside the window or at a cap: the window widens
/// at an end where the best point sits, up to the widest range, past which it is an error.
fn coarse_scan(
    roles: &Roles,
    params: &[f64],
    goal: Goal,
    limits: &Limits,
) -> Result<(Vec<f64>, Vec<f64>, usize), Unsolved> {
    let mut window = first_window(goal, limits);
    loop {
        let whole = window == (limits.lo, limits.hi);
        let (grid, values, i) = match scan_window(roles, params, goal, window, SCAN_POINTS) {
            // Nothing finite here (a target loss out of reach at these N): look further.
            Err(Unsolved::NoOptimum) if !whole => {
                window = widened(window, limits);
                continue;
            }
            scanned => scanned?,
        };
        let (first, last) = (i == 0, i + 1 == SCAN_POINTS);
        // The first best point of a tie: the loss has gone flat there.
        if !last && values[i + 1] == values[i] {
            return Err(Unsolved::Flat { log_n: grid[i] });
        }
        if first && window.0 > limits.lo {
            window.0 = (window.0 - WINDOW).max(limits.lo);
        } else if last && window.1 < limits.hi {
            window.1 = (window.1 + WINDOW).min(limits.hi);
        } else if (first && !limits.lo_is_cap) || (last && !limits.hi_is_cap) {
            return Err(Unsolved::AtEdge {
                log_n: grid[i],
                lo: limits.lo,
                hi: limits.hi,
            });
        } else {
            return Ok((grid, values, i));
        }
    }
}

/// The window moved out by WINDOW at both ends, within the limits.
fn widened((lo, hi): (f64, f64), limits: &Limits) -> (f64, f64) {
    ((lo - WINDOW).max(limits.lo), (hi + WINDOW).min(limits.hi))
}

/// The optimal log N for one goal: a scan (widened while its best point sits at an end),
/// finer scans around the best point, then the vertex of the parabola through the last three.
fn optimal_log_n(roles: &Roles, params: &[f64], goal: Goal) -> Result<f64, Unsolved> {
    let limits = roles.log_n_range(params, goal).ok_or(Unsolved::NoOptimum)?;
    if limits.hi - limits.lo < 1e-12 {
        return Ok(limits.lo);
    }
    let (mut grid, mut values, mut i) = coarse_scan(roles, params, goal, &limits)?;
    for _ in 0..ZOOMS {
        let window = (grid[i.saturating_sub(1)], grid[(i + 1).min(grid.len() - 1)]);
        (grid, values, i) = scan_window(roles, params, goal, window, 21)?;
    }
    Ok(vertex(&grid, &values, i).unwrap_or(grid[i]))
}

/// The vertex of the parabola through points i−1, i, i+1 (None at an edge or when flat).
fn vertex(x: &[f64], y: &[f64], i: usize) -> Option<f64> {
    if i == 0 || i + 1 >= x.len() || !(y[i - 1].is_finite() && y[i + 1].is_finite()) {
        return None;
    }
    let (x0, x1, x2) = (x[i - 1], x[i], x[i + 1]);
    let (y0, y1, y2) = (y[i - 1], y[i], y[i + 1]);
    let denominator = (x0 - x1) * (x0 - x2) * (x1 - x2);
    let a = (x2 * (y1 - y0) + x1 * (y0 - y2) + x0 * (y2 - y1)) / denominator;
    let b = (x2 * x2 * (y0 - y1) + x1 * x1 * (y2 - y0) + x0 * x0 * (y1 - y2)) / denominator;
    (a > 0.0 && a.is_finite() && b.is_finite())
        .then(|| -b / (2.0 * a))
        .filter(|v| *v >= x0 && *v <= x2)
}

/// Chinchilla's closed form (Hoffmann et al. 2022, eq. 4) for FLOPs = k·N·D.
fn chinchilla_closed_form(params: &[f64], budget: f64, k: f64) -> (f64, f64) {
    let [_, a, alpha, b, beta] = [params[0], params[1], params[2], params[3], params[4]];
    let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
    let base = budget / k;
    let n = g * base.powf(beta / (alpha + beta));
    (n, base / n)
}

/// The budget whose closed-form optimum reaches `target`: along the closed form the loss is
/// E + K·(C/k)^(−αβ/(α+β)) with K = A·G^−α + B·G^β. None when the target is at or below E.
fn chinchilla_budget_for_loss(params: &[f64], target: f64, k: f64) -> Option<f64> {
    let [e, a, alpha, b, beta] = [params[0], params[1], params[2], params[3], params[4]];
    let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
    let scale = a * g.powf(-alpha) + b * g.powf(beta);
    let gamma = alpha * beta / (alpha + beta);
    let budget = k * (scale / (target - e)).powf(1.0 / gamma);
    (target > e && budget > 0.0 && budget.is_finite()).then_some(budget)
}

/// The closed-form N, D at a budget; only a cap's end of `limits` may hold N (the loss along
/// the budget is convex in ln N, so a binding cap holds the optimum at its bound).
fn closed_form_at_budget(limits: &Limits, params: &[f64], c: f64, k: f64) -> (f64, f64) {
    let mut log_n = chinchilla_closed_form(params, c, k).0.ln();
    if limits.hi_is_cap {
        log_n = log_n.min(limits.hi);
    }
    if limits.lo_is_cap {
        log_n = log_n.max(limits.lo);
    }
    let n = log_n.exp();
    (n, c / (k * n))
}

/// The allocation for one goal at one value of the held variables.
fn allocation_at(
    roles: &Roles,
    params: &[f64],
    goal: Goal,
    closed: bool,
) -> Result<Allocation, Unsolved> {
    let closed_factor = roles.settings.flops.linear_factor.filter(|_| closed);
    let capped = {
        let s = roles.settings;
        s.max_params.is_some() || s.max_active.is_some() || s.max_tokens.is_some()
    };
    let (n, d) = match (goal, closed_factor) {
        (Goal::Budget(c), Some(k)) => {
            let limits = roles.log_n_range(params, goal).ok_or(Unsolved::NoOptimum)?;
            closed_form_at_budget(&limits, params, c, k)
        }
        (Goal::Loss(target), Some(k)) if !capped => {
            let c = chinchilla_budget_for_loss(params, target, k).ok_or(Unsolved::NoOptimum)?;
            chinchilla_closed_form(params, c, k)
        }
        _ => {
            let n = optimal_log_n(roles, params, goal)?.exp();
            (n, roles.tokens(params, n, goal).ok_or(Unsolved::NoOptimum)?)
        }
    };
    allocation_of(roles, params, goal, n, d).ok_or(Unsolved::NoOptimum)
}

/// The allocation at (N, D) for one goal (None unless N, D and the loss are finite).
fn allocation_of(roles: &Roles, params: &[f64], goal: Goal, n: f64, d: f64) -> Option<Allocation> {
    let loss = match goal {
        Goal::Budget(_) => roles.loss(params, n, d),
        Goal::Loss(target) => target,
    };
    let with_inference = roles.settings.inference_tokens > 0.0;
    let training = roles.settings.flops.at(n, d);
    let budget = match goal {
        Goal::Budget(c) => c,
        Goal::Loss(_) => roles.lifetime_flops(n, d),
    };
    let finite = n.is_finite() && d.is_finite() && loss.is_finite();
    finite.then(|| Allocation {
        budget,
        n,
        d,
        tokens_per_param: d / n,
        loss,
        total_params: roles
            .settings
            .total_params
            .as_ref()
            .map(|_| roles.total_params(n)),
        training_flops: with_inference.then_some(training),
        inference_flops: with_inference.then(|| roles.inference_flops(n)),
        chosen: BTreeMap::new(),
        binding: roles.binding(n, d),
        reference: None,
        ci: BTreeMap::new(),
        pi: None,
        pi_fit: None,
        calibrated: false,
        distance_decades: None,
    })
}

/// Every combination of the held variables' values, as (variable index, value) lists.
fn held_combinations(law: &Law, held: &BTreeMap<String, Vec<f64>>) -> Vec<Vec<(usize, f64)>> {
    let mut combinations: Vec<Vec<(usize, f64)>> = vec![Vec::new()];
    for (name, values) in held {
        let i = law.variable_index(name).expect("checked by roles()");
        combinations = combinations
            .into_iter()
            .flat_map(|c| {
                values.iter().map(move |v| {
                    let mut next = c.clone();
                    next.push((i, *v));
                    next
                })
            })
            .collect();
    }
    combinations
}

/// The problem for one law and its settings: the roles of N and D and every combination of
/// held values.
struct Problem<'a> {
    law: &'a Law,
    n: usize,
    d: usize,
    combinations: Vec<Vec<(usize, f64)>>,
    settings: &'a AllocationSettings,
    closed: bool,
}

impl Problem<'_> {
    fn roles(&self, held: &[(usize, f64)]) -> Roles<'_> {
        Roles {
            law: self.law,
            n: self.n,
            d: self.d,
            held: held.to_vec(),
            settings: self.settings,
        }
    }

    /// The best allocation over the held combinations: lowest loss for a budget, least
    /// compute for a target loss. A combination without an optimum is skipped; one whose
    /// optimum lies beyond the range searched is an error (it might be the best).
    fn solve(&self, params: &[f64], goal: Goal) -> Result<Allocation, Unsolved> {
        let score = |a: &Allocation| match goal {
            Goal::Budget(_) => a.loss,
            Goal::Loss(_) => a.budget,
        };
        let mut best: Option<Allocation> = None;
        for held in &self.combinations {
            let mut allocation = match allocation_at(&self.roles(held), params, goal, self.closed) {
                Ok(allocation) => allocation,
                Err(Unsolved::NoOptimum) => continue,
                Err(edge) => return Err(edge),
            };
            if self.combinations.len() > 1 {
                allocation.chosen = held
                    .iter()
                    .map(|(i, v)| (self.law.variables[*i].clone(), *v))
                    .collect();
            }
            if best
                .as_ref()
                .map_or(true, |b| score(&allocation) < score(b))
            {
                best = Some(allocation);
            }
        }
        best.ok_or(Unsolved::NoOptimum)
    }

    fn feasible(&self, params: &[f64], goal: Goal) -> bool {
        self.combinations
            .iter()
            .any(|held| self.roles(held).log_n_range(params, goal).is_some())
    }
}

/// Least-squares slope of log y on log x.
fn log_slope(x: &[f64], y: &[f64]) -> Option<f64> {
    let points: Vec<(f64, f64)> = x.iter().zip(y).map(|(a, b)| (a.ln(), b.ln())).collect();
    least_squares_line(&points).map(|(slope, _)| slope)
}

/// The frontier's exponents; None with fewer than two points, with inference (the frontier
/// is then not a power law) or when a cap holds any allocation at its bound.
fn exponents(allocations: &[Allocation]) -> Option<(f64, f64)> {
    let bent = |a: &Allocation| a.binding.is_some() || a.inference_flops.is_some();
    if allocations.len() < 2 || allocations.iter().any(bent) {
        return None;
    }
    let c: Vec<f64> = allocations.iter().map(|a| a.budget).collect();
    let n: Vec<f64> = allocations.iter().map(|a| a.n).collect();
    let d: Vec<f64> = allocations.iter().map(|a| a.d).collect();
    Some((log_slope(&c, &n)?, log_slope(&c, &d)?))
}

/// The compute-optimal frontier of `law` with `params` at every budget (or target loss).
pub fn optimal(law: &Law, params: &[f64], settings: &AllocationSettings) -> Result<Frontier> {
    let goals = goals(settings)?;
    let problem = problem(law, settings)?;
    if let Some(goal) = goals.iter().find(|g| !problem.feasible(params, **g)) {
        return Err(Error::settings(match goal {
            Goal::Budget(c) => format!(
                "at the budget {c:e} no allocation meets the caps (the caps and the inference tokens leave no N); raise a cap or the budget"
            ),
            Goal::Loss(l) => format!(
                "no allocation reaches the loss {l} within the caps; raise a cap or the target loss"
            ),
        }));
    }
    let solve = |p: &[f64]| -> Result<Vec<Allocation>, (Goal, Unsolved)> {
        goals
            .iter()
            .map(|&goal| problem.solve(p, goal).map_err(|u| (goal, u)))
            .collect()
    };
    let mut allocations = solve(params).map_err(|(goal, why)| unsolved(goal, why))?;
    if settings.inference_tokens > 0.0 && !settings.target_losses.is_empty() {
        add_references(law, params, settings, &mut allocations)?;
    }
    let mut exponents = exponents(&allocations).map(|(a, b)| Exponents {
        a,
        b,
        ci: BTreeMap::new(),
    });
    // Draws are independent: solved in parallel, collected in order (results do not depend
    // on the thread count).
    let draws: Vec<Vec<Allocation>> = settings
        .draws
        .par_iter()
        .filter_map(|d| solve(d).ok())
        .collect();
    if !draws.is_empty() {
        let fixed = if settings.target_losses.is_empty() {
            "budget"
        } else {
            "loss"
        };
        add_intervals(
            &mut allocations,
            exponents.as_mut(),
            &draws,
            settings.level,
            fixed,
        );
    }
    let (held, choices) = split_held(&settings.held);
    Ok(Frontier {
        flops: settings.flops.text.clone(),
        method: if problem.closed && settings.flops.linear_factor.is_some() {
            "closed form".into()
        } else {
            "numerical".into()
        },
        goal: if settings.target_losses.is_empty() {
            "budget".into()
        } else {
            "target_loss".into()
        },
        inference_tokens: (settings.inference_tokens > 0.0).then_some(settings.inference_tokens),
        held,
        choices,
        total_params: settings.total_params.as_ref().map(|f| f.text.clone()),
        allocations,
        exponents,
        draws: draws.len(),
        level: (!draws.is_empty()).then_some(settings.level),
        prediction_intervals: None,
    })
}

/// The error for a goal without an allocation, naming the range searched.
fn unsolved(goal: Goal, why: Unsolved) -> Error {
    let decades = |x: f64| format!("1e{}", (x / std::f64::consts::LN_10).round());
    let (lo, hi) = WIDEST_LOG_N;
    let widest = format!("N from {} to {}", decades(lo), decades(hi));
    match (goal, why) {
        (Goal::Budget(c), Unsolved::NoOptimum) => Error::fit(format!(
            "at the budget {c:e} the law has no finite optimum along the budget's constraint ({widest}); check the law and the FLOPs formula"
        )),
        (Goal::Loss(l), Unsolved::NoOptimum) => Error::settings(format!(
            "the law does not reach the loss {l} for any {widest} and D from {} to {} (is the target below the law's floor?); raise the target loss",
            decades(LOG_D_RANGE.0),
            decades(LOG_D_RANGE.1)
        )),
        (goal, Unsolved::Flat { log_n }) => Error::settings(format!(
            "{} {} no longer changes with N from N = {:.3e} on (to machine precision), so the search cannot place an optimum; check the law's parameters, or cap the model size or the tokens",
            goal_words(goal).0,
            goal_words(goal).1,
            log_n.exp()
        )),
        (goal, Unsolved::AtEdge { log_n, lo, hi }) => {
            let (what, falls) = goal_words(goal);
            Error::settings(format!(
                "{what} {falls} still falls at N = {:.3e}, the end of the range searched (N from {:.3e} to {:.3e}): the optimum lies beyond it, if there is one; check the law's parameters (does {falls} rise again as N moves on?), or cap the model size or the tokens",
                log_n.exp(),
                lo.exp(),
                hi.exp()
            ))
        }
    }
}

/// "at the budget C" and "the loss", or "for the loss L" and "the compute".
fn goal_words(goal: Goal) -> (String, &'static str) {
    match goal {
        Goal::Budget(c) => (format!("at the budget {c:e}"), "the loss"),
        Goal::Loss(l) => (format!("for the loss {l}"), "the compute"),
    }
}

/// Held variables with one value, and those with several (choices).
pub(crate) fn split_held(
    held: &BTreeMap<String, Vec<f64>>,
) -> (BTreeMap<String, f64>, BTreeMap<String, Vec<f64>>) {
    let single = held
        .iter()
        .filter(|(_, v)| v.len() == 1)
        .map(|(k, v)| (k.clone(), v[0]))
        .collect();
    let several = held
        .iter()
        .filter(|(_, v)| v.len() > 1)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    (single, several)
}

/// The inference-blind optimum at each target loss (least training compute), and what the
/// inference-aware allocation saves over the run's life relative to it.
fn add_references(
    law: &Law,
    params: &[f64],
    settings: &AllocationSettings,
    allocations: &mut [Allocation],
) -> Result<()> {
    let blind = AllocationSettings {
        inference_tokens: 0.0,
        draws: Vec::new(),
        ..settings.clone()
    };
    let reference = optimal(law, params, &blind)?;
    let t = settings.inference_tokens;
    for (allocation, r) in allocations.iter_mut().zip(reference.allocations) {
        let budget = r.budget + 2.0 * r.n * t;
        allocation.reference = Some(Reference {
            n: r.n,
            d: r.d,
            budget,
            savings: 1.0 - allocation.budget / budget,
        });
    }
    Ok(())
}

fn goals(settings: &AllocationSettings) -> Result<Vec<Goal>> {
    let valid = |v: &f64| *v > 0.0 && v.is_finite();
    match (
        settings.budgets.is_empty(),
        settings.target_losses.is_empty(),
    ) {
        (false, true) => match settings.budgets.iter().find(|c| !valid(c)) {
            Some(bad) => Err(Error::settings(format!(
                "--budget {bad:e}: a budget is a positive number of FLOPs"
            ))),
            None => Ok(settings.budgets.iter().map(|c| Goal::Budget(*c)).collect()),
        },
        (true, false) => match settings.target_losses.iter().find(|l| !valid(l)) {
            Some(bad) => Err(Error::settings(format!(
                "--target-loss {bad}: give a positive loss the law can reach"
            ))),
            None => Ok(settings
                .target_losses
                .iter()
                .map(|l| Goal::Loss(*l))
                .collect()),
        },
        _ => Err(Error::settings(
            "give either budgets (--budget) or target losses (--target-loss), not both",
        )),
    }
}

fn problem<'a>(law: &'a Law, settings: &'a AllocationSettings) -> Result<Problem<'a>> {
    let index = |name: &str| {
        law.variable_index(name).ok_or_else(|| {
            Error::settings(format!(
                "the law '{}' has no variable {name}; allocation needs N (parameters) and D (tokens), its variables are {}",
                law.label(),
                law.variables.join(", ")
            ))
        })
    };
    let (n, d) = (index("N")?, index("D")?);
    check_held(law, &settings.held)?;
    for (option, cap) in [
        ("--max-params", settings.max_params),
        ("--max-active", settings.max_active),
        ("--max-tokens", settings.max_tokens),
    ] {
        if let Some(cap) = cap.filter(|c| !(*c > 0.0 && c.is_finite())) {
            return Err(Error::settings(format!(
                "{option} {cap:e}: give a positive number"
            )));
        }
    }
    let t = settings.inference_tokens;
    if !(t >= 0.0 && t.is_finite()) {
        return Err(Error::settings(format!(
            "--inference-tokens {t:e}: give a number of tokens >= 0"
        )));
    }
    Ok(Problem {
        law,
        n,
        d,
        combinations: held_combinations(law, &settings.held),
        settings,
        closed: law.label() == "chinchilla" && t == 0.0,
    })
}

/// Every other variable of the law needs values, and every held name must be one of them.
fn check_held(law: &Law, held: &BTreeMap<String, Vec<f64>>) -> Result<()> {
    for variable in law.variables.iter().filter(|v| *v != "N" && *v != "D") {
        match held.get(variable) {
            None => {
                return Err(Error::settings(format!(
                    "the law '{}' also reads {variable}: give its value with --set {variable}=VALUE (or several: --set {variable}=1,8,64 to optimise over them)",
                    law.label()
                )))
            }
            Some(values) if values.is_empty() || values.iter().any(|v| !v.is_finite()) => {
                return Err(Error::settings(format!(
                    "--set {variable}: give one or more finite values"
                )))
            }
            Some(_) => {}
        }
    }
    if let Some(name) = held
        .keys()
        .find(|k| law.variable_index(k).is_none() || *k == "N" || *k == "D")
    {
        return Err(Error::settings(format!(
            "--set {name}: not one of the law's other variables ({})",
            law.variables
                .iter()
                .filter(|v| *v != "N" && *v != "D")
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(())
}

/// Percentile intervals of every allocation quantity over the draws' allocations (`fixed`
/// names the given one, which has none), and of the exponents.
pub(crate) fn add_intervals(
    allocations: &mut [Allocation],
    exponents: Option<&mut Exponents>,
    draws: &[Vec<Allocation>],
    level: f64,
    fixed: &str,
) {
    for (i, allocation) in allocations.iter_mut().enumerate() {
        let pick = |f: fn(&Allocation) -> f64| draws.iter().map(|d| f(&d[i])).collect::<Vec<_>>();
        for (name, values) in [
            ("N", pick(|a| a.n)),
            ("D", pick(|a| a.d)),
            ("tokens_per_param", pick(|a| a.tokens_per_param)),
            ("loss", pick(|a| a.loss)),
            ("budget", pick(|a| a.budget)),
        ] {
            // The given quantity (the budget, or the target loss) has no interval.
            if name != fixed {
                let interval = percentile_interval(values, level);
                allocation.ci.insert(name.to_string(), interval);
            }
        }
    }
    if let Some(exponents) = exponents {
        let (a, b): (Vec<f64>, Vec<f64>) = draws.iter().filter_map(|d| self::exponents(d)).unzip();
        if !a.is_empty() {
            exponents
                .ci
                .insert("a".into(), percentile_interval(a, level));
            exponents
                .ci
                .insert("b".into(), percentile_interval(b, level));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::law::catalog;

    fn settings(budgets: Vec<f64>) -> AllocationSettings {
        AllocationSettings::at_budgets(budgets)
    }

    /// Caps on size and tokens hold the optimum at the bound, in the closed form and in the
    /// numerical search alike.
    #[test]
    fn caps_hold_the_optimum_at_their_bound() {
        let law = catalog::lookup("chinchilla").unwrap();
        let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
        let mut s = settings(vec![5.88e23]);
        s.max_params = Some(3e10);
        let a = optimal(&law, &params, &s).unwrap().allocations[0].clone();
        assert!((a.n / 3e10 - 1.0).abs() < 1e-9 && a.binding.as_deref() == Some("max_params"));
        s.max_params = None;
        s.max_tokens = Some(1e12);
        let a = optimal(&law, &params, &s).unwrap().allocations[0].clone();
        assert!((a.d / 1e12 - 1.0).abs() < 1e-6, "D = {:e}", a.d);
        assert_eq!(a.binding.as_deref(), Some("max_tokens"));
        // The same through the numerical search (a formula law has no closed form).
        let formula =
            Law::from_formula("E + A*N^-alpha + B*D^-beta", &|v| v == "N" || v == "D").unwrap();
        let a = optimal(&formula, &params, &s).unwrap().allocations[0].clone();
        assert!((a.d / 1e12 - 1.0).abs() < 1e-6, "numerical D = {:e}", a.d);
        // Caps that leave nothing are an error.
        s.max_params = Some(1e9);
        assert!(optimal(&law, &params, &s)
            .unwrap_err()
            .to_string()
            .contains("caps"));
    }

    /// Epoch AI's published parameters at Chinchilla's budget: N* ≈ 7.312e10, D*/N* ≈ 18.33.
    #[test]
    fn epochs_parameters_give_chinchillas_allocation() {
        let law = catalog::lookup("chinchilla").unwrap();
        let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
        let frontier = optimal(&law, &params, &settings(vec![5.88e23])).unwrap();
        let a = &frontier.allocations[0];
        assert_eq!(frontier.method, "closed form");
        println!("Epoch: N* = {:e}, D*/N* = {}", a.n, a.tokens_per_param);
        assert!((a.n / 7.312e10 - 1.0).abs() < 0.01, "N* = {:e}", a.n);
        assert!(
            (a.tokens_per_param / 18.33 - 1.0).abs() < 0.01,
            "D*/N* = {}",
            a.tokens_per_param
        );
        // The numerical search agrees with the closed form.
        let one_budget = settings(vec![5.88e23]);
        let problem = problem(&law, &one_budget).unwrap();
        let roles = problem.roles(&[]);
        let numerical = allocation_at(&roles, &params, Goal::Budget(5.88e23), false).unwrap();
        assert!(
            (numerical.n / a.n - 1.0).abs() < 1e-6,
            "{:e} vs {:e}",
            numerical.n,
            a.n
        );
    }

    /// Datablations' published parameters (Muennighoff et al. 2023) at C = 1e22 with 25e9
    /// unique tokens: D* ≈ 237.34e9, N* ≈ 7.02e9.
    #[test]
    fn datablations_parameters_give_the_papers_allocation() {
        let law = catalog::lookup("data_constrained").unwrap();
        let by_name = [
            ("E", 0.6254804f64.exp()),
            ("A", 6.255414f64.exp()),
            ("alpha", 0.3526596),
            ("B", 7.3049974f64.exp()),
            ("beta", 0.3526596),
            ("RN_star", 5.309743),
            ("RD_star", 15.387756),
        ];
        let params: Vec<f64> = law
            .params
            .iter()
            .map(|p| by_name.iter().find(|(n, _)| *n == p.name).unwrap().1)
            .collect();
        let mut s = settings(vec![1e22]);
        s.held.insert("U".into(), vec![25e9]);
        let frontier = optimal(&law, &params, &s).unwrap();
        let a = &frontier.allocations[0];
        assert_eq!(frontier.method, "numerical");
        println!("datablations: N* = {:e}, D* = {:e}", a.n, a.d);
        assert!((a.d / 237.34e9 - 1.0).abs() < 0.01, "D* = {:e}", a.d);
        assert!((a.n / 7.02e9 - 1.0).abs() < 0.01, "N* = {:e}", a.n);
    }

    /// Ludziejewski et al. 2025, Table 1: with their Table 3 fit, a dense model (E = 1) at
    /// 1e20 FLOPs is best at N = 1.7B active parameters trained on 9.7B tokens.
    #[test]
    fn moe_published_fit_gives_the_papers_dense_optimum() {
        let law = catalog::lookup("moe").unwrap();
        let params = crate::law::catalog::tests::moe_published(&law);
        let mut s = settings(vec![1e20]);
        s.held.insert("E".into(), vec![1.0]);
        let a = optimal(&law, &params, &s).unwrap().allocations[0].clone();
        println!("moe E=1 at 1e20: N = {:e}, D = {:e}", a.n, a.d);
        assert!((a.n / 1.7e9 - 1.0).abs() < 0.03, "N = {:e}", a.n);
        assert!((a.d / 9.7e9 - 1.0).abs() < 0.03, "D = {:e}", a.d);
    }

    /// Several expert counts are a choice: without a memory cap more experts win; a cap on
    /// total parameters (Switch-style MoE without embeddings: N·(4+9E)/13) makes the search
    /// trade experts for active size, and never breaks the cap.
    #[test]
    fn expert_counts_are_chosen_under_a_memory_cap() {
        let law = catalog::lookup("moe").unwrap();
        let params = crate::law::catalog::tests::moe_published(&law);
        let mut s = settings(vec![1e21]);
        s.held
            .insert("E".into(), vec![1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0]);
        s.total_params = Some(Formula::parse("N*(4+9*E)/13", &["N", "E"], "total").unwrap());
        let free = optimal(&law, &params, &s).unwrap().allocations[0].clone();
        assert_eq!(free.chosen["E"], 64.0);
        s.max_params = Some(5e9);
        let capped = optimal(&law, &params, &s).unwrap().allocations[0].clone();
        println!(
            "moe at 1e21: free E = {}, N = {:e}, total {:e}; capped at 5e9 total: E = {}, N = {:e}, total {:e}, loss {} vs {}",
            free.chosen["E"], free.n, free.total_params.unwrap(),
            capped.chosen["E"], capped.n, capped.total_params.unwrap(), capped.loss, free.loss
        );
        assert!(capped.total_params.unwrap() <= 5e9 * (1.0 + 1e-9));
        assert!(capped.loss >= free.loss);
        // An active-parameter cap binds N itself.
        s.max_params = None;
        s.max_active = Some(1e9);
        let active = optimal(&law, &params, &s).unwrap().allocations[0].clone();
        assert!(active.n <= 1e9 * (1.0 + 1e-9), "N = {:e}", active.n);
    }

    /// Sardana et al. 2024 (Beyond Chinchilla-Optimal), with their Chinchilla constants
    /// (E 1.69, A 406.4, B 410.7, alpha 0.336, beta 0.283): a model of the quality of a
    /// Chinchilla-optimal 13B, served for 2e12 tokens, is best at about 7B trained longer,
    /// saving 1.7e22 FLOPs (17 %); one of 30B quality served for 1e13 tokens, 13.6B trained on
    /// 2.84× the data, saving 28 %.
    #[test]
    fn inference_tokens_reproduce_sardanas_examples() {
        let law = catalog::lookup("chinchilla").unwrap();
        let params = [1.69, 406.4, 0.336, 410.7, 0.283];
        for (n0, t, n_expected, d_ratio, saved) in [
            (13e9, 2e12, 6.97e9, None, 0.174),
            (30e9, 1e13, 13.61e9, Some(2.84), 0.280),
        ] {
            // The Chinchilla-optimal budget and loss for n0 (closed form inverted).
            let (_, d_at_unit) = chinchilla_closed_form(&params, 6.0, 6.0);
            let (alpha, beta) = (params[2], params[4]);
            let g = 1.0 / d_at_unit;
            let c = 6.0 * (n0 / g).powf((alpha + beta) / beta);
            let d0 = c / (6.0 * n0);
            let loss = law.eval(&params, &[n0, d0]);
            let mut s = settings(Vec::new());
            s.target_losses = vec![loss];
            s.inference_tokens = t;
            let frontier = optimal(&law, &params, &s).unwrap();
            let a = &frontier.allocations[0];
            let r = a.reference.as_ref().unwrap();
            println!(
                "Sardana {n0:e} quality (loss {loss:.4}, D0 {d0:e}), T = {t:e}: N = {:e}, D = {:e} ({:.3}x D0), saves {:.1}% ({:e} FLOPs)",
                a.n, a.d, a.d / d0, 100.0 * r.savings, r.budget - a.budget
            );
            assert!((r.n / n0 - 1.0).abs() < 1e-4, "reference N = {:e}", r.n);
            assert!((a.n / n_expected - 1.0).abs() < 0.01, "N = {:e}", a.n);
            assert!((r.savings - saved).abs() < 0.005, "savings {}", r.savings);
            if let Some(ratio) = d_ratio {
                assert!((a.d / d0 / ratio - 1.0).abs() < 0.01, "D/D0 = {}", a.d / d0);
            }
            assert!((law.eval(&params, &[a.n, a.d]) / loss - 1.0).abs() < 1e-9);
        }
    }

    /// With no inference, the cheapest way to a loss is the compute-optimal allocation of the
    /// budget that reaches it (the two problems are dual).
    #[test]
    fn a_target_loss_without_inference_is_the_dual_of_a_budget() {
        let law = catalog::lookup("chinchilla").unwrap();
        let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
        let at_budget = optimal(&law, &params, &settings(vec![1e22]))
            .unwrap()
            .allocations[0]
            .clone();
        let mut s = settings(Vec::new());
        s.target_losses = vec![at_budget.loss];
        let at_loss = optimal(&law, &params, &s).unwrap().allocations[0].clone();
        assert!(
            (at_loss.budget / 1e22 - 1.0).abs() < 1e-6,
            "{:e}",
            at_loss.budget
        );
        assert!((at_loss.n / at_budget.n - 1.0).abs() < 1e-4);
        // A loss below the law's floor E is unreachable.
        s.target_losses = vec![1.5];
        assert!(optimal(&law, &params, &s)
            .unwrap_err()
            .to_string()
            .contains("loss"));
        // Inference tokens at a budget leave less for training: a smaller model.
        let mut s = settings(vec![1e22]);
        s.inference_tokens = 1e12;
        let served = optimal(&law, &params, &s).unwrap().allocations[0].clone();
        assert!(served.n < at_budget.n);
        let total = served.training_flops.unwrap() + served.inference_flops.unwrap();
        assert!((total / 1e22 - 1.0).abs() < 1e-9);
    }

    #[test]
    fn the_frontier_exponents_follow_the_closed_form() {
        let law = catalog::lookup("chinchilla").unwrap();
        let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
        let frontier = optimal(&law, &params, &settings(vec![1e20, 1e22, 1e24])).unwrap();
        let e = frontier.exponents.unwrap();
        let (alpha, beta) = (params[2], params[4]);
        assert!((e.a - beta / (alpha + beta)).abs() < 1e-9, "a = {}", e.a);
        assert!((e.b - alpha / (alpha + beta)).abs() < 1e-9, "b = {}", e.b);
    }

    /// Hoffmann et al. 2022's eq. 4, written out: N* = G·(C/6)^(β/(α+β)), and the loss there.
    fn hoffmann_eq4(p: &[f64], c: f64) -> (f64, f64) {
        let [e, a, alpha, b, beta] = [p[0], p[1], p[2], p[3], p[4]];
        let g = (alpha * a / (beta * b)).powf(1.0 / (alpha + beta));
        let n = g * (c / 6.0).powf(beta / (alpha + beta));
        let d = c / (6.0 * n);
        (n, e + a * n.powf(-alpha) + b * d.powf(-beta))
    }

    const ISSUE_18: [f64; 5] = [1.69, 406.4, 0.1, 410.7, 0.5];
    const HOFFMANN: [f64; 5] = [1.69, 406.4, 0.34, 410.7, 0.28];

    fn formula_chinchilla() -> Law {
        Law::from_formula("E + A*N^-alpha + B*D^-beta", &|v| v == "N" || v == "D").unwrap()
    }

    /// Issue 18: N* beyond 1e16 (α = 0.1, β = 0.5 at 1e22 and 1e24 FLOPs; Hoffmann's fit at
    /// 1e36 and 1e40) is the closed form's, not the edge of a search range, and so are the
    /// losses and the frontier's exponents.
    #[test]
    fn the_closed_form_is_never_clamped() {
        let law = catalog::lookup("chinchilla").unwrap();
        for (params, budgets) in [(ISSUE_18, vec![1e22, 1e24]), (HOFFMANN, vec![1e36, 1e40])] {
            let frontier = optimal(&law, &params, &settings(budgets.clone())).unwrap();
            assert_eq!(frontier.method, "closed form");
            for (a, &c) in frontier.allocations.iter().zip(&budgets) {
                let (n, loss) = hoffmann_eq4(&params, c);
                println!(
                    "{params:?} at {c:e}: N* = {:e} (eq. 4: {n:e}), loss {}",
                    a.n, a.loss
                );
                assert!((a.n / n - 1.0).abs() < 1e-12, "N* = {:e} vs {n:e}", a.n);
                assert!((a.loss / loss - 1.0).abs() < 1e-12, "{} vs {loss}", a.loss);
                assert!(a.binding.is_none());
            }
            let e = frontier.exponents.unwrap();
            let (alpha, beta) = (params[2], params[4]);
            assert!((e.a - beta / (alpha + beta)).abs() < 1e-9, "a = {}", e.a);
            assert!((e.b - alpha / (alpha + beta)).abs() < 1e-9, "b = {}", e.b);
        }
        // The issue's numbers.
        let frontier = optimal(&law, &ISSUE_18, &settings(vec![1e22, 1e24])).unwrap();
        let [low, high] = [&frontier.allocations[0], &frontier.allocations[1]];
        assert!((low.n / 3.25e16 - 1.0).abs() < 0.005 && (high.n / 1.51e18 - 1.0).abs() < 0.005);
        assert!((low.loss - 12.58).abs() < 0.005 && (high.loss - 9.11).abs() < 0.005);
    }

    /// A target loss in the closed form inverts it exactly, at any distance: the budget
    /// reaching the loss of 1e40 FLOPs is 1e40.
    #[test]
    fn a_target_loss_inverts_the_closed_form_at_any_budget() {
        let law = catalog::lookup("chinchilla").unwrap();
        for c in [1e20, 1e40, 1e60] {
            let (n, loss) = hoffmann_eq4(&HOFFMANN, c);
            let mut s = settings(Vec::new());
            s.target_losses = vec![loss];
            let a = optimal(&law, &HOFFMANN, &s).unwrap().allocations[0].clone();
            assert!((a.budget / c - 1.0).abs() < 1e-6, "{:e} vs {c:e}", a.budget);
            assert!((a.n / n - 1.0).abs() < 1e-6, "{:e} vs {n:e}", a.n);
        }
    }

    /// The numerical search (a formula law has no closed form) widens its range of N until
    /// the optimum lies inside: it agrees with eq. 4 at 1e24 and 1e40 FLOPs, in the issue's
    /// case and with Hoffmann's fit, to 1e-4 in N* and 1e-9 in the loss.
    #[test]
    fn the_numerical_search_reaches_the_closed_form_far_out() {
        let formula = formula_chinchilla();
        for params in [ISSUE_18, HOFFMANN] {
            let budgets = vec![1e24, 1e40];
            let frontier = optimal(&formula, &params, &settings(budgets.clone())).unwrap();
            assert_eq!(frontier.method, "numerical");
            for (a, &c) in frontier.allocations.iter().zip(&budgets) {
                let (n, loss) = hoffmann_eq4(&params, c);
                println!(
                    "numerical {params:?} at {c:e}: N* = {:e} (eq. 4: {n:e})",
                    a.n
                );
                assert!((a.n / n - 1.0).abs() < 1e-4, "N* = {:e} vs {n:e}", a.n);
                assert!((a.loss / loss - 1.0).abs() < 1e-9, "{} vs {loss}", a.loss);
            }
            let e = frontier.exponents.unwrap();
            let (alpha, beta) = (params[2], params[4]);
            assert!((e.a - beta / (alpha + beta)).abs() < 1e-5, "a = {}", e.a);
            // A target loss far out, too.
            let (n, loss) = hoffmann_eq4(&params, 1e40);
            let mut s = settings(Vec::new());
            s.target_losses = vec![loss];
            let a = optimal(&formula, &params, &s).unwrap().allocations[0].clone();
            assert!((a.budget / 1e40 - 1.0).abs() < 1e-4, "{:e}", a.budget);
            assert!((a.n / n - 1.0).abs() < 1e-3, "{:e} vs {n:e}", a.n);
        }
    }

    /// A law whose loss keeps falling as N grows along the budget has no optimum: the search
    /// says so, naming the budget and the range, rather than reporting the edge.
    #[test]
    fn an_optimum_beyond_the_widest_range_is_an_error() {
        let law = Law::from_formula("E + A*N^-alpha + 0*D", &|v| v == "N" || v == "D").unwrap();
        let error = optimal(&law, &[1.69, 406.4, 0.34], &settings(vec![1e22])).unwrap_err();
        let message = error.to_string();
        println!("{message}");
        assert!(error.is_input_error(), "{message}");
        for needle in [
            "budget 1e22",
            "no longer changes with N",
            "cap the model size",
        ] {
            assert!(message.contains(needle), "{needle:?} in {message}");
        }
        // Falling without going flat (E = 0: the loss stays resolved): the end of the range.
        let error = optimal(&law, &[0.0, 406.4, 0.34], &settings(vec![1e22])).unwrap_err();
        let message = error.to_string();
        println!("{message}");
        for needle in [
            "budget 1e22",
            "N from 1.000e-10 to 1.000e100",
            "still falls",
        ] {
            assert!(message.contains(needle), "{needle:?} in {message}");
        }
        // With a cap on N the same law is held at the cap, as a cap should.
        let mut s = settings(vec![1e22]);
        s.max_active = Some(1e12);
        let a = optimal(&law, &[1.69, 406.4, 0.34], &s).unwrap().allocations[0].clone();
        assert!((a.n / 1e12 - 1.0).abs() < 1e-9 && a.binding.as_deref() == Some("max_active"));
    }

    #[test]
    fn other_flops_formulas_and_missing_variables_are_handled() {
        let law = catalog::lookup("chinchilla").unwrap();
        let params = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];
        let mut s = settings(vec![5.88e23]);
        s.flops = Flops::parse("6*N*D + 2*N*1e3").unwrap();
        let a = optimal(&law, &params, &s).unwrap().allocations[0].clone();
        assert!((s.flops.at(a.n, a.d) / 5.88e23 - 1.0).abs() < 1e-9);
        assert!(Flops::parse("6*N*T").is_err());
        let constrained = catalog::lookup("data_constrained").unwrap();
        let error = optimal(&constrained, &[1.0; 7], &settings(vec![1e22])).unwrap_err();
        assert!(error.to_string().contains("--set U=VALUE"), "{error}");
    }
}
