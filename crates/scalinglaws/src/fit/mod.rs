//! Fitting a law to data: settings in, a [`FitResult`] out. The objective is Σ wᵢ·cost(rᵢ)
//! (robust losses of [`loss`], residuals in log or linear [`Space`]); the global search of
//! [`search`] finds its optimum; [`diagnostics`] turns the optimum into standard errors,
//! correlations, statistics and warnings; [`likelihood`] reads the objective's loss as an error
//! density (for likelihood-ratio tests and information criteria); [`variance`] fits a residual
//! scale that varies with scale (the heteroscedastic option).

mod basins;
pub mod caveats;
pub mod diagnostics;
pub mod family;
mod file;
mod kernel;
pub mod likelihood;
pub mod loss;
pub mod lsq;
pub(crate) mod nuisance;
mod numerics;
pub mod problem;
pub mod result;
mod row_groups;
pub mod scale;
pub mod search;
pub mod smoothed;
pub mod solver;
mod space;
pub mod starts;
pub mod variance;
mod variance_model;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::{short_number, Error, Result, Setting, Text};
use crate::interrupt::Interrupt;
use crate::law::{Grid, Law};
use crate::text;
pub use basins::BasinMap;
pub use caveats::{BoundSide, FitCaveat};
pub use diagnostics::Covariance;
pub use family::{Family, FamilyKind};
pub(crate) use file::{check_in_bounds, edited, far_from_interval, far_warning};
pub use loss::{Loss, LossKind};
pub use problem::{Problem, Space, Transform};
pub use result::{FitResult, ParamResult};
pub use scale::ScaleRule;
use search::Start;
pub use variance::{Heteroscedastic, VarianceModel};

/// Lower and upper bound of a parameter; None is unbounded on that side.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bounds {
    pub lower: Option<f64>,
    pub upper: Option<f64>,
}

impl Bounds {
    /// [lower, upper], an infinite end meaning unbounded on that side.
    pub fn between(lower: f64, upper: f64) -> Bounds {
        Bounds {
            lower: lower.is_finite().then_some(lower),
            upper: upper.is_finite().then_some(upper),
        }
    }

    /// The lower end, −∞ when unbounded.
    pub fn low(&self) -> f64 {
        self.lower.unwrap_or(f64::NEG_INFINITY)
    }

    /// The upper end, +∞ when unbounded.
    pub fn high(&self) -> f64 {
        self.upper.unwrap_or(f64::INFINITY)
    }
}

/// The loss scale every fit uses unless told otherwise: Huber's delta of 1e-3 on log residuals,
/// the field's standard protocol (Hoffmann et al. 2022; Besiroglu et al. 2024). The one default;
/// each face's default reads it.
pub const DEFAULT_F_SCALE: f64 = 1e-3;

/// Everything about a fit except the law and the data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitSettings {
    pub loss: LossKind,
    /// The loss scale (Huber's delta), in the units of the residuals.
    pub f_scale: f64,
    pub space: Space,
    /// Parameters held at a value.
    #[serde(default)]
    pub fixed: BTreeMap<String, f64>,
    /// Bounds replacing the law's.
    #[serde(default)]
    pub bounds: BTreeMap<String, Bounds>,
    /// Start values replacing the law's grid (for a linear parameter: start there instead of
    /// solving it by variable projection).
    #[serde(default)]
    pub grids: BTreeMap<String, Vec<f64>>,
    /// The record of the seed a fit's uncertainty steps used (its bootstrap), kept in the
    /// saved JSON so a fit says how to repeat it. Nothing random reads it: the fit is
    /// deterministic, and each random step takes its seed from its own options.
    pub seed: u64,
    /// Worker threads (None: all cores). The result does not depend on it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub threads: Option<usize>,
    /// Iteration limit of each start's local minimisation.
    pub max_iterations: usize,
    /// Which covariance the standard errors come from (auto: Gauss–Newton for the linear loss,
    /// the smoothed sandwich for robust losses, the inverse observed information under a
    /// family).
    #[serde(default, skip_serializing_if = "Covariance::is_auto")]
    pub covariance: Covariance,
    /// A residual scale that varies with a column, σ(x) = σ0·(x/x0)^s, fitted with the law
    /// (None: one σ for every row). Needs the linear loss; see [`variance`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heteroscedastic: Option<Heteroscedastic>,
    /// A likelihood family as the objective (see [`family`]) in place of the loss: the
    /// `loss` and `f_scale` do not apply, and the count and proportion families take
    /// residuals in linear space. None: the robust least squares of `loss`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<Family>,
    /// Stops the fit, and every loop of fits run with these settings (bootstrap replicates,
    /// backtest splits, ...), with [`Error::Interrupted`] once set. Not part of the settings'
    /// value: never serialized, and equal to every other token.
    #[serde(skip)]
    pub interrupt: Interrupt,
    /// The run's work budget in estimated core-seconds ([`crate::work`]): every workflow
    /// refuses, before it starts, work estimated above it. Not part of the settings' value:
    /// never serialized.
    #[serde(skip, default = "crate::work::default_max_work")]
    pub max_work: f64,
}

impl Default for FitSettings {
    /// The field's standard protocol (Hoffmann et al. 2022; Besiroglu et al. 2024): Huber loss
    /// with delta 1e-3 on log residuals, summed.
    fn default() -> Self {
        FitSettings {
            loss: LossKind::Huber,
            f_scale: DEFAULT_F_SCALE,
            space: Space::Log,
            fixed: BTreeMap::new(),
            bounds: BTreeMap::new(),
            grids: BTreeMap::new(),
            seed: 0,
            threads: None,
            max_iterations: search::DEFAULT_MAX_ITERATIONS,
            covariance: Covariance::Auto,
            heteroscedastic: None,
            family: None,
            interrupt: Interrupt::default(),
            max_work: crate::work::DEFAULT_MAX_WORK,
        }
    }
}

