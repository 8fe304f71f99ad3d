//! IsoFLOP analysis as a workflow: the runs split into groups, and per group the per-budget
//! profiles (approach 2, Hoffmann et al. 2022), their backtest on held-out budgets, or the
//! envelope of checkpoints (approach 1), with predictions at new budgets. The request's
//! defaults (the bootstrap's 1,000 replicates when predicting, else none) and every rule
//! between its settings are here, once; the command line's `isoflop` and Python's `isoflop`
//! only build the spec.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Workflow};
use crate::analysis::envelope::{
    envelope, Envelope, EnvelopeData, EnvelopeMethod, EnvelopeSettings,
};
use crate::analysis::isoflop::{
    isoflop, isoflop_backtest, joint_fit_rows, Isoflop, IsoflopBacktest, IsoflopData,
    IsoflopSettings, Method, Shape, DEFAULT_TOLERANCE, MAX_JOINT_REPLICATES,
};
use crate::data::recipe::{describe_group, Recipe, Table};
use crate::data::sweep::Frontier;
use crate::document::Document;
use crate::error::{Error, Result, Setting};
use crate::interrupt::Interrupt;
use crate::job::fit::{
    default_level, one_or_many, one_or_many_numbers, yes, OneOrMany, OneOrManyNumbers, TableRequest,
};
use crate::text;
use crate::work::Estimate;

/// Bootstrap replicates when predicting (at new budgets or in a backtest) and none were asked
/// for: the predictions' intervals need them.
pub const FORECAST_REPLICATES: usize = 1000;

/// The workflow.
pub struct IsoflopWorkflow;

/// An IsoFLOP analysis as a face sends it.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct IsoflopRequest {
    /// `target` (the loss), `map`, `derive` and `where`.
    #[serde(flatten)]
    pub table: TableRequest,
    /// The column of each run's compute budget in FLOPs (runs within `tolerance` share one).
    pub compute: String,
    /// The column of model size N.
    pub size: String,
    /// The column of training tokens D (None: D* = C/(6 N*)).
    #[serde(default)]
    pub tokens: Option<String>,
    /// Analyse the runs of each value of this column (or these columns) separately.
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(with = "OneOrMany")]
    pub group: Vec<String>,
    /// The local curve through each budget's minimum: `auto` (the parabola through every point
    /// unless a lack-of-fit test rejects it, then the cubic), `cubic` (5 nearest points),
    /// `parabola` (5), `parabola3`, `parabola:all`, `cubic:all`.
    #[serde(default)]
    pub shape: Shape,
    /// Budgets closer than this (relative) are one budget.
    #[serde(default = "default_tolerance")]
    pub tolerance: f64,
    /// Chinchilla's approach 1 on checkpoints instead of per-budget profiles: `hull` (the lower
    /// convex hull of the checkpoints) or `grid`, `grid:K` (every run's interpolated curve at K
    /// log-spaced budgets; 1,500 by default).
    #[serde(default)]
    pub envelope: Option<String>,
    /// The column naming each checkpoint's run (the grid envelope and its bootstrap need it).
    #[serde(default)]
    pub run: Option<String>,
    /// Bootstrap replicates for intervals on N*, the exponents and the predictions (None: 1,000
    /// with `budget` or `backtest`, else 0).
    #[serde(default)]
    pub bootstrap: Option<usize>,
    /// Seed of the bootstrap.
    #[serde(default)]
    pub seed: u64,
    /// Level of the intervals.
    #[serde(default = "default_level")]
    pub level: f64,
    /// Predict N*, D* and the loss at these budgets in FLOPs, with intervals: one or several.
    #[serde(default, deserialize_with = "one_or_many_numbers")]
    #[schemars(with = "OneOrManyNumbers")]
    pub budget: Vec<f64>,
    /// Fit on all but the K largest budgets, predict their N* and D*, and score the errors and
    /// the intervals' coverage.
    #[serde(default)]
    pub backtest: Option<usize>,
    /// What predicts at new budgets (and in a backtest): `profiles` (power laws through the
    /// per-budget minima; approach 2; None means it), `auto` (the joint law, Chinchilla's law
    /// fitted to the window of the runs chosen by a backtest over the data's own budgets, when
    /// it beats the minima there by more than a standard error, else the minima) or `joint`
    /// (that best window always; approach 3).
    #[serde(default)]
    pub method: Option<Method>,
    /// Widen the intervals of predictions beyond the data by rolling-origin backtests (false:
    /// the bootstrap's own).
    #[serde(default = "yes")]
    pub calibrate: bool,
    /// Swept columns (learning rate, ...), one or several: each (budget, size) cell's frontier
    /// is the profile's point, not every run.
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(with = "OneOrMany")]
    pub sweep: Vec<String>,
}

