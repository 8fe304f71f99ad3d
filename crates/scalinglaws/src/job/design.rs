//! The design job: fit the law to the runs so far (the fit job's recipe, law and settings),
//! lay out the candidate runs (a log grid over ranges of the law's variables, or a list),
//! and choose the batch ([`crate::analysis::design`]). The texts both front ends take are
//! parsed here once: goals (`optimal_loss@1e23`, `tokens_per_param@1e23`, `optimal_N@1e23`,
//! `optimal_D@1e23`, each with `,VAR=VALUE` for the law's other variables; `loss@N=7e10,D=1.4e12`;
//! `argmin_lr@N=1e9,D=2e10`, the optimal value of a variable; `multiplier@1e23,track=0:1`, the
//! compute multiplier of track 1 over track 0),
//! ranges (`N=1e7..1e11,D=1e8..1e13`, a single value holding a variable: `U=2e10`), and
//! priors (`E=1.82,A=200..800`: a value or a range per parameter) for a design before any run.

use std::collections::BTreeMap;

use crate::analysis::allocation::Flops;
use crate::analysis::design::refuse;
use crate::analysis::design::Coordinates;
use crate::analysis::design::{
    design, Candidates, DesignResult, DesignSettings, Knowledge, Quantity, Target,
};
use crate::data::recipe::Table;
use crate::error::{short_number, Result, Setting};
use crate::fit::FitData;
use crate::law::Law;
use crate::uncertainty::FitRecord;
use crate::work::Estimate;

use super::fit::FitJob;

/// How the candidate runs are laid out.
#[derive(Debug, Clone, PartialEq)]
pub enum CandidateSpace {
    /// Every combination of `per_decade` log-spaced values of each range (a variable given
    /// one value is held there), keeping the runs whose tokens per parameter D/N lie in
    /// `tokens_per_param` and whose cost is at most `max_cost`.
    Grid {
        ranges: Vec<(String, Axis)>,
        per_decade: usize,
        tokens_per_param: Option<[f64; 2]>,
        max_cost: Option<f64>,
    },
    /// The runs given, each with every variable of the law.
    List(Vec<BTreeMap<String, f64>>),
}

/// What the widths leave out beyond the data: a new run's loss at a target beyond the fitted
/// runs also carries the law's form error, which the cross-study prior updated by the fit's
/// own backtests measures (`uncertainty::prior`). One note per loss target beyond the data,
/// with that error now and once the batch's largest run is in (the batch narrows it only by
/// coming closer). Quantities other than a loss, and budgets counted by another FLOPs formula
/// than the law's scale, get none: the corpus measured errors of losses.
fn form_error_notes(
    law: &Law,
    fit: &FitRecord,
    settings: &DesignSettings,
    result: &DesignResult,
) -> Vec<String> {
    use crate::uncertainty::prior::Point;
    let Some(calibration) = fit.calibration.as_ref() else {
        return Vec::new();
    };
    let (Some(update), Some(rule)) = (&calibration.prior, &calibration.rule) else {
        return Vec::new();
    };
    let point_of = |values: &BTreeMap<String, f64>| -> Vec<f64> {
        law.variables
            .iter()
            .map(|v| values.get(v).copied().unwrap_or(f64::NAN))
            .collect()
    };
    let batch_largest = result
        .runs
        .iter()
        .filter_map(|run| rule.at(law, &point_of(&run.point)))
        .fold(calibration.largest_scale, f64::max);
    let half_width = |distance: f64| {
        let point = Point {
            sd: 0.0,
            distance,
            at_bound: fit.has_param_at_bound(),
            span: update.span,
        };
        let [lo, hi] = update.error_interval(&point, settings.level);
        (hi - lo) / 2.0
    };
    let mut notes = Vec::new();
    for target in &settings.targets {
        let scale = loss_target_scale(law, rule, &settings.flops, target, &point_of);
        let Some(scale) = scale.filter(|s| s.is_finite() && *s > 0.0) else {
            continue;
        };
        let now = calibration.distance(scale);
        if now <= 0.0 {
            continue;
        }
        let after = (scale / batch_largest).log10().max(0.0);
        let percent = |d: f64| 100.0 * half_width(d);
        notes.push(format!(
            "{} lies {now:.2} decades beyond the fitted runs: the widths above are of the law's parameters; a new run's loss there also carries the law's form error, which the cross-study prior updated by this fit's backtests puts at ±{:.2}% ({:.0}%), and at ±{:.2}% once the batch's largest run is in ({after:.2} decades beyond it)",
            target.label(),
            percent(now),
            100.0 * settings.level,
            percent(after),
        ));
    }
    notes
}

