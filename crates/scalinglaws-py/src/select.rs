//! Law selection: candidates scored by rolling-origin backtests, stacked, and checked.

use std::collections::BTreeMap;

use pyo3::prelude::*;
use serde::Deserialize;

use scalinglaws::analysis::law_comparison::Candidate;
use scalinglaws::analysis::selection::{
    evaluate as evaluate_selection, points_by_name, select as run_select, value_at,
    SelectionOptions,
};
use scalinglaws::data::recipe::{Recipe, Table};
use scalinglaws::{Error, Interrupt};

use crate::data::{table, Data, RecipeRequest};
use crate::errors::{interruptible, json_error, json_out, py, request};
use crate::fit::FitOptions;

/// A candidate of `select`: a catalog law or a formula, with parameters held at values.
#[derive(Deserialize)]
struct SelectCandidate {
    label: Option<String>,
    law: Option<String>,
    formula: Option<String>,
    #[serde(default)]
    fix: BTreeMap<String, f64>,
}

#[derive(Deserialize)]
struct SelectRequest {
    #[serde(flatten)]
    recipe: RecipeRequest,
    candidates: Vec<SelectCandidate>,
    loss: String,
    f_scale: f64,
    space: Option<String>,
    seed: u64,
    threads: Option<usize>,
    by: Option<String>,
    origins: usize,
    level: f64,
    calibrate: bool,
    #[serde(default)]
    at: Vec<(String, Vec<f64>)>,
    check: bool,
    /// The call's cancellation token, handed to every candidate's fits.
    #[serde(skip)]
    interrupt: Interrupt,
}

impl SelectRequest {
    fn candidates(&self, table: &Table, recipe: &Recipe) -> Result<Vec<Candidate>, Error> {
        if self.candidates.is_empty() {
            return Err(Error::settings(
                "give candidate laws: laws=[\"chinchilla\", ...] or formulas=[...]",
            ));
        }
        self.candidates
            .iter()
            .map(|c| {
                let options = FitOptions {
                    law: c.law.clone(),
                    formula: c.formula.clone(),
                    loss: self.loss.clone(),
                    f_scale: self.f_scale,
                    space: self.space.clone(),
                    fix: c.fix.clone(),
                    bounds: BTreeMap::new(),
                    grid: BTreeMap::new(),
                    seed: self.seed,
                    threads: self.threads,
                    interrupt: self.interrupt.clone(),
                };
                let law = options.law(table)?;
                let settings = options.settings()?;
                let data = table.fit_data(&law, recipe, settings.space)?;
                let label = c
                    .label
                    .clone()
                    .or_else(|| c.law.clone())
                    .or_else(|| c.formula.clone())
                    .unwrap_or_default();
                Ok(Candidate {
                    label,
                    law,
                    settings,
                    data,
                })
            })
            .collect()
    }
}

/// Scores candidate laws by rolling-origin backtests, picks the winner, stacks them and
/// predicts at `at`; returns the JSON of `scalinglaws select --json`.
#[pyfunction]
pub(crate) fn select(py_: Python<'_>, data: Data, request_json: &str) -> PyResult<String> {
    let request: SelectRequest = request(request_json)?;
    let recipe = py(request.recipe.recipe())?;
    let table = py(table(data, &recipe))?;
    let candidates = py(request.candidates(&table, &recipe))?;
    let first = &candidates[0];
    let (by, scale) = py(table.scale(&first.law, &first.data, request.by.as_deref(), "by"))?;
    let options = SelectionOptions {
        level: request.level,
        origins: request.origins,
        calibrate: request.calibrate,
    };
    let out = interruptible(
        py_,
        &request.interrupt,
        || -> Result<serde_json::Value, Error> {
            let selection = run_select(&candidates, &by, &scale, &options)?;
            let mut predictions = Vec::new();
            if !request.at.is_empty() {
                let points = points_by_name(&candidates, &request.at)?;
                for (i, prediction) in selection.predict(&points)?.into_iter().enumerate() {
                    let inputs: Vec<(String, f64)> = request
                        .at
                        .iter()
                        .map(|(n, v)| (n.clone(), value_at(v, i)))
                        .collect();
                    let mut value = serde_json::to_value(&prediction).map_err(json_error)?;
                    value["inputs"] = serde_json::to_value(inputs).map_err(json_error)?;
                    predictions.push(value);
                }
            }
            let check = if request.check {
                Some(evaluate_selection(&candidates, &by, &scale, &options)?)
            } else {
                None
            };
            // The shape of `scalinglaws select --json`: empty parts are left out.
            let mut out = serde_json::json!({ "selection": selection });
            if !predictions.is_empty() {
                out["predictions"] = serde_json::Value::Array(predictions);
            }
            if let Some(check) = check {
                out["check"] = serde_json::to_value(check).map_err(json_error)?;
            }
            Ok(out)
        },
    )?;
    json_out(&out)
}