fn default_tolerance() -> f64 {
    DEFAULT_TOLERANCE
}

/// The analysis to run: which rows (the recipe) and how (the job).
#[derive(Debug, Clone)]
pub struct IsoflopSpec {
    /// The runs' columns; isoflop reads no weights, trials or exposure, and its swept
    /// columns are the job's (`sweep`: the profiles read each cell's frontier), not the
    /// recipe's (refused there by [`IsoflopSpec::check`]).
    pub recipe: Recipe,
    pub job: IsoflopJob,
}

impl TryFrom<IsoflopRequest> for IsoflopSpec {
    type Error = Error;

    fn try_from(request: IsoflopRequest) -> Result<IsoflopSpec> {
        let envelope = request
            .envelope
            .as_deref()
            .map(|text| parse_envelope(text.trim()))
            .transpose()?;
        Ok(IsoflopSpec {
            recipe: Recipe::try_from(request.table)?,
            job: IsoflopJob {
                compute: request.compute.trim().to_string(),
                size: request.size.trim().to_string(),
                tokens: request.tokens.map(|t| t.trim().to_string()),
                groups: request.group.iter().map(|g| g.trim().to_string()).collect(),
                run: request.run.map(|r| r.trim().to_string()),
                envelope,
                backtest: request.backtest,
                shape: request.shape,
                tolerance: request.tolerance,
                bootstrap: request.bootstrap,
                seed: request.seed,
                level: request.level,
                budgets: request.budget,
                method: request.method,
                calibrate: request.calibrate,
                max_work: crate::work::default_max_work(),
                sweep: request.sweep.iter().map(|c| c.trim().to_string()).collect(),
                interrupt: Interrupt::new(),
            },
        })
    }
}

/// `hull`, `grid` or `grid:K`, or an error naming the choices.
pub fn parse_envelope(text: &str) -> Result<EnvelopeMethod> {
    EnvelopeMethod::parse(text).ok_or_else(|| {
        Error::setting(
            Setting::Envelope,
            text![
                Setting::Envelope.text(text),
                ": use hull, grid, or grid:K with K >= 2 budgets"
            ],
        )
    })
}

impl IsoflopSpec {
    /// Every rule that needs no data: the job's, and no weights, trials or exposure (every
    /// run counts once in its budget's profile), nor swept columns in the recipe (the job's
    /// `sweep` names them).
    pub fn check(&self) -> Result<()> {
        let why = text!["every run counts once in its budget's profile"];
        super::refuse_unused_recipe(&self.recipe, "isoflop", why)?;
        self.job.check()
    }
}

impl Workflow for IsoflopWorkflow {
    const NAME: &'static str = "isoflop";
    const SUMMARY: &'static str =
        "IsoFLOP analysis per group: the minimum per budget and the power laws N* ∝ C^a, D* ∝ C^b";
    type Request = IsoflopRequest;
    type Spec = IsoflopSpec;
    type Output = IsoflopResult;
    type Input = Table;

    fn spec(request: IsoflopRequest) -> Result<IsoflopSpec> {
        IsoflopSpec::try_from(request)
    }

    fn check(spec: &IsoflopSpec) -> Result<()> {
        spec.check()
    }

    fn recipe(spec: &IsoflopSpec) -> Option<&Recipe> {
        Some(&spec.recipe)
    }