/// The law's scale (the calibration's `rule`) at a loss target: the point's for the loss at a
/// point, the budget's for the compute-optimal loss when the design's FLOPs are a multiple of
/// N·D as the scale is. None for other targets (the corpus measured errors of losses).
fn loss_target_scale(
    law: &Law,
    rule: &crate::fit::ScaleRule,
    flops: &Flops,
    target: &Target,
    point_of: &dyn Fn(&BTreeMap<String, f64>) -> Vec<f64>,
) -> Option<f64> {
    match target {
        Target::Loss { point } => rule.at(law, &point_of(point)),
        Target::AtBudget {
            quantity: Quantity::OptimalLoss,
            budget,
            ..
        } => match (rule, flops.linear_factor) {
            (crate::fit::ScaleRule::Product { factor, .. }, Some(k)) => Some(budget * factor / k),
            _ => None,
        },
        _ => None,
    }
}

/// One variable's candidate values: log-spaced over a range of positive values, or the
/// values listed (a variable held at one value, or tracks coded 0 and 1).
#[derive(Debug, Clone, PartialEq)]
pub enum Axis {
    Range(f64, f64),
    Values(Vec<f64>),
}

impl Axis {
    /// How many values [`Axis::values`] gives (a float: a range over hundreds of decades is
    /// counted before anything is allocated).
    fn count(&self, per_decade: usize) -> f64 {
        match self {
            Axis::Values(values) => values.len() as f64,
            Axis::Range(lo, hi) => Self::steps(*lo, *hi, per_decade) + 1.0,
        }
    }

    /// Intervals between a range's values: the decades it spans (as a difference of logs, so
    /// that 1e-200..1e200 does not overflow) times `per_decade`.
    fn steps(lo: f64, hi: f64, per_decade: usize) -> f64 {
        ((hi.log10() - lo.log10()) * per_decade as f64)
            .round()
            .max(0.0)
    }

    /// The axis's values, a range with `per_decade` points per decade (both ends included).
    /// Call after [`Axis::count`] has been checked.
    fn values(&self, per_decade: usize) -> Vec<f64> {
        match self {
            Axis::Values(values) => values.clone(),
            Axis::Range(lo, hi) => {
                let steps = Self::steps(*lo, *hi, per_decade) as usize;
                let (log_lo, log_hi) = (lo.log10(), hi.log10());
                (0..=steps)
                    .map(|i| {
                        if steps == 0 {
                            *lo
                        } else {
                            10f64.powf(log_lo + (log_hi - log_lo) * i as f64 / steps as f64)
                        }
                    })
                    .collect()
            }
        }
    }
}

/// Points per decade of a candidate grid by default, and at most.
pub const PER_DECADE: usize = 8;
pub const MAX_PER_DECADE: usize = 100;

/// Simulated refits of a design of the runs so far by default.
pub const SIMULATIONS: usize = 200;

/// The simulated refits of a design: those given, else [`SIMULATIONS`], and none before any
/// run (`prior`), where they are refused: the expected widths then rest on the prior, which a
/// refit of simulated outcomes does not carry. The one rule for every face.
pub fn simulations(given: Option<usize>, prior: bool) -> Result<usize> {
    match (given, prior) {
        (Some(k), true) if k > 0 => Err(crate::Error::setting(
            Setting::Simulations,
            crate::text![
                Setting::Simulations.number(k),
                " with ",
                Setting::Prior.named(),
                ": before any run the expected widths rest on the prior, which a refit of \
                 simulated outcomes does not carry, so simulated refits cannot check them; drop ",
                Setting::Simulations.named(),
                " (fit the batch's real outcomes, then design the next round from them)"
            ],
        )),
        (Some(k), _) => Ok(k),
        (None, true) => Ok(0),
        (None, false) => Ok(SIMULATIONS),
    }
}
/// Tokens per parameter of a grid's candidates by default: from undertrained to 25× past
/// Chinchilla's 20 (runs outside it are rarely launched, and the law is least tested there).
pub const TOKENS_PER_PARAM: [f64; 2] = [2.0, 500.0];

