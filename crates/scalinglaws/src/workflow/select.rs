//! Which law, and how sure? Law selection as a workflow: the candidates built against the data
//! (`job::candidates`, as `compare_laws` builds them), scored by rolling-origin backtests over
//! scale, the winner and the stacking weights (`analysis::selection`), predictions at new
//! points whose intervals hold the spread between laws, and with `check` the whole procedure
//! checked by nested rolling origins. The request's defaults and every rule between its
//! settings are here, once: the command line's `select` and Python's `select` only build the
//! spec.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Ctx, Workflow};
use crate::analysis::selection::{
    check_options, check_points, evaluate, points_by_name, select, value_at, Evaluation,
    SelectedPrediction, Selection, SelectionOptions,
};
use crate::data::recipe::{Recipe, Table};
use crate::document::Document;
use crate::error::{Error, Result, Setting};
use crate::job::candidates::{self, CandidateSpec, CandidatesRequest};
use crate::job::fit::{
    default_level, named_numbers, yes, LossRequest, OneOrManyNumbers, SettingsJob, TableRequest,
    WeightsSweepRequest,
};
use crate::text;

/// The workflow.
pub struct SelectWorkflow;

/// A selection as a face sends it: the recipe, the candidate laws, the fit settings common to
/// them, and the selection's own settings. Nothing in a selection is drawn at random: it takes
/// no seed.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct SelectRequest {
    /// `target`, `map`, `derive` and `where`.
    #[serde(flatten)]
    pub table: TableRequest,
    /// `weights` and `sweep`.
    #[serde(flatten)]
    pub weighing: WeightsSweepRequest,
    /// The candidate laws: `laws`, `formulas` and `fix` by label.
    #[serde(flatten)]
    pub candidates: CandidatesRequest,
    /// `loss`, `f_scale`, `space` and `threads`, common to every law.
    #[serde(flatten)]
    pub fitting: LossRequest,
    /// The column that orders scale (None: a column `C`, else 6·N·D, else the first law's
    /// first variable).
    #[serde(default)]
    pub by: Option<String>,
    /// Most rolling origins (between 2 and 50).
    #[serde(default = "default_origins")]
    pub origins: usize,
    /// Level of the prediction intervals.
    #[serde(default = "default_level")]
    pub level: f64,
    /// Calibrate each law's prediction intervals beyond the data by its rolling-origin
    /// backtests (false: each law's own).
    #[serde(default = "yes")]
    pub calibrate: bool,
    /// Predict at these points: values by variable name, in order, each one value (for every
    /// point) or one per point (`{"N": [7e10, 1e12], "D": 1.4e12}`).
    #[serde(default, deserialize_with = "named_numbers")]
    #[schemars(with = "Option<std::collections::BTreeMap<String, OneOrManyNumbers>>")]
    pub at: Vec<(String, Vec<f64>)>,
    /// Check the selection by nested rolling origins (each outer split selects on its own
    /// training runs and scores the winner, the average and every law on the runs beyond).
    #[serde(default)]
    pub check: bool,
}

fn default_origins() -> usize {
    SelectionOptions::default().origins
}

/// A selection to run: the columns, the candidate laws, how to fit them, the scale column,
/// the rolling origins, the points to predict at and whether to check the procedure.
#[derive(Debug, Clone)]
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

impl TryFrom<SelectRequest> for SelectJob {
    type Error = Error;

    fn try_from(request: SelectRequest) -> Result<SelectJob> {
        // A request fits every law under a loss: no family, so no trials or exposure.
        let recipe = request.weighing.recipe(request.table);
        let settings = request.fitting.settings()?;
        Ok(SelectJob {
            recipe: Recipe::try_from(recipe)?,
            candidates: request.candidates.specs()?,
            settings,
            by: request.by.map(|b| b.trim().to_string()),
            origins: request.origins,
            level: request.level,
            calibrate: request.calibrate,
            at: request.at,
            check: request.check,
        })
    }
}

impl SelectJob {
    /// The rules that need no data: a candidate law at least, each once by label; the level
    /// and the origins in range; the points of `at` (each variable once, with positive values,
    /// lists of one length).
    pub fn check(&self) -> Result<()> {
        if self.candidates.is_empty() {
            return Err(Error::setting(
                Setting::Laws,
                text![
                    "select needs candidate laws: give them by ",
                    Setting::Laws,
                    " or ",
                    Setting::Formulas
                ],
            ));
        }
        candidates::check_labels(&self.candidates)?;
        check_options(&self.options())?;
        check_points(&self.at)
    }

    /// The analysis' options: the level, the origins, the calibration.
    pub fn options(&self) -> SelectionOptions {
        SelectionOptions {
            level: self.level,
            origins: self.origins,
            calibrate: self.calibrate,
        }
    }

    /// The selection on `table` (prepared with this job's recipe), once [`Self::check`] holds.
    pub fn run(&self, table: &Table) -> Result<SelectResult> {
        self.check()?;
        // Every step on the pool of `threads` workers, not only the fits' searches.
        crate::fit::with_threads(self.settings.settings.threads, || self.run_on_pool(table))?
    }