/// The data of a fit: `variables[i]` holds the values of the law's variable i.
#[derive(Debug, Clone, PartialEq)]
pub struct FitData {
    pub variables: Vec<Vec<f64>>,
    pub target: Vec<f64>,
    pub weights: Option<Vec<f64>>,
    /// Trials n per row, for the proportion families (`binomial`, `beta_binomial`: the
    /// target is the proportion of successes).
    pub trials: Option<Vec<f64>>,
    /// Exposure per row, for the count families (`poisson`, `negative_binomial`: the mean
    /// count is exposure × the law).
    pub exposure: Option<Vec<f64>>,
}

impl FitData {
    /// No rows, with `variables` columns (a design before any run).
    pub fn empty(variables: usize) -> FitData {
        FitData {
            variables: vec![Vec::new(); variables],
            target: Vec::new(),
            weights: None,
            trials: None,
            exposure: None,
        }
    }

    /// Every row as a point: one value per law variable, in the law's order.
    pub fn points(&self) -> Vec<Vec<f64>> {
        (0..self.target.len())
            .map(|r| self.variables.iter().map(|c| c[r]).collect())
            .collect()
    }

    /// The rows `rows` of this data, in that order (a backtest's training or test fold).
    pub fn subset(&self, rows: &[usize]) -> FitData {
        let pick = |column: &[f64]| rows.iter().map(|&i| column[i]).collect::<Vec<f64>>();
        FitData {
            variables: self.variables.iter().map(|c| pick(c)).collect(),
            target: pick(&self.target),
            weights: self.weights.as_ref().map(|w| pick(w)),
            trials: self.trials.as_ref().map(|w| pick(w)),
            exposure: self.exposure.as_ref().map(|w| pick(w)),
        }
    }
}

/// Resolved bounds and starts of one parameter.
#[derive(Debug, Clone)]
struct ParamPlan {
    lower: f64,
    upper: f64,
    fixed: Option<f64>,
    /// None: solved by variable projection at each start.
    starts: Option<Vec<f64>>,
}

/// The validated objective of a fit without running the search: for evaluating the objective
/// at given parameters (`Problem::objective_natural`) and for benchmarks.
pub fn problem_for(law: &Law, data: &FitData, settings: &FitSettings) -> Result<Problem> {
    if settings.heteroscedastic.is_some() {
        return Err(Error::settings(format!(
            "{}: the objective of a heteroscedastic fit has weights that depend on its fitted variance model; build the problem from VarianceModel::weighted_data without the variance model",
            variance::SETTING
        )));
    }
    if settings
        .family
        .is_some_and(|f| !f.nuisance_fixed() && f.kind != FamilyKind::Gaussian)
    {
        return Err(Error::settings(
            "the objective of a family whose nuisance values are fitted depends on them; build the problem from the fit's settings with them held (FitResult::held_settings)",
        ));
    }
    validate_settings(law, settings)?;
    validate_data(law, data, settings)?;
    let plans = plan_params(law, data, settings)?;
    let free: Vec<usize> = (0..plans.len())
        .filter(|&i| plans[i].fixed.is_none())
        .collect();
    Ok(build_problem(law, data, settings, &plans, &free))
}

/// A fit's search, ready to run: the validated problem, its starts and bounds.
struct Prepared {
    plans: Vec<ParamPlan>,
    problem: Problem,
    /// The problem on a sample of the rows, for the start search of large data (see
    /// [`search_sample`]); None for data of at most [`SAMPLE_ABOVE`] rows.
    sample: Option<Problem>,
    starts: Vec<Start>,
    lower: Vec<f64>,
    upper: Vec<f64>,
    /// The starts are one nonlinear parameter's grid and nothing else: the search screens them
    /// ([`search::search`]).
    screen_line: bool,
}

fn prepare(law: &Law, data: &FitData, settings: &FitSettings) -> Result<Prepared> {
    validate_settings(law, settings)?;
    validate_data(law, data, settings)?;
    let plans = plan_params(law, data, settings)?;
    let free: Vec<usize> = (0..plans.len())
        .filter(|&i| plans[i].fixed.is_none())
        .collect();
    if free.is_empty() {
        return Err(Error::settings("every parameter is fixed: nothing to fit"));
    }
    let rows_with_weight = data.weights.as_ref().map_or(data.target.len(), |w| {
        w.iter().filter(|w| **w > 0.0).count()
    });
    if rows_with_weight < free.len() {
        return Err(Error::Data {
            location: crate::error::Location {
                file: "the data".into(),
                row: None,
                line: None,
                column: None,
            },
            message: format!("{rows_with_weight} rows with positive weight are fewer than the {} parameters to fit", free.len()).into(),
            fix: text![
                "add rows, or fix some parameters with ",
                Setting::Fix.entry_number("NAME", "VALUE")
            ],
        });
    }
    // Every fit, wherever it runs (a workflow's loop of fits checks its whole product first),
    // stays within the work budget on its own.
    check_start_count(&plans)?;
    shape_of_plans(law, data, settings, &plans)
        .estimate()
        .check(settings.max_work)?;
    let problem = build_problem(law, data, settings, &plans, &free);
    let sample = search_sample(law, data, settings, &plans, &free);
    let starts = build_starts(&plans)?;
    let lower: Vec<f64> = plans.iter().map(|p| p.lower).collect();
    let upper: Vec<f64> = plans.iter().map(|p| p.upper).collect();
    let screen_line =
        settings.loss == LossKind::Linear && settings.family.is_none() && is_line_of_starts(&plans);
    Ok(Prepared {
        plans,
        problem,
        sample,
        starts,
        lower,
        upper,
        screen_line,
    })
}