/// A design to run: the fit of the runs so far, the candidates, the cost formula and the
/// design's settings. `noise` replaces the fit's residual scale when given.
#[derive(Debug, Clone)]
pub struct DesignJob {
    /// How the runs so far are fitted (with no runs: the law and its settings only).
    pub fit: FitJob,
    /// What is known with no runs so far (None: the runs' fit is the knowledge).
    pub prior: Option<PriorSpec>,
    pub candidates: CandidateSpace,
    pub cost: Flops,
    pub noise: Option<f64>,
    pub settings: DesignSettings,
}

/// What [`DesignJob::run`] gives: the design, the fit it started from, and the candidates
/// and runs so far as points of the law's variables (for plots).
#[derive(Debug, Clone)]
pub struct DesignOutcome {
    pub result: DesignResult,
    /// The fit of the runs so far (None: designed from a prior, before any run).
    pub fit: Option<FitRecord>,
    /// The space of the fits (where the noise is counted).
    pub space: crate::fit::Space,
    pub law: Law,
    pub existing: Vec<Vec<f64>>,
    pub candidates: Candidates,
}

impl DesignJob {
    /// The design from the runs so far in `table`.
    pub fn run(&self, table: &Table) -> Result<DesignOutcome> {
        if self.prior.is_some() {
            return Err(refuse(Setting::Prior, "a prior is for a design before any run; with runs so far their fit is what is known, so drop the prior or the runs"));
        }
        // The fit is calibrated beyond the data whatever the face asked: the design's notes
        // give the law's form error at targets beyond the runs from its prior update.
        let mut fit = self.fit.clone();
        fit.uncertainty.calibrate = true;
        let outcome = fit.run(table, &|_| {})?;
        let law = outcome.law.clone();
        let settings = self.fit.settings.for_law(&self.fit.law);
        // A new run of a swept fit is a new cell's frontier: its noise adds the choice's sd.
        let swept_noise = outcome.result.sweep.as_ref().and_then(|s| {
            let sigma = outcome.result.stats.residual_scale?;
            Some(sigma.hypot(s.choice_sd.unwrap_or(0.0)))
        });
        let knowledge = Knowledge::from_fit(
            law.clone(),
            settings,
            outcome.data.clone(),
            &outcome.result.fit,
            self.noise.or(swept_noise),
        )?;
        let candidates = self.candidates(&law)?;
        crate::analysis::design::check(&knowledge, &candidates, &self.settings)?;
        self.estimate(&knowledge, &candidates)
            .check(knowledge.settings.max_work)?;
        let mut result = crate::fit::with_threads(self.fit.settings.settings.threads, || {
            design(
                &knowledge,
                &candidates,
                &self.settings,
                Some(&outcome.result.fit),
            )
        })??;
        let form_notes = form_error_notes(&law, &outcome.result, &self.settings, &result);
        result.notes.extend(form_notes);
        Ok(DesignOutcome {
            result,
            space: outcome.result.settings.space,
            fit: Some(outcome.result),
            existing: outcome.data.points(),
            law,
            candidates,
        })
    }

    /// The design before any run: the prior's centre is the estimate, its sds the knowledge,
    /// and the noise must be given.
    pub fn run_prior(&self) -> Result<DesignOutcome> {
        let prior = self.prior.as_ref().ok_or_else(|| {
            refuse(Setting::Prior, "there are no runs so far and no prior; give the runs, or a value or range for every parameter of the law")
        })?;
        let law = self.prior_law()?;
        let settings = self.fit.settings.for_law(&self.fit.law);
        let (centre, prior_sd) = prior.resolve(&law, &settings.fixed)?;
        let noise = self.noise.ok_or_else(|| {
            refuse(Setting::Noise, "with no runs so far the noise of a run's outcome is unknown; give it (its sd in the fitted space, e.g. 0.01 in log space: 1 % of the loss)")
        })?;
        let knowledge = Knowledge {
            data: FitData::empty(law.variables.len()),
            law: law.clone(),
            settings: settings.clone(),
            centre,
            noise,
            prior_sd,
        };
        let candidates = self.candidates(&law)?;
        crate::analysis::design::check(&knowledge, &candidates, &self.settings)?;
        self.estimate(&knowledge, &candidates)
            .check(knowledge.settings.max_work)?;
        let mut result = crate::fit::with_threads(self.fit.settings.settings.threads, || {
            design(&knowledge, &candidates, &self.settings, None)
        })??;
        result.notes.insert(
            0,
            format!(
                "designed before any run, from the prior {}",
                prior.describe()
            ),
        );
        Ok(DesignOutcome {
            result,
            fit: None,
            space: settings.space,
            law,
            existing: Vec::new(),
            candidates,
        })
    }