    fn run(spec: &IsoflopSpec, table: &Table, ctx: &Ctx) -> Result<IsoflopResult> {
        spec.check()?;
        let mut job = spec.job.clone();
        job.interrupt = ctx.interrupt.clone();
        if let Some(max_work) = ctx.max_work {
            job.max_work = max_work;
        }
        job.run(table, &spec.recipe.target)
    }
}

/// Which columns hold what, how runs are grouped, and the analysis to run per group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IsoflopJob {
    pub compute: String,
    pub size: String,
    #[serde(default)]
    pub tokens: Option<String>,
    /// Columns whose joint values split the runs into separate analyses.
    #[serde(default)]
    pub groups: Vec<String>,
    /// The column naming each checkpoint's run (for the grid envelope and its bootstrap).
    #[serde(default)]
    pub run: Option<String>,
    /// Approach 1 on checkpoints instead of per-budget profiles.
    #[serde(default)]
    pub envelope: Option<EnvelopeMethod>,
    /// Hold out this many of the largest budgets and score their predictions.
    #[serde(default)]
    pub backtest: Option<usize>,
    pub shape: Shape,
    /// Runs whose budgets differ by less than this (relative) share a budget.
    pub tolerance: f64,
    /// Bootstrap replicates; None: [`FORECAST_REPLICATES`] when predicting, else none
    /// ([`IsoflopJob::replicates`]).
    #[serde(default)]
    pub bootstrap: Option<usize>,
    #[serde(default)]
    pub seed: u64,
    pub level: f64,
    /// New budgets at which to predict N*, D* and the loss.
    #[serde(default)]
    pub budgets: Vec<f64>,
    /// What predicts there (and in a backtest): the per-budget minima (`profiles`, the
    /// default when None), the joint law (`joint`), or (`auto`) whichever a backtest over the
    /// budgets prefers.
    #[serde(default)]
    pub method: Option<Method>,
    /// Widen the intervals of predictions beyond the data by rolling-origin backtests.
    pub calibrate: bool,
    /// The work budget ([`crate::work`]), in estimated core-seconds.
    #[serde(default = "crate::work::default_max_work")]
    pub max_work: f64,
    /// Swept columns (learning rate, ...): the profiles read each (budget, size) cell's
    /// frontier (`crate::data::sweep`), not every run.
    #[serde(default)]
    pub sweep: Vec<String>,
    /// Stops the analysis between replicates, budgets and groups ([`Error::Interrupted`]).
    #[serde(skip)]
    pub interrupt: Interrupt,
}

/// Approach 2 (a profile per budget), its backtest, or approach 1 (the envelope).
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(tag = "approach", rename_all = "snake_case")]
pub enum Analysis {
    /// One group's IsoFLOP profiles.
    #[schemars(title = "IsoflopGroup")]
    Profiles(Isoflop),
    /// One group's IsoFLOP backtest (from `backtest=K`).
    #[schemars(title = "IsoflopBacktestGroup")]
    Backtest(IsoflopBacktest),
    /// One group's envelope (from `envelope=`).
    #[schemars(title = "EnvelopeGroup")]
    Envelope(Envelope),
}

/// One group's analysis, by its `approach`, with the values that define the group.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "IsoflopGroupResult")]
pub struct GroupAnalysis {
    /// The group's value of each `group` column (empty without groups).
    pub group: BTreeMap<String, String>,
    #[serde(flatten)]
    pub analysis: Analysis,
}

/// The IsoFLOP analysis of every group, and the columns it read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "IsoflopAnalysis")]
pub struct IsoflopResult {
    /// The column of the compute budgets.
    pub compute: String,
    /// The column of model size.
    pub size: String,
    /// The column naming each checkpoint's run, when given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// One analysis per group, in order of first appearance.
    pub groups: Vec<GroupAnalysis>,
    /// The frontier of a sweep, when swept columns were named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Frontier>,
}

impl Document for IsoflopResult {
    const KIND: &'static str = "isoflop";
}

/// The columns the analyses read, one value per kept row.
struct Columns {
    compute: Vec<f64>,
    size: Vec<f64>,
    loss: Vec<f64>,
    tokens: Option<Vec<f64>>,
    runs: Option<Vec<String>>,
}