/// Whether the start grid is a line: one free parameter with at least three ascending start
/// values, every other free parameter solved by variable projection at each start. Its start
/// objectives then trace that parameter's profile, which a least-squares search screens (a
/// start with a lower neighbour is not searched). Grids of two or more nonlinear parameters
/// are searched from every start, and so are robust losses: on the 10,000 curves of
/// bench/fit_groups.py, least squares found the full search's optimum on every curve when
/// screened, while Huber's loss (nearly piecewise linear at its default scale, with shallow
/// local minima along one valley) missed it on 29 (by up to 0.9 % of the objective).
fn is_line_of_starts(plans: &[ParamPlan]) -> bool {
    let mut gridded = plans
        .iter()
        .filter(|p| p.fixed.is_none())
        .filter_map(|p| p.starts.as_ref());
    match (gridded.next(), gridded.next()) {
        (Some(values), None) => values.len() >= 3 && values.windows(2).all(|w| w[0] < w[1]),
        _ => false,
    }
}

/// Data above this many rows run their start search on a sample of the rows.
pub const SAMPLE_ABOVE: usize = 8_192;

/// Rows of that sample (at most, about): every k-th row, k = max(rows / SAMPLE_ROWS,
/// [`SAMPLE_STRIDE`]).
pub const SAMPLE_ROWS: usize = 8_192;

/// The smallest stride of the sample: just above [`SAMPLE_ABOVE`] rows the search runs on a
/// quarter of them (at least 2,048 rows), growing to [`SAMPLE_ROWS`] rows at 32,768.
pub const SAMPLE_STRIDE: usize = 4;

/// The problem on every k-th row, for the start search of data above [`SAMPLE_ABOVE`] rows:
/// the starts' many Gauss–Newton rounds cost the sample's rows, not all of them, and only the
/// sample's best optima are finished on every row. A deterministic sample (fixed stride from
/// row 0), so results do not depend on anything but the data. None for smaller data, or when
/// the sample holds too few rows with positive weight to stand for the data.
fn search_sample(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    plans: &[ParamPlan],
    free: &[usize],
) -> Option<Problem> {
    let n = data.target.len();
    if n <= SAMPLE_ABOVE {
        return None;
    }
    let stride = (n / SAMPLE_ROWS).max(SAMPLE_STRIDE);
    let rows: Vec<usize> = (0..n).step_by(stride).collect();
    let sample = data.subset(&rows);
    let weighted = sample
        .weights
        .as_ref()
        .map_or(rows.len(), |w| w.iter().filter(|w| **w > 0.0).count());
    (weighted >= rows.len() / 2).then(|| build_problem(law, &sample, settings, plans, free))
}

/// Rows the start search of a fit on `rows` rows runs on ([`search_sample`]'s size, before
/// the rows without weight are counted).
pub fn search_rows(rows: usize) -> usize {
    if rows <= SAMPLE_ABOVE {
        return rows;
    }
    rows.div_ceil((rows / SAMPLE_ROWS).max(SAMPLE_STRIDE))
}

/// The size of a fit of `law` to `data` with `settings`, for the work model
/// ([`crate::work`]): checks the settings and counts the start grid without building it.
pub fn shape(law: &Law, data: &FitData, settings: &FitSettings) -> Result<crate::work::FitShape> {
    validate_settings(law, settings)?;
    let plans = plan_params(law, data, settings)?;
    check_start_count(&plans)?;
    Ok(shape_of_plans(law, data, settings, &plans))
}

fn shape_of_plans(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    plans: &[ParamPlan],
) -> crate::work::FitShape {
    let free = plans.iter().filter(|p| p.fixed.is_none()).count();
    let nonlinear = plans
        .iter()
        .filter(|p| p.fixed.is_none() && p.starts.is_some())
        .count();
    let starts: f64 = plans
        .iter()
        .filter(|p| p.fixed.is_none())
        .filter_map(|p| p.starts.as_ref().map(|s| s.len() as f64))
        .product();
    let rows = data.target.len();
    crate::work::FitShape {
        rows,
        search_rows: search_rows(rows),
        nodes: law.tape().ops().len(),
        free,
        solve: free,
        starts,
        max_iterations: settings.max_iterations,
        steps_per_start: steps_per_start(settings, nonlinear),
        variables: data.variables.len(),
    }
}

/// Steps a start is costed at: [`crate::work::STEPS_PER_START`] under Huber and soft-L1 (the
/// losses the work model was calibrated on), twice that under the linear loss and three
/// times under a redescending loss (Cauchy, arctan) or a likelihood family, whose starts run
/// longer. Measured by the fuzz target `work`: 400 bootstrap refits of a 3-parameter law on
/// 39 rows took 0.36 s under Huber, 0.33 s soft-L1, 0.78 s linear, 0.62 s Cauchy and 1.12 s
/// arctan, against 0.55 s costed at 25 steps.
///
/// Beyond 4 searched (nonlinear) parameters, starts wander longer before they converge or
/// stop: the steps double with each searched parameter past 4 (the iteration limit caps them). Measured on
/// broken power laws of 500 rows against 25 steps: `bnsl:1` (4 searched) 0.25 s for 0.32
/// costed, `bnsl:2` (6) 0.62 for 0.61, `bnsl:3` (8; 101 of 128 starts unconverged) 14.5 for
/// 4.3; a 4-exponent formula's 256 starts on 3,000 rows 99 s for 114.
fn steps_per_start(settings: &FitSettings, nonlinear: usize) -> f64 {
    let factor = match (settings.family, settings.loss) {
        (Some(_), _) | (None, LossKind::Cauchy | LossKind::Arctan) => 3.0,
        (None, LossKind::Linear) => 2.0,
        (None, LossKind::Huber | LossKind::SoftL1) => 1.0,
    };
    let wander = 2f64.powi(nonlinear.saturating_sub(4).min(16) as i32);
    crate::work::STEPS_PER_START * factor * wander
}

