//! Which runs to launch next, as a workflow: the law fitted to the runs so far (or, before any
//! run, a prior on its parameters), the candidate runs laid out (`space.rs`: a log grid over
//! ranges of the law's variables, or the runs listed), and the batch chosen that most narrows
//! the goals (`goal.rs`) within a spend (`crate::analysis::design`). The request's defaults and
//! every rule between its settings are here, once: the command line's `design` and Python's
//! `design` only build the spec. What is known before any run is `prior.rs`.

mod goal;
mod prior;
mod space;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use goal::parse_goal;
pub use prior::{parse_prior, PriorEntry, PriorSpec, PRIOR_SD};
pub use space::{
    parse_ranges, AnyRatio, Axis, CandidateSpace, TokensPerParam, MAX_PER_DECADE, PER_DECADE,
    TOKENS_PER_PARAM,
};

use super::compare::DEFAULT_FLOPS;
use super::{Ctx, Workflow};
use crate::analysis::allocation::Flops;
use crate::analysis::design::{
    check_settings, design, refuse, Candidates, DesignResult, DesignSettings, Knowledge, Quantity,
    Target,
};
use crate::data::recipe::{Recipe, Table};
use crate::document::Document;
use crate::error::{short_number, Error, Result, Setting};
use crate::fit::{FitData, Space};
use crate::job::fit::{
    default_level, one_or_many, ColumnsRequest, FitJob, LawChoice, LawRequest, OneOrMany,
    SettingsJob, TableRequest, UncertaintySettings, WeightsSweepRequest,
};
use crate::law::Law;
use crate::text;
use crate::uncertainty::FitRecord;
use crate::work::Estimate;

/// The workflow.
pub struct DesignWorkflow;

/// A design as a face sends it: the runs so far (their recipe; none before any run, which takes
/// a `prior` instead), the law and how it is fitted, the goals, the candidate runs and the
/// limits of the batch.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct DesignRequest {
    /// The column the law predicts in the runs so far (None: a design before any run, from
    /// `prior`).
    #[serde(default)]
    pub target: Option<String>,
    /// `map`, `derive` and `where` of the runs so far.
    #[serde(flatten)]
    pub columns: ColumnsRequest,
    /// `weights` and `sweep`.
    #[serde(flatten)]
    pub weighing: WeightsSweepRequest,
    /// The law and how the runs so far are fitted.
    #[serde(flatten)]
    pub law: LawRequest,
    /// What the batch should narrow, one or several: `optimal_loss@C`, `tokens_per_param@C`,
    /// `optimal_N@C` or `optimal_D@C` at a budget of C FLOPs (then `,VAR=VALUE` for the law's
    /// other variables); the compute multiplier of one track over another, tracks coded as
    /// values of a variable, `multiplier@1e23,track=0:1`; the loss at a point,
    /// `loss@N=7e10,D=1.4e12`; or the value of a variable that minimises the loss at a point,
    /// `argmin_lr@N=7e10,D=1.4e12`.
    #[serde(deserialize_with = "one_or_many")]
    #[schemars(with = "OneOrMany")]
    pub goal: Vec<String>,
    /// The candidate runs: a grid of ranges of the law's variables (`N=1e8..1e11,D=1e9..1e13`;
    /// `VAR=VALUE` holds one, `VAR=V1|V2` lists its values), or the runs themselves, each a
    /// value per law variable.
    pub candidates: CandidateRuns,
    /// Points per decade of a grid of candidates (None: 8).
    #[serde(default)]
    pub per_decade: Option<usize>,
    /// Keep a grid's runs whose tokens per parameter D/N lie in [low, high], or `any` (None:
    /// 2 to 500).
    #[serde(default)]
    pub tokens_per_param: Option<TokensPerParam>,
    /// Keep a grid's runs that cost at most this many FLOPs each.
    #[serde(default)]
    pub max_cost: Option<f64>,
    /// A run's cost (and how a goal's budget is counted), a formula of N and D.
    #[serde(default = "default_cost")]
    pub cost: String,
    /// Most total cost of the batch, in the units of `cost` (None: no limit).
    #[serde(default)]
    pub spend: Option<f64>,
    /// Most runs in the batch.
    #[serde(default = "default_runs")]
    pub runs: usize,
    /// Parameter draws the choice averages over (1: the current estimate only).
    #[serde(default = "default_draws")]
    pub draws: usize,
    /// Simulated outcomes and refits that check the expected widths (0: no check; None: 200,
    /// and none before any run, whose widths a refit cannot check).
    #[serde(default)]
    pub simulations: Option<usize>,
    /// Plan a campaign of this many rounds (each a batch, its simulated outcomes and a refit).
    #[serde(default = "one_round")]
    pub sequential: usize,
    /// The noise of a run's outcome in the fitted space (None: the fit's residual scale;
    /// needed before any run).
    #[serde(default)]
    pub noise: Option<f64>,
    /// Level of the widths (each is the width of an interval at this level).
    #[serde(default = "default_level")]
    pub level: f64,
    /// A design before any run: what is known of each parameter of the law, a value or a range
    /// `[low, high]` (read as the centre ± 2 sd; `fix` holds a parameter instead). Needs
    /// `noise`.
    #[serde(default)]
    pub prior: Option<BTreeMap<String, PriorEntry>>,
    /// The prior sd of a parameter `prior` gives one value: in log θ for a parameter bounded
    /// below by 0 (0.5: a factor 1.65 at one sd), in θ otherwise (None: 0.5).
    #[serde(default)]
    pub prior_sd: Option<f64>,
}

