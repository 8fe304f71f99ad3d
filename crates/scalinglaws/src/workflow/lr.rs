//! The learning rate (and batch size) to use at a scale too expensive to sweep, from LR sweeps
//! on smaller runs: each (N, D) cell's optimum with its interval and flags, the law over cells
//! (loglinear, Step Law 2025, or curved) by the joint fit or over the cells' optima, the
//! curvature test, the batch-size law, predictions, and the backtest of extrapolating in D
//! against N. The computation is `analysis::lr`; every setting, its default and its range are
//! its [`LrSettings`], and the rules of the columns are here, once: the command line's `lr`
//! and Python's `lr` only build this spec.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Workflow};
use crate::analysis::lr::{lr_analysis, LrAnalysis, LrData, LrSettings};
use crate::data::recipe::{Recipe, Table};
use crate::document::Document;
use crate::error::{Error, Result, Setting};
use crate::fit::result::DataSummary;
use crate::job::fit::TableRequest;
use crate::text;

/// The workflow.
pub struct Lr;

/// Which columns hold a sweep's runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LrColumns {
    /// The column of each run's (peak) learning rate.
    pub lr: String,
    /// The column of model size N.
    pub size: String,
    /// The column of training tokens D.
    pub tokens: String,
    /// The column of batch size: cells become (N, D, B), and B* = c·D^b is fitted too. Give
    /// it whenever the batch size is swept: the result's `swept` lists other numeric columns
    /// that vary within the cells as a swept knob would (pooled into one profile per cell),
    /// each with a warning naming the setting that handles it.
    #[serde(default)]
    pub batch: Option<String>,
}

impl LrColumns {
    /// The names without surrounding spaces (as every face reads a column's name).
    pub fn trimmed(self) -> LrColumns {
        LrColumns {
            lr: self.lr.trim().to_string(),
            size: self.size.trim().to_string(),
            tokens: self.tokens.trim().to_string(),
            batch: self.batch.map(|b| b.trim().to_string()),
        }
    }
}

/// The analysis as it is written (the request Python sends).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct LrRequest {
    /// The loss (`target`), and `map`, `derive`, `where`.
    #[serde(flatten)]
    pub table: TableRequest,
    #[serde(flatten)]
    pub columns: LrColumns,
    #[serde(flatten)]
    pub settings: LrSettings,
}

/// The spec: the recipe parsed, the columns trimmed (the settings are checked by `check`).
#[derive(Debug, Clone)]
pub struct LrSpec {
    pub recipe: Recipe,
    pub columns: LrColumns,
    pub settings: LrSettings,
}

impl TryFrom<LrRequest> for LrSpec {
    type Error = Error;

    fn try_from(request: LrRequest) -> Result<LrSpec> {
        Ok(LrSpec {
            recipe: Recipe::try_from(request.table)?,
            columns: request.columns.trimmed(),
            settings: request.settings,
        })
    }
}

impl LrSpec {
    /// The settings in range; a recipe with weights, trials, exposure or a sweep refused (each
    /// run counts once in its cell's profile, and the LR is the sweep).
    fn check(&self) -> Result<()> {
        let why = text!["each run counts once in its cell's profile; drop it"];
        super::refuse_unused_recipe(&self.recipe, "lr", why)?;
        self.settings.check()
    }
}

/// How each column of the sweep was read (a `map`ped or `derive`d column by its source).
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct LrColumnsRead {
    /// Model size N.
    #[serde(rename = "N")]
    pub n: String,
    /// Training tokens D.
    #[serde(rename = "D")]
    pub d: String,
    /// The learning rate.
    pub lr: String,
    /// The loss.
    pub loss: String,
    /// The batch size, when given.
    #[serde(rename = "B", skip_serializing_if = "Option::is_none")]
    pub b: Option<String>,
}

/// The learning-rate analysis (what `lr` returns): where the runs came from, per-cell optima,
/// the law of the optimal LR, the curvature test, predictions and the extrapolation backtest.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "LrAnalysis")]
pub struct LrResult {
    /// Where the runs came from, and what the filters removed.
    pub data: DataSummary,
    /// How the size, tokens, learning-rate, loss (and batch) columns were read.
    pub columns: LrColumnsRead,
    #[serde(flatten)]
    pub analysis: LrAnalysis,
}

impl Document for LrResult {
    const KIND: &'static str = "lr";
}

impl Workflow for Lr {
    const NAME: &'static str = "lr";
    const SUMMARY: &'static str =
        "The learning rate (and batch size) to use at a target scale, from LR sweeps on smaller runs";
    type Request = LrRequest;
    type Spec = LrSpec;
    type Output = LrResult;
    type Input = Table;

    fn spec(request: LrRequest) -> Result<LrSpec> {
        LrSpec::try_from(request)
    }

    fn check(spec: &LrSpec) -> Result<()> {
        spec.check()
    }

    fn recipe(spec: &LrSpec) -> Option<&Recipe> {
        Some(&spec.recipe)
    }

    fn run(spec: &LrSpec, table: &Table, ctx: &Ctx) -> Result<LrResult> {
        ctx.interrupt.check()?;
        let analysis = lr_analysis(&sweep(spec, table)?, &spec.settings)?;
        let columns = &spec.columns;
        Ok(LrResult {
            data: table.summary(&spec.recipe),
            columns: LrColumnsRead {
                n: table.describe(&columns.size),
                d: table.describe(&columns.tokens),
                lr: table.describe(&columns.lr),
                loss: table.describe(&spec.recipe.target),
                b: columns.batch.as_deref().map(|b| table.describe(b)),
            },
            analysis,
        })
    }
}

/// The sweep's runs read from the table, every column the laws take the log of positive.
fn sweep(spec: &LrSpec, table: &Table) -> Result<LrData> {
    let why = "the LR laws take its log";
    let positive = |column: &str, role: Setting| table.positive_values(column, role, why);
    let columns = &spec.columns;
    let target = spec.recipe.target.as_str();
    let data = LrData {
        size: positive(&columns.size, Setting::Size)?,
        tokens: positive(&columns.tokens, Setting::Tokens)?,
        lr: positive(&columns.lr, Setting::Lr)?,
        loss: table.values(target, Setting::Target)?,
        batch: columns
            .batch
            .as_deref()
            .map(|b| positive(b, Setting::Batch))
            .transpose()?,
        ..LrData::default()
    };
    let mut used = vec![columns.lr.as_str(), &columns.size, &columns.tokens, target];
    used.extend(columns.batch.as_deref());
    Ok(data.with_others(table, &used))
}
