//! Which runs to launch next: the batch of candidate runs that most narrows the interval of
//! what the user cares about (a target: the loss at a point, or the compute-optimal loss, N*,
//! D* or D*/N* at a budget) within a spend (total cost of the batch, 6·N·D by default) and a
//! number of runs.
//!
//! - `target.rs`: the targets as functions of the parameters, with their gradients;
//! - `information.rs`: the Fisher information of runs, exact from the law's tape;
//! - `choose.rs`: the pseudo-Bayesian c-optimal criterion over parameter draws, greedy
//!   selection with a cost penalty and exchanges, and an exhaustive search for small cases;
//! - `simulate.rs`: the promised widths checked by simulated outcomes and refits;
//! - `campaign.rs`: several rounds of design, outcomes and refits, for planning.
//!
//! Every width is 2·z·sd of the target at the settings' level: now (from the fit's own
//! covariance, and from the information the design works with), expected after the batch
//! (the criterion's), and measured by the simulated refits.

mod campaign;
pub mod choose;
pub mod information;
pub mod simulate;
pub mod target;

use std::collections::BTreeMap;

use nalgebra::{DMatrix, DVector};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

pub use campaign::Round;
pub use choose::{Batch, Criterion, DrawState};
pub use information::Coordinates;
pub use simulate::SimulationCheck;
pub use target::{Quantity, Target};

use crate::analysis::allocation::Flops;
use crate::error::{Error, Result, Setting};
use crate::fit::{FitData, FitResult, FitSettings};
use crate::law::Law;
use crate::rng::Rng;
use crate::stats::normal_quantile;
use information::{inverse, normal_step, row};

/// What is known before the batch: the law and how it is fitted, the runs so far (possibly
/// none), the parameters' current estimate, the noise of a run's outcome in the fitted space,
/// and a prior sd for each free parameter (in the design's coordinates: log θ for a
/// parameter bounded below by zero, θ otherwise).
#[derive(Debug, Clone)]
pub struct Knowledge {
    pub law: Law,
    pub settings: FitSettings,
    pub data: FitData,
    pub centre: Vec<f64>,
    pub noise: f64,
    pub prior_sd: Vec<f64>,
}

/// The prior sd given to a free parameter when none is asked for: in log θ, a factor e^10;
/// weak enough to leave what the runs determine unchanged, strong enough to keep what no
/// run determines finite.
pub const WEAK_PRIOR_SD: f64 = 10.0;

impl Knowledge {
    /// The knowledge a fit on `data` gives: its parameters, the weak prior, and as the noise
    /// `noise` when given, else the fit's residual scale.
    pub fn from_fit(
        law: Law,
        settings: FitSettings,
        data: FitData,
        fit: &FitResult,
        noise: Option<f64>,
    ) -> Result<Knowledge> {
        let noise = noise
            .or(fit.stats.residual_scale)
            .filter(|s| s.is_finite() && *s > 0.0)
            .ok_or_else(|| {
                refuse(Setting::Noise, "the fit has no residual scale (its rows, or their weights, do not exceed its parameters), so the noise of a new run is unknown; give it")
            })?;
        let free = law
            .params
            .iter()
            .filter(|p| !settings.fixed.contains_key(&p.name))
            .count();
        Ok(Knowledge {
            centre: fit.param_values(),
            prior_sd: vec![WEAK_PRIOR_SD; free],
            law,
            settings,
            data,
            noise,
        })
    }

    fn coordinates(&self) -> Coordinates {
        Coordinates::new(
            &self.law,
            &|name| self.settings.fixed.contains_key(name),
            &self.centre,
        )
    }
}

/// The candidate runs: each a point (one value per law variable, in the law's order) and its
/// cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidates {
    pub points: Vec<Vec<f64>>,
    pub cost: Vec<f64>,
}