/// [`shape`] of a fit to `rows` rows not yet had (a design's simulated outcomes): the start
/// grid counted from the law's grids and the settings' (a formula's grid derived from the
/// data is counted at its default size).
pub fn shape_of_rows(law: &Law, settings: &FitSettings, rows: usize) -> crate::work::FitShape {
    let free: Vec<&crate::law::ParamSpec> = law
        .params
        .iter()
        .filter(|p| !settings.fixed.contains_key(&p.name))
        .collect();
    let nonlinear = free
        .iter()
        .filter(|p| !p.linear || settings.grids.contains_key(&p.name))
        .count();
    let starts: f64 = free
        .iter()
        .filter_map(|p| match settings.grids.get(&p.name) {
            Some(values) => Some(values.len().max(1) as f64),
            None if p.linear => None,
            None => Some(match &p.grid {
                crate::law::Grid::Values(values) => values.len().max(1) as f64,
                crate::law::Grid::Quantiles { probabilities, .. } => {
                    probabilities.len().max(1) as f64
                }
            }),
        })
        .product();
    crate::work::FitShape {
        rows,
        search_rows: search_rows(rows),
        nodes: law.tape().ops().len(),
        free: free.len(),
        solve: free.len(),
        starts,
        max_iterations: settings.max_iterations,
        steps_per_start: steps_per_start(settings, nonlinear),
        variables: law.variables.len(),
    }
}

/// Adds warm starts (full natural parameter vectors, e.g. the optimum of the fit a bootstrap
/// replicate resamples) before the grid; fixed parameters keep their fixed values.
fn with_warm_starts(prepared: &mut Prepared, warm: &[Vec<f64>]) {
    let warm_starts = warm
        .iter()
        .filter(|w| w.len() == prepared.plans.len())
        .map(|w| {
            w.iter()
                .zip(&prepared.plans)
                .map(|(&v, plan)| Some(plan.fixed.unwrap_or(v)))
                .collect::<Start>()
        });
    let mut starts: Vec<Start> = warm_starts.collect();
    starts.append(&mut prepared.starts);
    prepared.starts = starts;
    prepared.screen_line &= warm.is_empty();
}

fn run_search(prepared: &Prepared, settings: &FitSettings) -> Result<search::SearchOutcome> {
    settings.interrupt.check()?;
    let outcome = with_threads(settings.threads, || match &prepared.sample {
        Some(sample) => search::search_on_sample(
            &prepared.problem,
            sample,
            &prepared.starts,
            &prepared.lower,
            &prepared.upper,
            settings.max_iterations,
            &settings.interrupt,
            prepared.screen_line,
        ),
        None => search::search(
            &prepared.problem,
            &prepared.starts,
            &prepared.lower,
            &prepared.upper,
            settings.max_iterations,
            &settings.interrupt,
            prepared.screen_line,
        ),
    })?;
    // A search cut short is no result.
    settings.interrupt.check()?;
    if outcome.optima.is_empty() && outcome.diverged > 0 {
        return Err(Error::fit(text![
            format!(
                "every start diverged ({} of {}: a parameter ran off to infinity); bound the \
                 parameters with ",
                outcome.diverged, outcome.starts
            ),
            Setting::Bounds,
            " or give starts with ",
            Setting::Grid,
        ]));
    }
    if outcome.optima.is_empty() {
        let needs = match settings.family {
            Some(f) if !f.kind.location_scale() => format!(
                " (the {} family needs predictions {})",
                f.kind.name(),
                f.kind.domain()
            ),
            _ if settings.space == Space::Log => " (log space needs positive predictions)".into(),
            _ => String::new(),
        };
        return Err(Error::fit(format!(
            "none of the {} starts gave a finite objective; check that the law can produce the target's values{needs}",
            outcome.starts,
        )));
    }
    Ok(outcome)
}

/// A search that found no optimum because of the values `fix` holds (the same search with
/// those parameters free has starts with a finite objective) is an error of that setting, not
/// a fit that could not be done; any other error is returned as it is.
fn blame_fixed(law: &Law, data: &FitData, settings: &FitSettings, error: Error) -> Error {
    if settings.fixed.is_empty() || !matches!(error, Error::Fit { .. }) {
        return error;
    }
    let free = FitSettings {
        fixed: BTreeMap::new(),
        ..settings.clone()
    };
    let finite_when_free = prepare(law, data, &free).is_ok_and(|p| {
        let outcome = search::search(
            &p.problem,
            &p.starts,
            &p.lower,
            &p.upper,
            1,
            &free.interrupt,
            false,
        );
        outcome.failed < outcome.starts
    });
    if !finite_when_free {
        return error;
    }
    let entries: Vec<Text> = settings
        .fixed
        .iter()
        .map(|(name, value)| Setting::Fix.entry_number(name, short_number(*value)).into())
        .collect();
    let (these, them, values) = match entries.len() {
        1 => ("this value", "it", "a value"),
        _ => ("these values", "them", "values"),
    };
    let mut listed = Vec::new();
    for (i, entry) in entries.into_iter().enumerate() {
        listed.push(if i == 0 { entry } else { entry.after(" and ") });
    }
    Error::setting(
        Setting::Fix,
        Text::concat(listed).around(
            "",
            format!(
                ": with {these} no start gives a finite objective (the law's predictions, or \
                 their logs, overflow or are undefined at the data), while with {them} free the \
                 starts do; fix {them} at {values} on the scale of the data, or drop {them}"
            ),
        ),
    )
}

