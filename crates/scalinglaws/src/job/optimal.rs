//! The allocation job: the compute-optimal N*, D* (or the least compute reaching a loss) of a
//! law, with its parameters from a saved fit or given (published values). [`OptimalJob`] says
//! what is asked (budgets or target losses, the FLOPs formula, held values, the
//! total-parameters formula, caps, inference tokens, the level); [`OptimalJob::run`] takes the
//! fit's bootstrap draws for intervals ([`allocation_from_fit`]), solves the frontier and, from
//! a fit, adds each allocation's prediction interval. The command line's `optimal` and
//! Python's `optimal` run this job; Python sends [`OptimalRequest`], whose formulas are parsed
//! here.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::analysis::allocation::{optimal, AllocationSettings, Flops, Formula, Frontier};
use crate::error::{Error, Result, Setting};
use crate::interrupt::Interrupt;
use crate::law::Law;
use crate::text;
use crate::uncertainty::FitRecord;

/// An allocation to solve: the goals, the compute model, what is held and what is capped.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "OptimalRequest")]
pub struct OptimalJob {
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

/// An allocation request as JSON, the formulas as text (the shape `scalinglaws.optimal`
/// sends). [`OptimalJob`] deserialises through it.
#[derive(Debug, Clone, Deserialize)]
pub struct OptimalRequest {
    #[serde(default)]
    pub budgets: Vec<f64>,
    #[serde(default)]
    pub target_losses: Vec<f64>,
    #[serde(default = "standard_flops")]
    pub flops: String,
    #[serde(default)]
    pub held: BTreeMap<String, Vec<f64>>,
    #[serde(default)]
    pub total_params: Option<String>,
    #[serde(default)]
    pub inference_tokens: f64,
    #[serde(default)]
    pub max_params: Option<f64>,
    #[serde(default)]
    pub max_active: Option<f64>,
    #[serde(default)]
    pub max_tokens: Option<f64>,
    #[serde(default)]
    pub level: Option<f64>,
}

fn standard_flops() -> String {
    "6*N*D".to_string()
}

impl TryFrom<OptimalRequest> for OptimalJob {
    type Error = Error;