/// How the batch is chosen.
#[derive(Debug, Clone)]
pub struct DesignSettings {
    pub targets: Vec<Target>,
    /// Most runs in the batch.
    pub runs: usize,
    /// Most total cost of the batch (None: only the number of runs limits it).
    pub spend: Option<f64>,
    /// How a target's budget is counted (the allocation's FLOPs formula).
    pub flops: Flops,
    /// Parameter draws the criterion averages over (1: the current estimate only).
    pub draws: usize,
    /// Simulated refits that check the expected widths (0: none).
    pub simulations: usize,
    /// Rounds of a planned campaign (1: this batch only).
    pub rounds: usize,
    pub level: f64,
    pub seed: u64,
}

/// Most draws, simulations, runs per batch and rounds (each is work that grows with it).
pub const MAX_DRAWS: usize = 4096;
pub const MAX_SIMULATIONS: usize = 100_000;
pub const MAX_RUNS: usize = 1000;
pub const MAX_ROUNDS: usize = 100;
/// Most candidates (each costs draws × p numbers of memory).
pub const MAX_CANDIDATES: usize = 1_000_000;
/// Most candidates × draws: each pair keeps a row of p numbers (about 70 bytes with p = 5),
/// so this bounds the memory near 300 MB.
pub const MAX_CANDIDATE_DRAWS: usize = 4_000_000;
/// Most runs × candidates × draws: the greedy and exchange passes score every candidate under
/// every draw once per run (about p² operations each), so this bounds the time to tens of
/// seconds.
pub const MAX_SEARCH_WORK: usize = 50_000_000;

/// A goal's value and widths, each the width of an interval at the design's level.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TargetWidths {
    /// The goal, as the library labels it (`optimal_loss@1e+23`).
    pub target: String,
    /// The goal at the current estimate (NaN where the law has no optimum there).
    pub value: f64,
    /// Its width now, from the fit's own covariance (None before any run, or without one).
    pub width_fit: Option<f64>,
    /// Its width now, from the information the design works with.
    pub width_now: f64,
    /// Its width expected once the whole batch is added.
    pub width_after: f64,
    /// The median width the simulated refits reported (None: not simulated).
    pub width_simulated: Option<f64>,
}

/// A run of the batch to launch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlannedRun {
    /// The run's value of each law variable (`{"N": ..., "D": ...}`).
    pub point: BTreeMap<String, f64>,
    /// Its cost (the design's cost formula).
    pub cost: f64,
    /// Each goal's expected width (in the order of `targets`) once this run and the ones
    /// before it are added.
    pub widths_after: Vec<f64>,
}

/// Everything `design` returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DesignResult {
    /// Level of the widths (each is the width of an interval at this level).
    pub level: f64,
    /// The noise of a run's outcome, in the fitted space.
    pub noise: f64,
    /// Parameter draws the criterion averaged over.
    pub draws: usize,
    /// Candidate runs the batch was chosen from.
    pub candidates: usize,
    /// Most runs in the batch, as asked.
    pub max_runs: usize,
    /// Most total cost of the batch, as asked (None: no limit).
    pub spend: Option<f64>,
    /// The batch: its runs in the order chosen.
    pub runs: Vec<PlannedRun>,
    /// The batch's total cost.
    pub cost: f64,
    /// The greedy pass's cost exponent λ (narrowing per cost^λ) whose batch was kept.
    pub cost_exponent: f64,
    /// Each goal's value and widths.
    pub targets: Vec<TargetWidths>,
    /// The check of the expected widths by simulated refits (None: not simulated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub simulation: Option<SimulationCheck>,
    /// A planned campaign's rounds (empty for a single batch).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rounds: Vec<Round>,
    /// What the widths rest on and leave out, in words.
    pub notes: Vec<String>,
    /// What the design inherits from the diagnostics of the fit of the runs so far (a
    /// parameter at a bound, ...): its widths lean on that fit. Not written when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fit_caveats: Vec<crate::fit::FitCaveat>,
}

