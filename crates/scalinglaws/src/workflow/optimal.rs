//! What is compute-optimal? The allocation as a workflow: the compute-optimal N*, D* (or the
//! least compute reaching a loss) of a law, its parameters from a saved fit (the input) or
//! given (a catalog law with published values, in the spec). The spec says what is asked
//! (budgets or target losses, the FLOPs formula, held values, the total-parameters formula,
//! caps, inference tokens, the level); the run takes the fit's bootstrap draws for intervals
//! (`analysis::allocation::allocation_from_fit`), solves the frontier and, from a fit, adds
//! each allocation's prediction interval and the fit's caveats. The request's defaults and
//! every rule between its settings are here, once: the command line's `optimal` and Python's
//! `optimal` only build the spec.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::compare::DEFAULT_FLOPS;
use super::{Ctx, Workflow};
use crate::analysis::allocation::{
    allocation_from_fit, optimal, AllocationSettings, Flops, Formula, Frontier,
};
use crate::document::Document;
use crate::error::{Error, Result, Setting};
use crate::interrupt::Interrupt;
use crate::job::fit::{held_by_name, named_numbers, one_or_many_numbers, OneOrManyNumbers};
use crate::law::{catalog, Law};
use crate::text;
use crate::uncertainty::FitRecord;

/// The workflow.
pub struct OptimalWorkflow;

/// An allocation as a face sends it: the law when no fit is given, and what is asked.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
pub struct OptimalRequest {
    /// Instead of a fit: a catalog law (`chinchilla`), with every parameter in `params`.
    #[serde(default)]
    pub law: Option<String>,
    /// The catalog law's parameters, every one: {name: value} (published values).
    #[serde(default)]
    pub params: Option<BTreeMap<String, f64>>,
    /// Training budgets in FLOPs to allocate (minimise the loss at each): one or several.
    #[serde(default, deserialize_with = "one_or_many_numbers")]
    #[schemars(with = "Option<OneOrManyNumbers>")]
    pub budget: Vec<f64>,
    /// Instead of budgets: losses to reach with the least compute, one or several.
    #[serde(default, deserialize_with = "one_or_many_numbers")]
    #[schemars(with = "Option<OneOrManyNumbers>")]
    pub target_loss: Vec<f64>,
    /// Training FLOPs as a formula of N and D.
    #[serde(default = "default_flops")]
    pub flops: String,
    /// Other variables of the law held at values, in order: {name: one value or several};
    /// several values (`{"E": [1, 8, 64]}`) are optimised over.
    #[serde(default, deserialize_with = "named_numbers")]
    #[schemars(with = "Option<BTreeMap<String, OneOrManyNumbers>>")]
    pub set: Vec<(String, Vec<f64>)>,
    /// Total parameters as a formula of N and the held variables (None: N), e.g.
    /// `N*(4+9*E)/13` for Switch-style MoE layers without embeddings.
    #[serde(default)]
    pub total_params: Option<String>,
    /// Cap on the total parameters (what fits in memory).
    #[serde(default)]
    pub max_params: Option<f64>,
    /// Cap on N, the parameters each token passes through (inference cost per token).
    #[serde(default)]
    pub max_active: Option<f64>,
    /// Cap on the training tokens D (e.g. the unique data available).
    #[serde(default)]
    pub max_tokens: Option<f64>,
    /// Tokens the model will serve over its life, costing 2·N per token (Sardana et al.
    /// 2024): a budget then covers training and inference.
    #[serde(default)]
    pub inference_tokens: f64,
    /// Level of the intervals (None: the fit's bootstrap's, else its calibration's, else 95%).
    #[serde(default)]
    pub level: Option<f64>,
}

fn default_flops() -> String {
    DEFAULT_FLOPS.to_string()
}

/// A catalog law with every parameter given, in the law's order.
#[derive(Debug, Clone)]
pub struct GivenLaw {
    pub law: Law,
    pub params: Vec<f64>,
}