/// The candidate runs of a request.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum CandidateRuns {
    /// A grid: ranges of the law's variables.
    Ranges(String),
    /// The runs, each a value per law variable (in Python, a DataFrame's numeric columns too).
    #[schemars(extend("x-python" = "rows"))]
    Runs(Vec<BTreeMap<String, f64>>),
}

fn default_cost() -> String {
    DEFAULT_FLOPS.to_string()
}

fn default_runs() -> usize {
    8
}

fn default_draws() -> usize {
    32
}

fn one_round() -> usize {
    1
}

/// A design to run: the fit of the runs so far, the candidates, the cost formula and the
/// design's settings. `noise` replaces the fit's residual scale when given.
#[derive(Debug, Clone)]
pub struct DesignJob {
    /// How the runs so far are fitted (with no runs: the law and its settings only; the
    /// recipe's target is then empty).
    pub fit: FitJob,
    /// What is known with no runs so far (None: the runs' fit is the knowledge).
    pub prior: Option<PriorSpec>,
    pub candidates: CandidateSpace,
    pub cost: Flops,
    pub noise: Option<f64>,
    pub settings: DesignSettings,
}

impl TryFrom<DesignRequest> for DesignJob {
    type Error = Error;

    fn try_from(request: DesignRequest) -> Result<DesignJob> {
        let grid_options = [
            (request.per_decade.is_some(), Setting::PerDecade),
            (request.tokens_per_param.is_some(), Setting::TokensPerParam),
            (request.max_cost.is_some(), Setting::MaxCost),
        ];
        let candidates = match request.candidates {
            CandidateRuns::Ranges(text) => CandidateSpace::grid(
                parse_ranges(&text)?,
                request.per_decade,
                request.tokens_per_param,
                request.max_cost,
            ),
            CandidateRuns::Runs(runs) => {
                refuse_grid_options(&grid_options)?;
                CandidateSpace::List(runs)
            }
        };
        if request.prior.is_none() && request.prior_sd.is_some() {
            return Err(Error::setting(
                Setting::PriorSd,
                text![
                    Setting::PriorSd,
                    " is the sd of a parameter ",
                    Setting::Prior,
                    " gives one value; give ",
                    Setting::Prior,
                    " too (a design before any run), or drop ",
                    Setting::PriorSd
                ],
            ));
        }
        let prior = request
            .prior
            .map(|entries| PriorSpec::new(entries, request.prior_sd));
        let recipe = request.weighing.recipe(TableRequest {
            target: request.target.unwrap_or_default(),
            columns: request.columns,
        });
        let seed = request.law.seed;
        let (law, settings) = request.law.model()?;
        let cost = Flops::parse(&request.cost).map_err(|e| e.within(Setting::Cost.subject()))?;
        let targets: Result<Vec<Target>> = request.goal.iter().map(|g| parse_goal(g)).collect();
        Ok(DesignJob {
            settings: DesignSettings {
                targets: targets?,
                runs: request.runs,
                spend: request.spend,
                flops: cost.clone(),
                draws: request.draws,
                simulations: simulations(request.simulations, prior.is_some())?,
                rounds: request.sequential,
                level: request.level,
                seed,
            },
            fit: fit_job(
                Recipe::try_from(recipe)?,
                law,
                settings,
                request.level,
                seed,
            ),
            prior,
            candidates,
            cost,
            noise: request.noise,
        })
    }
}