/// The batch for `knowledge` among `candidates`, its expected widths, their simulated check
/// and, with several rounds, the planned campaign. `fit` (the fit `knowledge` came from, if
/// any) gives the widths now from its own covariance, and its caveats.
pub fn design(
    knowledge: &Knowledge,
    candidates: &Candidates,
    settings: &DesignSettings,
    fit: Option<&FitResult>,
) -> Result<DesignResult> {
    check(knowledge, candidates, settings)?;
    let mut notes = Vec::new();
    let plain = knowledge.settings.family.is_none();
    // Before any run nothing is fitted (a refit would not carry the prior).
    let refits = !knowledge.data.target.is_empty();
    if refits && plain && knowledge.settings.loss != crate::fit::LossKind::Linear {
        notes.push(format!(
            "the expected widths assume least squares (Gaussian noise of sd {} in the fitted space); the fit uses the {} loss, whose widths only the simulated refits measure",
            significant(knowledge.noise),
            knowledge.settings.loss.name()
        ));
    }
    let (criterion, _) = criterion(knowledge, candidates, settings, 0)?;
    let spend = settings.spend.unwrap_or(f64::INFINITY);
    let batch = choose::choose(&criterion, settings.runs, spend).ok_or_else(|| {
        if candidates.cost.iter().all(|&c| c > spend) {
            refuse(Setting::Spend, "no candidate run fits within the spend; raise it or add cheaper candidates")
        } else {
            refuse(Setting::Goal, "no candidate run narrows the goals (they are already determined by the runs so far or by fixed parameters, or the noise swamps any run)")
        }
    })?;
    repeats_note(knowledge, candidates, &batch, &mut notes);
    let z = normal_quantile(0.5 + settings.level / 2.0);
    let width = |var: f64| 2.0 * z * var.max(0.0).sqrt();
    let runs = planned_runs(knowledge, candidates, &criterion, &batch, &width);
    let now = criterion.per_target(&criterion.after(&[]));
    let after = criterion.per_target(&criterion.after(&batch.runs));
    let points: Vec<Vec<f64>> = batch
        .runs
        .iter()
        .map(|&c| candidates.points[c].clone())
        .collect();
    let simulation = simulation(knowledge, &points, settings, &mut notes);
    let fit_widths = fit.and_then(|f| {
        simulate::widths_of(
            &knowledge.law,
            f,
            &settings.targets,
            &settings.flops,
            settings.level,
        )
    });
    let targets = settings
        .targets
        .iter()
        .enumerate()
        .map(|(t, target)| TargetWidths {
            target: target.label(),
            value: target
                .value(&knowledge.law, &settings.flops, &knowledge.centre)
                .unwrap_or(f64::NAN),
            width_fit: fit_widths.as_ref().map(|w| w[t]),
            width_now: width(now[t]),
            width_after: width(after[t]),
            width_simulated: simulation.as_ref().map(|s| s.median_widths[t]),
        })
        .collect();
    let rounds = campaign::plan(knowledge, candidates, settings, &mut notes)?;
    Ok(DesignResult {
        level: settings.level,
        noise: knowledge.noise,
        draws: criterion.draws.len(),
        candidates: candidates.points.len(),
        max_runs: settings.runs,
        spend: settings.spend,
        cost: batch.runs.iter().map(|&c| candidates.cost[c]).sum(),
        runs,
        cost_exponent: batch.cost_exponent,
        targets,
        simulation,
        rounds,
        notes,
        fit_caveats: fit.map(FitResult::caveats).unwrap_or_default(),
    })
}

/// Three significant digits.
fn significant(x: f64) -> String {
    let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}