/// An allocation to solve: the goals, the compute model, what is held and what is capped, and
/// the law when no fit is given.
#[derive(Debug, Clone)]
pub struct OptimalJob {
    /// A catalog law with published parameters (None: the fit given as the input's).
    pub given: Option<GivenLaw>,
    /// Budgets to allocate (minimise loss) ...
    pub budgets: Vec<f64>,
    /// ... or losses to reach at the least compute: exactly one of the two is given.
    pub target_losses: Vec<f64>,
    pub flops: Flops,
    /// Values of the law's other variables; several values are one more choice to optimise.
    pub held: BTreeMap<String, Vec<f64>>,
    /// Total parameters as a formula of N and the held variables (None: N).
    pub total_params: Option<Formula>,
    /// Expected inference tokens T: a run costs FLOPs(N, D) + 2·N·T.
    pub inference_tokens: f64,
    pub max_params: Option<f64>,
    pub max_active: Option<f64>,
    pub max_tokens: Option<f64>,
    /// Level of the intervals (None: the fit's bootstrap's, else its calibration's, else 95%).
    pub level: Option<f64>,
    /// Stops the solves between goals and draws ([`Error::Interrupted`]).
    pub interrupt: Interrupt,
}

impl TryFrom<OptimalRequest> for OptimalJob {
    type Error = Error;

    fn try_from(request: OptimalRequest) -> Result<OptimalJob> {
        let given = given_law(request.law.as_deref(), request.params.as_ref())?;
        let held = held_by_name(request.set)?;
        let flops = flops(&request.flops)?;
        let total_params = total_params(request.total_params.as_deref(), &held)?;
        Ok(OptimalJob {
            given,
            budgets: request.budget,
            target_losses: request.target_loss,
            flops,
            held,
            total_params,
            inference_tokens: request.inference_tokens,
            max_params: request.max_params,
            max_active: request.max_active,
            max_tokens: request.max_tokens,
            level: request.level,
            interrupt: Interrupt::default(),
        })
    }
}

/// The catalog law `law` with its parameters `params`, both or neither.
fn given_law(
    law: Option<&str>,
    params: Option<&BTreeMap<String, f64>>,
) -> Result<Option<GivenLaw>> {
    match (law, params) {
        (None, None) => Ok(None),
        (Some(name), Some(params)) => {
            let law = catalog::lookup(name).map_err(|e| e.within(Setting::Law.subject()))?;
            let params = law.values_by_name(params, "params")?;
            Ok(Some(GivenLaw { law, params }))
        }
        (Some(_), None) => Err(Error::setting(
            Setting::Law,
            text![
                "a law without a fit needs every parameter: give ",
                Setting::Law,
                " with its published parameters, or a fit instead"
            ],
        )),
        (None, Some(_)) => Err(Error::setting(
            Setting::Law,
            text![
                "published parameters belong to a catalog law: give ",
                Setting::Law,
                " too, or drop the parameters"
            ],
        )),
    }
}

/// The training FLOPs formula, of N and D.
pub fn flops(text: &str) -> Result<Flops> {
    Flops::parse(text).map_err(|e| e.within(Setting::Flops.subject()))
}

/// The total-parameters formula, of N and the held variables.
pub fn total_params(
    text: Option<&str>,
    held: &BTreeMap<String, Vec<f64>>,
) -> Result<Option<Formula>> {
    let mut allowed = vec!["N"];
    allowed.extend(held.keys().map(String::as_str));
    text.map(|text| Formula::parse(text, &allowed, "the total-parameters formula"))
        .transpose()
        .map_err(|e| e.within(Setting::TotalParams.subject()))
}

/// Where the law and its parameters come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Parameters {
    /// A fit's (with its bootstrap draws and calibration, when it has them).
    Fitted,
    /// Given (published values): no intervals.
    Given,
}

/// What `optimal` gives: the frontier, and the law it is of.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[schemars(rename = "Frontier")]
pub struct OptimalDocument {
    /// The law (a fit's formula is its label).
    pub law: String,
    /// Where the law's parameters come from: `fitted` or `given`.
    pub parameters: Parameters,
    #[serde(flatten)]
    pub frontier: Frontier,
}

impl Document for OptimalDocument {
    const KIND: &'static str = "optimal";
}