    fn try_from(request: OptimalRequest) -> Result<OptimalJob> {
        if request.budgets.is_empty() == request.target_losses.is_empty() {
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
        if let Some(level) = request.level {
            crate::uncertainty::check_level(level)?;
        }
        let flops = Flops::parse(&request.flops).map_err(|e| e.within(Setting::Flops.subject()))?;
        let mut allowed = vec!["N"];
        allowed.extend(request.held.keys().map(String::as_str));
        let total_params = request
            .total_params
            .as_deref()
            .map(|text| Formula::parse(text, &allowed, "the total-parameters formula"))
            .transpose()
            .map_err(|e| e.within(Setting::TotalParams.subject()))?;
        Ok(OptimalJob {
            budgets: request.budgets,
            target_losses: request.target_losses,
            flops,
            held: request.held,
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

/// Where the law and its parameters come from. (One value per run, moved once: the size of
/// a record does not matter.)
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum OptimalSource {
    /// A saved fit: its law and parameters, its bootstrap draws for intervals, its
    /// calibration for the prediction intervals.
    Fit(FitRecord),
    /// A law with every parameter given (published values), in the law's order.
    Published { law: Law, params: Vec<f64> },
}

impl OptimalSource {
    /// The law and its parameters.
    pub fn law_and_params(&self) -> Result<(Law, Vec<f64>)> {
        match self {
            OptimalSource::Fit(fit) => Ok((fit.law()?, fit.param_values())),
            OptimalSource::Published { law, params } => Ok((law.clone(), params.clone())),
        }
    }

    /// The fit the parameters come from (none for given parameters).
    pub fn fit(&self) -> Option<&FitRecord> {
        match self {
            OptimalSource::Fit(fit) => Some(fit),
            OptimalSource::Published { .. } => None,
        }
    }

    /// The law as reports name it: `chinchilla`, `chinchilla (given parameters)`.
    pub fn label(&self) -> Result<String> {
        Ok(match self {
            OptimalSource::Fit(fit) => fit.law()?.label().to_string(),
            OptimalSource::Published { law, .. } => format!("{} (given parameters)", law.label()),
        })
    }
}

impl OptimalJob {
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

    /// The frontier of `source`'s law with its parameters: intervals from a fit's bootstrap
    /// draws, and from a fit each allocation's prediction interval (calibrated beyond the data
    /// as in `predict`) and the fit's caveats.
    pub fn run(&self, source: &OptimalSource) -> Result<Frontier> {
        let (law, params) = source.law_and_params()?;
        let settings = allocation_from_fit(self.settings(), source.fit(), self.level);
        let mut frontier = optimal(&law, &params, &settings)?;
        if let Some(fit) = source.fit() {
            frontier.add_prediction_intervals(fit, settings.level)?;
            frontier.fit_caveats = fit.caveats();
        }
        Ok(frontier)
    }
}

/// `settings` with the draws of `fit`'s bootstrap (none without one) and the level: the one
/// asked for, else the bootstrap's, else the calibration's, else 95% (the first step of
/// [`OptimalJob::run`]).
pub fn allocation_from_fit(
    settings: AllocationSettings,
    fit: Option<&FitRecord>,
    level: Option<f64>,
) -> AllocationSettings {
    let bootstrap = fit.and_then(|fit| fit.bootstrap.as_ref());
    let level = level
        .or_else(|| bootstrap.map(|b| b.level))
        .or_else(|| fit?.calibration.as_ref().map(|c| c.level))
        .unwrap_or(crate::uncertainty::DEFAULT_LEVEL);
    AllocationSettings {
        draws: bootstrap.map(|b| b.draws.clone()).unwrap_or_default(),
        level,
        ..settings
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::predict::tests::chinchilla_fit;
    use crate::law::catalog;
    use crate::uncertainty::BootstrapSummary;

    /// Epoch AI's published Chinchilla parameters.
    const EPOCH: [f64; 5] = [1.81686, 482.00572, 0.34781, 2085.43420, 0.36585];

    fn job(json: &str) -> Result<OptimalJob> {
        OptimalJob::try_from(serde_json::from_str::<OptimalRequest>(json).unwrap())
    }

    #[test]
    fn budgets_and_target_losses_together_or_neither_are_refused() {
        for json in [
            r#"{"budgets": [1e22], "target_losses": [2.1]}"#,
            r#"{"inference_tokens": 1e12}"#,
        ] {
            let error = job(json).unwrap_err();
            assert_eq!(error.key(), Some(Setting::Budget));
            let message = error.to_string();
            assert!(message.contains("budget=C"), "{message}");
            assert!(message.contains("target_loss=L"), "{message}");
        }
    }

    #[test]
    fn the_formulas_are_parsed_and_their_errors_name_their_setting() {
        let error = job(r#"{"budgets": [1e22], "flops": "6*N*"}"#).unwrap_err();
        assert!(error.to_string().starts_with("flops: "), "{error}");
        let error = job(r#"{"budgets": [1e22], "total_params": "N*experts"}"#).unwrap_err();
        assert_eq!(error.key(), Some(Setting::TotalParams));
        assert!(error.to_string().contains("experts"), "{error}");
        let parsed = job(r#"{"budgets": [1e22], "flops": "8*N*D"}"#).unwrap();
        assert!((parsed.flops.at(2.0, 3.0) - 48.0).abs() < 1e-12);
    }

    #[test]
    fn published_parameters_give_the_analysis_allocation() {
        let law = catalog::lookup("chinchilla").unwrap();
        let source = OptimalSource::Published {
            law: law.clone(),
            params: EPOCH.to_vec(),
        };
        let frontier = job(r#"{"budgets": [1e24]}"#).unwrap().run(&source).unwrap();
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
        assert!(source.label().unwrap().ends_with(" (given parameters)"));
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
        let source = OptimalSource::Fit(fit);
        let frontier = job(r#"{"budgets": [1e21, 1e23]}"#)
            .unwrap()
            .run(&source)
            .unwrap();
        assert_eq!(frontier.draws, 4);
        assert!((frontier.level.unwrap() - 0.8).abs() < 1e-15);
        let a = &frontier.allocations[1];
        let [lo, hi] = a.ci["N"];
        assert!(lo < a.n && a.n < hi && hi / lo > 1.01, "{lo} {} {hi}", a.n);
        assert!(frontier.prediction_intervals.is_some() && a.pi.is_some());
        assert!(!source.label().unwrap().contains("given"));
    }
}
