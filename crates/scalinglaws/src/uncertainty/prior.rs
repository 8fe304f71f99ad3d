//! How wrong a scaling law's *form* gets beyond the data, learned across studies, and updated
//! by a user's own backtests.
//!
//! One study's rolling-origin backtests see only short hops inside its own range; how the
//! error of a law's form grows 1–3 decades further out is a property of the field's laws and
//! data, measurable only across many studies. The corpus (crate `scalinglaws-corpus`, built
//! from the public studies in `../shared/data`) fits every study at several cut-offs and records
//! each held-out run's error in the fitted space (log loss), its signed distance d in decades
//! from the fitted range, and the fit's own standard deviation s there. The model, for set j
//! (one study's family of runs fitted with one law):
//!
//!   e = prediction − run = η + τⱼ·D(d)·(bⱼ + ε),   η ~ N(0, s²),  ε ~ N(0, 1),
//!   D(d) = d^γ beyond the largest fitted run, ρ·|d|^γ below the smallest, 0 inside,
//!   bⱼ ~ N(μ₊, σ_b²) beyond and an independent bⱼ′ ~ N(μ₋, σ_b²) below: the set's persistent
//!   sign (most laws predict a higher loss than the larger runs reach, not all),
//!   ln τⱼ ~ N(m, ω²) across sets,
//!
//! a hierarchical (random-effects) model of the kind of Gelman et al., *Bayesian Data Analysis*
//! (3rd ed., 2013), ch. 5, with the between-study scale of a meta-analysis (DerSimonian & Laird
//! 1986; here on the log scale). Given τ the bias is conjugate and integrated out exactly; τ is
//! integrated on a grid of ln τ. The hyperparameters (m, ω, γ, μ₊, ρ, μ₋, σ_b) maximise the
//! marginal likelihood of the corpus (an empirical-Bayes fit, Carlin & Louis 2000), each held-out
//! scale group of a cut-off counting once and each study once in total, whatever its number of
//! sets.
//!
//! A user's fit then gets the posterior of its own τ and b given its rolling-origin scores, each
//! (origin, scale group) counting `evidence_weight` (a tempered likelihood, Grünwald 2012: the
//! corpus shows a study's short hops predict its long-hop error only weakly; the weight is the
//! one whose intervals hold closest to their level study by study on studies it was not chosen
//! on, ties going to the sharpest). The predictive's central level is then calibrated on the
//! corpus by jackknife+ across studies ([`LevelCalibration`]). With no scores the prior predictive governs; with
//! many the study's own backtests move it as far as their likelihood allows, and a hop whose
//! error is small beside the fit's own s says little about τ. The interval of a new run at
//! distance d is the central interval of the posterior mixture of
//! N(τ·D·b̄, s² + τ²·D²·(1 + var b)) over the ln τ nodes: the error's predictive distribution.

use std::sync::OnceLock;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::stats::simplex::{minimize, SimplexOptions};
use crate::stats::{normal_cdf, normal_sf, weighted_normal_mixture_quantile};

/// The prior the library ships (`extrapolation_prior.json`, rebuilt by
/// the `extrapolation-corpus` program of the `scalinglaws-corpus` crate).
const SHIPPED: &str = include_str!("extrapolation_prior.json");

/// Nodes of the ln τ grid, in prior standard deviations from the prior's centre.
const GRID_SPAN: f64 = 8.0;
const GRID_NODES: usize = 65;
/// Degrees of freedom of the t distribution of ln τ across sets (heavier tails than a normal:
/// a study unlike any in the corpus is less surprising).
const TAU_TAIL: f64 = TAIL_NU;
pub const TAIL_NU: f64 = 4.0;

