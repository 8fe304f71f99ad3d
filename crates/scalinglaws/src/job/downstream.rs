//! The downstream job: a long table of evaluations (one row per model, checkpoint and task)
//! turned into [`DownstreamData`], then forecasts at new models or a backtest on held-out
//! ones. Every complaint about a cell names its file, row and column.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::analysis::downstream::{
    backtest, forecast, DownstreamData, DownstreamResult, DownstreamSettings, Evaluation,
    ModelInfo, Target, TaskInfo,
};
use crate::data::recipe::{Table, Trials};
use crate::error::{Error, Result, Setting};

/// A value per row from a column, or one value for every row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ColumnOrValue {
    Value(f64),
    Column(String),
}

/// Which columns hold what, and what to forecast.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DownstreamJob {
    pub model: String,
    pub task: String,
    pub size: String,
    pub tokens: String,
    #[serde(default)]
    pub loss: Option<String>,
    /// The number of questions of each task (a column constant within a task, or one count).
    #[serde(default)]
    pub questions: Option<Trials>,
    /// The chance level of each task (a column constant within a task, or one value; 0 when
    /// not given).
    #[serde(default)]
    pub chance: Option<ColumnOrValue>,
    /// New models to forecast.
    #[serde(default)]
    pub at: Vec<Target>,
    /// Models to hold out and forecast (a backtest).
    #[serde(default)]
    pub holdout: Vec<String>,
    /// Keep the held-out models' checkpoints up to these tokens (forecast across checkpoints).
    #[serde(default)]
    pub own_until: Option<f64>,
    pub settings: DownstreamSettings,
}

impl DownstreamJob {
    /// Forecasts (or backtests) from the table, whose target column is the accuracy.
    pub fn run(&self, table: &Table, target: &str) -> Result<DownstreamResult> {
        let data = self.data(table, target)?;
        match (self.holdout.is_empty(), self.at.is_empty()) {
            (false, true) => backtest(&data, &self.holdout, self.own_until, &self.settings),
            (true, _) if self.own_until.is_some() => Err(Error::setting(
                Setting::OwnUntil,
                "the cut applies to held-out models; name them, or drop the cut",
            )),
            (true, _) => forecast(&data, &self.at, &self.settings),
            (false, false) => Err(Error::setting(
                Setting::At,
                "a backtest forecasts its held-out models; drop the new targets or the hold-out",
            )),
        }
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
