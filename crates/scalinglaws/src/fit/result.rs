//! The result of a fit as a serde model (`schema_version` 1): the pure fit, what
//! [`super::fit`] returns and later analyses consume. The file the CLI writes is a
//! `uncertainty::FitRecord`, which composes this with what is learnt after the fit (data
//! summary, bootstrap, profiles, calibration). Parameters keep the law's order.

use serde::{Deserialize, Serialize};

use super::FitSettings;
use crate::error::{Error, Result, Text};
use crate::law::{catalog, Law};

pub use super::file::check_schema_version;

/// The fit file's layout: the one every document follows.
pub const SCHEMA_VERSION: u32 = crate::document::SCHEMA_VERSION;

/// Serialises a list of (name, value) pairs as a JSON object in list order.
pub mod ordered {
    use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
    use serde::ser::{SerializeMap, Serializer};
    use std::marker::PhantomData;

    pub fn serialize<S: Serializer, T: serde::Serialize>(
        pairs: &[(String, T)],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(pairs.len()))?;
        for (k, v) in pairs {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
        d: D,
    ) -> Result<Vec<(String, T)>, D::Error> {
        struct PairVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for PairVisitor<T> {
            type Value = Vec<(String, T)>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut pairs = Vec::new();
                while let Some((k, v)) = map.next_entry()? {
                    pairs.push((k, v));
                }
                Ok(pairs)
            }
        }
        d.deserialize_map(PairVisitor(PhantomData))
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamResult {
    pub value: f64,
    /// Standard error from the covariance named by `covariance_kind` (None when it cannot be
    /// computed or the parameter is fixed).
    pub stderr: Option<f64>,
    /// stderr / |value|.
    pub rel_stderr: Option<f64>,
    pub at_bound: bool,
    pub fixed: bool,
    /// Solved by variable projection at each start.
    pub linear: bool,
    pub lower: Option<f64>,
    pub upper: Option<f64>,
    /// Percentile interval at the bootstrap's level (present when the `bootstrap` setting is on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<[f64; 2]>,
    /// Standard deviation of the bootstrap replicates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_stderr: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Optima {
    pub starts: usize,
    /// Starts that gave no finite objective.
    pub failed: usize,
    /// Starts along which a parameter ran off to infinity (no optimum there).
    #[serde(default)]
    pub diverged: usize,
    /// Starts still moving when their iterations ran out, away from every converged optimum.
    #[serde(default)]
    pub unconverged: usize,
    /// Starts whose first phase ended more than 3× above the best objective (not polished).
    #[serde(default)]
    pub stalled: usize,
    /// Starts not searched: on a line of starts (one nonlinear parameter's grid), a neighbour's
    /// start objective was lower. Not written when none was (records of searches that screen
    /// nothing read and write back as before).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub screened: usize,
    /// Local-minimiser iterations summed over every start.
    #[serde(default)]
    pub iterations: usize,
    /// Distinct optima the starts converged to.
    pub distinct: usize,
    /// How many starts reached the best optimum.
    pub best_starts: usize,
    /// Objective of the runner-up optimum minus the best (None with one optimum).
    pub gap: Option<f64>,
    /// gap / best objective.
    pub relative_gap: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// R² of the fitted space (log y in log space).
    pub r2: Option<f64>,
    /// Root mean square residual in the fitted space.
    pub rmse: Option<f64>,
    /// Log-likelihood of the loss's own error density at the fit, its scale profiled out
    /// (Gaussian for `linear`, Huber's density for `huber`; see `fit::likelihood`).
    #[serde(default)]
    pub log_likelihood: Option<f64>,
    /// 2(k+1) − 2ℓ and (k+1)·ln n − 2ℓ, counting the error scale as a parameter.
    pub aic: Option<f64>,
    pub bic: Option<f64>,
    /// Residual scatter in the fitted space, √(Σwr²/(Σw − k)): the noise a new run adds
    /// to the law's mean in prediction intervals.
    #[serde(default)]
    pub residual_scale: Option<f64>,
    /// Number of fitted (free) parameters.
    pub n_params: usize,
    pub dof: usize,
}

/// A labelled square matrix over the free parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Matrix {
    pub names: Vec<String>,
    pub values: Vec<Vec<f64>>,
}

