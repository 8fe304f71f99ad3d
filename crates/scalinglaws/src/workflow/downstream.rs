//! Task accuracy at a larger model from the evaluations of smaller models (and a model's own
//! early checkpoints), in long format (one row per model, checkpoint and task): each task
//! diagnosed, then forecast by the logistic law, the two-stage chain and the pooled trajectory
//! model with intervals calibrated by replays inside the data (`analysis::downstream`), at
//! new models or on held-out ones (a backtest). Every setting's default and every rule between
//! them is here or in [`DownstreamSettings`], once: the command line's `downstream` and
//! Python's `downstream` only build this spec. Every complaint about a cell names its file,
//! row and column.

use std::collections::HashMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Workflow};
use crate::analysis::downstream::{
    backtest, forecast, DownstreamData, DownstreamResult, DownstreamSettings, Evaluation,
    ModelInfo, Target, TaskInfo,
};
use crate::data::recipe::{Recipe, Table, Trials};
use crate::document::Document;
use crate::error::{short_number, Error, Result, Setting};
use crate::fit::result::DataSummary;
use crate::job::fit::{one_or_many, OneOrMany, TableRequest};
use crate::text;

/// The workflow.
pub struct Downstream;

/// A value per row from a column, or one value for every row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ColumnOrValue {
    Value(f64),
    Column(String),
}

/// Which columns hold what, and what to forecast.
#[derive(Debug, Clone, PartialEq)]
pub struct DownstreamJob {
    pub model: String,
    pub task: String,
    pub size: String,
    pub tokens: String,
    pub loss: Option<String>,
    /// The number of questions of each task (a column constant within a task, or one count).
    pub questions: Option<Trials>,
    /// The chance level of each task (a column constant within a task, or one value; 0 when
    /// not given).
    pub chance: Option<ColumnOrValue>,
    /// New models to forecast.
    pub at: Vec<Target>,
    /// Models to hold out and forecast (a backtest).
    pub holdout: Vec<String>,
    /// Keep the held-out models' checkpoints up to these tokens (forecast across checkpoints).
    pub own_until: Option<f64>,
    pub settings: DownstreamSettings,
}

impl DownstreamJob {
    /// The column and model names without surrounding spaces (as every face reads them).
    pub fn trimmed(self) -> DownstreamJob {
        let trim = |text: String| text.trim().to_string();
        DownstreamJob {
            model: trim(self.model),
            task: trim(self.task),
            size: trim(self.size),
            tokens: trim(self.tokens),
            loss: self.loss.map(trim),
            questions: match self.questions {
                Some(Trials::Column(c)) => Some(Trials::Column(trim(c))),
                other => other,
            },
            chance: match self.chance {
                Some(ColumnOrValue::Column(c)) => Some(ColumnOrValue::Column(trim(c))),
                other => other,
            },
            holdout: self.holdout.into_iter().map(trim).collect(),
            ..self
        }
    }

    /// Forecasts (or backtests) from the table, whose target column is the accuracy.
    pub fn run(&self, table: &Table, target: &str) -> Result<DownstreamResult> {
        self.check()?;
        let data = self.data(table, target)?;
        match self.holdout.is_empty() {
            false => backtest(&data, &self.holdout, self.own_until, &self.settings),
            true => forecast(&data, &self.at, &self.settings),
        }
    }

    /// Targets or held-out models (not both), the cut only with held-out models, every value
    /// in range.
    pub fn check(&self) -> Result<()> {
        match (self.at.is_empty(), self.holdout.is_empty()) {
            (true, true) => {
                return Err(Error::setting(
                    Setting::At,
                    text![
                        "downstream needs targets: ",
                        Setting::At,
                        " (the N and D of a new model), or ",
                        Setting::Holdout,
                        " (models of the data to forecast, a backtest)"
                    ],
                ))
            }
            (false, false) => {
                return Err(Error::setting(
                    Setting::At,
                    text![
                        "a backtest forecasts its held-out models; drop ",
                        Setting::At,
                        " (new models) or ",
                        Setting::Holdout,
                        " (a backtest)"
                    ],
                ))
            }
            _ => {}
        }
        self.check_values()?;
        self.settings.check()
    }

