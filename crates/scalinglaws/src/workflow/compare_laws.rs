//! Laws side by side as a workflow: several laws (or one law with some parameters held at
//! published values) fitted to the same data (objective, likelihood, AIC/BIC, a backtest's
//! error, likelihood-ratio tests between nested laws: `analysis::law_comparison`). The
//! candidates are read and built as `select`'s are (`job::candidates`); the request's defaults
//! and rules (two laws at least, the held-out fraction only with a scale column and in range)
//! are here, once: the command line's `compare-laws` and Python's `compare_laws` only build
//! the spec.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Workflow};
use crate::analysis::backtest::Holdout;
use crate::analysis::law_comparison::{compare_laws, Comparison};
use crate::data::recipe::{Recipe, Table};
use crate::document::Document;
use crate::error::{Error, Result, Setting};
use crate::job::candidates::{self, CandidateSpec, CandidatesRequest};
use crate::job::fit::{default_level, LossRequest, SettingsJob, TableRequest, WeightsSweepRequest};
use crate::text;

/// The largest fraction of rows by scale each law's backtest holds out, when none is given.
pub const DEFAULT_HOLDOUT_FRAC: f64 = 0.2;

/// The workflow.
pub struct CompareLawsWorkflow;

/// A comparison as a face sends it: the recipe, the laws, the fit settings common to them,
/// the backtest's scale column and fraction, and the level. Nothing in a comparison is drawn
/// at random: it takes no seed.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct CompareLawsRequest {
    /// `target`, `map`, `derive` and `where`.
    #[serde(flatten)]
    pub table: TableRequest,
    /// `weights` and `sweep`.
    #[serde(flatten)]
    pub weighing: WeightsSweepRequest,
    /// The laws: `laws`, `formulas` and `fix` by label.
    #[serde(flatten)]
    pub candidates: CandidatesRequest,
    /// `loss`, `f_scale`, `space` and `threads`, common to every law.
    #[serde(flatten)]
    pub fitting: LossRequest,
    /// Score each law by a backtest that holds out the largest `holdout_frac` of the rows by
    /// this column.
    #[serde(default)]
    pub by: Option<String>,
    /// The fraction of rows the backtest holds out (None: 0.2); only with `by`.
    #[serde(default)]
    pub holdout_frac: Option<f64>,
    /// Level of the backtest's prediction intervals.
    #[serde(default = "default_level")]
    pub level: f64,
}

/// A comparison to run: the columns, the laws, how to fit them, and the backtest's scale
/// column and held-out fraction.
#[derive(Debug, Clone)]
pub struct CompareLawsJob {
    pub recipe: Recipe,
    pub laws: Vec<CandidateSpec>,
    pub settings: SettingsJob,
    /// The column that orders scale for the backtest of each law (None: no backtest).
    pub by: Option<String>,
    /// The largest fraction of rows by scale held out by the backtest (None:
    /// [`DEFAULT_HOLDOUT_FRAC`]); only with `by`.
    pub holdout_frac: Option<f64>,
    /// Level of the intervals of the backtest.
    pub level: f64,
}

impl TryFrom<CompareLawsRequest> for CompareLawsJob {
    type Error = Error;

    fn try_from(request: CompareLawsRequest) -> Result<CompareLawsJob> {
        // A request fits every law under a loss: no family, so no trials or exposure (the
        // command line's family options fill them in the spec it builds).
        let recipe = request.weighing.recipe(request.table);
        let settings = request.fitting.settings()?;
        Ok(CompareLawsJob {
            recipe: Recipe::try_from(recipe)?,
            laws: request.candidates.specs()?,
            settings,
            by: request.by.map(|b| b.trim().to_string()),
            holdout_frac: request.holdout_frac,
            level: request.level,
        })
    }
}

impl CompareLawsJob {
    /// The rules that need no data: two laws at least, the level in range, and a held-out
    /// fraction only with a scale column to hold out by, in range by the backtest's one rule.
    pub fn check(&self) -> Result<()> {
        if self.laws.len() < 2 {
            return Err(Error::setting(
                Setting::Laws,
                text![
                    "compare-laws needs at least two laws: give them by ",
                    Setting::Laws,
                    " or ",
                    Setting::Formulas
                ],
            ));
        }
        candidates::check_labels(&self.laws)?;
        crate::uncertainty::check_level(self.level)?;
        match (self.holdout_frac, &self.by) {
            (Some(fraction), None) => Err(Error::setting(
                Setting::HoldoutFrac,
                text![
                    Setting::HoldoutFrac.number(fraction),
                    " sets the backtest's held-out rows, and there is no backtest: give ",
                    Setting::By,
                    " (the column that orders scale), or drop ",
                    Setting::HoldoutFrac
                ],
            )),
            _ => Holdout::Fraction(self.fraction()).check(),
        }
    }

