//! A loss-curve law of the learning-rate schedule fitted to training logs and scored on every
//! run (`analysis::schedule::fit_curves_until`; the laws: multi-power, Luo et al. 2025,
//! arXiv:2503.12811; lr_annealing, Tissue et al. 2024; power_area; fsl, after Li et al.
//! 2025). Every default and rule of its settings is here, once: the command line's `schedule
//! fit` and Python's `schedule_fit` only build this spec. Its document is the FIT.json the
//! other schedule workflows read.

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Ctx, Input, Workflow};
use crate::analysis::schedule::{
    cost, curves_from_logs, fit_curves_until, held_parameters, CurveLaw, RunLog, ScheduleFit,
};
use crate::data::recipe::{Recipe, Table};
use crate::error::{Error, Result, Setting};
use crate::job::fit::{one_or_many, parse_filters, OneOrMany};
use crate::text;

/// The workflow.
pub struct ScheduleFitWorkflow;

/// Files of training logs (or one table held in memory), each with the name its rows take as
/// one run when the spec names no run column: a file's name without its extension (None for
/// data held in memory, which must name the column).
pub struct LogTables(pub Vec<LogTable>);

/// One file of logs.
pub struct LogTable {
    pub table: Table,
    /// The run its rows make without a run column (a file's stem).
    pub name: Option<String>,
}

impl LogTable {
    /// The logs read from the file at `path`: its rows make the run named by the file's name
    /// without its extension when the spec names no run column.
    pub fn from_file(table: Table, path: &std::path::Path) -> LogTable {
        let name = path
            .file_stem()
            .map_or("run".into(), |s| s.to_string_lossy().to_string());
        LogTable {
            table,
            name: Some(name),
        }
    }
}

impl Input for LogTables {
    const KIND: &'static str = "log_tables";
}

/// The columns read when none are named: the step, the learning rate and the loss.
pub const STEP_COLUMN: &str = "step";
pub const LR_COLUMN: &str = "lr";
pub const LOSS_COLUMN: &str = "loss";

/// The curve law fitted when none is named.
pub const DEFAULT_LAW: CurveLaw = CurveLaw::MultiPower;

fn step() -> String {
    STEP_COLUMN.into()
}

fn lr() -> String {
    LR_COLUMN.into()
}

fn loss() -> String {
    LOSS_COLUMN.into()
}

fn multi_power() -> CurveLaw {
    DEFAULT_LAW
}

/// The logs' columns, the law, the runs to fit on and the parameters held.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct ScheduleFitRequest {
    /// The column naming each row's run (None: each file of logs is one run, named by the
    /// file's name without its extension; data held in memory must name the column).
    #[serde(default)]
    pub run: Option<String>,
    /// The column of the optimizer step.
    #[serde(default = "step")]
    pub step: String,
    /// The column of the learning rate at that step (interpolated linearly between logged
    /// steps).
    #[serde(default = "lr")]
    pub lr: String,
    /// The column of the loss.
    #[serde(default = "loss")]
    pub target: String,
    /// The curve law.
    #[serde(default = "multi_power")]
    pub law: CurveLaw,
    /// The runs to fit on, one or several (none: every run); the others are scored only.
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(with = "OneOrMany")]
    pub train: Vec<String>,
    /// Linear warmup rebuilt before the first logged step: steps 0 to warmup−1 rise from 0 to
    /// the first logged learning rate (0: every step before the first logged one takes it).
    #[serde(default)]
    pub warmup: usize,
    /// Parameters held at values: {name: value}.
    #[serde(default)]
    pub fix: BTreeMap<String, f64>,
    /// Row filters (`step >= 100`), one or several; rows failing any are left out.
    #[serde(default, rename = "where", deserialize_with = "one_or_many")]
    #[schemars(with = "OneOrMany")]
    pub filters: Vec<String>,
}

/// The request parsed: the columns, the law and the recipe the logs are read with.
#[derive(Debug, Clone)]
pub struct ScheduleFitSpec {
    /// The column naming each row's run (None: each file is one run).
    pub run: Option<String>,
    pub step: String,
    pub lr: String,
    pub law: CurveLaw,
    pub train: Vec<String>,
    pub warmup: usize,
    pub fix: Vec<(String, f64)>,
    /// The target (the loss) and the filters.
    pub recipe: Recipe,
}