    fn check_values(&self) -> Result<()> {
        if let Some(cut) = self.own_until {
            if self.holdout.is_empty() {
                return Err(Error::setting(
                    Setting::OwnUntil,
                    "the cut applies to held-out models; name them, or drop the cut",
                ));
            }
            if !(cut.is_finite() && cut > 0.0) {
                return Err(Error::setting(
                    Setting::OwnUntil,
                    text![
                        Setting::OwnUntil.number(short_number(cut)),
                        ": give a positive token count, e.g. 2.7e10"
                    ],
                ));
            }
        }
        if let Some(Trials::Count(n)) = self.questions {
            if !(n.is_finite() && n >= 1.0) {
                return Err(Error::setting(
                    Setting::Trials,
                    text![
                        Setting::Trials.number(short_number(n)),
                        ": a task has at least one question"
                    ],
                ));
            }
        }
        if let Some(ColumnOrValue::Value(x)) = self.chance {
            if !(0.0..1.0).contains(&x) {
                return Err(Error::setting(
                    Setting::Chance,
                    text![
                        Setting::Chance.number(short_number(x)),
                        ": a chance level lies in [0, 1), e.g. 0.25"
                    ],
                ));
            }
        }
        Ok(())
    }

    /// The evaluations of the table, checked cell by cell.
    pub fn data(&self, table: &Table, target: &str) -> Result<DownstreamData> {
        let models = table.labels(&self.model, Setting::Model.named())?;
        let tasks = table.labels(&self.task, Setting::Task.named())?;
        let why = "compute 6·N·D and the laws take logs";
        let size = table.positive_values(&self.size, Setting::Size.named(), why)?;
        let tokens = table.positive_values(&self.tokens, Setting::Tokens.named(), why)?;
        let accuracy = table.values(target, Setting::Target.named())?;
        let loss = self
            .loss
            .as_ref()
            .map(|l| table.values(l, Setting::Loss.named()))
            .transpose()?;
        let questions = match &self.questions {
            None => None,
            Some(Trials::Count(n)) => Some(vec![*n; accuracy.len()]),
            Some(Trials::Column(c)) => Some(table.positive_values(
                c,
                Setting::Trials.named(),
                "a task has at least one question",
            )?),
        };
        let chance = match &self.chance {
            None => vec![0.0; accuracy.len()],
            Some(ColumnOrValue::Value(v)) => vec![*v; accuracy.len()],
            Some(ColumnOrValue::Column(c)) => table.values(c, Setting::Chance.named())?,
        };
        let columns = Columns {
            table,
            target,
            models,
            tasks,
            size,
            tokens,
            accuracy,
            loss,
            questions,
            chance,
        };
        columns.assemble(self)
    }
}

/// A model to forecast as it is written: `N`, `D` and, for a model of the data forecast from
/// its own checkpoints, its `model` name.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetRequest {
    /// Its parameters.
    #[serde(rename = "N")]
    pub n: f64,
    /// Its tokens.
    #[serde(rename = "D")]
    pub d: f64,
    /// Its name (None: `N=… D=…`).
    #[serde(default)]
    pub model: Option<String>,
}

impl TryFrom<TargetRequest> for Target {
    type Error = Error;

    /// The target, its N and D positive, named by them when it has no name.
    fn try_from(request: TargetRequest) -> Result<Target> {
        let (params, tokens) = (request.n, request.d);
        for (name, value) in [("N", params), ("D", tokens)] {
            if !(value.is_finite() && value > 0.0) {
                return Err(Error::setting(
                    Setting::At,
                    text![
                        Setting::At,
                        format!(
                            ": the target's {name} = {} is not a positive number",
                            short_number(value)
                        )
                    ],
                ));
            }
        }
        Ok(Target {
            model: request
                .model
                .map(|m| m.trim().to_string())
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| format!("N={params:e} D={tokens:e}")),
            params,
            tokens,
        })
    }
}

/// A value of a target as written: N and D numbers, the model a name (the schema of `at`).
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum TargetValue {
    Number(f64),
    Name(String),
}