impl IsoflopJob {
    pub fn settings(&self) -> IsoflopSettings {
        IsoflopSettings {
            shape: self.shape,
            tolerance: self.tolerance,
            bootstrap: self.replicates(),
            seed: self.seed,
            level: self.level,
            predict_at: self.budgets.clone(),
            method: self.method.unwrap_or_default(),
            calibrate: self.calibrate,
            interrupt: self.interrupt.clone(),
        }
    }

    /// Whether the analysis predicts: at new budgets, or at held-out ones.
    pub fn forecasting(&self) -> bool {
        !self.budgets.is_empty() || self.backtest.is_some()
    }

    /// The bootstrap's replicates: as given, else [`FORECAST_REPLICATES`] when predicting
    /// (the predictions' intervals need them), else none.
    pub fn replicates(&self) -> usize {
        let default = if self.forecasting() {
            FORECAST_REPLICATES
        } else {
            0
        };
        self.bootstrap.unwrap_or(default)
    }

    /// Every rule between the settings: the tolerance, budgets and level in range, at least
    /// one held-out budget, one way of predicting (new budgets or a backtest, from profiles),
    /// the prediction settings only with predictions, and a sweep without groups.
    pub fn check(&self) -> Result<()> {
        crate::analysis::isoflop::check_tolerance(self.tolerance)?;
        if let Some(bad) = self.budgets.iter().find(|c| !(c.is_finite() && **c > 0.0)) {
            return Err(Error::setting(
                Setting::Budget,
                text![
                    Setting::Budget.number(bad),
                    ": give positive budgets in FLOPs, e.g. 1e22"
                ],
            ));
        }
        if self.backtest == Some(0) {
            return Err(Error::setting(
                Setting::Backtest,
                text![
                    Setting::Backtest.number(0),
                    ": hold out at least the largest budget, e.g. ",
                    Setting::Backtest.number(2)
                ],
            ));
        }
        crate::uncertainty::check_level(self.level)?;
        self.check_predictions()?;
        self.check_sweep()
    }

    /// Predictions come from profiles, at new budgets or held-out ones (not both), and the
    /// settings of predictions need them.
    fn check_predictions(&self) -> Result<()> {
        let refuse = |setting: Setting, text| Err(Error::setting(setting, text));
        if self.envelope.is_some() && self.forecasting() {
            let setting = match self.backtest {
                Some(_) => Setting::Backtest,
                None => Setting::Budget,
            };
            return refuse(
                setting,
                text![
                    setting.named(),
                    " predicts from per-budget profiles; drop ",
                    Setting::Envelope.named()
                ],
            );
        }
        if !self.budgets.is_empty() && self.backtest.is_some() {
            return refuse(
                Setting::Backtest,
                text![
                    "give ",
                    Setting::Budget.named(),
                    " (predictions at new budgets) or ",
                    Setting::Backtest.named(),
                    " (held-out budgets), not both"
                ],
            );
        }
        let needs = |what: &str| {
            text![
                format!("{what}: give "),
                Setting::Budget.named(),
                " or ",
                Setting::Backtest.named()
            ]
        };
        if !self.calibrate && !self.forecasting() {
            let message = text![
                Setting::Calibrate.off(),
                needs(" acts on predictions beyond the data")
            ];
            return refuse(Setting::Calibrate, message);
        }
        if self.method.is_some() && !self.forecasting() {
            let message = text![
                Setting::Method.named(),
                needs(" chooses what predicts at new budgets")
            ];
            return refuse(Setting::Method, message);
        }
        Ok(())
    }

    /// A sweep reads each cell's frontier; cells would merge across groups.
    fn check_sweep(&self) -> Result<()> {
        if self.sweep.is_empty() || self.groups.is_empty() {
            return Ok(());
        }
        Err(Error::setting(
            Setting::Sweep,
            text![
                Setting::Sweep.subject(),
                " is not run per group yet; drop it, or analyse each group's rows alone"
            ],
        ))
    }