/// The best optimum of a search, without diagnostics: what a bootstrap replicate or a point of
/// a profile needs.
#[derive(Debug, Clone, PartialEq)]
pub struct BestOptimum {
    /// Every parameter in the law's order (fixed ones at their values).
    pub params: Vec<f64>,
    pub objective: f64,
    pub converged: bool,
}

/// The full global search of [`fit`] and a local search from each warm start (e.g. the optimum
/// of the fit a profile point moves from), returning only the best optimum, without
/// diagnostics. The result is never above the plain search's optimum, except by at most the
/// 1e-6 (relative) that makes two optima one, where a converged local optimum replaces an
/// unconverged plain one.
///
/// A heteroscedastic fit returns its θ at the fitted variance exponent, with the objective of
/// the weighted problem there.
pub fn fit_best(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    warm: &[Vec<f64>],
) -> Result<BestOptimum> {
    if settings.heteroscedastic.is_some() {
        return variance::fit_best(law, data, settings, warm);
    }
    if settings.family.is_some() {
        return nuisance::fit_best(law, data, settings, warm);
    }
    fit_best_plain(law, data, settings, warm)
}

/// The local minimisation from one start (no grid): what an alternation of a family's
/// nuisance fit needs after its first, global, step.
fn fit_best_local(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    start: &[f64],
) -> Result<BestOptimum> {
    let mut prepared = prepare(law, data, settings)?;
    prepared.starts.clear();
    with_warm_starts(&mut prepared, &[start.to_vec()]);
    best_of(&prepared, settings)
}

/// The search of `prepared` run, its best optimum without diagnostics.
fn best_of(prepared: &Prepared, settings: &FitSettings) -> Result<BestOptimum> {
    let outcome = run_search(prepared, settings)?;
    let best = &outcome.optima[0];
    Ok(BestOptimum {
        params: prepared.problem.natural(&best.u),
        objective: best.value,
        converged: best.termination.converged(),
    })
}

/// [`fit_best`] with one σ for every row (the variance model, if any, ignored): the plain full
/// search, unless a local search from a warm start ends lower. The warm starts run apart from
/// the grid, since one among the grid's starts changes which tracks merge: on the
/// data-constrained law, one resampled copy in 667 of such a joint search missed the plain
/// search's optimum by 0.3 % (`replicate_search_finds_the_full_searchs_optimum`).
fn fit_best_plain(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    warm: &[Vec<f64>],
) -> Result<BestOptimum> {
    // A grid with no finite start (or only diverging ones) can still succeed from a warm start:
    // its error stands only when every warm start fails too.
    let mut best = prepare(law, data, settings).and_then(|p| best_of(&p, settings));
    for start in warm {
        let Ok(local) = fit_best_local(law, data, settings, start) else {
            continue;
        };
        match &best {
            Ok(current) if !preferred(&local, current) => {}
            _ => best = Ok(local),
        }
    }
    best
}

/// Whether `candidate` is the better optimum: the lower objective, except that between a
/// converged and an unconverged one, objectives within the tolerance that makes two optima one
/// (`search::SAME_OBJECTIVE`) go to the converged (as the search's clustering decides).
fn preferred(candidate: &BestOptimum, current: &BestOptimum) -> bool {
    let tolerance = search::SAME_OBJECTIVE * current.objective.abs();
    match (candidate.converged, current.converged) {
        (true, false) => candidate.objective <= current.objective + tolerance,
        (false, true) => candidate.objective < current.objective - tolerance,
        _ => candidate.objective < current.objective,
    }
}

/// Fits `law` to `data`.
pub fn fit(law: &Law, data: &FitData, settings: &FitSettings) -> Result<FitResult> {
    fit_with_starts(law, data, settings, &[])
}

/// [`fit`] with warm starts (full natural parameter vectors) tried before the start grid, e.g.
/// a joint fit started from the separate fits of its parts.
pub fn fit_with_starts(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    warm: &[Vec<f64>],
) -> Result<FitResult> {
    if settings.heteroscedastic.is_some() {
        return variance::fit(law, data, settings, warm);
    }
    if settings.family.is_some() {
        return nuisance::fit_with_starts(law, data, settings, warm);
    }
    fit_with_starts_plain(law, data, settings, warm)
}

/// [`fit_with_starts`] with one σ for every row (the variance model, if any, ignored).
fn fit_with_starts_plain(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    warm: &[Vec<f64>],
) -> Result<FitResult> {
    let mut prepared = prepare(law, data, settings)?;
    with_warm_starts(&mut prepared, warm);
    let outcome =
        run_search(&prepared, settings).map_err(|e| blame_fixed(law, data, settings, e))?;
    let Prepared {
        plans,
        problem,
        lower,
        upper,
        ..
    } = prepared;
    let mut result =
        diagnostics::summarize(law, data, settings, &problem, &outcome, &lower, &upper);
    result.warnings.extend(
        settings_warnings(settings, &plans, law)
            .into_iter()
            .map(Text::from),
    );
    let runaway = runaway_warnings(&result, &plans);
    if result.converged && !runaway.is_empty() {
        // Stationary far beyond every start: the search ran off, it did not find an optimum.
        result.converged = false;
        result.termination = solver::Termination::Runaway.describe().to_string();
    }
    result.warnings.extend(runaway.into_iter().map(Text::from));
    let cutoff = cutoff_warning(law, data, &result);
    result.warnings.extend(cutoff.map(Text::from));
    Ok(result)
}

