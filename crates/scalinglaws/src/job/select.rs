//! [`SelectJob`]: which law, and how sure? The selection workflow, written once for every
//! front end: the candidates built against the data (`job::candidates`), scored by
//! rolling-origin backtests over scale, the winner and the stacking weights
//! (`analysis::selection`), predictions at new points, and with `check` the whole procedure
//! checked by nested rolling origins. [`SelectOutcome`] is the document the command line writes as JSON
//! writes and Python reads, empty parts left out.
//!
//! Python deserialises the job from the flat request it sends ([`SelectRequest`]).

use serde::{Deserialize, Serialize};

use super::candidates::{self, CandidateSpec, CandidatesRequest};
use super::fit::RecipeRequest;
use super::fit::{default_level, yes, LossRequest, SettingsJob};
use crate::analysis::selection::{
    evaluate, points_by_name, select, value_at, Evaluation, SelectedPrediction, Selection,
    SelectionOptions,
};
use crate::data::recipe::{Recipe, Table};
use crate::error::{Error, Result, Setting};

/// A selection to run: the columns, the candidate laws, how to fit them, the scale column,
/// the rolling origins, the points to predict at and whether to check the procedure.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "SelectRequest")]
pub struct SelectJob {
    pub recipe: Recipe,
    pub candidates: Vec<CandidateSpec>,
    pub settings: SettingsJob,
    /// The column that orders scale [default: `C`, else 6·N·D, else the first variable].
    pub by: Option<String>,
    /// Most rolling origins.
    pub origins: usize,
    pub level: f64,
    /// Calibrate each candidate's intervals beyond the data.
    pub calibrate: bool,
    /// The points to predict at: values by variable name (one value, or one per point).
    pub at: Vec<(String, Vec<f64>)>,
    /// Check the procedure by nested rolling origins.
    pub check: bool,
}

/// What `select` gives: the selection, the predictions at the asked points and the check.
#[derive(Debug, Clone, Serialize)]
pub struct SelectOutcome {
    pub selection: Selection,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub predictions: Vec<PointOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<Evaluation>,
}

/// A prediction of the selection at one point, with the point's values by variable name.
#[derive(Debug, Clone, Serialize)]
pub struct PointOut {
    pub inputs: Vec<(String, f64)>,
    #[serde(flatten)]
    pub prediction: SelectedPrediction,
}

impl SelectJob {
    /// The selection on `table` (prepared with this job's recipe).
    pub fn run(&self, table: &Table) -> Result<SelectOutcome> {
        self.check()?;
        // Every step on the pool of `threads` workers, not only the fits' searches.
        crate::fit::with_threads(self.settings.settings.threads, || self.run_on_pool(table))?
    }

    fn run_on_pool(&self, table: &Table) -> Result<SelectOutcome> {
        let (candidates, table) =
            candidates::build(table, &self.recipe, &self.candidates, &self.settings)?;
        let Some(first) = candidates.first() else {
            return Err(Error::fit("no candidate law was built"));
        };
        let (by, scale) = table.scale(&first.law, &first.data, self.by.as_deref(), Setting::By)?;
        // Each candidate is fitted on all rows and at every origin (at most one per scale
        // group); the check repeats the selection at every outer origin.
        let (_, groups) = crate::uncertainty::calibration::scale_groups(&scale);
        let origins = self.origins.min(groups) as f64;
        let nested = if self.check { 1.0 + origins } else { 1.0 };
        candidates::estimate(
            &candidates,
            (1.0 + origins) * nested,
            "fits at rolling origins",
        )?
        .check(first.settings.max_work)?;
        let options = self.options();
        // Points are checked before any fit, so that a typo costs nothing.
        let points = match self.at.is_empty() {
            true => Vec::new(),
            false => points_by_name(&candidates, &self.at)?,
        };
        let selection = select(&candidates, &by, &scale, &options)?;
        let predictions = match self.at.is_empty() {
            true => Vec::new(),
            false => selection
                .predict(&points)?
                .into_iter()
                .enumerate()
                .map(|(i, prediction)| PointOut {
                    inputs: self
                        .at
                        .iter()
                        .map(|(n, c)| (n.clone(), value_at(c, i)))
                        .collect(),
                    prediction,
                })
                .collect(),
        };
        let check = match self.check {
            true => Some(evaluate(&candidates, &by, &scale, &options)?),
            false => None,
        };
        Ok(SelectOutcome {
            selection,
            predictions,
            check,
        })
    }

