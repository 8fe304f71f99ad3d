//! Which runs would a careful user set aside before fitting? The `qc` workflow reads the runs
//! and flags, row by row with its rule, value and threshold, diverged or broken losses,
//! repeated rows, checkpoints at initialisation or inside a warm-up the caller gives, runs out
//! of line with their neighbours at one scale, runs far above the curve the other runs of
//! their budget trace along a setting, and, when a law is given, runs far from the law fitted
//! to the others. The rules and their thresholds are `crate::data::qc`'s (median/MAD modified
//! z-scores, Iglewicz & Hoaglin 1993; a 10 % jump above the neighbours' bound); the fit's QC
//! stage (`FitJob`'s `qc`) uses the same. Nothing is removed: the document lists every flag.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Workflow};
use crate::data::qc::{QcReport, QcSettings, DEFAULT_CUTOFF, DEFAULT_DUPLICATE_TOLERANCE};
use crate::data::recipe::{Recipe, Table};
use crate::document::Document;
use crate::error::{Error, Result, Setting};
use crate::fit::{FitSettings, Space};
use crate::job::fit::RecipeRequest;
use crate::job::qc::{check_table, QcColumns, QcLaw};
use crate::job::LawChoice;
use crate::text;

/// The workflow.
pub struct Qc;

/// What to check, as it is written (the request Python sends and the command line builds).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct QcRequest {
    /// The loss (`target`), and `map`, `derive`, `where` as `fit` takes them.
    #[serde(flatten)]
    pub recipe: RecipeRequest,
    /// A built-in law to fit to the runs the data rules leave, for the law rule (None: no
    /// law rule).
    #[serde(default)]
    pub law: Option<String>,
    /// A law as a formula, instead of `law`.
    #[serde(default)]
    pub formula: Option<String>,
    /// Columns whose equal values place runs at one scale (e.g. N and D): the neighbours of
    /// the neighbour rule, and (with the loss) the columns compared for duplicates (none: the
    /// law's variables when a law is given).
    #[serde(default)]
    pub scale: Vec<String>,
    /// The column of the compute budget, with any columns that tell configurations apart:
    /// the runs equal on all of them are the cells of the frontier rule, which follows each
    /// numeric scale (or step) column that varies within a cell (a swept setting, a profile's
    /// size).
    #[serde(default)]
    pub budget: Vec<String>,
    /// The column of steps (or tokens seen): checkpoints at 0, and before `warmup`.
    #[serde(default)]
    pub step: Option<String>,
    /// The warm-up length, in the step column's units (None: that rule does not run; none is
    /// assumed).
    #[serde(default)]
    pub warmup: Option<f64>,
    /// The cutoff of the law rule on modified z-scores (Iglewicz & Hoaglin's 3.5), and of the
    /// neighbour rule as the deletion t as rare as |z| > cutoff.
    #[serde(default = "default_cutoff")]
    pub cutoff: f64,
    /// The relative tolerance within which rows are near-duplicates.
    #[serde(default = "default_tolerance")]
    pub duplicate_tolerance: f64,
    /// Compare losses as they are instead of in log space (losses that can be zero or
    /// negative).
    #[serde(default)]
    pub linear: bool,
}

fn default_cutoff() -> f64 {
    DEFAULT_CUTOFF
}

fn default_tolerance() -> f64 {
    DEFAULT_DUPLICATE_TOLERANCE
}

/// The spec: the recipe parsed, the law chosen (the thresholds are checked by `check`).
#[derive(Debug, Clone)]
pub struct QcSpec {
    pub recipe: Recipe,
    pub law: Option<LawChoice>,
    pub scale: Vec<String>,
    pub budget: Vec<String>,
    pub step: Option<String>,
    pub settings: QcSettings,
    pub log: bool,
}

impl TryFrom<QcRequest> for QcSpec {
    type Error = Error;

    fn try_from(request: QcRequest) -> Result<QcSpec> {
        let law = match (&request.law, &request.formula) {
            (None, None) => None,
            _ => Some(LawChoice::from_request(request.law, request.formula)?),
        };
        let trim = |names: Vec<String>| names.into_iter().map(|n| n.trim().to_string()).collect();
        Ok(QcSpec {
            recipe: Recipe::try_from(request.recipe)?,
            law,
            scale: trim(request.scale),
            budget: trim(request.budget),
            step: request.step.map(|s| s.trim().to_string()),
            settings: QcSettings {
                cutoff: request.cutoff,
                duplicate_tolerance: request.duplicate_tolerance,
                warmup: request.warmup,
            },
            log: !request.linear,
        })
    }
}