    /// The held-out fraction: as given, else [`DEFAULT_HOLDOUT_FRAC`].
    pub fn fraction(&self) -> f64 {
        self.holdout_frac.unwrap_or(DEFAULT_HOLDOUT_FRAC)
    }

    /// The comparison on `table` (prepared with this job's recipe), once [`Self::check`] holds.
    pub fn run(&self, table: &Table) -> Result<Comparison> {
        self.check()?;
        // Every step on the pool of `threads` workers, not only the fits' searches.
        crate::fit::with_threads(self.settings.settings.threads, || self.run_on_pool(table))?
    }

    fn run_on_pool(&self, table: &Table) -> Result<Comparison> {
        let (candidates, table) =
            candidates::build(table, &self.recipe, &self.laws, &self.settings)?;
        let scale = self
            .by
            .as_deref()
            .map(|by| table.values(by, Setting::By))
            .transpose()?;
        // Each law is fitted on all rows and on the training rows of its holdout, and under
        // Huber refitted at most MAX_ALTERNATIONS times to maximise its likelihood over the
        // scale (an upper estimate: the alternations stop when the likelihood stops rising).
        if let Some(first) = candidates.first() {
            let huber = first.settings.loss == crate::fit::LossKind::Huber;
            let alternations = crate::analysis::law_comparison::MAX_ALTERNATIONS as f64;
            let fits = 2.0 + if huber { alternations } else { 0.0 };
            candidates::estimate(&candidates, fits, "fits of each law")?
                .check(first.settings.max_work)?;
        }
        compare_laws(&candidates, scale.as_deref(), self.fraction(), self.level)
    }
}

/// A comparison of laws (what `compare_laws` returns): the scale column of the backtests and
/// the intervals' level, with every law's scores and the tests between nested laws.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[schemars(rename = "LawComparison")]
pub struct CompareLawsResult {
    /// The column the backtests ordered the runs by (None: no backtest).
    pub by: Option<String>,
    /// Level of the backtests' prediction intervals.
    pub level: f64,
    #[serde(flatten)]
    pub comparison: Comparison,
}

impl Document for CompareLawsResult {
    const KIND: &'static str = "compare_laws";
}

impl Workflow for CompareLawsWorkflow {
    const NAME: &'static str = "compare_laws";
    const SUMMARY: &'static str =
        "Fits several laws to the same rows and sets them side by side, with likelihood-ratio tests between nested laws";
    type Request = CompareLawsRequest;
    type Spec = CompareLawsJob;
    type Output = CompareLawsResult;
    type Input = Table;

    fn spec(request: CompareLawsRequest) -> Result<CompareLawsJob> {
        CompareLawsJob::try_from(request)
    }

    fn check(spec: &CompareLawsJob) -> Result<()> {
        spec.check()
    }

    fn recipe(spec: &CompareLawsJob) -> Option<&Recipe> {
        Some(&spec.recipe)
    }

    fn run(spec: &CompareLawsJob, table: &Table, ctx: &Ctx) -> Result<CompareLawsResult> {
        let mut job = spec.clone();
        ctx.apply(&mut job.settings.settings);
        Ok(CompareLawsResult {
            by: job.by.clone(),
            level: job.level,
            comparison: job.run(table)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(json: &str) -> CompareLawsJob {
        let request: CompareLawsRequest = serde_json::from_str(json).unwrap();
        CompareLawsJob::try_from(request).unwrap()
    }

    #[test]
    fn a_request_deserialises_into_a_job_and_one_law_is_refused() {
        let job = job(
            r#"{"target": "loss", "laws": {"refit": "chinchilla", "held": "chinchilla"},
                "fix": {"held": {"E": 1.69}}, "by": "C"}"#,
        );
        assert_eq!(job.laws[1].label, "held");
        assert_eq!(job.by.as_deref(), Some("C"));
        assert!((job.fraction() - DEFAULT_HOLDOUT_FRAC).abs() < 1e-12);
        job.check().unwrap();
        let one = self::job(r#"{"target": "loss", "laws": ["chinchilla"]}"#);
        let error = one.check().unwrap_err();
        assert!(error.is_input_error() && error.key() == Some(Setting::Laws));
    }

    /// A held-out fraction acts only on the backtest a scale column asks for; given without
    /// one it was once accepted and unused.
    #[test]
    fn a_fraction_without_a_scale_column_or_out_of_range_is_refused() {
        let alone = job(
            r#"{"target": "loss", "laws": ["chinchilla", "overtraining"],
                "holdout_frac": 0.3}"#,
        );
        let error = alone.check().unwrap_err();
        assert_eq!(error.key(), Some(Setting::HoldoutFrac));
        assert!(error.to_string().contains("no backtest"), "{error}");
        let wide = job(
            r#"{"target": "loss", "laws": ["chinchilla", "overtraining"],
                "by": "C", "holdout_frac": 1.5}"#,
        );
        assert_eq!(wide.check().unwrap_err().key(), Some(Setting::HoldoutFrac));
    }
}