/// A batch may run one candidate several times (another seed of the most informative run can
/// add more than any other candidate): say which.
fn repeats_note(
    knowledge: &Knowledge,
    candidates: &Candidates,
    batch: &Batch,
    notes: &mut Vec<String>,
) {
    let mut seen: Vec<(usize, usize)> = Vec::new();
    for &c in &batch.runs {
        match seen.iter_mut().find(|(k, _)| *k == c) {
            Some((_, n)) => *n += 1,
            None => seen.push((c, 1)),
        }
    }
    for (c, n) in seen.into_iter().filter(|(_, n)| *n > 1) {
        let point: Vec<String> = knowledge
            .law
            .variables
            .iter()
            .zip(&candidates.points[c])
            .map(|(v, x)| format!("{v}={x:.2e}"))
            .collect();
        notes.push(format!(
            "the batch runs {} {n} times (with different seeds): there another run narrows the targets more than a run anywhere else",
            point.join(",")
        ));
    }
}

/// Each run of the batch with the targets' expected widths once it is added.
fn planned_runs(
    knowledge: &Knowledge,
    candidates: &Candidates,
    criterion: &Criterion,
    batch: &Batch,
    width: &dyn Fn(f64) -> f64,
) -> Vec<PlannedRun> {
    (0..batch.runs.len())
        .map(|k| {
            let c = batch.runs[k];
            let variances = criterion.per_target(&criterion.after(&batch.runs[..=k]));
            PlannedRun {
                point: knowledge
                    .law
                    .variables
                    .iter()
                    .cloned()
                    .zip(candidates.points[c].iter().copied())
                    .collect(),
                cost: candidates.cost[c],
                widths_after: variances.into_iter().map(width).collect(),
            }
        })
        .collect()
}

fn simulation(
    knowledge: &Knowledge,
    points: &[Vec<f64>],
    settings: &DesignSettings,
    notes: &mut Vec<String>,
) -> Option<SimulationCheck> {
    if knowledge.data.target.is_empty() {
        notes.push("the expected widths were not checked by simulated refits: with no runs so far they rest on the prior, which a refit of the batch's outcomes does not carry (fit the batch's real outcomes, then design the next round from them)".into());
        return None;
    }
    if settings.simulations == 0 {
        return None;
    }
    let free = knowledge.prior_sd.len();
    let rows = knowledge.data.target.len() + points.len();
    if rows <= free {
        notes.push(format!(
            "the expected widths were not checked by simulated refits: the runs so far and the batch make {rows} rows, too few to refit {free} free parameters"
        ));
        return None;
    }
    let check = simulate::check(knowledge, points, settings);
    if check.refits == 0 {
        notes.push(format!(
            "all {} simulated refits failed or had no covariance, so the expected widths are unchecked",
            check.simulations
        ));
        return None;
    }
    if check.refits < check.simulations {
        notes.push(format!(
            "{} of {} simulated refits failed or had no covariance; the simulated widths are the others' median",
            check.simulations - check.refits,
            check.simulations
        ));
    }
    Some(check)
}

/// The criterion of `knowledge` over `candidates`, and the parameter draws it averages over
/// (the current estimate first). `stream` keeps a campaign's rounds apart.
pub fn criterion(
    knowledge: &Knowledge,
    candidates: &Candidates,
    settings: &DesignSettings,
    stream: u64,
) -> Result<(Criterion, Vec<Vec<f64>>)> {
    let coords = knowledge.coordinates();
    let existing = knowledge.data.points();
    let info = information::information(&knowledge.law, knowledge.settings.space, &coords, &knowledge.centre, &existing, knowledge.data.weights.as_deref(), knowledge.noise, &knowledge.prior_sd)
        .ok_or_else(|| Error::settings("the law is not finite at a run so far under the current estimate, so its information cannot be computed"))?;
    let covariance = inverse(&info).ok_or_else(|| Error::settings("the information of the runs so far is singular; give a prior for the parameters they do not determine"))?;
    let truths = draws(knowledge, &coords, &covariance, settings, stream);
    let states: Vec<Option<DrawState>> = truths
        .par_iter()
        .map(|theta| draw_state(knowledge, &coords, &existing, candidates, settings, theta))
        .collect();
    if states.first().and_then(Option::as_ref).is_none() {
        return Err(undefined_at_estimate(knowledge, settings));
    };
    let kept: Vec<(Vec<f64>, DrawState)> = truths
        .into_iter()
        .zip(states)
        .filter_map(|(t, s)| Some((t, s?)))
        .collect();
    let (truths, draws): (Vec<Vec<f64>>, Vec<DrawState>) = kept.into_iter().unzip();
    Ok((
        Criterion {
            draws,
            sigma: knowledge.noise,
            cost: candidates.cost.clone(),
        },
        truths,
    ))
}