/// The hyperparameters of the cross-study model (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PriorModel {
    /// m and ω: mean and standard deviation of ln τ across sets, where τ is the scale of the
    /// form error (fitted space) one decade beyond the data.
    pub log_tau_mean: f64,
    pub log_tau_sd: f64,
    /// γ: the form error grows as d^γ with the decades d beyond the data.
    pub growth: f64,
    /// μ₊: the mean of a set's bias beyond the data, in units of τ·d^γ (positive: the law
    /// predicts a higher loss than the runs reach).
    pub bias: f64,
    /// ρ: the form error's scale below the smallest fitted run relative to beyond, at equal
    /// distance.
    pub below: f64,
    /// μ₋: the mean of a set's bias below the data, in units of ρ·τ·|d|^γ.
    pub below_bias: f64,
    /// σ_b: the spread of sets' biases around μ₊ and μ₋.
    pub bias_sd: f64,
    /// β: ln of the factor by which the form error's scale grows when the fit has a parameter
    /// at a bound (a law that needs a boundary value to fit is less sure of its form).
    pub at_bound: f64,
    /// λ: the form error's scale falls as span^−λ with the decades the fit spans (a hop of
    /// one decade from three decades of data is surer than from one).
    pub span: f64,
}

/// The cross-study prior as shipped: the model and where it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Prior {
    /// Changes whenever the model or the corpus does.
    pub version: String,
    pub model: PriorModel,
    /// The weight of each (origin, scale group) of a user's own backtests in the update of
    /// their τ (1: a full observation).
    pub evidence_weight: f64,
    /// The central level of the predictive distribution that holds the nominal share of the
    /// corpus's held-out runs.
    pub levels: LevelCalibration,
    pub provenance: Provenance,
}

impl Prior {
    /// The posterior of a fit's form error given its own rolling-origin scores.
    pub fn posterior(&self, own: &[Observed]) -> Posterior {
        self.posterior_of(own.iter().copied())
    }

    /// [`Prior::posterior`] of observations made one at a time (a million held-out runs are
    /// not copied into observations first).
    pub fn posterior_of(&self, own: impl Iterator<Item = Observed>) -> Posterior {
        self.model.posterior_of(own, self.evidence_weight)
    }

    /// The interval at nominal `level` of the error e = prediction − run at `point`.
    pub fn error_interval(&self, posterior: &Posterior, point: &Point, level: f64) -> [f64; 2] {
        posterior.error_interval(&self.model, point, self.levels.at(level))
    }
}

/// Nominal levels at which the corpus's calibration is tabulated.
pub const NOMINAL_LEVELS: [f64; 9] = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 0.975, 0.99];

/// The calibration of the predictive distribution's level on the corpus: for each nominal level
/// L, the central level L* of the posterior predictive that held a share L of the held-out runs
/// (each study once). It is split-conformal prediction with the predictive distribution
/// function as the score (Chernozhukov, Wüthrich & Zhu 2021, "Distributional conformal
/// prediction", PNAS 118; Vovk, Gammerman & Shafer 2005): it corrects what the model's normal
/// tails get wrong, whichever way.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LevelCalibration {
    /// (nominal, calibrated) pairs at [`NOMINAL_LEVELS`].
    pub pairs: Vec<[f64; 2]>,
}

impl LevelCalibration {
    /// No correction.
    pub fn identity() -> LevelCalibration {
        LevelCalibration {
            pairs: NOMINAL_LEVELS.iter().map(|&l| [l, l]).collect(),
        }
    }

    /// The calibration from held-out runs' central levels ([`Posterior::central_level`]) and
    /// weights.
    pub fn fit(scores: &[(f64, f64)]) -> LevelCalibration {
        let mut sorted: Vec<(f64, f64)> = scores
            .iter()
            .copied()
            .filter(|s| s.0.is_finite() && s.1 > 0.0)
            .collect();
        if sorted.is_empty() {
            return LevelCalibration::identity();
        }
        sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut pairs: Vec<[f64; 2]> = NOMINAL_LEVELS
            .iter()
            .map(|&l| {
                [
                    l,
                    super::calibration::weighted_quantile(&sorted, l).clamp(1e-6, 1.0 - 1e-9),
                ]
            })
            .collect();
        for i in 1..pairs.len() {
            pairs[i][1] = pairs[i][1].max(pairs[i - 1][1]);
        }
        LevelCalibration { pairs }
    }