    /// The rules that need no data: a candidate law at least, each once by label.
    pub fn check(&self) -> Result<()> {
        candidates::check_labels(&self.candidates)?;
        if self.candidates.is_empty() {
            return Err(Error::setting(
                Setting::Laws,
                crate::text![
                    "select needs candidate laws: give them by ",
                    Setting::Laws,
                    " or ",
                    Setting::Formulas
                ],
            ));
        }
        Ok(())
    }

    /// The analysis' options: the level, the origins, the calibration.
    pub fn options(&self) -> SelectionOptions {
        SelectionOptions {
            level: self.level,
            origins: self.origins,
            calibrate: self.calibrate,
        }
    }
}

/// A selection request as JSON: the recipe at the top level, the candidates, the fit
/// settings common to them, and the selection's own settings (the shape `scalinglaws.select`
/// sends). Nothing in a selection is drawn at random: it takes no seed.
#[derive(Debug, Clone, Deserialize)]
pub struct SelectRequest {
    #[serde(flatten)]
    pub recipe: RecipeRequest,
    /// The candidate laws: `laws`, `formulas` and `fix` by label.
    #[serde(flatten)]
    pub candidates: CandidatesRequest,
    /// `loss`, `f_scale`, `space` and `threads`.
    #[serde(flatten)]
    pub fitting: LossRequest,
    #[serde(default)]
    pub by: Option<String>,
    #[serde(default = "default_origins")]
    pub origins: usize,
    #[serde(default = "default_level")]
    pub level: f64,
    #[serde(default = "yes")]
    pub calibrate: bool,
    #[serde(default)]
    pub at: Vec<(String, Vec<f64>)>,
    #[serde(default)]
    pub check: bool,
}

fn default_origins() -> usize {
    SelectionOptions::default().origins
}

impl TryFrom<SelectRequest> for SelectJob {
    type Error = Error;

    fn try_from(request: SelectRequest) -> Result<SelectJob> {
        let settings = request.fitting.settings()?;
        Ok(SelectJob {
            recipe: Recipe::try_from(request.recipe)?,
            candidates: request.candidates.specs()?,
            settings,
            by: request.by,
            origins: request.origins,
            level: request.level,
            calibrate: request.calibrate,
            at: request.at,
            check: request.check,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::LawChoice;

    #[test]
    fn a_python_request_deserialises_into_a_job() {
        let job: SelectJob = serde_json::from_str(
            r#"{"target": "loss", "map": [], "derive": [], "where": [], "weights": null,
                "laws": ["chinchilla"], "formulas": ["E + A*N^-a"],
                "fix": {"chinchilla": {"E": 1.69}}, "loss": "linear", "f_scale": 0.001,
                "space": "log", "threads": null, "by": "C", "origins": 4, "level": 0.9,
                "calibrate": false, "at": [["N", [1e9, 1e10]]], "check": true}"#,
        )
        .unwrap();
        assert_eq!(job.candidates.len(), 2);
        assert_eq!(
            job.candidates[0].law,
            LawChoice::Catalog("chinchilla".into())
        );
        assert_eq!(job.candidates[0].fixed.len(), 1);
        assert_eq!(job.settings.space, Some(crate::fit::Space::Log));
        assert_eq!(job.options().origins, 4);
        assert!(!job.options().calibrate && job.check);
        assert_eq!(job.at[0].1.len(), 2);
    }

    #[test]
    fn a_request_without_candidates_is_a_settings_error() {
        let request: SelectRequest =
            serde_json::from_str(r#"{"target": "loss", "laws": []}"#).unwrap();
        let error = SelectJob::try_from(request).unwrap().check().unwrap_err();
        assert!(error.is_input_error() && error.key() == Some(Setting::Laws));
        assert!(error.to_string().contains("candidate laws"), "{error}");
    }
}