/// Why the criterion cannot be formed at the current estimate: the first goal the allocation
/// or the law cannot evaluate there (with the allocation's own reason), or one whose variance
/// is zero (already determined, e.g. by fixed parameters).
fn undefined_at_estimate(knowledge: &Knowledge, settings: &DesignSettings) -> Error {
    for t in &settings.targets {
        if let Err(e) = t.evaluate(&knowledge.law, &settings.flops, &knowledge.centre) {
            if e.key() == Some(Setting::Goal) {
                return e;
            }
            return refuse(
                Setting::Goal,
                format!(
                    "{} cannot be evaluated at the current estimate: {}",
                    t.label(),
                    e.worded(&crate::error::Neutral)
                ),
            );
        }
    }
    refuse(Setting::Goal, "a goal has no finite, positive variance at the current estimate (it is already determined, or the law is not finite at a candidate there)")
}

/// The current estimate and `settings.draws − 1` draws from N(φ̂, I⁻¹), each redrawn (up to
/// 100 times) until it lies within the parameters' bounds.
fn draws(
    knowledge: &Knowledge,
    coords: &Coordinates,
    covariance: &DMatrix<f64>,
    settings: &DesignSettings,
    stream: u64,
) -> Vec<Vec<f64>> {
    let lower = covariance.clone().cholesky().map(|c| c.l());
    let mut out = vec![knowledge.centre.clone()];
    let Some(lower) = lower else { return out };
    for k in 1..settings.draws {
        let mut rng = Rng::stream(settings.seed ^ stream.wrapping_mul(0x9E37_79B9), k as u64);
        if let Some(theta) =
            (0..100).find_map(|_| coords.shifted(&knowledge.centre, &normal_step(&lower, &mut rng)))
        {
            out.push(theta);
        }
    }
    out
}

/// One draw's inverse information, target gradients and candidate rows (None where the law
/// or a target is not defined at the draw).
fn draw_state(
    knowledge: &Knowledge,
    coords: &Coordinates,
    existing: &[Vec<f64>],
    candidates: &Candidates,
    settings: &DesignSettings,
    theta: &[f64],
) -> Option<DrawState> {
    let space = knowledge.settings.space;
    let info = information::information(
        &knowledge.law,
        space,
        coords,
        theta,
        existing,
        knowledge.data.weights.as_deref(),
        knowledge.noise,
        &knowledge.prior_sd,
    )?;
    let m = inverse(&info)?;
    let gradients: Vec<DVector<f64>> = settings
        .targets
        .iter()
        .map(|t| {
            t.value(&knowledge.law, &settings.flops, theta)?;
            let g = coords.project(theta, &t.gradient(&knowledge.law, &settings.flops, theta)?);
            let variance = g.dot(&(&m * &g));
            (g.iter().all(|v| v.is_finite()) && variance.is_finite() && variance > 0.0).then_some(g)
        })
        .collect::<Option<_>>()?;
    let rows = candidates
        .points
        .iter()
        .map(|p| row(&knowledge.law, space, coords, theta, p))
        .collect();
    Some(DrawState::new(m, gradients, rows))
}

/// An error of the setting `key`, led by the setting as each front end names it.
pub(crate) fn refuse(key: Setting, message: impl Into<String>) -> Error {
    Error::setting(key, crate::text![key.subject(), ": ", message.into()])
}