/// Where the data came from and what happened to its rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct DataSummary {
    /// The data file (or what the data were given as).
    pub source: String,
    /// Rows read.
    pub rows_read: usize,
    /// Rows removed by explicit filters (the `where` setting).
    pub rows_filtered: usize,
    /// The filters, as given.
    pub filters: Vec<String>,
    /// Columns derived before the fit (`VAR=EXPR`).
    pub derived: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitResult {
    pub schema_version: u32,
    /// Catalog name or "formula".
    pub law: String,
    /// The law's formula; a file of a catalog law may leave it out (it is the catalog's).
    #[serde(default)]
    pub formula: String,
    pub citation: Option<String>,
    /// The target column.
    pub target: String,
    /// Law variable → data column.
    #[serde(with = "ordered")]
    pub variables: Vec<(String, String)>,
    pub n_obs: usize,
    pub settings: FitSettings,
    #[serde(with = "ordered")]
    pub params: Vec<(String, ParamResult)>,
    pub objective: f64,
    pub converged: bool,
    pub termination: String,
    pub iterations: usize,
    pub optima: Optima,
    pub stats: Stats,
    /// Which covariance the standard errors come from: "gauss_newton" (σ²(JᵀWJ)⁻¹, the linear
    /// loss's default), "hessian" (σ²·H⁻¹, or the inverse observed information under a family),
    /// "sandwich" (H⁻¹ B H⁻¹) or "smoothed_sandwich" (the sandwich with a kernel-smoothed bread
    /// and an HC3 meat, robust losses' default: [`crate::fit::smoothed`]).
    pub covariance_kind: String,
    pub covariance: Option<Matrix>,
    pub correlation: Option<Matrix>,
    /// Condition number of the Hessian scaled to unit diagonal.
    pub condition_number: Option<f64>,
    /// What the reader should know (a bound reached, a profile that could not be computed),
    /// worded by the front end that shows it.
    pub warnings: Vec<Text>,
    /// The fitted residual scale σ(x) = σ0·(x/x0)^s of a heteroscedastic fit (prediction
    /// intervals then use σ at the predicted point).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variance: Option<super::VarianceModel>,
    /// The likelihood family the fit maximised, with its fitted nuisance values (None: the
    /// robust least squares of the settings' loss).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<super::family::FamilyFit>,
}

impl FitResult {
    pub fn param(&self, name: &str) -> Option<&ParamResult> {
        self.params.iter().find(|(n, _)| n == name).map(|(_, p)| p)
    }

    pub fn value(&self, name: &str) -> Option<f64> {
        self.param(name).map(|p| p.value)
    }

    /// Parameter values in the law's order.
    /// Whether a parameter ended at one of its bounds.
    pub fn has_param_at_bound(&self) -> bool {
        self.params.iter().any(|(_, p)| p.at_bound)
    }

    pub fn param_values(&self) -> Vec<f64> {
        self.params.iter().map(|(_, p)| p.value).collect()
    }

    /// The settings with the family's fitted nuisance values held at them: the objective at
    /// this fit's optimum (for its Hessian, its problem). The settings themselves otherwise.
    pub fn held_settings(&self) -> FitSettings {
        let mut settings = self.settings.clone();
        if let (Some(family), Some(fit)) = (settings.family.as_mut(), &self.family) {
            if family.kind != super::FamilyKind::Gaussian {
                family.dispersion = family.dispersion.or(fit.dispersion.as_ref().map(|d| d.1));
                family.nu = family.nu.or(fit.nu);
            }
        }
        settings
    }

    /// The law this result was fitted with.
    pub fn law(&self) -> Result<Law> {
        let law = if self.law == "formula" {
            let variables: Vec<&str> = self.variables.iter().map(|(v, _)| v.as_str()).collect();
            Law::from_formula(&self.formula, &|id| variables.contains(&id))
                .map_err(|e| e.within("the fit's formula"))?
        } else {
            catalog::lookup(&self.law)?
        };
        let expected: Vec<&str> = self.params.iter().map(|(n, _)| n.as_str()).collect();
        if law.param_names() != expected {
            return Err(Error::settings(format!(
                "the fit's parameters {expected:?} do not match law '{}' ({:?}); was the file edited?",
                self.law,
                law.param_names()
            )));
        }
        Ok(law)
    }

    /// Predicts at points given as one value per law variable.
    pub fn predict(&self, points: &[Vec<f64>]) -> Result<Vec<f64>> {
        self.predict_with(&self.law()?, points)
    }

    /// [`FitResult::predict`] with the fit's law given (a law built in memory, such as a joint
    /// law over tracks, that the result's name cannot rebuild).
    pub fn predict_with(&self, law: &Law, points: &[Vec<f64>]) -> Result<Vec<f64>> {
        if let Some(point) = points.iter().find(|p| p.len() != law.variables.len()) {
            return Err(Error::settings(format!(
                "a point needs {} values ({}), got {}",
                law.variables.len(),
                law.variables.join(", "),
                point.len()
            )));
        }
        Ok(law.eval_points(&self.param_values(), points))
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&crate::document::envelope(self))
            .unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
    }
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}