/// The largest x/x_c over the rows below which a cut-off counts as beyond the data (the
/// curve bends by less than 10 % there, exp(−0.1) = 0.905).
const CUTOFF_REACH: f64 = 0.1;

/// A catalog cut-off law whose cut-off the data do not reach, or do not pin down (relative
/// standard error above 1): the at-bound warnings' counterpart for a cut-off that runs off
/// to large values slowly enough to look converged.
fn cutoff_warning(law: &Law, data: &FitData, result: &FitResult) -> Option<String> {
    let value = |name: &str| result.value(name);
    let (reach, name, relative) = match law.label() {
        "power_cutoff" | "power_smooth_cutoff" => {
            let x_c = value("x_c")?;
            let largest = data.variables[0].iter().copied().fold(f64::NAN, f64::max);
            (largest / x_c, "x_c", result.param("x_c")?.rel_stderr)
        }
        "memorisation_rate" => {
            let (c, gamma) = (value("c")?, value("gamma")?);
            let reach = data.variables[0]
                .iter()
                .zip(&data.variables[1])
                .map(|(t, n)| t / (c * n.powf(gamma)))
                .fold(f64::NAN, f64::max);
            (reach, "c", result.param("c")?.rel_stderr)
        }
        _ => return None,
    };
    if reach < CUTOFF_REACH {
        return Some(format!(
            "the cut-off lies beyond the data: the largest x/x_c over the rows is {reach:.3} (below {CUTOFF_REACH}), so {name} is unidentified and the law without the cut-off fits as well"
        ));
    }
    relative.filter(|r| *r > 1.0).map(|r| {
        format!(
            "the cut-off is barely constrained: {name} has a relative standard error of {:.0} %, so where the curve bends is unidentified by these data",
            100.0 * r
        )
    })
}

/// How far beyond its largest start a parameter may go before the fit says it ran away.
const RUNAWAY_FACTOR: f64 = 1e6;

/// How far below its smallest (nonzero) start a parameter may shrink before the fit says it
/// collapsed.
const COLLAPSE_FACTOR: f64 = 1e-12;

/// Parameters that ended orders of magnitude beyond every start: the data do not bound them
/// (e.g. a repetition constant that wants to be infinite, a break far outside the data).
fn runaway_warnings(result: &FitResult, plans: &[ParamPlan]) -> Vec<String> {
    result
        .params
        .iter()
        .zip(plans)
        .filter_map(|((name, p), plan)| {
            let starts = plan.starts.as_ref()?;
            let largest_start = starts.iter().fold(1.0f64, |m, v| m.max(v.abs()));
            // A collapse towards 0 from starts all far from it (NIST's MGH10 from Start 1 runs
            // b1 from 2 to 2e-21 while b2 grows): the same runaway, seen from the other side.
            let smallest_start = starts.iter().fold(f64::INFINITY, |m, v| m.min(v.abs()));
            if p.fixed {
                return None;
            }
            if p.value.abs() > RUNAWAY_FACTOR * largest_start {
                return Some(format!(
                    "{name} = {:.3e} ran far beyond its starts (largest {largest_start}): the data do not bound it",
                    p.value
                ));
            }
            (smallest_start.is_finite() && p.value.abs() < COLLAPSE_FACTOR * smallest_start).then(|| {
                format!(
                    "{name} = {:.3e} collapsed towards 0 from its starts (smallest {smallest_start}): the data do not bound it",
                    p.value
                )
            })
        })
        .collect()
}

/// Settings that are legal but probably not what the user meant.
fn settings_warnings(settings: &FitSettings, plans: &[ParamPlan], law: &Law) -> Vec<String> {
    let mut warnings = Vec::new();
    for (spec, plan) in law.params.iter().zip(plans) {
        let name = &spec.name;
        let outside = |v: f64| v < plan.lower || v > plan.upper;
        if let Some(value) = plan.fixed {
            if outside(value) {
                warnings.push(format!(
                    "{name} is fixed at {}, outside its bounds [{}, {}]",
                    short_number(value),
                    short_number(plan.lower),
                    short_number(plan.upper)
                ));
            }
            if settings.grids.contains_key(name) || settings.bounds.contains_key(name) {
                warnings.push(format!(
                    "{name} is fixed, so its start grid and bounds are ignored"
                ));
            }
        } else if settings
            .grids
            .get(name)
            .is_some_and(|g| g.iter().any(|v| outside(*v)))
        {
            warnings.push(format!(
                "some start-grid values of {name} lie outside its bounds and start just inside them"
            ));
        }
    }
    warnings
}

/// Runs `job` on a pool of `threads` worker threads (capped by [`crate::limits::threads`]); on
/// the current pool when `threads` is None or when the caller already runs on a pool of that
/// size (a job that installed one for all its steps: the fits inside start no pools of their
/// own).
pub(crate) fn with_threads<T: Send>(
    threads: Option<usize>,
    job: impl FnOnce() -> T + Send,
) -> Result<T> {
    match threads.map(crate::limits::threads) {
        None => Ok(job()),
        Some(n) if rayon::current_thread_index().is_some() && rayon::current_num_threads() == n => {
            Ok(job())
        }
        Some(n) => {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| Error::settings(format!("cannot start {n} threads: {e}")))?;
            Ok(pool.install(job))
        }
    }
}