/// How a design fits the runs so far: under the loss only (no family), with no bootstrap and
/// a fit's default quality control, its intervals at the design's `level` (the run
/// calibrates it beyond the data itself).
pub fn fit_job(
    recipe: Recipe,
    law: LawChoice,
    settings: SettingsJob,
    level: f64,
    seed: u64,
) -> FitJob {
    FitJob {
        recipe,
        law,
        settings,
        uncertainty: UncertaintySettings {
            bootstrap: None,
            level,
            seed,
            ..UncertaintySettings::default()
        },
        qc: Default::default(),
    }
}

/// Refuses the settings that shape a grid of candidates when the runs are listed.
fn refuse_grid_options(given: &[(bool, Setting)]) -> Result<()> {
    let named: Vec<Setting> = given.iter().filter(|(g, _)| *g).map(|(_, s)| *s).collect();
    let Some(first) = named.first() else {
        return Ok(());
    };
    let mut parts = Vec::new();
    for (i, setting) in named.iter().enumerate() {
        parts.push(text![if i > 0 { ", " } else { "" }, *setting]);
    }
    parts.push(text![
        " shape a grid of candidates, and ",
        Setting::Candidates,
        " lists the runs: drop them, or give the candidates as ranges"
    ]);
    Err(Error::setting(*first, crate::error::Text::concat(parts)))
}

impl DesignJob {
    /// The rules that need no data: the settings of the batch (`check_settings`), the
    /// candidates, the noise positive; a catalog law's variables against the candidates and
    /// the goals (a formula's are known only once the columns are); before any run a prior,
    /// a noise, and nothing that reads or fits runs; else the target of the runs so far.
    pub fn check(&self) -> Result<()> {
        check_settings(&self.settings)?;
        self.candidates.check()?;
        if let LawChoice::Catalog(name) = &self.fit.law {
            let law =
                crate::law::catalog::lookup(name).map_err(|e| e.within(Setting::Law.subject()))?;
            self.candidates
                .points(&law, &self.cost, self.settings.spend)?;
            for target in &self.settings.targets {
                target.check(&law)?;
            }
        }
        if let Some(noise) = self.noise.filter(|n| !(n.is_finite() && *n > 0.0)) {
            return Err(refuse(
                Setting::Noise,
                format!("{}: give a positive sd, e.g. 0.01", short_number(noise)),
            ));
        }
        match &self.prior {
            Some(prior) => {
                prior.check()?;
                self.refuse_what_a_prior_does_not_use()?;
                self.noise.map(|_| ()).ok_or_else(no_noise)
            }
            None if self.fit.recipe.target.is_empty() => Err(no_runs()),
            None => Ok(()),
        }
    }