    /// Runs the analysis on every group of `table` (its target is the loss). An error in a
    /// group names the group.
    pub fn run(&self, table: &Table, target: &str) -> Result<IsoflopResult> {
        self.check()?;
        let (table, sweep) = self.swept(table, target)?;
        let table = table.as_ref();
        let columns = self.columns(table, target)?;
        let grouped = table.group_rows(&self.groups, Setting::Group)?;
        let mut estimate = self.estimate(columns.loss.len())?;
        for rows in grouped.values() {
            estimate = estimate.plus(self.joint_estimate(&columns, rows)?);
        }
        estimate.check(self.max_work)?;
        let mut groups = Vec::new();
        for (key, rows) in grouped {
            let group: BTreeMap<String, String> = self.groups.iter().cloned().zip(key).collect();
            let analysis = self.analyse(&columns, &rows);
            self.interrupt.check()?;
            let analysis = analysis.map_err(|e| match group.is_empty() {
                true => e,
                false => e.within(format!("group {}", describe_group(&group))),
            })?;
            groups.push(GroupAnalysis { group, analysis });
        }
        refuse_if_nothing_found(&groups)?;
        Ok(IsoflopResult {
            compute: self.compute.clone(),
            size: self.size.clone(),
            run: self.run.clone(),
            groups,
            sweep,
        })
    }