/// The analysis as it is written (the request Python sends).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct DownstreamRequest {
    /// The accuracy (`target`, a proportion), and `map`, `derive`, `where`.
    #[serde(flatten)]
    pub table: TableRequest,
    /// The column naming each evaluation's model (a run whose checkpoints are evaluated).
    #[serde(default = "model_column")]
    pub model: String,
    /// The column naming each evaluation's task.
    #[serde(default = "task_column")]
    pub task: String,
    /// The column of model size N.
    #[serde(default = "size_column")]
    pub size: String,
    /// The column of training tokens D at the checkpoint.
    #[serde(default = "tokens_column")]
    pub tokens: String,
    /// The column of each checkpoint's loss (the two-stage chain needs it).
    #[serde(default)]
    pub loss: Option<String>,
    /// Each task's number of questions: a column (constant within a task) or one count. Gives
    /// binomial errors and the binomial likelihood of the logistic fits.
    #[serde(default)]
    pub trials: Option<Trials>,
    /// Each task's chance level: a column (constant within a task) or one value (None: 0).
    #[serde(default)]
    pub chance: Option<ColumnOrValue>,
    /// Models to forecast: each a mapping of N and D (and `model`, the name of a model of the
    /// data to forecast from its own checkpoints), e.g. {"N": 6.9e9, "D": 3e11}.
    #[serde(default)]
    #[schemars(with = "Vec<std::collections::BTreeMap<String, TargetValue>>")]
    pub at: Vec<TargetRequest>,
    /// A backtest: hold out these models and forecast them from the rest.
    #[serde(default, deserialize_with = "one_or_many")]
    #[schemars(with = "OneOrMany")]
    pub holdout: Vec<String>,
    /// With `holdout`: keep the held-out models' checkpoints up to this many tokens and
    /// forecast their later ones.
    #[serde(default)]
    pub own_until: Option<f64>,
    #[serde(flatten)]
    pub settings: DownstreamSettings,
}

/// The columns read when none is named (every face's defaults).
pub const MODEL_COLUMN: &str = "model";
pub const TASK_COLUMN: &str = "task";
pub const SIZE_COLUMN: &str = "N";
pub const TOKENS_COLUMN: &str = "D";

fn model_column() -> String {
    MODEL_COLUMN.into()
}

fn task_column() -> String {
    TASK_COLUMN.into()
}

fn size_column() -> String {
    SIZE_COLUMN.into()
}

fn tokens_column() -> String {
    TOKENS_COLUMN.into()
}

/// The spec: the recipe parsed, the targets named (the rest is checked by `check`).
#[derive(Debug, Clone)]
pub struct DownstreamSpec {
    pub recipe: Recipe,
    pub job: DownstreamJob,
}

impl TryFrom<DownstreamRequest> for DownstreamSpec {
    type Error = Error;

    fn try_from(request: DownstreamRequest) -> Result<DownstreamSpec> {
        let job = DownstreamJob {
            model: request.model,
            task: request.task,
            size: request.size,
            tokens: request.tokens,
            loss: request.loss,
            questions: request.trials,
            chance: request.chance,
            at: request
                .at
                .into_iter()
                .map(Target::try_from)
                .collect::<Result<_>>()?,
            holdout: request.holdout,
            own_until: request.own_until,
            settings: request.settings,
        };
        Ok(DownstreamSpec {
            recipe: Recipe::try_from(request.table)?,
            job: job.trimmed(),
        })
    }
}

/// Every task's forecasts (or a backtest's), with where the evaluations came from.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct DownstreamAnalysis {
    /// Where the evaluations came from, and what the filters removed.
    pub data: DataSummary,
    #[serde(flatten)]
    pub result: DownstreamResult,
}

impl Document for DownstreamAnalysis {
    const KIND: &'static str = "downstream";
}

impl Workflow for Downstream {
    const NAME: &'static str = "downstream";
    const SUMMARY: &'static str =
        "Task accuracy at larger models from the evaluations of smaller ones (and a model's own early checkpoints)";
    type Request = DownstreamRequest;
    type Spec = DownstreamSpec;
    type Output = DownstreamAnalysis;
    type Input = Table;

    fn spec(request: DownstreamRequest) -> Result<DownstreamSpec> {
        DownstreamSpec::try_from(request)
    }