    /// The calibrated level for nominal `level`: interpolated in ln((1 − L)/L) between the
    /// tabulated pairs, the end segments' offsets carried beyond them.
    pub fn at(&self, level: f64) -> f64 {
        let odds = |l: f64| ((1.0 - l) / l).ln();
        let back = |x: f64| 1.0 / (1.0 + x.exp());
        let x = odds(level);
        let points: Vec<(f64, f64)> = self
            .pairs
            .iter()
            .map(|p| (odds(p[0]), odds(p[1])))
            .collect();
        let Some(last) = points.len().checked_sub(1) else {
            return level;
        };
        // Odds fall as the level rises: points run from high to low x.
        let segment = (0..last).find(|&i| x <= points[i].0 && x >= points[i + 1].0);
        let shifted = match segment {
            Some(i) => {
                let (a, b) = (points[i], points[i + 1]);
                let t = if a.0 == b.0 {
                    0.0
                } else {
                    (x - a.0) / (b.0 - a.0)
                };
                a.1 + t * (b.1 - a.1)
            }
            None if x > points[0].0 => x + points[0].1 - points[0].0,
            None => x + points[last].1 - points[last].0,
        };
        back(shifted)
    }
}

/// What a prior was fitted to, and how to rebuild it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    pub studies: Vec<String>,
    pub sets: usize,
    pub units: usize,
    pub held_out: usize,
    pub command: String,
}

/// The shipped prior (parsed once).
pub fn shipped() -> &'static Prior {
    static PRIOR: OnceLock<Prior> = OnceLock::new();
    PRIOR.get_or_init(|| {
        serde_json::from_str(SHIPPED).expect("the shipped extrapolation prior is valid JSON")
    })
}

/// One observed error: prediction − run in the fitted space, the fit's own sd there, the
/// signed distance in decades (> 0 beyond the largest fitted run, < 0 below the smallest) and
/// its weight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observed {
    pub error: f64,
    pub weight: f64,
    /// Where it was predicted.
    pub at: Point,
}

/// Where a prediction is made: the fit's own sd there (fitted space), the signed distance in
/// decades from the fitted range, and whether the fit has a parameter at a bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub sd: f64,
    pub distance: f64,
    pub at_bound: bool,
    /// Decades of the law's scale the fit's data span (at least [`MIN_SPAN`]).
    pub span: f64,
}

/// Spans below this (in decades) count as this: a fit on one scale has no span to speak of.
pub const MIN_SPAN: f64 = 0.25;

/// Which side of the data a distance lies on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Beyond,
    Below,
}

fn side(distance: f64) -> Option<Side> {
    if distance > 0.0 {
        Some(Side::Beyond)
    } else if distance < 0.0 {
        Some(Side::Below)
    } else {
        None
    }
}

/// The Gaussian sums of one side's observations at one τ: Σw·ln(2πv), Σw·e²/v, Σw·a·e/v,
/// Σw·a²/v with a = τ·D and v = s² + a².
#[derive(Debug, Clone, Copy, Default)]
struct Sums([f64; 4]);

/// A set's bias on one side given τ: its mean and variance.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bias {
    pub mean: f64,
    pub variance: f64,
}

impl PriorModel {
    /// D(d)·span^−λ, times e^β for a fit with a parameter at a bound: the form error's scale
    /// at `point`, per unit of τ.
    pub fn spread_at(&self, point: &Point) -> f64 {
        let bound = if point.at_bound { self.at_bound } else { 0.0 };
        let span = point.span.max(MIN_SPAN);
        (bound - self.span * span.ln()).exp() * self.spread(point.distance)
    }

    /// D(d): how the form error's scale grows with the signed distance.
    pub fn spread(&self, distance: f64) -> f64 {
        match side(distance) {
            Some(Side::Beyond) => distance.powf(self.growth),
            Some(Side::Below) => self.below * (-distance).powf(self.growth),
            None => 0.0,
        }
    }