impl QcSpec {
    /// The thresholds in range, and a warm-up length only with a step column.
    fn check(&self) -> Result<()> {
        if !self.recipe.sweep.is_empty() {
            return Err(Error::setting(
                Setting::Sweep,
                text![
                    Setting::Sweep.subject(),
                    ": qc judges every run, not a sweep's frontier; drop it here (a fit with \
                     it fits the frontier of the runs its QC stage kept)"
                ],
            ));
        }
        let settings = &self.settings;
        positive(
            Setting::Cutoff,
            settings.cutoff,
            "a cutoff above 0 (3.5 is the usual)",
        )?;
        let tolerance = settings.duplicate_tolerance;
        if !(tolerance.is_finite() && (0.0..1.0).contains(&tolerance)) {
            return Err(Error::setting(
                Setting::DuplicateTolerance,
                text![
                    Setting::DuplicateTolerance.number(tolerance),
                    ": give a relative tolerance in [0, 1) (0: exact duplicates only)"
                ],
            ));
        }
        if let Some(warmup) = settings.warmup {
            positive(Setting::Warmup, warmup, "a warm-up length above 0 steps")?;
            if self.step.is_none() {
                return Err(Error::setting(
                    Setting::Warmup,
                    text![
                        Setting::Warmup.subject(),
                        " is measured in steps: give the step column with ",
                        Setting::Step.text("COLUMN")
                    ],
                ));
            }
        }
        Ok(())
    }
}

fn positive(setting: Setting, value: f64, what: &str) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        return Ok(());
    }
    Err(Error::setting(
        setting,
        text![setting.number(value), format!(": give {what}")],
    ))
}

/// Every rule's outcome and every flag of the runs.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct QcResult {
    /// Where the runs came from.
    pub data: String,
    /// The loss column.
    pub target: String,
    /// The law fitted for the law rule, as reports name it.
    pub law: Option<String>,
    /// The scale columns (with the loss, the columns compared for duplicates).
    pub scale: Vec<String>,
    pub budget: Vec<String>,
    pub step: Option<String>,
    pub warmup: Option<f64>,
    /// Whether losses were compared in log space.
    pub log: bool,
    #[serde(flatten)]
    pub report: QcReport,
}

impl Document for QcResult {
    const KIND: &'static str = "qc";
}

impl Workflow for Qc {
    const NAME: &'static str = "qc";
    const SUMMARY: &'static str =
        "Flag the runs to set aside before a fit: broken or diverged losses, repeated rows, early checkpoints, outliers";
    type Request = QcRequest;
    type Spec = QcSpec;

    fn spec(request: QcRequest) -> Result<QcSpec> {
        QcSpec::try_from(request)
    }
    type Output = QcResult;
    type Input = Table;

    fn check(spec: &QcSpec) -> Result<()> {
        spec.check()
    }

    fn recipe(spec: &QcSpec) -> Option<&Recipe> {
        Some(&spec.recipe)
    }

    fn run(spec: &QcSpec, table: &Table, ctx: &Ctx) -> Result<QcResult> {
        ctx.interrupt.check()?;
        let law = spec.law.as_ref().map(|l| l.build(table)).transpose()?;
        let scale = match (&law, spec.scale.is_empty()) {
            (Some(law), true) => law.variables.clone(),
            _ => spec.scale.clone(),
        };
        let columns = QcColumns {
            target: spec.recipe.target.clone(),
            keys: duplicate_keys(table, &scale, &spec.budget, spec.step.as_deref()),
            scale: scale.clone(),
            budget: spec.budget.clone(),
            step: spec.step.clone(),
            log: spec.log,
        };
        let mut fit_settings = FitSettings {
            space: if spec.log { Space::Log } else { Space::Linear },
            ..FitSettings::default()
        };
        ctx.apply(&mut fit_settings);
        let with = law.as_ref().map(|law| QcLaw {
            law,
            settings: &fit_settings,
            recipe: &spec.recipe,
        });
        let report = check_table(table, &columns, &spec.settings, with.as_ref(), None)?;
        Ok(QcResult {
            data: table.dataset.source().to_string(),
            target: spec.recipe.target.clone(),
            law: law.as_ref().map(|l| l.label().to_string()),
            scale,
            budget: spec.budget.clone(),
            step: spec.step.clone(),
            warmup: spec.settings.warmup,
            log: spec.log,
            report,
        })
    }
}

/// The columns compared (with the loss) for duplicates: the scale, budget and step columns,
/// each once; when none is given, every column of the table (a row repeated whole).
fn duplicate_keys(
    table: &Table,
    scale: &[String],
    budget: &[String],
    step: Option<&str>,
) -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for name in scale.iter().chain(budget).map(String::as_str).chain(step) {
        if !keys.iter().any(|k| k == name) {
            keys.push(name.to_string());
        }
    }
    if keys.is_empty() {
        keys = table.dataset.column_names().to_vec();
    }
    keys
}