impl ScheduleFitSpec {
    /// One log per distinct value of the run column in each table, in order of first
    /// appearance (without a run column, each table is one run named by its file); every row
    /// keeps its location (the file or DataFrame and its 1-based row) for the library's
    /// messages.
    pub fn logs(&self, tables: &LogTables) -> Result<Vec<RunLog>> {
        let mut logs = Vec::new();
        for log_table in &tables.0 {
            logs.extend(self.table_logs(log_table)?);
        }
        Ok(logs)
    }

    fn table_logs(&self, log_table: &LogTable) -> Result<Vec<RunLog>> {
        let table = &log_table.table;
        let steps = table.values(&self.step, Setting::Step)?;
        let lrs = table.values(&self.lr, Setting::Lr)?;
        let loss = table.values(&self.recipe.target, Setting::Target)?;
        let labels = match (&self.run, &log_table.name) {
            (Some(column), _) => table.labels(column, Setting::Run)?,
            (None, Some(name)) => vec![name.clone(); steps.len()],
            (None, None) => return Err(unnamed_run(table)),
        };
        if steps.is_empty() {
            return Err(Error::settings(format!(
                "{}: no rows to fit",
                table.dataset.source()
            )));
        }
        let mut logs: Vec<RunLog> = Vec::new();
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (row, run) in labels.iter().enumerate() {
            let slot = *index.entry(run.as_str()).or_insert_with(|| {
                logs.push(RunLog {
                    run: run.clone(),
                    steps: Vec::new(),
                    lrs: Vec::new(),
                    loss: Vec::new(),
                    locations: Vec::new(),
                });
                logs.len() - 1
            });
            let log = &mut logs[slot];
            log.steps.push(steps[row]);
            log.lrs.push(lrs[row]);
            log.loss.push(loss[row]);
            log.locations.push(table.dataset.location(row, None));
        }
        Ok(logs)
    }
}

/// Data held in memory without a run column name no run.
fn unnamed_run(table: &Table) -> Error {
    Error::setting(
        Setting::Run,
        text![
            format!(
                "{} is not a file whose name could name its one run: give ",
                table.dataset.source()
            ),
            Setting::Run.text("run"),
            ", the column naming each row's run"
        ],
    )
}

impl Workflow for ScheduleFitWorkflow {
    const NAME: &'static str = "schedule_fit";
    const SUMMARY: &'static str =
        "A loss-curve law of the learning-rate schedule fitted to training logs (one row per logged step: the run, the step, the learning rate and the loss), each run's schedule rebuilt by linear interpolation, and scored (R², final error, RMSE) on every run";
    type Request = ScheduleFitRequest;
    type Spec = ScheduleFitSpec;
    type Output = ScheduleFit;
    type Input = LogTables;

    fn spec(request: ScheduleFitRequest) -> Result<ScheduleFitSpec> {
        let filters = parse_filters(&request.filters)?;
        Ok(ScheduleFitSpec {
            run: request.run,
            step: request.step,
            lr: request.lr,
            law: request.law,
            train: request.train,
            warmup: request.warmup,
            fix: request.fix.into_iter().collect(),
            recipe: Recipe {
                target: request.target,
                filters,
                ..Recipe::default()
            },
        })
    }

    /// Each held parameter is one of the law's, before the logs are read.
    fn check(spec: &ScheduleFitSpec) -> Result<()> {
        held_parameters(spec.law, &spec.fix).map(|_| ())
    }

    fn recipe(spec: &ScheduleFitSpec) -> Option<&Recipe> {
        Some(&spec.recipe)
    }

    /// Refused before the fit when its estimate ([`cost::fit`]) is over the budget.
    fn run(spec: &ScheduleFitSpec, tables: &LogTables, ctx: &Ctx) -> Result<ScheduleFit> {
        let logs = spec.logs(tables)?;
        let curves = curves_from_logs(&logs, spec.warmup)?;
        cost::fit(&curves, &spec.train).check(ctx.work_budget())?;
        let mut fit = fit_curves_until(spec.law, &curves, &spec.train, &spec.fix, &ctx.interrupt)?;
        fit.data = tables
            .0
            .iter()
            .map(|t| t.table.dataset.source().to_string())
            .collect();
        Ok(fit)
    }
}