    fn prior_bias(&self, side: Side) -> f64 {
        match side {
            Side::Beyond => self.bias,
            Side::Below => self.below_bias,
        }
    }

    /// ln τ at the grid's nodes and their prior log weights (normal, up to a constant).
    fn grid(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        (0..GRID_NODES).map(move |k| {
            let x = -GRID_SPAN + 2.0 * GRID_SPAN * k as f64 / (GRID_NODES - 1) as f64;
            let log_prior = -0.5 * (TAU_TAIL + 1.0) * (x * x / TAU_TAIL).ln_1p();
            (self.log_tau_mean + self.log_tau_sd * x, log_prior)
        })
    }

    /// Each observation's side, form-error scale per unit of τ, variance of the fit's own
    /// error, error and weight (times `weight`): what every grid node reuses.
    fn prepared(
        &self,
        observed: impl Iterator<Item = Observed>,
        weight: f64,
    ) -> Vec<(usize, f64, f64, f64, f64)> {
        observed
            .filter_map(|o| {
                let at = side(o.at.distance)? as usize;
                Some((
                    at,
                    self.spread_at(&o.at),
                    o.at.sd * o.at.sd,
                    o.error,
                    o.weight * weight,
                ))
            })
            .collect()
    }

    /// Each side's sums at τ = exp(`log_tau`) over `prepared` observations.
    fn sums(prepared: &[(usize, f64, f64, f64, f64)], log_tau: f64) -> [Sums; 2] {
        let tau = log_tau.exp();
        let mut sums = [Sums::default(); 2];
        for &(at, spread, own, error, w) in prepared {
            let a = tau * spread;
            let v = own + a * a;
            if !(v > 0.0 && v.is_finite()) {
                continue;
            }
            let s = &mut sums[at].0;
            s[0] += w * (std::f64::consts::TAU * v).ln();
            s[1] += w * error * error / v;
            s[2] += w * a * error / v;
            s[3] += w * a * a / v;
        }
        sums
    }

    /// ln ∫ Π N(e; a·b, v)^w · N(b; μ, σ_b²) db of one side, and b's posterior (exact: the
    /// bias is conjugate given τ).
    fn integrate_bias(&self, sums: Sums, side: Side) -> (f64, Bias) {
        let [s0, s1, s2, s3] = sums.0;
        let mu = self.prior_bias(side);
        let prior_variance = self.bias_sd * self.bias_sd;
        let precision = s3 + 1.0 / prior_variance;
        let mean = (s2 + mu / prior_variance) / precision;
        let log = -0.5 * (s0 + s1 + mu * mu / prior_variance - mean * mean * precision)
            - 0.5 * (prior_variance * precision).ln();
        let variance = 1.0 / precision;
        (log, Bias { mean, variance })
    }

    /// Every grid node's ln prior + ln likelihood and the biases' posteriors there.
    fn nodes(
        &self,
        observed: impl Iterator<Item = Observed>,
        weight: f64,
    ) -> Vec<(f64, f64, [Bias; 2])> {
        let prepared = self.prepared(observed, weight);
        self.grid()
            .map(|(log_tau, log_prior)| {
                let sums = Self::sums(&prepared, log_tau);
                let (up, beyond) = self.integrate_bias(sums[0], Side::Beyond);
                let (down, below) = self.integrate_bias(sums[1], Side::Below);
                (log_tau, log_prior + up + down, [beyond, below])
            })
            .collect()
    }

    /// The posterior of a set's τ and biases given its observations (their weights multiplied
    /// by `weight`).
    pub fn posterior(&self, observed: &[Observed], weight: f64) -> Posterior {
        self.posterior_of(observed.iter().copied(), weight)
    }