impl OptimalJob {
    /// The rules that need no fit: budgets or target losses, one of the two; the level (the
    /// caps and the inference tokens are checked by the allocation, `analysis::allocation`).
    pub fn check(&self) -> Result<()> {
        if self.budgets.is_empty() == self.target_losses.is_empty() {
            return Err(Error::setting(
                Setting::Budget,
                text![
                    "give the budgets to allocate (",
                    Setting::Budget.number("C"),
                    ") or the losses to reach at least compute (",
                    Setting::TargetLoss.number("L"),
                    "), one of the two"
                ],
            ));
        }
        if let Some(level) = self.level {
            crate::uncertainty::check_level(level)?;
        }
        Ok(())
    }

    /// The allocation asked for (no draws, the default level).
    pub fn settings(&self) -> AllocationSettings {
        AllocationSettings {
            budgets: self.budgets.clone(),
            target_losses: self.target_losses.clone(),
            flops: self.flops.clone(),
            held: self.held.clone(),
            total_params: self.total_params.clone(),
            inference_tokens: self.inference_tokens,
            max_params: self.max_params,
            max_active: self.max_active,
            max_tokens: self.max_tokens,
            interrupt: self.interrupt.clone(),
            ..AllocationSettings::at_budgets(Vec::new())
        }
    }

    /// The frontier of the fit's law with its parameters (intervals from its bootstrap draws,
    /// each allocation's prediction interval calibrated beyond the data as in `predict`, and
    /// its caveats), or of the given law with its published parameters.
    pub fn run(&self, fit: Option<&FitRecord>) -> Result<OptimalDocument> {
        self.check()?;
        let (law, params, parameters) = match (fit, &self.given) {
            (Some(fit), None) => (fit.law()?, fit.param_values(), Parameters::Fitted),
            (None, Some(given)) => (given.law.clone(), given.params.clone(), Parameters::Given),
            (Some(_), Some(_)) => return Err(unread_fit()),
            (None, None) => {
                return Err(Error::setting(
                    Setting::Law,
                    text![
                        "give a fit, or a catalog law (",
                        Setting::Law,
                        ") with its published parameters"
                    ],
                ))
            }
        };
        let settings = allocation_from_fit(self.settings(), fit, self.level);
        let mut frontier = optimal(&law, &params, &settings)?;
        if let Some(fit) = fit {
            frontier.add_prediction_intervals(fit, settings.level)?;
            frontier.fit_caveats = fit.caveats();
        }
        let label = match parameters {
            Parameters::Fitted => law.label().to_string(),
            Parameters::Given => format!("{} (given parameters)", law.label()),
        };
        Ok(OptimalDocument {
            law: label,
            parameters,
            frontier,
        })
    }
}

/// A fit given beside a catalog law with its parameters: refused by the run, once the fit
/// is read.
pub fn unread_fit() -> Error {
    Error::setting(
        Setting::Law,
        text![
            "give a fit, or a catalog law (",
            Setting::Law,
            ") with its published parameters, not both"
        ],
    )
}

impl Workflow for OptimalWorkflow {
    const NAME: &'static str = "optimal";
    const SUMMARY: &'static str =
        "Compute-optimal N*, D* at each budget (or the least compute reaching each target loss) of a fit, or of a catalog law with published parameters, with intervals from the fit's bootstrap and each allocation's prediction interval";
    type Request = OptimalRequest;
    type Spec = OptimalJob;
    type Output = OptimalDocument;
    type Input = Option<FitRecord>;

    fn spec(request: OptimalRequest) -> Result<OptimalJob> {
        OptimalJob::try_from(request)
    }

    fn check(spec: &OptimalJob) -> Result<()> {
        spec.check()
    }