    /// The work of the design after the fit ([`crate::work`]): scoring every candidate under
    /// every draw once per run chosen, per cost exponent and round; a refit of the runs with
    /// the batch per simulation and per round; a row of numbers per candidate and draw.
    fn estimate(&self, knowledge: &Knowledge, candidates: &Candidates) -> Estimate {
        let s = &self.settings;
        let rows = knowledge.data.target.len() + s.runs * s.rounds;
        let shape = crate::fit::shape_of_rows(&knowledge.law, &knowledge.settings, rows);
        let (count, draws, p) = (
            candidates.points.len() as f64,
            s.draws as f64,
            shape.free as f64,
        );
        let exponents = crate::analysis::design::choose::COST_EXPONENTS.len() as f64;
        // Each goal adds its gradients to every candidate's draws: measured 3.98 CPU seconds
        // at 1 goal and 6.46 at 6 where the count without goals gave 2.88 (30 runs, 961
        // candidates, 200 draws), so 1.5 + 0.25 per goal, an upper fit.
        let goals = 1.5 + 0.25 * s.targets.len() as f64;
        let search = Estimate::of(
            crate::work::SECONDS_PER_OP * s.runs as f64 * count * draws * p * p * exponents * goals,
            8.0 * count * draws * (p + 1.0),
        )
        .described(s.runs as f64, "runs", Some(Setting::Runs))
        .described(count, "candidates", Some(Setting::Candidates))
        .described(draws, "draws", Some(Setting::Draws))
        .described(s.targets.len() as f64, "goals", Some(Setting::Goal))
        .repeated(s.rounds as f64, "rounds", Some(Setting::Sequential));
        let refits = (s.simulations + s.rounds.saturating_sub(1)) as f64;
        let simulations =
            shape
                .estimate()
                .repeated(refits, "simulated refits", Some(Setting::Simulations));
        search.plus(simulations)
    }

    /// The law of a design before any run: a catalog law, or a formula whose variables are
    /// the names the candidates give values to.
    fn prior_law(&self) -> Result<Law> {
        let names: Vec<String> = match &self.candidates {
            CandidateSpace::Grid { ranges, .. } => ranges.iter().map(|(n, _)| n.clone()).collect(),
            CandidateSpace::List(runs) => runs.iter().flat_map(|r| r.keys().cloned()).collect(),
        };
        match &self.fit.law {
            super::LawChoice::Catalog(name) => crate::law::catalog::lookup(name),
            super::LawChoice::Formula(text) => {
                let is_variable = |name: &str| names.iter().any(|n| n == name);
                Law::from_formula(text, &is_variable).map_err(|e| e.within(Setting::Formula))
            }
        }
    }

    /// The candidate runs as points of `law`'s variables, with their costs.
    pub fn candidates(&self, law: &Law) -> Result<Candidates> {
        if law.variable_index("N").is_none() || law.variable_index("D").is_none() {
            return Err(refuse(Setting::Cost, format!(
                "a run's cost is counted from N and D ({}), and the law's variables are {}; design needs a law of N and D",
                self.cost.text,
                law.variables.join(", ")
            )));
        }
        let points = match &self.candidates {
            CandidateSpace::Grid {
                ranges,
                per_decade,
                tokens_per_param,
                max_cost,
            } => grid(
                law,
                ranges,
                *per_decade,
                *tokens_per_param,
                *max_cost,
                &self.cost,
            )?,
            CandidateSpace::List(runs) => runs
                .iter()
                .map(|run| point_of(law, run))
                .collect::<Result<Vec<_>>>()?,
        };
        let cost: Vec<f64> = points.iter().map(|p| cost_at(law, &self.cost, p)).collect();
        // A run that costs more than the whole spend can never be chosen.
        let spend = self.settings.spend.unwrap_or(f64::INFINITY);
        let (points, cost): (Vec<Vec<f64>>, Vec<f64>) = points
            .into_iter()
            .zip(cost)
            .filter(|(_, c)| !(*c > spend))
            .unzip();
        if points.is_empty() {
            return Err(refuse(
                Setting::Spend,
                "every candidate run costs more than the spend; raise it or add cheaper candidates",
            ));
        }
        Ok(Candidates { points, cost })
    }
}