    /// With a sweep, the table of each cell's frontier: a cell is one budget and size (and
    /// token count when given). Not yet per group ([`Self::check`]).
    fn swept<'a>(
        &self,
        table: &'a Table,
        target: &str,
    ) -> Result<(std::borrow::Cow<'a, Table>, Option<Frontier>)> {
        let mut cells = vec![self.compute.clone(), self.size.clone()];
        cells.extend(self.tokens.clone());
        table.swept_by(&cells, target, &self.sweep)
    }

    /// The work of the analysis of `rows` runs ([`crate::work`]): the envelope passes over
    /// every run at each budget, once and per replicate, keeping each replicate's frontier;
    /// the profiles fit a parabola per budget, once and per replicate.
    pub fn estimate(&self, rows: usize) -> Result<Estimate> {
        use crate::work::SECONDS_PER_OP;
        // The caps answer before the budget; a count too small for its level is said where
        // the analysis uses it, after what the analysis needs besides.
        let bootstrap = self.replicates();
        if bootstrap > crate::limits::MAX_REPLICATES {
            crate::limits::check_replicates(bootstrap, self.level)?;
        }
        if let Some(EnvelopeMethod::Grid(budgets)) = self.envelope {
            crate::limits::check_grid_budgets(budgets, Setting::Envelope)?;
        }
        let rows = rows as f64;
        let replicates = bootstrap as f64;
        let passes = (1.0 + replicates).max(1.0);
        let (per_pass, points) = match self.envelope {
            Some(EnvelopeMethod::Grid(budgets)) => {
                let budgets = budgets as f64;
                let work = Estimate::of(SECONDS_PER_OP * budgets * rows, 0.0)
                    .described(budgets, "budgets", Some(Setting::Envelope))
                    .described(rows, "runs", None);
                (work, budgets)
            }
            Some(EnvelopeMethod::Hull) => (
                Estimate::of(SECONDS_PER_OP * 50.0 * rows * (rows + 2.0).log2(), 0.0)
                    .described(rows, "runs", None),
                rows,
            ),
            None => (
                Estimate::of(SECONDS_PER_OP * 2_000.0 * rows, 0.0).described(rows, "runs", None),
                rows,
            ),
        };
        let mut estimate = per_pass.holding(48.0 * points * passes);
        if bootstrap > 0 {
            estimate = estimate.repeated(
                passes,
                "passes (once and per bootstrap replicate)",
                Some(Setting::Bootstrap),
            );
        }
        Ok(estimate)
    }

    /// The work of the joint law's fits on one group's runs ([`crate::work`]): each fit the
    /// backtest over the budgets makes, counted from the group's own budgets and windows
    /// ([`joint_fit_rows`]), then the bootstrap's warm refits of the final fit (at most
    /// [`MAX_JOINT_REPLICATES`]). None under `profiles`, an envelope or without predictions.
    fn joint_estimate(&self, columns: &Columns, rows: &[usize]) -> Result<Estimate> {
        let profiles = self.method.unwrap_or_default() == Method::Profiles;
        if !self.forecasting() || self.envelope.is_some() || profiles {
            return Ok(Estimate::of(0.0, 0.0));
        }
        let data = self.data(columns, rows);
        let law = crate::law::catalog::lookup("chinchilla")?;
        let settings = crate::fit::FitSettings::default();
        let shape = |n: usize| crate::fit::shape_of_rows(&law, &settings, n);
        let fits = joint_fit_rows(&data, self.tolerance);
        let refits = self.replicates().min(MAX_JOINT_REPLICATES) as f64;
        let seconds = fits.iter().map(|&n| shape(n).seconds()).sum::<f64>()
            + refits * shape(data.loss.len()).refit_seconds();
        Ok(Estimate::of(seconds, 0.0).described(
            fits.len() as f64 + refits,
            "joint-law fits (the windows' backtest over the budgets, the bootstrap)",
            Some(Setting::Method),
        ))
    }

    fn data(&self, columns: &Columns, rows: &[usize]) -> IsoflopData {
        let pick = |column: &[f64]| rows.iter().map(|&r| column[r]).collect::<Vec<f64>>();
        IsoflopData {
            compute: pick(&columns.compute),
            size: pick(&columns.size),
            loss: pick(&columns.loss),
            tokens: columns.tokens.as_deref().map(pick),
        }
    }

    fn columns(&self, table: &Table, target: &str) -> Result<Columns> {
        let why = "IsoFLOP profiles are fitted on logs";
        let positive = |column: &str, role: Setting| table.positive_values(column, role, why);
        Ok(Columns {
            compute: positive(&self.compute, Setting::Compute)?,
            size: positive(&self.size, Setting::Size)?,
            loss: positive(target, Setting::Target)?,
            tokens: self
                .tokens
                .as_deref()
                .map(|t| positive(t, Setting::Tokens))
                .transpose()?,
            runs: self
                .run
                .as_deref()
                .map(|r| table.labels(r, Setting::Run))
                .transpose()?,
        })
    }

    fn analyse(&self, columns: &Columns, rows: &[usize]) -> Result<Analysis> {
        let data = self.data(columns, rows);
        match (self.envelope, self.backtest) {
            (None, Some(hold_out)) => {
                isoflop_backtest(&data, &self.settings(), hold_out).map(Analysis::Backtest)
            }
            (None, None) => isoflop(&data, &self.settings()).map(Analysis::Profiles),
            (Some(method), _) => {
                let IsoflopData {
                    compute,
                    size,
                    loss,
                    tokens,
                } = data;
                let run = columns
                    .runs
                    .as_ref()
                    .map(|r| rows.iter().map(|&i| r[i].clone()).collect());
                let settings = EnvelopeSettings {
                    method,
                    bootstrap: self.replicates(),
                    seed: self.seed,
                    level: self.level,
                    interrupt: self.interrupt.clone(),
                };
                envelope(
                    &EnvelopeData {
                        compute,
                        size,
                        loss,
                        tokens,
                        run,
                    },
                    &settings,
                )
                .map(Analysis::Envelope)
            }
        }
    }
}