    fn run(spec: &OptimalJob, fit: &Option<FitRecord>, ctx: &Ctx) -> Result<OptimalDocument> {
        let mut job = spec.clone();
        job.interrupt = ctx.interrupt.clone();
        job.run(fit.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::uncertainty::BootstrapSummary;
    use crate::workflow::predict::tests::chinchilla_fit;

    /// Epoch AI's published Chinchilla parameters.
    const EPOCH: [f64; 5] = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];

    fn job(json: &str) -> Result<OptimalJob> {
        OptimalJob::try_from(serde_json::from_str::<OptimalRequest>(json).unwrap())
    }

    #[test]
    fn budgets_and_target_losses_together_or_neither_are_refused() {
        for json in [
            r#"{"budget": [1e22], "target_loss": 2.1}"#,
            r#"{"inference_tokens": 1e12}"#,
        ] {
            let error = job(json).unwrap().check().unwrap_err();
            assert_eq!(error.key(), Some(Setting::Budget));
            let message = error.to_string();
            assert!(message.contains("budget=C"), "{message}");
            assert!(message.contains("target_loss=L"), "{message}");
        }
    }

    #[test]
    fn the_formulas_are_parsed_and_their_errors_name_their_setting() {
        let error = job(r#"{"budget": 1e22, "flops": "6*N*"}"#).unwrap_err();
        assert!(error.to_string().starts_with("flops: "), "{error}");
        let error = job(r#"{"budget": 1e22, "total_params": "N*experts"}"#).unwrap_err();
        assert_eq!(error.key(), Some(Setting::TotalParams));
        assert!(error.to_string().contains("experts"), "{error}");
        let parsed = job(r#"{"budget": 1e22, "flops": "8*N*D"}"#).unwrap();
        assert!((parsed.flops.at(2.0, 3.0) - 48.0).abs() < 1e-12);
    }

    #[test]
    fn published_parameters_give_the_analysis_allocation() {
        let law = catalog::lookup("chinchilla").unwrap();
        let given = r#"{"budget": 1e24, "law": "chinchilla", "params": {"E": 1.81686,
            "A": 482.00572, "alpha": 0.34781, "B": 2085.43420, "beta": 0.36585}}"#;
        let document = job(given).unwrap().run(None).unwrap();
        let frontier = &document.frontier;
        let direct = optimal(&law, &EPOCH, &AllocationSettings::at_budgets(vec![1e24])).unwrap();
        let (ours, theirs) = (&frontier.allocations[0], &direct.allocations[0]);
        assert!(
            (ours.n / theirs.n - 1.0).abs() < 1e-12,
            "{} {}",
            ours.n,
            theirs.n
        );
        assert!(
            (ours.d / theirs.d - 1.0).abs() < 1e-12,
            "{} {}",
            ours.d,
            theirs.d
        );
        assert_eq!(frontier.draws, 0);
        assert!(frontier.prediction_intervals.is_none());
        assert!(document.law.ends_with(" (given parameters)"));
        assert_eq!(document.parameters, Parameters::Given);
        // A fit beside a law of its own, or neither, is refused.
        let (fit, _) = chinchilla_fit();
        let both = job(given).unwrap().run(Some(&fit)).unwrap_err();
        assert!(both.to_string().contains("not both"), "{both}");
        let neither = job(r#"{"budget": 1e24}"#).unwrap().run(None).unwrap_err();
        assert_eq!(neither.key(), Some(Setting::Law));
        let half = job(r#"{"budget": 1e24, "law": "chinchilla"}"#).unwrap_err();
        assert_eq!(half.key(), Some(Setting::Law));
    }

    #[test]
    fn a_bootstrapped_fit_gives_intervals_from_its_draws() {
        let (mut fit, _) = chinchilla_fit();
        let params = fit.param_values();
        let draws: Vec<Vec<f64>> = [0.98, 0.99, 1.01, 1.02]
            .iter()
            .map(|scale| {
                let mut draw = params.clone();
                draw[2] *= scale; // alpha
                draw
            })
            .collect();
        fit.bootstrap = Some(BootstrapSummary {
            replicates: draws.len(),
            seed: 0,
            cluster: None,
            clusters: None,
            level: 0.8,
            failed: 0,
            draws,
        });
        let document = job(r#"{"budget": [1e21, 1e23]}"#)
            .unwrap()
            .run(Some(&fit))
            .unwrap();
        let frontier = &document.frontier;
        assert_eq!(frontier.draws, 4);
        assert!((frontier.level.unwrap() - 0.8).abs() < 1e-15);
        let a = &frontier.allocations[1];
        let [lo, hi] = a.ci["N"];
        assert!(lo < a.n && a.n < hi && hi / lo > 1.01, "{lo} {} {hi}", a.n);
        assert!(frontier.prediction_intervals.is_some() && a.pi.is_some());
        assert!(!document.law.contains("given"));
        assert_eq!(document.parameters, Parameters::Fitted);
    }
}
