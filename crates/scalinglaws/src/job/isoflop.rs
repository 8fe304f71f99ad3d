//! The IsoFLOP job: the runs split into groups, and per group the per-budget profiles
//! (approach 2), their backtest on held-out budgets, or the envelope of checkpoints (approach
//! 1). The command line and Python build this job and write its result.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::envelope::{
    envelope, Envelope, EnvelopeData, EnvelopeMethod, EnvelopeSettings,
};
use crate::analysis::isoflop::{
    isoflop, isoflop_backtest, joint_fit_rows, Isoflop, IsoflopBacktest, IsoflopData,
    IsoflopSettings, Method, Shape, MAX_JOINT_REPLICATES,
};
use crate::data::recipe::Table;
use crate::data::sweep::Frontier;
use crate::error::{Error, Result, Setting};
use crate::interrupt::Interrupt;
use crate::work::Estimate;

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
    #[serde(default)]
    pub bootstrap: usize,
    #[serde(default)]
    pub seed: u64,
    pub level: f64,
    /// New budgets at which to predict N*, D* and the loss.
    #[serde(default)]
    pub budgets: Vec<f64>,
    /// What predicts there (and in a backtest): the per-budget minima (`profiles`, the
    /// default), the joint law (`joint`), or (`auto`) whichever a backtest over the budgets
    /// prefers.
    #[serde(default)]
    pub method: Method,
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
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "approach", rename_all = "snake_case")]
pub enum Analysis {
    Profiles(Isoflop),
    Backtest(IsoflopBacktest),
    Envelope(Envelope),
}

/// One group's analysis, with the values that define the group.
#[derive(Debug, Clone, Serialize)]
pub struct GroupAnalysis {
    pub group: BTreeMap<String, String>,
    #[serde(flatten)]
    pub analysis: Analysis,
}

/// Every group's analysis: `{"groups": [...]}`, as the command line writes it as JSON.
#[derive(Debug, Clone, Serialize)]
pub struct IsoflopResult {
    pub groups: Vec<GroupAnalysis>,
    /// The frontier of a sweep, when swept columns were named.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sweep: Option<Frontier>,
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
            bootstrap: self.bootstrap,
            seed: self.seed,
            level: self.level,
            predict_at: self.budgets.clone(),
            method: self.method,
            calibrate: self.calibrate,
            interrupt: self.interrupt.clone(),
        }
    }

    /// Runs the analysis on every group of `table` (its target is the loss). An error in a
    /// group names the group.
    pub fn run(&self, table: &Table, target: &str) -> Result<IsoflopResult> {
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
        Ok(IsoflopResult { groups, sweep })
    }

    /// With a sweep, the table of each cell's frontier: a cell is one budget and size (and
    /// token count when given). Not yet per group: cells would merge across groups.
    fn swept<'a>(
        &self,
        table: &'a Table,
        target: &str,
    ) -> Result<(std::borrow::Cow<'a, Table>, Option<Frontier>)> {
        if !self.sweep.is_empty() && !self.groups.is_empty() {
            return Err(Error::setting(
                Setting::Sweep,
                crate::text![
                    Setting::Sweep.subject(),
                    " is not run per group yet; drop it, or analyse each group's rows alone"
                ],
            ));
        }
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
        if self.bootstrap > crate::limits::MAX_REPLICATES {
            crate::limits::check_replicates(self.bootstrap, self.level)?;
        }
        if let Some(EnvelopeMethod::Grid(budgets)) = self.envelope {
            crate::limits::check_grid_budgets(budgets, Setting::Envelope)?;
        }
        let rows = rows as f64;
        let replicates = self.bootstrap as f64;
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
        if self.bootstrap > 0 {
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
        let forecasting = !self.budgets.is_empty() || self.backtest.is_some();
        if !forecasting || self.envelope.is_some() || self.method == Method::Profiles {
            return Ok(Estimate::of(0.0, 0.0));
        }
        let data = self.data(columns, rows);
        let law = crate::law::catalog::lookup("chinchilla")?;
        let settings = crate::fit::FitSettings::default();
        let shape = |n: usize| crate::fit::shape_of_rows(&law, &settings, n);
        let fits = joint_fit_rows(&data, self.tolerance);
        let refits = self.bootstrap.min(MAX_JOINT_REPLICATES) as f64;
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
                    bootstrap: self.bootstrap,
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

/// `k=v, k2=v2`.
pub fn describe_group(group: &BTreeMap<String, String>) -> String {
    group
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}