/// IsoFLOP profiles where no budget of any group has a minimum computed nothing: refused
/// (exit 2 in the CLI), naming what each budget needs, rather than an empty table and success.
fn refuse_if_nothing_found(groups: &[GroupAnalysis]) -> Result<()> {
    let profiles: Vec<&Isoflop> = groups
        .iter()
        .filter_map(|g| match &g.analysis {
            Analysis::Profiles(p) => Some(p),
            _ => None,
        })
        .collect();
    if profiles.is_empty() || profiles.len() < groups.len() {
        return Ok(());
    }
    if profiles
        .iter()
        .any(|p| p.budgets.iter().any(|b| b.n.is_some()))
    {
        return Ok(());
    }
    let largest = profiles
        .iter()
        .flat_map(|p| p.budgets.iter().map(|b| b.points))
        .max()
        .unwrap_or(0);
    Err(Error::settings(format!(
        "no budget has a minimum, so there is nothing to report: a budget needs runs at 3 or \
         more sizes around its minimum (the most any budget has is {largest}); add runs"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: serde_json::Value) -> IsoflopSpec {
        let request: IsoflopRequest = serde_json::from_value(json).unwrap();
        IsoflopSpec::try_from(request).unwrap()
    }

    fn base() -> serde_json::Value {
        serde_json::json!({"target": "loss", "compute": "C", "size": "N"})
    }

    /// The request's defaults are the only ones: the bootstrap draws 1,000 replicates when the
    /// analysis predicts and none otherwise, one budget may be a number, one group a text.
    #[test]
    fn a_request_takes_the_librarys_defaults() {
        let plain = spec(base());
        assert_eq!(plain.job.replicates(), 0);
        assert_eq!(plain.job.shape, Shape::Auto);
        assert!((plain.job.tolerance - DEFAULT_TOLERANCE).abs() < 1e-15);
        assert!(plain.job.calibrate && plain.job.method.is_none());
        plain.check().unwrap();
        let mut predicting = base();
        predicting["budget"] = serde_json::json!(1e22);
        predicting["group"] = serde_json::json!("dataset");
        let predicting = spec(predicting);
        assert_eq!(predicting.job.budgets, vec![1e22]);
        assert_eq!(predicting.job.groups, vec!["dataset".to_string()]);
        assert_eq!(predicting.job.replicates(), FORECAST_REPLICATES);
        let mut backtest = base();
        backtest["backtest"] = serde_json::json!(2);
        backtest["bootstrap"] = serde_json::json!(0);
        assert_eq!(spec(backtest).job.replicates(), 0);
    }

    /// Each rule between settings refuses, naming the setting to change.
    #[test]
    fn settings_that_cannot_act_together_are_refused_by_name() {
        let cases = [
            (serde_json::json!({"tolerance": 1.5}), Setting::Tolerance),
            (serde_json::json!({"budget": [1e22, -1.0]}), Setting::Budget),
            (serde_json::json!({"backtest": 0}), Setting::Backtest),
            (serde_json::json!({"level": 1.5}), Setting::Level),
            (
                serde_json::json!({"envelope": "hull", "budget": 1e22}),
                Setting::Budget,
            ),
            (
                serde_json::json!({"envelope": "hull", "backtest": 2}),
                Setting::Backtest,
            ),
            (
                serde_json::json!({"budget": 1e22, "backtest": 2}),
                Setting::Backtest,
            ),
            (serde_json::json!({"calibrate": false}), Setting::Calibrate),
            (serde_json::json!({"method": "joint"}), Setting::Method),
            (
                serde_json::json!({"sweep": "lr", "group": "dataset"}),
                Setting::Sweep,
            ),
        ];
        for (extra, setting) in cases {
            let mut json = base();
            for (key, value) in extra.as_object().unwrap() {
                json[key] = value.clone();
            }
            let error = spec(json.clone()).check().unwrap_err();
            let key = match &error {
                Error::Settings { key, .. } => *key,
                _ => None,
            };
            assert_eq!(key, Some(setting), "{json}: {error}");
        }
        let mut weighted = spec(base());
        weighted.recipe.weights = Some("w".into());
        let error = weighted.check().unwrap_err();
        assert!(
            error.to_string().contains("isoflop does not use"),
            "{error}"
        );
    }

    #[test]
    fn a_bad_envelope_or_shape_names_its_setting() {
        let mut json = base();
        json["envelope"] = serde_json::json!("convex");
        let request: IsoflopRequest = serde_json::from_value(json).unwrap();
        let error = IsoflopSpec::try_from(request).unwrap_err();
        assert!(error.to_string().contains("envelope"), "{error}");
        let error = Shape::parse("spline").unwrap_err();
        assert!(error.to_string().contains("cubic:all"), "{error}");
    }
}