fn cost_at(law: &Law, flops: &Flops, point: &[f64]) -> f64 {
    let get = |name: &str| law.variable_index(name).map(|i| point[i]);
    match (get("N"), get("D")) {
        (Some(n), Some(d)) => flops.at(n, d),
        _ => f64::NAN,
    }
}

fn point_of(law: &Law, run: &BTreeMap<String, f64>) -> Result<Vec<f64>> {
    law.variables
        .iter()
        .map(|v| {
            run.get(v).copied().ok_or_else(|| {
                refuse(
                    Setting::Candidates,
                    format!(
                        "a candidate run needs every variable of the law ({}); '{v}' is missing",
                        law.variables.join(", ")
                    ),
                )
            })
        })
        .collect()
}

/// The log grid over `ranges` (every law variable named once).
fn grid(
    law: &Law,
    ranges: &[(String, Axis)],
    per_decade: usize,
    tokens_per_param: Option<[f64; 2]>,
    max_cost: Option<f64>,
    flops: &Flops,
) -> Result<Vec<Vec<f64>>> {
    if !(1..=MAX_PER_DECADE).contains(&per_decade) {
        return Err(refuse(
            Setting::PerDecade,
            format!("{per_decade} points per decade; give 1 to {MAX_PER_DECADE}"),
        ));
    }
    if let Some((name, _)) = ranges.iter().find(|(n, _)| law.variable_index(n).is_none()) {
        return Err(refuse(
            Setting::Candidates,
            format!(
                "'{name}' is not a variable of the law (its variables are {})",
                law.variables.join(", ")
            ),
        ));
    }
    let mut chosen: Vec<&Axis> = Vec::new();
    for v in &law.variables {
        let Some((_, axis)) = ranges.iter().find(|(name, _)| name == v) else {
            return Err(refuse(Setting::Candidates, format!(
                "the candidate ranges name no values of the law's variable '{v}'; give {v}=LOW..HIGH or {v}=VALUE"
            )));
        };
        chosen.push(axis);
    }
    let total: f64 = chosen.iter().map(|a| a.count(per_decade)).product();
    if !(total <= crate::analysis::design::MAX_CANDIDATES as f64) {
        return Err(refuse(Setting::Candidates, format!(
            "the grid has {} candidate runs, more than {}; narrow the ranges or use fewer points per decade",
            crate::error::short_number(total),
            crate::analysis::design::MAX_CANDIDATES
        )));
    }
    let mut axes: Vec<Vec<f64>> = Vec::new();
    for (v, axis) in law.variables.iter().zip(chosen) {
        let values = axis.values(per_decade);
        if (v == "N" || v == "D") && values.iter().any(|x| !(*x > 0.0)) {
            return Err(refuse(
                Setting::Candidates,
                format!("{v} must be positive (a run's size and tokens); list positive values"),
            ));
        }
        axes.push(values);
    }
    let mut points = vec![Vec::new()];
    for axis in &axes {
        points = points
            .into_iter()
            .flat_map(|p| {
                axis.iter().map(move |v| {
                    let mut q = p.clone();
                    q.push(*v);
                    q
                })
            })
            .collect();
    }
    let (n, d) = (law.variable_index("N"), law.variable_index("D"));
    points.retain(|p| {
        let ratio_ok = match (tokens_per_param, n, d) {
            (Some([lo, hi]), Some(n), Some(d)) => (lo..=hi).contains(&(p[d] / p[n])),
            _ => true,
        };
        ratio_ok && max_cost.is_none_or(|m| cost_at(law, flops, p) <= m)
    });
    if points.is_empty() {
        return Err(refuse(Setting::Candidates, "no candidate run is left once the tokens-per-parameter range and the cost cap are applied; widen them"));
    }
    Ok(points)
}

/// What is known of the parameters before any run: per parameter a value (the centre, with
/// the prior sd `sd`) or a range LOW..HIGH (read as the centre ± 2 sd). Both are in the
/// design's coordinates: log θ for a parameter bounded below by zero, θ otherwise.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PriorSpec {
    pub entries: BTreeMap<String, PriorEntry>,
    /// The prior sd of a parameter given one value.
    pub sd: f64,
}

/// One parameter's prior.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum PriorEntry {
    Value(f64),
    Range([f64; 2]),
}

/// The prior sd of a parameter given one value, by default: in log θ, a factor e^0.5 ≈ 1.65
/// either way at one sd (an exponent of 0.34 known to lie in 0.12..0.92 at 2 sd): the
/// knowledge of a published law carried to a new setting, not its fit's own precision.
pub const PRIOR_SD: f64 = 0.5;

