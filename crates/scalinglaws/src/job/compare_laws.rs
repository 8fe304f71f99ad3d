//! [`CompareLawsJob`]: several laws (or one law with some parameters held at published values)
//! fitted to the same data and set side by side (objective, likelihood, AIC/BIC, a backtest's
//! error, likelihood-ratio tests between nested laws: `analysis::law_comparison`). The
//! candidates are built as `select` builds them (`job::candidates`).
//!
//! A front end deserialises the job from the flat request ([`CompareLawsRequest`]).

use serde::Deserialize;

use super::candidates::{self, CandidateRequest, CandidateSpec};
use super::fit::RecipeRequest;
use super::fit::{default_f_scale, default_level, huber, plain_settings, SettingsJob};
use crate::analysis::backtest::Holdout;
use crate::analysis::law_comparison::{compare_laws, Comparison};
use crate::data::recipe::{Recipe, Table};
use crate::error::{Error, Result, Setting};

/// A comparison to run: the columns, the laws, how to fit them, and the backtest's scale
/// column and held-out fraction.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "CompareLawsRequest")]
pub struct CompareLawsJob {
    pub recipe: Recipe,
    pub laws: Vec<CandidateSpec>,
    pub settings: SettingsJob,
    /// The column that orders scale for the backtest of each law (None: no backtest).
    pub by: Option<String>,
    /// The largest fraction of rows by scale held out by the backtest.
    pub holdout_frac: f64,
    /// Level of the intervals of the parameters and the tests.
    pub level: f64,
}

/// The largest fraction of rows by scale each law's backtest holds out, when none is given.
pub const DEFAULT_HOLDOUT_FRAC: f64 = 0.2;

impl CompareLawsJob {
    /// The rules that need no data: two laws at least, and the held-out fraction by the
    /// backtest's one rule (whether or not a scale column asks for the backtest).
    pub fn check(&self) -> Result<()> {
        if self.laws.len() < 2 {
            return Err(Error::setting(
                Setting::Laws,
                crate::text![
                    "compare-laws needs at least two laws: give them by ",
                    Setting::Laws,
                    " or ",
                    Setting::Formulas
                ],
            ));
        }
        Holdout::Fraction(self.holdout_frac).check()
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
        compare_laws(&candidates, scale.as_deref(), self.holdout_frac, self.level)
    }
}

/// A comparison request as JSON: the recipe at the top level, the laws (as `select`'s
/// candidates), the fit settings common to them, `by`, `holdout_frac` and `level`. Nothing
/// in a comparison is drawn at random: it takes no seed.
#[derive(Debug, Clone, Deserialize)]
pub struct CompareLawsRequest {
    #[serde(flatten)]
    pub recipe: RecipeRequest,
    pub laws: Vec<CandidateRequest>,
    #[serde(default = "huber")]
    pub loss: String,
    #[serde(default = "default_f_scale")]
    pub f_scale: f64,
    #[serde(default)]
    pub space: Option<String>,
    #[serde(default)]
    pub threads: Option<usize>,
    #[serde(default)]
    pub by: Option<String>,
    #[serde(default = "default_holdout_frac")]
    pub holdout_frac: f64,
    #[serde(default = "default_level")]
    pub level: f64,
}

fn default_holdout_frac() -> f64 {
    DEFAULT_HOLDOUT_FRAC
}

impl TryFrom<CompareLawsRequest> for CompareLawsJob {
    type Error = Error;

    fn try_from(request: CompareLawsRequest) -> Result<CompareLawsJob> {
        let settings = plain_settings(
            &request.loss,
            request.f_scale,
            request.threads,
            request.space.as_deref(),
        )?;
        Ok(CompareLawsJob {
            recipe: Recipe::try_from(request.recipe)?,
            laws: request
                .laws
                .into_iter()
                .map(CandidateSpec::try_from)
                .collect::<Result<_>>()?,
            settings,
            by: request.by,
            holdout_frac: request.holdout_frac,
            level: request.level,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_deserialises_into_a_job_and_one_law_is_refused() {
        let job: CompareLawsJob = serde_json::from_str(
            r#"{"target": "loss", "laws": [{"law": "chinchilla"},
                {"law": "chinchilla", "label": "held", "fix": {"E": 1.69}}], "by": "C"}"#,
        )
        .unwrap();
        assert_eq!(job.laws[1].label, "held");
        assert_eq!(job.by.as_deref(), Some("C"));
        assert!((job.holdout_frac - 0.2).abs() < 1e-12);
        let one: CompareLawsRequest =
            serde_json::from_str(r#"{"target": "loss", "laws": [{"law": "chinchilla"}]}"#).unwrap();
        let error = CompareLawsJob::try_from(one).unwrap().check().unwrap_err();
        assert!(error.is_input_error() && error.key() == Some(Setting::Laws));
    }
}