    /// The recipe's weights, trials, exposure and sweep refused (each evaluation's weight is
    /// its binomial error, from `trials` of its own), then the job's rules.
    fn check(spec: &DownstreamSpec) -> Result<()> {
        let why = text![
            "each evaluation's weight is its binomial error (",
            Setting::Trials,
            ")"
        ];
        super::refuse_unused_recipe(&spec.recipe, "downstream", why)?;
        spec.job.check()
    }

    fn recipe(spec: &DownstreamSpec) -> Option<&Recipe> {
        Some(&spec.recipe)
    }

    fn run(spec: &DownstreamSpec, table: &Table, ctx: &Ctx) -> Result<DownstreamAnalysis> {
        let mut job = spec.job.clone();
        job.settings.interrupt = ctx.interrupt.clone();
        let result = job.run(table, &spec.recipe.target)?;
        Ok(DownstreamAnalysis {
            data: table.summary(&spec.recipe),
            result,
        })
    }
}

struct Columns<'a> {
    table: &'a Table,
    target: &'a str,
    models: Vec<String>,
    tasks: Vec<String>,
    size: Vec<f64>,
    tokens: Vec<f64>,
    accuracy: Vec<f64>,
    loss: Option<Vec<f64>>,
    questions: Option<Vec<f64>>,
    chance: Vec<f64>,
}

impl Columns<'_> {
    fn assemble(self, job: &DownstreamJob) -> Result<DownstreamData> {
        let mut data = DownstreamData::default();
        let mut model_ids: HashMap<&str, usize> = HashMap::new();
        let mut task_ids: HashMap<&str, usize> = HashMap::new();
        for row in 0..self.accuracy.len() {
            let model = *model_ids
                .entry(self.models[row].as_str())
                .or_insert_with(|| {
                    data.models.push(ModelInfo {
                        name: self.models[row].clone(),
                        params: self.size[row],
                    });
                    data.models.len() - 1
                });
            self.same(
                row,
                &job.size,
                data.models[model].params,
                self.size[row],
                "a model has one parameter count",
            )?;
            let task = *task_ids.entry(self.tasks[row].as_str()).or_insert_with(|| {
                data.tasks.push(TaskInfo {
                    name: self.tasks[row].clone(),
                    chance: self.chance[row],
                    questions: self.questions.as_ref().map(|q| q[row]),
                });
                data.tasks.len() - 1
            });
            let info = &data.tasks[task];
            if let Some(ColumnOrValue::Column(c)) = &job.chance {
                self.same(
                    row,
                    c,
                    info.chance,
                    self.chance[row],
                    "a task has one chance level",
                )?;
            }
            if let (Some(Trials::Column(c)), Some(q)) = (&job.questions, &self.questions) {
                self.same(
                    row,
                    c,
                    info.questions.unwrap_or(q[row]),
                    q[row],
                    "a task has one number of questions",
                )?;
            }
            self.check_accuracy(row)?;
            data.evaluations.push(Evaluation {
                model,
                task,
                tokens: self.tokens[row],
                accuracy: self.accuracy[row],
                loss: self.loss.as_ref().map(|l| l[row]),
            });
        }
        if data.evaluations.is_empty() {
            return Err(Error::setting(
                Setting::Where,
                "no evaluation is left to analyse; loosen the filters",
            ));
        }
        data.validate()?;
        Ok(data)
    }

    fn same(&self, row: usize, column: &str, first: f64, value: f64, rule: &str) -> Result<()> {
        if (first - value).abs() <= 1e-9 * first.abs().max(value.abs()) {
            return Ok(());
        }
        Err(Error::Data {
            location: self
                .table
                .dataset
                .location(row, Some(self.table.resolve(column).unwrap_or(column))),
            message: format!("{value} differs from the {first} an earlier row gave ({rule})")
                .into(),
            fix: "give every row of one model or task the same value".into(),
        })
    }

    fn check_accuracy(&self, row: usize) -> Result<()> {
        let a = self.accuracy[row];
        if (0.0..=1.0).contains(&a) {
            return Ok(());
        }
        Err(Error::Data {
            location: self.table.dataset.location(
                row,
                Some(self.table.resolve(self.target).unwrap_or(self.target)),
            ),
            message: format!("the accuracy {a} is outside [0, 1]").into(),
            fix: "give accuracies as proportions (a percentage divided by 100)".into(),
        })
    }
}