impl PriorSpec {
    /// The prior's sd is positive and its names, and the held ones, are the law's parameters,
    /// none both held and given a prior.
    fn check_names(&self, law: &Law, fixed: &BTreeMap<String, f64>) -> Result<()> {
        if !(self.sd.is_finite() && self.sd > 0.0) {
            return Err(refuse(
                Setting::PriorSd,
                format!("{} must be positive and finite", short_number(self.sd)),
            ));
        }
        if let Some(name) = self.entries.keys().find(|n| law.param_index(n).is_none()) {
            return Err(refuse(
                Setting::Prior,
                format!(
                    "'{name}' is not a parameter of the law (its parameters are {})",
                    law.param_names().join(", ")
                ),
            ));
        }
        if let Some(name) = fixed.keys().find(|n| law.param_index(n).is_none()) {
            return Err(refuse(
                Setting::Fix,
                format!(
                    "'{name}' is not a parameter of the law (its parameters are {})",
                    law.param_names().join(", ")
                ),
            ));
        }
        if let Some(name) = self.entries.keys().find(|n| fixed.contains_key(*n)) {
            return Err(refuse(
                Setting::Prior,
                format!("'{name}' is also held at a value; give it a prior or hold it, not both"),
            ));
        }
        Ok(())
    }

    /// Each parameter's centre (fixed ones at their value) in the law's order, and each free
    /// parameter's prior sd in the design's coordinates.
    pub fn resolve(
        &self,
        law: &Law,
        fixed: &BTreeMap<String, f64>,
    ) -> Result<(Vec<f64>, Vec<f64>)> {
        self.check_names(law, fixed)?;
        let mut centre = Vec::with_capacity(law.params.len());
        for p in &law.params {
            let value = match (fixed.get(&p.name), self.entries.get(&p.name)) {
                (Some(v), _) => *v,
                (None, Some(entry)) => entry_centre(p, *entry)?,
                (None, None) => {
                    return Err(refuse(Setting::Prior, format!(
                        "'{}' has no prior; give every free parameter of the law ({}) a value or a range",
                        p.name,
                        law.param_names().join(", ")
                    )))
                }
            };
            if !(value >= p.lower && value <= p.upper) {
                return Err(refuse(
                    Setting::Prior,
                    format!(
                        "{}={} lies outside the parameter's bounds [{}, {}]",
                        p.name,
                        short_number(value),
                        short_number(p.lower),
                        short_number(p.upper)
                    ),
                ));
            }
            centre.push(value);
        }
        for p in &law.params {
            if let Some(PriorEntry::Range([lo, hi])) = self.entries.get(&p.name) {
                if *lo < p.lower || *hi > p.upper || (p.lower >= 0.0 && *lo <= 0.0) {
                    return Err(refuse(
                        Setting::Prior,
                        format!(
                            "{}={}..{} reaches outside the parameter's bounds [{}, {}]{}",
                            p.name,
                            short_number(*lo),
                            short_number(*hi),
                            short_number(p.lower),
                            short_number(p.upper),
                            if p.lower >= 0.0 {
                                "; a range of a positive parameter is read in log θ, so its low end must be above 0"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
            }
        }
        let coords = Coordinates::new(law, &|name| fixed.contains_key(name), &centre);
        let sd = coords
            .free
            .iter()
            .zip(&coords.log)
            .map(|(&i, &log)| match self.entries[&law.params[i].name] {
                PriorEntry::Value(_) => self.sd,
                PriorEntry::Range([lo, hi]) if log => (hi / lo).ln() / 4.0,
                PriorEntry::Range([lo, hi]) => (hi - lo) / 4.0,
            })
            .collect();
        Ok((centre, sd))
    }

    /// `E=1.82, alpha=0.2..0.5 (sd 0.5 of a value)`.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = self
            .entries
            .iter()
            .map(|(name, entry)| match entry {
                PriorEntry::Value(v) => format!("{name}={}", short_number(*v)),
                PriorEntry::Range([lo, hi]) => {
                    format!("{name}={}..{}", short_number(*lo), short_number(*hi))
                }
            })
            .collect();
        let values = self
            .entries
            .values()
            .any(|e| matches!(e, PriorEntry::Value(_)));
        let sd = if values {
            format!(" (a value with sd {})", short_number(self.sd))
        } else {
            String::new()
        };
        format!("{}{sd}", parts.join(", "))
    }
}

/// A parameter's prior centre: its value, or the middle of its range (geometric for a range
/// of positive values of a parameter bounded below by zero, which the design moves in log θ).
fn entry_centre(param: &crate::law::ParamSpec, entry: PriorEntry) -> Result<f64> {
    match entry {
        PriorEntry::Value(v) if v.is_finite() => Ok(v),
        PriorEntry::Range([lo, hi]) if lo.is_finite() && hi.is_finite() && lo < hi => {
            Ok(if param.lower >= 0.0 && lo > 0.0 {
                (lo * hi).sqrt()
            } else {
                (lo + hi) / 2.0
            })
        }
        _ => Err(refuse(
            Setting::Prior,
            format!(
                "'{}': give a finite value, or a range LOW..HIGH with LOW < HIGH",
                param.name
            ),
        )),
    }
}

/// `E=1.82,A=200..800,alpha=0.34`: a value or a range per parameter (a range's ends may be
/// negative for a parameter that can be).
pub fn parse_prior(text: &str) -> Result<BTreeMap<String, PriorEntry>> {
    let bad = |part: &str, why: &str| {
        refuse(Setting::Prior, format!(
            "'{part}': {why}; write NAME=VALUE or NAME=LOW..HIGH per parameter, e.g. E=1.82,A=200..800"
        ))
    };
    let mut out = BTreeMap::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = part.split_once('=').ok_or_else(|| bad(part, "no '='"))?;
        let name = name.trim();
        if name.is_empty() {
            return Err(bad(part, "the parameter's name is empty"));
        }
        let number = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite());
        let entry = match value.split_once("..") {
            Some((a, b)) => match (number(a), number(b)) {
                (Some(lo), Some(hi)) if lo < hi => PriorEntry::Range([lo, hi]),
                (Some(_), Some(_)) => {
                    return Err(bad(part, "the low end is not below the high end"))
                }
                _ => return Err(bad(part, "the ends must be numbers")),
            },
            None => PriorEntry::Value(number(value).ok_or_else(|| bad(part, "not a number"))?),
        };
        if out.insert(name.to_string(), entry).is_some() {
            return Err(bad(part, "the parameter is named twice"));
        }
    }
    if out.is_empty() {
        return Err(bad(text, "no parameter"));
    }
    Ok(out)
}

/// `N=1e7..1e11,D=1e8..1e13,U=2e10,track=0|1`: per variable a range (low..high, both
/// positive, log-spaced), one value, or values separated by `|`.
pub fn parse_ranges(text: &str) -> Result<Vec<(String, Axis)>> {
    let bad = |part: &str, why: &str| {
        refuse(
            Setting::Candidates,
            format!(
                "'{part}': {why}; write VAR=LOW..HIGH, VAR=VALUE or VAR=V1|V2, e.g. N=1e7..1e11,D=1e8..1e13"
            ),
        )
    };
    let mut out: Vec<(String, Axis)> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, values) = part.split_once('=').ok_or_else(|| bad(part, "no '='"))?;
        let name = name.trim();
        if out.iter().any(|(n, _)| n == name) {
            return Err(bad(part, "the variable is named twice"));
        }
        if name.is_empty() {
            return Err(bad(part, "the variable's name is empty"));
        }
        // `1e9...1e13` would read as 1e9 .. .1e13: a bound may not start with a dot.
        let number = |s: &str| {
            let s = s.trim();
            if s.starts_with('.') {
                return None;
            }
            s.parse::<f64>().ok().filter(|v| v.is_finite())
        };
        let axis = match values.split_once("..") {
            Some((a, b)) => match (number(a), number(b)) {
                (Some(lo), Some(hi)) if lo > 0.0 && lo <= hi => Axis::Range(lo, hi),
                (Some(lo), Some(hi)) if lo > 0.0 && hi > 0.0 => {
                    return Err(bad(part, "the low end is above the high end"))
                }
                _ => {
                    return Err(bad(
                        part,
                        "a range's ends must be positive numbers (list other values as V1|V2)",
                    ))
                }
            },
            None => {
                let listed: Option<Vec<f64>> = values.split('|').map(number).collect();
                let mut listed = listed.ok_or_else(|| bad(part, "the values must be numbers"))?;
                listed.sort_by(f64::total_cmp);
                listed.dedup();
                Axis::Values(listed)
            }
        };
        out.push((name.to_string(), axis));
    }
    if out.is_empty() {
        return Err(bad(text, "no range"));
    }
    Ok(out)
}