    /// [`PriorModel::posterior`] of observations made one at a time.
    pub fn posterior_of(&self, observed: impl Iterator<Item = Observed>, weight: f64) -> Posterior {
        let nodes = self.nodes(observed, weight);
        let top = nodes.iter().map(|n| n.1).fold(f64::NEG_INFINITY, f64::max);
        let total: f64 = nodes.iter().map(|n| (n.1 - top).exp()).sum();
        let mut kept: Vec<Node> = nodes
            .iter()
            .map(|&(log_tau, lp, bias)| Node {
                log_tau,
                weight: (lp - top).exp() / total,
                bias,
            })
            .collect();
        let mean: f64 = kept.iter().map(|n| n.log_tau * n.weight).sum();
        let variance: f64 = kept
            .iter()
            .map(|n| n.weight * (n.log_tau - mean).powi(2))
            .sum();
        let own_weight = (1.0 - variance / self.log_tau_sd.powi(2)).clamp(0.0, 1.0);
        kept.retain(|n| n.weight > 1e-12);
        Posterior {
            nodes: kept,
            own_weight,
        }
    }

    /// ln of the marginal likelihood of one set's observations (τ and the biases integrated
    /// out), up to a constant that does not depend on the hyperparameters.
    fn log_marginal(&self, observed: &[Observed]) -> f64 {
        let nodes = self.nodes(observed.iter().copied(), 1.0);
        let top = nodes.iter().map(|n| n.1).fold(f64::NEG_INFINITY, f64::max);
        let normaliser: f64 = self.grid().map(|g| g.1.exp()).sum();
        top + (nodes.iter().map(|n| (n.1 - top).exp()).sum::<f64>() / normaliser).ln()
    }
}

/// One node of a posterior: ln τ, its weight, and the biases' posteriors (beyond, below).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Node {
    pub log_tau: f64,
    pub weight: f64,
    pub bias: [Bias; 2],
}

/// The posterior of a fit's form error: its nodes, and how much of the prior's uncertainty in
/// ln τ the user's own backtests removed (0: the prior governs; 1: the data alone).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Posterior {
    pub nodes: Vec<Node>,
    pub own_weight: f64,
}

impl Posterior {
    /// The median τ (the form error's scale one decade out).
    pub fn median_tau(&self) -> f64 {
        let mut running = 0.0;
        for n in &self.nodes {
            running += n.weight;
            if running >= 0.5 {
                return n.log_tau.exp();
            }
        }
        self.nodes.last().map_or(f64::NAN, |n| n.log_tau.exp())
    }

    /// The mixture components (weight, mean, sd) of the error e = prediction − run at `point`.
    fn components(&self, model: &PriorModel, point: &Point) -> Vec<(f64, f64, f64)> {
        let (sd, distance) = (point.sd, point.distance);
        let spread = model.spread_at(point);
        let at = side(distance).unwrap_or(Side::Beyond) as usize;
        self.nodes
            .iter()
            .map(|n| {
                let scale = n.log_tau.exp() * spread;
                let b = n.bias[at];
                let sd = (sd * sd + scale * scale * (1.0 + b.variance)).sqrt();
                (n.weight, scale * b.mean, sd)
            })
            .collect()
    }

    /// The central interval at `level` of the error e = prediction − run at `point` (in the
    /// fitted space), before the corpus's level calibration ([`Prior::error_interval`]).
    pub fn error_interval(&self, model: &PriorModel, point: &Point, level: f64) -> [f64; 2] {
        let components = self.components(model, point);
        let tail = (1.0 - level) / 2.0;
        [
            weighted_normal_mixture_quantile(&components, tail),
            weighted_normal_mixture_quantile(&components, 1.0 - tail),
        ]
    }

    /// The smallest central level whose interval holds the error `error`: 1 − 2·min(F, 1 − F)
    /// with F the error's predictive distribution function (the score of the level calibration).
    pub fn central_level(&self, model: &PriorModel, point: &Point, error: f64) -> f64 {
        let components = self.components(model, point);
        let (mut below, mut above) = (0.0, 0.0);
        for (w, m, s) in components {
            let z = (error - m) / s;
            below += w * normal_cdf(z);
            above += w * normal_sf(z);
        }
        (1.0 - 2.0 * below.min(above)).clamp(0.0, 1.0)
    }
}