pub(crate) fn check(
    knowledge: &Knowledge,
    candidates: &Candidates,
    settings: &DesignSettings,
) -> Result<()> {
    check_settings(settings)?;
    for t in &settings.targets {
        t.check(&knowledge.law)?;
    }
    if knowledge.data.target.is_empty() && settings.rounds > 1 {
        return Err(refuse(
            Setting::Sequential,
            format!("{} rounds before any run: a campaign refits on each round's simulated outcomes, and a refit does not carry the prior the design rests on; design the first round, fit its real outcomes, then design the next from them", settings.rounds),
        ));
    }
    if candidates.points.is_empty() || candidates.points.len() > MAX_CANDIDATES {
        return Err(refuse(
            Setting::Candidates,
            format!(
                "{} candidate runs; give 1 to {MAX_CANDIDATES}",
                candidates.points.len()
            ),
        ));
    }
    check_work(knowledge, candidates, settings)
}

/// The rules of the settings alone, checked before any data are read: the level, a goal at
/// least, and the runs, spend, draws, simulations and rounds in range.
pub fn check_settings(settings: &DesignSettings) -> Result<()> {
    crate::uncertainty::check_level(settings.level)?;
    let bad = |key: Setting, message: String| Err(refuse(key, message));
    if settings.targets.is_empty() {
        return bad(
            Setting::Goal,
            "no target; name what the batch should narrow".into(),
        );
    }
    if !(1..=MAX_RUNS).contains(&settings.runs) {
        return bad(
            Setting::Runs,
            format!("{} runs; a batch has 1 to {MAX_RUNS}", settings.runs),
        );
    }
    if settings.spend.is_some_and(|s| !(s.is_finite() && s > 0.0)) {
        return bad(
            Setting::Spend,
            "the spend must be positive and finite".into(),
        );
    }
    if !(1..=MAX_DRAWS).contains(&settings.draws) {
        return bad(
            Setting::Draws,
            format!("{} draws; give 1 to {MAX_DRAWS}", settings.draws),
        );
    }
    if settings.simulations > MAX_SIMULATIONS {
        return bad(
            Setting::Simulations,
            format!(
                "{} simulations; give at most {MAX_SIMULATIONS}",
                settings.simulations
            ),
        );
    }
    if !(1..=MAX_ROUNDS).contains(&settings.rounds) {
        return bad(
            Setting::Sequential,
            format!("{} rounds; give 1 to {MAX_ROUNDS}", settings.rounds),
        );
    }
    Ok(())
}

/// The candidates, the work and memory they imply, their costs and the noise.
fn check_work(
    knowledge: &Knowledge,
    candidates: &Candidates,
    settings: &DesignSettings,
) -> Result<()> {
    let bad = |key: Setting, message: String| Err(refuse(key, message));
    let pairs = candidates.points.len().saturating_mul(settings.draws);
    if pairs > MAX_CANDIDATE_DRAWS {
        return bad(Setting::Draws, format!(
            "{} candidates × {} draws is {pairs}, more than {MAX_CANDIDATE_DRAWS} (each pair keeps a row in memory); use fewer draws or candidates",
            candidates.points.len(), settings.draws
        ));
    }
    if pairs.saturating_mul(settings.runs) > MAX_SEARCH_WORK {
        return bad(Setting::Runs, format!(
            "{} runs × {} candidates × {} draws is more than {MAX_SEARCH_WORK} scorings per pass; use fewer runs, draws or candidates",
            settings.runs, candidates.points.len(), settings.draws
        ));
    }
    if let Some(i) = candidates
        .cost
        .iter()
        .position(|c| !(c.is_finite() && *c > 0.0))
    {
        return bad(
            Setting::Cost,
            format!(
                "candidate {} costs {}; every cost must be positive and finite",
                i + 1,
                candidates.cost[i]
            ),
        );
    }
    if !(knowledge.noise.is_finite() && knowledge.noise > 0.0) {
        return bad(
            Setting::Noise,
            format!("the noise {} must be positive and finite", knowledge.noise),
        );
    }
    Ok(())
}