/// `0:1`: two numbers.
fn two_values(text: &str) -> Option<[f64; 2]> {
    let (a, b) = text.split_once(':')?;
    let number = |s: &str| s.trim().parse::<f64>().ok().filter(|v| v.is_finite());
    Some([number(a)?, number(b)?])
}

/// `optimal_loss@1e23`, `tokens_per_param@1e23,U=2e10`, `loss@N=7e10,D=1.4e12`,
/// `argmin_lr@N=1e9,D=2e10`, `multiplier@1e23,track=0:1`.
/// `multiplier@C,VAR=BASELINE:OTHER[,VAR=VALUE...]` after its budget: the tracks' variable with
/// its two values, and the values held.
fn multiplier_goal<'a>(
    parts: impl Iterator<Item = &'a str>,
    budget: f64,
    bad: &dyn Fn(&str) -> crate::Error,
    insert: &dyn Fn(&mut BTreeMap<String, f64>, &str) -> Result<()>,
) -> Result<Target> {
    let mut pairs = BTreeMap::new();
    let mut tracks = None;
    for p in parts.filter(|p| !p.is_empty()) {
        match p.split_once('=').filter(|(_, v)| v.contains(':')) {
            Some(_) if tracks.is_some() => {
                return Err(bad("two variables are given as BASELINE:OTHER; give one"))
            }
            Some((k, v)) => {
                tracks = Some((
                    k.trim().to_string(),
                    two_values(v)
                        .ok_or_else(|| bad(&format!("'{v}' is not BASELINE:OTHER, two numbers")))?,
                ))
            }
            None => insert(&mut pairs, p)?,
        }
    }
    let (variable, [baseline, other]) = tracks
        .ok_or_else(|| bad("a multiplier needs the tracks' variable as VAR=BASELINE:OTHER"))?;
    Ok(Target::Multiplier {
        budget,
        variable,
        baseline,
        other,
        held: pairs,
    })
}