/// One set's evidence for the prior's fit: its observations and its weight in the marginal
/// likelihood (each study counting once in total).
#[derive(Debug, Clone)]
pub struct SetEvidence {
    pub weight: f64,
    pub observed: Vec<Observed>,
}

/// The hyperparameters that maximise the weighted marginal likelihood of `sets` (see the
/// module doc), searched by the simplex from a start near the field's typical values.
pub fn fit_model(sets: &[SetEvidence]) -> Result<PriorModel> {
    fit_model_from(sets, None)
}

/// [`fit_model`] from `start` (a model fitted to similar evidence) when given.
pub fn fit_model_from(sets: &[SetEvidence], start: Option<&PriorModel>) -> Result<PriorModel> {
    if sets.is_empty() {
        return Err(Error::settings(
            "the extrapolation prior needs at least one set of held-out errors",
        ));
    }
    let objective = |v: &[f64]| -> f64 {
        let model = unpack(v);
        let plausible = (0.05..=3.0).contains(&model.growth)
            && (-3.0..=3.0).contains(&model.at_bound)
            && (-3.0..=3.0).contains(&model.span)
            && (0.02..=5.0).contains(&model.log_tau_sd)
            && (0.01..=10.0).contains(&model.bias_sd);
        if !plausible {
            return f64::INFINITY;
        }
        // In parallel over sets, summed in set order: the same value at any thread count.
        let terms: Vec<f64> = sets
            .par_iter()
            .map(|s| s.weight * model.log_marginal(&s.observed))
            .collect();
        -terms.iter().sum::<f64>()
    };
    let start = start.map_or(
        vec![
            0.04f64.ln(),
            0.0,
            0.8,
            0.4,
            2.0f64.ln(),
            0.3,
            0.5f64.ln(),
            0.0,
            0.0,
        ],
        pack,
    );
    let (best, value) = minimize(&objective, &start, &SimplexOptions::default());
    if !value.is_finite() {
        return Err(Error::settings(
            "the extrapolation prior's likelihood is not finite at any point searched",
        ));
    }
    Ok(unpack(&best))
}

/// A model as the search's coordinates.
fn pack(m: &PriorModel) -> Vec<f64> {
    vec![
        m.log_tau_mean,
        m.log_tau_sd.ln(),
        m.growth,
        m.bias,
        m.below.ln(),
        m.below_bias,
        m.bias_sd.ln(),
        m.at_bound,
        m.span,
    ]
}

/// The search's coordinates (ω, ρ and σ_b on the log scale) as a model.
fn unpack(v: &[f64]) -> PriorModel {
    PriorModel {
        log_tau_mean: v[0],
        log_tau_sd: v[1].exp(),
        growth: v[2],
        bias: v[3],
        below: v[4].exp(),
        below_bias: v[5],
        bias_sd: v[6].exp(),
        at_bound: v[7],
        span: v[8],
    }
}

/// The smallest value whose weighted share of `sorted` (value, weight) pairs, at or below it,
/// reaches `level`.
pub(crate) fn weighted_quantile(sorted: &[(f64, f64)], level: f64) -> f64 {
    let total: f64 = sorted.iter().map(|p| p.1).sum();
    let mut running = 0.0;
    for &(value, weight) in sorted {
        running += weight;
        if running >= level * total * (1.0 - 1e-12) {
            return value;
        }
    }
    sorted.last().map_or(0.0, |p| p.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_weighted_quantile_counts_weights() {
        let sorted = [(0.0, 1.0), (1.0, 1.0), (2.0, 2.0)];
        assert!((weighted_quantile(&sorted, 0.5) - 1.0).abs() < 1e-12);
        assert!((weighted_quantile(&sorted, 0.51) - 2.0).abs() < 1e-12);
    }
}