    /// Before any run nothing is read or fitted: refuses the recipe's settings and the fit's
    /// search settings (bounds, grid), naming those given.
    fn refuse_what_a_prior_does_not_use(&self) -> Result<()> {
        let recipe = &self.fit.recipe;
        let search = &self.fit.settings.settings;
        let given = [
            (!recipe.target.is_empty(), Setting::Target),
            (!recipe.maps.is_empty(), Setting::Map),
            (!recipe.derives.is_empty(), Setting::Derive),
            (!recipe.filters.is_empty(), Setting::Where),
            (recipe.weights.is_some(), Setting::Weights),
            (!recipe.sweep.is_empty(), Setting::Sweep),
            (!search.bounds.is_empty(), Setting::Bounds),
            (!search.grids.is_empty(), Setting::Grid),
        ];
        let named: Vec<Setting> = given.iter().filter(|(g, _)| *g).map(|(_, s)| *s).collect();
        if named.is_empty() {
            return Ok(());
        }
        let mut parts = vec![text![
            Setting::Prior,
            " designs before any run, which reads and fits no runs: drop "
        ]];
        for (i, setting) in named.iter().enumerate() {
            parts.push(text![if i > 0 { ", " } else { "" }, *setting]);
        }
        parts.push(text![
            " (the prior's ranges say where the parameters lie), or drop ",
            Setting::Prior,
            " to design from the fit of the runs"
        ]);
        Err(Error::setting(
            Setting::Prior,
            crate::error::Text::concat(parts),
        ))
    }

    /// The design from the runs so far in `table`.
    pub fn run(&self, table: &Table) -> Result<DesignDocument> {
        if self.prior.is_some() {
            return Err(unread_runs());
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
        let candidates = self
            .candidates
            .points(&law, &self.cost, self.settings.spend)?;
        let mut result = self.choose(&knowledge, &candidates, Some(&outcome.result.fit))?;
        let form_notes = form_error_notes(&law, &outcome.result, &self.settings, &result);
        result.notes.extend(form_notes);
        Ok(DesignDocument {
            data: Some(table.dataset.source().to_string()),
            fitted_runs: Some(outcome.result.n_obs),
            law: outcome.result.law.clone(),
            variables: law.variables.clone(),
            space: outcome.result.settings.space,
            cost_formula: self.cost.text.clone(),
            result,
            points: DesignPoints {
                candidates: candidates.points,
                existing: outcome.data.points(),
            },
        })
    }

    /// The design before any run: the prior's centre is the estimate, its sds the knowledge,
    /// and the noise is given.
    pub fn run_prior(&self) -> Result<DesignDocument> {
        let prior = self.prior.as_ref().ok_or_else(no_runs)?;
        let law = self.prior_law()?;
        let settings = self.fit.settings.for_law(&self.fit.law);
        let (centre, prior_sd) = prior.resolve(&law, &settings.fixed)?;
        let noise = self.noise.ok_or_else(no_noise)?;
        let knowledge = Knowledge {
            data: FitData::empty(law.variables.len()),
            law: law.clone(),
            settings: settings.clone(),
            centre,
            noise,
            prior_sd,
        };
        let candidates = self
            .candidates
            .points(&law, &self.cost, self.settings.spend)?;
        let mut result = self.choose(&knowledge, &candidates, None)?;
        result.notes.insert(
            0,
            format!(
                "designed before any run, from the prior {}",
                prior.describe()
            ),
        );
        Ok(DesignDocument {
            data: None,
            fitted_runs: None,
            law: law.label().to_string(),
            variables: law.variables.clone(),
            space: settings.space,
            cost_formula: self.cost.text.clone(),
            result,
            points: DesignPoints {
                candidates: candidates.points,
                existing: Vec::new(),
            },
        })
    }

    /// The batch among `candidates` for `knowledge`, once its rules and its work are checked.
    fn choose(
        &self,
        knowledge: &Knowledge,
        candidates: &Candidates,
        fit: Option<&crate::fit::FitResult>,
    ) -> Result<DesignResult> {
        crate::analysis::design::check(knowledge, candidates, &self.settings)?;
        self.estimate(knowledge, candidates)
            .check(knowledge.settings.max_work)?;
        crate::fit::with_threads(self.fit.settings.settings.threads, || {
            design(knowledge, candidates, &self.settings, fit)
        })?
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
        let names = self.candidates.names();
        match &self.fit.law {
            LawChoice::Catalog(name) => crate::law::catalog::lookup(name),
            LawChoice::Formula(text) => {
                let is_variable = |name: &str| names.iter().any(|n| n == name);
                Law::from_formula(text, &is_variable).map_err(|e| e.within(Setting::Formula))
            }
        }
    }
}

/// A design before any run without the noise of a run's outcome.
fn no_noise() -> Error {
    refuse(Setting::Noise, "with no runs so far the noise of a run's outcome is unknown; give it (its sd in the fitted space, e.g. 0.01 in log space: 1 % of the loss)")
}

/// Neither runs so far nor a prior.
fn no_runs() -> Error {
    Error::setting(
        Setting::Target,
        text![
            "give the runs so far (their data and ",
            Setting::Target,
            "), or ",
            Setting::Prior,
            " and ",
            Setting::Noise,
            " for a design before any run"
        ],
    )
}

/// Runs given to a design from a prior, which reads none: the refusal every face's loader
/// gives when runs come with a spec that reads none.
pub fn unread_runs() -> Error {
    Error::setting(
        Setting::Prior,
        text![
            Setting::Prior,
            " is for a design before any run, and runs so far were given: drop the data to design from the prior, or drop ",
            Setting::Prior,
            " to design from the fit of the runs"
        ],
    )
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
/// What `design` gives: the design, with what it was designed from (the runs so far and their
/// fit, or a prior), the law's variables in its order and the cost formula.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "DesignAnalysis")]
pub struct DesignDocument {
    /// Where the runs so far were read from (None: designed before any run, from a prior).
    #[serde(default)]
    pub data: Option<String>,
    /// The runs the fit of the runs so far used (None before any run).
    #[serde(default)]
    pub fitted_runs: Option<usize>,
    /// The law, as its fit names it.
    pub law: String,
    /// The law's variables in its order (the columns of the runs to launch).
    pub variables: Vec<String>,
    /// The space of the fits, where the noise is counted.
    pub space: Space,
    /// A run's cost (and how a goal's budget is counted), as given: `6*N*D`.
    pub cost_formula: String,
    #[serde(flatten)]
    pub result: DesignResult,
    /// The candidates and the runs so far as points of the law's variables, for a figure
    /// drawn beside the run (not part of the document).
    #[serde(skip)]
    #[schemars(skip)]
    pub points: DesignPoints,
}

/// The candidates and the runs so far, each a point of the law's variables in its order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DesignPoints {
    pub candidates: Vec<Vec<f64>>,
    pub existing: Vec<Vec<f64>>,
}

impl Document for DesignDocument {
    const KIND: &'static str = "design";
}

impl Workflow for DesignWorkflow {
    const NAME: &'static str = "design";
    const SUMMARY: &'static str =
        "Which runs to launch next: the batch of candidate runs that most narrows the goals within a spend, designed from the fit of the runs so far or, before any run, from a prior";
    type Request = DesignRequest;
    type Spec = DesignJob;
    type Output = DesignDocument;
    type Input = Option<Table>;