    fn run_on_pool(&self, table: &Table) -> Result<SelectResult> {
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
                    inputs: self.point(i),
                    prediction,
                })
                .collect(),
        };
        let check = match self.check {
            true => Some(evaluate(&candidates, &by, &scale, &options)?),
            false => None,
        };
        Ok(SelectResult {
            selection,
            predictions,
            check,
        })
    }

    /// The `i`-th point of `at`, as (variable, value) pairs.
    fn point(&self, i: usize) -> Vec<(String, f64)> {
        self.at
            .iter()
            .map(|(name, values)| (name.clone(), value_at(values, i)))
            .collect()
    }
}

/// What `select` gives: the selection, the predictions at the asked points and the check.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "SelectionResult")]
pub struct SelectResult {
    /// Every candidate's score, BIC and stacking weight, and the winner.
    pub selection: Selection,
    /// The stacked, the winner's and every law's prediction at each point of `at`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub predictions: Vec<PointOut>,
    /// The procedure scored by nested rolling origins (with `check`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<Evaluation>,
}

/// The winner's and the stacked prediction at a point of `at`, with every candidate's.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(rename = "SelectedPrediction")]
pub struct PointOut {
    /// The point, as (variable, value) pairs in the order of `at`.
    pub inputs: Vec<(String, f64)>,
    #[serde(flatten)]
    pub prediction: SelectedPrediction,
}

impl Document for SelectResult {
    const KIND: &'static str = "select";
}

impl Workflow for SelectWorkflow {
    const NAME: &'static str = "select";
    const SUMMARY: &'static str =
        "Scores candidate laws by rolling-origin backtests over scale, names the winner, stacks them and predicts at new points with intervals that hold the spread between laws";
    type Request = SelectRequest;
    type Spec = SelectJob;
    type Output = SelectResult;
    type Input = Table;

    fn spec(request: SelectRequest) -> Result<SelectJob> {
        SelectJob::try_from(request)
    }

    fn check(spec: &SelectJob) -> Result<()> {
        spec.check()
    }

    fn recipe(spec: &SelectJob) -> Option<&Recipe> {
        Some(&spec.recipe)
    }

    fn run(spec: &SelectJob, table: &Table, ctx: &Ctx) -> Result<SelectResult> {
        let mut job = spec.clone();
        ctx.apply(&mut job.settings.settings);
        job.run(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::LawChoice;

    fn job(json: &str) -> SelectJob {
        let request: SelectRequest = serde_json::from_str(json).unwrap();
        SelectJob::try_from(request).unwrap()
    }

    #[test]
    fn a_request_deserialises_into_a_job() {
        let job = job(
            r#"{"target": "loss", "map": {}, "derive": {}, "where": [], "weights": null,
                "laws": ["chinchilla"], "formulas": ["E + A*N^-a"],
                "fix": {"chinchilla": {"E": 1.69}}, "loss": "linear", "f_scale": 0.001,
                "space": "log", "threads": null, "by": "C", "origins": 4, "level": 0.9,
                "calibrate": false, "at": {"N": [1e9, 1e10], "D": 2e10}, "check": true}"#,
        );
        assert_eq!(job.candidates.len(), 2);
        assert_eq!(
            job.candidates[0].law,
            LawChoice::Catalog("chinchilla".into())
        );
        assert_eq!(job.candidates[0].fixed.len(), 1);
        assert_eq!(job.settings.space, Some(crate::fit::Space::Log));
        assert_eq!(job.options().origins, 4);
        assert!(!job.options().calibrate && job.check);
        assert_eq!(job.at[0], ("N".to_string(), vec![1e9, 1e10]));
        assert_eq!(job.at[1], ("D".to_string(), vec![2e10]));
        assert_eq!(
            job.point(1),
            [("N".to_string(), 1e10), ("D".to_string(), 2e10)]
        );
        job.check().unwrap();
    }

    #[test]
    fn the_rules_without_data_are_checked_before_any_read() {
        let none = job(r#"{"target": "loss", "laws": []}"#);
        let error = none.check().unwrap_err();
        assert!(error.is_input_error() && error.key() == Some(Setting::Laws));
        assert!(error.to_string().contains("candidate laws"), "{error}");
        let one = job(r#"{"target": "loss", "laws": "chinchilla", "origins": 1}"#);
        assert_eq!(one.check().unwrap_err().key(), Some(Setting::Origins));
        let wide = job(r#"{"target": "loss", "laws": "chinchilla", "level": 1.5}"#);
        assert_eq!(wide.check().unwrap_err().key(), Some(Setting::Level));
        let uneven =
            job(r#"{"target": "loss", "laws": "chinchilla", "at": {"N": [1, 2], "D": [1, 2, 3]}}"#);
        let error = uneven.check().unwrap_err();
        assert!(error.to_string().contains("same length"), "{error}");
        let negative = job(r#"{"target": "loss", "laws": "chinchilla", "at": {"N": -1}}"#);
        assert_eq!(negative.check().unwrap_err().key(), Some(Setting::At));
        let twice =
            job(r#"{"target": "loss", "laws": "chinchilla", "at": [["N", 1e9], ["N", 2e9]]}"#);
        let error = twice.check().unwrap_err();
        assert_eq!(error.key(), Some(Setting::At));
        assert!(error.to_string().contains("'N' is given twice"), "{error}");
    }
}