pub fn parse_goal(text: &str) -> Result<Target> {
    let bad = |why: &str| {
        refuse(Setting::Goal, format!(
            "'{text}': {why}; write optimal_loss@C, tokens_per_param@C, optimal_N@C or optimal_D@C (C in FLOPs, then ,VAR=VALUE for the law's other variables), multiplier@C,VAR=BASELINE:OTHER, loss@N=..,D=.., or argmin_VAR@N=..,D=.."
        ))
    };
    let (kind, rest) = text.trim().split_once('@').ok_or_else(|| bad("no '@'"))?;
    let mut parts = rest.split(',').map(str::trim);
    let mut pairs = BTreeMap::new();
    let pair = |p: &str| -> Result<(String, f64)> {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| bad(&format!("'{p}' is not VAR=VALUE")))?;
        let v: f64 = v
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| bad(&format!("'{v}' is not a number")))?;
        Ok((k.trim().to_string(), v))
    };
    let insert = |pairs: &mut BTreeMap<String, f64>, p: &str| -> Result<()> {
        let (k, v) = pair(p)?;
        if pairs.insert(k.clone(), v).is_some() {
            return Err(bad(&format!("'{k}' is given twice")));
        }
        Ok(())
    };
    let kind = kind.trim();
    if kind == "loss" || kind.starts_with("argmin_") {
        for p in parts.filter(|p| !p.is_empty()) {
            insert(&mut pairs, p)?;
        }
        return Ok(match kind.strip_prefix("argmin_") {
            None => Target::Loss { point: pairs },
            Some("") => return Err(bad("argmin_ names no variable (argmin_lr@N=..,D=..)")),
            Some(variable) => Target::Argmin {
                variable: variable.to_string(),
                point: pairs,
            },
        });
    }
    let budget: f64 = parts
        .next()
        .and_then(|b| b.parse().ok())
        .ok_or_else(|| bad("the budget is not a number"))?;
    if kind == "multiplier" {
        return multiplier_goal(parts, budget, &bad, &insert);
    }
    let quantity = Quantity::ALL
        .into_iter()
        .find(|q| q.name().eq_ignore_ascii_case(kind))
        .ok_or_else(|| bad(&format!("unknown goal '{kind}'")))?;
    for p in parts.filter(|p| !p.is_empty()) {
        insert(&mut pairs, p)?;
    }
    Ok(Target::AtBudget {
        quantity,
        budget,
        held: pairs,
    })
}