fn unknown_param(law: &Law, name: &str, setting: Setting) -> Error {
    let hint = crate::suggest::closest(name, law.param_names())
        .map(|s| format!(" (did you mean '{s}'?)"))
        .unwrap_or_default();
    Error::setting(
        setting,
        text![
            setting.subject(),
            format!(
                " names '{name}', which is not a parameter of the law{hint}; its parameters are {}",
                law.param_names().join(", ")
            )
        ],
    )
}

fn validate_settings(law: &Law, settings: &FitSettings) -> Result<()> {
    if settings.max_iterations == 0 {
        return Err(Error::settings(
            "max_iterations must be at least 1 (the Gauss–Newton iterations of each start)",
        ));
    }
    if !(1e-100..=1e100).contains(&settings.f_scale) {
        return Err(Error::settings(format!(
            "f_scale must be a positive number between 1e-100 and 1e100, got {}",
            short_number(settings.f_scale)
        )));
    }
    for name in settings.fixed.keys() {
        law.param_index(name)
            .ok_or_else(|| unknown_param(law, name, Setting::Fix))?;
    }
    for (name, bounds) in &settings.bounds {
        law.param_index(name)
            .ok_or_else(|| unknown_param(law, name, Setting::Bounds))?;
        let (lo, hi) = (
            bounds.lower.unwrap_or(f64::NEG_INFINITY),
            bounds.upper.unwrap_or(f64::INFINITY),
        );
        if lo.is_nan() || hi.is_nan() || lo >= hi {
            return Err(Error::setting(
                Setting::Bounds,
                text![
                    Setting::Bounds.key(name),
                    format!(
                        ": the lower bound {} must be below the upper bound {}",
                        short_number(lo),
                        short_number(hi)
                    )
                ],
            ));
        }
        if lo.is_finite() && hi.is_finite() && !(hi - lo).is_finite() {
            return Err(Error::setting(
                Setting::Bounds,
                text![
                    Setting::Bounds.key(name),
                    format!(
                        ": the interval {}:{} is too wide to represent; leave a side empty \
                         for no bound",
                        short_number(lo),
                        short_number(hi)
                    )
                ],
            ));
        }
    }
    for (name, values) in &settings.grids {
        law.param_index(name)
            .ok_or_else(|| unknown_param(law, name, Setting::Grid))?;
        if values.is_empty() || values.iter().any(|v| !v.is_finite()) {
            return Err(Error::setting(
                Setting::Grid,
                text![Setting::Grid.key(name), ": give one or more finite values"],
            ));
        }
    }
    family::validate_settings(settings)
}

fn data_error(row: Option<usize>, column: &str, message: String, fix: impl Into<Text>) -> Error {
    Error::Data {
        location: crate::error::Location {
            file: "the data".into(),
            row: row.map(|r| r + 1),
            line: None,
            column: Some(column.to_string()),
        },
        message: message.into(),
        fix: fix.into(),
    }
}

/// The checks a fit makes of its rows (finite values, positive targets under a log, weights,
/// trials), without fitting: a grouped fit runs them once on the whole data, so a bad row is
/// named by its place in the file, not in its group.
pub fn check_data(law: &Law, data: &FitData, settings: &FitSettings) -> Result<()> {
    validate_data(law, data, settings)
}

fn validate_data(law: &Law, data: &FitData, settings: &FitSettings) -> Result<()> {
    let n = data.target.len();
    if law.variables.is_empty() {
        return Err(Error::settings(format!(
            "the law '{}' reads no data column, so it predicts the same value for every run; write it in terms of at least one column (e.g. E + A*N^-alpha)",
            law.formula
        )));
    }
    if data.variables.len() != law.variables.len() {
        return Err(Error::settings(format!(
            "the law reads {} variables ({}) but {} columns were given",
            law.variables.len(),
            law.variables.join(", "),
            data.variables.len()
        )));
    }
    let columns = law
        .variables
        .iter()
        .zip(&data.variables)
        .map(|(n, c)| (n.as_str(), c.as_slice()));
    for (name, values) in columns.chain([("target", data.target.as_slice())]) {
        if values.len() != n {
            return Err(data_error(
                None,
                name,
                format!("has {} values but the target has {n}", values.len()),
                "give every column the same rows",
            ));
        }
        if let Some(row) = values.iter().position(|v| !v.is_finite()) {
            return Err(data_error(
                Some(row),
                name,
                format!("{} is not a finite number", values[row]),
                "remove or correct the row",
            ));
        }
    }
    if settings.space == Space::Log {
        if let Some(row) = data.target.iter().position(|v| *v <= 0.0) {
            return Err(data_error(
                Some(row),
                "target",
                format!(
                    "{} is not positive, but log-space residuals take log(y)",
                    data.target[row]
                ),
                text![
                    "remove the row, or fit in linear space (",
                    Setting::Space.text("linear"),
                    ")"
                ],
            ));
        }
    }
    if let Some(weights) = &data.weights {
        validate_weights(weights, n)?;
    }
    family::validate_data(data, settings)
}

/// The weights: one per row, finite and >= 0, not all zero.
fn validate_weights(weights: &[f64], n: usize) -> Result<()> {
    if weights.len() != n {
        return Err(data_error(
            None,
            "weights",
            format!("has {} values for {n} rows", weights.len()),
            "give every row a weight",
        ));
    }
    if let Some(row) = weights.iter().position(|w| !(w.is_finite() && *w >= 0.0)) {
        return Err(data_error(
            Some(row),
            "weights",
            format!("{} is not a finite non-negative weight", weights[row]),
            "give every row a weight >= 0",
        ));
    }
    if weights.iter().all(|w| *w == 0.0) {
        return Err(data_error(
            None,
            "weights",
            "every weight is zero".into(),
            "give some rows a positive weight",
        ));
    }
    Ok(())
}