    fn spec(request: DesignRequest) -> Result<DesignJob> {
        DesignJob::try_from(request)
    }

    fn check(spec: &DesignJob) -> Result<()> {
        spec.check()
    }

    /// The runs so far are read with the fit's recipe; a design from a prior reads none.
    fn recipe(spec: &DesignJob) -> Option<&Recipe> {
        spec.prior.is_none().then_some(&spec.fit.recipe)
    }

    fn run(spec: &DesignJob, runs: &Option<Table>, ctx: &Ctx) -> Result<DesignDocument> {
        spec.check()?;
        let mut job = spec.clone();
        ctx.apply(&mut job.fit.settings.settings);
        match runs {
            Some(table) => job.run(table),
            None => job.run_prior(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(json: &str) -> Result<DesignJob> {
        DesignJob::try_from(serde_json::from_str::<DesignRequest>(json).unwrap())
    }

    const PRIOR: &str =
        r#""prior": {"E": 1.8, "A": 482, "alpha": [0.2, 0.5], "B": 2085, "beta": 0.37}"#;

    #[test]
    fn a_request_deserialises_into_a_job_with_the_one_defaults() {
        let job = job(
            r#"{"target": "loss", "law": "chinchilla", "goal": "optimal_loss@1e23",
                "candidates": "N=1e8..1e11,D=1e9..1e13", "map": {"N": "params"}}"#,
        )
        .unwrap();
        job.check().unwrap();
        let CandidateSpace::Grid {
            per_decade,
            tokens_per_param,
            max_cost,
            ..
        } = &job.candidates
        else {
            panic!("a grid")
        };
        assert_eq!((*per_decade, *tokens_per_param), (8, Some([2.0, 500.0])));
        assert!(max_cost.is_none() && job.prior.is_none() && job.noise.is_none());
        let s = &job.settings;
        assert_eq!((s.runs, s.draws, s.simulations, s.rounds), (8, 32, 200, 1));
        assert_eq!(job.cost.text, DEFAULT_FLOPS);
        assert_eq!(
            job.fit.recipe.maps,
            [("N".to_string(), "params".to_string())]
        );
        assert!(job.fit.uncertainty.bootstrap.is_none());
        let any = r#"{"law": "chinchilla", "goal": "optimal_loss@1e23",
            "candidates": "N=1e8..1e11,D=1e9..1e13", "tokens_per_param": "any", "noise": 0.01, "#;
        let before = self::job(&format!("{any}{PRIOR}}}")).unwrap();
        before.check().unwrap();
        assert_eq!(before.settings.simulations, 0);
        assert!(matches!(
            before.candidates,
            CandidateSpace::Grid {
                tokens_per_param: None,
                ..
            }
        ));
    }

    #[test]
    fn the_rules_without_data_are_checked_before_any_read() {
        let base = r#""law": "chinchilla", "goal": "optimal_loss@1e23", "candidates": "N=1e8..1e11,D=1e9..1e13""#;
        let key = |json: String| -> Option<Setting> {
            match job(&json) {
                Ok(job) => job.check().err().and_then(|e| e.key()),
                Err(e) => e.key(),
            }
        };
        let with = |extra: &str| format!("{{{base}, {extra}}}");
        assert_eq!(key(format!("{{{base}}}")), Some(Setting::Target));
        assert_eq!(
            key(with(r#""target": "loss", "runs": 0"#)),
            Some(Setting::Runs)
        );
        assert_eq!(
            key(with(r#""target": "loss", "draws": 0"#)),
            Some(Setting::Draws)
        );
        assert_eq!(
            key(with(r#""target": "loss", "noise": -1"#)),
            Some(Setting::Noise)
        );
        assert_eq!(
            key(with(r#""target": "loss", "per_decade": 0"#)),
            Some(Setting::PerDecade)
        );
        assert_eq!(
            key(with(r#""target": "loss", "tokens_per_param": [5, 1]"#)),
            Some(Setting::TokensPerParam)
        );
        assert_eq!(
            key(with(r#""target": "loss", "max_cost": 0"#)),
            Some(Setting::MaxCost)
        );
        assert_eq!(
            key(with(r#""target": "loss", "prior_sd": 1"#)),
            Some(Setting::PriorSd)
        );
        assert_eq!(
            key(with(&format!(
                r#""noise": 0.01, "target": "loss", {PRIOR}"#
            ))),
            Some(Setting::Prior)
        );
        assert_eq!(
            key(with(&format!(
                r#""noise": 0.01, "bounds": {{"E": [0, 3]}}, {PRIOR}"#
            ))),
            Some(Setting::Prior)
        );
        assert_eq!(key(with(PRIOR)), Some(Setting::Noise));
        assert_eq!(
            key(with(&format!(
                r#""noise": 0.01, "simulations": 5, {PRIOR}"#
            ))),
            Some(Setting::Simulations)
        );
        let listed = r#""law": "chinchilla", "goal": "optimal_loss@1e23", "target": "loss""#;
        let list = |runs: &str, extra: &str| format!("{{{listed}, \"candidates\": {runs}{extra}}}");
        assert_eq!(
            key(list(r#"[{"N": 1e9, "D": 2e10}]"#, r#", "per_decade": 4"#)),
            Some(Setting::PerDecade)
        );
        assert_eq!(key(list("[]", "")), Some(Setting::Candidates));
        let error = job(&list(
            r#"[{"N": 1e9, "D": 2e10}, {"N": -1, "D": 2e10}]"#,
            "",
        ))
        .unwrap()
        .check()
        .unwrap_err();
        assert!(
            error.to_string().contains("run 2 (counting from 1), 'N'"),
            "{error}"
        );
    }
}