fn plan_params(law: &Law, data: &FitData, settings: &FitSettings) -> Result<Vec<ParamPlan>> {
    law.params
        .iter()
        .map(|spec| {
            let bounds = settings.bounds.get(&spec.name);
            let lower = bounds.map_or(spec.lower, |b| b.lower.unwrap_or(f64::NEG_INFINITY));
            let upper = bounds.map_or(spec.upper, |b| b.upper.unwrap_or(f64::INFINITY));
            let fixed = settings.fixed.get(&spec.name).copied();
            let starts = match settings.grids.get(&spec.name) {
                Some(values) => Some(values.clone()),
                None if spec.linear => None,
                // A user formula: starts on the data's scale where the parameter's role shows.
                None => match law
                    .name
                    .is_none()
                    .then(|| starts::derived_starts(law, &spec.name, &data.variables))
                    .flatten()
                {
                    Some(values) => Some(values),
                    None => Some(grid_values(law, &spec.grid, data)?),
                },
            };
            let starts = starts.map(|s| {
                if s.is_empty() {
                    vec![start_inside(lower, upper)]
                } else {
                    s
                }
            });
            Ok(ParamPlan {
                lower,
                upper,
                fixed,
                starts,
            })
        })
        .collect()
}

/// A neutral start for a parameter with no grid.
fn start_inside(lower: f64, upper: f64) -> f64 {
    match (lower.is_finite(), upper.is_finite()) {
        (true, true) => 0.5 * (lower + upper),
        (true, false) => lower + 1.0,
        (false, true) => upper - 1.0,
        (false, false) => 1.0,
    }
}

fn grid_values(law: &Law, grid: &Grid, data: &FitData) -> Result<Vec<f64>> {
    match grid {
        Grid::Values(values) => Ok(values.clone()),
        Grid::Quantiles {
            variable,
            probabilities,
        } => {
            let index = law.variable_index(variable).ok_or_else(|| {
                Error::settings(format!("grid refers to unknown variable '{variable}'"))
            })?;
            let mut sorted = data.variables[index].clone();
            sorted.sort_by(f64::total_cmp);
            Ok(probabilities
                .iter()
                .map(|q| quantile(&sorted, *q))
                .collect())
        }
    }
}

/// Linear-interpolation quantile of sorted values.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let position = q.clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let (below, fraction) = (position.floor() as usize, position.fract());
    let above = (below + 1).min(sorted.len() - 1);
    sorted[below] + fraction * (sorted[above] - sorted[below])
}

fn build_problem(
    law: &Law,
    data: &FitData,
    settings: &FitSettings,
    plans: &[ParamPlan],
    free: &[usize],
) -> Problem {
    let columns: Vec<&[f64]> = data.variables.iter().map(Vec::as_slice).collect();
    let tape = law.bind(&columns);
    let template: Vec<f64> = plans.iter().map(|p| p.fixed.unwrap_or(0.0)).collect();
    let transforms = free
        .iter()
        .map(|&i| Transform::new(plans[i].lower, plans[i].upper))
        .collect();
    let loss = Loss {
        kind: nuisance::objective_loss(settings),
        f_scale: settings.f_scale,
    };
    let problem = Problem::new(
        tape,
        &data.target,
        data.weights.as_deref(),
        settings.space,
        loss,
        template,
        free.to_vec(),
        transforms,
    );
    match family::row_family(settings, data) {
        Some(rows) => problem.with_family(rows),
        None => problem,
    }
}

/// Most starts a fit will run.
pub const MAX_STARTS: usize = 1_000_000;

/// Each searched parameter's count of start values, refused when their product is over
/// [`MAX_STARTS`].
fn check_start_count(plans: &[ParamPlan]) -> Result<Vec<usize>> {
    let counts: Vec<usize> = plans
        .iter()
        .filter(|p| p.fixed.is_none())
        .filter_map(|p| p.starts.as_ref().map(Vec::len))
        .collect();
    let total: f64 = counts.iter().map(|&n| n as f64).product();
    if total > MAX_STARTS as f64 {
        let factors: Vec<String> = counts.iter().map(usize::to_string).collect();
        return Err(Error::setting(
            Setting::Grid,
            text![
                format!(
                    "the start grid has {} points (the product of the start values of the {} \
                     searched parameters: {}), more than {}; give fewer values with ",
                    crate::error::short_number(total),
                    counts.len(),
                    factors.join(" × "),
                    crate::limits::thousands(MAX_STARTS)
                ),
                Setting::Grid,
                " or hold some parameters at values with ",
                Setting::Fix
            ],
        ));
    }
    Ok(counts)
}

/// The Cartesian product of every free parameter's start values.
fn build_starts(plans: &[ParamPlan]) -> Result<Vec<Start>> {
    let counts = check_start_count(plans)?;
    let mut starts: Vec<Start> = vec![plans.iter().map(|p| p.fixed).collect()];
    for (i, plan) in plans.iter().enumerate() {
        let (None, Some(values)) = (plan.fixed, &plan.starts) else {
            continue;
        };
        starts = starts
            .into_iter()
            .flat_map(|start| {
                values.iter().map(move |&v| {
                    let mut s = start.clone();
                    s[i] = Some(v);
                    s
                })
            })
            .collect();
    }
    debug_assert_eq!(starts.len(), counts.iter().product::<usize>());
    Ok(starts)
}
